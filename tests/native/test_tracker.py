"""ByteTracker (edge_agent.native) against the NumPy reference, and its behaviour on fixed scenes."""

from __future__ import annotations

import numpy as np
import pytest

from edge_agent.native import ByteTracker, Tracks
from edge_agent.native_reference import ByteTrackerReference

SCENES = ["crossing", "occlusion", "low_score_recovery", "crowd"]  # built in conftest.py

PARAMS = [
    {},
    {"observation_recovery": True},
    {"lost_track_buffer": 5, "frame_rate": 15.0},
    {"class_aware": True, "minimum_iou_threshold": 0.1},
    {"high_conf_det_threshold": 0.6, "low_conf_det_threshold": 0.2, "new_track_threshold": 0.7},
]


def run(tracker, frames, classes=True, return_predicted=False):
    for xyxy, scores, class_ids in frames:
        yield tracker.update(xyxy, scores, class_ids if classes else None, return_predicted=return_predicted)


@pytest.mark.parametrize("scene", SCENES)
@pytest.mark.parametrize("params", PARAMS, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()) or "defaults")
@pytest.mark.parametrize("return_predicted", [False, True])
def test_native_matches_reference(tracker_scenes, scene, params, return_predicted):
    native, reference = ByteTracker(**params), ByteTrackerReference(**params)
    frames = tracker_scenes[scene]
    total = 0
    for f, (got, (track_id, xyxy, score, class_id, det_index)) in enumerate(
        zip(
            run(native, frames, return_predicted=return_predicted),
            (reference.update(*frame, return_predicted=return_predicted) for frame in frames),
        )
    ):
        assert got.track_id.tolist() == track_id.tolist(), f"frame {f}"
        assert got.det_index.tolist() == det_index.tolist(), f"frame {f}"
        assert got.class_id.tolist() == class_id.tolist(), f"frame {f}"
        np.testing.assert_allclose(got.xyxy, xyxy, atol=1e-4, rtol=0, err_msg=f"frame {f}")
        np.testing.assert_array_equal(got.score, score)
        total += len(got)
    assert total >= len(frames) // 2  # the scene was actually tracked


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"appearance_gate": 3.0, "appearance_threshold": 0.5},
        {"observation_recovery": True},
        {"appearance_gate": 0.0, "lost_track_buffer": 5, "frame_rate": 2.0},
    ],
    ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()) or "defaults",
)
def test_native_matches_reference_with_appearance(walker_scene, params):
    native, reference = ByteTracker(**params), ByteTrackerReference(**params)
    total = 0
    for f, (xyxy, scores, classes, features) in enumerate(walker_scene):
        got = native.update(xyxy, scores, classes, features=features)
        track_id, boxes, _, _, det_index = reference.update(xyxy, scores, classes, features=features)
        assert got.track_id.tolist() == track_id.tolist(), f"frame {f}"
        assert got.det_index.tolist() == det_index.tolist(), f"frame {f}"
        np.testing.assert_allclose(got.xyxy, boxes, atol=1e-3, rtol=0, err_msg=f"frame {f}")
        total += len(got)
    # by appearance most walkers are followed on most frames; by IoU alone hardly any
    assert total >= (5 if params.get("appearance_gate", 1.0) > 0 else 0) * len(walker_scene)


def _walk(tracker, starts, step, looks, frames=10, size=(40, 100)):
    """People walking ``step`` (px per frame, per person) from ``starts``: ids per person per frame."""
    ids: list[list[int]] = [[] for _ in starts]
    for f in range(frames):
        xyxy = [[x + s * f, y, x + s * f + size[0], y + size[1]] for (x, y), s in zip(starts, step)]
        tracks = tracker.update(xyxy, [0.9] * len(starts), features=looks)
        for track_id, det in zip(tracks.track_id.tolist(), tracks.det_index.tolist()):
            ids[det].append(track_id)
    return ids


