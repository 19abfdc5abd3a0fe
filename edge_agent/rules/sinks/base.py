"""What every alert sink is: :class:`Sink` makes one delivery attempt and raises :class:`SinkError` when it
fails (the dispatcher retries) and may mirror memory's state (:meth:`Sink.sync`); and the shared wording of an
alert and of a failure's cause."""

from __future__ import annotations

import abc
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from edge_agent.errors import EdgeAgentError

if TYPE_CHECKING:
    from edge_agent.memory.db import Database

__all__ = ["Sink", "SinkError", "describe_cause", "human_line"]


class SinkError(EdgeAgentError, RuntimeError):
    """A delivery failed; the message names the sink and the cause."""


def human_line(payload: Mapping[str, Any]) -> str:
    """One human line for an alert: 'ALERT <time> [<camera>] rule <id> ('<text>'): <message>'."""
    camera = f" [{payload['camera']}]" if payload.get("camera") else ""
    when = payload.get("time") or payload.get("t", "")
    return (
        f"ALERT {when}{camera} rule {payload.get('rule_id')} ({payload.get('rule', '')!r}): "
        f"{payload.get('message', '')}"
    )


def describe_cause(exc: BaseException) -> str:
    """A failure's cause in a few lower-case words ("timed out", "connection refused")."""
    if isinstance(exc, TimeoutError):
        return "timed out"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror[:1].lower() + exc.strerror[1:]
    return str(exc) or type(exc).__name__


class Sink(abc.ABC):
    """Where alerts go. ``send`` makes one attempt and raises :class:`SinkError` on failure (retries are
    the dispatcher's); ``close`` releases connections."""

    name: str

    @abc.abstractmethod
    def send(self, payload: Mapping[str, Any]) -> None: ...

    def sync(self, db: Database) -> None:  # noqa: B027 - an optional hook: only a sink that mirrors memory has one
        """Brings what the sink shows of memory's state up to date (the MQTT sink: Home Assistant's entities);
        the dispatcher's thread calls it when it starts and before each delivery pass. Raises :class:`SinkError`."""

    def close(self) -> None:  # noqa: B027 - an optional hook, not abstract: most sinks hold nothing to release
        """Releases what the sink holds (nothing, for most)."""
