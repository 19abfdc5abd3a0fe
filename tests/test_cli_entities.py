"""edge-agent entities list|show|merge|split|rename|forget on a memory built by the test."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from helpers.cli import run
from helpers.memory import DAY, clip, keys_taken_clip, near, observation, unit

from edge_agent.memory import Store
from edge_agent.memory.schema import SCHEMA_VERSION


@pytest.fixture
def home(tmp_path):
    mug = unit(np.r_[np.ones(4), np.zeros(28)])
    with Store(tmp_path / "home") as store:
        for d in range(3):
            store.ingest_clip(
                clip(d * DAY),
                [observation(1, d * DAY, [0, 0, 40, 40], near(mug, 0.97, seed=d), description=f"mug day {d}")],
            )
        store.ingest_clip(
            clip(5 * DAY), [observation(1, 5 * DAY, [0, 0, 40, 90], mug, kind="person", category="person")]
        )
    return tmp_path / "home"


def test_list_and_show(home, capsys):
    code, out, _ = run(capsys, "--home", home, "entities", "list", "--json")
    assert code == 0
    listed = json.loads(out)
    assert [(e["id"], e["kind"], e["observations"]) for e in listed] == [(2, "person", 1), (1, "object", 3)]
    code, out, _ = run(capsys, "--home", home, "entities", "list", "--kind", "object")
    assert code == 0 and out.startswith("#1") and "seen 3 times" in out
    code, out, _ = run(capsys, "--home", home, "entities", "show", 1)
    assert code == 0 and out.count("obs ") == 3 and "mug day 1" in out
    code, out, _ = run(capsys, "--home", home, "entities", "show", 1, "--json")
    shown = json.loads(out)
    assert [o["description"] for o in shown["observations"]] == ["mug day 0", "mug day 1", "mug day 2"]
    assert shown["references"] == [1, 2, 3]


def test_environment_variable_home(home, capsys, monkeypatch):
    monkeypatch.setenv("EDGE_AGENT_HOME", str(home))
    code, out, _ = run(capsys, "entities", "list", "--json")
    assert code == 0 and len(json.loads(out)) == 2


def test_rename_split_merge_forget(home, capsys):
    code, out, _ = run(capsys, "--home", home, "entities", "rename", 1, "coffee mug", "--json")
    assert code == 0 and json.loads(out)["name"] == "coffee mug"
    code, out, _ = run(capsys, "--home", home, "entities", "split", 1, 3, "--json")
    assert code == 0
    split = json.loads(out)
    assert split["entity"]["observations"] == 2 and split["new_entity"]["observations"] == 1
    new_id = split["new_entity"]["id"]
    code, _, err = run(capsys, "--home", home, "entities", "merge", 1, new_id)
    assert code == 1 and "not the same" in err
    code, out, _ = run(capsys, "--home", home, "entities", "merge", 1, new_id, "--force")
    assert code == 0 and "merged" in out
    code, out, err = run(capsys, "--home", home, "entities", "forget", 1)
    assert code == 3 and "--yes" in out and not err  # no terminal to ask on: shown, nothing done
    code, out, _ = run(capsys, "--home", home, "entities", "forget", 1, "--yes", "--json")
    assert code == 0 and json.loads(out)["observations"] == 3
    code, out, _ = run(capsys, "--home", home, "entities", "list", "--json")
    assert [e["id"] for e in json.loads(out)] == [2]
    with Store(home) as store:  # each correction audited with who made it
        audit = store.corrections()
    assert [c["action"] for c in audit] == ["rename", "split", "merge", "forget"]
    assert {c["details"]["caller"] for c in audit} == {f"cli (uid {os.getuid()})"}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["entities", "show", "99"], "no entity 99"),
        (["entities", "merge", "1", "2"], "cannot merge a object"),
        (["entities", "rename", "1"], "give either a NAME or --clear"),
        (["entities", "split", "1", "99"], "does not belong"),
    ],
)
def test_errors_exit_1_with_a_message(home, capsys, argv, message):
    code, _, err = run(capsys, "--home", home, *argv)
    assert code == 1 and message in err and "Traceback" not in err


def test_memory_stats_and_prune(home, capsys):
    code, out, _ = run(capsys, "--home", home, "memory", "stats", "--json")
    stats = json.loads(out)
    assert (
        code == 0
        and stats["rows"]["observations"] == 4
        and stats["schema_version"] == SCHEMA_VERSION
        and stats["bytes"] > 0
    )
    code, out, _ = run(capsys, "--home", home, "memory", "prune", "--max-age-days", "1", "--json")
    assert code == 0 and json.loads(out)["clips_deleted"] == 4  # the clips are from 1970, long past the cap
    code, _, err = run(capsys, "--home", home, "memory", "prune")
    assert code == 1 and "--max-bytes and/or --max-age-days" in err


@pytest.mark.parametrize(("text", "value"), [("500M", 500 << 20), ("2G", 2 << 30), ("1024", 1024), ("1.5k", 1536)])
def test_byte_sizes(text, value):
    from edge_agent.cli.common import byte_size as _byte_size

    assert _byte_size(text) == value


@pytest.fixture
def street(tmp_path):
    """A white truck and a grey-and-white car on the street camera, a red cup in the kitchen, and two people in
    blue: one on both cameras (the kitchen last), one on the street only."""
    from dataclasses import replace

    from helpers.memory import said

    def axis(i):
        return unit(np.eye(32)[i] + 0.01)

    truck, car, cup, first, second = (axis(i) for i in range(5))
    grey_white = replace(said("car", colour="grey"), colours=("grey", "white"))
    with Store(tmp_path / "home") as store:
        store.ingest_clip(
            clip(0, camera="street"),
            [
                observation(1, 0, [0, 0, 90, 40], truck, category="truck", description=said("truck", colour="white")),
                observation(2, 0, [100, 0, 190, 40], car, category="car", description=grey_white),
                observation(3, 0, [200, 0, 240, 90], first, kind="person", category="person",
                            description=said("person", colour="blue", pattern="plain", region="top left")),
                observation(4, 0, [300, 0, 340, 90], second, kind="person", category="person",
                            description=said("person", colour="blue", pattern="plain")),
            ],
        )  # fmt: skip
        store.ingest_clip(
            clip(100, camera="kitchen"),
            [
                observation(1, 100, [0, 0, 40, 40], cup, description=said("cup", colour="red", zone="sink")),
                observation(2, 100, [50, 0, 90, 90], first, kind="person", category="person",
                            description=said("person", colour="blue", pattern="plain", region="centre")),
            ],
        )  # fmt: skip
    return tmp_path / "home"


def test_list_says_what_each_is_where_it_was_last_and_on_which_cameras(street, capsys):
    code, out, _ = run(capsys, "--home", street, "entities", "list")
    lines = {line.split()[0]: line for line in out.splitlines()}
    assert code == 0 and len(lines) == 5 and "person person" not in out and "object" not in out
    assert "white truck" in lines["#1"] and "street" in lines["#1"] and "seen once" in lines["#1"]
    assert "grey car" in lines["#2"]  # the main colour only, as the describer ranks them
    assert "person in blue plain clothes" in lines["#3"] and "kitchen, in the centre; also on street" in lines["#3"]
    assert "red cup" in lines["#5"] and "kitchen, by the sink" in lines["#5"]
    code, out, _ = run(capsys, "--home", street, "entities", "list", "--json")
    listed = {e["id"]: e for e in json.loads(out)}
    assert listed[3]["cameras"] == ["kitchen", "street"] and listed[3]["last_camera"] == "kitchen"
    assert listed[1]["label"] == "white truck" and listed[1]["colours"] == ["white"] and listed[1]["observations"] == 1
    assert listed[5]["last_zone"] == "sink" and listed[5]["last_place"] == "kitchen, by the sink"


@pytest.mark.parametrize(
    ("ref", "entity"),
    [
        ("#2", 2),
        ("2", 2),
        ("Vanessa", 1),  # the name the user gave
        ("vanessa", 1),  # in any case
        ("white van", 1),  # "van" is a truck or a car; the white one
        ("the grey car", 2),
        ("white car", 2),  # no thing is mainly white and a car: a touch of white counts
        ("red cup", 5),
        ("person on kitchen", 3),  # a camera it was seen on
    ],
)
def test_an_entity_is_named_by_id_name_or_what_it_looks_like(street, capsys, ref, entity):
    assert run(capsys, "--home", street, "entities", "rename", 1, "Vanessa")[0] == 0
    code, out, err = run(capsys, "--home", street, "entities", "show", ref, "--json")
    assert code == 0 and json.loads(out)["entity"]["id"] == entity, err


def test_a_name_fitting_several_lists_them_and_one_fitting_none_says_which_word(street, capsys):
    code, out, err = run(capsys, "--home", street, "entities", "show", "person in blue")
    assert code == 1 and not out and err.count("\n") == 1
    assert "'person in blue' fits 2 entities: #3 person in blue plain clothes (kitchen), #4 person in blue" in err
    assert err.rstrip().endswith("give the id")
    code, _, err = run(capsys, "--home", street, "entities", "rename", "purple van", "x")
    assert code == 1 and "no entity is named or looks like 'purple van'" in err
    code, _, err = run(capsys, "--home", street, "entities", "forget", "bob", "--yes")
    assert code == 1 and "'bob' is no colour, pattern, kind of thing or camera" in err and err.count("\n") == 1
    code, out, _ = run(capsys, "--home", street, "entities", "merge", "white van", "grey car", "--json")
    assert code == 0 and (json.loads(out)["id"], json.loads(out)["observations"]) == (1, 2)  # both by description


def test_forget_without_yes_says_what_would_go_and_exits_3(street, capsys):
    code, out, err = run(capsys, "--home", street, "entities", "forget", "white van")
    assert (code, err) == (3, "")  # nothing went wrong: nothing was done
    assert out.startswith("Forgetting #1 truck would erase it") and "(1 observation and" in out
    assert "Not forgotten yet: add --yes to forget it" in out
    assert run(capsys, "--home", street, "entities", "show", 1)[0] == 0  # still there


def test_show_says_when_a_thing_was_taken_and_by_whom(tmp_path, capsys):
    with Store(tmp_path / "home") as store:
        store.ingest_clip(*keys_taken_clip())
    code, out, _ = run(capsys, "--home", tmp_path / "home", "entities", "show", 1)
    assert code == 0 and "  taken 1970-01-01 00:00:01.5" not in out  # to the second, as the sightings
    assert "  taken 1970-01-01 00:00:01 by #2 person, after obs 1 on hall" in out
    code, out, _ = run(capsys, "--home", tmp_path / "home", "entities", "show", 1, "--json")
    assert json.loads(out)["taken"]["by_entity_id"] == 2
