"""Tracklets from a clip: a walker sampled at 2 fps moves further than its width between frames, so IoU
tracking alone starts a new track on every frame; the tracker's appearance gate keeps such a walker one
track, and keeps two walkers who pass each other apart."""

from __future__ import annotations

import cv2
import numpy as np

from edge_agent.capture.clipper import ClipFrames
from edge_agent.capture.frames import Frame
from edge_agent.config import TrackerConfig
from edge_agent.perception.detect import COCO_CLASSES, Detections
from edge_agent.perception.observe import carried, track_clip

COLOURS = [(40, 40, 200), (200, 120, 30)]  # BGR: a red and a blue coat


def _scene(n: int, starts, step: float) -> tuple[ClipFrames, list[Detections]]:
    """Walkers (x, direction) drawn in their colours on a striped wall, sampled at 2 fps from a 10 fps file."""
    frames, detections = [], []
    for i in range(n):
        image = np.full((360, 640, 3), 90, np.uint8)
        image[::7] = 200
        boxes = []
        for k, (x, direction) in enumerate(starts):
            x0 = int(x + direction * step * i)
            image[150:290, max(0, x0) : max(0, x0 + 50)] = COLOURS[k % len(COLOURS)]
            boxes.append([x0, 150, x0 + 50, 290])
        frames.append(Frame(5 * i, i * 0.5, image))
        detections.append(
            Detections(
                np.array(boxes, np.float32),
                np.full(len(boxes), 0.9, np.float32),
                np.zeros(len(boxes), np.int32),
                COCO_CLASSES,
            )
        )
    return ClipFrames(0.0, n * 0.5, tuple(frames)), detections


def test_a_fast_walker_is_one_observation():
    clip, detections = _scene(6, [(20, 1)], 80.0)
    (walker,) = track_clip(clip, detections, TrackerConfig(), 2.0)  # default: appearance within 1.5 sizes
    assert len(walker.times) == 6
    by_iou = track_clip(clip, detections, TrackerConfig(appearance_gate=0.0), 2.0)
    assert by_iou == []  # every piece is one frame long: dropped


def test_two_walkers_passing_each_other_stay_apart():
    clip, detections = _scene(6, [(40, 1), (520, -1)], 80.0)
    tracks = track_clip(clip, detections, TrackerConfig(), 2.0)
    # one hides the other where they meet (the same box on the middle frame); neither takes the other's track
    assert len(tracks) == 2 and all(len(t.times) >= 5 for t in tracks)
    for t in tracks:  # each keeps walking its own way
        xs = np.diff([b[0] for b in t.boxes])
        assert np.all(xs > 0) or np.all(xs < 0)


def _parked(labels_per_frame) -> tuple[ClipFrames, list[Detections]]:
    """A parked white van on a grey street, 2 fps; on each frame the detector boxes it as the (class, score)
    pairs given, each box a pixel or two off the others (two class heads)."""
    frames, detections = [], []
    for i, labels in enumerate(labels_per_frame):
        image = np.full((360, 640, 3), 90, np.uint8)
        image[100:220, 300:460] = 235
        frames.append(Frame(5 * i, i * 0.5, image))
        boxes = [[300 + k, 100 - k, 460 - k, 220] for k in range(len(labels))]
        detections.append(
            Detections(
                np.array(boxes, np.float32).reshape(-1, 4),
                np.array([s for _, s in labels], np.float32),
                np.array([COCO_CLASSES.index(c) for c, _ in labels], np.int32),
                COCO_CLASSES,
            )
        )
    return ClipFrames(0.0, len(frames) * 0.5, tuple(frames)), detections


def test_a_van_boxed_as_truck_and_car_is_one_observation():
    clip, detections = _parked([[("truck", 0.75), ("car", 0.66)]] * 6)
    (van,) = track_clip(clip, detections, TrackerConfig(), 2.0)  # before: a truck and a car, both parked here
    assert (van.category, van.runner_up, len(van.times)) == ("truck", "car", 6)


def test_a_thing_whose_best_class_flips_stays_one_track_named_by_its_summed_scores():
    flips = [[("truck", 0.7), ("car", 0.65)], [("car", 0.72), ("truck", 0.6)], [("truck", 0.8)], [("car", 0.55)]]
    clip, detections = _parked(flips * 2)
    (van,) = track_clip(clip, detections, TrackerConfig(), 2.0)
    assert (van.category, van.runner_up, len(van.times)) == ("truck", "car", 8)


def test_merging_can_be_limited_to_identical_boxes():
    clip, detections = _parked([[("truck", 0.75), ("car", 0.66)]] * 6)
    tracks = track_clip(clip, detections, TrackerConfig(confusable_merge_iou_threshold=1.0), 2.0)
    assert len(tracks) == 2  # the two class heads' boxes differ by a pixel: two observations, as before merging


def test_a_thing_moved_with_the_camera_when_it_stayed_put_in_the_image_while_the_room_moved():
    box = lambda x: np.array([x, 100, x + 40, 140], np.float32)  # noqa: E731
    assert carried(box(300), box(300), box(302), box(360)) is True  # in the wearer's hand as they turn
    assert carried(box(300), box(450), box(240), box(450)) is False  # standing: the room moved it in the image
    assert carried(box(300), box(300), box(303), box(304)) is None  # neither moved enough to tell


def test_on_a_worn_camera_a_thing_carried_and_put_down_is_two_observations_the_carried_one_followed():
    """The wearer turns 60 px a frame past a textured wall, a red cup in hand (the same place in every view) for four
    frames, then put down (moving with the wall). The tracker keeps the carried cup (its held pass); the piece in the
    hand and the piece put down are two tracklets, the first carried (``[tracker] follow_carried``)."""
    rng = np.random.default_rng(1)  # a wall whose every pair of views the motion estimate reads to the pixel
    wall = cv2.resize(rng.integers(0, 255, (45, 250, 3), dtype=np.uint8), (2000, 360))
    frames, detections = [], []
    for i in range(9):
        x = 200 + 60 * i
        view = np.ascontiguousarray(wall[:, x : x + 640])
        cup = [300, 200, 340, 250] if i < 4 else [300 - 60 * (i - 3), 200, 340 - 60 * (i - 3), 250]
        view[cup[1] : cup[3], cup[0] : cup[2]] = (30, 30, 200)
        frames.append(Frame(5 * i, i * 0.5, view))
        detections.append(
            Detections(np.array([cup], np.float32), np.array([0.9], np.float32), np.array([41], np.int32), COCO_CLASSES)
        )
    clip = ClipFrames(0.0, 4.5, tuple(frames))
    pieces = track_clip(clip, detections, TrackerConfig(min_frames=2, follow_carried=True), 2.0, moving=True)
    assert [len(p.times) for p in pieces] == [4, 5] and all(p.category == "cup" for p in pieces)
    assert [p.carried for p in pieces] == [True, False]
    (standing,) = track_clip(clip, detections, TrackerConfig(min_frames=2), 2.0, moving=True)  # off by default
    assert len(standing.times) == 5 and not standing.carried  # the cup in the hand: a new track every frame
