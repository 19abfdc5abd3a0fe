"""Places over HTTP: listed, named (the observations' zone follows), merged, forgotten; an unknown id is 404,
an impossible change 409."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from helpers.memory import clip, near, observation, said, unit

from edge_agent.memory import Store

SOFA, DESK = unit(np.r_[np.ones(4), np.zeros(12)]), unit(np.r_[np.zeros(8), np.ones(4), np.zeros(4)])
MUG = unit(np.r_[np.ones(4), np.zeros(28)])


def _home(tmp_path):
    home = tmp_path / "home"
    with Store(home) as store:
        for k, around in enumerate((SOFA, DESK, SOFA)):
            record = observation(1, 100.0 * k, [0, 0, 40, 40], MUG, description=said(colour="red"))
            seen = replace(record, surroundings=near(around, 0.99, seed=k))
            store.ingest_clip(clip(100.0 * k, camera="wearable"), [seen])
    return home


def test_places_over_http(tmp_path, make_client):
    home = _home(tmp_path)
    client = make_client(home)
    listed = client.get("/api/places").json()
    assert [(p["camera"], p["observations"]) for p in listed] == [("wearable", 2), ("wearable", 1)]
    sofa, desk = listed[0]["id"], listed[1]["id"]
    named = client.post(f"/api/places/{sofa}/name", json={"name": "sofa"})
    assert named.status_code == 200 and named.json()["name"] == "sofa"
    first = client.get(f"/api/entities/{1}").json()["observations"][0]
    assert (first["zone"], first["place_id"], first["place_score"]) == ("sofa", sofa, 1.0)  # it began the place
    assert 0.9 < listed[0]["likeness"] < 1.0 and listed[1]["likeness"] == 1.0
    assert client.post("/api/places/99/name", json={"name": "x"}).status_code == 404
    assert client.post(f"/api/places/{sofa}/name", json={"name": ""}).status_code == 422
    assert client.post("/api/places/merge", json={"keep": sofa, "absorb": sofa}).status_code == 409
    merged = client.post("/api/places/merge", json={"keep": sofa, "absorb": desk})
    assert merged.status_code == 200 and merged.json()["observations"] == 3
    assert client.delete(f"/api/places/{sofa}").json() == {"place": sofa, "observations": 3}
    assert client.get("/api/places").json() == []
