"""YOLOX (COCO) through ONNX Runtime, the default detector where ``yolox_nano.onnx`` is in the models folder:
letterbox with pad 114, BGR 0-255, grid decode over strides 8/16/32, class-wise NMS; execution providers CPU,
CUDA or TensorRT. The pre- and post-processing here serve the TensorRT engine and open-vocabulary exports too."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from edge_agent.capture.frames import Frame
from edge_agent.config import YOLOXDetectorConfig
from edge_agent.perception.detections import COCO_CLASSES, Detections, ModelError
from edge_agent.perception.registry import DETECTORS, BuildContext

__all__ = ["YOLOXDetector", "letterbox", "yolox_decode", "yolox_postprocess"]


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
    out: np.ndarray = raw[0].astype(np.float32).copy()
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
    kept = cv2.dnn.NMSBoxesBatched(xywh.tolist(), scores.tolist(), class_id.tolist(), score_threshold, nms_iou)
    picked = np.asarray(kept, dtype=np.int64).reshape(-1)
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
        # its threads wait without spinning: dev-forms took 17.5 s of CPU instead of 20.4 (wall 13.4 s against 12.1 on
        # two idle cores); a spinning pool starves whatever shares the cores (a hub's other cameras, a busy machine)
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
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


@DETECTORS.register("yolox")
def build(config: YOLOXDetectorConfig, context: BuildContext) -> YOLOXDetector:
    return YOLOXDetector(
        context.model_file(config.model),
        providers=config.providers,
        score_threshold=config.score_threshold,
        nms_iou=config.nms_iou,
        threads=config.threads,
    )
