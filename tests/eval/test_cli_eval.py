"""``edge-agent eval``: identity on MOT sequences, worlds, benchmarks, with clear errors."""

from __future__ import annotations

import json

import pytest
from helpers.shared import data, model
from helpers.worlds import tiny_things

from edge_agent.cli import main
from edge_agent.demo import write_demo_scene
from edge_agent.eval.worldeval import format_table


def test_eval_identity_json(tmp_path, capsys):
    day1, day2 = write_demo_scene(tmp_path / "scene", seconds=4.0, fps=4.0)
    assert (
        main(
            [
                "--home",
                str(tmp_path / "home"),
                "eval",
                "identity",
                "--mot",
                str(day1),
                str(day2),
                "--json",
                "--models",
                str(tmp_path / "no-models"),
            ]
        )
        == 0
    )
    result = json.loads(capsys.readouterr().out)
    assert set(result["sequences"]) == {"day1", "day2"} and "identity" in result["sequences"]["day1"]
    assert {
        "pairwise_precision",
        "pairwise_recall",
        "pairwise_f1",
        "false_merge_rate",
        "bcubed_precision",
        "bcubed_recall",
        "bcubed_f1",
    } <= set(result["identity"])


def test_eval_errors_are_named(tmp_path, capsys):
    assert main(["eval", "world", str(tmp_path / "missing.json")]) == 1
    assert "scenario file not found" in capsys.readouterr().err
    (tmp_path / "bad.json").write_text('{"name": "x", "entities": [{"id": "p", "category": "person"}], "days": -1}')
    assert main(["eval", "world", str(tmp_path / "bad.json")]) == 1
    assert "days" in capsys.readouterr().err
    (tmp_path / "ok.json").write_text('{"name": "x", "entities": [{"id": "p", "category": "person"}]}')
    assert main(["eval", "world", str(tmp_path / "ok.json"), "--ablation", "no-such"]) == 1
    assert "unknown ablation(s) no-such" in capsys.readouterr().err
    assert main(["eval", "identity", "--mot", str(tmp_path)]) == 1
    assert "seqinfo.ini" in capsys.readouterr().err


def test_eval_bench_counts_and_needs_videos(tmp_path, capsys):
    robot = data("annotations") / "robot.json"
    assert main(["eval", "bench", "m3-bench", str(robot), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["videos"] == 100 and summary["questions"] > 1000
    assert main(["eval", "bench", "m3-bench", str(robot), "--videos", str(tmp_path), "--limit", "1"]) == 1
    assert "not found" in capsys.readouterr().err


def test_eval_bench_end_to_end_on_a_generated_video(tmp_path, capsys, embedder):
    """M3-Bench format, a recording made from the demo scene: ingested, asked as of the question time, scored."""
    import cv2

    day1, _ = write_demo_scene(tmp_path / "scene", seconds=6.0, fps=4.0)
    video = tmp_path / "videos" / "robot" / "kitchen_01.mp4"
    video.parent.mkdir(parents=True)
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"mp4v"), 4.0, (640, 360))
    for image in sorted((day1 / "img1").glob("*.jpg")):
        writer.write(cv2.imread(str(image)))
    writer.release()
    questions = {
        "kitchen_01": {
            "video_path": "data/videos/robot/kitchen_01.mp4",
            "mem_path": "x.pkl",
            "qa_list": [
                {
                    "question": "What colour is the cup with stripes?",
                    "answer": "red",
                    "question_id": "kitchen_01_Q01",
                    "reasoning": "",
                    "timestamp": "00:05",
                    "type": ["Object"],
                    "before_clip": 0,
                },
                {
                    "question": "What is on the counter?",
                    "answer": "a cup",
                    "question_id": "kitchen_01_Q02",
                    "reasoning": "",
                    "timestamp": "00:06",
                    "type": ["Object"],
                    "before_clip": 0,
                },
            ],
        }
    }
    annotations = tmp_path / "robot.json"
    annotations.write_text(json.dumps(questions))
    assert (
        main(
            [
                "--home",
                str(tmp_path / "home"),
                "eval",
                "bench",
                "m3-bench",
                str(annotations),
                "--videos",
                str(tmp_path / "videos"),
                "--json",
                "--models",
                str(tmp_path / "no-models"),
            ]
        )
        == 0
    )
    result = json.loads(capsys.readouterr().out)
    assert result["questions"] == 2 and result["videos"] == 1 and result["total"] == 2 and result["answered"] == 2
    assert 0.0 <= result["accuracy"] <= 1.0 and result["ingest_s"] > 0


def test_eval_identity_per_person_across_days_with_and_without_faces(tmp_path, capsys):
    """A small people world (two people in another colour each day, faces drawn): per person, with faces and with
    body appearance alone."""
    scenario = {
        "name": "two-people",
        "days": 2,
        "camera": {"kind": "fixed", "width": 480, "height": 270, "fps": 10},
        "places": ["hall", "table", "door"],
        "entities": [
            {"id": "ann", "category": "person", "outfits": ["red", "blue"], "named": True},
            {"id": "bob", "category": "person", "outfits": ["blue", "red"]},
            {"id": "keys", "category": "keys", "color": "silver"},
        ],
        "episodes_per_day": 3,
        "episode_seconds": [12, 16],
        "faces": 0.6,
        "questions_per_day": 2,
    }
    path = tmp_path / "two-people.json"
    path.write_text(json.dumps(scenario))
    argv = ["--home", str(tmp_path / "home"), "eval", "identity", "--world", str(path), "--seed", "0"]
    assert main([*argv, "--models", str(tmp_path / "no-models")]) == 0
    out = capsys.readouterr().out
    assert "with faces" in out and "body alone" in out and "seed 0 faces ann" in out and "seed 0 body  ann" in out
    assert main([*argv, "--json", "--models", str(tmp_path / "no-models")]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["models"]["faces"] == "face:drawn_4x4" and set(result["per_seed"][0]["people"]) <= {"ann", "bob"}
    assert result["people_identity"]["bcubed_f1"] >= result["ablations"]["no-faces"]["people_identity"]["bcubed_f1"]


def test_eval_world_with_the_default_detector_and_the_change_finder(tmp_path, capsys):
    models = model("yolox_nano.onnx").parent
    scenario = tiny_things(tmp_path, episodes_per_day=2)
    argv = ["--home", str(tmp_path / "home"), "eval", "world", str(scenario), "--models", str(models)]
    assert main([*argv, "--seed", "0", "--detector", "auto", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["detector"] == "auto" and "yolox" in result["models"]["detector"]
    run = result["per_seed"][0]
    assert run["moves"]["puts"] >= 1 and run["moves"]["takes"] >= 1
    assert set(run["perception"]["boxes_found"]) == {"keys", "wallet", "alice"}
    assert 0.0 <= result["evidence_recall"] <= 1.0 and 0.0 <= result["accuracy"] <= 1.0
    assert "detector auto" in format_table(result).splitlines()[0]


def test_eval_world_refuses_an_unknown_detector(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["eval", "world", "things-moved", "--detector", "yolo"])
    assert exit_.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert "--detector" in error and "invalid choice: 'yolo'" in error and "gt" in error and "auto" in error
