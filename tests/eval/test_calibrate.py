"""Calibration of identity: the multimodal observation embedding's arithmetic, thresholds proposed from labelled
observations at a false-merge rate, and the command on MOT17-mini."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers.memory import clip, observation, said, unit
from helpers.shared import data, model

from edge_agent.config import load_config
from edge_agent.eval.calibrate import Recording, calibrate, format_table
from edge_agent.perception.embed import Described


class Words:
    """A stand-in text embedder: one fixed unit vector per phrase."""

    space, dims = "text:words", 8

    def __init__(self):
        self.calls = 0

    def embed(self, texts):
        self.calls += 1
        return np.stack([unit(np.random.default_rng(sum(map(ord, t))).normal(size=self.dims)) for t in texts])


def test_the_joint_similarity_is_the_weighted_sum_of_its_parts():
    words = Words()
    joint = Described(words, {"object": 0.3})
    a, b = unit(np.r_[1.0, 0.2, 0.0, 0.1]), unit(np.r_[0.3, 1.0, 0.5, 0.0])
    ta, tb = words.embed(["red cup"])[0], words.embed(["blue cup"])[0]
    va, vb = joint.combine("object", a, "red cup"), joint.combine("object", b, "blue cup")
    assert np.linalg.norm(va) == pytest.approx(1.0, abs=1e-6)
    assert va @ vb == pytest.approx(0.7 * (a @ b) + 0.3 * (ta @ tb), abs=1e-6)
    assert joint.appearance_only("object", a) @ vb == pytest.approx(np.sqrt(0.7) * (a @ b), abs=1e-6)
    assert joint.space("object", "color-texture-v2") == "color-texture-v2+described:text:words@0.3"
    assert joint.space("person", "reid:osnet") == "reid:osnet" and joint.combine("person", a, "x") is a
    calls = words.calls
    joint.combine("object", b, "red cup")
    assert words.calls == calls  # a phrase is embedded once
    with pytest.raises(ValueError, match="weight of object"):
        Described(words, {"object": 1.0})


def _recording(name: str, seed: int) -> Recording:
    """Two look-alike red cups (A, B) and a blue one (C) over ten clips; appearance alone barely tells A from C
    under the day's light, the words do."""
    rng = np.random.default_rng(seed)
    base = {"A": unit(rng.normal(size=16)), "B": None, "C": None}
    base["B"] = unit(base["A"] + 0.9 * unit(rng.normal(size=16)))
    base["C"] = unit(base["A"] + 0.6 * unit(rng.normal(size=16)))
    colour = {"A": "red", "B": "red", "C": "blue"}
    clips, labels = [], {}
    for k in range(30):  # one cup a clip, never two together: nothing but similarity keeps them apart
        t, instance = 100.0 * k, "ABC"[(k + seed) % 3]  # another order in each recording
        vector = unit(base[instance] + 0.35 * unit(rng.normal(size=16)))
        record = observation(
            1, t, (100, 100, 140, 140), vector, description=said(colour=colour[instance], zone="shelf")
        )
        labels[("kitchen", int(record.frame_ms[0]), 1)] = instance
        clips.append((clip(t), [record], {}))
    return Recording(name, clips, labels)


def test_calibration_proposes_the_most_recall_under_the_false_merge_target():
    recordings = [_recording("a", 0), _recording("b", 1)]
    pairs = [(0.3, 0.5), (0.6, 0.8), (0.7, 0.85), (0.9, 0.95)]
    result = calibrate(
        recordings, "object", load_config(), text=Words(), weights=[0.0, 0.3], pairs=pairs, max_false_merges=0.01
    )
    assert len(result["rows"]) == 8 and result["observations"] == 60
    strict = next(r for r in result["rows"] if r["tau_low"] == 0.9 and r["weight"] == 0.0)
    assert strict["false_merge_rate"] == 0.0  # two recordings' entity #1 are not one entity, nor their cups A
    loose = next(r for r in result["rows"] if r["tau_low"] == 0.3 and r["weight"] == 0.0)
    assert loose["false_merge_rate"] > 0.01  # everything one entity
    best = result["proposal"]
    allowed = [r for r in result["rows"] if r["false_merge_rate"] <= 0.01]
    assert best["false_merge_rate"] <= 0.01 and best["pairwise_recall"] == max(r["pairwise_recall"] for r in allowed)
    assert result["spaces"]["0.3"] == ["test-appearance+described:text:words@0.3"]
    text = format_table(result)
    assert "[association.spaces]" in text and f"tau_low = {best['tau_low']:.2f}" in text


@pytest.mark.parametrize("kind", ["person"])
def test_the_command_on_mot17_mini(capsys, kind, tmp_path):
    from edge_agent.cli import main

    sequence = data("mot17-mini/MOT17-02-FRCNN")
    models = model("osnet_x0_25_msmt17.onnx").parent
    argv = ["--home", str(tmp_path / "home"), "--models", str(models), "calibrate", "identity", "--mot", str(sequence)]
    assert main([*argv, "--kind", kind, "--weights", "0", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["recordings"] == ["MOT17-02-FRCNN"] and result["kind"] == "person"
    best = result["proposal"]
    assert best["false_merge_rate"] <= 0.01 and best["pairwise_f1"] > 0.9
    assert result["spaces"]["0.0"] == ["reid:osnet_x0_25_msmt17"]
