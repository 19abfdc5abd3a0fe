"""Browsing and correcting memory over HTTP: entities and biographies, corrections, the timeline,
cameras, media by id, ingest status, the OpenAPI description."""

from __future__ import annotations

import os

from edge_agent.memory import Store

JPEG = b"\xff\xd8\xff"


def test_entity_list_and_biography(client, memory):
    listed = client.get("/api/entities").json()
    by_id = {e["id"]: e for e in listed}
    assert set(by_id) == {memory.red, memory.blue, memory.dog}
    red = by_id[memory.red]
    assert red["kind"] == "object" and red["category"] == "cup" and red["observations"] == 3
    assert red["crop_url"] == f"/api/crops/{memory.red_observations[-1]}"  # the latest observation's crop
    assert [e["id"] for e in client.get("/api/entities", params={"kind": "animal"}).json()] == [memory.dog]
    assert client.get("/api/entities", params={"kind": "plant"}).status_code == 422

    bio = client.get(f"/api/entities/{memory.red}").json()
    assert bio["entity"]["id"] == memory.red and bio["observations_total"] == 3
    assert [o["id"] for o in bio["observations"]] == memory.red_observations  # time order
    assert [o["id"] for o in bio["recent"]] == memory.red_observations[::-1]  # newest first
    first = bio["observations"][0]
    assert (
        "by the counter" in first["description"]
        and first["crop_url"]
        and first["keyframe_url"] == f"/api/keyframes/{first['clip_id']}"
    )
    assert {f["kind"] for f in bio["facts"]} >= {"place", "state"}
    assert all({"importance", "confirmations", "first_confirmed", "last_confirmed"} <= set(f) for f in bio["facts"])
    assert [t["place"] for t in bio["traces"]] == ["counter", "sink", "table"]
    limited = client.get(f"/api/entities/{memory.red}", params={"limit": 1}).json()
    assert [o["id"] for o in limited["observations"]] == memory.red_observations[-1:] and limited[
        "observations_total"
    ] == 3

    assert client.get("/api/entities/999").status_code == 404
    assert client.get("/api/entities/999").json() == {"error": "no entity 999"}
    assert client.get("/api/entities/abc").status_code == 404  # not an entity's path (ids are numbers)
    assert client.get("/api/entities/0").status_code == 422


def test_rename_merge_split_forget(client, memory):
    renamed = client.post(f"/api/entities/{memory.red}/rename", json={"name": "Grandma's cup"})
    assert renamed.status_code == 200 and renamed.json()["name"] == "Grandma's cup"
    assert client.post(f"/api/entities/{memory.red}/rename", json={"name": None}).json()["name"] is None
    assert client.post(f"/api/entities/{memory.red}/rename", json={"name": ""}).status_code == 422
    assert client.post(f"/api/entities/{memory.red}/rename", json={}).status_code == 422
    assert client.post("/api/entities/999/rename", json={"name": "x"}).status_code == 404

    refused = client.post("/api/entities/merge", json={"keep": memory.red, "absorb": memory.dog})
    assert refused.status_code == 409 and "cannot merge" in refused.json()["error"]
    assert client.post("/api/entities/merge", json={"keep": memory.red, "absorb": 999}).status_code == 404
    merged = client.post("/api/entities/merge", json={"keep": memory.red, "absorb": memory.blue})
    assert merged.status_code == 200 and merged.json()["observations"] == 4
    assert client.get(f"/api/entities/{memory.blue}").status_code == 404

    split = client.post(f"/api/entities/{memory.red}/split", json={"observation": memory.red_observations[1]})
    assert split.status_code == 200
    new = split.json()["new_entity"]
    assert split.json()["entity"]["observations"] == 1 and new["observations"] == 3
    bad = client.post(f"/api/entities/{memory.red}/split", json={"observation": memory.red_observations[2]})
    assert bad.status_code == 409 and "does not belong" in bad.json()["error"]
    again = client.post("/api/entities/merge", json={"keep": memory.red, "absorb": new["id"]})
    assert again.status_code == 409 and "not the same" in again.json()["error"]
    assert (
        client.post("/api/entities/merge", json={"keep": memory.red, "absorb": new["id"], "force": True}).status_code
        == 200
    )

    crop = client.get(f"/api/entities/{memory.dog}").json()["observations"][0]["crop_url"]
    assert client.get(crop).status_code == 200
    for body in ({}, {"confirm": False}, {"confirm": "yes please"}):
        refused = client.post(f"/api/entities/{memory.dog}/forget", json=body)
        assert refused.status_code == 422 and "confirm" in refused.json()["error"]
    forgot = client.post(f"/api/entities/{memory.dog}/forget", json={"confirm": True})
    assert forgot.status_code == 200 and forgot.json()["observations"] == 1 and forgot.json()["files"] == 2
    assert client.get(f"/api/entities/{memory.dog}").status_code == 404
    assert client.get(crop).status_code == 404  # its crop is gone with it
    assert client.post(f"/api/entities/{memory.dog}/forget", json={"confirm": True}).status_code == 404


