"""Rules over HTTP (read, shown back, stored, listed, removed), the alerts they raise, and the alert
stream (server-sent events from a real server, fed by a resolver writing from elsewhere)."""

from __future__ import annotations

import json
import time

import httpx
import pytest

from edge_agent.api import rules as rules_api
from edge_agent.memory import Store
from edge_agent.rules import book
from edge_agent.rules.parse import parse_rule
from edge_agent.rules.resolver import Resolver

DOG_ON_SOFA = "notify me when the dog is on the sofa"


def test_preview_add_list_remove(client, memory):
    shown = client.post("/api/rules/preview", json={"text": DOG_ON_SOFA})
    assert shown.status_code == 200
    assert shown.json() == {
        "text": DOG_ON_SOFA,
        "predicate": {"subject": "dog", "relation": "on", "object": "sofa", "object_type": "place"},
        "description": "when any dog is on the place 'sofa'",
    }
    assert client.get("/api/rules").json() == []  # a preview stores nothing
    client.post(f"/api/entities/{memory.dog}/rename", json={"name": "Rex"})  # named entities are known to the reader
    named = client.post("/api/rules/preview", json={"text": "tell me when Rex is on the sofa"}).json()
    assert (
        named["predicate"]["entity_id"] == memory.dog
        and named["description"] == f"when entity #{memory.dog} ('Rex') is on the place 'sofa'"
    )

    added = client.post("/api/rules", json={"text": DOG_ON_SOFA, "cooldown_s": 60})
    assert added.status_code == 201
    rule = added.json()
    assert rule["id"] >= 1 and rule["cooldown_s"] == 60 and rule["enabled"] and rule["removed_at"] is None
    assert rule["description"] == "when any dog is on the place 'sofa'" and rule["predicate"]["object"] == "sofa"

    given = {
        "subject": "person",
        "relation": "in",
        "object_type": "zone",
        "zone": [0, 200, 320, 360],
        "camera": "porch",
        "min_duration_s": 10,
        "window": ["22:00", "06:00"],
    }
    as_json = client.post("/api/rules", json={"text": "porch at night", "predicate": given})
    assert as_json.status_code == 201
    assert as_json.json()["cooldown_s"] == 600  # the configuration's default
    assert "between 22:00 and 06:00" in as_json.json()["description"]
    unnamed = client.post("/api/rules/preview", json={"predicate": {"subject": "cat", "relation": "appears"}}).json()
    assert unnamed["text"] == unnamed["description"] == "when any cat appears"

    assert [r["text"] for r in client.get("/api/rules").json()] == [DOG_ON_SOFA, "porch at night"]
    removed = client.delete(f"/api/rules/{rule['id']}")
    assert removed.status_code == 200 and removed.json()["removed_at"] is not None and not removed.json()["enabled"]
    assert [r["text"] for r in client.get("/api/rules").json()] == ["porch at night"]
    assert len(client.get("/api/rules", params={"all": "true"}).json()) == 2
    again = client.delete(f"/api/rules/{rule['id']}")
    assert again.status_code == 409 and "already removed" in again.json()["error"]
    assert client.delete("/api/rules/999").status_code == 404


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"text": "make me a sandwich"}, "no relation found in 'make me a sandwich'"),
        (
            {
                "text": "balcony",
                "predicate": {"subject": "dog", "relation": "on", "object": "balcony", "object_type": "place"},
            },
            # the configuration's zone, and those memory saw things in (the scene's described zones)
            "unknown place 'balcony': known places are counter, sink, table (camera kitchen), sofa, window "
            "(camera living)",
        ),
        (
            {
                "text": "notify me when Rex is on the sofa",
                "predicate": {"subject": "Rex", "subject_type": "entity", "relation": "appears"},
            },
            "unknown name 'Rex': no entity is named yet",
        ),
        (
            {"text": "notify me when a person is near the left side"},
            "unknown place 'left side': known places are counter, sink, table (camera kitchen), sofa",
        ),
        ({"text": "tell me when Alice arrives"}, "unknown name or category 'alice': no entity is named yet"),
        (
            {"predicate": {"subject": "unicorn", "relation": "appears"}},
            "unknown category 'unicorn' (not a class the detector reports): categories are person, bicycle",
        ),
        ({"predicate": {"subject": "dog", "relation": "on"}}, "needs an object"),
        ({"text": "{not json"}, "not valid JSON"),
        ({}, "give the rule as `text`"),
        ({"text": DOG_ON_SOFA, "cooldown_s": -1}, "cooldown_s"),
        ({"text": "x" * 501}, "text"),
    ],
)
def test_unreadable_rules_are_422_with_the_reason(client, body, message):
    got = client.post("/api/rules", json=body)
    assert got.status_code == 422 and message in got.json()["error"], got.json()
    assert client.get("/api/rules").json() == []


