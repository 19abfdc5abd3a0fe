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
            {
                "subject": "keys",
                "subject_type": "entity",
                "entity_id": 9,
                "relation": "absent",
                "absent_for_s": 86400.0,
            },
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
            {"subject": "Bob", "subject_type": "entity", "entity_id": 4, "relation": "leaves"},
        ),
        ("when a person appears on 3 different days this week", {"relation": "appears", "times": 3, "per": "day"}),
    ],
)
def test_phrases(text, expected):
    p = parse_rule(text, places=PLACES, names={"Bob": 4, "keys": 9})
    assert {k: getattr(p, k) for k in expected} == expected
    assert describe(p).startswith("when ")


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("", "empty"),
        ("notify me about the dog", "no relation"),
        ("tell me if the dog has not been seen", "how long"),
        ("notify me when is on the sofa", "no subject"),
        ('{"subject": "dog", "relation": "on"}', "needs an object"),
        (
            '{"subject": "dog", "relation": "on", "object": "bed", "object_type": "place"}',
            "unknown place 'bed': known places are door, kitchen, sofa$",
        ),
        ('{"subject": "rex", "subject_type": "entity", "relation": "appears"}', "unknown name 'rex': no entity is"),
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
    p = parse_rule("ping me should the dog ever lounge upon the sofa", places=PLACES, llm=llm)
    assert (p.subject, p.relation, p.object, p.object_type) == ("dog", "on", "sofa", "place")
    sent = llm.calls[0]
    assert sent["response_format"] == {"type": "json_object", "schema": LLM_SCHEMA}
    assert "sofa" in sent["messages"][1]["content"]  # the known places are given to the model
    every_string = [v for v in LLM_SCHEMA["properties"].values() if v.get("type") == "string"]
    assert every_string and all("maxLength" in v for v in every_string)


def test_a_bad_llm_reading_is_refused_with_the_readers_reason():
    """The model's reading that does not check is refused with the reader's one-line reason and three rules that
    read, never the model's validation errors; a word memory does not know is refused before any model is asked."""
    llm = FakeLLM({"subject": "dog", "subject_type": "category", "relation": "on", "object": "", "object_type": "none"})
    with pytest.raises(RuleParseError, match="^no relation found .*; rules that read: '") as refused:
        parse_rule("ping me should the dog ever lounge upon it", places=PLACES, llm=llm)
    assert "needs an object" not in str(refused.value) and len(llm.calls) == 1
    with pytest.raises(RuleParseError, match="no LLM"):
        parse_rule("ping me should the dog ever lounge upon it", places=PLACES, mode="llm")
    moon = FakeLLM({"subject": "moon", "relation": "appears"})
    with pytest.raises(RuleParseError, match="^unknown name or category 'moon'"):
        parse_rule("when the moon is blue", places=PLACES, llm=moon)
    assert moon.calls == []


def test_predicate_round_trips_as_json():
    p = parse_rule("notify me when the dog is on the sofa between 18:00 and 23:00", places=PLACES)
    assert Predicate.model_validate_json(p.model_dump_json(exclude_defaults=True)) == p


# What a rule may name: it is refused, with what is known, when it names anything else (it could never fire).
ZONES = {"sofa": ["living"], "door": ["living", "porch"]}
NAMES = {"Bob": 4}


@pytest.mark.parametrize(
    ("text", "error"),
    [
        (
            "notify me when a person is near the left side",
            r"^unknown place 'left side': known places are sofa \(camera living\), door \(camera living, porch\); "
            r"nor is it a name \(named entities are Bob\) or a category the detector reports; rules that read: ",
        ),
        ("tell me when Alice arrives", r"^unknown name or category 'alice': named entities are Bob; categories are "),
        ("notify me when the unicorn is on the sofa", r"unknown name or category 'unicorn'.* person, bicycle, car,"),
        ("alert me when the dog is near the dragon", r"unknown place 'dragon'"),
        (
            '{"subject": "dog", "relation": "on", "object": "bed", "object_type": "place"}',
            r"^unknown place 'bed': known places are sofa \(camera living\), door \(camera living, porch\)$",
        ),
        (
            '{"subject": "Alice", "subject_type": "entity", "relation": "appears"}',
            r"^unknown name 'Alice': named entities are Bob",
        ),
        (
            '{"subject": "dog", "relation": "near", "object": "Alice", "object_type": "entity"}',
            r"^unknown name 'Alice': named entities are Bob$",
        ),
        (
            '{"subject": "unicorn", "relation": "appears"}',
            r"^unknown category 'unicorn' \(not a class the detector reports\): categories are person, .*toothbrush",
        ),
        ('{"subject": "dog", "relation": "near", "object": "dragon", "object_type": "category"}', "unknown category"),
        (
            '{"subject": "dog", "relation": "on", "object": "sofa", "object_type": "place", "camera": "porch"}',
            r"^the place 'sofa' is not drawn on camera 'porch': it is on camera living$",
        ),
    ],
)
def test_what_cannot_be_watched_is_refused_with_what_is_known(text, error):
    with pytest.raises(RuleParseError, match=error) as refused:
        parse_rule(text, places=ZONES, names=NAMES)
    assert "\n" not in str(refused.value)


def test_no_places_configured_says_how_to_add_one():
    with pytest.raises(RuleParseError, match=r"no named places are configured \(draw them under \[zones"):
        parse_rule('{"subject": "dog", "relation": "on", "object": "sofa", "object_type": "place"}')


