"""A thing taken (memory.takings) in the answers about where it is: "where are my keys?" says who took them and
when, with that person's sighting as evidence, and stops saying it once the keys are seen again."""

from __future__ import annotations

import numpy as np
from helpers.memory import DAY, clip, observation, said, unit

from edge_agent.memory import Store
from edge_agent.qa import DeterministicController

KEYS = unit(np.r_[np.ones(8), np.zeros(8)])
ALICE = unit(np.r_[np.zeros(8), np.ones(8)])
T = DAY + 8 * 3600


def test_where_are_my_keys_says_who_took_them_until_they_are_seen_again(tmp_path, embedder) -> None:
    home = tmp_path / "home"
    with Store(home) as store:
        keys = observation(1, T, (300, 200, 330, 220), KEYS, category="keys", description=said("keys", zone="shelf"))
        alice = observation(2, T + 1, (200, 100, 290, 400), ALICE, kind="person", category="person", frames=8)
        store.ingest_clip(clip(T, 10.0, "hall"), [keys, alice])
        with store.write():
            store.db.execute("UPDATE entities SET name = 'keys' WHERE id = 1")
    with Store(home, mode="read") as store:
        answer = DeterministicController(store, embedder).ask("where are my keys?")
        assert "Entity #1 'keys' (keys) was last seen" in answer.text
        assert "Then it was taken by #2 (person)" in answer.text and "(observation 2)" in answer.text
        assert {e["observation"] for e in answer.evidence} >= {1, 2}
    with Store(home) as store:
        back = observation(3, T + 600, (300, 200, 330, 220), KEYS, category="keys", description=said("keys"))
        store.ingest_clip(clip(T + 600, 10.0, "hall"), [back])
    with Store(home, mode="read") as store:
        answer = DeterministicController(store, embedder).ask("where are my keys?")
        assert "taken" not in answer.text and "(observation 3)" in answer.text