def test_removing_a_rule_is_audited_with_its_caller(client, memory):
    rule = client.post("/api/rules", json={"text": DOG_ON_SOFA}).json()
    assert client.delete(f"/api/rules/{rule['id']}").status_code == 200
    assert client.delete(f"/api/rules/{rule['id']}").status_code == 409  # refused: not audited again
    with Store(memory.home) as store:
        [removal] = [c for c in store.corrections() if c["action"] == "remove_rule"]
    assert removal["details"] == {"rule_id": rule["id"], "text": DOG_ON_SOFA, "caller": "api 127.0.0.1 (no token)"}


def _dog_on_sofa_alert(home, dog_clip, t0) -> list[book.Alert]:
    """What the watch process does after a clip: the resolver checks it and writes the alert."""
    with Store(home) as store:
        dog_clip(store, t0)
        return Resolver(store, zones={"living": {"sofa": (100, 100, 300, 300)}}).process()


def test_alerts_list(client, memory, scene):
    rule = client.post("/api/rules", json={"text": DOG_ON_SOFA}).json()
    assert client.get("/api/alerts").json() == []
    [alert] = _dog_on_sofa_alert(memory.home, scene.dog_clip, scene.T0 + 3600)
    listed = client.get("/api/alerts").json()
    assert len(listed) == 1
    got = listed[0]
    assert (
        got["id"] == alert.id
        and got["rule_id"] == rule["id"]
        and got["rule"] == DOG_ON_SOFA
        and got["entity_id"] == memory.dog
    )
    assert "sofa" in got["message"] and got["camera"] == "living" and got["evidence"]
    for url in (got["keyframe_url"], got["crop_url"]):
        assert client.get(url).status_code == 200
    assert client.get("/api/alerts", params={"rule": rule["id"], "limit": 1}).json() == listed
    assert client.get("/api/alerts", params={"rule": 99}).json() == []
    assert client.get("/api/alerts", params={"limit": 0}).status_code == 422


def _events(lines, until: str, deadline: float) -> list[tuple[str, str]]:
    """(event, data) pairs read from an SSE line iterator until an event named ``until`` (comments as
    ('comment', text))."""
    out, event = [], None
    for line in lines:
        assert time.monotonic() < deadline, f"no {until!r} event in time; got {out}"
        if line.startswith(":"):
            out.append(("comment", line[1:].strip()))
            if until == "comment":
                return out
        elif line.startswith("event:"):
            event = line.split(":", 1)[1].strip()
        elif line.startswith("data:") and event is not None:
            out.append((event, line.split(":", 1)[1].strip()))
            if event == until:
                return out
            event = None
    raise AssertionError(f"the stream ended before a {until!r} event: {out}")


def test_alert_stream_sends_new_alerts(serve, memory, scene, monkeypatch):
    monkeypatch.setattr(rules_api, "POLL_S", 0.1)
    monkeypatch.setattr(rules_api, "KEEPALIVE_S", 0.5)
    with Store(memory.home) as store:
        book.add_rule(store, DOG_ON_SOFA, parse_rule(DOG_ON_SOFA, places=["sofa"]), cooldown_s=0)
    with serve(memory.home) as url, httpx.Client(base_url=url, timeout=10) as http:
        with http.stream("GET", "/api/alerts/stream") as stream:
            assert stream.status_code == 200 and stream.headers["content-type"].startswith("text/event-stream")
            lines = stream.iter_lines()
            deadline = time.monotonic() + 10
            [(_, ready)] = _events(lines, "ready", deadline)
            assert json.loads(ready) == {"last_id": 0}
            assert _events(lines, "comment", deadline) == [("comment", "keepalive")]  # nothing yet: a keepalive
            [raised] = _dog_on_sofa_alert(
                memory.home, scene.dog_clip, scene.T0 + 3600
            )  # another process raises an alert
            received = _events(lines, "alert", deadline)
            alert = json.loads(received[-1][1])
            assert alert["id"] == raised.id and "sofa" in alert["message"] and alert["keyframe_url"]
        # from an id: what came after it is sent first; ?since_id=0 replays everything
        with http.stream("GET", "/api/alerts/stream", params={"since_id": 0}) as stream:
            lines = stream.iter_lines()
            events = _events(lines, "alert", time.monotonic() + 10)
            assert events[0] == ("ready", json.dumps({"last_id": 0}, separators=(",", ":")))
            assert json.loads(events[-1][1])["id"] == raised.id
        with http.stream("GET", "/api/alerts/stream") as stream:  # from now: the old alert is not sent again
            assert json.loads(_events(stream.iter_lines(), "ready", time.monotonic() + 10)[0][1]) == {
                "last_id": raised.id
            }
