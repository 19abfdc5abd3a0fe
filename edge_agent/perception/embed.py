"""Appearance embeddings (GEB section 3.3 compares these): one ``Embedder`` protocol turning crops
into L2-normalised vectors of a named space. Backends:

- ``OSNetEmbedder``: ONNX person re-identification (OSNet-style: 256x128 RGB, ImageNet-normalised).
- ``ColorTextureEmbedder``: needs no model file: spatial colour histograms (hue/saturation per cell of
  a 2x2 grid plus the whole crop) and a gradient-orientation texture histogram; it tells a striped from
  a plain red mug, which a colour-only histogram or a category name cannot.
- ``ONNXImageEmbedder``: any image-embedding export (CLIP or DINOv2 image towers), configured by
  input size, colour order and normalisation.
- ``TensorRTEmbedder``: an engine built from such an ONNX (``edge-agent models build-engine``), e.g.
  OSNet on a Jetson; the same preprocessing, run with tensorrt + pycuda (import-guarded).

An observation's embedding is the normalised mean over its best crops; with ``Described`` (GEB's normalised
multimodal embedding) it is joined by the text vector of what its description says.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import cv2
import numpy as np

from edge_agent.config import (
    AutoEmbedder,
    ColorTextureEmbedderConfig,
    ONNXEmbedderConfig,
    OSNetEmbedderConfig,
    TensorRTEmbedderConfig,
)
from edge_agent.perception.detections import ModelError
from edge_agent.perception.registry import EMBEDDERS, BuildContext

if TYPE_CHECKING:  # the text model's module loads its weights' reader
    from edge_agent.perception.text import TextEmbedder

__all__ = [
    "ColorTextureEmbedder",
    "Described",
    "Embedder",
    "ONNXImageEmbedder",
    "OSNetEmbedder",
    "TensorRTEmbedder",
    "observation_embedding",
    "soft_histogram",
    "soft_votes",
    "subject_weights",
]

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)


class Embedder(Protocol):
    space: str  #: name of the embedding space; vectors of different spaces are never compared
    dims: int

    def embed(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        """(N, dims) float32, rows L2-normalised, for N BGR crops."""
        ...


def _normalise(x: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    result: np.ndarray = (x / np.maximum(norms, 1e-12)).astype(np.float32)
    return result


def observation_embedding(embedder: Embedder, crops: Sequence[np.ndarray]) -> np.ndarray:
    """One vector for an observation: the normalised mean of its crops' embeddings."""
    vectors = embedder.embed(crops)
    result: np.ndarray = _normalise(vectors.mean(axis=0, keepdims=True))[0]
    return result


class Described:
    """GEB's normalised multimodal observation embedding: the appearance vector joined by the text vector of what
    the description says (its category, colour and pattern: "striped red cup", from the typed fields, not the
    sentence), as ``[sqrt(1 - w) a, sqrt(w) t]`` with both parts unit length, so that the cosine similarity of
    two observations is ``(1 - w) x appearance + w x description``. ``weights``: w per kind (0: appearance
    alone). The space is named for both parts and the weight, so vectors of another mix are never compared and
    association thresholds are set for it (``[association.spaces]``)."""

    def __init__(self, text: TextEmbedder, weights: Mapping[str, float]) -> None:
        for kind, w in weights.items():
            if not 0.0 <= w < 1.0:
                raise ValueError(f"description weight of {kind} must be in [0, 1), got {w}")
        self.text = text
        self.weights = {k: float(w) for k, w in weights.items() if w > 0}
        self._vectors: dict[str, np.ndarray] = {}

    def weight(self, kind: str) -> float:
        return self.weights.get(kind, 0.0)

    def space(self, kind: str, appearance: str) -> str:
        w = self.weight(kind)
        return appearance if w == 0 else f"{appearance}+described:{self.text.space}@{w:g}"

    def _text(self, words: str) -> np.ndarray:
        if words not in self._vectors:  # few distinct labels: each is embedded once
            self._vectors[words] = np.asarray(self.text.embed([words]), np.float32).reshape(-1)
        return self._vectors[words]

    def combine(self, kind: str, appearance: np.ndarray, words: str) -> np.ndarray:
        """The observation's vector from its appearance and the words its description gives it."""
        w = self.weight(kind)
        if w == 0:
            return appearance
        text = self._text(words)
        result: np.ndarray = _normalise(np.concatenate([np.sqrt(1 - w) * appearance, np.sqrt(w) * text])[None])[0]
        return result

    def appearance_only(self, kind: str, appearance: np.ndarray) -> np.ndarray:
        """The appearance part alone, in the joint space (the text part zero): for proposing an entity before
        the description exists; its similarity to a joint vector is sqrt(1 - w) x appearance."""
        w = self.weight(kind)
        if w == 0:
            return appearance
        return np.concatenate([appearance, np.zeros(int(self.text.dims), np.float32)]).astype(np.float32)


