"""The API over a damaged memory and over a read-only one: 503 naming the file and the cure for what
cannot be done, everything else served (a read-only home answers questions and lists what it holds)."""

from __future__ import annotations

import os
import shutil

from helpers.memory import damage
from helpers.mounts import tmpfs


def test_a_damaged_memory_answers_503_with_the_cure(make_client, memory):
    damage(memory.home / "memory.db", fill=b"\x5a")
    client = make_client(memory.home)
    for method, path in (
        ("GET", "/api/entities"),
        ("GET", f"/api/entities/{memory.red}"),
        ("POST", f"/api/entities/{memory.red}/rename"),
    ):
        response = client.request(method, path, json={"name": "Mug"} if method == "POST" else None)
        assert response.status_code == 503, (path, response.text)
        error = response.json()["error"]
        assert "is damaged" in error and "memory restore" in error and "\n" not in error


def test_a_read_only_home_is_served(make_client, memory, embedder, tmp_path):
    with tmpfs(tmp_path / "disk", "16m") as disk:
        home = disk.path / "home"
        shutil.copytree(memory.home, home)
        os.unlink(home / "memory.lock")
        disk.readonly()
        client = make_client(home, embedder=embedder)
        assert client.get("/api/entities").status_code == 200
        assert client.get(f"/api/entities/{memory.red}").json()["entity"]["category"] == "cup"
        answer = client.post("/api/ask", json={"question": "Where was the red cup last seen?"})
        assert answer.status_code == 200 and "table" in answer.json()["text"]
        refused = client.post(f"/api/entities/{memory.red}/rename", json={"name": "Mug"})
        assert refused.status_code == 503 and "read-only" in refused.json()["error"]
