"""A newcomer's first hour, as a script (issue 40): a fresh home; three shared recordings ingested as a kitchen, a
living room and a street through the real detector; what memory holds listed and one thing looked up by what it
looks like; a rule added without a terminal (read back, exit 3, nothing stored; then stored with --yes); a
question; the dashboard over that memory with every panel at least 150 px tall in Chromium at 1280x800 and
1920x1080. Each step is the command a user types (`edge-agent ...`), run in this process."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from helpers.shared import data, model, shared_models

from edge_agent.cli import main

RECORDINGS = {"kitchen": "video/2.avi", "living-room": "video/3.mp4", "street": "video/vtest.avi"}
NEEDS_CONFIRMATION = 3  #: the exit status of a change read back but not made (no terminal to ask on)


def edge_agent(capsys, home: Path, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["--home", str(home), "--models", str(shared_models()), *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    """A fresh memory holding the three recordings, an hour apart (ingested once for the module)."""
    model("yolox_nano.onnx")
    videos = {camera: data(path) for camera, path in RECORDINGS.items()}
    home = tmp_path_factory.mktemp("first-hour") / "memory"
    for hour, (camera, video) in enumerate(videos.items()):
        start = f"2026-12-01T{8 + hour:02d}:00:00+00:00"
        code = main(
            ["--home", str(home), "--models", str(shared_models())]
            + ["ingest", str(video)]
            + ["--camera", camera, "--start", start, "--detector", "yolox", "--quiet"]
        )
        assert code == 0, f"ingest of {video} as {camera} exited {code}"
    return home


def entities(capsys, home: Path) -> list[dict]:
    code, out, _ = edge_agent(capsys, home, "entities", "list", "--json")
    assert code == 0
    return json.loads(out)


def test_what_memory_holds_is_listed_with_cameras_and_descriptions(home, capsys):
    code, out, _ = edge_agent(capsys, home, "entities", "list")
    lines = out.strip().splitlines()
    assert code == 0 and len(lines) == len(entities(capsys, home)) >= 3
    for line in lines:
        assert any(camera in line for camera in RECORDINGS), f"no camera in {line!r}"
        assert "person person" not in line and "1 observations" not in line
    assert {c for e in entities(capsys, home) for c in e["cameras"]} == set(RECORDINGS)


def test_the_parked_van_is_one_observation_per_clip_and_found_by_what_it_looks_like(home, capsys):
    code, out, err = edge_agent(capsys, home, "entities", "show", "white van", "--json")
    assert code == 0, err
    van = json.loads(out)
    assert van["entity"]["category"] in {"truck", "car", "bus"}
    clips = [o["clip_id"] for o in van["observations"]]
    assert len(clips) >= 4 and len(clips) == len(set(clips)), f"the van said twice in a clip: {clips}"

    code, out, err = edge_agent(capsys, home, "entities", "rename", "white van", "the delivery van")
    assert code == 0, err
    code, out, err = edge_agent(capsys, home, "entities", "show", "The Delivery Van")  # a name, in any case
    assert code == 0 and f"#{van['entity']['id']}" in out


def test_a_rule_without_a_terminal_is_read_back_then_stored_with_yes(home, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # a script's stdin: no terminal to ask on
    rule = "tell me when a person appears in the kitchen"
    code, out, err = edge_agent(capsys, home, "rules", "add", rule)
    assert code == NEEDS_CONFIRMATION and not err.strip(), err
    assert "kitchen" in out and "--yes" in out and "error" not in out.lower()
    code, out, _ = edge_agent(capsys, home, "rules", "list", "--json")
    assert json.loads(out) == []
    code, out, err = edge_agent(capsys, home, "rules", "add", rule, "--yes")
    assert code == 0, err
    code, out, _ = edge_agent(capsys, home, "rules", "list", "--json")
    assert [r["text"] for r in json.loads(out)] == [rule]


def test_a_question_about_a_camera_is_answered_from_that_camera(home, capsys):
    code, out, err = edge_agent(capsys, home, "ask", "who was in the kitchen?", "--json")
    assert code == 0, err
    answer = json.loads(out)
    assert answer["evidence"] and {e["camera"] for e in answer["evidence"]} == {"kitchen"}


def test_the_dashboard_keeps_every_panel_usable_over_this_memory(home):
    from dashboard.scene import browser_missing, chromium

    missing = browser_missing()
    if missing:
        pytest.skip(missing)
    from dashboard.page import PANELS, SIZES, USABLE_PX, console_errors, heights, open_at, wait
    from helpers.server import live_server

    from edge_agent.api import create_app
    from edge_agent.config import load_config
    from edge_agent.runtime import Runtime

    app = create_app(Runtime.at(home, load_config(None)), token=None)
    with live_server(app) as url:
        driver = chromium()
        try:
            for width, height in SIZES:
                open_at(driver, url, width, height)
                driver.find_element("css selector", "[data-testid=entity]").click()
                wait(driver).until(lambda d: heights(d, {"detail": "#entity-detail"})["detail"] > 0)
                measured = heights(driver, PANELS | {"places": "#places-panel"})
                squeezed = {name: px for name, px in measured.items() if px < USABLE_PX}
                assert not squeezed, f"at {width}x{height}: panels under {USABLE_PX} px: {squeezed}"
            assert not console_errors(driver)
        finally:
            driver.quit()
