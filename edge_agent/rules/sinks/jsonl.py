"""The ``jsonl`` sink: one JSON object per alert, appended to a JSON Lines file."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from edge_agent.config.sinks import JsonlSinkConfig
from edge_agent.rules.sinks.base import Sink, SinkError

__all__ = ["JsonlSink"]


class JsonlSink(Sink):
    def __init__(self, config: JsonlSinkConfig) -> None:
        self.name = config.name
        self.path = config.path.expanduser()

    def send(self, payload: Mapping[str, Any]) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as f:
                f.write(json.dumps(payload, ensure_ascii=False) + "\n")
                f.flush()
        except OSError as exc:
            raise SinkError(f"jsonl {self.path}: {exc}") from exc