@pytest.mark.parametrize(
    ("text", "subject", "target"),
    [
        ("notify me when people are near the door", "person", ("door", "place")),
        ("notify me when the dogs get on the sofas", "dogs", ("sofas", "category")),
        ("notify me when a van enters the door", "van", ("door", "place")),
        ("tell me when Bob is near the tv", "Bob", ("tv", "category")),
        ("tell me when the cat is near Bob", "cat", ("Bob", "entity")),
        ("notify me when a bus is near the buses", "bus", ("buses", "category")),
        (
            '{"subject": "cell phones", "relation": "near", "object": "sofa", "object_type": "category"}',
            "cell phones",
            ("sofa", "category"),
        ),
        ('{"subject": "Bob", "subject_type": "entity", "relation": "appears", "camera": "porch"}', "Bob", (None, None)),
        (
            '{"subject": "dog", "relation": "on", "object": "door", "object_type": "place", "camera": "porch"}',
            "dog",
            ("door", "place"),
        ),
    ],
)
def test_known_places_names_and_categories_are_accepted(text, subject, target):
    p = parse_rule(text, places=ZONES, names=NAMES)
    assert (p.subject, (p.object, p.object_type)) == (subject, target)


def test_categories_beyond_the_detector_are_accepted_when_given():
    """Memory's own categories (a synthetic world's keys) are watchable too."""
    text = "tell me if the keys have not been seen for 4 hours"
    with pytest.raises(RuleParseError, match="unknown name or category 'keys'"):
        parse_rule(text)
    assert parse_rule(text, categories=["person", "keys"]).subject == "keys"
    with pytest.raises(RuleParseError, match=r"categories are person, keys \("):
        parse_rule("tell me when the dog appears", categories=["person", "keys"])


@pytest.mark.parametrize(
    ("text", "relation", "place", "window"),
    [
        ("a person on the sidewalk", "on", "sidewalk", None),  # no verb: the preposition is the relation
        ("a person at the sidewalk after 10pm", "in", "sidewalk", ("22:00", "06:00")),  # through the night
        ("a person at the sidewalk after 3pm", "in", "sidewalk", ("15:00", "00:00")),  # until midnight
        ("the dog is on the sidewalk before 7am", "on", "sidewalk", ("00:00", "07:00")),
        ("the van leaves after 22:30", "leaves", None, ("22:30", "06:00")),
    ],
)
def test_a_condition_without_a_verb_and_a_window_open_at_one_end(text, relation, place, window):
    p = parse_rule(text, places={"sidewalk": ["street"]}, cameras=["street"])
    assert (p.relation, p.object, p.window) == (relation, place, window)


@pytest.mark.parametrize("text", ["ping me if someone is in the kitchen after 11", "the dog is out before 3"])
def test_an_hour_said_without_am_or_pm_is_asked_back_not_dropped(text):
    with pytest.raises(RuleParseError, match="morning or evening"):
        parse_rule(text, cameras=["kitchen"])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "tell me if my keys are not by the door at 11 pm",
            {"subject": "keys", "entity_id": 9, "relation": "near", "object": "door", "at": "23:00", "negated": True},
        ),
        (
            "alert me if the keys aren't on the sofa at 22:30",
            {"relation": "on", "object": "sofa", "object_type": "place", "at": "22:30", "negated": True},
        ),
        (
            "let me know if Bob is not in the kitchen at noon",
            {"subject": "Bob", "relation": "in", "object": "kitchen", "at": "12:00", "negated": True},
        ),
        (
            "tell me if the car is in the kitchen at 7am",  # a check at a moment, not negated
            {"subject": "car", "relation": "in", "at": "07:00", "negated": False},
        ),
        (
            "tell me if the keys are not seen for 3 hours",  # "not seen": an absence, not a negated place
            {"relation": "absent", "absent_for_s": 10800.0, "at": None, "negated": False},
        ),
    ],
)
def test_a_check_at_a_moment_of_the_day_and_its_negation(text, expected):
    p = parse_rule(text, places=PLACES, names={"Bob": 4, "keys": 9})
    assert {k: getattr(p, k) for k in expected} == expected
    said = describe(p)
    if p.at is not None:
        assert said.startswith(f"every day at {p.at}, if ") and (" is not " in said) == p.negated


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("tell me if my keys are not by the door", "when should I check that it is not there"),  # never misread
        ('{"subject": "dog", "relation": "on", "object": "sofa", "object_type": "place", "negated": 1}', "needs `at`"),
        ('{"subject": "dog", "relation": "leaves", "at": "23:00"}', "`at` checks where"),
        ('{"subject": "dog", "relation": "on", "object": "sofa", "object_type": "place", "at": "25:00"}', "HH:MM"),
    ],
)
def test_a_negated_place_without_a_moment_is_refused_not_misread(text, error):
    with pytest.raises(RuleParseError, match=error):
        parse_rule(text, places=PLACES, names={"keys": 9})


def test_a_kind_s_absence_is_read_back_with_its_colours():
    """ "Tell me if the white truck hasn't been seen for 2 hours": the line the user confirms says "no white truck",
    as the rule holds it (not any truck)."""
    p = parse_rule("tell me if the white truck hasn't been seen for 2 hours", places=PLACES, names={})
    assert p.colours == ("white",)
    assert describe(p) == "when no white truck has been seen for 2 hours"