def test_appearance_keeps_a_walker_who_moves_further_than_their_width_one_track():
    look = np.eye(1, 8, dtype=np.float32)
    (by_look,) = _walk(ByteTracker(appearance_gate=1.5), [(100, 100)], [60], look)
    assert len(by_look) == 10 and set(by_look) == {1}  # one id on every frame
    (by_iou,) = _walk(ByteTracker(appearance_gate=0.0), [(100, 100)], [60], look)
    assert by_iou == [1]  # IoU alone: boxes 60 px apart never overlap, no later piece is ever confirmed


def test_appearance_does_not_swap_two_walkers_who_pass_each_other():
    looks = np.eye(2, 8, dtype=np.float32)
    a, b = _walk(ByteTracker(appearance_gate=1.5), [(100, 100), (640, 110)], [60, -60], looks)
    assert set(a) == {1} and set(b) == {2} and len(a) == len(b) == 10


def test_a_detection_a_track_overlaps_is_not_taken_by_a_look_alike():
    """Two look-alike mugs side by side; one is picked up (gone), the other nudged 30 px: its detection still
    overlaps its own track a little (IoU 0.14), and by appearance the gone one's track would score more. IoU is
    matched first, appearance only among what it left."""
    look = np.ones((2, 8), np.float32)
    tracker = ByteTracker(appearance_gate=1.5)
    for _ in range(3):
        tracks = tracker.update([[100, 100, 140, 200], [160, 100, 200, 200]], [0.9, 0.9], features=look)
    assert tracks.track_id.tolist() == [1, 2]
    assert tracker.update([[190, 100, 230, 200]], [0.9], features=look[:1]).track_id.tolist() == [2]


def test_a_look_alike_beyond_the_gate_starts_its_own_track():
    look = np.eye(1, 8, dtype=np.float32)
    tracker = ByteTracker(appearance_gate=1.5)
    for f in range(3):
        tracker.update([[100 + 60 * f, 100, 140 + 60 * f, 200]], [0.9], features=look)
    tracker.update([[900, 100, 940, 200]], [0.9], features=look)  # 640 px on: another person dressed alike
    assert tracker.update([[960, 100, 1000, 200]], [0.9], features=look).track_id.tolist() == [2]


def test_observation_recovery_finds_a_thing_that_stopped_while_hidden():
    """It moved 12 px a frame, stopped behind something for 5 frames and shows again where it stopped: the
    motion model carried its box 60 px on (no overlap left), its last observed box still overlaps."""

    def ids(recovery):
        tracker = ByteTracker(observation_recovery=recovery, appearance_gate=0.0)
        for f in range(10):
            tracker.update([[100 + 12 * f, 100, 140 + 12 * f, 200]], [0.9])
        for _ in range(5):
            tracker.update(np.empty((0, 4)), np.empty(0))
        tracker.update([[209, 100, 249, 200]], [0.9])
        return tracker.update([[209, 100, 249, 200]], [0.9]).track_id.tolist()

    assert ids(True) == [1]
    assert ids(False) == [2]


def test_bad_features_raise_and_keep_state():
    tracker = ByteTracker()
    tracker.update([[100, 100, 140, 180]], [0.9], features=np.ones((1, 4)))
    for features, match in [
        (np.ones((2, 4)), r"features must have shape \(N, D\) matching xyxy, got \(2, 4\)"),
        (np.full((1, 4), np.nan), "features contains NaN or inf"),
        (np.ones((1, 5)), r"features must keep their width between frames \(4 before, 5 now\)"),
    ]:
        with pytest.raises(ValueError, match=match):
            tracker.update([[101, 101, 141, 181]], [0.9], features=features)
    assert tracker.frame_id == 1
    assert tracker.update([[101, 101, 141, 181]], [0.9], features=np.ones((1, 4))).track_id.tolist() == [1]


def test_output_types_and_dtypes():
    tracks = ByteTracker().update([[10, 10, 50, 90]], [0.9])
    assert isinstance(tracks, Tracks) and len(tracks) == 1
    assert tracks.track_id.dtype == np.int64 and tracks.det_index.dtype == np.int64
    assert tracks.xyxy.dtype == np.float32 and tracks.xyxy.shape == (1, 4)
    assert tracks.score.dtype == np.float32 and tracks.class_id.dtype == np.int32
    assert "Tracks(n=1" in repr(tracks)


