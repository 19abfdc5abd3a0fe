"""Questions that name a moment: the moment's records join the search, the subject is the entity seen
then, and 'what happened after' follows the same entity to its next place."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.memory import DAY, clip, near, observation, said, unit

from edge_agent.clock import format_utc
from edge_agent.memory import Store, queries
from edge_agent.qa.findings import Seconds, YesNo


def _ring(track, t, box, vector, **described):
    """A key ring's observation, described with ``described`` (colour, zone, company...)."""
    return observation(track, t, list(box), vector, category="keys", description=said("keys", **described))


def _seen_again(store, track, box, vector, zone, times, seed=1):
    """A grey key ring seen again by ``zone`` at each of ``times`` (a clip each); the last decision."""
    for k, t in enumerate(times):
        decision = store.ingest_clip(
            clip(t), [_ring(track, t, box, near(vector, 0.99, seed=seed + k), colour="grey", zone=zone)]
        ).decisions[0]
    return decision


def _keys(store):
    """Two look-alike key rings seen by the sink at different times; one of them later by the table."""
    a, b = unit(np.r_[np.ones(4), np.zeros(28)]), unit(np.r_[np.zeros(4), np.ones(4), np.zeros(24)])
    first = store.ingest_clip(
        clip(DAY), [_ring(1, DAY, (0, 0, 40, 40), a, colour="grey", pattern="plain", zone="sink")]
    ).decisions[0]
    other = store.ingest_clip(
        clip(DAY + 3600), [_ring(1, DAY + 3600, (0, 0, 40, 40), b, colour="grey", pattern="plain", zone="sink")]
    ).decisions[0]
    later = store.ingest_clip(
        clip(DAY + 7200),
        [_ring(1, DAY + 7200, (200, 0, 240, 40), near(a, 0.97, seed=1), colour="grey", pattern="plain", zone="table")],
    ).decisions[0]
    return first, other, later


def test_moment_picks_the_instance_and_after_follows_it(tmp_path, embedder):
    from edge_agent.qa import DeterministicController

    with Store(tmp_path / "home") as store:
        first, other, later = _keys(store)
        assert first.entity_id == later.entity_id != other.entity_id
        controller = DeterministicController(store, embedder)
        when = format_utc(DAY + 2, zone=True)
        answer = controller.ask(
            f"What happened to the grey keys after they were by the sink at {when}?",
            choices=["it was moved to the table", "it was moved to the door"],
        )
        assert answer.tool == "what_happened" and answer.choice_index == 0
        assert {c["observation"] for c in answer.evidence} == {first.observation_id, later.observation_id}
        assert set(answer.seen) >= {first.observation_id, later.observation_id}
        # The other key ring, named by its own moment, stayed by the sink.
        other_when = format_utc(DAY + 3602, zone=True)
        assert (
            controller.ask(f"What happened to the keys after {other_when}?").evidence[0]["observation"]
            == other.observation_id
        )
        # A bound in the question: nothing after it is used.
        bound = controller.ask(f"Where were the keys last seen before {format_utc(DAY + 3000, zone=True)}?")
        assert bound.evidence[-1]["observation"] == first.observation_id


def test_moment_seeds_retrieval(tmp_path, embedder):
    from edge_agent.retrieval import RetrievalConfig, Retriever

    with Store(tmp_path / "home") as store:
        first, other, _ = _keys(store)
        assert store.items_between(DAY + 3590, DAY + 3610)[0] == [other.observation_id]
        retriever = Retriever(store, embedder, RetrievalConfig(budget=1))
        assert retriever.retrieve("grey keys by the sink", around=[DAY + 3601]).observation_ids == [
            other.observation_id
        ]
        assert retriever.retrieve("grey keys by the sink", around=[DAY + 1]).observation_ids == [first.observation_id]
        assert (
            retriever.retrieve("grey keys", around=[DAY + 3601], as_of=DAY + 100).seeds["moments"] == 0
        )  # a moment after as-of


