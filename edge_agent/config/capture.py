"""How frames come in: clip length and sampling rate."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from edge_agent.config.base import StrictModel

__all__ = ["CaptureConfig"]


class CaptureConfig(StrictModel):
    clip_seconds: float = Field(10.0, gt=0, description="length of a clip, the unit memory ingests (seconds)")
    sample_fps: float = Field(2.0, gt=0, le=60, description="frames per second given to perception")
    image_fps: float = Field(1.0, gt=0, description="frame rate assumed for an image folder")
    colour_constancy: Literal["none", "grey-world", "grey-edge"] = Field(
        "none",
        description="crops corrected by their frame's illuminant before they are embedded, described and kept "
        "(edge_agent.perception.constancy); detection sees the frame as recorded",
    )
