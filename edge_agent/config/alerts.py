"""Where alerts go: the sinks (a discriminated union on ``type``), each named once."""

from __future__ import annotations

from pydantic import Field, field_validator

from edge_agent.config.base import StrictModel
from edge_agent.config.sinks import LogSinkConfig, SinkConfig

__all__ = ["AlertsConfig"]


class AlertsConfig(StrictModel):
    sinks: list[SinkConfig] = Field(
        default_factory=lambda: [LogSinkConfig(type="log")],  # type: ignore[arg-type]  # a list of one member of the union
        description="where alerts go: stdout, log, jsonl, webhook, mqtt (each with a unique name)",
    )

    @field_validator("sinks")
    @classmethod
    def _unique_names(cls, sinks: list[SinkConfig]) -> list[SinkConfig]:
        names = [s.name for s in sinks]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"sink names repeat: {', '.join(repeated)} (give each sink its own name)")
        return sinks
