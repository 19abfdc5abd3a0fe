"""A damaged file under ``<home>/index/`` (memory/derived.py): random bytes in each kind of derived file (the graph's
arrays, a vector segment's files, the vector tail, the kind words' vectors). ``memory check`` names it; the next
question is answered as before the damage, with a one-line warning; the file is set aside under
``index/damaged-<time>/`` and made again from memory."""

from __future__ import annotations

import logging
import shutil

import numpy as np
import pytest
from helpers.memory import clip, near, observation, said, unit

from edge_agent.config.retrieval import RetrievalConfig, VectorIndexConfig
from edge_agent.memory import Store
from edge_agent.memory.check import check
from edge_agent.qa import DeterministicController

#: Segments of 10 rows (the configuration's floor is 1024): 34 observations and their episodes give sealed segments
#: of both kinds and a tail of 4 observations.
CONFIG = RetrievalConfig(vectors=VectorIndexConfig.model_construct(approximate=True, segment_rows=10, breadth=64))
QUESTIONS = ("what did the kitchen camera see?", "where is the handset?", "where was the brown dog?")
KINDS = (
    ("cup", "red", "sink"),
    ("dog", "brown", "sofa"),
    ("car", "white", "driveway"),
    ("cell phone", "black", "table"),
)

TARGETS = [
    "graph/r*/indices.npy",
    "graph/r*/indptr.npy",
    "graph/r*/data.npy",
    "graph/r*/degree.npy",
    "graph/r*/observation_ids.npy",
    "graph/r*/episode_times.npy",
    "vec_text_observation/1-*.usearch",
    "vec_text_observation/1-*.f16",
    "vec_text_observation/1-*.ids.npy",
    "vec_text_observation/1-*.times.npy",
    "vec_text_observation/tail-*.f16",
    "vec_text_observation/tail-*.ids",
    "vec_text_observation/tail-*.times",
    "kind-words.npz",
]


def _answers(store: Store, embedder) -> list[tuple[str, list, str]]:
    controller = DeterministicController(store, embedder, CONFIG)
    return [(a.text, a.evidence, a.context) for a in (controller.ask(q) for q in QUESTIONS)]


@pytest.fixture(scope="module")
def answered(tmp_path_factory, embedder):
    """A memory whose questions were answered once (the graph saved, segments sealed, the kind words' vectors kept),
    and the answers."""
    home = tmp_path_factory.mktemp("answered") / "home"
    with Store(home) as store:
        for c in range(9):
            records = [
                observation(
                    k + 1,
                    c * 600.0,
                    [k * 50, 0, k * 50 + 40, 40],
                    near(unit(np.eye(32)[k] + 0.05), 0.97, seed=10 * c + k),
                    category=category,
                    kind="animal" if category == "dog" else "object",
                    description=said(category, colour=colour, zone=zone).text,
                )
                for k, (category, colour, zone) in enumerate(KINDS[: 4 if c < 8 else 2])
            ]
            store.ingest_clip(clip(c * 600.0), records, caption=f"the kitchen, clip {c}")
        answers = _answers(store, embedder)
    return home, answers


def _scramble(path) -> None:
    """Random bytes over the second half of a file (over all of an array file's data: its header stays)."""
    size = path.stat().st_size
    start = size // 2
    if path.suffix == ".npy":
        with open(path, "rb") as f:
            np.lib.format.read_magic(f)
            np.lib.format.read_array_header_1_0(f)
            start = f.tell()
    with open(path, "r+b") as f:
        f.seek(start)
        f.write(np.random.default_rng(3).bytes(size - start))


@pytest.mark.parametrize("target", TARGETS)
def test_a_damaged_index_file_is_named_set_aside_and_made_again(tmp_path, embedder, answered, caplog, target):
    template, before = answered
    home = tmp_path / "home"
    shutil.copytree(template, home)
    index = home / "index"
    found = sorted(index.glob(target))
    assert len(found) == 1, found
    path = found[0]
    _scramble(path)
    with Store(home) as store:  # a new process
        report = check(store)
        assert not report.ok and any(str(path) in problem for problem in report.index), report.index
        assert "made again from memory" in report.index[0]
        with caplog.at_level(logging.WARNING):
            after = _answers(store, embedder)
    assert after == before
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "set aside" in warnings[0] and "\n" not in warnings[0], warnings
    kept = list(index.glob(f"damaged-*/{path.relative_to(index)}"))
    assert len(kept) == 1  # for a person to look at
    with Store(home) as store:
        again = check(store)
        assert again.ok and not again.index, again.index
        assert any("damaged-" in note for note in again.notes)
