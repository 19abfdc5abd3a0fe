"""End to end on the generated scenario: capture -> ground-truth detector -> native tracker ->
embeddings -> descriptions -> memory with association, through the edge-agent command."""

from __future__ import annotations

import json

import pytest

from edge_agent.cli import main
from edge_agent.demo import write_demo_scene
from edge_agent.memory import Store


@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    return write_demo_scene(tmp_path_factory.mktemp("scene"), seconds=12, fps=4)


def ingest(capsys, home, day, start, *extra):
    code = main(
        ["--home", str(home), "ingest", str(day), "--detector", "gt", "--start", start, "--json", "--quiet", *extra]
    )
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out)


def test_lookalikes_over_two_days(tmp_path, capsys, scene):
    day1, day2 = scene
    home = tmp_path / "home"
    first = ingest(capsys, home, day1, "2026-03-02T08:00:00+00:00")
    assert (
        first["clips"] == 2 and first["new_entities"] == 3 and first["backends"]["detector"].startswith("ground truth")
    )
    assert set(first["stage_ms"]) == {
        "decode",
        "detect",
        "changes",
        "track",
        "embed",
        "faces",
        "describe",
        "write",
        "rules",
        "speech",
    }
    second = ingest(capsys, home, day2, "2026-03-03T08:00:00+00:00")
    assert second["new_entities"] == 0 and second["observations"] >= 2
    with Store(home) as store:
        cups = [e for e in store.entities() if e.category == "cup"]
        assert len(cups) == 2
        striped = max(cups, key=lambda e: e.last_seen)
        days = {int(o.t_start // 86400) for o in store.observations(striped.id)}
        assert len(days) == 2  # the striped mug: one entity across both days
        plain = min(cups, key=lambda e: e.last_seen)
        assert all(o.t_start < striped.last_seen - 3600 for o in store.observations(plain.id))
        obs = store.observations(striped.id)[0]
        assert "red cup" in obs.description and store.media_path(obs.crop_path).is_file()
        clip = store.clip(obs.clip_id)
        assert clip.keyframes and store.media_path(clip.keyframes[0]).is_file()
        assert store.clip_captions()[0][2].startswith("day1: 2 cups")
    # Running the same recording again resumes: nothing is redone or duplicated.
    again = ingest(capsys, home, day1, "2026-03-02T08:00:00+00:00")
    assert again["clips"] == 0 and again["clips_skipped"] == 2 and again["observations"] == 0


def test_bad_inputs_are_named(tmp_path, capsys, scene):
    home = tmp_path / "home"
    cases = [
        (["ingest", str(tmp_path / "none.mp4")], "no such source"),
        (["ingest", str(scene[0]), "--start", "yesterday"], "--start must be an ISO 8601 time"),
        (["ingest", str(scene[0] / "img1"), "--detector", "gt"], "needs a MOT-format sequence"),
        (["ingest", str(scene[0]), "--detector", "yolox", "--models", str(tmp_path)], "detector model not found"),
    ]
    for argv, message in cases:
        assert main(["--home", str(home), *argv]) == 1
        assert message in capsys.readouterr().err
    config = tmp_path / "edge-agent.toml"
    config.write_text("[capture]\nclip_secs = 5\n")
    assert main(["--home", str(home), "ingest", str(scene[0]), "--config", str(config)]) == 1
    assert "capture.clip_secs: Extra inputs are not permitted" in capsys.readouterr().err


def test_demo_command(tmp_path, capsys):
    assert main(["demo", str(tmp_path / "d")]) == 0
    assert capsys.readouterr().out.split() == [str(tmp_path / "d" / "day1"), str(tmp_path / "d" / "day2")]


def test_vlm_describer_gets_the_memory_of_the_proposed_entity(tmp_path, scene):
    """Context-enhanced perception: on day 2 the describer is told which entity the mug probably is."""
    from edge_agent.capture import open_source
    from edge_agent.config import load_config
    from edge_agent.ingest import Pipeline
    from edge_agent.perception.backends import build_backends
    from edge_agent.perception.describe import LlamaVLMDescriber

    class Recorder:
        def __init__(self):
            self.requests = []

        def create_chat_completion(self, messages, max_tokens, temperature, response_format=None):
            self.requests.append(messages[1]["content"][-1]["text"])
            said = {"sentence": "a red mug with white stripes", "colours": ["red", "white"], "pattern": "striped"}
            return {"choices": [{"message": {"content": json.dumps(said) if response_format else "a kitchen"}}]}

    config = load_config(detector={"type": "gt"})
    llm = Recorder()
    with Store(tmp_path / "home") as store:
        for day, start in zip(scene, (0.0, 86400.0)):
            source = open_source(str(day), start=start)
            backends = build_backends(config, tmp_path, source)
            backends.describer = LlamaVLMDescriber("m", "p", llm=llm)
            Pipeline(store, backends, config).run(source, "kitchen")
        day2 = [r for r in llm.requests if "Memory note: probably entity" in r]
        assert day2 and "a red mug with white stripes" in day2[0]  # its last description came back as context
        stored = [o for e in store.entities() for o in store.observations(e.id)]
        assert {(o.description, o.colours, o.pattern) for o in stored} == {
            ("a red mug with white stripes", ("red", "white"), "striped")
        }
        assert all(o.motion and o.place and o.size for o in stored)  # measured, as the template does


def test_an_image_text_model_describes_places_where_one_is_configured(tmp_path, scene):
    """[places] image_text: a thing's surroundings (twice its width, half its height above and below) go through the
    model's image tower, and memory keeps those places apart from the model-free descriptor's (a stand-in model:
    no CLIP-style weights install offline)."""
    import numpy as np

    from edge_agent.capture import open_source
    from edge_agent.config import load_config
    from edge_agent.ingest import Pipeline
    from edge_agent.memory import places
    from edge_agent.perception.backends import build_backends
    from edge_agent.perception.detect import ModelError
    from edge_agent.perception.places import ImageTextPlaces

    class StandIn:
        space, dims = "stand-in", 4

        def __init__(self):
            self.shapes = []

        def embed_images(self, images):
            self.shapes += [i.shape[:2] for i in images]
            means = np.array([[*i.reshape(-1, 3).mean(axis=0), 40.0] for i in images], np.float32)
            return means / np.linalg.norm(means, axis=1, keepdims=True)

        def embed_texts(self, texts):
            raise AssertionError("places use the image tower only")

    config = load_config(detector={"type": "gt"})
    with pytest.raises(ModelError, match=r"\[places\] image_text: image-text model file not found"):
        build_backends(load_config(detector={"type": "opencv"}, places={"image_text": "nowhere"}), tmp_path)
    model = StandIn()
    with Store(tmp_path / "home") as store:
        source = open_source(str(scene[0]), start=0.0)
        backends = build_backends(config, tmp_path, source)
        backends.places = ImageTextPlaces(model)
        assert backends.summary()["places"] == "image-text:stand-in"
        Pipeline(store, backends, config).run(source, "kitchen")
        found = places.places(store.db)
        assert found and model.shapes  # the model saw the surroundings; memory grouped them into places
        spaces = {s for (s,) in store.db.query("SELECT DISTINCT space FROM places")}
        assert spaces == {"image-text:stand-in"}
        placed = [o for e in store.entities() for o in store.observations(e.id) if o.place_id is not None]
        assert placed and all(0.0 < o.place_score <= 1.0 for o in placed)
