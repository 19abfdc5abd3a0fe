"""Surfaces of a synthetic world drawn with real texture (issue 17's harder worlds): each material (a thing's
category and colour, or a place) is a patch cut from a photograph in OpenCV's sample data (Debian's
``opencv-doc``: fruit, fur, brick, paint, a board), deterministic in its name. A thing's pixels are its colour
shaded by the patch's light and dark and tinted a little by its colours, so look-alikes (the same category and
colour) share a material and differ only by pattern, as the scenario says; a turn of the thing shows another part
of the patch. Where no photograph is found, smooth seeded noise stands in (:func:`source` says which)."""

from __future__ import annotations

import functools
import os
import zlib
from pathlib import Path
from typing import cast

import cv2
import numpy as np
import numpy.typing as npt

__all__ = ["PHOTO_DIRS", "material", "shade", "source"]

#: where OpenCV's sample photographs are looked for, in order (``OPENCV_SAMPLES_DATA_PATH`` first)
PHOTO_DIRS = (Path("/usr/share/doc/opencv-doc/examples/data"), Path("/usr/share/opencv4/samples/data"))
_PHOTOS = (
    "fruits.jpg",
    "baboon.jpg",
    "building.jpg",
    "starry_night.jpg",
    "home.jpg",
    "stuff.jpg",
    "orange.jpg",
    "apple.jpg",
    "butterfly.jpg",
    "board.jpg",
    "smarties.png",
    "squirrel_cls.jpg",
    "graf1.png",
    "leuvenA.jpg",
    "aloeL.jpg",
    "aero1.jpg",
)
_PATCH = 128  #: a material's side in photograph pixels
_CONTRAST = 0.25  #: the shading's standard deviation around 1
_TINT = 0.15  #: how much of the photograph's own colour shows through


@functools.cache
def _photos() -> tuple[tuple[str, np.ndarray], ...]:
    env = os.environ.get("OPENCV_SAMPLES_DATA_PATH")
    for folder in ([Path(env)] if env else []) + list(PHOTO_DIRS):
        found = []
        for name in _PHOTOS:
            image = cv2.imread(str(folder / name)) if (folder / name).is_file() else None
            if image is not None and min(image.shape[:2]) >= 2 * _PATCH:
                found.append((str(folder / name), image))
        if found:
            return tuple(found)
    return ()


def source() -> str:
    """Where the textures come from, for a report."""
    photos = _photos()
    if not photos:
        return "procedural noise (no OpenCV sample photographs found: install Debian's opencv-doc)"
    return f"{len(photos)} photographs in {Path(photos[0][0]).parent}"


@functools.cache
def material(name: str) -> np.ndarray:
    """The material called ``name``: a float32 BGR patch of ``_PATCH`` x 2 ``_PATCH`` pixels in 0..1 (twice as
    wide as high, so that turning a thing shows another part of it)."""
    key = zlib.crc32(name.encode())
    photos = _photos()
    if photos:
        _, image = photos[key % len(photos)]
        h, w = image.shape[:2]
        pw = min(w, 2 * _PATCH)
        x = (key >> 8) % max(1, w - pw + 1)
        y = (key >> 20) % max(1, h - _PATCH + 1)
        patch = image[y : y + _PATCH, x : x + pw]
        return cv2.resize(patch, (2 * _PATCH, _PATCH)).astype(np.float32) / 255.0
    rng = np.random.default_rng(key)
    noise = np.zeros((_PATCH, 2 * _PATCH, 3), np.float32)
    for cells in (4, 8, 16, 32):  # smooth noise: octaves of upsampled random grids
        grid = rng.random((cells, 2 * cells, 3)).astype(np.float32)
        noise += cv2.resize(grid, (2 * _PATCH, _PATCH), interpolation=cv2.INTER_CUBIC) / cells
    return cast(npt.NDArray[np.float32], np.clip(noise / noise.max(), 0.0, 1.0))  # ndarray.max() is typed Any


def shade(name: str, size: tuple[int, int], turn: float = 0.0) -> np.ndarray:
    """Per-pixel gains (h x w x 3, float32, mean about 1) for a surface of ``size`` (w, h) made of ``name``:
    the patch's luminance around its mean with a fixed contrast, and a little of its colour. ``turn`` in [-1, 1]
    slides the window across the patch (another side of the thing faces the camera)."""
    w, h = max(1, size[0]), max(1, size[1])
    patch = material(name)
    width = patch.shape[1] // 2
    x = int(round((1.0 + float(np.clip(turn, -1.0, 1.0))) / 2 * (patch.shape[1] - width)))
    window = cv2.resize(patch[:, x : x + width], (w, h), interpolation=cv2.INTER_AREA)
    luminance = window.mean(axis=2, keepdims=True)
    spread = float(luminance.std()) or 1.0
    gain = 1.0 + _CONTRAST * (luminance - float(luminance.mean())) / spread
    colour = window / np.maximum(luminance, 1e-3)  # the photograph's chromaticity, 1 where grey
    # NumPy types the mean of cv2.resize's window (integer or floating pixels) as Any: the gains are float32
    return cast(npt.NDArray[np.float32], np.clip(gain * (1.0 - _TINT + _TINT * colour), 0.3, 1.8).astype(np.float32))
