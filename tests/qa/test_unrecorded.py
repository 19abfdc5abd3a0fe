"""A window no camera recorded in: "was the car there before 9?" answered no, with the reason that nothing was
recorded then (not an absence seen); places counted as rooms, and a person named by a word memory cannot tell people
apart by, asked of alone, answered with the people seen; things picked by how many times they were seen."""

from __future__ import annotations

import numpy as np
from helpers.memory import DAY, clip, observation, said, unit

from edge_agent.memory import Store
from edge_agent.qa import DeterministicController

CAR = unit(np.r_[np.ones(8), np.zeros(8)])
ANN = unit(np.r_[np.zeros(8), np.ones(8)])
BOB = unit(np.r_[np.ones(4), np.zeros(8), np.ones(4)])
T = DAY + 9 * 3600  # 09:00 on day 2


def _home(tmp_path):
    home = tmp_path / "home"
    with Store(home) as store:
        car = observation(1, T, (400, 50, 600, 200), CAR, category="car", description=said("car", colour="grey"))
        ann = observation(2, T, (50, 80, 90, 180), ANN, kind="person", category="person", description=said("person"))
        store.ingest_clip(clip(T, 10.0, "street"), [car, ann])
        bob = observation(1, T + 3600, (50, 80, 90, 180), BOB, kind="person", category="person",
                          description=said("person", colour="red"))  # fmt: skip
        store.ingest_clip(clip(T + 3600, 10.0, "kitchen"), [bob])
        again = observation(1, T + 7200, (50, 80, 90, 180), ANN, kind="person", category="person",
                            description=said("person"))  # fmt: skip
        store.ingest_clip(clip(T + 7200, 10.0, "kitchen"), [again])
    return home


def test_a_window_nothing_was_recorded_in_says_so(tmp_path, embedder) -> None:
    with Store(_home(tmp_path), mode="read") as store:
        ask = DeterministicController(store, embedder).ask
        before = ask("was the grey car there before 8 am?", choices=["yes", "no"])
        assert before.text.endswith(": no camera recorded then."), before.text
        assert before.choice == "no"
        kitchen = ask("was anyone in the kitchen at 9:00:05?").text
        assert kitchen.endswith(": that camera recorded nothing then."), kitchen
        street = ask("was anyone on the street after 9:00:30?").text  # recorded until 09:00:10: nothing then
        assert street.endswith("that camera recorded nothing then."), street
        seen_none = ask("was a dog on the street at 9:00:05?").text  # recorded then, no dog: an absence seen
        assert seen_none.startswith("No: I have not seen a dog") and "recorded" not in seen_none, seen_none


def test_places_are_the_rooms_and_on_one_camera_the_spots_there(tmp_path, embedder) -> None:
    with Store(_home(tmp_path), mode="read") as store:
        ask = DeterministicController(store, embedder).ask
        rooms = ask("in how many places were people seen?").text
        assert rooms.startswith("2 places:") and "camera kitchen, camera street" in rooms, rooms
        assert ask("how many places was the car seen in?").text.startswith("1 place:")


def test_a_person_memory_cannot_pick_out_by_the_word_said_is_answered_with_the_people_seen(tmp_path, embedder):
    with Store(_home(tmp_path), mode="read") as store:
        ask = DeterministicController(store, embedder).ask
        for question in ("what was my daughter wearing?", "when did my husband come in?"):
            answer = ask(question)
            assert answer.tool == "list" and "any person (memory does not tell sex or age)" in answer.text, answer.text
            assert "people seen" in answer.text or "person seen" in answer.text, answer.text
        lady = ask("where was the lady?")  # the cameras people were on, each with its last sighting
        assert lady.tool == "which_camera" and "any person (memory does not tell sex or age)" in lady.text, lady.text
        assert "camera street" in lady.text and "camera kitchen" in lady.text, lady.text
        kitchen = ask("what was the lady in the kitchen wearing?")  # of one in a room: the ones there
        assert kitchen.tool == "attribute", kitchen.text
        last = ask("when did you last see the baby?")  # when the last person was seen: what memory can say, said so
        assert last.tool == "when" and "any person (memory does not tell sex or age)" in last.text, last.text
        assert "last seen" in last.text and "babies" not in last.text, last.text
        counted = ask("how many kids were there?").text
        assert "any person" in counted and "kids" not in counted.split(")", 1)[1], counted


def test_how_long_ago_counts_back_from_the_time_asked(tmp_path, embedder) -> None:
    with Store(_home(tmp_path), mode="read") as store:
        ask = DeterministicController(store, embedder).ask
        car = ask("when was the car last seen?")
        t = float(car.evidence[-1]["t_end"])  # type: ignore[arg-type]
        ago = ask("how long ago was the car seen?", as_of=t + 2 * 3600 + 5 * 60)
        assert ago.text.startswith("2 h 5 min ago: entity #1 (car) was last seen"), ago.text
        hours = ask("how many hours ago was the car seen?", as_of=t + 2 * 3600 + 5 * 60)
        assert hours.tool == "when" and hours.text.startswith("2 h 5 min ago:"), hours.text


def test_whose_a_thing_is_says_when_memory_learnt_no_owner(tmp_path, embedder) -> None:
    with Store(_home(tmp_path), mode="read") as store:
        ask = DeterministicController(store, embedder).ask
        whose = ask("whose car was that?")
        assert whose.tool == "habit" and whose.text.startswith("I don't know whose car #1 is"), whose.text
        way = ask("which way was the car going?")
        assert way.tool == "attribute" and way.finding.get("field") == "motion", way.finding