@functools.lru_cache(maxsize=64)
def _centre_kernel(height: int, width: int) -> np.ndarray:
    """Epanechnikov weights over an image: 1 at the centre, 0 at the edges."""
    ry = (np.arange(height, dtype=np.float32) + 0.5) / height * 2 - 1
    rx = (np.arange(width, dtype=np.float32) + 0.5) / width * 2 - 1
    return np.maximum(0.0, 1.0 - (ry[:, None] ** 2 + rx[None, :] ** 2)).astype(np.float32)


def subject_weights(image: np.ndarray) -> np.ndarray:
    """Per pixel of a crop, how much it shows the thing rather than what is around it (0..1): the
    centre kernel times the foreground weight. The embedder and the describer's pattern both use it."""
    result: np.ndarray = _centre_kernel(*image.shape[:2]) * _foreground(image)
    return result


def _foreground(image: np.ndarray, ring: int = 2, scale: float = 40.0) -> np.ndarray:
    """Per pixel, how unlike the background it is (0..1): the background is the median colour of the
    crop's outer ring (a box's margin). Where nothing stands out (a thing the colour of its
    surroundings), every pixel counts."""
    border = np.concatenate(
        [
            image[:ring].reshape(-1, 3),
            image[-ring:].reshape(-1, 3),
            image[:, :ring].reshape(-1, 3),
            image[:, -ring:].reshape(-1, 3),
        ]
    ).astype(np.float32)
    distance = np.linalg.norm(image.astype(np.float32) - np.median(border, axis=0), axis=2)
    weight = np.clip(distance / scale, 0.0, 1.0)
    return weight if weight.mean() > 0.1 else np.ones_like(weight)


def soft_histogram(values: np.ndarray, weights: np.ndarray, bins: int, spread: float = 1.0) -> np.ndarray:
    """A normalised histogram of ``values`` in [0, 1] in which each value counts in the bins around it with
    Gaussian weights (``spread`` in bins): a value moved a little (the light a little brighter) moves its mass a
    little, not all of it at once when it crosses a bin's edge."""
    hist = soft_votes(values, bins, spread).T @ weights.astype(np.float32)
    result: np.ndarray = hist / max(float(hist.sum()), 1e-6)
    return result


def _rows_summing_to_one(votes: np.ndarray) -> np.ndarray:
    result: np.ndarray = (votes / votes.sum(axis=1, keepdims=True)).astype(np.float32)
    return result


def soft_votes(values: np.ndarray, bins: int, spread: float, *, circular: bool = False) -> np.ndarray:
    """(N, bins): each of N values in [0, 1] spread over the bins around it with Gaussian weights (``spread`` in
    bins); ``circular``: the last bin neighbours the first (hue, orientation)."""
    centres = (np.arange(bins, dtype=np.float32) + 0.5) / bins
    offsets = values.reshape(-1, 1).astype(np.float32) - centres[None, :]
    if circular:
        offsets = (offsets + 0.5) % 1.0 - 0.5
    return np.exp(-0.5 * (offsets * (bins / spread)) ** 2)


