"""Video files (anything OpenCV's FFmpeg backend reads), sampled at a chosen rate: frames between
samples are grabbed but not converted. Timestamps: the given start time plus the position in the file;
without one, the file's modification time minus its duration (recorders write the file as they go).
A damaged stretch is gone past and a truncated file read as far as it goes, both counted in ``unreadable``:
raising there lost the clip in hand, and every run that resumed stopped at the same place."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import cv2

from edge_agent.capture.frames import CaptureError, Frame, Unreadable

__all__ = ["VideoFileSource"]

#: Without a frame count, how long a run of frames the demuxer refuses may be before it is taken for the file's end.
DAMAGED_STRETCH_S = 10.0

_NOT_FILES = (
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
)


def _not_a_recording(path: Path) -> str | None:
    """Why ``path`` cannot be a video file, said before a decoder tries it (one would wait forever on a pipe);
    None where it may be one."""
    try:
        status = path.stat()
    except FileNotFoundError:
        return f"video file not found: {path}"
    except OSError as exc:
        return f"cannot read {path}: {exc.strerror or exc}"
    for test, kind in _NOT_FILES:
        if test(status.st_mode):
            return f"{path} is {kind}, not a video file, image folder or URL"
    if not stat.S_ISREG(status.st_mode):
        return f"{path} is not a regular file, not a video file, image folder or URL"
    if status.st_size == 0:
        return f"{path} is empty (0 bytes), not a video"
    if not os.access(path, os.R_OK):
        return f"cannot read {path}: permission denied"
    return None


def _frames(first: int, last: int) -> str:
    return f"frame {first}" if first == last else f"frames {first}-{last}"


class VideoFileSource:
    live = False

    def __init__(self, path: str | Path, *, sample_fps: float = 2.0, start: float | None = None) -> None:
        self.path = Path(path)
        self.name = str(self.path)
        wrong = _not_a_recording(self.path)
        if wrong is not None:
            raise CaptureError(wrong)
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
        #: seconds from the first frame to the last, None where the file does not say how many frames it holds
        self.span = (self.frame_count - 1) / self.fps if self.frame_count > 0 else None
        self.start = start if start is not None else os.path.getmtime(self.path) - self.duration
        self.sample_fps = min(sample_fps, self.fps)
        self.unreadable = Unreadable()  #: the frames the last reading went past

    def frames(self) -> Iterator[Frame]:
        self.unreadable = Unreadable()
        step = 1.0 / self.sample_fps
        next_sample = 0.0
        index = 0  # the position in the file: frames grabbed or refused
        decoded = 0
        refused_from: int | None = None  # the first frame of the run the demuxer refuses now
        longest_run = max(1, round(self.fps * DAMAGED_STRETCH_S))
        while True:
            if not self._cap.grab():  # a damaged packet or the file's end: the next grab says which
                if refused_from is None:
                    refused_from = index
                index += 1
                if self.frame_count > 0:
                    if index >= self.frame_count:
                        break
                elif index - refused_from >= longest_run:
                    break
                continue
            if refused_from is not None:
                self.unreadable.add(f"{_frames(refused_from, index - 1)} (damaged)", index - refused_from)
                refused_from = None
            offset = index / self.fps
            if offset + 1e-9 >= next_sample:
                ok, image = self._cap.retrieve()
                if not ok or image is None:  # the next frame takes its place as a sample
                    self.unreadable.add(f"frame {index} (cannot be decoded)")
                else:
                    decoded += 1
                    yield Frame(index, self.start + offset, image)
                    next_sample += step * max(1, round((offset + 1e-9 - next_sample) / step + 0.5))
            index += 1
        end = refused_from if refused_from is not None else index
        if decoded == 0:
            raise CaptureError(f"{self.path}: no frame could be decoded (empty, truncated or damaged file)")
        if self.frame_count > 0 and end < self.frame_count * 0.9:
            self.unreadable.add(
                f"{_frames(end, self.frame_count - 1)} (the file is truncated)",
                self.frame_count - end,
            )

    def close(self) -> None:
        self._cap.release()