def test_corrections_over_http_are_audited_with_their_caller(make_client, memory):
    """The audit trail keeps who corrected memory: the client's address and whether it presented the token."""
    token = "t" * 43
    auth = {"Authorization": f"Bearer {token}"}
    with_token = make_client(memory.home, token=token)
    split = with_token.post(
        f"/api/entities/{memory.red}/split", json={"observation": memory.red_observations[1]}, headers=auth
    )
    new = split.json()["new_entity"]["id"]
    merged = with_token.post(
        "/api/entities/merge", json={"keep": memory.red, "absorb": new, "force": True}, headers=auth
    )
    assert merged.status_code == 200
    without_token = make_client(memory.home)
    assert without_token.post(f"/api/entities/{memory.dog}/forget", json={"confirm": True}).status_code == 200
    assert (
        without_token.post("/api/entities/999/forget", json={"confirm": True}).status_code == 404
    )  # refused: not audited
    with Store(memory.home) as store:
        audit = [(c["action"], c["details"]["caller"]) for c in store.corrections()]
    assert audit == [
        ("split", "api 127.0.0.1 (token)"),
        ("merge", "api 127.0.0.1 (token)"),
        ("forget", "api 127.0.0.1 (no token)"),
    ]


def test_moments_for_a_camera_and_range(client, memory, scene):
    got = client.get(
        "/api/moments",
        params={"camera": "kitchen", "start": "2026-03-02T08:05:00Z", "end": "2026-03-02T08:25:00+00:00"},
    )
    assert got.status_code == 200
    body = got.json()
    assert body["start"] == scene.T0 + 300 and body["end"] == scene.T0 + 1500
    [kitchen] = body["cameras"]
    assert kitchen["camera"] == "kitchen" and not kitchen["truncated"]
    assert [c["id"] for c in kitchen["clips"]] == memory.kitchen_clips[1:]  # 08:10 and 08:20
    assert [c["caption"] for c in kitchen["clips"]] == [
        "the kitchen: a red cup by the sink",
        "the kitchen: a red cup by the table",
    ]
    assert all(c["keyframe_url"] == f"/api/keyframes/{c['id']}" and c["observations"] == 1 for c in kitchen["clips"])
    assert {e["scale"] for e in kitchen["episodes"]} <= {"10min", "hour", "day"}
    assert all(e["t_start"] < body["end"] and e["t_end"] > body["start"] for e in kitchen["episodes"])

    # Unix seconds work too; without a camera every camera with clips in the range; the limit truncates
    both = client.get("/api/moments", params={"start": scene.T0, "end": scene.T0 + 3600, "limit": 2}).json()
    assert {c["camera"] for c in both["cameras"]} == {"kitchen", "living"}
    kitchen = next(c for c in both["cameras"] if c["camera"] == "kitchen")
    assert len(kitchen["clips"]) == 2 and kitchen["truncated"]
    assert any(e["scale"] == "10min" for e in kitchen["episodes"])  # windows the later clips are past are summarised
    # defaults: the day up to the last clip
    default = client.get("/api/moments").json()
    assert default["end"] == scene.T0 + 1810 and default["start"] == default["end"] - 86400
    for params in ({"start": "yesterday"}, {"start": scene.T0 + 10, "end": scene.T0}, {"limit": 0}, {"camera": ""}):
        bad = client.get("/api/moments", params=params)
        assert bad.status_code == 422 and bad.json()["error"]


def test_cameras_and_status(client, memory, scene):
    cameras = {c["name"]: c for c in client.get("/api/cameras").json()}
    assert (
        cameras["kitchen"]["clips"] == 4
        and cameras["kitchen"]["first"] == scene.T0
        and cameras["kitchen"]["last"] == scene.T0 + 1810
    )
    assert cameras["living"]["clips"] == 1

    status = client.get("/api/status").json()
    assert status["entities"] == 3 and status["rules"] == 0 and status["pending_notifications"] == 0
    assert status["schema_version"] >= 2 and status["memory_bytes"] > 0
    kitchen = next(c for c in status["cameras"] if c["camera"] == "kitchen")
    assert kitchen["clips_recorded"] == 4 and kitchen["clips_stored"] == 4 and kitchen["recorded_seconds"] == 40
    assert kitchen["last_clip_end"] == scene.T0 + 1810
    assert kitchen["writer_active"]  # just written
    with Store(memory.home) as store, store.write():
        store.db.execute("UPDATE ingest_log SET committed_at = committed_at - 60")  # 60 s ago > 2 x 10 s clips
    assert not any(c["writer_active"] for c in client.get("/api/status").json()["cameras"])


