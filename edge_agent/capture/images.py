"""Image folders and MOT-format sequences (img1/*.jpg, seqinfo.ini, gt/gt.txt) as frame sources."""

from __future__ import annotations

import configparser
import os
from collections.abc import Iterator
from pathlib import Path

import cv2

from edge_agent.capture.frames import CaptureError, Frame

__all__ = ["ImageFolderSource", "MOTSequenceSource", "is_mot_sequence"]

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp"}


def _read(path: Path) -> "cv2.typing.MatLike":
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise CaptureError(f"cannot read image {path} (unknown format or damaged file)")
    return image


class ImageFolderSource:
    """Images in name order, one every 1/fps seconds from ``start`` (default: the first file's
    modification time); sampled down to ``sample_fps``."""

    live = False

    def __init__(
        self, folder: str | Path, *, fps: float = 1.0, sample_fps: float = 2.0, start: float | None = None
    ) -> None:
        self.folder = Path(folder)
        self.name = str(self.folder)
        if not self.folder.is_dir():
            raise CaptureError(f"image folder not found: {self.folder}")
        self.paths = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.paths:
            raise CaptureError(f"no images ({', '.join(sorted(IMAGE_SUFFIXES))}) in {self.folder}")
        if fps <= 0 or sample_fps <= 0:
            raise CaptureError("fps and sample_fps must be > 0")
        self.fps = fps
        self.sample_fps = min(sample_fps, fps)
        self.start = start if start is not None else os.path.getmtime(self.paths[0])

    def _indexed(self) -> list[tuple[int, Path]]:
        return list(enumerate(self.paths))

    def frames(self) -> Iterator[Frame]:
        step = 1.0 / self.sample_fps
        next_sample = -1.0
        for index, path in self._indexed():
            offset = index / self.fps
            if offset + 1e-9 < next_sample:
                continue
            next_sample = offset + step
            yield Frame(index, self.start + offset, _read(path))

    def close(self) -> None:
        pass


def is_mot_sequence(path: str | Path) -> bool:
    return (Path(path) / "seqinfo.ini").is_file()


class MOTSequenceSource(ImageFolderSource):
    """A MOT Challenge sequence: frame rate and image folder from seqinfo.ini; frame indices are the
    MOT frame numbers (1-based), so ground truth can be looked up by them. Only frames whose image
    exists are read."""

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

    def _indexed(self) -> list[tuple[int, Path]]:
        out = []
        for path in self.paths:
            try:
                number = int(path.stem)
            except ValueError as exc:
                raise CaptureError(f"MOT image names are frame numbers; got {path.name}") from exc
            out.append((number, path))
        return out

    def frames(self) -> Iterator[Frame]:
        step = 1.0 / self.sample_fps
        next_sample = -1.0
        for number, path in self._indexed():
            offset = (number - 1) / self.fps
            if offset + 1e-9 < next_sample:
                continue
            next_sample = offset + step
            yield Frame(number, self.start + offset, _read(path))
