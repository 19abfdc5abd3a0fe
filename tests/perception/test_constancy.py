"""Colour constancy: a frame's light estimated from the frame itself, crops corrected to a neutral light of one
brightness, so the same thing under a dimmer or warmer light embeds the same."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from edge_agent.perception.constancy import Constancy, illuminant
from edge_agent.perception.embed import ColorTextureEmbedder


def _scene(seed: int = 0) -> np.ndarray:
    """A room: textured grey walls, a wooden table, a red mug with white stripes (BGR)."""
    rng = np.random.default_rng(seed)
    frame = np.clip(rng.normal(140, 25, (240, 320, 3)), 0, 255).astype(np.uint8)
    cv2.rectangle(frame, (0, 160), (320, 240), (60, 100, 150), -1)
    cv2.rectangle(frame, (140, 90), (180, 150), (30, 30, 200), -1)
    for y in range(95, 150, 12):
        cv2.rectangle(frame, (140, y), (180, y + 4), (235, 235, 235), -1)
    return frame


def _lit(frame: np.ndarray, bgr: tuple[float, float, float]) -> np.ndarray:
    return np.clip(frame.astype(np.float32) * np.asarray(bgr, np.float32), 0, 255).astype(np.uint8)


@pytest.mark.parametrize("method", ["grey-world", "grey-edge"])
def test_a_cast_and_a_dimmer_light_are_taken_back(method):
    frame = _scene()
    base = illuminant(frame, method)
    warm = illuminant(_lit(frame, (0.7, 0.9, 1.1)), method)  # a warm lamp: less blue, more red
    ratio = warm / base  # the colour of the light, up to its level
    assert ratio / ratio.mean() == pytest.approx(np.array([0.7, 0.9, 1.1]) / 0.9, rel=0.03)
    constancy = Constancy(method)
    mug = (slice(90, 150), slice(140, 180))
    embedder = ColorTextureEmbedder()
    reference = embedder.embed([constancy.apply(frame[mug], constancy.gains(frame))])[0]
    for light in ((0.7, 0.9, 1.1), (0.75, 0.75, 0.75), (1.1, 1.0, 0.8)):
        seen = _lit(frame, light)
        raw = embedder.embed([seen[mug]])[0]
        corrected = embedder.embed([constancy.apply(seen[mug], constancy.gains(seen))])[0]
        assert corrected @ reference > 0.99 and corrected @ reference > raw @ embedder.embed([frame[mug]])[0]


def test_nothing_is_corrected_when_asked_not_to_or_in_the_dark():
    frame = _scene()
    assert Constancy("none").gains(frame) is None
    assert Constancy("grey-edge").gains(np.zeros_like(frame)) is None
    assert Constancy.apply(frame, None) is frame
    with pytest.raises(ValueError, match="grey-edge"):
        Constancy("retinex")