class ColorTextureEmbedder:
    """Hue-saturation histograms (32 x 3 bins, weighted by saturation so grey pixels count little) of
    the whole crop and of each cell of a 2x2 grid, a value histogram, and a 9-bin histogram of gradient
    orientations weighted by magnitude (stripes, checks and print show up here), each block
    normalised, the whole L2-normalised. 509 dimensions. Every pixel is also weighted by an
    Epanechnikov kernel centred on the crop (1 at the centre, 0 at the edges) and by how unlike the
    crop's margin colour it is: the background shows at the border of a box and around a shape, and a
    thing put somewhere else must still look like itself (v1, unweighted, split a small object's
    biography each time it moved to another surface). Hue blocks are normalised by area, so a
    colourless thing has small ones, and the outline counts little in the texture blocks.

    Every histogram is soft (a pixel votes into the bins around its value with Gaussian weights; hue and
    orientation wrap around): with hard bins a light a little warmer, or a thing turned a little, moved whole
    hues and edge directions across a bin's edge, and the same thing under another day's light fell under the
    association threshold (v3: hard hue and orientation bins, 8 hue bins). The bins are four times as fine as
    v3's so that votes spread over neighbours still tell a red from a crimson cup (with 16 bins the two plain
    mugs of the worn camera's world came within 0.76 of each other and were merged; with 32, 0.35)."""

    space = "color-texture-v4"
    hue_bins, hue_spread = 32, 0.7  # a bin is 5.6 degrees of hue; a vote's sigma is 3.9 degrees
    sat_bins, sat_spread = 3, 0.25
    orientation_bins, orientation_spread = 9, 0.6
    dims = 5 * hue_bins * sat_bins + 8 + orientation_bins + 12

    def __init__(self, size: int = 64) -> None:
        self.size = size
        # The votes of every value a pixel can have (OpenCV's 8-bit hue 0-179, saturation 0-255, orientation by
        # whole degrees), each row summing to 1: a lookup per pixel instead of a Gaussian per pixel and bin.
        self._hue_votes = _rows_summing_to_one(
            soft_votes(np.arange(180) / 180.0, self.hue_bins, self.hue_spread, circular=True)
        )
        self._sat_votes = _rows_summing_to_one(soft_votes(np.arange(256) / 255.0, self.sat_bins, self.sat_spread))
        self._orientation_votes = soft_votes(
            (np.arange(180) + 0.5) / 180.0, self.orientation_bins, self.orientation_spread, circular=True
        )

    def _one(self, patch: np.ndarray) -> np.ndarray:
        image = cv2.resize(patch, (self.size, self.size), interpolation=cv2.INTER_AREA)
        hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
        sat, val = hsv[..., 1].astype(np.float32) / 255.0, hsv[..., 2].astype(np.float32) / 255.0
        kernel = subject_weights(image)
        weight = sat * val * kernel  # colourless or dark pixels say little about hue; the border, little at all
        hues, sats = self._hue_votes[hsv[..., 0]], self._sat_votes[hsv[..., 1]]  # (size, size, bins)
        blocks = []
        half = self.size // 2
        cells = [(slice(None), slice(None))] + [
            (slice(r, r + half), slice(c, c + half)) for r in (0, half) for c in (0, half)
        ]
        for rows, cols in cells:  # by area: a colourless thing has small hue blocks
            h = (hues[rows, cols] * weight[rows, cols, None]).reshape(-1, self.hue_bins)
            joint = h.T @ sats[rows, cols].reshape(-1, self.sat_bins)
            blocks.append(joint.ravel() / max(float(kernel[rows, cols].sum()), 1e-6))
        blocks.append(soft_histogram(val.ravel(), kernel.ravel(), 8))
        gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
        gx, gy = cv2.Sobel(gray, cv2.CV_32F, 1, 0), cv2.Sobel(gray, cv2.CV_32F, 0, 1)
        magnitude, angle = cv2.cartToPolar(gx, gy, angleInDegrees=True)
        magnitude = magnitude * kernel * kernel  # the outline against the background counts least
        degrees = np.minimum((angle % 180.0).astype(np.int32), 179)
        texture = self._orientation_votes[degrees.ravel()].T @ magnitude.ravel()
        energy = float(magnitude.sum() / (kernel * kernel).sum()) / 255.0
        blocks.append(texture / max(texture.sum(), 1e-6) * min(1.0, energy * 4))  # flat surfaces: little texture
        # Coarse edge density per 2x2 cell: where the pattern is.
        density = [float(magnitude[r, c].mean()) / 255.0 for r, c in cells[1:]]
        blocks.append(np.repeat(np.asarray(density), 3))
        # Weights: lighting moves the value histogram most, so it counts least; texture tells patterns apart.
        vector = np.concatenate([b * w for b, w in zip(blocks, [1.0, 0.4, 0.4, 0.4, 0.4, 0.15, 1.5, 0.6])])
        return vector.astype(np.float32)

    def embed(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        if not crops:
            return np.empty((0, self.dims), np.float32)
        return _normalise(np.stack([self._one(c) for c in crops]))


def _image_blob(
    crops: Sequence[np.ndarray], size: tuple[int, int], rgb: bool, mean: np.ndarray, std: np.ndarray
) -> np.ndarray:
    """BGR crops -> (N, 3, H, W) float32: resized, RGB if asked, 0-1, per-channel normalised."""
    h, w = size
    images = [cv2.resize(c, (w, h), interpolation=cv2.INTER_LINEAR) for c in crops]
    if rgb:
        images = [cv2.cvtColor(i, cv2.COLOR_BGR2RGB) for i in images]
    x = np.stack(images).astype(np.float32).transpose(0, 3, 1, 2) / 255.0
    return np.ascontiguousarray((x - mean) / std, dtype=np.float32)


def _in_batches(blob: np.ndarray, batch: int | None, run: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """``run`` over the blob at once (dynamic batch) or in chunks of a fixed ``batch``, padding the last."""
    if batch is None:
        return run(blob)
    parts = []
    for i in range(0, len(blob), batch):
        chunk = blob[i : i + batch]
        pad = batch - len(chunk)
        if pad:
            chunk = np.concatenate([chunk, np.zeros((pad, *chunk.shape[1:]), np.float32)])
        parts.append(np.asarray(run(chunk)).reshape(batch, -1)[: batch - pad])
    return np.concatenate(parts)


class ONNXImageEmbedder:
    """An image-embedding ONNX model: input (N or 1, 3, H, W), output (N, D). ``rgb``: the model takes
    RGB (most do); ``mean`` / ``std``: per-channel normalisation of 0-1 pixel values."""

    def __init__(
        self,
        model_path: str | Path,
        *,
        space: str | None = None,
        size: tuple[int, int] | None = None,
        rgb: bool = True,
        mean: Sequence[float] = IMAGENET_MEAN,
        std: Sequence[float] = IMAGENET_STD,
        providers: Sequence[str] = ("CPUExecutionProvider",),
    ) -> None:
        import onnxruntime as ort

        path = Path(model_path)
        if not path.is_file():
            raise ModelError(f"embedding model not found: {path}")
        available = set(ort.get_available_providers())
        options = ort.SessionOptions()
        options.log_severity_level = 3
        # its threads wait without spinning: dev-forms took 17.5 s of CPU instead of 20.4 (wall 13.4 s against 12.1 on
        # two idle cores); a spinning pool starves whatever shares the cores (a hub's other cameras, a busy machine)
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            self._session = ort.InferenceSession(
                str(path),
                sess_options=options,
                providers=[p for p in providers if p in available] or ["CPUExecutionProvider"],
            )
        except Exception as exc:
            raise ModelError(f"cannot load {path} with ONNX Runtime: {exc}") from exc
        (inp,) = self._session.get_inputs()
        shape = inp.shape
        if len(shape) != 4 or shape[1] != 3:
            raise ModelError(f"{path.name}: expected an input of shape (N, 3, H, W), got {shape}")
        fixed = tuple(d for d in shape[2:] if isinstance(d, int))
        if size is None:
            if len(fixed) != 2:
                raise ModelError(f"{path.name}: input size is dynamic ({shape}); give size=(height, width)")
            size = (int(shape[2]), int(shape[3]))
        elif len(fixed) == 2 and tuple(fixed) != tuple(size):
            raise ModelError(
                f"{path.name}: model input is {fixed[0]}x{fixed[1]}, configured size is {size[0]}x{size[1]}"
            )
        out = self._session.get_outputs()[0].shape
        if len(out) != 2 or not isinstance(out[1], int):
            raise ModelError(f"{path.name}: expected an output of shape (N, D), got {out}")
        self._batch = shape[0] if isinstance(shape[0], int) else None
        self._input = inp.name
        self.size = size
        self.rgb = rgb
        self.mean = np.asarray(mean, np.float32).reshape(1, 3, 1, 1)
        self.std = np.asarray(std, np.float32).reshape(1, 3, 1, 1)
        self.dims = int(out[1])
        self.space = space or f"onnx:{path.stem}"

    def _blob(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        return _image_blob(crops, self.size, self.rgb, self.mean, self.std)

    def embed(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        if not crops:
            return np.empty((0, self.dims), np.float32)
        out = _in_batches(self._blob(crops), self._batch, lambda x: self._session.run(None, {self._input: x})[0])
        return _normalise(np.asarray(out, np.float32))


class OSNetEmbedder(ONNXImageEmbedder):
    """Person re-identification: OSNet-style ONNX (1 or N x 3 x 256 x 128, RGB, ImageNet-normalised)."""

    def __init__(self, model_path: str | Path, *, providers: Sequence[str] = ("CPUExecutionProvider",)) -> None:
        super().__init__(
            model_path, size=(256, 128), rgb=True, providers=providers, space=f"reid:{Path(model_path).stem}"
        )


class TensorRTEmbedder:
    """An image-embedding TensorRT engine, e.g. ``osnet_x0_25_msmt17.fp16.engine`` from ``edge-agent models
    build-engine osnet_x0_25_msmt17 --fp16``: input (B, 3, H, W) float32 preprocessed like the ONNX model
    (OSNet: 256x128, RGB, ImageNet mean/std), output (B, D); crops run in chunks of B. ``space`` defaults
    to the ONNX model's (``reid:<stem>``, the name before the first dot), so a memory built with the
    ONNX file keeps comparing against the engine's vectors: a reduced-precision engine moves them a little
    (not measured here: no TensorRT on the development machine); give another ``space`` to keep them apart.
    ``runtime``: an object with ``input_shape``, ``output_shape`` and ``infer(blob)`` (tests pass a fake);
    by default the engine is loaded with tensorrt + pycuda."""

    def __init__(
        self,
        engine_path: str | Path,
        *,
        space: str | None = None,
        rgb: bool = True,
        mean: Sequence[float] = IMAGENET_MEAN,
        std: Sequence[float] = IMAGENET_STD,
        runtime: Any = None,
    ) -> None:
        path = Path(engine_path)
        if not path.is_file():
            raise ModelError(f"TensorRT engine not found: {path}")
        if runtime is None:
            from edge_agent.perception.detectors.tensorrt import _TensorRTRuntime

            runtime = _TensorRTRuntime(path)
        self._runtime = runtime
        shape = tuple(int(d) for d in runtime.input_shape)
        out = tuple(int(d) for d in runtime.output_shape)
        if len(shape) != 4 or shape[1] != 3:
            raise ModelError(f"{path.name}: expected an engine input of shape (B, 3, H, W), got {shape}")
        if len(out) != 2 or out[0] != shape[0]:
            raise ModelError(f"{path.name}: expected an engine output of shape ({shape[0]}, D), got {out}")
        self._batch = shape[0]
        self.size = (shape[2], shape[3])
        self.rgb = rgb
        self.mean = np.asarray(mean, np.float32).reshape(1, 3, 1, 1)
        self.std = np.asarray(std, np.float32).reshape(1, 3, 1, 1)
        self.dims = out[1]
        self.space = space or f"reid:{path.name.split('.')[0]}"

    def embed(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        if not crops:
            return np.empty((0, self.dims), np.float32)
        blob = _image_blob(crops, self.size, self.rgb, self.mean, self.std)
        return _normalise(np.asarray(_in_batches(blob, self._batch, self._runtime.infer), np.float32))


# -- the builders of ``[embedders] <kind>.type`` -----------------------------------------------------------------


@EMBEDDERS.register("osnet")
def _build_osnet(config: OSNetEmbedderConfig, context: BuildContext) -> Embedder:
    return OSNetEmbedder(context.model_file(config.model), providers=config.providers)


@EMBEDDERS.register("onnx")
def _build_onnx(config: ONNXEmbedderConfig, context: BuildContext) -> Embedder:
    return ONNXImageEmbedder(
        context.model_file(config.model),
        size=config.size,
        rgb=config.rgb,
        mean=config.mean,
        std=config.std,
        providers=config.providers,
    )


@EMBEDDERS.register("tensorrt")
def _build_tensorrt(config: TensorRTEmbedderConfig, context: BuildContext) -> Embedder:
    return TensorRTEmbedder(
        context.model_file(config.engine), space=config.space, rgb=config.rgb, mean=config.mean, std=config.std
    )


@EMBEDDERS.register("color-texture")
def _build_color_texture(config: ColorTextureEmbedderConfig, context: BuildContext) -> Embedder:
    return ColorTextureEmbedder()


@EMBEDDERS.register("auto")
def _build_auto(config: AutoEmbedder, context: BuildContext) -> Embedder:
    """People: OSNet with its section's defaults when its file is in the models folder; everything else, and people
    without it: colour-texture."""
    osnet = OSNetEmbedderConfig(type="osnet")
    if context.kind == "person" and context.model_file(osnet.model).is_file():
        return EMBEDDERS.build(osnet, context)
    return EMBEDDERS.build(ColorTextureEmbedderConfig(type="color-texture"), context)