def test_count_arrivals_and_moves_on_a_day(tmp_path, embedder):
    from edge_agent.qa import DeterministicController

    with Store(tmp_path / "home") as store:
        dog = unit(np.r_[np.ones(4), np.zeros(28)])
        places = [
            (DAY, "floor"),
            (DAY + 600, "sofa"),
            (DAY + 1200, "sofa"),
            (DAY + 1800, "door"),
            (DAY + 2400, "sofa"),
            (2 * DAY, "sofa"),
        ]
        for k, (t, place) in enumerate(places):
            store.ingest_clip(
                clip(t),
                [
                    observation(
                        1,
                        t,
                        [0, 0, 40, 40],
                        near(dog, 0.99, seed=k),
                        kind="animal",
                        category="dog",
                        description=said("dog", colour="brown", pattern="plain", zone=place),
                    )
                ],
            )
        controller = DeterministicController(store, embedder)
        day = format_utc(DAY)[:10]
        on_sofa = controller.ask(f"How many times did the dog get on the sofa on {day}?", choices=["1", "2", "3"])
        assert (
            on_sofa.text.startswith("2 times") and on_sofa.choice == "2" and len(on_sofa.evidence) == 4
        )  # arrivals and where from
        moved = controller.ask(f"How many times was the dog moved to another place on {day}?")
        assert moved.text.startswith("3 times")  # floor -> sofa -> door -> sofa
        assert controller.ask("How many times did the dog get on the sofa?").text.startswith("2 times")  # every day
        # On the next day it was already there: it did not get on it again.
        assert controller.ask(
            f"How many times did the dog get on the sofa on {format_utc(2 * DAY)[:10]}?"
        ).text.startswith("0 times")


def test_a_place_a_thing_was_carried_past_is_not_a_move(tmp_path, embedder):
    """A cup on the desk is carried past the table (read there twice within 4 s) and put by the sink: one move,
    and after the desk it went to the sink; put on the table for a minute and then by the sink: two moves."""
    from edge_agent.qa import DeterministicController

    def ask(stops, *questions):
        with Store(tmp_path / f"home{len(list(tmp_path.iterdir()))}") as store:
            cup = unit(np.r_[np.ones(4), np.zeros(28)])
            for k, (t, place) in enumerate(stops):
                store.ingest_clip(
                    clip(t, length=2.0),
                    [
                        observation(
                            1,
                            t,
                            [0, 0, 40, 40],
                            near(cup, 0.99, seed=k),
                            category="cup",
                            description=said("cup", colour="red", pattern="plain", zone=place),
                        )
                    ],
                )
            controller = DeterministicController(store, embedder)
            return [controller.ask(q).text for q in questions]

    day, desk = format_utc(DAY)[:10], format_utc(DAY + 1, zone=True)
    count, after = ask(
        [(DAY, "desk"), (DAY + 600, "table"), (DAY + 602, "table"), (DAY + 604, "sink")],
        f"How many times was the red cup moved on {day}?",
        f"What happened to the red cup after it was by the desk at {desk}?",
    )
    assert count.startswith("1 time") and count.endswith(f"{format_utc(DAY + 604)[11:19]}.")
    assert "moved to the sink" in after
    (count,) = ask(
        [(DAY, "desk"), (DAY + 600, "table"), (DAY + 660, "sink")], f"How many times was the cup moved on {day}?"
    )
    assert count.startswith("2 times")
    # picked up (read on the way, by the table) and put back on the desk: moved once
    stops = [(DAY, "desk"), (DAY + 600, "table"), (DAY + 603, "desk"), (DAY + 700, "desk")]
    (count,) = ask(stops, f"How many times was the cup moved on {day}?")
    assert count.startswith("1 time") and count.endswith(f"{format_utc(DAY + 603)[11:19]}.")
    # first seen being carried, then put on the table: moved once
    (count,) = ask(
        [(DAY + 5, "sink"), (DAY + 8, "table"), (DAY + 900, "table")], f"How many times was the cup moved on {day}?"
    )
    assert count.startswith("1 time")


