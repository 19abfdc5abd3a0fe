"""Rules from words or JSON: the phrase reader, the LLM path under its JSON schema (a fake model that
answers what a model would), and the errors that say what is missing."""

from __future__ import annotations

import json

import pytest

from edge_agent.rules.parse import LLM_SCHEMA, RuleParseError, parse_rule
from edge_agent.rules.predicate import Predicate, describe

PLACES = ["sofa", "kitchen", "door"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "notify me when the dog is on the sofa",
            {"subject": "dog", "subject_type": "category", "relation": "on", "object": "sofa", "object_type": "place"},
        ),
        (
            "Tell me if the keys have not been seen for 24 hours.",
            {"subject": "keys", "relation": "absent", "absent_for_s": 86400.0},
        ),
        (
            "an unknown person appears for the third time this week",
            {
                "subject": "person",
                "subject_type": "unknown_person",
                "relation": "appears",
                "times": 3,
                "within_s": 604800.0,
            },
        ),
        (
            "let me know when someone enters the kitchen between 10pm and 6:30am",
            {
                "subject": "person",
                "relation": "enters",
                "object": "kitchen",
                "object_type": "place",
                "window": ("22:00", "06:30"),
            },
        ),
        (
            "alert me when the cat is near the door for 5 minutes",
            {"subject": "cat", "relation": "near", "object": "door", "min_duration_s": 300.0},
        ),
        (
            "notify me when the dog gets on the couch",
            {"subject": "dog", "relation": "on", "object": "couch", "object_type": "category"},
        ),
        (
            "tell me when Bob leaves the kitchen",
            {"subject": "bob", "subject_type": "entity", "entity_id": 4, "relation": "leaves"},
        ),
        ("when a person appears on 3 different days this week", {"relation": "appears", "times": 3, "per": "day"}),
    ],
)
def test_phrases(text, expected):
    p = parse_rule(text, places=PLACES, names={"Bob": 4})
    assert {k: getattr(p, k) for k in expected} == expected
    assert describe(p).startswith("when ")


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("", "empty"),
        ("notify me about the dog", "no relation"),
        ("tell me if the keys have not been seen", "how long"),
        ("notify me when is on the sofa", "no subject"),
        ('{"subject": "dog", "relation": "on"}', "needs an object"),
        ('{"subject": "dog", "relation": "on", "object": "bed", "object_type": "place"}', "no place named 'bed'"),
        ('{"subject": "rex", "subject_type": "entity", "relation": "appears"}', "no entity is named 'rex'"),
        ('{"subject": "dog", "relation": "flies"}', "relation"),
        ('{"subject": "dog", "relation": "appears", "colour": "red"}', "colour"),
        ("[1, 2]", "no relation"),
    ],
)
def test_errors_name_what_is_wrong(text, error):
    with pytest.raises(RuleParseError, match=error):
        parse_rule(text, places=PLACES, mode="phrases" if text.startswith("[") else "auto")


def test_json_predicate_with_a_drawn_zone():
    p = parse_rule(
        json.dumps(
            {
                "subject": "person",
                "relation": "in",
                "object_type": "zone",
                "zone": [0, 0, 100, 50],
                "camera": "porch",
                "min_duration_s": 10,
            }
        )
    )
    assert p.zone == (0, 0, 100, 50) and "zone [0.0, 0.0, 100.0, 50.0]" in describe(p) and "porch" in describe(p)
    with pytest.raises(RuleParseError, match="x1 < x2"):
        parse_rule(json.dumps({"subject": "person", "relation": "in", "object_type": "zone", "zone": [100, 0, 10, 50]}))


class FakeLLM:
    """Answers like a chat model under llama.cpp's JSON-schema grammar, and records what it was sent."""

    def __init__(self, answer):
        self.answer, self.calls = answer, []

    def create_chat_completion(self, **kwargs):
        self.calls.append(kwargs)
        return {"choices": [{"message": {"content": json.dumps(self.answer)}}]}


def test_the_llm_reads_what_the_phrase_reader_cannot():
    llm = FakeLLM(
        {
            "subject": "dog",
            "subject_type": "category",
            "relation": "on",
            "object": "sofa",
            "object_type": "place",
            "min_duration_s": 0,
        }
    )
    p = parse_rule("ping me should the pooch ever lounge upon the sofa", places=PLACES, llm=llm)
    assert (p.subject, p.relation, p.object, p.object_type) == ("dog", "on", "sofa", "place")
    sent = llm.calls[0]
    assert sent["response_format"] == {"type": "json_object", "schema": LLM_SCHEMA}
    assert "sofa" in sent["messages"][1]["content"]  # the known places are given to the model
    every_string = [v for v in LLM_SCHEMA["properties"].values() if v.get("type") == "string"]
    assert every_string and all("maxLength" in v for v in every_string)


def test_a_bad_llm_reading_is_refused_with_the_reason():
    llm = FakeLLM({"subject": "dog", "subject_type": "category", "relation": "on", "object": "", "object_type": "none"})
    with pytest.raises(RuleParseError, match="needs an object"):
        parse_rule("ping me should the pooch ever lounge upon it", places=PLACES, llm=llm)
    with pytest.raises(RuleParseError, match="no LLM"):
        parse_rule("ping me should the pooch ever lounge upon it", places=PLACES, mode="llm")


def test_predicate_round_trips_as_json():
    p = parse_rule("notify me when the dog is on the sofa between 18:00 and 23:00", places=PLACES)
    assert Predicate.model_validate_json(p.model_dump_json(exclude_defaults=True)) == p
