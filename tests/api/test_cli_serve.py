"""`edge-agent serve`: loopback without a token unless required; any other address with the token made
(0600) and printed once; a token file others could read refuses to start. uvicorn.run is replaced: only
the helper's live server binds (127.0.0.1, a free port)."""

from __future__ import annotations

import stat

import httpx
import pytest
import uvicorn
from helpers.server import live_server

from edge_agent.cli import build_parser, main
from edge_agent.cli.common import INGEST_FIRST


@pytest.fixture
def runs(monkeypatch):
    calls = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: calls.append((app, kw)))
    return calls


def test_help():
    text = build_parser()._subparsers._group_actions[0].choices["serve"].format_help()
    assert "--host" in text and "--port" in text and "api-token" in text and "--require-token" in text


def test_loopback_by_default_without_a_token(tmp_path, runs, capsys):
    home = tmp_path / "home"
    assert main(["--home", str(home), "serve"]) == 0
    [(app, kw)] = runs
    assert kw["host"] == "127.0.0.1" and kw["port"] == 8765 and kw["log_level"] == "info"
    assert app.state.api.token is None and not (home / "api-token").exists()
    # nothing of a token; only that the memory served is new (issue 40: its folder is named)
    assert capsys.readouterr().err == f"edge-agent: memory at {home} is new and empty: {INGEST_FIRST}\n"


def test_another_address_needs_the_token(tmp_path, runs, capsys):
    home = tmp_path / "home"
    assert main(["--home", str(home), "serve", "--host", "0.0.0.0", "--port", "9000"]) == 0
    path = home / "api-token"
    token = path.read_text().strip()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and len(token) >= 43
    err = capsys.readouterr().err
    assert token in err and "Authorization: Bearer" in err and str(path) in err
    assert runs[0][0].state.api.token == token and runs[0][1]["host"] == "0.0.0.0" and runs[0][1]["port"] == 9000

    assert main(["--home", str(home), "serve", "--host", "192.168.1.20"]) == 0  # the same token; not printed again
    err = capsys.readouterr().err
    assert token not in err and str(path) in err and runs[1][0].state.api.token == token

    path.chmod(0o640)
    assert main(["--home", str(home), "serve", "--host", "0.0.0.0"]) == 1
    assert "mode 0640" in capsys.readouterr().err and len(runs) == 2


def test_bad_arguments(tmp_path, runs, capsys):
    with pytest.raises(SystemExit):
        main(["--home", str(tmp_path), "serve", "--port", "70000"])
    assert "from 1 to 65535" in capsys.readouterr().err
    assert main(["--home", str(tmp_path), "serve", "--config", str(tmp_path / "missing.toml")]) == 1
    assert "configuration file not found" in capsys.readouterr().err
    assert runs == []


def test_require_token_on_loopback(tmp_path, runs, capsys):
    """--require-token, or [api] require_token in the configuration: a loopback bind needs the token too."""
    home = tmp_path / "home"
    assert main(["--home", str(home), "serve", "--require-token"]) == 0
    token = (home / "api-token").read_text().strip()
    err = capsys.readouterr().err
    assert token in err and "the API token is required" in err and "http://127.0.0.1:8765/api/status" in err
    assert runs[0][0].state.api.token == token and runs[0][1]["host"] == "127.0.0.1"

    config = tmp_path / "edge-agent.toml"
    config.write_text("[api]\nrequire_token = true\n")
    assert main(["--home", str(home), "serve", "--config", str(config)]) == 0  # the same token; not printed again
    err = capsys.readouterr().err
    assert token not in err and "api-token" in err and runs[1][0].state.api.token == token

    config.write_text('[api]\nrequire_token = "maybe"\n')
    assert main(["--home", str(home), "serve", "--config", str(config)]) == 1
    assert "api.require_token" in capsys.readouterr().err and len(runs) == 2


def test_a_required_token_is_checked_over_the_wire(tmp_path, runs, capsys):
    home = tmp_path / "home"
    assert main(["--home", str(home), "serve", "--require-token"]) == 0
    token = (home / "api-token").read_text().strip()
    with live_server(runs[0][0]) as url, httpx.Client(base_url=url, timeout=10) as http:
        refused = http.get("/api/status")
        assert refused.status_code == 401 and "token" in refused.json()["error"]
        assert http.get("/api/status", headers={"Authorization": f"Bearer {token}"}).status_code == 200
