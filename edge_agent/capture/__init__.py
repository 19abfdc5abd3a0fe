"""Capture: frame sources (video file, camera, RTSP/HTTP stream, image folder, MOT sequence) and the
clipper that cuts them into clips for perception."""

from __future__ import annotations

from pathlib import Path

from edge_agent.capture.clipper import ClipFrames, clips, expected_clips
from edge_agent.capture.frames import CaptureError, Frame, FrameSource, Unreadable
from edge_agent.capture.images import ImageFolderSource, MOTSequenceSource, is_mot_sequence
from edge_agent.capture.live import LiveSource
from edge_agent.capture.video import VideoFileSource

__all__ = [
    "CaptureError",
    "ClipFrames",
    "Frame",
    "FrameSource",
    "ImageFolderSource",
    "LiveSource",
    "MOTSequenceSource",
    "Unreadable",
    "VideoFileSource",
    "clips",
    "expected_clips",
    "open_source",
]

_STREAM_SCHEMES = ("rtsp://", "rtsps://", "http://", "https://", "rtmp://", "udp://", "tcp://")


def open_source(
    spec: str, *, sample_fps: float = 2.0, start: float | None = None, image_fps: float = 1.0
) -> FrameSource:
    """A source from what the user typed: a camera index ("0"), a stream URL, a MOT sequence folder, an
    image folder or a video file."""
    if spec.isdigit():
        return LiveSource(int(spec), sample_fps=sample_fps)
    if spec.lower().startswith(_STREAM_SCHEMES):
        return LiveSource(spec, sample_fps=sample_fps)
    path = Path(spec).expanduser()
    if path.is_dir():
        if is_mot_sequence(path):
            return MOTSequenceSource(path, sample_fps=sample_fps, start=start)
        return ImageFolderSource(path, fps=image_fps, sample_fps=sample_fps, start=start)
    if path.exists():
        return VideoFileSource(path, sample_fps=sample_fps, start=start)
    raise CaptureError(
        f"no such source: {spec!r} (expected a video file, an image or MOT folder, a camera index or a stream URL)"
    )
