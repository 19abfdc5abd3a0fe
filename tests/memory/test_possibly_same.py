"""Unresolved identity (GEB): two entities similar on average but under the conservative rule are recorded as
possibly the same, linked in retrieval and noted in the context, never merged by that alone; an observation
that later qualifies for both joins them through a recorded merge that can be undone."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.memory import clip, near, observation, unit

from edge_agent.memory import Store, consolidate, corrections
from edge_agent.retrieval.graph import MemoryGraph

MUG = unit(np.r_[np.ones(8), np.zeros(8)])


def _mug(t: float, vector: np.ndarray, track: int = 1):
    """A mug seen at ``t``, at a spot of its own (one still where it was last seen is that thing: not in question)."""
    return observation(track, t, (100 + t, 100, 140 + t, 140), vector)


def test_a_near_miss_is_possibly_the_same_and_a_later_match_of_both_joins_them(tmp_path):
    drifted = near(MUG, 0.82, seed=1)  # every reference >= tau_low 0.75, none >= tau_high 0.88
    with Store(tmp_path / "home") as store:
        first = store.ingest_clip(clip(0.0), [_mug(0.0, MUG)]).decisions[0]
        second = store.ingest_clip(clip(100.0), [_mug(100.0, drifted)]).decisions[0]
        assert second.created_entity and second.entity_id != first.entity_id
        ((a, b, score),) = store.possibly_same()
        assert (a, b) == (first.entity_id, second.entity_id) and score == pytest.approx(0.82, abs=0.01)
        assert len(store.entities()) == 2  # kept apart: the evidence is unresolved
        graph = MemoryGraph.build(store)
        ea, eb = (len(graph.observation_ids) + int(np.searchsorted(graph.entity_ids, e)) for e in (a, b))
        assert graph.transitions[ea, eb] > 0  # a weaker identity edge for retrieval

        both = unit(MUG + drifted)  # 0.95 to each: qualifies for both
        third = store.ingest_clip(clip(200.0), [_mug(200.0, both)]).decisions[0]
        assert third.entity_id == first.entity_id and not third.created_entity
        (entity,) = store.entities()
        assert entity.id == first.entity_id and entity.observations == 3 and store.possibly_same() == []
        join = store.corrections()[-1]
        assert join["action"] == "join" and join["details"]["absorb"] == second.entity_id
        assert join["details"]["observations"] == [second.observation_id]
        assert {c.entity_id for c in third.candidates} == {first.entity_id, second.entity_id}  # in the log

        kept, undone = corrections.unmerge(store, join["id"])
        assert kept.observations == 2 and undone.observations == 1
        assert store.observation(second.observation_id).entity_id == undone.id
        assert store.separation_evidence(kept.id, undone.id)  # and it stays undone
        with pytest.raises(corrections.CorrectionError, match="not a merge"):
            corrections.unmerge(store, store.corrections()[-1]["id"])


def test_what_the_user_said_differs_is_never_possibly_the_same(tmp_path):
    drifted = near(MUG, 0.82, seed=1)
    with Store(tmp_path / "home") as store:
        a = store.ingest_clip(clip(0.0), [_mug(0.0, MUG)]).decisions[0].entity_id
        b = store.ingest_clip(clip(100.0), [_mug(100.0, drifted)]).decisions[0].entity_id
        assert [(x, y) for x, y, _ in store.possibly_same()] == [(a, b)]
        corrections.not_same(store, a, b)
        assert store.possibly_same() == []
        both = store.ingest_clip(clip(200.0), [_mug(200.0, unit(MUG + drifted))]).decisions[0]
        assert len(store.entities()) == 2 and both.entity_id == a  # matched both, joined neither to the other
        assert store.possibly_same() == []


def test_an_observation_too_unlike_on_average_relates_nothing(tmp_path):
    with Store(tmp_path / "home") as store:
        store.ingest_clip(clip(0.0), [_mug(0.0, MUG)])
        store.ingest_clip(clip(100.0), [_mug(100.0, near(MUG, 0.70, seed=2))])  # under tau_low 0.75
        assert len(store.entities()) == 2 and store.possibly_same() == []


def test_the_context_notes_two_retrieved_entities_that_may_be_one(tmp_path, embedder):
    from edge_agent.retrieval import Retriever, render

    with Store(tmp_path / "home") as store:
        store.ingest_clip(clip(0.0), [_mug(0.0, MUG)], caption="kitchen: a cup")
        store.ingest_clip(clip(100.0), [_mug(100.0, near(MUG, 0.82, seed=1))], caption="kitchen: a cup")
        text = render(store, Retriever(store, embedder).retrieve("cup"))
        assert "Note: #1 and #2 may be the same thing" in text


def test_show_and_unmerge_from_the_command_line(tmp_path, capsys):
    import json

    from edge_agent.cli import main

    home = tmp_path / "home"
    drifted = near(MUG, 0.82, seed=1)
    with Store(home) as store:
        store.ingest_clip(clip(0.0), [_mug(0.0, MUG)])
        store.ingest_clip(clip(100.0), [_mug(100.0, drifted)])
    assert main(["--home", str(home), "entities", "show", "1"]) == 0
    assert "possibly the same as #2 (similarity 0.82)" in capsys.readouterr().out
    with Store(home) as store:
        store.ingest_clip(clip(200.0), [_mug(200.0, unit(MUG + drifted))])
        join = store.corrections()[-1]["id"]
    assert main(["--home", str(home), "entities", "show", "1", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["merges"][0]["id"] == join and len(shown["observations"]) == 3
    assert main(["--home", str(home), "entities", "unmerge", str(join)]) == 0
    assert "(new)" in capsys.readouterr().out
    assert main(["--home", str(home), "entities", "unmerge", "999"]) == 1
    assert "correction 999 is not a merge" in capsys.readouterr().err


def test_a_join_within_a_clip_moves_what_the_clip_already_gave_the_absorbed_entity(tmp_path):
    drifted = near(MUG, 0.82, seed=1)
    with Store(tmp_path / "home") as store:
        store.ingest_clip(clip(0.0), [_mug(0.0, MUG)])
        store.ingest_clip(clip(100.0), [_mug(100.0, drifted)])
        # the first goes to #2 alone; the second (the same box: not two things) matches both and joins them
        result = store.ingest_clip(clip(200.0), [_mug(200.0, drifted, track=1), _mug(200.0, unit(MUG + drifted), 2)])
        assert [d.entity_id for d in result.decisions] == [1, 1]  # as memory holds them now
        (entity,) = store.entities()
        assert entity.observations == 4
        assert {t.entity_id for t in consolidate.traces(store)} == {1}  # the clip's traces follow the join


def test_a_thing_of_another_category_is_never_possibly_the_same(tmp_path):
    """A couch whose colours are like a parked car's (mean similarity over tau_low, under the rule) is not
    possibly the car: categories that are never one thing are never related (a car's "last seen" had followed
    such a relation to a living room's couch)."""
    with Store(tmp_path / "home") as store:
        car = store.ingest_clip(clip(0.0), [observation(1, 0.0, (100, 100, 140, 140), MUG, category="car")])
        couch = store.ingest_clip(
            clip(100.0), [observation(1, 100.0, (100, 100, 140, 140), near(MUG, 0.82, seed=1), category="couch")]
        )
        assert couch.decisions[0].created_entity and car.decisions[0].entity_id != couch.decisions[0].entity_id
        assert store.possibly_same() == []
