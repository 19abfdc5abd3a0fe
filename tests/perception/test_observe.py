"""Tracklets from a clip: a walker sampled at 2 fps moves further than its width between frames, so IoU
tracking starts a new track on every frame; linking joins the pieces, and leaves crossing walkers apart."""

from __future__ import annotations

import numpy as np

from edge_agent.capture.clipper import ClipFrames
from edge_agent.capture.frames import Frame
from edge_agent.config import TrackerConfig
from edge_agent.perception.detect import COCO_CLASSES, Detections
from edge_agent.perception.observe import track_clip


def _clip(n: int) -> ClipFrames:
    image = np.full((360, 640, 3), 90, np.uint8)
    image[::7] = 200  # some texture for the crops
    return ClipFrames(
        0.0, n * 0.5, tuple(Frame(5 * i, i * 0.5, image) for i in range(n))
    )  # every 5th frame of a 10 fps file


def _walkers(n: int, starts, step: float) -> list[Detections]:
    out = []
    for i in range(n):
        boxes = [[x + direction * step * i, 150, x + direction * step * i + 50, 290] for x, direction in starts]
        out.append(
            Detections(
                np.array(boxes, np.float32),
                np.full(len(boxes), 0.9, np.float32),
                np.zeros(len(boxes), np.int32),
                COCO_CLASSES,
            )
        )
    return out


def test_a_fast_walker_is_one_observation():
    frames = 6
    linked = track_clip(_clip(frames), _walkers(frames, [(20, 1)], 80.0), TrackerConfig(link_gate=1.5), 2.0)
    assert [len(t.times) for t in linked] == [frames]
    unlinked = track_clip(_clip(frames), _walkers(frames, [(20, 1)], 80.0), TrackerConfig(), 2.0)  # default: off
    assert unlinked == []  # every piece is one frame long: dropped


def test_two_walkers_crossing_are_not_joined_into_one():
    frames = 6
    tracks = track_clip(_clip(frames), _walkers(frames, [(40, 1), (520, -1)], 80.0), TrackerConfig(link_gate=1.5), 2.0)
    assert all(
        np.all(np.diff([b[0] for b in t.boxes]) > 0) or np.all(np.diff([b[0] for b in t.boxes]) < 0) for t in tracks
    )
    assert sum(len(t.times) for t in tracks) <= 2 * frames
