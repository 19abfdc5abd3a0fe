"""OpenCV's built-ins, needing no model file: the HOG people detector and Haar cascades (cat faces by default);
the fallback when no detector model is installed."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from edge_agent.capture.frames import Frame
from edge_agent.config import OpenCVDetectorConfig
from edge_agent.perception.detections import Detections, ModelError
from edge_agent.perception.registry import DETECTORS, BuildContext

__all__ = ["OpenCVDetector"]


class OpenCVDetector:
    """No model file needed: HOG + linear SVM people detector, and Haar cascades shipped with
    opencv-python 4.x (``cascades`` maps a cascade file to the category it finds). Weaker than a CNN
    detector; the fallback when no detector model is installed."""

    def __init__(self, *, people: bool = True, cascades: dict[str, str] | None = None, max_width: int = 960) -> None:
        self.class_names: tuple[str, ...] = ("person", "cat")
        self._people = people
        self._hog = cv2.HOGDescriptor()
        self._hog.setSVMDetector(np.asarray(cv2.HOGDescriptor.getDefaultPeopleDetector(), np.float32))
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


@DETECTORS.register("opencv")
def build(config: OpenCVDetectorConfig, context: BuildContext) -> OpenCVDetector:
    return OpenCVDetector(people=config.people, cascades=config.cascades)
