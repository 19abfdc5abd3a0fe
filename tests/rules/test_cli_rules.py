"""edge-agent rules add|list|remove|test and alerts list, on a memory built by the test."""

from __future__ import annotations

import json
import os

import pytest
from helpers.cli import run
from helpers.memory import observation

from edge_agent.memory import Store
from edge_agent.rules.resolver import Resolver

from .test_resolver import DOG, ON_SOFA, T0, ZONES, dog, ingest


@pytest.fixture
def setup(tmp_path):
    config = tmp_path / "edge-agent.toml"
    config.write_text(
        "[zones.living]\nsofa = [100, 100, 300, 300]\n[rules]\npersist_frames = 3\n"
        f'[[alerts.sinks]]\ntype = "jsonl"\npath = "{tmp_path / "alerts.jsonl"}"\n'
    )
    return tmp_path / "home", config


def test_add_list_test_alerts_remove(setup, capsys):
    home, config = setup
    with Store(home) as store:
        ingest(store, T0, [dog(T0, [ON_SOFA] * 20)])  # memory before the rule: replayed by test, not fired by the rule
    code, out, err = run(
        capsys, "--home", home, "rules", "add", "notify me when the dog is on the sofa", "--config", config
    )
    assert (code, err) == (3, "")  # no terminal to ask on: read, shown, not stored; no error
    assert "reads as: when any dog is on the place 'sofa'" in out
    assert out.endswith("Not stored yet (no terminal to ask on): add --yes to store it.\n")
    code, out, err = run(
        capsys, "--home", home, "rules", "add", "notify me when the dog is on the sofa", "--config", config, "--json"
    )
    assert code == 3 and json.loads(out)["stored"] is False and json.loads(out)["predicate"]["relation"] == "on"
    code, out, _ = run(
        capsys,
        "--home",
        home,
        "rules",
        "add",
        "notify me when the dog is on the sofa",
        "--config",
        config,
        "--yes",
        "--cooldown",
        "60",
        "--json",
    )
    rule = json.loads(out)
    assert code == 0 and rule["id"] == 1 and rule["predicate"]["relation"] == "on" and rule["cooldown_s"] == 60
    code, out, _ = run(capsys, "--home", home, "rules", "list", "--config", config)
    assert code == 0 and "rule 1: notify me when the dog is on the sofa" in out
    code, out, _ = run(capsys, "--home", home, "rules", "test", "1", "--config", config, "--json")
    assert code == 0 and len(json.loads(out)) == 1  # the replay sees the past clip
    with Store(home) as store:
        assert Resolver(store, zones=ZONES).process() == []  # the rule itself applies from now on
        ingest(store, T0 + 100, [dog(T0 + 100, [ON_SOFA] * 20)])
        assert len(Resolver(store, zones=ZONES, sinks=["jsonl"]).process()) == 1
    code, out, _ = run(capsys, "--home", home, "alerts", "list", "--json", "--config", config)
    alerts = json.loads(out)
    assert code == 0 and len(alerts) == 1 and alerts[0]["deliveries"][0]["status"] == "pending"
    code, out, _ = run(capsys, "--home", home, "rules", "remove", "1", "--config", config)
    assert code == 0 and "alerts stay listed" in out
    code, out, _ = run(capsys, "--home", home, "alerts", "list", "--config", config)
    assert "rule 1" in out and "dog" in out
    assert run(capsys, "--home", home, "rules", "remove", "1", "--config", config)[0] == 1
    with Store(home) as store:  # audited once, with who removed it
        [removal] = [c for c in store.corrections() if c["action"] == "remove_rule"]
    assert removal["details"] == {
        "rule_id": 1,
        "text": "notify me when the dog is on the sofa",
        "caller": f"cli (uid {os.getuid()})",
    }
    code, out, _ = run(capsys, "--home", home, "rules", "list", "--all", "--json", "--config", config)
    assert json.loads(out)[0]["removed_at"] is not None


def test_errors(setup, capsys):
    home, config = setup
    code, _, err = run(
        capsys,
        "--home",
        home,
        "rules",
        "add",
        "x",
        "--json-predicate",
        '{"subject": "dog"}',
        "--yes",
        "--config",
        config,
    )
    assert code == 1 and "relation" in err
    code, _, err = run(
        capsys,
        "--home",
        home,
        "rules",
        "add",
        "notify me when the dog is on the bed",
        "--parser",
        "phrases",
        "--yes",
        "--config",
        config,
    )
    assert code == 0  # "bed" is not a configured place: read as a category of thing
    code, _, err = run(capsys, "--home", home, "rules", "test", "7", "--config", config)
    assert code == 1 and "no rule 7" in err
    bad = config.parent / "bad.toml"
    bad.write_text('[[alerts.sinks]]\ntype = "stdout"\n[[alerts.sinks]]\ntype = "stdout"\n')
    code, _, err = run(capsys, "--home", home, "rules", "list", "--config", bad)
    assert code == 1 and "sink names repeat: stdout" in err


@pytest.mark.parametrize(
    ("rule", "error"),
    [
        (
            ["notify me when a person is near the left side"],
            "edge-agent: error: unknown place 'left side': known places are sofa (camera living); cameras are "
            "living; nor is it a name (no entity is named yet",
        ),
        (["tell me when Alice arrives"], "edge-agent: error: unknown name or category 'alice': no entity is named yet"),
        (
            ["x", "--json-predicate", '{"subject": "dog", "relation": "on", "object": "bed", "object_type": "place"}'],
            "edge-agent: error: unknown place 'bed': known places are sofa (camera living)\n",
        ),
        (
            ["x", "--json-predicate", '{"subject": "unicorn", "relation": "appears"}'],
            "edge-agent: error: unknown category 'unicorn' (not a class the detector reports): categories are person,",
        ),
    ],
)
def test_add_refuses_what_it_cannot_watch(setup, capsys, rule, error):
    home, config = setup
    code, _, err = run(
        capsys, "--home", home, "rules", "add", *rule, "--parser", "phrases", "--yes", "--config", config
    )
    assert code == 1 and err.startswith(error) and err.count("\n") == 1, err
    assert run(capsys, "--home", home, "rules", "list", "--json", "--config", config)[1].strip() == "[]"


def test_a_person_word_memory_cannot_tell_is_said_in_the_reading(setup, capsys):
    home, config = setup
    code, out, _ = run(
        capsys, "--home", home, "rules", "add", "tell me if the kids are on the sofa", "--config", config
    )
    assert code == 3 and "(reading 'kids' as any person: memory does not tell sex or age)" in out, out
    code, out, _ = run(capsys, "--home", home, "rules", "add", "tell me if a person is on the sofa", "--config", config)
    assert code == 3 and "as any person" not in out, out


def test_add_accepts_a_category_memory_holds(setup, capsys):
    home, config = setup
    with Store(home) as store:
        keys = observation(1, T0, ON_SOFA, DOG, category="keys")  # not a detector class: another detector's
        ingest(store, T0, [keys])
    code, out, err = run(
        capsys,
        "--home",
        home,
        "rules",
        "add",
        "tell me if the keys have not been seen for 4 hours",
        "--yes",
        "--config",
        config,
        "--json",
    )
    assert code == 0 and json.loads(out)["predicate"]["subject"] == "keys", err
