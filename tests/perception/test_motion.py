"""Camera-motion compensation (BoT-SORT's GMC): the transform of a panning view is measured from the
background alone, and with it the tracker keeps one id for a thing the pan moves further than its own
width between sampled frames, which plain ByteTrack loses; the native tracker's warp matches the reference."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from edge_agent.native import ByteTracker
from edge_agent.native_reference import ByteTrackerReference
from edge_agent.perception.motion import IDENTITY, CameraMotion


def _panorama(width: int = 1600, height: int = 360, seed: int = 0) -> np.ndarray:
    """A textured wall (smooth noise with corners to follow) and a red box standing in it at x 700..760."""
    rng = np.random.default_rng(seed)
    noise = cv2.resize(rng.integers(0, 255, (height // 8, width // 8, 3), dtype=np.uint8), (width, height))
    cv2.rectangle(noise, (700, 200), (760, 300), (30, 30, 200), -1)
    return noise


def _pan(step: int, frames: int = 6, width: int = 640):
    """Views of the panorama, the camera turning ``step`` pixels right per sampled frame; the box's place in
    each view (or none when out of it)."""
    world = _panorama()
    for k in range(frames):
        x = 400 + k * step
        view = np.ascontiguousarray(world[:, x : x + width])
        box = np.array([[700 - x, 200, 760 - x, 300]], np.float32)
        yield view, box


def test_the_transform_of_a_pan_comes_from_the_background():
    motion = CameraMotion()
    warps = [motion.estimate(view, box) for view, box in _pan(50)]
    assert np.allclose(warps[0], IDENTITY)
    for warp in warps[1:]:
        assert warp[0, 2] == pytest.approx(-50, abs=1.0) and abs(warp[1, 2]) < 1.0
        assert np.allclose(warp[:, :2], np.eye(2), atol=0.01)
    blank = CameraMotion()
    for _ in range(2):
        assert np.allclose(blank.estimate(np.full((360, 640, 3), 128, np.uint8)), IDENTITY)  # nothing to follow


def test_a_pan_along_plain_furniture_is_read_by_phase_correlation():
    """Painted walls and plain cupboards give a handful of corners, too few to fit a transform to; the shift of the
    whole view still shows, and a thing carried in view (the same place in every frame, left out) does not pin it
    at zero."""
    wall = np.full((360, 1600, 3), (190, 200, 180), np.uint8)
    for k, x in enumerate(range(0, 1600, 230)):  # cupboards of two colours, a counter edge
        cv2.rectangle(wall, (x, 250), (x + 220, 359), (120, 140, 160) if k % 2 else (150, 120, 130), -1)
    cv2.line(wall, (0, 248), (1599, 248), (60, 60, 60), 3)
    motion, warps = CameraMotion(), []
    assert (
        cv2.goodFeaturesToTrack(
            cv2.cvtColor(wall[:, 400:1040], cv2.COLOR_BGR2GRAY), maxCorners=300, qualityLevel=0.01, minDistance=8
        ).shape[0]
        < motion.min_points
    )
    carried = np.array([[300, 100, 330, 180]], np.float32)  # a bottle in the wearer's hand
    for k in range(5):
        view = np.ascontiguousarray(wall[:, 400 + 60 * k : 1040 + 60 * k])
        cv2.rectangle(view, (300, 100), (330, 180), (200, 60, 20), -1)
        warps.append(motion.estimate(view, carried))
    assert np.allclose(warps[0], IDENTITY)
    for warp in warps[1:]:
        assert warp[0, 2] == pytest.approx(-60, abs=1.5) and abs(warp[1, 2]) < 1.5
    without = CameraMotion(min_response=1.01)  # phase correlation never sure enough: the camera taken as still
    assert all(
        np.allclose(without.estimate(np.ascontiguousarray(wall[:, 400 + 60 * k : 1040 + 60 * k])), IDENTITY)
        for k in range(3)
    )


@pytest.mark.parametrize("tracker_type", [ByteTracker, ByteTrackerReference])
def test_compensation_keeps_one_track_id_where_plain_tracking_does_not(tracker_type):
    def ids(compensate: bool) -> list[int]:
        tracker, motion, seen = tracker_type(frame_rate=2.0), CameraMotion(), []
        for view, box in _pan(70):  # the box moves 70 px per frame in the image: more than its 60 px width
            warp = motion.estimate(view, box) if compensate else None
            tracks = tracker.update(box, np.array([0.9], np.float32), np.zeros(1, np.int32), warp=warp)
            track_id = tracks.track_id if hasattr(tracks, "track_id") else tracks[0]
            seen += [int(i) for i in track_id]
        return seen

    kept = ids(True)
    assert len(kept) >= 5 and set(kept) == {1}
    assert len(ids(False)) <= 2  # without: every frame's box is a new, unconfirmed track; the thing is lost


def test_native_warp_matches_the_reference():
    rng = np.random.default_rng(4)
    native, reference = ByteTracker(frame_rate=2.0), ByteTrackerReference(frame_rate=2.0)
    boxes = np.array([[100, 100, 160, 200], [300, 120, 340, 220], [500, 50, 560, 150]], np.float32)
    for f in range(8):
        angle, scale = rng.normal(0, 0.02), 1 + rng.normal(0, 0.02)
        r = scale * np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
        warp = np.hstack([r, rng.normal(0, 20, (2, 1))])
        moved = boxes + rng.normal(0, 2, boxes.shape).astype(np.float32)
        scores = np.full(3, 0.9, np.float32)
        got = native.update(moved, scores, np.zeros(3, np.int32), warp=warp, return_predicted=True)
        track_id, xyxy, *_ = reference.update(moved, scores, np.zeros(3, np.int32), True, warp)
        assert got.track_id.tolist() == track_id.tolist(), f"frame {f}"
        np.testing.assert_allclose(got.xyxy, xyxy, atol=1e-3)


def _carried(step: int = 70, frames: int = 6):
    """A pan (``step`` px a frame) past a box standing in the room, and a bottle in the wearer's hand: the same place
    in every view. Per frame: the warp, the boxes (bottle first), their appearance vectors."""
    stand, bottle, other = np.eye(8, dtype=np.float32)[:3]
    for k in range(frames):
        warp = np.array([[1.0, 0.0, -step if k else 0.0], [0.0, 1.0, 0.0]])
        boxes = np.array([[300, 100, 340, 180], [600 - k * step, 200, 660 - k * step, 300]], np.float32)
        yield warp, boxes, np.stack([bottle, stand]), other


@pytest.mark.parametrize("tracker_type", [ByteTracker, ByteTrackerReference])
def test_a_thing_carried_on_a_worn_camera_keeps_its_track(tracker_type):
    """The warp moves every track's prediction with the room; a thing in the wearer's hand moves with the camera
    instead. Tracks the warp left unmatched are matched from their unwarped prediction to a detection that looks
    alike (the held pass); one that does not look alike there is a new thing."""

    def ids(look: str) -> list[list[int]]:
        tracker, seen = tracker_type(frame_rate=2.0, appearance_gate=0.0), []
        for k, (warp, boxes, features, other) in enumerate(_carried()):
            if look == "changed" and k >= 3:
                features = np.stack([other, features[1]])  # something else in the hand from the fourth frame
            given = None if look == "none" else features
            tracks = tracker.update(
                boxes, np.full(2, 0.9, np.float32), np.zeros(2, np.int32), warp=warp, features=given
            )
            track_id, det_index = (tracks.track_id, tracks.det_index) if hasattr(tracks, "track_id") else tracks[::4]
            seen.append([int(i) for i, d in sorted(zip(track_id, det_index), key=lambda p: p[1])])
        return seen

    held = ids("alike")
    assert all(len(frame) == 2 for frame in held) and {frame[0] for frame in held} == {held[0][0]}
    assert {frame[1] for frame in held} == {held[0][1]}  # the box in the room, followed by the warp
    without = ids("none")  # without vectors: the bottle is a new (unconfirmed) track each frame
    assert all(len(frame) == 1 for frame in without[1:])
    changed = ids("changed")  # the new thing starts its own track, followed from the next frame
    assert changed[2][0] == held[0][0] and len(changed[3]) == 1 and changed[4][0] == changed[5][0] != held[0][0]


def test_native_held_pass_matches_the_reference():
    rng = np.random.default_rng(7)
    native, reference = (
        ByteTracker(frame_rate=2.0, appearance_gate=0.0),
        ByteTrackerReference(frame_rate=2.0, appearance_gate=0.0),
    )
    looks = rng.normal(size=(4, 16)).astype(np.float32)
    held = np.array([[300, 100, 340, 180], [420, 150, 470, 210]], np.float32)
    room = np.array([[100, 100, 160, 200], [500, 50, 560, 150]], np.float32)
    for f in range(10):
        shift = rng.normal(0, 40)
        warp = np.array([[1.0, 0.0, shift], [0.0, 1.0, rng.normal(0, 5)]])
        room = room + np.array([warp[0, 2], warp[1, 2]] * 2, np.float32)
        boxes = np.vstack([held, room]) + rng.normal(0, 2, (4, 4)).astype(np.float32)
        features = looks + rng.normal(0, 0.2, looks.shape).astype(np.float32)
        scores = np.array([0.9, 0.8, 0.9, 0.7], np.float32)
        got = native.update(boxes, scores, np.zeros(4, np.int32), warp=warp, features=features, return_predicted=True)
        track_id, xyxy, *_ = reference.update(boxes, scores, np.zeros(4, np.int32), True, warp, features)
        assert got.track_id.tolist() == track_id.tolist(), f"frame {f}"
        np.testing.assert_allclose(got.xyxy, xyxy, atol=1e-3)


def test_a_bad_warp_is_refused_and_the_tracker_keeps_its_state():
    tracker = ByteTracker()
    box, score, cls = np.array([[0, 0, 10, 10]], np.float32), np.array([0.9], np.float32), np.zeros(1, np.int32)
    tracker.update(box, score, cls)
    with pytest.raises(ValueError, match="warp must have shape"):
        tracker.update(box, score, cls, warp=np.eye(3))
    with pytest.raises(ValueError, match="warp must be finite"):
        tracker.update(box, score, cls, warp=np.array([[1, 0, np.nan], [0, 1, 0]]))
    assert tracker.frame_id == 1


def test_a_thing_standing_still_while_the_camera_pans_is_still_in_steady_coordinates():
    """The box moves 50 px a frame in the image; taken back into the first frame's image it stays put, so the
    describer calls it still rather than moving left."""
    from edge_agent.perception.describe import ObservationContext, TemplateDescriber

    motion, steady, boxes = CameraMotion(), [], []
    for view, box in _pan(50):
        motion.estimate(view, box)
        steady.append(motion.steady(box[0]))
        boxes.append(box[0])
    assert np.allclose(np.array(steady)[:, 0], 300, atol=2.0)  # x1 of the box in the first view, every frame
    crop = np.full((100, 60, 3), (30, 30, 200), np.uint8)
    seen = dict(category="box", crops=[crop], boxes=np.array(boxes), times=list(range(6)), frame_size=(640, 360))
    assert TemplateDescriber().measure(ObservationContext(**seen)).motion == "moving left"
    assert TemplateDescriber().measure(ObservationContext(**seen, steady=np.array(steady))).motion == "still"
