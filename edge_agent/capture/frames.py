"""Frames and frame sources: every source yields timestamped frames, already sampled at the rate
perception asks for, and says what it is. Timestamps are wall-clock Unix seconds (a wearable
recording spans days, so the time of day matters, not the offset into a file)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import ClassVar, Protocol

import numpy as np

from edge_agent.errors import EdgeAgentError

__all__ = ["CaptureError", "Frame", "FrameSource", "Unreadable"]


class CaptureError(EdgeAgentError, RuntimeError):
    """A source cannot be opened or read."""


@dataclass(frozen=True, eq=False)
class Frame:
    """One decoded frame: ``index`` in the source's own numbering (MOT frame numbers, or the frame
    position in a file), ``t`` wall-clock seconds, ``image`` BGR uint8 (H, W, 3)."""

    index: int
    t: float
    image: np.ndarray

    @property
    def size(self) -> tuple[int, int]:
        """(width, height)"""
        return int(self.image.shape[1]), int(self.image.shape[0])


@dataclass
class Unreadable:
    """What a recording's source could not read and went past (an unreadable image, a damaged stretch of a video,
    the end a truncated file lacks): how many images or frames, and the first few named for the report. One bad
    file must not stop an ingest, or stop every run that resumes it at the same place."""

    count: int = 0
    first: list[str] = field(default_factory=list)
    KEEP: ClassVar[int] = 5  #: how many are named (a damaged stretch of frames is one)

    def add(self, what: str, count: int = 1) -> None:
        self.count += count
        if len(self.first) < self.KEEP:
            self.first.append(what)


class FrameSource(Protocol):
    """Yields sampled frames in time order until the source ends (files) or is closed (live)."""

    name: str  #: what it reads, for messages
    live: bool  #: a camera or stream (runs until stopped) rather than a recording

    def frames(self) -> Iterator[Frame]: ...
    def close(self) -> None: ...