def test_moment_next_to_the_bound_sees_nothing_after_it(tmp_path, embedder):
    from edge_agent.retrieval import Retriever

    with Store(tmp_path / "home") as store:
        first, other, _ = _keys(store)
        retriever = Retriever(store, embedder)
        # The moment is 10 s before the bound; the other key ring, 5 s after the bound, is within the moment's window.
        evidence = retriever.retrieve("grey keys", around=[DAY + 3595], as_of=DAY + 3600)
        assert other.observation_id not in evidence.observation_ids


def test_back_at_the_same_place_after_the_camera_saw_it_gone_is_another_arrival(tmp_path, embedder):
    from edge_agent.qa import DeterministicController

    with Store(tmp_path / "home") as store:
        dog = unit(np.r_[np.ones(4), np.zeros(28)])
        on_sofa = dict(kind="animal", category="dog", description=said("dog", colour="brown", zone="sofa"))
        store.ingest_clip(clip(DAY), [observation(1, DAY, [0, 0, 40, 40], dog, **on_sofa)])
        store.ingest_clip(clip(DAY + 3600), [], caption="kitchen: nothing detected")  # recorded twice: no dog
        store.ingest_clip(clip(DAY + 5400), [], caption="kitchen: nothing detected")
        store.ingest_clip(
            clip(DAY + 7200), [observation(1, DAY + 7200, [0, 0, 40, 40], near(dog, 0.99, seed=1), **on_sofa)]
        )
        store.ingest_clip(
            clip(DAY + 7300), [observation(1, DAY + 7300, [0, 0, 40, 40], near(dog, 0.99, seed=2), **on_sofa)]
        )
        controller = DeterministicController(store, embedder)
        answer = controller.ask(f"How many times did the dog get on the sofa on {format_utc(DAY)[:10]}?")
        assert answer.text.startswith("2 times")  # not the unbroken stay at 7200-7300 twice, not once for the day
        # A worn camera that looked elsewhere in between says nothing of the dog leaving: one stay on the sofa
        worn = DeterministicController(store, embedder, moving_cameras=["kit*"])
        answer = worn.ask(f"How many times did the dog get on the sofa on {format_utc(DAY)[:10]}?")
        assert answer.text.startswith("1 time"), answer.text


def test_the_place_named_at_a_moment_picks_among_look_alikes(tmp_path, embedder):
    """'The grey keys that were by the table at T': of two look-alike key rings seen then, the one described by
    the table, though the words of the question are more like the other's description (the light made this one
    look white; a dining table was in view of the other) and the other was seen far more often since."""
    from edge_agent.qa import DeterministicController

    a, b = unit(np.r_[np.ones(4), np.zeros(28)]), unit(np.r_[np.zeros(4), np.ones(4), np.zeros(24)])
    with Store(tmp_path / "home") as store:
        both = store.ingest_clip(
            clip(DAY),
            [
                _ring(1, DAY, (0, 0, 40, 40), a, colour="grey", zone="sink", company=(("dining table", 1),)),
                _ring(2, DAY, (300, 0, 340, 40), b, colour="white", zone="table"),
            ],
        ).decisions
        _seen_again(store, 1, (0, 0, 40, 40), a, "sink", [DAY + 600 * k for k in range(1, 8)])  # again and again
        moved = _seen_again(store, 1, (500, 0, 540, 40), b, "door", [DAY + 7200], seed=9)
        assert moved.entity_id == both[1].entity_id != both[0].entity_id
        controller = DeterministicController(store, embedder)
        answer = controller.ask(
            f"The grey keys that were by the table at {format_utc(DAY + 1, zone=True)}: where were they last seen?",
            choices=["by the sink", "by the door", "by the table"],
        )
        assert answer.choice_index == 1, answer.text
        assert answer.evidence[-1]["observation"] == moved.observation_id
        sink, table = both[0].entity_id, both[1].entity_id
        assert queries.at_place(store.db, [sink, table], ["table"], DAY - 20, DAY + 20) == {table}
        assert queries.at_place(store.db, [sink, table], ["sink", "door"], DAY + 4100, DAY + 7300) == {sink, table}
        assert queries.at_place(store.db, [sink, table], ["table"], DAY + 7000, DAY + 7300) == set()
        assert queries.at_place(store.db, [sink], ["table"], DAY - 20, DAY + 20) == set()


