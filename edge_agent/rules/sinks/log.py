"""The ``log`` sink: one warning per alert on the ``edge_agent.alerts`` logger (for whoever collects the
agent's logs)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from edge_agent.config.sinks import LogSinkConfig
from edge_agent.rules.sinks.base import Sink, human_line

__all__ = ["LogSink"]

alerts_logger = logging.getLogger("edge_agent.alerts")


class LogSink(Sink):
    def __init__(self, config: LogSinkConfig) -> None:
        self.name = config.name

    def send(self, payload: Mapping[str, Any]) -> None:
        alerts_logger.warning("%s", human_line(payload))
