"""Colour constancy: what a thing looks like should not change with the light it is seen in. Each sampled frame's
illuminant is estimated from the frame itself (no knowledge of the scene) and the crops cut from it are corrected
by a von Kries diagonal transform to a neutral light of a fixed brightness, before they are embedded, described
and stored; detection still sees the frame as recorded.

- ``grey-world``: the illuminant is the mean colour of the frame (Buchsbaum 1980).
- ``grey-edge``: the illuminant is the mean (Minkowski p = 1) of the colour derivatives of the frame, smoothed
  with a Gaussian (sigma = 1): edges are achromatic on average (van de Weijer, Gevers, Gijsenij 2007); large
  uniformly coloured surfaces (a painted wall, a table top) sway it less than grey-world. A higher p follows the
  strongest edges: one saturated striped thing then sets the light (p = 6 put a red gain of 2.3 on a grey room
  with a red-and-white mug in it).

The corrected frame has the estimate's colour made neutral and its level moved to ``level`` of the range, so a
brighter or dimmer day, or a warmer lamp, moves all of a frame's colours back together. Frames whose estimate is
too dark to trust (level under 2/255) are left as they are."""

from __future__ import annotations

from typing import Literal

import cv2
import numpy as np

__all__ = ["METHODS", "Constancy", "illuminant"]

Method = Literal["none", "grey-world", "grey-edge"]
METHODS: tuple[str, ...] = ("none", "grey-world", "grey-edge")


def illuminant(image: np.ndarray, method: str = "grey-edge", *, p: float = 1.0, sigma: float = 1.0) -> np.ndarray:
    """The illuminant of a BGR frame as (3,) float (B, G, R), on the 0-255 scale of the frame."""
    small = image
    if max(image.shape[:2]) > 320:  # the estimate needs no more detail than this
        scale = 320 / max(image.shape[:2])
        small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    pixels = small.astype(np.float32)
    if method == "grey-world":
        mean: np.ndarray = pixels.reshape(-1, 3).mean(axis=0)
        return mean
    if method != "grey-edge":
        raise ValueError(f"colour constancy method must be one of {', '.join(METHODS)}, got {method!r}")
    blurred = cv2.GaussianBlur(pixels, (0, 0), sigma)
    gx = cv2.Sobel(blurred, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(blurred, cv2.CV_32F, 0, 1, ksize=3)
    magnitude = np.sqrt(gx * gx + gy * gy).reshape(-1, 3)
    # p-norm of each channel's edges, kept on the scale of a pixel value: the norm of the grey level's edges
    # against its mean gives the ratio that brings it back to the pixel scale
    norm = np.power(np.mean(np.power(magnitude, p), axis=0), 1.0 / p)
    level = float(pixels.mean())
    result: np.ndarray = norm / max(float(norm.mean()), 1e-6) * level
    return result


class Constancy:
    """Corrects crops by the illuminant of the frame they come from (one estimate per frame)."""

    def __init__(self, method: str = "grey-edge", level: float = 0.5) -> None:
        if method not in METHODS:
            raise ValueError(f"colour constancy method must be one of {', '.join(METHODS)}, got {method!r}")
        self.method = method
        self.level = level * 255.0

    def gains(self, frame: np.ndarray) -> np.ndarray | None:
        """Per-channel gains (B, G, R) for crops of this frame; None when nothing is corrected."""
        if self.method == "none":
            return None
        light = illuminant(frame, self.method)
        if float(light.mean()) < 2.0 or float(light.min()) <= 0.0:
            return None
        return (self.level / light).astype(np.float32)

    @staticmethod
    def apply(patch: np.ndarray, gains: np.ndarray | None) -> np.ndarray:
        if gains is None:
            return patch
        result: np.ndarray = np.clip(patch.astype(np.float32) * gains, 0, 255).astype(np.uint8)
        return result
