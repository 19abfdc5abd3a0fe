"""'Did the baby sit at the bottom centre or at the top right?' with several people in memory: the one the question
means is one at either place, not the one the search ranks first."""

from __future__ import annotations

import numpy as np
from helpers.memory import DAY, clip, observation, said, unit

from edge_agent.memory import Store
from edge_agent.qa import DeterministicController

A = unit(np.r_[np.ones(8), np.zeros(8)])
B = unit(np.r_[np.zeros(8), np.ones(8)])


def test_of_several_people_the_one_at_either_place_is_asked_about(tmp_path, embedder) -> None:
    home = tmp_path / "home"
    with Store(home) as store:
        for k in range(4):  # a walker on the street, seen often, at the middle left
            t = DAY + 9 * 3600 + 20 * k
            walker = said("person", colour="black", region="middle left", motion="moving right")
            store.ingest_clip(
                clip(t, 10.0, "street"),
                [observation(1, t, (10, 100, 60, 220), A, kind="person", category="person", description=walker)],
            )
        t = DAY + 12 * 3600
        sitting = said("person", colour="red", region="bottom centre")
        store.ingest_clip(
            clip(t, 10.0, "living-room"),
            [observation(1, t, (280, 250, 360, 350), B, kind="person", category="person", description=sitting)],
        )
    with Store(home, mode="read") as store:
        answer = DeterministicController(store, embedder).ask(
            "did the baby sit at the bottom centre or at the top right of the view?",
            choices=["at the bottom centre", "at the top right"],
        )
        assert answer.text.startswith("Bottom centre: ") and "person #2" in answer.text, answer.text
        assert answer.choice == "at the bottom centre"


def test_each_side_of_an_order_keeps_what_its_thing_was_with(tmp_path, embedder) -> None:
    """ "Which came first, the dog or the person by the couch?": the person is the one seen with a couch (at noon),
    not the first person memory holds (on the street at nine)."""
    home = tmp_path / "home"
    couch = unit(np.r_[np.ones(4), np.zeros(12)])
    dog = unit(np.r_[np.zeros(12), np.ones(4)])
    with Store(home) as store:
        t = DAY + 9 * 3600
        store.ingest_clip(
            clip(t, 10.0, "street"), [observation(1, t, (10, 100, 60, 220), A, kind="person", category="person")]
        )
        t = DAY + 11 * 3600
        store.ingest_clip(
            clip(t, 10.0, "hall"), [observation(1, t, (10, 150, 90, 220), dog, kind="animal", category="dog")]
        )
        t = DAY + 12 * 3600
        store.ingest_clip(
            clip(t, 10.0, "living-room"),
            [
                observation(1, t, (280, 150, 340, 350), B, kind="person", category="person"),
                observation(2, t, (350, 250, 600, 350), couch, category="couch"),
            ],
        )
    with Store(home, mode="read") as store:
        answer = DeterministicController(store, embedder).ask("which came first, the dog or the person by the couch?")
        assert answer.text.startswith("The dog came first"), answer.text


def test_a_part_of_the_view_narrows_who_is_counted_and_who_came_first(tmp_path, embedder) -> None:
    """ "When was a person first seen on the left?": the first of those seen on the left, not the first person of
    all (seen on the right); "was anyone at the middle left?" counts only those there (a camera without zones once
    let every observation through: no zone matched the empty zone list)."""
    home = tmp_path / "home"
    with Store(home) as store:
        t = DAY + 9 * 3600
        right = said("person", colour="black", region="middle right")
        store.ingest_clip(
            clip(t, 10.0, "street"),
            [observation(1, t, (500, 100, 560, 220), A, kind="person", category="person", description=right)],
        )
        t += 60
        left = said("person", colour="red", region="middle left")
        store.ingest_clip(
            clip(t, 10.0, "street"),
            [observation(1, t, (10, 100, 60, 220), B, kind="person", category="person", description=left)],
        )
    with Store(home, mode="read") as store:
        controller = DeterministicController(store, embedder)
        first = controller.ask("when was a person first seen on the left?")
        assert first.text.startswith("Entity #2 (person) was first seen"), first.text
        there = controller.ask("how many people were at the middle left?")
        assert there.text.startswith("1 person"), there.text
