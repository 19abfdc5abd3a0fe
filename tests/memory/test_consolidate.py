"""Traces, folding, and semantic facts with importance (ReflectWorld-MM's trace / schema levels)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.memory import DAY, clip, observation, said, unit

from edge_agent.memory import Store, consolidate
from edge_agent.memory.consolidate import ConsolidationConfig

MUG = unit(np.r_[np.ones(8), np.zeros(8)])
DOG = unit(np.r_[np.zeros(8), np.ones(8)])
ALICE = unit(np.r_[np.ones(4), np.zeros(4), np.ones(4), np.zeros(4)])
COUNTER, SINK, SOFA = (100, 100, 140, 140), (400, 100, 440, 140), (300, 300, 380, 360)


def mug(t0, box=COUNTER, place="counter", track=1):
    return observation(track, t0, box, MUG, description=said("cup", colour="red", zone=place))


def cap(place):
    return f"kitchen: red cup by the {place}"


STILL = ConsolidationConfig(keep_first_s=0.0)  # fold from the first sighting on


def test_a_still_scene_grows_memory_by_changes_not_by_clips(tmp_path):
    with Store(tmp_path / "home", consolidation=STILL) as store:
        for k in range(100):
            store.ingest_clip(clip(k * 10.0), [mug(k * 10.0)], caption=cap("counter"))
        counts = store.counts()
        (trace,) = consolidate.traces(store)
        assert (trace.sightings, trace.t_start, trace.t_end) == (100, 0.0, 991.5)
        # the first observation and the entity's four references (the latest four) stay; the clips between go
        assert counts["observations"] == 5 and counts["clips"] == 5 and counts["ingest_log"] == 5
        assert (
            counts["observation_boxes"] == 20 and counts["vec_obs"] == 5 and counts["episodes"] == 5 + 1
        )  # and one 10-minute episode
        kept = store.observations(1)
        assert [o.t_start for o in kept] == [0.0, 960.0, 970.0, 980.0, 990.0]
        assert sorted(store.reference_ids(1)) == [o.id for o in kept[1:]]
        # the same clip again (a crash and a re-run) is not written twice, though its clip was folded
        again = store.ingest_clip(clip(500.0), [mug(500.0)], caption=cap("counter"))
        assert not again.created and store.counts()["observations"] == 5
        assert store.db.query("SELECT clip_t_start, clip_t_end, observations FROM ingest_log ORDER BY clip_t_start")[
            0
        ] == (0.0, 960.0, 96)
        assert store.resume_point("kitchen") == 1000.0
        # a change is kept: the mug moves to the sink
        store.ingest_clip(clip(1000.0), [mug(1000.0, SINK, "sink")], caption=cap("sink"))
        assert [t.place for t in consolidate.traces(store, 1)] == ["counter", "sink"]
        assert store.counts()["observations"] == 6


def test_the_first_minutes_of_a_stay_are_kept(tmp_path):
    with Store(tmp_path / "home") as store:  # default: 300 s
        for k in range(100):
            store.ingest_clip(clip(k * 10.0), [mug(k * 10.0)], caption=cap("counter"))
        kept = [o.t_start for o in store.observations(1)]
        assert kept == [10.0 * k for k in range(31)] + [960.0, 970.0, 980.0, 990.0]


def test_episode_summaries_still_see_what_stayed(tmp_path):
    with Store(tmp_path / "home", consolidation=STILL) as store:
        for k in range(200):
            store.ingest_clip(clip(k * 10.0), [mug(k * 10.0)], caption=cap("counter"))
        texts = [t for (t,) in store.db.query("SELECT text FROM episodes WHERE scale = '10min' ORDER BY t_start")]
        assert len(texts) == 3 and all("red cup" in t for t in texts)  # the middle window holds only the trace


def test_an_empty_view_keeps_its_first_and_latest_clip(tmp_path):
    with Store(tmp_path / "home", consolidation=STILL) as store:
        for k in range(20):
            store.ingest_clip(clip(k * 10.0), [], caption="kitchen: nothing detected")
        assert [c for c in store.db.query("SELECT t_start FROM clips ORDER BY t_start")] == [(0.0,), (190.0,)]
        assert store.resume_point("kitchen") == 200.0


def test_folding_off_keeps_every_observation(tmp_path):
    with Store(tmp_path / "home", consolidation=ConsolidationConfig(enabled=False)) as store:
        for k in range(10):
            store.ingest_clip(clip(k * 10.0), [mug(k * 10.0)], caption=cap("counter"))
        assert store.counts()["observations"] == 10 and store.counts()["traces"] == 0


def test_contradicting_evidence_lowers_and_deletes_a_fact(tmp_path):
    config = ConsolidationConfig(gamma=0.2, contradiction=0.3, min_importance=0.05)
    with Store(tmp_path / "home", consolidation=config) as store:
        t = 0.0
        for _ in range(5):  # five separate stays on the counter (an hour apart: separate traces)
            store.ingest_clip(clip(t), [mug(t)])
            t += 3600
        (place,) = [f for f in consolidate.facts(store, [1]) if f.kind == "place"]
        assert place.value == "counter" and place.confirmations == 5
        assert place.importance == pytest.approx(1 - 0.8**5)
        store.ingest_clip(clip(t), [mug(t, SINK, "sink")])
        by_value = {f.value: f for f in consolidate.facts(store, [1]) if f.kind == "place"}
        assert by_value["counter"].importance == pytest.approx((1 - 0.8**5) * 0.7)
        assert by_value["sink"].importance == pytest.approx(0.2)
        state = [f for f in consolidate.facts(store, [1]) if f.kind == "state"]
        assert [f.value for f in state] == ["sink"]  # the current state is replaced outright
        for _ in range(8):
            t += 3600
            store.ingest_clip(clip(t), [mug(t, SINK, "sink")])
        assert "counter" not in {f.value for f in consolidate.facts(store, [1])}  # fell below 0.05: deleted
        assert consolidate.facts(store, [1])[0].value == "sink"


def test_owner_and_habit(tmp_path, embedder):
    from edge_agent.qa.deterministic import DeterministicController

    with Store(tmp_path / "home") as store:
        person = observation(2, 3600.0, (200, 50, 260, 250), ALICE, kind="person", category="person")
        store.ingest_clip(clip(0.0), [mug(0.0)])
        store.ingest_clip(clip(3600.0), [mug(3600.0, SINK, "sink"), person])  # Alice there while it moved
        owner = [f for f in consolidate.facts(store, [1]) if f.kind == "owner"]
        assert len(owner) == 1 and owner[0].value == str(store.entities("person")[0].id)
        whose = DeterministicController(store, embedder).ask("whose cup is it?")  # the owner it learnt leads
        assert whose.tool == "habit" and "moved by #" in whose.text.split(";")[0], whose.text
        assert "don't know whose" not in whose.text, whose.text
        for day in range(4):  # the dog on the sofa at 19:00 on four days
            t = day * DAY + 19 * 3600
            store.ingest_clip(
                clip(t),
                [
                    observation(
                        3,
                        t,
                        SOFA,
                        DOG,
                        kind="animal",
                        category="dog",
                        description=said("dog", colour="brown", zone="sofa"),
                    )
                ],
            )
        dog = store.entities("animal")[0].id
        habits = [f for f in consolidate.facts(store, [dog]) if f.kind.startswith("habit")]
        assert [(f.kind, f.value, f.confirmations) for f in habits] == [("habit:evening", "sofa", 2)]  # days 3 and 4
        assert "most evenings" in habits[0].text


def test_a_reference_observation_is_never_folded(tmp_path):
    with Store(tmp_path / "home", consolidation=STILL) as store:
        for k in range(6):
            store.ingest_clip(clip(k * 10.0), [mug(k * 10.0)], caption=cap("counter"))
        refs = store.reference_ids(1)
        remaining = {o.id for o in store.observations(1)}
        assert set(refs) <= remaining


# The importance rules on values (no SQLite): gamma 0.2, contradiction 0.3, min_importance 0.05 by default.


@pytest.mark.parametrize(
    ("w", "replace", "after"),
    [
        (None, False, 0.2),  # a new fact starts at gamma
        (0.2, False, 0.36),  # w + (1 - w) * gamma
        (0.9, False, 0.92),
        (1.0, False, 1.0),  # never above 1
        (None, True, 1.0),  # the current state, replaced outright
        (0.3, True, 1.0),
    ],
)
def test_confirming_evidence_reinforces_a_fact(w, replace, after):
    assert consolidate.reinforced(w, ConsolidationConfig(), replace=replace) == pytest.approx(after)


@pytest.mark.parametrize(
    ("w", "replace", "after"),
    [
        (1.0, False, 0.7),  # w * (1 - contradiction)
        (0.2, False, 0.14),
        (0.07, False, None),  # 0.049 < min_importance: deleted
        (1.0, True, None),  # another current state: the old one goes
    ],
)
def test_contradicting_evidence_lowers_or_deletes_a_fact(w, replace, after):
    lowered = consolidate.contradicted(w, ConsolidationConfig(), replace=replace)
    assert lowered == (None if after is None else pytest.approx(after))
