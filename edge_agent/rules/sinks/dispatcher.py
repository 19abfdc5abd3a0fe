"""The dispatcher: a thread with its own database connection that delivers due notifications from the
outbox outside any transaction (one attempt per row and pass), then records the outcome in a short
transaction of its own: ``sent``, or a retry after exponential backoff, or ``failed`` after
``max_attempts``. A ``sent`` row is never sent again; delivery is at-least-once only in the window
between a successful send and its status write. One dispatcher per database is assumed. Also here:
:func:`build_sinks`, the sinks of the configuration by name. Each pass first lets the sinks mirror memory's
state (:meth:`Sink.sync`: the MQTT sink's Home Assistant entities), so that also happens off ingest's thread."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from edge_agent.config.sinks import SINK_CONFIG, MqttSinkConfig, SinkConfig
from edge_agent.memory import rulebook
from edge_agent.memory.db import Database
from edge_agent.rules.sinks.base import Sink, SinkError
from edge_agent.rules.sinks.jsonl import JsonlSink
from edge_agent.rules.sinks.log import LogSink
from edge_agent.rules.sinks.mqtt import MqttSink
from edge_agent.rules.sinks.stdout import StdoutSink
from edge_agent.rules.sinks.webhook import WebhookSink

__all__ = ["Dispatcher", "build_sinks"]

logger = logging.getLogger(__name__)


_SINK_TYPES: dict[str, Callable[[Any], Sink]] = {
    "stdout": StdoutSink,
    "log": LogSink,
    "jsonl": JsonlSink,
    "webhook": WebhookSink,
}


def build_sinks(configs: Sequence[SinkConfig | Mapping[str, Any]], *, install_id: str | None = None) -> dict[str, Sink]:
    """The sinks of ``configs`` (models, or mappings validated as :data:`SinkConfig`), by name. ``install_id``
    (edge_agent.memory.identity) names this install to the MQTT sink's Home Assistant discovery.

    Raises:
        ValueError: two sinks share a name; an MQTT sink without ``install_id``.
    """
    sinks: dict[str, Sink] = {}
    for raw in configs:
        config = SINK_CONFIG.validate_python(raw) if isinstance(raw, Mapping) else raw
        if config.name in sinks:
            raise ValueError(
                f"two alert sinks are named {config.name!r}: give each sink of the same type a distinct 'name'"
            )
        if isinstance(config, MqttSinkConfig):
            sinks[config.name] = MqttSink(config, install_id=install_id)
        else:
            sinks[config.name] = _SINK_TYPES[config.type](config)
    return sinks


class Dispatcher:
    """Delivers pending notifications to their sinks, in a background thread (:meth:`start`) or on
    demand (:meth:`deliver_due`). Failures are retried after ``backoff_s * 2**(attempts-1)`` seconds
    (at most ``max_backoff_s``) and marked ``failed`` after ``max_attempts``; nothing is raised to the
    caller for a sink failure."""

    def __init__(
        self,
        db_path: str | Path,
        sinks: Mapping[str, Sink],
        *,
        max_attempts: int = 5,
        backoff_s: float = 2.0,
        max_backoff_s: float = 300.0,
        poll_s: float = 1.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, got {max_attempts}")
        self.db_path = Path(db_path)
        self.sinks = dict(sinks)
        self.max_attempts = int(max_attempts)
        self.backoff_s = float(backoff_s)
        self.max_backoff_s = float(max_backoff_s)
        self.poll_s = float(poll_s)
        self.clock = clock
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- delivery ----------------------------------------------------------------------------------

    def deliver_due(self, db: Database | None = None) -> int:
        """Attempts every pending notification that is due, oldest first; returns how many were sent.
        ``db`` must belong to the calling thread; without it a connection is opened for the call."""
        if db is None:
            with Database(self.db_path) as own:
                return self._deliver_due(own)
        return self._deliver_due(db)

    def _deliver_due(self, db: Database) -> int:
        self._sync(db)
        rows = rulebook.due_notifications(db, self.clock())
        sent = 0
        for due in rows:
            if self._stop.is_set():
                break
            sent += self._deliver_one(db, int(due.id), str(due.sink), int(due.attempts), str(due.payload))
        return sent

    def _sync(self, db: Database) -> None:
        """Lets each sink mirror memory's state (Home Assistant's entities) before the pass delivers alerts."""
        for name, sink in self.sinks.items():
            try:
                sink.sync(db)
            except SinkError as exc:
                logger.warning("sink %s could not bring its entities up to date: %s", name, exc)
            except Exception:  # a sink bug must not stop the deliveries
                logger.exception("sink %s failed to bring its entities up to date", name)

    def _deliver_one(self, db: Database, row_id: int, sink_name: str, attempts: int, text: str) -> int:
        sink = self.sinks.get(sink_name)
        try:
            payload = json.loads(text)
        except ValueError:
            payload = None
        if sink is None or not isinstance(payload, dict):
            why = f"no sink named {sink_name} is configured" if sink is None else "the payload is not a JSON object"
            with db.transaction():
                rulebook.mark_undeliverable(db, row_id, why)
            logger.error("alert notification %d cannot be delivered: %s", row_id, why)
            return 0
        try:
            sink.send(payload)
            error: str | None = None
        except SinkError as exc:
            error = str(exc)
        except Exception as exc:  # a sink bug must not stop the dispatcher
            logger.debug("sink %s raised", sink_name, exc_info=True)
            error = f"{sink_name}: {type(exc).__name__}: {exc}"
        attempts += 1
        now = self.clock()
        if error is None:
            with db.transaction():
                rulebook.mark_sent(db, row_id, now, attempts)
            return 1
        failed = attempts >= self.max_attempts
        next_attempt = now + min(self.backoff_s * 2 ** (attempts - 1), self.max_backoff_s)
        with db.transaction():
            rulebook.mark_attempt_failed(
                db, row_id, failed=failed, attempts=attempts, error=error, next_attempt=next_attempt
            )
        rule = f"rule {payload.get('rule_id')} ({payload.get('rule', '')!r})"
        if failed:
            logger.error("alert of %s not delivered to sink %s after %d attempts: %s", rule, sink_name, attempts, error)
        else:
            logger.debug(
                "alert of %s: attempt %d to sink %s failed (%s); retrying at %.0f",
                rule,
                attempts,
                sink_name,
                error,
                next_attempt,
            )
        return 0

    # -- background thread -------------------------------------------------------------------------

    def start(self) -> None:
        """Starts the delivery thread (once); it first delivers what a previous process left pending."""
        if self._thread is not None and self._thread.is_alive():
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="edge-agent-alerts", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        """Asks the thread to look for due notifications now (non-blocking)."""
        self._wake.set()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def stop(self, timeout: float = 10.0) -> None:
        """Stops the thread (after the send in progress, if any) and closes the sinks."""
        self._stop.set()
        self._wake.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout)
            if thread.is_alive():
                logger.warning("the alert dispatcher is still busy with a delivery after %.1f s; leaving it", timeout)
        for sink in self.sinks.values():
            try:
                sink.close()
            except Exception:
                logger.warning("closing alert sink %s failed", sink.name, exc_info=True)

    def _next_wait(self, db: Database) -> float:
        due = rulebook.next_attempt_time(db)
        if due is None:
            return self.poll_s
        return min(self.poll_s, max(0.0, due - self.clock()))

    def _run(self) -> None:
        db: Database | None = None
        try:
            while not self._stop.is_set():
                self._wake.clear()
                wait = self.poll_s
                try:
                    if db is None:
                        db = Database(self.db_path)
                    self._deliver_due(db)
                    wait = self._next_wait(db)
                except Exception:
                    logger.exception("the alert dispatcher hit an unexpected error; it carries on")
                if not self._stop.is_set():
                    self._wake.wait(max(wait, 0.01))
        finally:
            if db is not None:
                db.close()
