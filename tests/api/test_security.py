"""What keeps the API to its owner: the bind address and the token (file, header, the stream's query
parameter), the Host check of a loopback bind, body limits, errors without internals, the open page."""

from __future__ import annotations

import logging
import os
import stat

import httpx
import pytest

from edge_agent.api import app as app_module
from edge_agent.api import rules as rules_api
from edge_agent.api.security import is_loopback, load_or_create_token
from edge_agent.memory import retention

TOKEN = "t" * 43


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.1.2.3", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("", False),
        ("192.168.1.20", False),
        ("10.0.0.5", False),
        ("fe80::1", False),
        ("my-jetson.local", False),
        ("localhost.evil.example", False),
    ],
)
def test_which_hosts_are_loopback(host, loopback):
    assert is_loopback(host) is loopback


def test_token_file_is_made_0600_once_and_a_readable_one_is_refused(tmp_path):
    home = tmp_path / "home"
    token, created = load_or_create_token(home)
    path = home / "api-token"
    assert created and len(token) >= 43 and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_or_create_token(home) == (token, False)  # the same token on the next start, not printed again
    path.chmod(0o644)
    with pytest.raises(RuntimeError, match=r"mode 0644: other users may have read the token.*delete the file"):
        load_or_create_token(home)
    path.unlink()
    os.symlink(tmp_path / "elsewhere", path)
    with pytest.raises(RuntimeError, match="symlink"):
        load_or_create_token(home)
    path.unlink()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    os.close(fd)
    with pytest.raises(RuntimeError, match="usable token"):
        load_or_create_token(home)


def test_with_a_token_every_api_request_needs_it_even_from_loopback(serve, memory, monkeypatch):
    monkeypatch.setattr(rules_api, "POLL_S", 0.1)
    with serve(memory.home, token=TOKEN) as url, httpx.Client(base_url=url, timeout=10) as http:
        wrong = (
            {},
            {"Authorization": "Bearer wrong"},
            {"Authorization": f"Bearer {TOKEN}x"},
            {"Authorization": f"Basic {TOKEN}"},
            {"Authorization": "Bearer"},
            {"Authorization": f"bearer {TOKEN[:-1]}\u00e9".encode()},
        )
        paths = (
            "/api/status",
            "/api/entities",
            "/api/openapi.json",
            "/api/docs",
            "/api/alerts/stream",
            "/api/no-such-endpoint",
            "/api",
        )
        for path in paths:
            for headers in wrong:
                got = http.get(path, headers=headers)
                assert got.status_code == 401, (path, headers)
                assert "token" in got.json()["error"] and got.headers["www-authenticate"].startswith("Bearer")
        refused = http.post("/api/entities/1/forget", json={"confirm": True})
        assert refused.status_code == 401
        auth = {"Authorization": f"Bearer {TOKEN}"}
        assert http.get("/api/status", headers=auth).status_code == 200
        assert (
            http.get(f"/api/entities/{memory.red}", headers=auth).json()["entity"]["id"] == memory.red
        )  # not forgotten
        assert http.get("/api/openapi.json", headers=auth).status_code == 200
        assert (
            http.get("/api/status", headers={"Authorization": f"bearer {TOKEN}"}).status_code == 200
        )  # the scheme is case-blind
        # ?token= only on the alert stream (EventSource cannot set headers)
        assert http.get("/api/status", params={"token": TOKEN}).status_code == 401
        assert http.get("/api/crops/1", params={"token": TOKEN}).status_code == 401
        assert http.get("/api/alerts/stream", params={"token": "wrong"}).status_code == 401
        with http.stream("GET", "/api/alerts/stream", params={"token": TOKEN}) as stream:
            assert stream.status_code == 200
            assert next(stream.iter_lines()).startswith("retry:")
        # the page stays open: it asks for the token
        assert http.get("/").status_code == 200
        assert http.get("/static/app.js").status_code == 200  # the dashboard's code, open without the token
        assert http.get("/static/missing.js").status_code == 404


def test_the_stream_token_stays_out_of_the_access_log(make_client, memory):
    access = logging.getLogger("uvicorn.access")
    make_client(memory.home, token=TOKEN)  # started: its filter is on uvicorn's access logger
    record = logging.LogRecord(
        "uvicorn.access",
        logging.INFO,
        __file__,
        1,
        '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5000", "GET", f"/api/alerts/stream?since_id=3&token={TOKEN}", "1.1", 200),
        None,
    )
    assert all(f.filter(record) for f in access.filters)
    assert (
        TOKEN not in record.getMessage()
        and "token=<redacted>" in record.getMessage()
        and "since_id=3" in record.getMessage()
    )


