"""Open-vocabulary detection (issue 41): a detector whose categories are words (GEB section 3.1's detections,
with things the household names among the categories). Two ONNX export styles through ONNX Runtime:

- ``yolo-world``: the words are fixed at export (YOLO-World with its classes set before export); one image
  input, boxes xyxy and one score per word.
- ``owl``: the words' text embeddings are an input (OWL-ViT / OWLv2), so the vocabulary is this process's:
  the configured classes, the names of enrolled things and the configured extra words.

The vocabulary's words are the ``Detections``' class names; :func:`~edge_agent.perception.detections.kind_of` makes
any word that is not a person or an animal an object ("keys" included)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np

from edge_agent.capture.frames import Frame
from edge_agent.config import OpenVocabDetectorConfig
from edge_agent.perception.detections import Detections, ModelError
from edge_agent.perception.detectors.yolox import letterbox, yolox_postprocess
from edge_agent.perception.imagetext import CLIP_MEAN, CLIP_STD, ImageTextEmbedder
from edge_agent.perception.registry import DETECTORS, BuildContext

__all__ = ["OpenVocabDetector", "Style", "merge_words"]

Style = Literal["yolo-world", "owl"]


def merge_words(*parts: Iterable[str]) -> tuple[str, ...]:
    """The words of ``parts`` in order, each once (the first spelling of words equal but for case and spaces)."""
    seen: set[str] = set()
    words = []
    for part in parts:
        for word in part:
            word = " ".join(word.split())
            if word and word.lower() not in seen:
                seen.add(word.lower())
                words.append(word)
    return tuple(words)


def _session(path: Path, providers: Sequence[str], threads: int) -> Any:
    import onnxruntime as ort

    if not path.is_file():
        raise ModelError(f"open-vocabulary detector model not found: {path}")
    available = set(ort.get_available_providers())
    options = ort.SessionOptions()
    options.log_severity_level = 3
    if threads:
        options.intra_op_num_threads = threads
    try:
        return ort.InferenceSession(
            str(path),
            sess_options=options,
            providers=[p for p in providers if p in available] or ["CPUExecutionProvider"],
        )
    except Exception as exc:  # onnxruntime raises its own types for corrupt files
        raise ModelError(f"cannot load {path} with ONNX Runtime: {exc}") from exc


def _image_size(path: Path, shape: Sequence[Any]) -> tuple[int, int]:
    if len(shape) != 4 or shape[1] != 3 or not all(isinstance(d, int) for d in shape[2:]):
        raise ModelError(f"{path.name}: expected an image input of shape (1, 3, H, W) with fixed H and W, got {shape}")
    return int(shape[2]), int(shape[3])


def _cxcywh(xyxy: np.ndarray) -> np.ndarray:
    return np.concatenate([(xyxy[:, :2] + xyxy[:, 2:]) / 2, xyxy[:, 2:] - xyxy[:, :2]], axis=1)


class OpenVocabDetector:
    """An open-vocabulary ONNX detector. ``style`` "yolo-world": input (1, 3, H, W) RGB 0-1 letterboxed; outputs
    ``boxes`` (1, N, 4) xyxy in input pixels and ``scores`` (1, N, C) for the C ``classes`` (in this order, else
    the first two outputs), or Ultralytics' single output (1, 4 + C, N) of cx, cy, w, h and the C scores.
    ``style`` "owl": inputs ``pixel_values`` (1, 3, H, W) RGB letterboxed and normalised with CLIP's mean/std,
    ``text_embeds`` (Q, D); outputs ``logits`` (1, N, Q) (scores after a sigmoid) and ``pred_boxes`` (1, N, 4)
    cx, cy, w, h as fractions of the input. Its words, ``classes`` then the names of enrolled things
    (:meth:`set_enrolled`) then ``vocabulary``, are embedded by ``text_embedder`` once per vocabulary.
    ``score_threshold``: lowest score kept; ``nms_iou``: IoU above which NMS suppresses a box of the same word."""

    def __init__(
        self,
        model_path: str | Path,
        *,
        style: Style,
        classes: Sequence[str] = (),
        vocabulary: Sequence[str] = (),
        text_embedder: ImageTextEmbedder | None = None,
        providers: Sequence[str] = ("CPUExecutionProvider",),
        score_threshold: float = 0.1,
        nms_iou: float = 0.45,
        threads: int = 0,
    ) -> None:
        path = Path(model_path)
        if style not in ("yolo-world", "owl"):
            raise ValueError(f"style must be 'yolo-world' or 'owl', got {style!r}")
        if style == "owl" and text_embedder is None:
            raise ModelError(
                "open-vocab style 'owl' needs an image-text model to embed its words: set [detector] image_text "
                "or [places] image_text to a CLIP-style folder (image.onnx, text.onnx, tokenizer.json)"
            )
        if style == "yolo-world" and vocabulary:
            raise ValueError("style 'yolo-world' fixes its words at export: give them as classes")
        self._session = _session(path, providers, threads)
        self.style: Style = style
        self.score_threshold = score_threshold
        self.nms_iou = nms_iou
        self._classes = tuple(classes)
        self._extra = tuple(vocabulary)
        self._enrolled: tuple[str, ...] = ()
        self._text_embedder = text_embedder
        self._embeds = np.empty((0, 0), np.float32)
        inputs = {i.name: i for i in self._session.get_inputs()}
        outputs = self._session.get_outputs()
        if style == "yolo-world":
            if len(inputs) != 1:
                raise ModelError(f"{path.name}: style 'yolo-world' takes one image input, the model has {list(inputs)}")
            (image,) = inputs.values()
            self.input_size = _image_size(path, image.shape)
            self._image_name = image.name
            self._layout = self._yolo_world_layout(path, outputs)
        else:
            if set(inputs) != {"pixel_values", "text_embeds"}:
                raise ModelError(
                    f"{path.name}: style 'owl' takes pixel_values and text_embeds, the model has {list(inputs)}"
                )
            self.input_size = _image_size(path, inputs["pixel_values"].shape)
            self._image_name = "pixel_values"
            text_shape = inputs["text_embeds"].shape
            names = {o.name: o.shape for o in outputs}
            if (
                len(text_shape) != 2
                or not isinstance(text_shape[1], int)
                or len(names.get("logits", ())) != 3
                or len(names.get("pred_boxes", ())) != 3
                or names["pred_boxes"][-1] != 4
            ):
                raise ModelError(
                    f"{path.name}: style 'owl' expects text_embeds (Q, D) -> logits (1, N, Q) and pred_boxes "
                    f"(1, N, 4); got text_embeds {text_shape} and outputs {names}"
                )
            self._text_dims = int(text_shape[1])
            self._queries = text_shape[0] if isinstance(text_shape[0], int) else None
        self.class_names: tuple[str, ...] = ()
        self._set_words()
        self.name = f"open-vocab {style} ({path.name}, {len(self.class_names)} words)"

    def _yolo_world_layout(self, path: Path, outputs: Sequence[Any]) -> str:
        """'pair' (boxes, scores) or 'ultralytics' (one (1, 4 + C, N) output), checked against the classes."""
        want = len(self._classes)
        by_name = {o.name: o for o in outputs}
        if len(outputs) == 1 and len(outputs[0].shape) == 3:
            layout, count = "ultralytics", outputs[0].shape[1]
            count = count - 4 if isinstance(count, int) else count
        elif len(outputs) == 2:
            boxes, scores = (
                (by_name["boxes"], by_name["scores"]) if {"boxes", "scores"} <= set(by_name) else tuple(outputs)
            )
            if len(boxes.shape) != 3 or boxes.shape[-1] != 4 or len(scores.shape) != 3:
                raise ModelError(
                    f"{path.name}: style 'yolo-world' expects outputs boxes (1, N, 4) and scores (1, N, C); got "
                    f"{boxes.name} {boxes.shape} and {scores.name} {scores.shape}"
                )
            layout, count = "pair", scores.shape[-1]
            self._output_names = [boxes.name, scores.name]
        else:
            raise ModelError(
                f"{path.name}: style 'yolo-world' expects outputs boxes (1, N, 4) and scores (1, N, C), or one "
                f"(1, 4 + C, N); got {[(o.name, o.shape) for o in outputs]}"
            )
        if count != want:
            raise ModelError(
                f"{path.name} scores {count} classes (outputs {[o.shape for o in outputs]}) but [detector] classes "
                f"names {want}: list the export's classes, in its order"
            )
        return layout

    def set_enrolled(self, names: Sequence[str]) -> None:
        """The names of things the household enrolled (memory.things), looked for after the configured classes
        and before the configured vocabulary. A yolo-world export fixed its words: there this changes nothing."""
        if self.style == "owl":
            self._enrolled = tuple(names)
            self._set_words()

    def _set_words(self) -> None:
        words = (
            merge_words(self._classes, self._enrolled, self._extra)
            if self.style == "owl"
            else tuple(self._classes)  # the export's order, as given
        )
        if words == self.class_names:
            return
        if self.style == "owl" and words:
            assert self._text_embedder is not None
            if self._queries is not None and len(words) > self._queries:
                raise ModelError(f"the owl model takes {self._queries} words at most; the vocabulary has {len(words)}")
            embeds = np.asarray(self._text_embedder.embed_texts(list(words)), np.float32)
            if embeds.shape != (len(words), self._text_dims):
                raise ModelError(
                    f"the image-text model embeds {len(words)} words as {embeds.shape}; the owl model takes "
                    f"text_embeds (Q, {self._text_dims})"
                )
            if self._queries is not None:  # a fixed number of queries: the rest are zeros, never reported
                embeds = np.vstack([embeds, np.zeros((self._queries - len(words), self._text_dims), np.float32)])
            self._embeds = np.ascontiguousarray(embeds)
        self.class_names = words

    def detect(self, frame: Frame) -> Detections:
        if not self.class_names:
            return Detections.empty(self.class_names)
        blob, ratio = letterbox(frame.image, self.input_size)
        rgb = blob[:, ::-1] / 255.0
        height, width = self.input_size
        if self.style == "owl":
            mean = np.asarray(CLIP_MEAN, np.float32).reshape(1, 3, 1, 1)
            std = np.asarray(CLIP_STD, np.float32).reshape(1, 3, 1, 1)
            pixels = np.ascontiguousarray((rgb - mean) / std, np.float32)
            logits, boxes = self._session.run(
                ["logits", "pred_boxes"], {"pixel_values": pixels, "text_embeds": self._embeds}
            )
            scores = 1 / (1 + np.exp(-logits[0, :, : len(self.class_names)].astype(np.float32)))
            cxcywh = boxes[0].astype(np.float32) * np.asarray([width, height, width, height], np.float32)
        else:
            pixels = np.ascontiguousarray(rgb, np.float32)
            if self._layout == "pair":
                boxes, scores = self._session.run(self._output_names, {self._image_name: pixels})
                cxcywh, scores = _cxcywh(boxes[0].astype(np.float32)), scores[0].astype(np.float32)
            else:
                raw = self._session.run(None, {self._image_name: pixels})[0][0].T.astype(np.float32)
                cxcywh, scores = raw[:, :4], raw[:, 4:]
        if cxcywh.shape[0] != scores.shape[0] or scores.shape[1] != len(self.class_names):
            raise ModelError(
                f"the model gave {cxcywh.shape[0]} boxes and scores {scores.shape} for {len(self.class_names)} words"
            )
        # yolox_postprocess reads (cx, cy, w, h, objectness, class scores): objectness 1 leaves the scores as they are
        decoded = np.concatenate([cxcywh, np.ones((len(scores), 1), np.float32), scores], axis=1)
        frame_width, frame_height = frame.size
        return yolox_postprocess(decoded, ratio, self.score_threshold, self.nms_iou, self.class_names).clipped(
            frame_width, frame_height
        )


@DETECTORS.register("open-vocab")
def build(config: OpenVocabDetectorConfig, context: BuildContext) -> OpenVocabDetector:
    """An owl export embeds its words with [detector] image_text, else [places]'s."""
    text_embedder = None
    if config.style == "owl":
        places = context.config.places.image_text
        folder, key = (
            (config.image_text, "[detector] image_text") if config.image_text else (places, "[places] image_text")
        )
        text_embedder = context.image_text(folder, key) if folder else None
    return OpenVocabDetector(
        context.model_file(config.model),
        style=config.style,
        classes=config.classes,
        vocabulary=config.vocabulary,
        text_embedder=text_embedder,
        providers=config.providers,
        score_threshold=config.score_threshold,
        nms_iou=config.nms_iou,
        threads=config.threads,
    )
