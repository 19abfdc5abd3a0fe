"""``eval identity``: entities against true track ids on MOT sequences (the generated demo scene here;
MOT17-mini from ../shared where present)."""

from __future__ import annotations

from helpers.shared import data, model, shared_models

from edge_agent.config import load_config
from edge_agent.demo import write_demo_scene
from edge_agent.eval.groundtruth import GroundTruth
from edge_agent.eval.identity import evaluate_mot, format_table


def test_demo_scene_identity(tmp_path):
    day1, day2 = write_demo_scene(tmp_path / "scene", seconds=6.0, fps=4.0)
    result = evaluate_mot(
        [day1, day2], load_config(None, detector={"type": "gt"}), tmp_path / "no-models", frames_per_clip=8
    )
    assert set(result["sequences"]) == {"day1", "day2"}
    assert result["identity"]["items"] > 0 and result["identity"]["false_merge_rate"] == 0.0
    assert "overall" in format_table(result)


def test_labels_need_overlap(tmp_path):
    import numpy as np

    gt = GroundTruth()
    gt.add("cam", 1000, np.array([[0, 0, 10, 10], [50, 50, 60, 60]]), ["a", "b"])

    class FakeStore:
        def observation_boxes(self, camera):
            return {
                1: (np.array([1000]), np.array([[1, 1, 10, 10]], np.float32)),  # overlaps a
                2: (np.array([1000]), np.array([[20, 20, 30, 30]], np.float32)),  # overlaps nothing
                3: (np.array([999]), np.array([[50, 50, 60, 61]], np.float32)),
            }  # b, a millisecond off

    assert gt.label_observations(FakeStore()) == {1: "a", 3: "b"}


def test_mot17_mini_with_osnet():
    model("osnet_x0_25_msmt17.onnx")
    sequences = sorted(p for p in data("mot17-mini").iterdir() if p.is_dir())
    result = evaluate_mot(
        sequences, load_config(None, detector={"type": "gt", "min_visibility": 0.25}), shared_models()
    )
    assert result["backends"]["embedder.person"].startswith("reid:osnet")
    assert result["identity"]["pairwise_f1"] >= 0.95 and result["identity"]["false_merge_rate"] <= 0.01
    assert {"MOT17-02-FRCNN", "MOT17-04-FRCNN", "MOT17-05-FRCNN"} <= set(result["sequences"])
