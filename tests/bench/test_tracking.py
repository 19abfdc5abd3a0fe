"""``edge-agent bench tracking``: degraded TUD trajectories, scored by motmetrics where the [bench] extra is
installed; a clear error where it is not."""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest

from edge_agent.bench import tracking
from edge_agent.cli import main

HAVE_MOTMETRICS = importlib.util.find_spec("motmetrics") is not None


def _walkers(frames: int = 200, people: int = 20) -> dict[int, list[tuple[int, np.ndarray]]]:
    return {
        f: [(i, np.array([10.0 * i + f, 100.0, 10.0 * i + f + 50, 220.0])) for i in range(people)]
        for f in range(1, frames + 1)
    }


def test_degraded_detections_miss_a_tenth_jitter_and_add_false_positives():
    sequence = tracking.degrade("walkers", _walkers(), step=1, seed=0)
    truths = sum(len(ids) for ids, _ in sequence.truth)
    detections = sum(len(scores) for _, scores in sequence.detections)
    assert truths == 4000 and sequence.fps == tracking.FPS
    # about 10% missed, about 0.5 false positives a frame: 3600 + 100 expected
    assert 3550 <= detections <= 3850
    for xyxy, scores in sequence.detections:
        assert xyxy.dtype == np.float32 and np.all(xyxy[:, 2:] > xyxy[:, :2])
        assert np.all((scores >= 0.1) & (scores <= 0.95))
    assert tracking.degrade("walkers", _walkers(), step=1, seed=0).detections[5][0].tolist() == (
        sequence.detections[5][0].tolist()
    )  # seeded


def test_subsampling_keeps_every_step_th_frame_at_the_lower_rate():
    sequence = tracking.degrade("walkers", _walkers(), step=12, seed=1)
    assert len(sequence.truth) == 17 and sequence.fps == pytest.approx(25 / 12)
    later = tracking.degrade("walkers", _walkers(), step=12, seed=1, offset=5)
    assert len(later.truth) == 17 and later.truth[0][1][0].tolist() == [6.0, 100.0, 56.0, 220.0]  # from frame 6


def test_the_official_port_is_measured_where_an_older_supervision_has_it(monkeypatch):
    """supervision's ByteTrack (0.25 and before) is called with our thresholds and its ids read back; a
    supervision without it (the pinned one) gives no row."""
    import types

    made = {}

    class Detections:
        def __init__(self, xyxy, confidence, class_id):
            self.xyxy, self.confidence, self.class_id, self.tracker_id = xyxy, confidence, class_id, None

    class ByteTrack:
        def __init__(self, **kwargs):
            made.update(kwargs)

        def update_with_detections(self, detections):
            detections.tracker_id = np.arange(1, len(detections.xyxy) + 1)
            return detections

    monkeypatch.setitem(sys.modules, "supervision", types.SimpleNamespace(ByteTrack=ByteTrack, Detections=Detections))
    update = tracking._official(0.1, 25 / 12)
    assert update is not None
    ids, boxes = update(np.array([[0, 0, 10, 20], [5, 5, 15, 25]], np.float32), np.array([0.9, 0.4], np.float32))
    assert ids.tolist() == [1, 2] and boxes.shape == (2, 4)
    assert made["minimum_matching_threshold"] == pytest.approx(0.9) and made["frame_rate"] == 2
    assert made["track_activation_threshold"] == 0.5 and made["minimum_consecutive_frames"] == 1
    monkeypatch.setitem(sys.modules, "supervision", types.SimpleNamespace(Detections=Detections))
    assert tracking._official(0.1, 2.0) is None


def test_without_motmetrics_the_benchmark_says_what_to_install(capsys, monkeypatch):
    monkeypatch.setattr(tracking, "_data_folder", lambda: None)  # as where the [bench] extra is not installed
    assert main(["bench", "tracking", "--seed", "0"]) != 0
    assert "pip install -e '.[bench]'" in capsys.readouterr().err


@pytest.mark.skipif(not HAVE_MOTMETRICS, reason="motmetrics (the [bench] extra) is not installed")
def test_tracking_benchmark_scores_every_tracker_at_both_rates():
    result = tracking.run(seeds=[0], rates=[25.0, 2.0])
    native = [r for r in result["rows"] if r["tracker"] == "edge-agent ByteTrack"]
    assert [r["fps"] for r in native] == [25.0, pytest.approx(25 / 12)]
    assert native[0]["mota"] > 0.7 and native[0]["idf1"] > 0.7  # 25 fps: most people followed
    assert "MOTA" in tracking.format_table(result)
