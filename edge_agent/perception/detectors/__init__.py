"""The detector backends, one module each, as Frigate's ``detectors/plugins``: importing this package registers
every module's builder in :data:`~edge_agent.perception.registry.DETECTORS` under its ``[detector] type``, and
``edge_agent.perception.backends`` builds the configured one through that registry."""

from __future__ import annotations

from edge_agent.perception.detectors import auto, groundtruth, opencv, openvocab, tensorrt, yolox
from edge_agent.perception.detectors.groundtruth import MOT_PERSON_CLASSES, DetectionNoise, GroundTruthDetector
from edge_agent.perception.detectors.opencv import OpenCVDetector
from edge_agent.perception.detectors.openvocab import OpenVocabDetector
from edge_agent.perception.detectors.tensorrt import TensorRTYOLOXDetector
from edge_agent.perception.detectors.yolox import YOLOXDetector

__all__ = [
    "MOT_PERSON_CLASSES",
    "DetectionNoise",
    "GroundTruthDetector",
    "OpenCVDetector",
    "OpenVocabDetector",
    "TensorRTYOLOXDetector",
    "YOLOXDetector",
    "auto",
    "groundtruth",
    "opencv",
    "openvocab",
    "tensorrt",
    "yolox",
]
