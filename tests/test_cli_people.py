"""edge-agent people enroll|list|forget on the real faces the shared clips show: a child in 1.mp4, a woman in
2.avi. Enrolled from one frame each, each is recognised by face when the clips are ingested; forgetting one
leaves no face vector or face picture of her and her name nowhere."""

from __future__ import annotations

import json

import cv2
import pytest
from helpers.shared import data, model

pytest.importorskip("dlib", reason="dlib is not installed (pip install 'edge-agent[faces]')")
pytest.importorskip("face_recognition_models", reason="face-recognition-models is not installed ([faces] extra)")

from edge_agent.cli import main  # noqa: E402
from edge_agent.memory import Store  # noqa: E402


def _frame(video: str, index: int, path) -> str:
    cap = cv2.VideoCapture(str(data(f"video/{video}")))
    for _ in range(index):
        ok, image = cap.read()
        assert ok
    cv2.imwrite(str(path), image)
    return str(path)


def _run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_enroll_recognise_and_forget_people_on_real_faces(tmp_path, capsys):
    models = str(model("face_detection_yunet_2026may.onnx").parent)
    home = str(tmp_path / "home")
    common = ["--home", home, "--models", models]
    child, woman = _frame("1.mp4", 75, tmp_path / "child.png"), _frame("2.avi", 20, tmp_path / "woman.png")
    cup = _frame("cup.mp4", 30, tmp_path / "cup.png")

    code, out, _ = _run(capsys, "people", "enroll", "Baby", "--image", child, *common)
    assert code == 0 and "a new person" in out and "'Baby' not seen yet" in out
    code, _, err = _run(capsys, "people", "enroll", "Mei", "--image", woman, child, *common)
    assert code != 0 and "show different people" in err
    code, _, err = _run(capsys, "people", "enroll", "Mei", "--image", child, *common)
    assert code != 0 and "that face is 'Baby''s" in err
    code, _, err = _run(capsys, "people", "enroll", "Mei", "--image", cup, *common)
    assert code != 0 and "no face big, sharp and frontal enough" in err and "cup.png" in err
    code, _, err = _run(capsys, "people", "enroll", "Mei", "--image", str(tmp_path / "none.png"), *common)
    assert code != 0 and "cannot read" in err
    assert _run(capsys, "people", "enroll", "Mei", "--image", woman, *common)[0] == 0

    for video, camera in (("1.mp4", "nursery"), ("2.avi", "kitchen")):
        assert _run(capsys, "ingest", str(data(f"video/{video}")), "--camera", camera, *common)[0] == 0
    code, out, _ = _run(capsys, "people", "list", "--json", *common)
    named = {p["entity"]["name"]: p for p in json.loads(out)}
    assert named["Baby"]["entity"]["observations"] >= 1 and named["Mei"]["entity"]["observations"] >= 1
    assert named["Mei"]["faces"] > named["Mei"]["enrolled"] == 1  # her faces in 2.avi were kept beside the picture

    code, out, err = _run(capsys, "people", "forget", "Mei", *common)
    assert code == 3 and "Not forgotten yet: add --yes" in out and not err  # no terminal asked: nothing done, no error
    code, out, _ = _run(capsys, "people", "forget", "mei", "--yes", *common)
    assert code == 0 and "forgot who 'mei' is" in out
    with Store(home, mode="read") as store:
        mei = named["Mei"]["entity"]["id"]
        assert store.entity(mei).name is None
        assert store.db.value("SELECT count(*) FROM face_refs WHERE entity_id = ?", (mei,)) == 0
        assert (
            store.db.value(
                "SELECT count(*) FROM observation_faces f JOIN observations o ON o.id = f.observation_id "
                "WHERE o.entity_id = ?",
                (mei,),
            )
            == 0
        )
        assert all(o.crop_path is None for o in store.observations(mei))
        assert store.search_text("mei") == []
    code, out, _ = _run(capsys, "people", "list", *common)
    assert "Baby" in out and "Mei" not in out