def test_identities_survive_crossing(tracker_scenes):
    tracker = ByteTracker()
    ids_per_object: dict[int, set[int]] = {0: set(), 1: set(), 2: set()}
    for tracks in run(tracker, tracker_scenes["crossing"]):
        for tid, det in zip(tracks.track_id.tolist(), tracks.det_index.tolist()):
            ids_per_object[det].add(tid)
    assert [len(v) for v in ids_per_object.values()] == [1, 1, 1]
    assert len(set().union(*ids_per_object.values())) == 3


def test_occlusion_gap_refinds_same_id_within_buffer(tracker_scenes):
    tracker = ByteTracker(lost_track_buffer=30)
    seen = [dict(zip(t.det_index.tolist(), t.track_id.tolist())) for t in run(tracker, tracker_scenes["occlusion"])]
    before, after = seen[19][0], seen[40][0]  # detection 0 is the occluded object outside the gap
    assert before == after


def test_occlusion_longer_than_buffer_gives_new_id(tracker_scenes):
    tracker = ByteTracker(lost_track_buffer=5)
    seen = [dict(zip(t.det_index.tolist(), t.track_id.tolist())) for t in run(tracker, tracker_scenes["occlusion"])]
    assert seen[19][0] != seen[40][0]


def test_low_score_detections_keep_a_track_but_never_start_one(tracker_scenes):
    tracker = ByteTracker()
    ids = set()
    for f, tracks in enumerate(run(tracker, tracker_scenes["low_score_recovery"])):
        if 15 <= f < 30:  # the object scores in the low band here: kept alive by the second pass
            assert 0 in tracks.det_index.tolist(), f"frame {f}"
        ids.update(tracks.track_id.tolist())
    assert ids == {1}  # clutter (all low score) never became a track


def _half_width_walker(frame_rate: float, frames: int = 10) -> list[list[int]]:
    """A walker 40 px wide moving 20 px a frame, every other detection weak (score 0.4): ids per frame."""
    tracker = ByteTracker(frame_rate=frame_rate, minimum_iou_threshold=0.1)
    ids = []
    for f in range(frames):
        x = 100 + 20 * f
        ids.append(tracker.update([[x, 100, x + 40, 200]], [0.9 if f % 2 == 0 else 0.4]).track_id.tolist())
    return ids


def test_at_two_frames_a_second_a_walker_moving_half_their_width_keeps_one_track():
    # 2 fps: 15 frames of motion between samples; the walker's velocity is learned from its second sighting and
    # the weak detections' pass asks for IoU 0.5 / 15 (floored at the first pass's 0.1)
    assert _half_width_walker(2.0) == [[1]] * 10
    # the same boxes at 30 fps are an implausible jump: ByteTrack's IoU 0.5 refuses the weak detection
    assert _half_width_walker(30.0)[1] == []


def test_new_track_needs_second_frame_to_confirm():
    tracker = ByteTracker()
    tracker.update([[0, 0, 10, 10]], [0.9])  # frame 1 confirms at once
    assert len(tracker.update(np.empty((0, 4)), np.empty(0))) == 0
    first = tracker.update([[500, 500, 540, 560]], [0.9])
    assert len(first) == 0  # unconfirmed
    second = tracker.update([[501, 501, 541, 561]], [0.9])
    assert second.track_id.tolist() == [2]


def test_return_predicted_reports_lost_tracks_with_minus_one():
    tracker = ByteTracker()
    for f in range(5):
        tracker.update([[100 + 5 * f, 100, 150 + 5 * f, 200]], [0.9])
    tracks = tracker.update(np.empty((0, 4)), np.empty(0), return_predicted=True)
    assert tracks.track_id.tolist() == [1] and tracks.det_index.tolist() == [-1]
    assert tracks.xyxy[0, 0] > 120  # carried forward by the motion model
    assert len(tracker.update(np.empty((0, 4)), np.empty(0))) == 0


