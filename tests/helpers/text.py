"""A text embedder for tests that need no model: words hashed into 16 dimensions (questions run through retrieval,
requests refused before any question is read)."""

from __future__ import annotations

import numpy as np

__all__ = ["HashEmbedder"]


class HashEmbedder:
    """Each word adds 1 to one of 16 dimensions (by its bytes' sum); unit rows."""

    dims = 16

    def __init__(self, space: str = "text:hash-test") -> None:
        self.space = space

    def embed(self, texts):
        out = np.full((len(texts), self.dims), 1e-3, np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().split():
                out[i, sum(word.encode()) % self.dims] += 1
        return out / np.linalg.norm(out, axis=1, keepdims=True)
