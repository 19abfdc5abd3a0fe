"""Image folders and MOT-format sequences (img1/*.jpg, seqinfo.ini, gt/gt.txt) as frame sources."""

from __future__ import annotations

import configparser
import os
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from edge_agent.capture.frames import CaptureError, Frame, Unreadable

__all__ = ["MOT_COLUMNS", "ImageFolderSource", "MOTSequenceSource", "is_mot_sequence", "read_mot_rows"]

#: MOT ground truth's columns: frame, id, left, top, width, height, conf, class, visibility.
MOT_COLUMNS = 9

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp"}


def _why_unreadable(path: Path) -> str:
    """What is wrong with an image OpenCV could not read, in a few words."""
    try:
        if path.stat().st_size == 0:
            return "empty file"
    except OSError as exc:
        return exc.strerror or str(exc)
    if not os.access(path, os.R_OK):
        return "permission denied"
    return "unknown format or damaged file"


def _images_in(folder: Path) -> list[Path]:
    """The image files of ``folder`` in name order (a directory entry's type needs no extra read per file: a
    year of images is a million of them)."""
    try:
        with os.scandir(folder) as entries:
            return sorted(
                Path(e.path) for e in entries if os.path.splitext(e.name)[1].lower() in IMAGE_SUFFIXES and e.is_file()
            )
    except OSError as exc:
        raise CaptureError(f"cannot read the image folder {folder}: {exc.strerror or exc}") from None


class ImageFolderSource:
    """Images in name order, one every 1/fps seconds from ``start`` (default: the first file's
    modification time); sampled down to ``sample_fps``. An image that cannot be read is gone past and counted
    in ``unreadable`` (the next image takes its place as a sample)."""

    live = False

    def __init__(
        self, folder: str | Path, *, fps: float = 1.0, sample_fps: float = 2.0, start: float | None = None
    ) -> None:
        self.folder = Path(folder)
        self.name = str(self.folder)
        if not self.folder.is_dir():
            raise CaptureError(f"image folder not found: {self.folder}")
        self.paths = _images_in(self.folder)
        if not self.paths:
            raise CaptureError(f"no images ({', '.join(sorted(IMAGE_SUFFIXES))}) in {self.folder}")
        if fps <= 0 or sample_fps <= 0:
            raise CaptureError("fps and sample_fps must be > 0")
        self.fps = fps
        self.sample_fps = min(sample_fps, fps)
        self.start = start if start is not None else os.path.getmtime(self.paths[0])
        self.unreadable = Unreadable()  #: the images the last reading went past

    @property
    def span(self) -> float | None:
        """Seconds from the first image to the last."""
        return (len(self.paths) - 1) / self.fps

    def _indexed(self) -> list[tuple[int, float, Path]]:
        """(frame index, seconds from ``start``, image) in time order."""
        return [(index, index / self.fps, path) for index, path in enumerate(self.paths)]

    def frames(self) -> Iterator[Frame]:
        self.unreadable = Unreadable()
        step = 1.0 / self.sample_fps
        next_sample = -1.0
        read = 0
        for index, offset, path in self._indexed():
            if offset + 1e-9 < next_sample:
                continue
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:
                self.unreadable.add(f"{path.name} ({_why_unreadable(path)})")
                continue
            next_sample = offset + step
            read += 1
            yield Frame(index, self.start + offset, image)
        if read == 0 and self.unreadable.count:
            raise CaptureError(
                f"none of the {self.unreadable.count} images in {self.folder} could be read "
                f"({', '.join(self.unreadable.first)})"
            )

    def close(self) -> None:
        pass


def is_mot_sequence(path: str | Path) -> bool:
    return (Path(path) / "seqinfo.ini").is_file()


class MOTSequenceSource(ImageFolderSource):
    """A MOT Challenge sequence: frame rate and image folder from seqinfo.ini; frame indices are the
    MOT frame numbers (1-based), so ground truth can be looked up by them. Only frames whose image
    exists are read; a file whose name is not a frame number is gone past and counted in ``unreadable``."""

    def __init__(self, folder: str | Path, *, sample_fps: float = 2.0, start: float | None = None) -> None:
        folder = Path(folder)
        info = configparser.ConfigParser()
        if not info.read(folder / "seqinfo.ini"):
            raise CaptureError(f"{folder} has no readable seqinfo.ini (not a MOT sequence)")
        try:
            seq = info["Sequence"]
            self.sequence_name = seq.get("name", folder.name)
            fps = float(seq["frameRate"])
            image_dir = folder / seq.get("imDir", "img1")
            self.image_ext = seq.get("imExt", ".jpg")
        except (KeyError, ValueError) as exc:
            raise CaptureError(f"{folder}/seqinfo.ini: missing or bad field {exc}") from exc
        super().__init__(image_dir, fps=fps, sample_fps=sample_fps, start=start if start is not None else 0.0)
        self.root = folder
        self.name = str(folder)

    @property
    def span(self) -> float | None:
        """Seconds from the first frame to the last, by their numbers (a stray file is no frame)."""
        numbers = [int(p.stem) for p in self.paths if p.stem.isdigit()]
        return (max(numbers) - min(numbers)) / self.fps if numbers else None

    def _indexed(self) -> list[tuple[int, float, Path]]:
        out = []
        for path in self.paths:
            try:
                number = int(path.stem)
            except ValueError:  # a stray file (a thumbnail, a note): not a frame of the sequence
                self.unreadable.add(f"{path.name} (not a frame number)")
                continue
            out.append((number, (number - 1) / self.fps, path))
        return sorted(out, key=lambda item: item[0])


def read_mot_rows(path: str | Path, min_columns: int = 8) -> npt.NDArray[np.float64]:
    """The rows of a MOT-format ``gt.txt`` (N, columns) as floats; an empty file (a session in which nothing was in
    view) is (0, :data:`MOT_COLUMNS`) rows: nothing there. CaptureError names the file where it is not MOT rows."""
    path = Path(path)
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise CaptureError(f"cannot read {path}: {exc}") from exc
    if not text.strip():
        return np.empty((0, MOT_COLUMNS), np.float64)
    try:
        rows = np.loadtxt(path, delimiter=",", ndmin=2)
    except ValueError as exc:
        raise CaptureError(
            f"{path}: not MOT gt rows (frame, id, left, top, width, height, conf, class, visibility): {exc}"
        ) from exc
    if rows.shape[1] < min_columns:
        raise CaptureError(f"{path}: expected at least {min_columns} columns, got {rows.shape[1]}")
    return rows
