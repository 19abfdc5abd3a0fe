"""Video files (anything OpenCV's FFmpeg backend reads), sampled at a chosen rate: frames between
samples are grabbed but not converted. Timestamps: the given start time plus the position in the file;
without one, the file's modification time minus its duration (recorders write the file as they go)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import cv2

from edge_agent.capture.frames import CaptureError, Frame

__all__ = ["VideoFileSource"]


class VideoFileSource:
    live = False

    def __init__(self, path: str | Path, *, sample_fps: float = 2.0, start: float | None = None) -> None:
        self.path = Path(path)
        self.name = str(self.path)
        if not self.path.is_file():
            raise CaptureError(f"video file not found: {self.path}")
        if sample_fps <= 0:
            raise CaptureError(f"sample_fps must be > 0, got {sample_fps}")
        self._cap = cv2.VideoCapture(str(self.path))
        if not self._cap.isOpened():
            raise CaptureError(f"cannot read {self.path} as video (unknown format or damaged file)")
        self.fps = float(self._cap.get(cv2.CAP_PROP_FPS)) or 0.0
        if not 0 < self.fps < 1000:
            raise CaptureError(
                f"{self.path} reports no usable frame rate ({self.fps}); re-encode it or give an image folder"
            )
        self.frame_count = int(self._cap.get(cv2.CAP_PROP_FRAME_COUNT))
        self.duration = self.frame_count / self.fps if self.frame_count > 0 else 0.0
        self.start = start if start is not None else os.path.getmtime(self.path) - self.duration
        self.sample_fps = min(sample_fps, self.fps)

    def frames(self) -> Iterator[Frame]:
        step = 1.0 / self.sample_fps
        next_sample = 0.0
        index = 0
        decoded = 0
        while True:
            if not self._cap.grab():
                break
            offset = index / self.fps
            if offset + 1e-9 >= next_sample:
                ok, image = self._cap.retrieve()
                if not ok or image is None:
                    raise CaptureError(f"{self.path}: frame {index} cannot be decoded (truncated or damaged file)")
                decoded += 1
                yield Frame(index, self.start + offset, image)
                next_sample += step * max(1, round((offset + 1e-9 - next_sample) / step + 0.5))
            index += 1
        if decoded == 0:
            raise CaptureError(f"{self.path}: no frame could be decoded (empty, truncated or damaged file)")
        if self.frame_count > 0 and index < self.frame_count * 0.9:
            raise CaptureError(
                f"{self.path}: stream ended at frame {index} of {self.frame_count} (truncated file); "
                "what was read up to there was processed"
            )

    def close(self) -> None:
        self._cap.release()
