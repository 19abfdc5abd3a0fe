"""Synthetic worlds: scenario files load (EVAL.md's format, extensions optional), the script is
deterministic per seed with answerable questions, and a tiny world runs end to end through the real
pipeline with the key names results are compared by."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from edge_agent.config import load_config
from edge_agent.eval.world import ScenarioError, load_scenario, simulate

SCENARIOS = Path(__file__).resolve().parents[2] / "edge_agent" / "eval" / "scenarios"

TINY = {
    "name": "tiny-kitchen",
    "days": 1,
    "start": "2026-03-02T07:00:00",
    "camera": {"kind": "fixed", "width": 480, "height": 270, "fps": 10},
    "places": ["counter", "sink", "table", "door"],
    "entities": [
        {"id": "mug_striped", "category": "cup", "color": "red", "pattern": "stripes"},
        {"id": "mug_plain", "category": "cup", "color": "red", "pattern": "plain"},
        {"id": "keys", "category": "keys", "color": "silver"},
        {"id": "alice", "category": "person", "color": "blue"},
    ],
    "episodes_per_day": 3,
    "episode_seconds": [12, 16],
    "noise": {"miss_rate": 0.0, "jitter_px": 1, "false_positive_rate": 0.0, "fragment_rate": 0.0},
    "lighting_drift": 0.05,
    "questions_per_day": 5,
}


# TINY with a dog, a sofa and rules (seed 0 puts the dog on the sofa once), for the end-to-end run.
TINY_RULES = TINY | {
    "places": ["counter", "sink", "table", "sofa", "door"],
    "entities": TINY["entities"] + [{"id": "dog", "category": "dog", "color": "brown"}],
    "rules": [
        {"text": "notify me when the dog is on the sofa"},
        {"text": "tell me if the keys have not been seen for 2 hours"},
    ],
}


def _write(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    "name",
    [
        "kitchen-lookalikes",
        "kitchen-harder",
        "wearable-rooms",
        "wearable-away",
        "wearable-house",
        "living-room",
        "people-days",
        "things-moved",
    ],
)
def test_shipped_scenarios_load_and_simulate(name):
    scenario = load_scenario(SCENARIOS / f"{name}.json")
    world = simulate(scenario, seed=1)
    assert world.sessions and world.events and world.questions
    for q in world.questions:
        assert 0 <= q.answer_index < len(q.choices) and len(set(q.choices)) == len(q.choices)
        assert q.evidence and all(t0 < q.as_of for _, t0, _ in q.evidence)  # asked after what it is about
    if scenario.camera.kind == "wearable":
        wearer = scenario.people[0].id
        assert all(i != wearer for s in world.sessions for shown in s.boxes for i, _ in shown)


def test_shipped_scenarios_load_by_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert load_scenario("living-room").name == "living-room"
    shipped = (
        "kitchen-harder, kitchen-lookalikes, living-room, people-days, things-moved, wearable-away, wearable-house, "
        "wearable-rooms"
    )
    with pytest.raises(ScenarioError, match=f"shipped scenarios: {shipped}"):
        load_scenario("no-such-world")


def test_minimal_file_loads_with_defaults_and_ignores_unknown_keys(tmp_path):
    scenario = load_scenario(
        _write(tmp_path, {"name": "x", "entities": [{"id": "p", "category": "person"}], "future_key": 1})
    )
    assert (
        scenario.days == 1 and scenario.camera.kind == "fixed" and scenario.sample_fps == 2.0 and scenario.rules == []
    )
    with_rule = load_scenario(
        _write(
            tmp_path,
            {
                "name": "x",
                "entities": [{"id": "p", "category": "person"}],
                "rules": [{"text": "notify me when someone is near the door"}],
            },
        )
    )
    assert with_rule.rules[0].cooldown_s == 600.0


@pytest.mark.parametrize(
    "bad, words",
    [
        ({"name": "x", "days": 0, "entities": [{"id": "p", "category": "person"}]}, "days"),
        ({"name": "x", "entities": [{"id": "m", "category": "cup"}]}, "person"),
        ({"name": "x", "entities": [{"id": "p", "category": "person"}, {"id": "p", "category": "person"}]}, "repeat"),
        ({"name": "x", "camera": {"kind": "drone"}, "entities": [{"id": "p", "category": "person"}]}, "camera.kind"),
        (
            {
                "name": "x",
                "entities": [{"id": "p", "category": "person"}, {"id": "m", "category": "cup", "named": True}],
            },
            "'m': outfits, weight and named are for people",
        ),
        (
            {
                "name": "x",
                "entities": [{"id": "p", "category": "person"}],
                "rules": [{"text": "notify me when the dog is on the bed"}],
            },
            r"rules\[0\]: no place or thing 'bed' in the scenario \(places: counter, sink",
        ),
        (
            {"name": "x", "entities": [{"id": "p", "category": "person"}], "rules": [{"text": "the dog"}]},
            r"rules\[0\]: no relation",
        ),
        (
            {"name": "x", "entities": [{"id": "p", "category": "person"}], "question_kinds": ["riddle"]},
            "question_kinds: unknown",
        ),
        (
            {
                "name": "x",
                "entities": [{"id": "p", "category": "person"}, {"id": "c", "category": "cup", "perch": "sofa"}],
            },
            "perch is for an animal",
        ),
        (
            {
                "name": "x",
                "entities": [{"id": "p", "category": "person"}, {"id": "d", "category": "dog", "perch": "roof"}],
            },
            "perch is for an animal",
        ),
        ({"name": "x", "entities": [{"id": "p", "category": "person"}], "outings": 0.5}, "outings: only a worn camera"),
        (
            {
                "name": "x",
                "entities": [{"id": "p", "category": "person"}],
                "rules": [{"text": "dog on sofa", "cooldown_s": -1}],
            },
            "cooldown_s",
        ),
    ],
)
def test_bad_scenarios_are_named(tmp_path, bad, words):
    with pytest.raises(ScenarioError, match=words):
        load_scenario(_write(tmp_path, bad))


def test_same_seed_same_world_other_seed_other_world():
    scenario = load_scenario(SCENARIOS / "kitchen-lookalikes.json")
    a, b, c = simulate(scenario, 3), simulate(scenario, 3), simulate(scenario, 4)
    assert a.events == b.events and a.questions == b.questions
    assert a.events != c.events


def test_world_on_disk_is_a_mot_sequence_the_gt_detector_replays(tmp_path):
    from edge_agent.perception.detect import GroundTruthDetector

    world = simulate(load_scenario(_write(tmp_path, TINY)), seed=0)
    paths = world.write(tmp_path / "world")
    assert len(paths) == 3 and (tmp_path / "world" / "questions.json").is_file()
    detector = GroundTruthDetector.from_mot(paths[0])
    assert set(detector.class_names) == {"cup", "keys", "person"}
    boxes, categories = detector._boxes_of(1)  # noqa: SLF001
    assert len(boxes) == len(world.sessions[0].boxes[0]) and len(categories) == len(boxes)
    frame = np.asarray(__import__("cv2").imread(str(paths[0] / "img1" / "000001.jpg")))
    assert frame.shape == (270, 480, 3)


def test_tiny_world_end_to_end(tmp_path):
    from edge_agent.eval.worldeval import evaluate_world, format_table

    scenario = load_scenario(_write(tmp_path, TINY_RULES))
    result = evaluate_world(
        scenario, load_config(None), tmp_path / "no-models", seeds=[0], ablations=["text-only", "no-identity-edges"]
    )
    for key in (
        "pairwise_precision",
        "pairwise_recall",
        "pairwise_f1",
        "false_merge_rate",
        "bcubed_precision",
        "bcubed_recall",
        "bcubed_f1",
    ):
        assert 0.0 <= result["identity"][key] <= 1.0
    assert set(result["ablations"]) == {"text-only", "no-identity-edges"}
    # Floors under what the tiny world scores (2026-12-03: evidence recall 1.0, accuracy 0.75 of 4 questions; the
    # alerts precision 1.0, recall 1.0): a change that costs a question or an alert here fails.
    assert result["evidence_recall"] >= 0.75 and result["accuracy"] >= 0.5
    assert result["per_seed"][0]["questions"] == len(simulate(scenario, 0).questions)
    # The look-alike mugs (striped, plain) are kept apart, each mostly one biography.
    assert result["identity"]["false_merge_rate"] <= 0.05 and result["identity"]["bcubed_f1"] >= 0.9
    # Rules: added before ingest, the resolver's alerts scored against the script's (the dog gets on the sofa).
    alerts = result["alerts"]
    assert [r["rule"] for r in alerts["rules"]] == [r["text"] for r in TINY_RULES["rules"]]
    assert alerts["overall"]["precision"] >= 0.99 and alerts["overall"]["recall"] >= 0.99
    sofa = alerts["rules"][0]
    assert sofa["events"] >= 1 and sofa["alerts"] >= 1 and sofa["matched"] >= 1 and sofa["delay_s"]["max"] <= 20.0
    assert result["per_seed"][0]["alerts"]["overall"]["events"] == alerts["overall"]["events"]
    assert all(a["alerts"] is None for a in result["ablations"].values())  # ablations do not run the rules
    assert "notify me when the dog is on the sofa" in format_table(result)


def test_text_only_baseline_groups_by_described_subject(tmp_path):
    from helpers.memory import clip, observation, said, unit

    from edge_agent.eval.worldeval import _TextGrouping
    from edge_agent.memory import Store

    texts = [
        said(colour="red", pattern="plain", zone="sink"),
        said(colour="red", pattern="plain", zone="table", motion="moving left", company=[("person", 1)]),
        said(colour="red", pattern="striped", zone="sink"),
        said("person", colour="blue", pattern="plain", zone="door", motion="moving right"),
    ]
    with Store(tmp_path / "home") as store:
        store.associator = _TextGrouping(store.db, store.config)
        entities = []
        for k, text in enumerate(texts):
            category, kind = ("person", "person") if text.text.startswith("a person") else ("cup", "object")
            decision = store.ingest_clip(
                clip(k * 100.0),
                [
                    observation(
                        1,
                        k * 100.0,
                        [0, 0, 40, 40],
                        unit(np.eye(32)[k]),
                        kind=kind,
                        category=category,
                        description=text,
                    )
                ],
            ).decisions[0]
            entities.append(decision.entity_id)
        # Two different embeddings, one description subject: one entity; the striped cup and the person: their own.
        assert entities[0] == entities[1] and len({entities[0], entities[2], entities[3]}) == 3


def test_world_does_not_depend_on_the_process_hash_seed(tmp_path):
    import os
    import subprocess
    import sys

    code = (
        "import hashlib, sys; from edge_agent.eval.world import load_scenario, simulate; "
        "w = simulate(load_scenario(sys.argv[1]), 2); "
        "print(hashlib.sha256(repr([s.boxes for s in w.sessions]).encode() + repr(w.questions).encode()).hexdigest())"
    )
    digests = {
        subprocess.run(
            [sys.executable, "-c", code, str(SCENARIOS / "kitchen-lookalikes.json")],
            capture_output=True,
            text=True,
            check=True,
            cwd=tmp_path,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2")
    }
    assert len(digests) == 1


def test_things_taken_out_are_unseen_until_brought_back_and_the_rest_of_the_script_is_the_same(tmp_path):
    from edge_agent.eval.alerts import true_alerts
    from edge_agent.eval.world import Scenario
    from edge_agent.rules.resolver import ResolverSettings

    plain = Scenario.model_validate(TINY | {"episodes_per_day": 12})
    away = Scenario.model_validate(
        TINY
        | {
            "episodes_per_day": 12,
            "away": {"keys": 0.5},
            "rules": [{"text": "tell me if the keys have not been seen for 20 seconds"}],
        }
    )
    a, b = simulate(plain, seed=1), simulate(away, seed=1)
    assert [s.t_start for s in a.sessions] == [s.t_start for s in b.sessions]
    assert not [e for e in a.events if e.kind in ("take_out", "bring_back")] and not true_alerts(a, ResolverSettings())
    out = [e.t for e in b.events if e.kind == "take_out"]
    back = [e.t for e in b.events if e.kind == "bring_back"]
    assert out and back
    for s in b.sessions:  # between leaving with them and coming back with them, no frame shows the keys
        gone = [t for t in out if t < s.t_start and not any(t < r < s.t_start for r in back)]
        if gone and not any(s.t_start <= r <= s.t_end for r in back):
            assert not s.visible("keys")
    for thing in ("mug_striped", "mug_plain"):  # what never leaves is seen as often as before
        assert sum(len(s.visible(thing)) > 0 for s in a.sessions) == sum(len(s.visible(thing)) > 0 for s in b.sessions)
    assert true_alerts(b, ResolverSettings())  # the keys' absence is an event to alert on
    with pytest.raises(ScenarioError, match="away: 'wallet'"):
        load_scenario(_write(tmp_path, TINY | {"away": {"wallet": 0.5}}))


def test_harder_imaging_changes_the_pixels_not_the_script():
    from edge_agent.eval.draw import _background, render_frame
    from edge_agent.eval.world import Scenario

    plain = Scenario.model_validate(TINY)
    harder = Scenario.model_validate(
        TINY | {"imaging": {"light_colour": 0.2, "light_gradient": 0.3, "blur": 1.0, "occlusion": 1.0}}
    )
    a, b = simulate(plain, seed=3), simulate(harder, seed=3)
    assert [s.boxes for s in a.sessions] == [s.boxes for s in b.sessions] and a.questions == b.questions
    assert all(s.tint == (1.0, 1.0, 1.0) and s.gradient == 0.0 for s in a.sessions)
    assert all(s.tint != (1.0, 1.0, 1.0) and s.gradient != 0.0 for s in b.sessions)

    def frame(world):
        session = world.sessions[0]
        shown = next(f for f, boxes in enumerate(session.boxes) if boxes)
        return render_frame(world, session, shown, _background(world, session.light), np.random.default_rng(0))

    assert np.array_equal(frame(a), frame(simulate(Scenario.model_validate(TINY | {"imaging": {}}), seed=3)))
    assert np.abs(frame(a).astype(int) - frame(b).astype(int)).mean() > 3  # another light, blurred, hands


def test_textured_world_keeps_the_script_and_its_boxes_fit_what_is_drawn():
    """Texture, shadows, the camera's distance and things' turns: the script (events, questions) is the same;
    the boxes follow each session's scale and turns, and each box is where the thing's pixels are."""
    from edge_agent.eval.draw import _background, render_frame
    from edge_agent.eval.world import Scenario

    plain = simulate(Scenario.model_validate(TINY), seed=3)
    textured = simulate(
        Scenario.model_validate(
            TINY | {"imaging": {"texture": "photo", "shadows": True, "scale": 0.3, "turn": 1.0, "light_gradient": 0.3}}
        ),
        seed=3,
    )
    assert plain.events == textured.events and plain.questions == textured.questions
    assert all(s.scale == 1.0 and not s.turns for s in plain.sessions)
    scales = {round(s.scale, 3) for s in textured.sessions}
    assert len(scales) == len(textured.sessions) and all(0.7 <= s <= 1.3 for s in scales)
    session = textured.sessions[0]
    keys_turn = session.turns["keys"]
    assert -1.0 <= keys_turn <= 1.0 and keys_turn != 0.0
    shown = next(f for f, boxes in enumerate(session.boxes) if any(i == "keys" for i, _ in boxes))
    box = dict(session.boxes[shown])["keys"]
    nominal = dict(plain.sessions[0].boxes[shown])["keys"]
    assert box[3] == pytest.approx(nominal[3])  # it stands where it stood
    assert box[2] - box[0] == pytest.approx((nominal[2] - nominal[0]) * session.scale * (1 - 0.4 * abs(keys_turn)))
    assert box[3] - box[1] == pytest.approx((nominal[3] - nominal[1]) * session.scale)
    background = _background(textured, session.light)
    image = render_frame(textured, session, shown, background, np.random.default_rng(0))
    x0, y0, x1, y1 = (int(round(v)) for v in box)
    inside = np.abs(image[y0 + 2 : y1 - 2, x0 + 2 : x1 - 2].astype(int) - background[y0 + 2 : y1 - 2, x0 + 2 : x1 - 2])
    assert inside.mean() > 20  # the keys are drawn in their box
    surface = background[int(textured.layout.floor) + 5 :, :]
    assert surface.std(axis=(0, 1)).mean() > 8  # the places' surfaces are textured, not flat fills


def test_textures_are_materials_named_deterministically_with_a_fallback(monkeypatch):
    from edge_agent.eval import texture

    a = texture.shade("cup:red", (36, 44))
    assert a.shape == (44, 36, 3) and 0.8 < float(a.mean()) < 1.2
    assert np.array_equal(a, texture.shade("cup:red", (36, 44)))  # look-alikes share a material
    assert not np.array_equal(a, texture.shade("cup:navy", (36, 44)))
    assert not np.array_equal(a, texture.shade("cup:red", (36, 44), turn=0.8))  # another side shows
    texture.material.cache_clear()
    monkeypatch.setattr(texture, "_photos", lambda: ())
    try:
        assert texture.source().startswith("procedural noise")
        noise = texture.shade("cup:red", (36, 44))
        assert noise.shape == (44, 36, 3) and float(noise.std()) > 0.02
    finally:
        texture.material.cache_clear()


def test_a_place_rule_on_a_worn_camera_is_scored_once_the_wearer_names_the_places(tmp_path):
    """Issue 43 item 2: a worn camera has no zones; the evaluation names the places memory learnt as the wearer would
    (``name_places``), and "the dog is on the sofa" is then read and scored: true where the dog truly stands at the
    sofa, fired where memory saw it at the place named sofa (seed 0: one episode, one alert, matched)."""
    from edge_agent.eval.worldeval import evaluate_world

    worn = TINY_RULES | {"camera": {"kind": "wearable", "width": 480, "height": 270, "fps": 10}}
    result = evaluate_world(load_scenario(_write(tmp_path, worn)), load_config(None), tmp_path / "m", seeds=[0])
    sofa = result["alerts"]["rules"][0]
    assert sofa["rule"] == "notify me when the dog is on the sofa"
    assert sofa["events"] >= 1 and sofa["matched"] == sofa["events"] == sofa["alerts"], sofa
    assert result["per_seed"][0]["places_named"] >= 1


def test_the_worn_house_goes_out_and_its_dog_gets_on_the_bed(tmp_path):
    """wearable-house (issue 43 item 5): sessions recorded outside show nothing of the home, and leave the script
    as it was; the dog's perch is the bed; the questions include the order of two things, how long and A-or-B."""
    scenario = load_scenario(SCENARIOS / "wearable-house.json")
    world = simulate(scenario, seed=0)
    outside = [s for s in world.sessions if not any(s.boxes)]
    assert outside and all(s.view_x[0] >= world.layout.outside_x for s in outside)
    assert {e.place for e in world.events if e.kind == "on"} == {"bed"}
    assert {q.kind for q in world.questions} >= {"first", "how_long", "either_place"}
    home = simulate(load_scenario(_write(tmp_path, scenario.model_dump() | {"outings": 0.0})), seed=0)
    assert len(home.sessions) == len(world.sessions) - len(outside)
    assert [(e.kind, e.subject, e.place) for e in home.events] == [(e.kind, e.subject, e.place) for e in world.events]
    first = next(q for q in world.questions if q.kind == "first")
    (a, a0, _), (b, b0, _) = first.evidence
    assert first.answer == first.choices[0 if a0 < b0 else 1] and a != b


