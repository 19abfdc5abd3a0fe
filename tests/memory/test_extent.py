"""Memory's longest observation (schema v13's extent): what lets a window's observations be read from the time index
near the window instead of from memory's first day. Every observation overlapping a window must still be found,
however long it lasted, including one lengthened after it was written."""

from __future__ import annotations

import numpy as np
from helpers.memory import clip, observation, unit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edge_agent.memory import Store, queries

#: (start, frames at 0.5 s) of each observation: short ones and one that lasts a minute
SPANS = [(0.0, 4), (20.0, 121), (95.0, 2), (130.0, 8), (200.0, 3)]


def _overlapping(store: Store, start: float, end: float) -> set[int]:
    """The entities with an observation overlapping [start, end), read by scanning every row."""
    rows = store.db.query("SELECT entity_id FROM observations WHERE t_end >= ? AND t_start < ?", (start, end))
    return {int(r[0]) for r in rows}


def _memory(path) -> Store:
    store = Store(path)
    for i, (t0, frames) in enumerate(SPANS):
        vector = unit(np.eye(16)[i] + 0.01)
        store.ingest_clip(
            clip(t0, length=frames * 0.5 + 1), [observation(1, t0, [0, 0, 40, 40], vector, frames=frames)]
        )
    return store


def test_the_extent_is_the_longest_observation_and_grows_when_one_is_lengthened(tmp_path):
    with _memory(tmp_path / "home") as store:
        assert queries.observation_extent(store) == 60.0
        longest = store.db.value("SELECT id FROM observations WHERE t_start = 130.0")
        store.db.execute("UPDATE observations SET t_end = 330.0 WHERE id = ?", (longest,))
        assert queries.observation_extent(store) == 200.0
        assert queries.sightings_in(store, None, start=320.0, end=321.0)[0].first == 130.0


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(start=st.floats(-10.0, 260.0), length=st.floats(0.0, 120.0))
def test_a_window_finds_every_observation_overlapping_it(tmp_path_factory, start, length):
    with _memory(tmp_path_factory.mktemp("extent") / "home") as store:
        found = {s.entity_id for s in queries.sightings_in(store, None, start=start, end=start + length)}
        assert found == _overlapping(store, start, start + length)
        moment = store.items_between(start, start + length)[0]
        rows = store.db.query("SELECT id FROM observations WHERE t_start <= ? AND t_end >= ?", (start + length, start))
        assert sorted(moment) == sorted(int(r[0]) for r in rows)
