"""Answers from memory's described fields (schema v3): an attribute by majority over the subject's observations,
"the person in red" chosen by the colour memory holds, "not seen" for a colour never seen, what happened from
the episodes, and the LLM controller reading the question into the same typed query."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.llm import OPEN, Scripted
from helpers.memory import clip, observation, said, unit

from edge_agent.memory import Store
from edge_agent.qa import DeterministicController
from edge_agent.qa.llm import LLMController

T0 = 1_772_442_000.0  # 2026-03-02 09:00 UTC


def _vector(k: int) -> np.ndarray:
    return unit(np.eye(32)[k] + 0.05)


@pytest.fixture
def street(tmp_path):
    """A street: a white truck parked all along (one frame seen red, a detector's slip), a person in red who
    leaves early, three people in black, and a moving dog; then a kitchen clip."""
    home = tmp_path / "home"
    with Store(home) as store:
        for k in range(6):
            t = T0 + 10 * k
            seen = [
                observation(
                    1,
                    t,
                    (400, 50, 600, 200),
                    _vector(0),
                    category="truck",
                    description=said("truck", colour="red" if k == 5 else "white", region="top right"),
                ),
                *(
                    observation(
                        2 + p,
                        t,
                        (100 + 50 * p, 100, 140 + 50 * p, 300),
                        _vector(2 + p),
                        kind="person",
                        category="person",
                        description=said(
                            "person",
                            colour="black",
                            region="centre",
                            motion="moving left",
                            company=[("dog", 1)] if k == 3 and p == 0 else (),  # one walks past the dog
                        ),
                    )
                    for p in range(3)
                ),
            ]
            if k < 2:
                seen.append(
                    observation(
                        6,
                        t,
                        (10, 100, 50, 300),
                        _vector(6),
                        kind="person",
                        category="person",
                        description=said("person", colour="red", region="middle left", motion="moving right"),
                    )
                )
            if k == 3:
                seen.append(
                    observation(
                        7,
                        t,
                        (300, 300, 360, 340),
                        _vector(7),
                        kind="animal",
                        category="dog",
                        description=said("dog", colour="orange", region="bottom centre", motion="moving left"),
                    )
                )
            store.ingest_clip(clip(t, camera="street"), seen, caption="street: a truck, people")
        store.ingest_clip(clip(T0 + 3600, camera="kitchen"), [], caption="kitchen: nothing detected")
        store.close_episodes()
    return home


def test_an_attribute_is_the_majority_of_what_memory_holds(street, embedder):
    with Store(street) as store:
        controller = DeterministicController(store, embedder)
        colour = controller.ask("What colour was the truck?", choices=["red", "white", "black"])
        assert colour.text.startswith("White: 5 of 6 observations") and "also: red 1" in colour.text
        assert colour.choice == "white" and colour.tool == "attribute" and colour.evidence
        parked = controller.ask("Was the truck moving or parked?", choices=["moving", "parked"])
        assert parked.query["asks"] == "motion" and parked.choice == "parked"
        dog = controller.ask("Was the dog moving or still?", choices=["still", "moving"])
        assert dog.choice == "moving"
        most = controller.ask("What colour were most people's clothes?", choices=["red", "black", "white"])
        assert most.text.startswith("Black: 18 of 20 observations of the 4 people seen") and most.choice == "black"


def test_the_person_in_red_is_the_one_described_so(street, embedder):
    with Store(street) as store:
        controller = DeterministicController(store, embedder)
        red = controller.ask("Where was the person in red last seen?")
        (person,) = {o.entity_id for o in store.observations_by_id([e["observation"] for e in red.evidence])}
        assert {o.colour for o in store.observations(person)} == {"red"}
        black = controller.ask("How many people in black were there?", choices=["1", "2", "3", "4"])
        assert black.text.startswith("3 people in black") and black.choice == "3"
        never = controller.ask("Was there a green truck?", choices=["yes", "no"])
        assert never.text == "No: I have not seen a green truck." and never.choice == "no"


def test_a_person_carrying_or_with_a_thing_is_one_seen_with_it(street, embedder):
    """ "Was anyone carrying a bag?" asks about people seen with a bag, not about people: no bag, no."""
    with Store(street) as store:
        controller = DeterministicController(store, embedder)
        bag = controller.ask("Was anyone carrying a backpack?", choices=["yes", "no"])
        assert bag.query["subject"]["kinds"] == ["person"] and bag.query["subject"]["near"] == ["backpack"]
        assert bag.text == "No: I have not seen a person with a backpack." and bag.choice == "no"
        dog = controller.ask("Was anyone walking a dog?", choices=["yes", "no"])
        assert dog.text.startswith("Yes: 1 person with a dog seen") and dog.choice == "yes"
        many = controller.ask("How many people were with a dog?", choices=["1", "2", "4"])
        assert many.text.startswith("1 person with a dog") and many.choice == "1"
        assert controller.ask("How many people were there?", choices=["1", "4"]).choice == "4"


def test_what_happened_is_read_from_the_episodes(street, embedder):
    with Store(street) as store:
        controller = DeterministicController(store, embedder)
        street_ = controller.ask("What happened on the street camera?")
        assert street_.tool == "what_happened" and street_.text.startswith("street, 2026-03-02 09:00:00")
        assert "#1 white truck (6 sightings)" in street_.text  # what it was most often described as: 5 white, 1 red
        assert "things seen" in street_.text and street_.evidence
        kitchen = controller.ask("What happened in the kitchen?")
        assert kitchen.text.startswith("kitchen, 2026-03-02 10:00:00") and "nothing seen" in kitchen.text


def test_the_llm_reads_the_question_into_the_typed_query(street, embedder):
    with Store(street) as store:
        exists = dict(OPEN, intent="exists", kinds=["dog"], cameras=["kitchen"], yes_no=True)
        llm = Scripted(query=exists)
        answer = LLMController(store, embedder, llm).ask("Did a dog come into the kitchen?", choices=["yes", "no"])
        assert answer.tool == "llm-query:exists" and answer.text == "No: I have not seen a dog on camera kitchen."
        assert answer.choice == "no" and answer.query["place"]["cameras"] == ["kitchen"]
        question, schema = llm.questions[0]
        assert question == "Did a dog come into the kitchen?"
        assert {"truck", "dog", "toothbrush"} <= set(schema["properties"]["kinds"]["items"]["enum"])
        assert sorted(schema["properties"]["cameras"]["items"]["enum"]) == ["kitchen", "street"]
        # a reply outside the schema: the parser reads the question instead, and the rounds go on from it
        broken = LLMController(store, embedder, Scripted(query='{"intent": "guess"}'))
        colour = broken.ask("What colour was the truck?")
        assert broken.query_failures == 1 and colour.tool == "llm-query:attribute" and colour.text.startswith("White")
