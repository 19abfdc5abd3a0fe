"""How frames come in: clip length and sampling rate."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from edge_agent.config.base import StrictModel

__all__ = ["CaptureConfig"]


class CaptureConfig(StrictModel):
    clip_seconds: float = Field(
        10.0, ge=0.5, le=3600, description="length of a clip, the unit memory ingests (seconds, 0.5 to an hour)"
    )
    sample_fps: float = Field(2.0, gt=0, le=60, description="frames per second given to perception")
    image_fps: float = Field(
        1.0, ge=1 / 86400, le=1000, description="frame rate assumed for an image folder (one a day at least)"
    )
    colour_constancy: Literal["none", "grey-world", "grey-edge"] = Field(
        "none",
        description="crops corrected by their frame's illuminant before they are embedded, described and kept "
        "(edge_agent.perception.constancy); detection sees the frame as recorded",
    )
