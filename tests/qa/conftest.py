"""A memory built from the generated two-day scene, shared by the QA tests (needs the text model)."""

from __future__ import annotations

import pytest

from edge_agent.cli import main
from edge_agent.demo import write_demo_scene


@pytest.fixture(scope="package")
def home(tmp_path_factory):
    root = tmp_path_factory.mktemp("qa")
    day1, day2 = write_demo_scene(root / "scene", seconds=12, fps=4)
    home = root / "home"
    for day, start in ((day1, "2026-03-02T08:00:00+00:00"), (day2, "2026-03-03T08:00:00+00:00")):
        assert main(["--home", str(home), "ingest", str(day), "--detector", "gt", "--start", start, "--quiet"]) == 0
    return home
