"""The ``stdout`` sink: one human line per alert on standard output."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from edge_agent.config.sinks import StdoutSinkConfig
from edge_agent.rules.sinks.base import Sink, human_line

__all__ = ["StdoutSink"]


class StdoutSink(Sink):
    def __init__(self, config: StdoutSinkConfig) -> None:
        self.name = config.name

    def send(self, payload: Mapping[str, Any]) -> None:
        print(human_line(payload), flush=True)
