"""edge-agent entities list|show|merge|split|rename|forget on a memory built by the test."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from helpers.memory import DAY, clip, near, observation, unit

from edge_agent.cli import main
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


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_list_and_show(home, capsys):
    code, out, _ = run(capsys, "--home", home, "entities", "list", "--json")
    assert code == 0
    listed = json.loads(out)
    assert [(e["id"], e["kind"], e["observations"]) for e in listed] == [(2, "person", 1), (1, "object", 3)]
    code, out, _ = run(capsys, "--home", home, "entities", "list", "--kind", "object")
    assert code == 0 and out.startswith("#1") and "seen 3x" in out
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
    code, _, err = run(capsys, "--home", home, "entities", "forget", 1)
    assert code == 1 and "--yes" in err
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
