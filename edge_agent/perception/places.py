"""Where a thing is, for a camera without zones (a worn or handheld one, or a fixed one nobody drew zones
for): a model-free descriptor of its surroundings in the frame, the surface under it (a band below its box) and
what is behind it (a band above), each as a hue-saturation histogram, a soft brightness histogram and a
gradient-orientation histogram; or, when an image-text model is configured (``[places] image_text``), its image
tower's embedding of the same surroundings. Memory groups the descriptors into places (:mod:`edge_agent.memory.places`;
descriptors of different spaces are never compared) that the user names once ("this is the sofa"); the thing's
zone is then the place's name."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import cv2
import numpy as np

from edge_agent.config.places import SURROUNDINGS
from edge_agent.perception.embed import soft_histogram
from edge_agent.perception.imagetext import ImageTextEmbedder

__all__ = ["DIMS", "ImageTextPlaces", "ModelFreePlaces", "PlaceDescriber", "around", "surroundings"]

_BLOCK = 8 * 3 + 6 + 8  #: hue x saturation, brightness, gradient orientation
DIMS = 2 * _BLOCK


def _band(image: np.ndarray) -> np.ndarray:
    if image.size == 0 or min(image.shape[:2]) < 2:
        return np.zeros(_BLOCK, np.float32)
    patch = cv2.resize(image, (48, 24), interpolation=cv2.INTER_AREA)
    hsv = cv2.cvtColor(patch, cv2.COLOR_BGR2HSV).astype(np.float32)
    hue, sat, val = hsv[..., 0] / 180.0, hsv[..., 1] / 255.0, hsv[..., 2] / 255.0
    bins = np.minimum((hue * 8).astype(int), 7) * 3 + np.minimum((sat * 3).astype(int), 2)
    colour = np.bincount(bins.ravel(), weights=(sat * val).ravel(), minlength=24) / bins.size
    bright = soft_histogram(val.ravel(), np.ones(val.size, np.float32), 6)
    grey = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY).astype(np.float32)
    magnitude, angle = cv2.cartToPolar(
        cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1), angleInDegrees=True
    )
    orientations = np.bincount(
        np.minimum((angle % 180.0 / 22.5).astype(int), 7).ravel(), weights=magnitude.ravel(), minlength=8
    )
    edges = orientations / max(float(orientations.sum()), 1e-6) * min(1.0, float(magnitude.mean()) / 64.0)
    return np.concatenate([colour * 2.0, bright * 0.5, edges * 0.5]).astype(np.float32)


def surroundings(images: Sequence[np.ndarray], boxes: Sequence[np.ndarray]) -> np.ndarray:
    """The normalised descriptor (``DIMS``) of what is around a thing, averaged over some of its frames
    (``images``, with its box in each): the band below the box, half the box's height deep and twice its
    width, weighs twice the band of the same size above it."""
    total = np.zeros(DIMS, np.float32)
    for image, box in zip(images, boxes):
        region, top, bottom = _around(image, box)
        total += np.concatenate([_band(region[bottom:]) * 2.0, _band(region[:top])])
    norm = float(np.linalg.norm(total))
    return total / norm if norm > 0 else total


def around(image: np.ndarray, box: np.ndarray) -> np.ndarray:
    """The part of ``image`` the surroundings of a thing in ``box`` are read from: twice its width, from half its
    height above it to half below (the bands of :func:`surroundings` and the thing between them)."""
    return _around(image, box)[0]


def _around(image: np.ndarray, box: np.ndarray) -> tuple[np.ndarray, int, int]:
    """:func:`around`, and the rows in it where the thing's box begins and ends."""
    height, width = image.shape[:2]
    x0, y0, x1, y1 = (float(v) for v in box)
    w, h = max(1.0, x1 - x0), max(1.0, y1 - y0)
    left, right = int(max(0, x0 - w / 2)), int(min(width, x1 + w / 2))
    top, bottom = int(max(0, y0 - h / 2)), int(min(height, y1 + h / 2))
    return image[top:bottom, left:right], max(0, int(max(0, y0)) - top), max(0, int(min(height, y1)) - top)


class PlaceDescriber(Protocol):
    space: str  #: descriptors of one space are compared; of two, never

    def describe(self, images: Sequence[np.ndarray], boxes: Sequence[np.ndarray]) -> np.ndarray:
        """The unit descriptor of what is around a thing, over some of its frames (its box in each)."""
        ...


class ModelFreePlaces:
    """The model-free descriptor (:func:`surroundings`), the default."""

    space = SURROUNDINGS

    def describe(self, images: Sequence[np.ndarray], boxes: Sequence[np.ndarray]) -> np.ndarray:
        return surroundings(images, boxes)


class ImageTextPlaces:
    """An image-text model's image tower on the thing's surroundings (:func:`around`), averaged over the frames."""

    def __init__(self, model: ImageTextEmbedder) -> None:
        self.model = model
        self.space = f"image-text:{model.space}"

    def describe(self, images: Sequence[np.ndarray], boxes: Sequence[np.ndarray]) -> np.ndarray:
        crops = [c for c in (around(i, b) for i, b in zip(images, boxes)) if c.size and min(c.shape[:2]) >= 2]
        if not crops:
            return np.zeros(self.model.dims, np.float32)
        total = np.asarray(self.model.embed_images(crops), np.float32).reshape(len(crops), -1).sum(axis=0)
        norm = float(np.linalg.norm(total))
        result: np.ndarray = (total / norm if norm > 0 else total).astype(np.float32)
        return result
