"""Detection (GEB section 3.1, the first half of observations): one ``Detector`` protocol returning a
``Detections`` dataclass of parallel arrays. Backends:

- ``YOLOXDetector``: a YOLOX ONNX export through ONNX Runtime (letterbox with pad 114, BGR 0-255, grid
  decode over strides 8/16/32, class-wise NMS); execution providers CPU, CUDA or TensorRT.
- ``TensorRTYOLOXDetector``: the same model as a TensorRT engine (tensorrt + pycuda, import-guarded).
- ``OpenCVDetector``: OpenCV's built-ins, needing no model file: the HOG people detector and Haar
  cascades (cat faces by default).
- ``GroundTruthDetector``: replays annotated boxes (a MOT sequence's gt/gt.txt) with optional noise.

Category names map to entity kinds (person / animal / object). :func:`merge_confusable` makes one box of the
boxes two classes of one confusable group put on one thing in one frame (a van as car and truck).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np
import numpy.typing as npt

from edge_agent.capture.frames import CaptureError, Frame
from edge_agent.capture.images import read_mot_rows
from edge_agent.errors import EdgeAgentError
from edge_agent.memory.categories import CONFUSABLE
from edge_agent.native import iou_matrix
from edge_agent.perception.vocabulary import ANIMALS, COCO_CLASSES

__all__ = [
    "COCO_CLASSES",
    "Detections",
    "Detector",
    "GroundTruthDetector",
    "ModelError",
    "OpenCVDetector",
    "TensorRTYOLOXDetector",
    "YOLOXDetector",
    "confusable_ids",
    "kind_of",
    "merge_confusable",
]


def kind_of(category: str) -> str:
    """The entity kind of a detector category."""
    if category == "person":
        return "person"
    return "animal" if category in ANIMALS else "object"


class ModelError(EdgeAgentError, RuntimeError):
    """A model file is missing, unreadable, or not shaped as the backend expects."""


@dataclass(frozen=True, eq=False)
class Detections:
    """Detections in one frame: ``xyxy`` float32 (N, 4) pixels, ``confidence`` float32 (N,) in [0, 1],
    ``class_id`` int32 (N,) indexing ``class_names``. ``runner_up_id`` int32 (N,): the next-best class of the
    same thing where a box of it was merged into this one (:func:`merge_confusable`), -1 for none, with its
    score in ``runner_up_confidence`` float32 (N,), 0 for none; left out, every row has none."""

    xyxy: npt.NDArray[np.float32]
    confidence: npt.NDArray[np.float32]
    class_id: npt.NDArray[np.int32]
    class_names: tuple[str, ...]
    runner_up_id: npt.NDArray[np.int32] = field(default_factory=lambda: np.empty(0, np.int32))
    runner_up_confidence: npt.NDArray[np.float32] = field(default_factory=lambda: np.empty(0, np.float32))

    def __post_init__(self) -> None:
        n = self.xyxy.shape[0]
        if self.xyxy.shape != (n, 4) or self.confidence.shape != (n,) or self.class_id.shape != (n,):
            raise ValueError(
                f"detections need xyxy (N, 4), confidence (N,), class_id (N,); got "
                f"{self.xyxy.shape}, {self.confidence.shape}, {self.class_id.shape}"
            )
        if self.runner_up_id.size == 0 and self.runner_up_confidence.size == 0:  # left out: no runner-ups
            object.__setattr__(self, "runner_up_id", np.full(n, -1, np.int32))
            object.__setattr__(self, "runner_up_confidence", np.zeros(n, np.float32))
        if self.runner_up_id.shape != (n,) or self.runner_up_confidence.shape != (n,):
            raise ValueError(
                f"detections need runner_up_id (N,) and runner_up_confidence (N,) for N = {n}; got "
                f"{self.runner_up_id.shape}, {self.runner_up_confidence.shape}"
            )

    @classmethod
    def empty(cls, class_names: tuple[str, ...]) -> Detections:
        return cls(np.empty((0, 4), np.float32), np.empty(0, np.float32), np.empty(0, np.int32), class_names)

    def runner_up(self, i: int) -> str:
        """The next-best category of detection ``i`` ('' for none)."""
        k = int(self.runner_up_id[i])
        return self.class_names[k] if k >= 0 else ""

    def __len__(self) -> int:
        return int(self.xyxy.shape[0])

    def category(self, i: int) -> str:
        return self.class_names[int(self.class_id[i])]

    def clipped(self, width: int, height: int, min_size: float = 2.0) -> Detections:
        """Boxes clipped to the image; boxes left thinner than ``min_size`` pixels dropped."""
        xyxy = self.xyxy.copy()
        np.clip(xyxy[:, 0::2], 0, width, out=xyxy[:, 0::2])
        np.clip(xyxy[:, 1::2], 0, height, out=xyxy[:, 1::2])
        keep = ((xyxy[:, 2] - xyxy[:, 0]) >= min_size) & ((xyxy[:, 3] - xyxy[:, 1]) >= min_size)
        return Detections(
            xyxy[keep],
            self.confidence[keep],
            self.class_id[keep],
            self.class_names,
            self.runner_up_id[keep],
            self.runner_up_confidence[keep],
        )


def confusable_ids(class_names: Sequence[str], groups: Sequence[Sequence[str]] = CONFUSABLE) -> npt.NDArray[np.int32]:
    """Per class id, one id shared by the classes of its confusable group (the group's lowest class id in
    ``class_names``), its own id when it is in no group: the classes a detector swaps on one thing."""
    index = {name.lower(): k for k, name in enumerate(class_names)}
    shared = np.arange(len(class_names), dtype=np.int32)
    for group in groups:
        ids = [index[c] for c in group if c in index]
        if ids:
            shared[ids] = min(ids)
    return shared


def merge_confusable(
    detections: Detections, iou_threshold: float, groups: Sequence[Sequence[str]] = CONFUSABLE
) -> Detections:
    """One box per thing per frame. Of boxes of different classes of one confusable group (``groups``: memory's
    :data:`~edge_agent.memory.categories.CONFUSABLE`, car/truck/bus, ...) overlapping with IoU of at least
    ``iou_threshold``, the best-scored keeps its own box, class and score, and the best-scored of the others
    becomes its runner-up (``runner_up_id``, ``runner_up_confidence``). Its own box rather than a score-weighted
    one: the box the winning class head drew is the one the next frames' boxes of that class resemble. Greedy,
    best score first, as NMS: a box merged into another takes none. Boxes of one class are the detector's NMS's
    business, and classes in different groups or in none (a person on a bicycle) never merge."""
    n = len(detections)
    if n < 2:
        return detections
    class_id, confidence = detections.class_id, detections.confidence
    group = confusable_ids(detections.class_names, groups)[class_id]
    linked = (
        (group[:, None] == group[None, :])
        & (class_id[:, None] != class_id[None, :])
        & (iou_matrix(detections.xyxy, detections.xyxy) >= iou_threshold)
    )
    if not linked.any():
        return detections
    merged = np.zeros(n, bool)
    runner_up_id, runner_up_confidence = detections.runner_up_id.copy(), detections.runner_up_confidence.copy()
    for i in np.argsort(-confidence, kind="stable"):
        taken = linked[i] & ~merged
        if merged[i] or not taken.any():
            continue
        merged |= taken
        best = np.flatnonzero(taken)[np.argmax(confidence[taken])]
        if confidence[best] > runner_up_confidence[i]:
            runner_up_id[i], runner_up_confidence[i] = class_id[best], confidence[best]
    keep = ~merged
    return Detections(
        detections.xyxy[keep],
        confidence[keep],
        class_id[keep],
        detections.class_names,
        runner_up_id[keep],
        runner_up_confidence[keep],
    )


class Detector(Protocol):
    name: str  #: backend and model, for the run report
    class_names: tuple[str, ...]

    def detect(self, frame: Frame) -> Detections: ...


# -- YOLOX ------------------------------------------------------------------------------------------


def letterbox(image: np.ndarray, size: tuple[int, int]) -> tuple[np.ndarray, float]:
    """YOLOX's preprocessing: resize keeping aspect, pad with 114 at the bottom/right; returns the
    (1, 3, H, W) float32 BGR blob and the scale."""
    height, width = size
    ratio = min(height / image.shape[0], width / image.shape[1])
    resized = cv2.resize(
        image, (int(image.shape[1] * ratio), int(image.shape[0] * ratio)), interpolation=cv2.INTER_LINEAR
    )
    padded = np.full((height, width, 3), 114, dtype=np.uint8)
    padded[: resized.shape[0], : resized.shape[1]] = resized
    return np.ascontiguousarray(padded.transpose(2, 0, 1)[None], dtype=np.float32), ratio


def yolox_decode(raw: np.ndarray, size: tuple[int, int], strides: Sequence[int] = (8, 16, 32)) -> np.ndarray:
    """Grid decode of a YOLOX head output (1, A, 5 + C) exported without decoding: centres and sizes to
    input pixels. Returns (A, 5 + C)."""
    height, width = size
    grids, scales = [], []
    for stride in strides:
        gh, gw = height // stride, width // stride
        ys, xs = np.meshgrid(np.arange(gh), np.arange(gw), indexing="ij")
        grids.append(np.stack([xs, ys], axis=-1).reshape(-1, 2))
        scales.append(np.full((gh * gw, 1), stride))
    grid, scale = np.concatenate(grids), np.concatenate(scales)
    out = raw[0].astype(np.float32).copy()
    if out.shape[0] != grid.shape[0]:
        raise ModelError(
            f"YOLOX output has {out.shape[0]} anchors; "
            f"strides {tuple(strides)} at {width}x{height} give {grid.shape[0]}"
        )
    out[:, :2] = (out[:, :2] + grid) * scale
    out[:, 2:4] = np.exp(out[:, 2:4]) * scale
    return out


def yolox_postprocess(
    decoded: np.ndarray, ratio: float, score_threshold: float, nms_iou: float, class_names: tuple[str, ...]
) -> Detections:
    scores_all = decoded[:, 4:5] * decoded[:, 5:]
    class_id = scores_all.argmax(axis=1)
    scores = scores_all[np.arange(len(class_id)), class_id]
    keep = scores >= score_threshold
    if not np.any(keep):
        return Detections.empty(class_names)
    boxes = decoded[keep, :4]
    xyxy = (
        np.stack(
            [
                boxes[:, 0] - boxes[:, 2] / 2,
                boxes[:, 1] - boxes[:, 3] / 2,
                boxes[:, 0] + boxes[:, 2] / 2,
                boxes[:, 1] + boxes[:, 3] / 2,
            ],
            axis=1,
        )
        / ratio
    )
    scores, class_id = scores[keep], class_id[keep]
    xywh = np.concatenate([xyxy[:, :2], xyxy[:, 2:] - xyxy[:, :2]], axis=1)
    picked = cv2.dnn.NMSBoxesBatched(xywh.tolist(), scores.tolist(), class_id.tolist(), score_threshold, nms_iou)
    picked = np.asarray(picked, dtype=np.int64).reshape(-1)
    return Detections(
        xyxy[picked].astype(np.float32),
        scores[picked].astype(np.float32),
        class_id[picked].astype(np.int32),
        class_names,
    )


class YOLOXDetector:
    """YOLOX (COCO) through ONNX Runtime. ``providers``: ONNX Runtime execution providers in order of
    preference, e.g. ["TensorrtExecutionProvider", "CUDAExecutionProvider", "CPUExecutionProvider"];
    unavailable ones are skipped, and ``providers_used`` says what runs."""

    def __init__(
        self,
        model_path: str | Path,
        *,
        providers: Sequence[str] = ("CPUExecutionProvider",),
        score_threshold: float = 0.1,
        nms_iou: float = 0.45,
        class_names: tuple[str, ...] = COCO_CLASSES,
        threads: int = 0,
    ) -> None:
        import onnxruntime as ort

        path = Path(model_path)
        if not path.is_file():
            raise ModelError(f"detector model not found: {path}")
        available = set(ort.get_available_providers())
        chosen = [p for p in providers if p in available] or ["CPUExecutionProvider"]
        options = ort.SessionOptions()
        options.log_severity_level = 3
        if threads:
            options.intra_op_num_threads = threads
        try:
            self._session = ort.InferenceSession(str(path), sess_options=options, providers=chosen)
        except Exception as exc:  # onnxruntime raises its own types for corrupt files
            raise ModelError(f"cannot load {path} with ONNX Runtime: {exc}") from exc
        inputs = self._session.get_inputs()
        shape = inputs[0].shape
        if len(inputs) != 1 or len(shape) != 4 or shape[1] != 3 or not all(isinstance(d, int) for d in shape[2:]):
            raise ModelError(f"{path.name}: expected one input of shape (1, 3, H, W) with fixed H and W, got {shape}")
        out_shape = self._session.get_outputs()[0].shape
        if len(out_shape) != 3 or out_shape[-1] != 5 + len(class_names):
            raise ModelError(
                f"{path.name}: expected output (1, anchors, {5 + len(class_names)}) for {len(class_names)} "
                f"classes, got {out_shape}"
            )
        self.input_size = (int(shape[2]), int(shape[3]))
        self._input_name = inputs[0].name
        self.score_threshold = score_threshold
        self.nms_iou = nms_iou
        self.class_names = class_names
        self.providers_used = tuple(self._session.get_providers())
        self.name = f"yolox-onnx ({path.name}, {', '.join(self.providers_used)})"

    def detect(self, frame: Frame) -> Detections:
        blob, ratio = letterbox(frame.image, self.input_size)
        raw = self._session.run(None, {self._input_name: blob})[0]
        decoded = yolox_decode(raw, self.input_size)
        width, height = frame.size
        return yolox_postprocess(decoded, ratio, self.score_threshold, self.nms_iou, self.class_names).clipped(
            width, height
        )


class TensorRTYOLOXDetector:
    """YOLOX as a serialised TensorRT engine (built by ``edge-agent models build-engine``), run with
    tensorrt and pycuda. Both are imported only here; without them this backend says what is missing."""

    def __init__(
        self,
        engine_path: str | Path,
        *,
        score_threshold: float = 0.1,
        nms_iou: float = 0.45,
        class_names: tuple[str, ...] = COCO_CLASSES,
        runtime: Any = None,
    ) -> None:
        path = Path(engine_path)
        if not path.is_file():
            raise ModelError(f"TensorRT engine not found: {path}")
        self._runtime = runtime or _TensorRTRuntime(path)
        shape = tuple(self._runtime.input_shape)
        if len(shape) != 4 or shape[1] != 3:
            raise ModelError(f"{path.name}: expected an engine input of shape (1, 3, H, W), got {shape}")
        self.input_size = (int(shape[2]), int(shape[3]))
        self.score_threshold = score_threshold
        self.nms_iou = nms_iou
        self.class_names = class_names
        self.name = f"yolox-tensorrt ({path.name})"

    def detect(self, frame: Frame) -> Detections:
        blob, ratio = letterbox(frame.image, self.input_size)
        raw = self._runtime.infer(blob)
        decoded = yolox_decode(raw.reshape(1, -1, 5 + len(self.class_names)), self.input_size)
        width, height = frame.size
        return yolox_postprocess(decoded, ratio, self.score_threshold, self.nms_iou, self.class_names).clipped(
            width, height
        )


class _TensorRTRuntime:
    """An engine with one input and one output (float32), executed synchronously with pycuda buffers;
    ``input_shape`` / ``output_shape`` are the shapes it runs at. Shared by the TensorRT detector and
    embedder; tests pass a fake with the same three members."""

    def __init__(self, path: Path) -> None:
        try:
            import pycuda.autoinit  # noqa: F401 - creates the CUDA context
            import pycuda.driver as cuda
            import tensorrt as trt
        except ImportError as exc:
            raise ModelError(
                f"the TensorRT backend needs tensorrt and pycuda ({exc.name} is not installed); "
                'use the ONNX Runtime backends instead (type = "yolox" / "osnet")'
            ) from exc
        self._cuda = cuda
        logger = trt.Logger(trt.Logger.WARNING)
        with open(path, "rb") as f, trt.Runtime(logger) as runtime:
            self._engine = runtime.deserialize_cuda_engine(f.read())
        if self._engine is None:
            raise ModelError(f"{path.name} is not a TensorRT engine for this GPU and TensorRT version")
        self._context = self._engine.create_execution_context()
        names = [self._engine.get_tensor_name(i) for i in range(self._engine.num_io_tensors)]
        inputs = [n for n in names if self._engine.get_tensor_mode(n) == trt.TensorIOMode.INPUT]
        outputs = [n for n in names if self._engine.get_tensor_mode(n) == trt.TensorIOMode.OUTPUT]
        if len(inputs) != 1 or len(outputs) != 1:
            raise ModelError(f"{path.name}: expected one input and one output tensor, got {inputs} and {outputs}")
        self._input, self._output = inputs[0], outputs[0]
        self.input_shape = tuple(self._engine.get_tensor_shape(self._input))
        if any(
            d < 0 for d in self.input_shape
        ):  # built from an ONNX with a dynamic dimension: run at the profile's shape
            self.input_shape = tuple(self._engine.get_tensor_profile_shape(self._input, 0)[1])
            self._context.set_input_shape(self._input, self.input_shape)
        self.output_shape = tuple(self._context.get_tensor_shape(self._output))
        self._out_host = cuda.pagelocked_empty(self.output_shape, np.float32)
        self._in_dev = cuda.mem_alloc(int(np.prod(self.input_shape)) * 4)
        self._out_dev = cuda.mem_alloc(self._out_host.nbytes)
        self._context.set_tensor_address(self._input, int(self._in_dev))
        self._context.set_tensor_address(self._output, int(self._out_dev))
        self._stream = cuda.Stream()

    def infer(self, blob: np.ndarray) -> np.ndarray:
        self._cuda.memcpy_htod_async(self._in_dev, np.ascontiguousarray(blob, np.float32), self._stream)
        self._context.execute_async_v3(self._stream.handle)
        self._cuda.memcpy_dtoh_async(self._out_host, self._out_dev, self._stream)
        self._stream.synchronize()
        return np.array(self._out_host)


# -- OpenCV built-ins -------------------------------------------------------------------------------


class OpenCVDetector:
    """No model file needed: HOG + linear SVM people detector, and Haar cascades shipped with
    opencv-python 4.x (``cascades`` maps a cascade file to the category it finds). Weaker than a CNN
    detector; the fallback when no detector model is installed."""

    def __init__(self, *, people: bool = True, cascades: dict[str, str] | None = None, max_width: int = 960) -> None:
        self.class_names: tuple[str, ...] = ("person", "cat")
        self._people = people
        self._hog = cv2.HOGDescriptor()
        self._hog.setSVMDetector(cv2.HOGDescriptor_getDefaultPeopleDetector())
        cascades = {"haarcascade_frontalcatface.xml": "cat"} if cascades is None else cascades
        data = getattr(getattr(cv2, "data", None), "haarcascades", None)
        self._cascades: list[tuple[cv2.CascadeClassifier, int]] = []
        for file, category in cascades.items():
            path = Path(file) if Path(file).is_file() else Path(data or "") / file
            classifier = cv2.CascadeClassifier(str(path))
            if classifier.empty():
                raise ModelError(
                    f"Haar cascade {file} not found (opencv-python-headless 4.x bundles them; 5.x does not)"
                )
            if category not in self.class_names:
                self.class_names = (*self.class_names, category)
            self._cascades.append((classifier, self.class_names.index(category)))
        self.max_width = max_width
        parts = (["hog-people"] if people else []) + [Path(f).stem for f in cascades]
        self.name = f"opencv ({', '.join(parts)})"

    def detect(self, frame: Frame) -> Detections:
        image = frame.image
        scale = min(1.0, self.max_width / image.shape[1])
        small = cv2.resize(image, None, fx=scale, fy=scale) if scale < 1.0 else image
        boxes, scores, classes = [], [], []
        window_width, window_height = self._hog.winSize
        # A person is found at the window's size or larger, so a smaller image holds none (and OpenCV's HOG
        # crashes the process on one less than the window high).
        if self._people and small.shape[0] >= window_height and small.shape[1] >= window_width:
            found, weights = self._hog.detectMultiScale(small, winStride=(8, 8), padding=(8, 8), scale=1.05)
            for (x, y, w, h), weight in zip(found, np.asarray(weights).reshape(-1)):
                boxes.append([x, y, x + w, y + h])
                scores.append(1.0 / (1.0 + np.exp(-2.0 * float(weight))))  # SVM margin -> (0, 1)
                classes.append(0)
        gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
        for classifier, class_id in self._cascades:
            found, _, levels = classifier.detectMultiScale3(
                gray, scaleFactor=1.1, minNeighbors=4, outputRejectLevels=True
            )
            for (x, y, w, h), level in zip(found, np.asarray(levels).reshape(-1)):
                boxes.append([x, y, x + w, y + h])
                scores.append(1.0 / (1.0 + np.exp(-0.5 * float(level))))
                classes.append(class_id)
        if not boxes:
            return Detections.empty(self.class_names)
        xyxy = np.asarray(boxes, np.float32) / scale
        return Detections(
            xyxy, np.asarray(scores, np.float32), np.asarray(classes, np.int32), self.class_names
        ).clipped(*frame.size)


# -- ground truth ------------------------------------------------------------------------------------

# MOT17 classes: 1 pedestrian, 2 person on vehicle, 7 static person; others are vehicles and distractors.
MOT_PERSON_CLASSES = frozenset({1, 2, 7})


@dataclass(frozen=True)
class DetectionNoise:
    """Perception noise for ground-truth replay: missed boxes, jitter, false positives, scores."""

    miss_rate: float = 0.0
    jitter_px: float = 0.0
    false_positive_rate: float = 0.0
    score_range: tuple[float, float] = (0.9, 0.9)
    seed: int = 0


class GroundTruthDetector:
    """Replays annotated boxes: ``boxes_of(frame_index)`` -> (xyxy, category names). For a MOT sequence,
    :meth:`from_mot` reads gt/gt.txt (ignoring rows with conf 0 and non-person classes)."""

    def __init__(
        self,
        boxes_of: Callable[[int], tuple[np.ndarray, Sequence[str]]],
        class_names: Sequence[str],
        *,
        noise: DetectionNoise | None = None,
        name: str = "ground truth",
    ) -> None:
        self._boxes_of = boxes_of
        self.class_names = tuple(class_names)
        self.noise = noise or DetectionNoise()
        self._rng = np.random.default_rng(self.noise.seed)
        self.name = name

    @classmethod
    def from_mot(
        cls, sequence: str | Path, *, noise: DetectionNoise | None = None, min_visibility: float = 0.0
    ) -> GroundTruthDetector:
        """MOT17 semantics (person classes 1, 2 and 7 kept), unless seqinfo.ini names the classes
        (``classes = person,cup``): then gt class k is the k-th name and every row is kept. Boxes whose
        visibility (9th column) is below ``min_visibility`` are left out: MOT annotates people hidden
        behind others, whom no detector could see."""
        import configparser

        path = Path(sequence) / "gt" / "gt.txt"
        if not path.is_file():
            raise ModelError(f"no ground truth for --detector gt: {path} does not exist")
        info = configparser.ConfigParser()
        info.read(Path(sequence) / "seqinfo.ini")
        named = [c.strip() for c in info.get("Sequence", "classes", fallback="").split(",") if c.strip()]
        try:
            rows = read_mot_rows(path)  # an empty file: nothing was in view
        except CaptureError as exc:
            raise ModelError(str(exc)) from exc
        if min_visibility > 0 and rows.shape[1] >= 9:
            rows = rows[rows[:, 8] >= min_visibility]
        if named:
            bad = sorted({int(c) for c in rows[:, 7] if not 1 <= int(c) <= len(named)})
            if bad:
                raise ModelError(f"{path}: class ids {bad} are outside seqinfo.ini's {len(named)} classes")
            rows = rows[rows[:, 6] != 0]
            class_names = named
        else:
            rows = rows[(rows[:, 6] != 0) & np.isin(rows[:, 7], list(MOT_PERSON_CLASSES))]
            rows[:, 7] = 1
            class_names = ["person"]
        by_frame: dict[int, tuple[np.ndarray, list[str]]] = {}
        for frame in np.unique(rows[:, 0]).astype(int):
            r = rows[rows[:, 0] == frame]
            boxes = np.stack([r[:, 2], r[:, 3], r[:, 2] + r[:, 4], r[:, 3] + r[:, 5]], axis=1).astype(np.float32)
            by_frame[int(frame)] = (boxes, [class_names[int(c) - 1] for c in r[:, 7]])
        empty: tuple[np.ndarray, list[str]] = (np.empty((0, 4), np.float32), [])

        def boxes_of(index: int) -> tuple[np.ndarray, Sequence[str]]:
            return by_frame.get(index, empty)

        return cls(boxes_of, class_names, noise=noise, name=f"ground truth ({path})")

    def detect(self, frame: Frame) -> Detections:
        boxes, categories = self._boxes_of(frame.index)
        boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
        noise, rng = self.noise, self._rng
        keep = rng.random(len(boxes)) >= noise.miss_rate
        boxes, categories = boxes[keep], [c for c, k in zip(categories, keep) if k]
        if noise.jitter_px:
            boxes = boxes + rng.normal(0, noise.jitter_px, boxes.shape).astype(np.float32)
        ids = [self.class_names.index(c) for c in categories]
        width, height = frame.size
        if noise.false_positive_rate and rng.random() < noise.false_positive_rate:
            w, h = rng.uniform(20, 80, 2)
            x, y = rng.uniform(0, max(1, width - w)), rng.uniform(0, max(1, height - h))
            boxes = np.vstack([boxes, [[x, y, x + w, y + h]]]).astype(np.float32)
            ids.append(0)
        scores = rng.uniform(*noise.score_range, len(boxes)).astype(np.float32)
        boxes = np.concatenate([np.minimum(boxes[:, :2], boxes[:, 2:]), np.maximum(boxes[:, :2], boxes[:, 2:])], axis=1)
        return Detections(boxes.astype(np.float32), scores, np.asarray(ids, np.int32), self.class_names).clipped(
            width, height
        )
