"""Image-text embeddings for retrieval seeds (GEB section 3.4: the question matched to clip keyframes):
a CLIP-style pair of ONNX exports, an image tower and a text tower sharing one space, with the text
tokenizer as a Hugging Face tokenizer.json. Users fetch such files themselves (open_clip / OpenAI CLIP
exports); nothing is downloaded."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from edge_agent.perception.detections import ModelError

__all__ = ["CLIP_MEAN", "CLIP_STD", "ImageTextEmbedder", "ONNXCLIPEmbedder"]

CLIP_MEAN = (0.48145466, 0.4578275, 0.40821073)
CLIP_STD = (0.26862954, 0.26130258, 0.27577711)


class ImageTextEmbedder(Protocol):
    space: str
    dims: int

    def embed_images(self, images: Sequence[np.ndarray]) -> np.ndarray:
        """(N, dims) float32, L2-normalised, for N BGR images."""
        ...

    def embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        """(N, dims) float32, L2-normalised."""
        ...


def _normalise(x: np.ndarray) -> np.ndarray:
    result: np.ndarray = (x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)).astype(np.float32)
    return result


class ONNXCLIPEmbedder:
    """``image_model``: input (N, 3, S, S) RGB normalised with CLIP's mean/std, output (N, D);
    ``text_model``: input token ids (N, context_length) int64 (and an attention mask if it takes one),
    output (N, D); ``tokenizer``: tokenizer.json of the text tower."""

    def __init__(
        self,
        image_model: str | Path,
        text_model: str | Path,
        tokenizer: str | Path,
        *,
        context_length: int = 77,
        space: str | None = None,
    ) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        for path in (Path(image_model), Path(text_model), Path(tokenizer)):
            if not path.is_file():
                raise ModelError(f"image-text model file not found: {path}")
        options = ort.SessionOptions()
        options.log_severity_level = 3
        try:
            self._image = ort.InferenceSession(
                str(image_model), sess_options=options, providers=["CPUExecutionProvider"]
            )
            self._text = ort.InferenceSession(str(text_model), sess_options=options, providers=["CPUExecutionProvider"])
        except Exception as exc:
            raise ModelError(f"cannot load the image-text models with ONNX Runtime: {exc}") from exc
        shape = self._image.get_inputs()[0].shape
        if len(shape) != 4 or shape[1] != 3 or not isinstance(shape[2], int) or shape[2] != shape[3]:
            raise ModelError(f"{Path(image_model).name}: expected an input (N, 3, S, S) with fixed S, got {shape}")
        self.size = int(shape[2])
        image_dims = self._image.get_outputs()[0].shape[-1]
        text_dims = self._text.get_outputs()[0].shape[-1]
        if image_dims != text_dims or not isinstance(image_dims, int):
            raise ModelError(f"image tower gives {image_dims} dimensions, text tower {text_dims}: not one shared space")
        self.dims = int(image_dims)
        self._text_inputs = [i.name for i in self._text.get_inputs()]
        self._tokenizer = Tokenizer.from_file(str(tokenizer))
        self._tokenizer.enable_truncation(max_length=context_length)
        self._tokenizer.enable_padding(length=context_length)
        self.context_length = context_length
        self.space = space or f"clip:{Path(image_model).stem}"

    def embed_images(self, images: Sequence[np.ndarray]) -> np.ndarray:
        if not images:
            return np.empty((0, self.dims), np.float32)
        blobs = []
        for image in images:
            h, w = image.shape[:2]
            scale = self.size / min(h, w)  # CLIP: resize the short side, centre crop
            resized = cv2.resize(
                image,
                (max(self.size, round(w * scale)), max(self.size, round(h * scale))),
                interpolation=cv2.INTER_CUBIC,
            )
            top, left = (resized.shape[0] - self.size) // 2, (resized.shape[1] - self.size) // 2
            rgb = (
                cv2.cvtColor(resized[top : top + self.size, left : left + self.size], cv2.COLOR_BGR2RGB).astype(
                    np.float32
                )
                / 255.0
            )
            blobs.append(((rgb - CLIP_MEAN) / CLIP_STD).transpose(2, 0, 1))
        out = self._image.run(
            None, {self._image.get_inputs()[0].name: np.ascontiguousarray(np.stack(blobs), dtype=np.float32)}
        )[0]
        return _normalise(np.asarray(out, np.float32))

    def embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.empty((0, self.dims), np.float32)
        encodings = self._tokenizer.encode_batch(list(texts))
        feeds = {self._text_inputs[0]: np.array([e.ids for e in encodings], np.int64)}
        if len(self._text_inputs) > 1:
            feeds[self._text_inputs[1]] = np.array([e.attention_mask for e in encodings], np.int64)
        return _normalise(np.asarray(self._text.run(None, feeds)[0], np.float32))
