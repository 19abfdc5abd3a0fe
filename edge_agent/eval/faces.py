"""Faces of the synthetic people world (issue 20), drawn and read back: a stand-in for YuNet + dlib, since no
pictures of real faces can be had here to draw people with.

Each person's face is a 4 x 4 pattern of lighter and darker skin inside their head, their own row of a Hadamard
matrix (so two people's patterns are orthogonal); a person turned away shows their hair. :class:`DrawnFaces`
reads the pattern from a person's crop, where the head is drawn, with nothing but the pixels: lighting, blur, JPEG
and the detector's jittered boxes all make it noisier. Its vectors are placed in a space shaped like dlib's as
measured on real faces (edge_agent.config.faces: different people about 0.84 alike, the same person above 0.92),
so that the same face thresholds mean the same thing: a shared component (every face is a face) plus the pattern.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import cv2
import numpy as np
import numpy.typing as npt

from edge_agent.perception.faces import Face

__all__ = ["DRAWN_FACE_SPACE", "DrawnFaces", "draw_face", "face_code", "portrait"]

DRAWN_FACE_SPACE = "face:drawn_4x4"
_GRID = 4


def _hadamard(n: int) -> np.ndarray:
    h = np.ones((1, 1), np.float32)
    while h.shape[0] < n:
        h = np.block([[h, h], [h, -h]])
    return h


_CODES = _hadamard(_GRID * _GRID)[1:]  # row 0 is flat: no face
_SHARED = float(np.sqrt(0.84 / 0.16))  # orthogonal patterns -> cosine 0.84, as different people under dlib
_HAIR = (40, 50, 70)
_SKIN = np.array([120, 160, 210], np.float32)


def face_code(k: int) -> np.ndarray:
    """The k-th person's pattern: (4, 4) of +1 / -1."""
    # an integer index is typed Any (a row or a scalar): here a row of float32
    return cast(npt.NDArray[np.float32], _CODES[k % len(_CODES)]).reshape(_GRID, _GRID)


def _head(box: tuple[int, int, int, int]) -> tuple[int, int, int]:
    """Centre x, centre y and radius of the head of a person drawn in ``box`` (as edge_agent.eval.draw draws it)."""
    x0, y0, x1, _ = box
    head = max(8, (x1 - x0) // 2 - 4)
    return (x0 + x1) // 2, y0 + head, head


def draw_face(canvas: np.ndarray, box: tuple[int, int, int, int], k: int | None, light: float) -> None:
    """Over a drawn person's head: the k-th person's face, or their hair (``k`` None: turned away)."""
    cx, cy, r = _head(box)
    if k is None:
        cv2.circle(canvas, (cx, cy), r, tuple(int(c * light) for c in _HAIR), -1)
        return
    side = int(1.2 * r)
    x0, y0 = cx - side // 2, cy - side // 2
    shades = np.clip(_SKIN[None, None, :] * (1.0 + 0.3 * face_code(k)[:, :, None]) * light, 0, 255).astype(np.uint8)
    patch = cv2.resize(shades, (side, side), interpolation=cv2.INTER_NEAREST)
    h, w = canvas.shape[:2]
    xa, ya, xb, yb = max(0, x0), max(0, y0), min(w, x0 + side), min(h, y0 + side)
    if xb > xa and yb > ya:
        canvas[ya:yb, xa:xb] = patch[ya - y0 : yb - y0, xa - x0 : xb - x0]


class DrawnFaces:
    """Reads drawn faces from people's crops. A face is kept when the square inside the head is at least
    ``min_size`` pixels across and its pattern stands out (contrast at least ``min_contrast``)."""

    space = DRAWN_FACE_SPACE
    detector = ""  #: the head is found in the pixels

    def __init__(self, min_size: float = 12.0, min_contrast: float = 0.08) -> None:
        self.min_size, self.min_contrast = min_size, min_contrast

    def read(self, crop: np.ndarray) -> Face | None:
        """The face in a person's crop: found as the skin-coloured disc at the top (its centre and size from the
        pixels, so a box a few pixels off still reads the right cells), its pattern read from the square inside."""
        h, w = crop.shape[:2]
        top = crop[: min(h, int(0.3 * h)), :].astype(np.float32)  # the head: the top fifth of a person's box
        b, g, r = top[:, :, 0] + 1.0, top[:, :, 1], top[:, :, 2]
        # skin's hue (R:G:B about 1.75:1.33:1 under white light; a coloured light moves it) and not as dark as hair
        skin = (r >= 100) & (r / b >= 1.35) & (r / b <= 2.4) & (g / b >= 1.0) & (g / b <= 1.7) & (r > g)
        ys, xs = np.nonzero(skin)
        if len(xs) < 20:
            return None  # hair (turned away), or no head in view
        x_lo, x_hi = np.percentile(xs, [1, 99])
        y_lo, y_hi = np.percentile(ys, [1, 99])
        cx, cy = (x_lo + x_hi) / 2, (y_lo + y_hi) / 2
        radius = (x_hi - x_lo + y_hi - y_lo) / 4
        if len(xs) < 0.6 * np.pi * radius**2:
            return None  # scattered skin-like pixels, not a head
        side = int(round(1.2 * radius))
        if side < self.min_size:
            return None
        x0, y0 = int(round(cx - side / 2)), int(round(cy - side / 2))
        if x0 < 0 or y0 < 0 or x0 + side > w or y0 + side > top.shape[0]:
            return None  # cut by the edge of the picture
        patch = crop[y0 : y0 + side, x0 : x0 + side]
        gray = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY).astype(np.float32)
        cells = cv2.resize(gray, (_GRID, _GRID), interpolation=cv2.INTER_AREA).reshape(-1)
        mean = float(cells.mean())
        pattern = cells - mean
        if float(pattern.std()) / max(mean, 1.0) < self.min_contrast:
            return None  # hair: turned away
        # A face, not something else there (a wall, what they carry, the edge of the picture): skin-coloured, its
        # cells each clearly lighter or darker, as many of either.
        offsets = np.abs(cells / max(mean, 1.0) - 1.0)
        lighter = int((pattern > 0).sum())
        if not (np.median(offsets) >= 0.12 and 5 <= lighter <= 11):
            return None
        pattern /= float(np.linalg.norm(pattern))
        vector = np.concatenate([[_SHARED], pattern]).astype(np.float32)
        vector /= float(np.linalg.norm(vector))
        sharpness = float(cv2.Laplacian(gray.astype(np.uint8), cv2.CV_64F).var())
        box = (float(x0), float(y0), float(x0 + side), float(y0 + side))
        return Face(box, np.zeros((5, 2)), 1.0, sharpness, 0.0, vector)

    def best(self, crops: Sequence[np.ndarray], keep: int = 3) -> list[Face]:
        found = [f for f in map(self.read, crops) if f is not None]
        return sorted(found, key=lambda f: -f.quality)[:keep]


def portrait(k: int) -> np.ndarray:
    """A picture of the k-th person's face alone, as a household member would give it to be enrolled: their head
    drawn facing the camera, cut as a person's crop is."""
    from edge_agent.perception.observe import crop

    canvas = np.full((260, 80, 3), 200, np.uint8)
    box = (12, 20, 68, 240)
    cv2.circle(canvas, _head(box)[:2], _head(box)[2], tuple(int(c) for c in _SKIN), -1)
    draw_face(canvas, box, k, 1.0)
    return crop(canvas, np.asarray(box, np.float32))