def test_last_seen_follows_a_possibly_same_continuation(tmp_path, embedder):
    """The keys looked different from the next day on (another light): a new entity, recorded as possibly the
    same, first seen after the first was last seen. 'Where are the keys?' answers from the continuation and says
    so; a look-alike seen at the same time as the first is no continuation."""
    from edge_agent.qa import DeterministicController

    a = unit(np.r_[np.ones(4), np.zeros(28)])

    def seen(t, vector, zone, track=1, box=(0, 0, 40, 40)):
        return _ring(track, t, box, vector, colour="grey", zone=zone)

    with Store(tmp_path / "home") as store:
        first = store.ingest_clip(clip(DAY), [seen(DAY, a, "sink")]).decisions[0]
        store.ingest_clip(clip(DAY + 600), [seen(DAY + 600, near(a, 0.99, seed=1), "table")])
        later = store.ingest_clip(  # by the door: elsewhere in the frame
            clip(2 * DAY), [seen(2 * DAY, near(a, 0.8, seed=2), "door", box=(300, 0, 340, 40))]
        ).decisions[0]
        assert later.created_entity and [(x, y) for x, y, _ in store.possibly_same()] == [
            (first.entity_id, later.entity_id)
        ]
        controller = DeterministicController(store, embedder)
        answer = controller.ask("Where were the grey keys last seen?", choices=["by the table", "by the door"])
        assert answer.choice_index == 1, answer.text
        assert f"possibly the same keys as entity #{first.entity_id}" in answer.text
        cited = {c["observation"] for c in answer.evidence}
        assert later.observation_id in cited and len(cited) >= 2
        # Before the continuation was first seen, the first is where it was last seen.
        early = controller.ask(
            f"Where were the grey keys last seen before {format_utc(DAY + 3600, zone=True)}?",
            choices=["by the table", "by the door"],
        )
        assert early.choice_index == 0, early.text
        same = controller.ask(f"is #{first.entity_id} the same as entity {later.entity_id}?", choices=["yes", "no"])
        assert same.text.startswith("Possibly: memory holds them as two"), same.text  # said, not a bare "no"

    with Store(tmp_path / "together") as store:  # seen together once: two things, not one
        first = store.ingest_clip(clip(DAY), [seen(DAY, a, "sink")]).decisions[0]
        other = store.ingest_clip(
            clip(DAY + 600),
            [
                seen(DAY + 600, near(a, 0.99, seed=1), "table"),
                seen(DAY + 600, near(a, 0.8, seed=2), "door", 2, (300, 0, 340, 40)),
            ],
        ).decisions[1]
        assert other.created_entity
        store.ingest_clip(clip(2 * DAY), [seen(2 * DAY, near(a, 0.99, seed=3), "sink")])
        answer = DeterministicController(store, embedder).ask(
            "Where were the grey keys last seen?", choices=["by the sink", "by the door"]
        )
        assert "possibly the same" not in answer.text


def test_a_time_one_second_nearer_one_choice_picks_it():
    from edge_agent.qa.deterministic import _typed_choice

    choices = ["2026-03-02 13:00:00 UTC", "2026-03-02 13:00:03 UTC", "2026-03-02 13:00:05 UTC"]
    first_seen = 1772456401.0  # 13:00:01: one second from the first choice, two from the second
    assert _typed_choice(first_seen, choices) == (choices[0], 0)
    assert _typed_choice(first_seen + 0.5, choices) == (None, None)  # 1.5 s against 1.5 s: left to the text


def test_an_open_question_about_one_camera_is_answered_from_that_camera(tmp_path, embedder):
    """An open question is a summary of the episodes of the camera (and window) it names, or a list of what was seen
    there: never the most relevant search lines, and never another camera's observations."""
    from edge_agent.qa import DeterministicController

    cup, car = unit(np.r_[np.ones(4), np.zeros(28)]), unit(np.r_[np.zeros(8), np.ones(4), np.zeros(20)])
    with Store(tmp_path / "home") as store:
        for k in range(3):
            store.ingest_clip(
                clip(DAY + 60 * k, camera="kitchen"),
                [observation(1, DAY + 60 * k, [0, 0, 40, 40], cup, description=said("cup", colour="red"))],
            )
        store.ingest_clip(
            clip(DAY + 600, camera="street"),
            [observation(1, DAY + 600, [0, 0, 80, 60], car, category="car", description=said("car", colour="grey"))],
        )
        store.close_episodes()
        controller = DeterministicController(store, embedder)
        for question in ("What happened on the street?", "what was on the street camera?", "anything on the street?"):
            answer = controller.ask(question)
            assert "Most relevant in memory" not in answer.text and "camera kitchen" not in answer.text, question
            assert answer.evidence and {e["camera"] for e in answer.evidence} == {"street"}, question


