"""The clipper cuts a stream of sampled frames into fixed-length clips (default 10 s), aligned to the
first frame's time, as the unit that memory ingests (one transaction per clip)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from edge_agent.capture.frames import Frame

__all__ = ["ClipFrames", "clips", "expected_clips"]


@dataclass(frozen=True, eq=False)
class ClipFrames:
    t_start: float
    t_end: float
    frames: tuple[Frame, ...]


def expected_clips(span: float | None, clip_seconds: float = 10.0) -> int | None:
    """How many clips :func:`clips` cuts a recording into whose frames span ``span`` seconds (first to last): a
    progress bar's total. None where that is unknown (a camera, a stream, a file that does not say its length); a
    gap or a damaged stretch in the recording makes fewer."""
    if span is None or not math.isfinite(span) or span < 0 or clip_seconds <= 0:
        return None
    return int(span // clip_seconds) + 1


def clips(frames: Iterable[Frame], clip_seconds: float = 10.0) -> Iterator[ClipFrames]:
    """Groups frames into [t0 + k * clip_seconds, t0 + (k + 1) * clip_seconds) windows. A window with
    no frame (a gap in a recording) yields nothing; the last, partial window ends at its last frame."""
    if clip_seconds <= 0:
        raise ValueError(f"clip_seconds must be > 0, got {clip_seconds}")
    origin: float | None = None
    window = -1
    batch: list[Frame] = []
    for frame in frames:
        if origin is None:
            origin = frame.t
        k = int((frame.t - origin) // clip_seconds)
        if k != window and batch:
            start = origin + window * clip_seconds
            yield ClipFrames(start, start + clip_seconds, tuple(batch))
            batch = []
        window = k
        batch.append(frame)
    if batch and origin is not None:
        start = origin + window * clip_seconds
        yield ClipFrames(start, max(batch[-1].t, start), tuple(batch))
