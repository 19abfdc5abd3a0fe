"""The script's puts and takes against memory, and the true boxes perception found (edge_agent.eval.moves), on a
tiny world of things outside COCO replayed from its true boxes; and how a world is perceived with each detector."""

from __future__ import annotations

from helpers.worlds import tiny_things

from edge_agent.config import load_config
from edge_agent.eval.moves import box_recall, score_moves
from edge_agent.eval.world import load_scenario, simulate
from edge_agent.eval.worldeval import ingest_world, world_config
from edge_agent.memory import Store


def test_moves_and_boxes_of_a_world_replayed_from_its_true_boxes(tmp_path):
    scenario = load_scenario(tiny_things(tmp_path))
    world = simulate(scenario, 0)
    config = world_config(world, scenario, 0, load_config(None))
    with Store(tmp_path / "memory") as store:
        gt, _ = ingest_world(world, scenario, world.write(tmp_path / "world"), config, tmp_path / "no-models", store)
        labels = gt.label_observations(store)
        moves = score_moves(world, store, labels)
        found = box_recall(world, store, labels)
    kinds = [e.kind for e in world.events]
    assert moves["puts"] == kinds.count("put_down") + kinds.count("bring_back") > 0
    assert moves["takes"] == kinds.count("pick_up") + kinds.count("take_out") > 0
    assert 0 <= moves["puts_recalled"] + moves["puts_seen_later"] <= moves["puts"]
    assert moves["takings_true"] <= moves["takings_kept"]
    assert moves["takes_recorded_by_actor"] <= moves["takes_recorded"]
    away = [t for t in moves["take_events"] if t["kind"] == "take_out"]  # carried out: memory kept who took them
    assert away and sum(t["by_actor"] for t in away) >= len(away) / 2, away
    assert [p["thing"] for p in moves["put_events"]] == [
        e.subject for e in world.events if e.kind in ("put_down", "bring_back")
    ]
    # The true boxes replayed without noise: every instance mostly found, each category's observations all of it.
    assert set(found["boxes_found"]) == {"keys", "wallet", "alice"}
    assert min(found["boxes_found"].values()) >= 0.5
    for seen in found["by_category"].values():
        assert seen["labelled"] == seen["observations"] and set(seen["instances"]) <= {"keys", "wallet", "alice"}


def test_world_config_per_detector(tmp_path):
    base = load_config(None)
    scenario = load_scenario(tiny_things(tmp_path))
    world = simulate(scenario, 0)
    replayed = world_config(world, scenario, 0, base)
    assert replayed.detector.type == "gt" and not replayed.changes.enabled
    detected = world_config(world, scenario, 0, base, "auto")
    assert detected.detector.type == "auto"
    assert detected.changes.applies(world.camera, moving=False)
    # A worn camera moves: never a change finder, whatever the detector.
    worn = load_scenario(tiny_things(tmp_path, camera={"kind": "wearable", "width": 480, "height": 270}))
    worn_world = simulate(worn, 0)
    worn_config = world_config(worn_world, worn, 0, base, "auto")
    assert worn_config.detector.type == "auto" and not worn_config.changes.enabled
    assert worn_config.tracker.moves(worn_world.camera)