def test_media_by_id_only(client, memory):
    bio = client.get(f"/api/entities/{memory.red}").json()
    for url in (bio["observations"][0]["crop_url"], bio["observations"][0]["keyframe_url"], bio["entity"]["crop_url"]):
        got = client.get(url)
        assert got.status_code == 200 and got.headers["content-type"] == "image/jpeg" and got.content.startswith(JPEG)
        assert got.headers["x-content-type-options"] == "nosniff"
    assert client.get(f"/api/keyframes/{memory.kitchen_clips[0]}", params={"index": 1}).status_code == 404
    assert client.get(f"/api/keyframes/{memory.blue_clip}").status_code == 404  # a clip without a keyframe
    assert client.get("/api/crops/999").status_code == 404
    assert client.get("/api/keyframes/0").status_code == 422
    for attempt in (
        "/api/crops/..%2F..%2Fetc%2Fpasswd",
        "/api/crops/1%2F..%2F..%2F..%2Fetc%2Fpasswd",
        "/api/crops/%2Fetc%2Fpasswd",
        "/api/keyframes/..%2F..%2Fmemory.db",
        "/api/crops/1/../../../../etc/passwd",
        "/static/..%2F..%2F..%2Fmemory%2Fstore.py",
    ):
        got = client.get(attempt)
        assert got.status_code in (404, 422), attempt
        assert b"root:" not in got.content and b"SQLite" not in got.content
    # A file the database names is served only if it lies inside the media folder: a link out of it is refused.
    with Store(memory.home) as store, store.write():
        os.symlink("/etc/hostname", store.media_path("crops/outside.jpg"))
        store.db.execute(
            "UPDATE observations SET crop_path = 'crops/outside.jpg' WHERE id = ?", (memory.blue_observation,)
        )
    assert client.get(f"/api/crops/{memory.blue_observation}").status_code == 404


def test_openapi_and_docs(client):
    schema = client.get("/api/openapi.json").json()
    paths = set(schema["paths"])
    assert {
        "/api/ask",
        "/api/ask/audio",
        "/api/entities",
        "/api/entities/{entity_id}",
        "/api/entities/{entity_id}/rename",
        "/api/entities/merge",
        "/api/entities/{entity_id}/split",
        "/api/entities/{entity_id}/forget",
        "/api/moments",
        "/api/cameras",
        "/api/keyframes/{clip_id}",
        "/api/crops/{observation_id}",
        "/api/rules/preview",
        "/api/rules",
        "/api/rules/{rule_id}",
        "/api/alerts",
        "/api/alerts/stream",
        "/api/status",
    } <= paths
    ask = schema["components"]["schemas"]["AskRequest"]["properties"]
    # what a body may hold; the configured bound ([qa] max_question_chars, 500) is named in the description
    assert ask["question"]["maxLength"] == 20_000 and "[qa] max_question_chars" in ask["question"]["description"]
    assert "audio/wav" in schema["paths"]["/api/ask/audio"]["post"]["requestBody"]["content"]
    forget = schema["paths"]["/api/entities/{entity_id}/forget"]["post"]["responses"]
    assert {"200", "400", "404", "409", "413", "422"} <= set(
        forget
    ) and "401" not in forget  # no token: the Host check's 400
    assert forget["409"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/ErrorOut"}
    assert schema["components"]["schemas"]["ForgetRequest"]["properties"]["confirm"]["enum"] == [True]
    assert "security" not in schema
    docs = client.get("/api/docs")
    assert docs.status_code == 200 and "swagger" in docs.text.lower()
    assert client.get("/api/nothing-here").json() == {"error": "Not Found"}


def test_a_biography_says_when_a_thing_was_taken_and_by_whom(make_client, tmp_path):
    from helpers.memory import keys_taken_clip

    with Store(tmp_path / "home") as store:
        store.ingest_clip(*keys_taken_clip())
    client = make_client(tmp_path / "home")
    bio = client.get("/api/entities/1").json()
    assert bio["taken"] == {"t": 1.5, "camera": "hall", "observation_id": 1, "by_entity_id": 2, "by_observation_id": 2}
    assert client.get("/api/entities/2").json()["taken"] is None