def test_after_follows_the_kind_the_question_names(tmp_path, embedder):
    """A silver phone by the sink and keys beside it (no place read for them); the phone is moved to the table, the
    keys stay. What happened to the keys is about the keys, however well the phone's words match the question; that
    they stayed is grounded on when they were last seen."""
    from edge_agent.qa import DeterministicController

    keys, phone = unit(np.r_[np.ones(4), np.zeros(28)]), unit(np.r_[np.zeros(4), np.ones(4), np.zeros(24)])

    def seen(t, phone_at):
        return [
            _ring(1, t, (0, 0, 40, 40), near(keys, 0.99, seed=int(t)), colour="grey", pattern="plain"),
            observation(
                2,
                t,
                [100, 0, 140, 40],
                near(phone, 0.99, seed=int(t) + 1),
                category="phone",
                description=said("phone", colour="silver", pattern="plain", zone=phone_at),
            ),
        ]

    with Store(tmp_path / "home") as store:
        first = store.ingest_clip(clip(DAY), seen(DAY, "sink")).decisions
        last = store.ingest_clip(clip(DAY + 600), seen(DAY + 600, "table")).decisions
        answer = DeterministicController(store, embedder).ask(
            f"What happened to the silver keys after they were put by the sink at {format_utc(DAY + 2, zone=True)}?"
        )
        assert answer.tool == "what_happened"
        assert f"entity #{first[0].entity_id} stayed where it was" in answer.text
        assert {c["observation"] for c in answer.evidence} == {first[0].observation_id, last[0].observation_id}


def test_no_move_is_grounded_on_each_time_it_was_seen_again(tmp_path, embedder):
    """A cup by the sink in three visits on one day (two clips in the first): moved 0 times, cited where it was seen
    each time it was seen again, once per visit."""
    from edge_agent.qa import DeterministicController

    cup = unit(np.r_[np.ones(4), np.zeros(28)])
    with Store(tmp_path / "home") as store:
        firsts = []
        for k, t in enumerate((DAY, DAY + 10, DAY + 3600, DAY + 7200)):
            (decision,) = store.ingest_clip(
                clip(t),
                [
                    observation(
                        1,
                        t,
                        [0, 0, 40, 40],
                        near(cup, 0.99, seed=k),
                        category="cup",
                        description=said("cup", colour="red", pattern="plain", zone="sink"),
                    )
                ],
            ).decisions
            if t != DAY + 10:
                firsts.append(decision.observation_id)
        answer = DeterministicController(store, embedder).ask(
            f"How many times was the red cup moved to another place on {format_utc(DAY)[:10]}?"
        )
        assert answer.text.startswith("0 times")
        assert [c["observation"] for c in answer.evidence] == firsts


