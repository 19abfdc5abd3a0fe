"""What a new user meets (issue 40): a command opening a new or empty memory names its folder, and ask's answer does;
ingest's progress bar has a total for a recording; the first question after new clips says it is building memory's
indexes. Said on stderr only, so --json output stays clean."""

from __future__ import annotations

import json
import sys

import pytest
from helpers.cli import run
from helpers.memory import filled_memory

from edge_agent.cli import ask
from edge_agent.cli.common import INGEST_FIRST
from edge_agent.demo import write_demo_scene

START = "2026-03-02T08:00:00+00:00"


@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    return write_demo_scene(tmp_path_factory.mktemp("scene"), seconds=20, fps=4)


def _ingest(capsys, home, source, *extra):
    return run(capsys, "--home", home, "ingest", source, "--detector", "gt", "--start", START, *extra)


def test_a_command_opening_a_new_memory_names_its_folder_once_on_stderr(tmp_path, capsys):
    home = tmp_path / "home"
    code, out, err = run(capsys, "--home", home, "entities", "list", "--json")
    assert code == 0 and json.loads(out) == []
    assert err == f"edge-agent: memory at {home} is new and empty: {INGEST_FIRST}\n"
    code, out, err = run(capsys, "--home", home, "memory", "stats")
    assert code == 0 and err == f"edge-agent: memory at {home} holds no clips yet: {INGEST_FIRST}\n"
    code, _, err = run(capsys, "--home", home, "memory", "prune", "--max-age-days", "30")  # opens memory twice
    assert code == 0 and err.count("\n") == 1 and str(home) in err


def test_a_memory_holding_clips_is_not_announced(tmp_path, capsys):
    home = filled_memory(tmp_path / "home", clips=2)
    for argv in (["entities", "list"], ["places", "list"], ["memory", "stats"], ["alerts", "list"]):
        code, _, err = run(capsys, "--home", home, *argv)
        assert code == 0 and err == "", argv


def test_ask_on_a_new_memory_answers_with_its_folder(tmp_path, capsys):
    home = tmp_path / "home"
    code, out, err = run(capsys, "--home", home, "ask", "where is the red cup?", "--json")
    assert code == 0 and err == ""
    assert json.loads(out)["text"] == f"Memory at {home} is new and empty: {INGEST_FIRST}."
    code, out, _ = run(capsys, "--home", home, "ask", "where is the red cup?")
    assert out.strip() == f"Memory at {home} holds no clips yet: {INGEST_FIRST}."


def test_ingest_says_where_a_new_memory_was_made(tmp_path, capsys, scene):
    home = tmp_path / "home"
    code, out, err = _ingest(capsys, home, scene[0], "--quiet")
    assert code == 0, err
    assert f"entities in the new memory at {home} (" in out
    code, out, err = _ingest(capsys, home, scene[1], "--json")
    assert code == 0 and json.loads(out)["memory_new"] is False


def test_the_progress_bar_of_a_recording_has_its_total(tmp_path, capsys, scene, monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    code, _, err = _ingest(capsys, tmp_path / "home", scene[0])
    assert code == 0, err
    assert "0/2 [" in err and "2/2 [" in err and "clip/s" in err  # the day's 20 s make 2 clips of 10 s


def test_the_first_question_after_new_clips_says_it_builds_the_indexes(tmp_path, capsys, scene, monkeypatch):
    home = tmp_path / "home"
    assert _ingest(capsys, home, scene[0], "--quiet")[0] == 0
    monkeypatch.setattr(ask, "INDEX_NOTICE_RECORDS", 1)  # the demo day is smaller than a noticeable build
    code, out, err = run(capsys, "--home", home, "ask", "where was the red cup last seen?", "--json")
    assert code == 0 and "building memory's indexes" not in err  # not to a pipe or a file
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert _ingest(capsys, home, scene[1], "--quiet")[0] == 0
    code, out, err = run(capsys, "--home", home, "ask", "where was the red cup last seen?", "--json")
    assert code == 0 and "cup" in json.loads(out)["text"]
    assert err.startswith("edge-agent: building memory's indexes for ") and err.count("\n") == 1, err
    code, out, err = run(capsys, "--home", home, "ask", "where was the red cup last seen?")
    assert code == 0 and err == ""  # once: built now
