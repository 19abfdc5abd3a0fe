"""`edge-agent serve`: loopback without a token; any other address with the token made (0600) and
printed once; a token file others could read refuses to start. uvicorn.run is replaced: nothing binds."""

from __future__ import annotations

import stat

import pytest
import uvicorn

from edge_agent.cli import build_parser, main


@pytest.fixture
def runs(monkeypatch):
    calls = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: calls.append((app, kw)))
    return calls


def test_help():
    text = build_parser()._subparsers._group_actions[0].choices["serve"].format_help()
    assert "--host" in text and "--port" in text and "api-token" in text


def test_loopback_by_default_without_a_token(tmp_path, runs, capsys):
    home = tmp_path / "home"
    assert main(["--home", str(home), "serve"]) == 0
    [(app, kw)] = runs
    assert kw["host"] == "127.0.0.1" and kw["port"] == 8765 and kw["log_level"] == "info"
    assert app.state.api.token is None and not (home / "api-token").exists()
    assert capsys.readouterr().err == ""


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
    assert "1..65535" in capsys.readouterr().err
    assert main(["--home", str(tmp_path), "serve", "--config", str(tmp_path / "missing.toml")]) == 1
    assert "configuration file not found" in capsys.readouterr().err
    assert runs == []
