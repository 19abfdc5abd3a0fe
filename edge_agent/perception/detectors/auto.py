"""``type = "auto"``, the default detector: YOLOX when its file (``[detector] model``) is in the models folder,
else OpenCV's built-ins. Each is built from its own section's defaults, so a default lives only in the
configuration's models."""

from __future__ import annotations

from edge_agent.config import AutoDetector, OpenCVDetectorConfig, YOLOXDetectorConfig
from edge_agent.perception.detections import Detector
from edge_agent.perception.registry import DETECTORS, BuildContext

__all__ = ["resolve"]


def resolve(config: AutoDetector, context: BuildContext) -> YOLOXDetectorConfig | OpenCVDetectorConfig:
    """The section ``auto`` stands for with these models."""
    if context.model_file(config.model).is_file():
        return YOLOXDetectorConfig(type="yolox", model=config.model)
    return OpenCVDetectorConfig(type="opencv")


@DETECTORS.register("auto")
def build(config: AutoDetector, context: BuildContext) -> Detector:
    return DETECTORS.build(resolve(config, context), context)
