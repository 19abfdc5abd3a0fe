"""The development set of rule phrasings (tests/rules/phrasings.json, written before the reader): every rule reads as
the predicate it must, or is refused with a reason naming what was wrong. Subjects and objects that are categories
are compared by the detector classes they mean ("cats" and "cat" are one rule)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edge_agent.rules.parse import RuleParseError, parse_rule
from edge_agent.rules.predicate import Predicate, category_names, describe

SET = json.loads((Path(__file__).parent / "phrasings.json").read_text(encoding="utf-8"))
DEFAULTS = Predicate(subject="x", relation="appears").model_dump()


def _same(key: str, expected: object, got: object, expect: dict) -> bool:
    if key == "subject" and expect.get("subject_type", "category") == "category":
        return bool(category_names(str(expected)) & category_names(str(got)))
    if key == "object" and expect.get("object_type") == "category":
        return bool(category_names(str(expected)) & category_names(str(got)))
    if isinstance(expected, list) or isinstance(got, tuple):
        return list(expected or []) == list(got or [])  # type: ignore[call-overload]
    if isinstance(expected, (int, float)) and isinstance(got, (int, float)):
        return abs(float(expected) - float(got)) < 1e-6
    return expected == got


@pytest.mark.parametrize("rule", SET["rules"], ids=[r["id"] for r in SET["rules"]])
def test_each_phrasing_reads_as_the_user_meant(rule):
    read = dict(places=SET["zones"], names=SET["names"], cameras=SET["cameras"], mode="phrases")
    if "error" in rule:
        with pytest.raises(RuleParseError) as refused:
            parse_rule(rule["text"], **read)
        message = str(refused.value)
        assert rule["error"].lower() in message.lower() and "\n" not in message
        assert message.count("'") >= 6, message  # three rules that would read are offered
        return
    p = parse_rule(rule["text"], **read).model_dump()
    expect = rule["expect"]
    for key in set(expect) | {k for k, v in p.items() if v != DEFAULTS.get(k)} - {"subject"}:
        want = expect.get(key, DEFAULTS.get(key))
        assert _same(key, want, p.get(key), expect), f"{key}: expected {want!r}, read {p.get(key)!r}"
    said = describe(Predicate.model_validate(p))
    assert said.startswith(f"every day at {p['at']}," if p.get("at") else "when "), said


def test_the_set_covers_the_issue_s_phrasings():
    texts = {r["text"] for r in SET["rules"]}
    assert {
        "notify me when a person appears in the kitchen",
        "tell me when the dog is on the counter",
        "alert me if the van leaves",
        "when the moon is blue",
    } <= texts
    assert len(SET["rules"]) >= 40
