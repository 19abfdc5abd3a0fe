"""Fixtures for memory tests: a store in a temporary folder. Real SQLite and real sqlite-vec throughout."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.memory import unit

from edge_agent.memory import Store


@pytest.fixture
def store(tmp_path):
    with Store(tmp_path / "home") as s:
        yield s


@pytest.fixture
def red_mug():
    return unit(np.r_[np.ones(4), np.zeros(28)])