def test_everyone_so_holds_of_each_of_them(tmp_path, embedder) -> None:
    with Store(_home(tmp_path), mode="read") as store:
        ask = DeterministicController(store, embedder).ask
        everyone = ask("was everyone wearing red?")  # bob in red, ann not: not everyone
        assert everyone.text.startswith("No: 1 of the 2 people seen are mostly in red"), everyone.text
        kitchen = ask("was everybody in the kitchen in red?", as_of=T + 3600 + 60)  # only bob there then
        assert kitchen.text.startswith("Yes"), kitchen.text


def test_right_now_with_nothing_recorded_says_so_and_when_one_was_last_seen(tmp_path, embedder) -> None:
    with Store(_home(tmp_path), mode="read") as store:
        ask = DeterministicController(store, embedder).ask
        later = T + 7200 + 3600  # an hour after the kitchen's last recording
        now = ask("anyone in the kitchen rn?", as_of=later).text
        assert now.startswith("I can't tell: I have not seen a person on camera kitchen"), now
        assert "that camera recorded nothing then" in now, now
        assert "The last seen before then: person #2," in now, now
        during = ask("anyone in the kitchen right now?", as_of=T + 7200 + 1).text  # while it recorded: seen
        assert during.startswith("Yes"), during
        car = ask("is the car on the street right now?", as_of=later, choices=["yes", "no", "can't tell"])
        assert (
            car.text.startswith("I can't tell: I have not seen a car on camera street") and car.choice == "can't tell"
        )


def test_which_came_first_in_a_chat_is_of_the_last_two_things_talked_about(tmp_path, embedder) -> None:
    from edge_agent.qa.conversation import Conversation

    with Store(_home(tmp_path), mode="read") as store:
        chat = Conversation(DeterministicController(store, embedder))
        chat.ask("how long was the car there?")
        chat.ask("and the person in the kitchen?")
        chat.ask("what colour was it?")  # the same person, asked again: one thing, not a second
        first = chat.ask("which one came first?").text
        assert "car" in first and "person" in first, first
        chat = Conversation(DeterministicController(store, embedder))
        chat.ask("how long was the person on the street there?")
        kitchen = chat.ask("and the lady in the kitchen?")  # the room says which: not the person talked about
        assert "camera kitchen" in kitchen.text and "camera street" not in kitchen.text, kitchen.text


def test_the_camera_after_another_is_the_next_to_see_it(tmp_path, embedder) -> None:
    with Store(_home(tmp_path), mode="read") as store:  # the street at 09:00, then the kitchen at 10:00 and 11:00
        ask = DeterministicController(store, embedder).ask
        after = ask("which camera saw someone right after the street?").text
        assert after.startswith("Camera kitchen was the first to see a person"), after
        before = ask("which camera saw a person before the kitchen?").text
        assert before.startswith("Camera street was the last to see a person"), before
        came = ask("what came after the street?").text
        assert came.startswith("Camera kitchen was the first"), came


def test_the_only_place_with_a_thing(tmp_path, embedder) -> None:
    with Store(_home(tmp_path), mode="read") as store:  # the car on the street only; people on the street and kitchen
        ask = DeterministicController(store, embedder).ask
        car = ask("was the street the only place with a car?", choices=["yes", "no"])
        assert car.text == "Yes: a car was seen only on camera street." and car.choice == "yes", car.text
        people = ask("was the kitchen the only room with a person?", choices=["yes", "no"])
        assert people.text.startswith("No: a person was seen on camera street as well as kitchen"), people.text
        assert people.choice == "no"


def test_things_picked_by_how_many_times_they_were_seen(tmp_path, embedder) -> None:
    with Store(_home(tmp_path), mode="read") as store:  # the car and ann once each on the street; bob once, ann again
        ask = DeterministicController(store, embedder).ask
        once = ask("which things were seen only once?")
        assert "car #1" in once.text and "person #3" in once.text and "person #2" not in once.text, once.text
        assert ask("who was seen more than once?").text.startswith("1 person seen: person #2"), once.text
        assert ask("how many people were never seen more than once?").text.startswith("1 person"), once.text


def test_how_many_of_those_were_people_counts_among_what_was_just_asked_about(tmp_path, embedder) -> None:
    from edge_agent.qa.conversation import Conversation

    with Store(_home(tmp_path), mode="read") as store:
        chat = Conversation(DeterministicController(store, embedder))
        assert chat.ask("what was on the street?").text.startswith("2 things seen on camera street")
        people = chat.ask("how many of those were people?").text  # of the street's, not every person in memory
        assert people.startswith("1 person on camera street"), people
        cars = chat.ask("and which of them were cars?").text
        assert cars.startswith("1 car seen on camera street"), cars


def test_the_time_between_one_leaving_and_another_showing_up_is_from_the_leaving(tmp_path, embedder) -> None:
    with Store(_home(tmp_path), mode="read") as store:
        ask = DeterministicController(store, embedder).ask
        text = ask("how much time passed between the car leaving and the person in red showing up?").text
        assert text.startswith("About 59 min 58 s: the car left") and "the person in red first seen" in text, text


def test_a_camera_named_alone_lists_what_it_saw(tmp_path, embedder) -> None:
    with Store(_home(tmp_path), mode="read") as store:
        text = DeterministicController(store, embedder).ask("street cam?").text
    assert text.startswith("2 things seen on camera street"), text
