"""Things taken (edge_agent.memory.takings): decided on a clip's records, kept as a typed row, read back only while
true."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from helpers.memory import clip, observation, unit

from edge_agent.memory import Store
from edge_agent.memory.takings import decide, taking_of

KEYS = unit(np.r_[np.ones(8), np.zeros(8)])
ALICE = unit(np.r_[np.zeros(8), np.ones(8)])
SHELF, BESIDE, FAR = (300, 200, 330, 220), (200, 100, 290, 400), (0, 100, 60, 400)


def keys(t0, frames=4):
    return observation(1, t0, SHELF, KEYS, category="keys", frames=frames)


def person(t0, box, frames=8, track=2):
    return observation(track, t0, box, ALICE, kind="person", category="person", frames=frames)


def test_a_thing_gone_mid_clip_with_a_person_within_reach_was_taken_by_them() -> None:
    # keys seen 0-1.5 s of a 10-s clip; a person beside the shelf at 1-4.5 s: taken at 1.5 s by them
    assert decide([keys(0.0), person(1.0, BESIDE)], 10.0) == [(0, 1, 1.5)]
    # nobody within reach, or nobody at all: gone, not taken (a detector's miss says as much)
    assert decide([keys(0.0), person(1.0, FAR)], 10.0) == []
    assert decide([keys(0.0)], 10.0) == []
    # the person came by long after the keys went: not them
    assert decide([keys(0.0), person(6.0, BESIDE)], 10.0) == []
    # seen to the clip's end: not gone (the next clip may see it again)
    assert decide([keys(8.5), person(8.0, BESIDE)], 10.0) == []
    # the nearest in time of two people within reach
    later = replace(person(3.0, BESIDE, track=3), embedding=unit(np.r_[np.ones(4), np.zeros(12)]))
    assert decide([keys(0.0), later, person(1.0, BESIDE)], 10.0) == [(0, 2, 1.5)]
    # the tracker lost the keys and found them again as another track (a class flip): still there
    again = replace(keys(2.0, frames=16), track_id=4, category="object")
    assert decide([keys(0.0), person(1.0, BESIDE), again], 10.0) == []


def test_memory_keeps_the_taking_until_the_thing_is_seen_again(tmp_path) -> None:
    with Store(tmp_path / "home") as store:
        store.ingest_clip(clip(0.0, 10.0, "hall"), [keys(0.0), person(1.0, BESIDE)])
        thing = store.observation(1).entity_id
        alice = store.observation(2).entity_id
        taken = taking_of(store.db, thing)
        assert taken is not None
        assert (taken.t, taken.by_entity_id, taken.camera, taken.observation_id) == (1.5, alice, "hall", 1)
        assert taking_of(store.db, thing, until=1.0) is None  # as of before it went
        assert taking_of(store.db, alice) is None
        store.ingest_clip(clip(100.0, 10.0, "hall"), [keys(100.0, frames=20)])  # put back: seen again
        assert store.observation(3).entity_id == thing
        assert taking_of(store.db, thing) is None
        assert taking_of(store.db, thing, until=50.0) is not None  # as it stood before it came back


def test_a_worn_cameras_things_are_never_taken(tmp_path) -> None:
    with Store(tmp_path / "home") as store:
        store.ingest_clip(replace(clip(0.0, 10.0, "wearable"), moving=True), [keys(0.0), person(1.0, BESIDE)])
        assert taking_of(store.db, store.observation(1).entity_id) is None


def test_a_car_a_person_walks_past_is_not_taken() -> None:
    car = observation(1, 0.0, (270, 250, 470, 380), KEYS, category="car")
    walker = person(1.0, (200, 150, 260, 400))
    assert decide([car, walker], 10.0) == []