def test_without_a_token_only_requests_naming_this_machine_are_served(make_client, memory):
    client = make_client(memory.home)
    for host in ("127.0.0.1:8765", "localhost:8765", "[::1]:8765", "localhost"):
        assert client.get("/api/status", headers={"host": host}).status_code == 200, host
    for host in ("evil.example:8765", "evil.example", "192.168.1.20:8765", ""):
        got = client.get("/api/status", headers={"host": host})
        assert got.status_code == 400 and "Host header" in got.json()["error"], host


def test_oversized_bodies_are_413(make_client, memory, serve):
    client = make_client(memory.home)
    big = {"question": "where?", "padding": "x" * (70 * 1024)}
    got = client.post("/api/ask", json=big)
    assert got.status_code == 413 and "64 KiB" in got.json()["error"]
    assert (
        client.post(
            "/api/rules/preview", content=b"{" + b" " * (64 * 1024) + b"}", headers={"content-type": "application/json"}
        ).status_code
        == 413
    )
    audio = client.post("/api/ask/audio", content=b"\0" * (25 * 1024 * 1024 + 1), headers={"content-type": "audio/wav"})
    assert audio.status_code == 413 and "25 MiB" in audio.json()["error"]
    assert (
        client.post("/api/rules", json={"text": "notify me when the dog is on the sofa"}).status_code == 201
    )  # small bodies pass

    def chunks(n: int, size: int = 16 * 1024):
        for _ in range(n):
            yield b" " * size

    with (
        serve(memory.home) as url,
        httpx.Client(base_url=url, timeout=10) as http,
    ):  # chunked: no Content-Length, counted as it comes
        got = http.post("/api/rules/preview", content=chunks(5), headers={"content-type": "application/json"})
        assert got.status_code == 413 and got.request.headers.get("transfer-encoding") == "chunked"
        small = http.post(
            "/api/rules/preview",
            content=(c for c in [b'{"text": ', b'"notify me when the dog is on the sofa"}']),
            headers={"content-type": "application/json"},
        )
        assert small.status_code == 200 and small.json()["predicate"]["object"] == "sofa"


def test_an_internal_error_is_500_without_internals(make_client, memory, monkeypatch, caplog):
    def broken(store):
        raise RuntimeError(f"secret detail: {store.home}/memory.db is locked")

    monkeypatch.setattr(retention, "usage", broken)
    client = make_client(memory.home, raise_server_exceptions=False)
    with caplog.at_level(logging.ERROR, logger="edge_agent.api"):
        got = client.get("/api/status")
    assert got.status_code == 500 and got.json() == {"error": "internal error"}
    assert (
        "secret" not in got.text
        and "Traceback" not in got.text
        and "memory.db" not in got.text
        and "RuntimeError" not in got.text
    )
    assert "secret detail" in caplog.text and "Traceback" in caplog.text  # logged on the server
    assert client.get("/api/entities").status_code == 200  # and the server goes on


def test_the_page_is_served_or_says_the_dashboard_is_not_built(make_client, memory, tmp_path, monkeypatch):
    monkeypatch.setattr(app_module, "STATIC_DIR", tmp_path / "no-dashboard")
    page = make_client(memory.home).get("/")
    assert (
        page.status_code == 200
        and "dashboard is not built" in page.text
        and page.headers["content-type"].startswith("text/html")
    )
    built = tmp_path / "static"
    built.mkdir()
    (built / "index.html").write_text("<!doctype html><title>dashboard</title>")
    (built / "app.js").write_text("console.log('hi')")
    monkeypatch.setattr(app_module, "STATIC_DIR", built)
    client = make_client(memory.home)
    assert client.get("/").text == "<!doctype html><title>dashboard</title>"
    assert client.get("/static/app.js").text == "console.log('hi')"
    assert client.get("/static/..%2F..%2Fhome%2Fmemory.db").status_code == 404
    assert client.get("/static/missing.js").status_code == 404
    assert (
        "access-control-allow-origin"
        not in client.get("/api/status", headers={"origin": "http://evil.example"}).headers
    )
