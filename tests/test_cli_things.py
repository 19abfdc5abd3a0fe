"""edge-agent things enroll|list|forget: a thing enrolled from a photo is the entity a later observation that looks like
it joins (GEB's two thresholds against the enrolled looks), a thing that looks otherwise is not; questions and rules
read it by name."""

from __future__ import annotations

import json

import cv2
import numpy as np
from helpers.memory import clip, near, observation

from edge_agent.cli import main
from edge_agent.memory import Store
from edge_agent.memory.associate import with_enrolled
from edge_agent.perception.embed import ColorTextureEmbedder, observation_embedding

SPACE = ColorTextureEmbedder.space


def _run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _photo(path) -> np.ndarray:
    """A yellow key ring on a grey table, drawn."""
    image = np.full((160, 200, 3), 90, np.uint8)
    cv2.circle(image, (100, 80), 40, (0, 200, 230), 12)
    cv2.rectangle(image, (120, 70), (190, 90), (40, 180, 210), -1)
    cv2.imwrite(str(path), image)
    return cv2.imread(str(path))


def test_enrolled_thing_is_joined_by_its_look_listed_asked_and_forgotten(tmp_path, capsys):
    home = str(tmp_path / "home")
    image = _photo(tmp_path / "keys.jpg")
    # the category said: the detector, where its model is at hand, may call the drawing anything (a stop sign)
    enroll = ["things", "enroll", "keys", "--image", str(tmp_path / "keys.jpg"), "--category", "cup"]
    code, out, _ = _run(capsys, "--home", home, *enroll)
    assert code == 0 and "a new thing" in out and "'keys' not seen yet" in out
    with Store(home) as store:
        # the look enrolled (the photo, or the thing the detector boxed in it where the models are at hand)
        look = np.frombuffer(store.db.value("SELECT embedding FROM thing_refs"), np.float32)
        assert look.shape == observation_embedding(ColorTextureEmbedder(), [image]).shape
        seen = store.ingest_clip(clip(100.0), [observation(1, 100.0, [0, 0, 40, 40], look, space=SPACE)])
        other = store.ingest_clip(
            clip(200.0), [observation(1, 200.0, [0, 0, 40, 40], near(look, 0.3, seed=1), space=SPACE)]
        )
        keys = store.entities_named("keys")
        assert [d.entity_id for d in seen.decisions] == keys and not seen.decisions[0].created_entity
        assert other.decisions[0].created_entity and other.decisions[0].entity_id not in keys
        assert store.entity(keys[0]).first_seen == 100.0
    code, out, _ = _run(capsys, "--home", home, "things", "list", "--json")
    (listed,) = json.loads(out)
    assert listed["references"] == 1 and listed["seen"] == 1 and listed["last_camera"] == "kitchen"
    code, out, _ = _run(capsys, "--home", home, "ask", "where are my keys?")
    assert code == 0 and "'keys'" in out and "kitchen" in out
    code, out, _ = _run(capsys, "--home", home, "rules", "add", "tell me if my keys are not seen for 2 hours")
    assert f'"entity_id":{keys[0]}' in out and '"relation":"absent"' in out
    code, out, _ = _run(capsys, "--home", home, "things", "forget", "keys")
    assert code == 3 and "add --yes" in out
    code, out, _ = _run(capsys, "--home", home, "things", "forget", "keys", "--yes")
    assert code == 0 and "1 enrolled look removed" in out
    with Store(home, mode="read") as store:
        assert not store.entities_named("keys") and not store.db.value("SELECT count(*) FROM thing_refs")
    assert _run(capsys, "--home", home, "things", "list")[1].strip() == "no thing is named yet"


def test_enroll_refuses_in_one_line(tmp_path, capsys):
    home = str(tmp_path / "home")
    code, _, err = _run(capsys, "--home", home, "things", "enroll", "keys", "--image", str(tmp_path / "none.jpg"))
    assert code == 1 and err.strip().count("\n") == 0 and "cannot read" in err
    _photo(tmp_path / "keys.jpg")
    with Store(home) as store:
        store.db.execute(
            "INSERT INTO entities (kind, category, name, first_seen, last_seen, created_at) "
            "VALUES ('person', 'person', 'Alice', 0, 0, 0)"
        )
    code, _, err = _run(capsys, "--home", home, "things", "enroll", "alice", "--image", str(tmp_path / "keys.jpg"))
    assert code == 1 and err.strip().count("\n") == 0 and "already names a person" in err
    assert _run(capsys, "--home", home, "things", "forget", "keys")[0] == 1


def test_enrolled_looks_admit_a_thing_its_observed_references_do_not():
    rows = [(1, False, 0.2, 0.5, 0.4), (2, True, 0.8, 0.9, 0.85)]
    out = with_enrolled(rows, {1: (True, 0.8, 0.95, 0.9), 3: (True, 0.7, 0.9, 0.8)})
    assert out == [(1, True, 0.8, 0.95, 0.9), (2, True, 0.8, 0.9, 0.85), (3, True, 0.7, 0.9, 0.8)]
    assert with_enrolled(rows, {}) == rows


def test_a_photo_is_cut_to_the_thing_the_detector_boxes_in_it(tmp_path, capsys):
    """cup.mp4's bottle photographed with the hand holding it (a third of the photo): the enrolled look is the
    bottle's box, as a later sighting's crop is, not the wall around it (0.99 against 0.90 like a later crop)."""
    from helpers.shared import data, model

    from edge_agent.capture.frames import Frame
    from edge_agent.perception.detect import YOLOXDetector
    from edge_agent.perception.observe import crop

    models = model("yolox_nano.onnx").parent
    video = cv2.VideoCapture(str(data("video/cup.mp4")))
    frames = [video.read()[1] for _ in range(196)]
    cv2.imwrite(str(tmp_path / "bottle.jpg"), frames[0][40:460, 180:560])
    home = str(tmp_path / "home")
    argv = [
        "--home",
        home,
        "--models",
        str(models),
        "things",
        "enroll",
        "bottle",
        "--image",
        str(tmp_path / "bottle.jpg"),
    ]
    code, out, _ = _run(capsys, *argv, "--json")
    assert code == 0 and json.loads(out)["entity"]["category"] == "cell phone"  # what YOLOX calls it
    later = frames[195]
    found = YOLOXDetector(models / "yolox_nano.onnx").detect(Frame(0, 0.0, later))
    k = max((i for i in range(len(found)) if found.category(i) == "cell phone"), key=lambda i: found.confidence[i])
    seen = observation_embedding(ColorTextureEmbedder(), [crop(later, found.xyxy[k])])
    with Store(home, mode="read") as store:
        (blob,) = store.db.query("SELECT embedding FROM thing_refs")[0]
    assert float(np.frombuffer(blob, np.float32) @ seen) >= 0.97