def test_the_one_there_at_the_moment_before_one_put_there_just_after(tmp_path, embedder):
    """'The grey keys that were by the table at T': one ring lay there at T (the light made it look white and
    checked); the other was put there 12 s later (within the seconds a moment's records are searched), described as
    the question says and seen there far more often since. The one there at T is meant; the other only when none was
    there at T itself."""
    from edge_agent.qa import DeterministicController

    a, b = unit(np.r_[np.ones(4), np.zeros(28)]), unit(np.r_[np.zeros(4), np.ones(4), np.zeros(24)])
    with Store(tmp_path / "home") as store:
        (there,) = store.ingest_clip(
            clip(DAY, length=4.0), [_ring(1, DAY, (0, 0, 40, 40), a, colour="white", pattern="checked", zone="table")]
        ).decisions
        put = store.ingest_clip(
            clip(DAY + 12, length=4.0),
            [_ring(2, DAY + 12, (40, 0, 80, 40), b, colour="grey", zone="table")],
        ).decisions[0]
        _seen_again(store, 2, (40, 0, 80, 40), b, "table", [DAY + 600 * k for k in range(1, 6)])  # again and again
        moved = _seen_again(store, 1, (500, 0, 540, 40), a, "door", [DAY + 7200], seed=9)
        assert moved.entity_id == there.entity_id != put.entity_id
        controller = DeterministicController(store, embedder)
        answer = controller.ask(
            f"The grey keys that were by the table at {format_utc(DAY, zone=True)}: where were they last seen?",
            choices=["by the table", "by the door"],
        )
        assert answer.choice_index == 1, answer.text
        later = controller.ask(
            f"The grey keys that were by the table at {format_utc(DAY + 30, zone=True)}: where were they last seen?",
            choices=["by the table", "by the door"],
        )
        assert later.choice_index == 0, later.text


def test_which_of_two_places_and_how_long_it_stayed_at_one_after_a_moment(tmp_path, embedder):
    from edge_agent.qa import DeterministicController

    a = unit(np.r_[np.ones(4), np.zeros(28)])
    with Store(tmp_path / "home") as store:
        _seen_again(store, 1, (0, 0, 40, 40), a, "sink", [DAY, DAY + 600, DAY + 1200])
        _seen_again(store, 1, (200, 0, 240, 40), a, "table", [DAY + 7200], seed=7)
        ask = DeterministicController(store, embedder).ask
        choices = ["by the sink", "by the table"]
        early = ask(
            f"Were the grey keys by the sink or by the table at {format_utc(DAY + 601, zone=True)}?", choices=choices
        )
        assert early.choice == "by the sink" and early.text.startswith("Sink: "), early.text
        late = ask(
            f"Were the grey keys by the sink or by the table at {format_utc(DAY + 7201, zone=True)}?", choices=choices
        )
        assert late.choice == "by the table", late.text
        stayed = ask(
            f"How long were the grey keys by the sink after they were put there at {format_utc(DAY, zone=True)}?",
            choices=["about 20 minutes", "about 2 hours"],
        )
        assert stayed.choice == "about 20 minutes" and "at sink" in stayed.text, stayed.text


def test_how_long_a_thing_stayed_where_a_worn_camera_left_it_is_until_it_was_next_seen_elsewhere(tmp_path, embedder):
    """A worn camera looks at a place only now and then: a thing put by the sink and next seen by the table two hours
    later may have stayed by the sink all that time; a fixed camera that saw it go says the time it saw."""
    from edge_agent.qa import DeterministicController

    a = unit(np.r_[np.ones(4), np.zeros(28)])
    with Store(tmp_path / "home") as store:
        _seen_again(store, 1, (0, 0, 40, 40), a, "sink", [DAY])
        _seen_again(store, 1, (200, 0, 240, 40), a, "table", [DAY + 7200], seed=7)
        question = f"How long were the grey keys by the sink after they were put there at {format_utc(DAY, zone=True)}?"
        choices = ["about 10 seconds", "about 2 hours"]
        worn = DeterministicController(store, embedder, moving_cameras=["kit*"]).ask(question, choices=choices)
        assert worn.choice == "about 2 hours", worn.text
        assert worn.text.startswith("Up to about 2 h") and "then next seen at table" in worn.text, worn.text
        assert len(worn.evidence) == 2  # its sighting by the sink and the next, by the table
        fixed = DeterministicController(store, embedder).ask(question, choices=choices)
        assert fixed.choice == "about 10 seconds" and fixed.text.startswith("About "), fixed.text


