"""Where the dashboard tests leave their screenshots: $EDGE_AGENT_TEST_ARTIFACTS, else test-artifacts/dashboard."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def artefacts() -> Path:
    folder = Path(
        os.environ.get("EDGE_AGENT_TEST_ARTIFACTS")
        or Path(__file__).resolve().parents[2] / "test-artifacts" / "dashboard"
    )
    folder.mkdir(parents=True, exist_ok=True)
    return folder