@pytest.mark.slow
def test_the_worn_house_end_to_end(tmp_path):
    """wearable-house's first day, seed 0, through the real pipeline (issue 43 item 5), with floors just under what it
    scores (2026-12-03: accuracy 0.8 of 10 questions, evidence recall 1.0, false merges 0.35%, 13 places named; the
    dog on the bed 2 events, the keys unseen for a minute 1, every one alerted and no false alert): a change that
    costs the worn house a question, an alert or its look-alikes fails here."""
    from edge_agent.eval.worldeval import evaluate_world

    house = load_scenario(SCENARIOS / "wearable-house.json").model_dump() | {"days": 1}
    result = evaluate_world(load_scenario(_write(tmp_path, house)), load_config(None), tmp_path / "m", seeds=[0])
    run = result["per_seed"][0]
    assert run["questions"] >= 10 and result["accuracy"] >= 0.75 and result["evidence_recall"] >= 0.95
    assert result["identity"]["false_merge_rate"] <= 0.01 and run["places_named"] >= 10
    bed, keys = result["alerts"]["rules"]
    assert bed["rule"] == "alert me when the dog is on the bed" and bed["events"] >= 1
    assert keys["rule"] == "tell me if the keys have not been seen for 1 minute" and keys["events"] >= 1
    assert all(r["precision"] >= 0.99 and r["recall"] >= 0.99 for r in (bed, keys)), (bed, keys)


def test_the_wearer_names_each_place_once_as_it_becomes_clear(tmp_path):
    """Issue 43 item 2: the evaluation names a worn camera's places during the recording, after the session in which
    each became mostly one of the world's places, through ``places.name``; a place named is never named again."""
    from edge_agent.eval.worldeval import ingest_world, name_places, world_config
    from edge_agent.memory import Store, places

    worn = TINY_RULES | {"camera": {"kind": "wearable", "width": 480, "height": 270, "fps": 10}}
    scenario = load_scenario(_write(tmp_path, worn))
    world = simulate(scenario, seed=0)
    paths = world.write(tmp_path / "world")
    named: set[int] = set()
    after: list[dict[int, str | None]] = []
    with Store(tmp_path / "memory") as store:

        def name(gt):
            name_places(world, store, gt, named)
            after.append({p.id: p.name for p in places.places(store) if p.id in named})

        config = world_config(world, scenario, 0, load_config(None))
        ingest_world(world, scenario, paths, config, tmp_path / "models", store, name)
    assert len(after) == len(world.sessions) and named
    assert any(len(a) < len(after[-1]) for a in after)  # some places became clear later than others
    for before, later in zip(after, after[1:]):
        assert all(later[k] == v for k, v in before.items())  # named once, never renamed