@pytest.mark.parametrize(
    ("typed", "choices", "expected"),
    [  # a blind multiple-choice round's choices, as people write them
        (Seconds(79.0), ["about 40 seconds", "under 10 seconds", "roughly 3 minutes", "about 1 min 19 s"], 3),
        (Seconds(79.0), ["1m19s", "a few secs", "about 5 mins", "half a min"], 0),
        (Seconds(0.5), ["30 secs", "just a moment, one sighting", "2 mins", "the whole hour"], 1),
        (Seconds(30.0), ["between 10 seconds and a minute", "over an hour", "a couple of hours"], 0),
        (YesNo(holds=False, fact=True), ["right, it was empty", "there were five people", "not true, one was"], 2),
        ("bowl", ["tv came first", "the bowl, by about an hour", "same time", "never saw a bowl"], 1),
        ("together", ["the car", "the van", "both showed up at the same time", "there was no van"], 2),
        # times said as the reader reads them (2026-03-02 09:00:00 / 10:00:00 / 11:00:08 UTC)
        (1772442000.0, ["just after nine", "just after ten", "around noon", "1 pm"], 0),
        (1772445600.0, ["at 10 in the evening", "at noon", "at 10 in the morning", "at 9 in the morning"], 2),
        (1772449208.0, ["in the evening", "at midnight", "in the morning, around 11", "yesterday"], 2),
        (1772449208.0, ["in the morning", "in the evening"], 0),
        (1772449208.0, ["around 11", "at 2 am"], 0),
        # a colour the describer names is the choice whose colour words cover it
        ("teal", ["light blue", "red", "black", "white"], 0),
        ("teal", ["a turquoise car", "a black one"], 0),
        ("orange", ["red", "brown"], 1),
        # neither yes nor no: the choice that says it cannot be known
        ("can't tell", ["yes, it's there now", "no, it was taken", "can't tell - last seen at 11", "no bowl"], 2),
        ("can't tell", ["yes", "no", "no way to know"], 2),
    ],
)
def test_a_typed_answer_picks_the_choice_people_wrote(typed, choices, expected):
    """Lengths said to the second ("1m19s", "about 1 min 19 s") or as a moment, "not true, ..." as a no, a thing the
    answer found named by a choice that does not deny it, "at the same time" of two first seen together, a time said
    in words ("just after nine", "at 10 in the morning", "in the evening")."""
    from edge_agent.qa.deterministic import _typed_choice

    assert _typed_choice(typed, choices) == (choices[expected], expected)


def test_a_clock_time_to_the_second_picks_its_choice():
    from edge_agent.qa.deterministic import _typed_choice

    noon = 1772452800.0  # 2026-03-02 12:00:00 UTC
    assert _typed_choice(noon, ["12:00:03", "12:00:00", "13:00:01", "11:00:00"]) == ("12:00:00", 1)


def test_without_its_context_an_answer_searches_only_where_its_handler_ranks_by_the_search(tmp_path, embedder):
    """`ask(..., context=False)` (a question scored by its choice, or `edge-agent ask` without --context or --json)
    gives the same answer, but a handler that reads memory's typed views runs no search; one that ranks by it does."""
    from edge_agent.qa import DeterministicController

    with Store(tmp_path / "home") as store:
        first, _, later = _keys(store)
        controller = DeterministicController(store, embedder)
        searches: list[str] = []
        retrieve = controller.retriever.retrieve
        controller.retriever.retrieve = lambda q, **kw: searches.append(q) or retrieve(q, **kw)  # type: ignore[method-assign]
        question, choices = "Where were the keys last seen?", ["by the table", "by the sink"]
        shown = controller.ask(question, choices=choices)
        assert searches == [question] and shown.context and set(shown.seen) >= {later.observation_id}
        bare = controller.ask(question, choices=choices, context=False)
        assert searches == [question] and bare.context == "" and bare.timings_ms.keys() == {"total"}
        assert (bare.text, bare.choice_index, bare.evidence) == (shown.text, shown.choice_index, shown.evidence)
        assert bare.seen == sorted(c["observation"] for c in bare.evidence)  # only what the answer cites
        when = format_utc(DAY + 2, zone=True)  # "after" the moment: which key ring is ranked by the search
        ranked = controller.ask(f"What happened to the grey keys after they were by the sink at {when}?", context=False)
        assert len(searches) == 2 and ranked.context == ""
        assert {c["observation"] for c in ranked.evidence} == {first.observation_id, later.observation_id}
