"""A generated scene for the main job and the tests, needing no camera, video or model file: a
kitchen counter seen by a fixed camera on two days, with two red mugs that look alike (one striped,
one plain) side by side, and a person walking past. Written as MOT-format sequences (img1/*.jpg,
seqinfo.ini naming the classes, gt/gt.txt) so the ground-truth detector can replay the boxes while
everything after detection is the real pipeline. The striped mug comes back on day 2 in another place
and another light: one entity across days, and never the plain mug's."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

__all__ = ["write_demo_scene"]

CLASSES = ("person", "cup")


def _mug(image: np.ndarray, x: int, y: int, striped: bool, light: float) -> tuple[int, int, int, int]:
    w, h = 44, 54
    red = tuple(int(c * light) for c in (40, 40, 205))
    cv2.rectangle(image, (x, y), (x + w, y + h), red, -1)
    cv2.ellipse(image, (x + w, y + h // 2), (10, 14), 0, -90, 90, red, 5)
    if striped:
        white = tuple(int(c * light) for c in (235, 235, 235))
        for sy in range(y + 6, y + h - 4, 12):
            cv2.rectangle(image, (x, sy), (x + w, sy + 4), white, -1)
    return x, y, w + 12, h


def _person(image: np.ndarray, x: int, light: float) -> tuple[int, int, int, int]:
    shirt = tuple(int(c * light) for c in (150, 90, 40))
    skin = tuple(int(c * light) for c in (120, 160, 210))
    cv2.rectangle(image, (x, 120), (x + 60, 300), shirt, -1)
    cv2.circle(image, (x + 30, 95), 24, skin, -1)
    return x, 70, 60, 230


def _day(folder: Path, seconds: float, fps: float, light: float, mugs: list[tuple[int, int, bool]], seed: int) -> None:
    rng = np.random.default_rng(seed)
    (folder / "img1").mkdir(parents=True, exist_ok=True)
    (folder / "gt").mkdir(exist_ok=True)
    width, height = 640, 360
    base = np.zeros((height, width, 3), np.uint8)
    base[:] = (int(180 * light), int(190 * light), int(200 * light))  # wall
    base[240:] = (int(90 * light), int(120 * light), int(150 * light))  # counter
    rows = []
    frames = int(seconds * fps)
    for f in range(1, frames + 1):
        image = base.copy()
        ids = []
        for object_id, (x, y, striped) in enumerate(mugs, start=2):
            ids.append((object_id, 2, _mug(image, x, y, striped, light)))
        walker = int(-80 + (f / frames) * (width + 100))  # walks across once, in front of the mugs
        if -60 < walker < width:
            ids.append((1, 1, _person(image, walker, light)))
        noisy = np.clip(image.astype(np.int16) + rng.normal(0, 3, image.shape), 0, 255).astype(np.uint8)
        cv2.imwrite(str(folder / "img1" / f"{f:06d}.jpg"), noisy, [cv2.IMWRITE_JPEG_QUALITY, 92])
        for object_id, class_id, (x, y, w, h) in ids:
            x0, x1 = max(0, x), min(width, x + w)
            if x1 - x0 > 4:
                rows.append(f"{f},{object_id},{x0},{y},{x1 - x0},{h},1,{class_id},1.0")
    (folder / "gt" / "gt.txt").write_text("\n".join(rows) + "\n")
    (folder / "seqinfo.ini").write_text(
        f"[Sequence]\nname={folder.name}\nimDir=img1\nframeRate={fps:g}\nseqLength={frames}\n"
        f"imWidth={width}\nimHeight={height}\nimExt=.jpg\nclasses={','.join(CLASSES)}\n"
    )


def write_demo_scene(folder: str | Path, *, seconds: float = 20.0, fps: float = 4.0) -> list[Path]:
    """Writes ``day1`` and ``day2`` sequences under ``folder``; returns their paths."""
    root = Path(folder)
    day1, day2 = root / "day1", root / "day2"
    # Day 1: the striped mug (id 2) and the plain one (id 3) side by side on the counter.
    _day(day1, seconds, fps, light=1.0, mugs=[(230, 200, True), (330, 200, False)], seed=1)
    # Day 2: only the striped mug, further right, in dimmer light.
    _day(day2, seconds, fps, light=0.8, mugs=[(470, 195, True)], seed=2)
    return [day1, day2]