def test_class_aware_does_not_match_across_classes():
    tracker = ByteTracker(class_aware=True)
    tracker.update([[0, 0, 40, 80]], [0.9], [1])
    tracks = tracker.update([[1, 1, 41, 81]], [0.9], [2])
    assert len(tracks) == 0  # class 2 starts its own, unconfirmed, track
    tracks = tracker.update([[2, 2, 42, 82]], [0.9], [2])
    assert tracks.track_id.tolist() == [2] and tracks.class_id.tolist() == [2]


def test_reset_restarts_ids():
    tracker = ByteTracker()
    for f in range(3):
        tracker.update([[f, 0, 40 + f, 80]], [0.9])
    assert tracker.frame_id == 3
    tracker.reset()
    assert tracker.frame_id == 0
    assert tracker.update([[300, 300, 340, 380]], [0.9]).track_id.tolist() == [1]
    assert "ByteTracker(frame_id=1" in repr(tracker)


def test_accepts_float64_lists_and_noncontiguous_views():
    wide = np.zeros((1, 8))
    wide[:, ::2] = [[10, 10, 50, 90]]
    assert not wide[:, ::2].flags.c_contiguous
    tracks = ByteTracker().update(wide[:, ::2], [0.9], np.array([3], dtype=np.int64))
    assert tracks.class_id.tolist() == [3]
    np.testing.assert_allclose(tracks.xyxy, [[10, 10, 50, 90]])


@pytest.mark.parametrize(
    ("xyxy", "scores", "classes", "error", "match"),
    [
        ([[0, 0, 10]], [0.9], None, ValueError, r"xyxy must have shape \(N, 4\).*got \(1, 3\)"),
        ([[0, 0, 10, 10]], [0.9, 0.8], None, ValueError, r"scores must have shape \(N,\) matching xyxy, got \(2,\)"),
        ([[0, 0, np.nan, 10]], [0.9], None, ValueError, "xyxy contains NaN or inf"),
        ([[0, 0, np.inf, 10]], [0.9], None, ValueError, "xyxy contains NaN or inf"),
        ([[0, 0, 10, 10]], [np.nan], None, ValueError, "scores contains NaN or inf"),
        ([[0, 0, 10, 10]], [1.5], None, ValueError, r"scores must be in \[0, 1\]"),
        ([[10, 0, 0, 10]], [0.9], None, ValueError, "xyxy row 0 has x2 < x1"),
        ([[5, 5, 5, 10]], [0.9], None, ValueError, "zero width or height"),
        ([["a", "b", "c", "d"]], [0.9], None, TypeError, "xyxy must be a real-valued numeric array"),
        ([[0, 0, 10, 10]], [0.9], [1.5], TypeError, "class_ids must be an integer array"),
        ([[0, 0, 10, 10]], [0.9], [2**40], ValueError, "class_ids has values that do not fit in int32"),
        ([[0, 0, 10, 10]], [0.9], [1, 2], ValueError, r"class_ids must have shape \(N,\)"),
    ],
)
def test_bad_input_raises_and_keeps_state(xyxy, scores, classes, error, match):
    tracker = ByteTracker()
    tracker.update([[100, 100, 140, 180]], [0.9])
    with pytest.raises(error, match=match):
        tracker.update(xyxy, scores, classes)
    assert tracker.frame_id == 1  # a rejected frame does not advance the tracker
    assert tracker.update([[101, 101, 141, 181]], [0.9]).track_id.tolist() == [1]


def test_empty_frames_are_fine():
    tracker = ByteTracker()
    for _ in range(3):
        assert len(tracker.update(np.empty((0, 4), np.float32), np.empty(0, np.float32))) == 0


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"high_conf_det_threshold": 1.5}, "high_conf_det_threshold must be in"),
        ({"low_conf_det_threshold": 0.7, "high_conf_det_threshold": 0.5}, "must not exceed"),
        ({"lost_track_buffer": -1}, "lost_track_buffer must be >= 0"),
        ({"frame_rate": 0}, "frame_rate must be > 0"),
        ({"minimum_iou_threshold": float("nan")}, "minimum_iou_threshold must be in"),
        ({"appearance_gate": -1.0}, "appearance_gate must be >= 0"),
        ({"appearance_threshold": 1.5}, r"appearance_threshold must be in \[-1, 1\]"),
    ],
)
def test_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ByteTracker(**kwargs)
