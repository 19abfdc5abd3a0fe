"""A temporary models folder (and memory home) for the model-file tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def models(tmp_path, monkeypatch):
    folder = tmp_path / "models"
    folder.mkdir()
    monkeypatch.setenv("EDGE_AGENT_MODELS", str(folder))
    monkeypatch.setenv("EDGE_AGENT_HOME", str(tmp_path / "home"))
    return folder
