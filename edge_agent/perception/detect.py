"""Detection (GEB section 3.1, the first half of observations), in one import: the ``Detector`` protocol and the
``Detections`` dataclass of parallel arrays (``edge_agent.perception.detections``) and the backends, one module
each under ``edge_agent.perception.detectors``, registered by their ``[detector] type``:

- ``YOLOXDetector`` (``yolox``): a YOLOX ONNX export through ONNX Runtime; execution providers CPU, CUDA or
  TensorRT.
- ``TensorRTYOLOXDetector`` (``tensorrt``): the same model as a TensorRT engine (tensorrt + pycuda, import-guarded).
- ``OpenVocabDetector`` (``open-vocab``): words as categories (YOLO-World or OWL-style ONNX exports).
- ``OpenCVDetector`` (``opencv``): OpenCV's built-ins, needing no model file: the HOG people detector and Haar
  cascades (cat faces by default).
- ``GroundTruthDetector`` (``gt``): replays annotated boxes (a MOT sequence's gt/gt.txt) with optional noise.
- ``auto``: YOLOX when its file is in the models folder, else OpenCV.

Category names map to entity kinds (person / animal / object). :func:`merge_confusable` makes one box of the
boxes two classes of one confusable group put on one thing in one frame (a van as car and truck).
"""

from __future__ import annotations

from edge_agent.perception.detections import (
    COCO_CLASSES,
    Detections,
    Detector,
    ModelError,
    confusable_ids,
    kind_of,
    merge_confusable,
)
from edge_agent.perception.detectors import (
    MOT_PERSON_CLASSES,
    DetectionNoise,
    GroundTruthDetector,
    OpenCVDetector,
    OpenVocabDetector,
    TensorRTYOLOXDetector,
    YOLOXDetector,
)
from edge_agent.perception.detectors.yolox import letterbox, yolox_decode, yolox_postprocess

__all__ = [
    "COCO_CLASSES",
    "MOT_PERSON_CLASSES",
    "DetectionNoise",
    "Detections",
    "Detector",
    "GroundTruthDetector",
    "ModelError",
    "OpenCVDetector",
    "OpenVocabDetector",
    "TensorRTYOLOXDetector",
    "YOLOXDetector",
    "confusable_ids",
    "kind_of",
    "letterbox",
    "merge_confusable",
    "yolox_decode",
    "yolox_postprocess",
]
