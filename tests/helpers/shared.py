"""Paths into ../shared (models and data beside the repository), with a clear skip where absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2].parent / "shared"


def shared_models() -> Path:
    return Path(os.environ.get("EDGE_AGENT_MODELS", SHARED / "models"))


def need(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{path} is absent (../shared is not beside this checkout)")
    return path


def model(name: str) -> Path:
    return need(shared_models() / name)


def data(relative: str) -> Path:
    return need(SHARED / "data" / relative)
