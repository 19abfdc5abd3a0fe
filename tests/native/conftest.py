"""Fixed synthetic scenes for golden tests of the tracker (the ``tracker_scenes`` fixture): crossing
objects, occlusion gaps, low-score recovery and a crowd. Positions carry random sub-pixel offsets so
that no two candidate matches tie."""

from __future__ import annotations

import numpy as np
import pytest

Frame = tuple[np.ndarray, np.ndarray, np.ndarray]  # xyxy float32 (N, 4), scores float32 (N,), classes int32 (N,)


def _frame(boxes: list[list[float]], scores: list[float], classes: list[int] | None = None) -> Frame:
    xyxy = np.asarray(boxes, dtype=np.float32).reshape(-1, 4)
    return xyxy, np.asarray(scores, dtype=np.float32), np.asarray(classes or [0] * len(scores), dtype=np.int32)


def crossing(seed: int = 0, frames: int = 60) -> list[Frame]:
    """Two objects cross paths horizontally while a third moves diagonally; jittered boxes."""
    rng = np.random.default_rng(seed)
    out = []
    for f in range(frames):
        a = [100 + 6 * f, 200 + 0.3 * f, 160 + 6 * f, 320 + 0.3 * f]
        b = [500 - 6 * f, 210, 560 - 6 * f, 330]
        c = [50 + 3 * f, 50 + 2 * f, 90 + 3 * f, 110 + 2 * f]
        boxes = np.array([a, b, c]) + rng.normal(0, 0.7, (3, 4))
        out.append(_frame(boxes.tolist(), rng.uniform(0.6, 0.95, 3).tolist()))
    return out


def occlusion(seed: int = 1, frames: int = 80, gap: tuple[int, int] = (20, 32)) -> list[Frame]:
    """One object disappears for a gap of frames and returns on its path; another stays visible."""
    rng = np.random.default_rng(seed)
    out = []
    for f in range(frames):
        boxes, scores = [], []
        if not gap[0] <= f < gap[1]:
            boxes.append([200 + 4 * f, 300, 260 + 4 * f, 420])
            scores.append(rng.uniform(0.7, 0.9))
        boxes.append([800, 100 + 2 * f, 870, 220 + 2 * f])
        scores.append(rng.uniform(0.7, 0.9))
        boxes = (np.array(boxes) + rng.normal(0, 0.5, (len(boxes), 4))).tolist()
        out.append(_frame(boxes, scores))
    return out


def low_score_recovery(seed: int = 2, frames: int = 50) -> list[Frame]:
    """An object whose detector score dips into the low band for a while (partial occlusion), plus
    low-score clutter that must not start tracks."""
    rng = np.random.default_rng(seed)
    out = []
    for f in range(frames):
        score = rng.uniform(0.15, 0.45) if 15 <= f < 30 else rng.uniform(0.7, 0.9)
        boxes = [[300 + 5 * f, 300, 350 + 5 * f, 400]]
        scores = [score]
        for _ in range(int(rng.integers(0, 3))):
            x, y = rng.uniform(0, 1800), rng.uniform(0, 1000)
            boxes.append([x, y, x + rng.uniform(20, 60), y + rng.uniform(20, 60)])
            scores.append(rng.uniform(0.12, 0.45))
        boxes = (np.array(boxes) + rng.normal(0, 0.5, (len(boxes), 4))).tolist()
        out.append(_frame(boxes, scores))
    return out


def _step(pos: np.ndarray, vel: np.ndarray, size: np.ndarray, frame: tuple[float, float], rng) -> np.ndarray:
    """Moves every box one frame at constant velocity, bouncing off the frame's borders (``pos`` and ``vel`` in
    place); the boxes with 1 px of jitter."""
    pos += vel
    for axis, limit in enumerate(frame):
        over = (pos[:, axis] < 0) | (pos[:, axis] + size[:, axis] > limit)
        vel[over, axis] *= -1
        pos[:, axis] = np.clip(pos[:, axis], 0, limit - size[:, axis])
    return np.hstack([pos, pos + size]) + rng.uniform(-1, 1, (len(pos), 4))


def crowd(seed: int = 3, n: int = 40, frames: int = 120, width: float = 1280, height: float = 720) -> list[Frame]:
    """Many objects at constant velocity bouncing off the borders, 5% missed detections, one class of
    two; exercises every pass, losses and re-finds."""
    rng = np.random.default_rng(seed)
    size = rng.uniform(30, 90, (n, 2))
    pos = rng.uniform([0, 0], [width - 90, height - 90], (n, 2))
    vel = rng.uniform(-6, 6, (n, 2))
    classes = rng.integers(0, 2, n)
    out = []
    for _ in range(frames):
        boxes = _step(pos, vel, size, (width, height), rng)
        keep = rng.random(n) >= 0.05
        scores = rng.uniform(0.3, 0.95, n)
        out.append(_frame(boxes[keep].tolist(), scores[keep].tolist(), classes[keep].tolist()))
    return out


def walkers(seed: int = 4, n: int = 12, frames: int = 40, dims: int = 16) -> list[tuple[np.ndarray, ...]]:
    """Frames sampled sparsely (2 fps): people moving up to 1.5 widths per frame, so their boxes rarely overlap
    from one frame to the next; 10% missed detections; each with an appearance vector, pairs of look-alikes
    among them, and noise. Frames are (xyxy, scores, classes, features)."""
    rng = np.random.default_rng(seed)
    size = np.column_stack([rng.uniform(30, 60, n), rng.uniform(80, 150, n)])
    pos = rng.uniform([0, 0], [1800 - 60, 1000 - 150], (n, 2))
    vel = rng.uniform(-1.5, 1.5, (n, 2)) * size[:, :1]
    looks = rng.normal(0, 1, (n, dims))
    looks[1::2] = looks[0::2] + rng.normal(0, 0.3, (n // 2, dims))  # look-alike pairs
    out = []
    for _ in range(frames):
        boxes = _step(pos, vel, size, (1800, 1000), rng)
        keep = rng.random(n) >= 0.1
        scores = rng.uniform(0.3, 0.95, n)
        features = looks + rng.normal(0, 0.2, (n, dims))
        xyxy, score, classes = _frame(boxes[keep].tolist(), scores[keep].tolist())
        out.append((xyxy, score, classes, features[keep].astype(np.float32)))
    return out


@pytest.fixture(scope="session")
def tracker_scenes() -> dict[str, list[Frame]]:
    return {
        "crossing": crossing(),
        "occlusion": occlusion(),
        "low_score_recovery": low_score_recovery(),
        "crowd": crowd(),
    }


@pytest.fixture(scope="session")
def walker_scene() -> list[tuple[np.ndarray, ...]]:
    return walkers()
