"""Faces as evidence of who a person is (issue 20, first part): faces found in a person's crops by YuNet
(OpenCV's ``cv2.FaceDetectorYN``, the model file in the models folder), aligned on dlib's five landmarks and
embedded by dlib's 128-d face ResNet (``dlib-bin`` and ``face-recognition-models``, the ``[faces]`` extra; both
install offline, no download at run time), in their own embedding space. A face counts only when it is good
enough to say who it is: big enough, sharp enough and turned towards the camera (its nose between its eyes);
an observation keeps its best few (``[faces] per_observation``). Memory uses them as evidence of who a person is
(:mod:`edge_agent.memory.faces`); nothing here leaves the device.

``Faces`` is what the pipeline asks of a face embedder: this one, or a stand-in (the synthetic worlds' drawn
faces, :mod:`edge_agent.eval.faces`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from edge_agent.perception.detections import ModelError

__all__ = ["FACE_SPACE", "Face", "FaceEmbedder", "Faces", "faces_available"]

FACE_SPACE = "face:dlib_resnet_v1"


def faces_available() -> str | None:
    """None where dlib and its face models are installed, else what is missing (a one-line reason)."""
    try:
        import dlib  # noqa: F401
        import face_recognition_models  # noqa: F401
    except ImportError as exc:
        return f"face recognition needs the [faces] extra (dlib-bin, face-recognition-models): {exc}"
    return None


@dataclass(frozen=True)
class Face:
    """One face found in a picture: its box and landmarks (YuNet's five: eyes, nose tip, mouth corners; or from
    dlib's detector, the eyes' centres and the bottom of the nose) in that picture's pixels, the detector's score,
    how sharp and how frontal it is, and its unit 128-d vector."""

    box: tuple[float, float, float, float]  #: x1, y1, x2, y2
    landmarks: np.ndarray  #: (5, 2) or (3, 2)
    score: float
    sharpness: float  #: variance of the Laplacian of the aligned face
    turn: float  #: the nose's offset from between the eyes, in eye distances (0: frontal)
    vector: np.ndarray  #: (128,) float32, unit length

    @property
    def size(self) -> float:
        return min(self.box[2] - self.box[0], self.box[3] - self.box[1])

    @property
    def quality(self) -> float:
        """Bigger, sharper, more frontal, more certain is better (for ranking an observation's faces)."""
        return float(self.size * np.log1p(self.sharpness) * self.score * max(0.0, 1.0 - self.turn))


class Faces(Protocol):
    """Finds people's faces in their crops and embeds them in ``space``."""

    space: str
    detector: str  #: what finds the faces ("" where the stand-in needs no detector)

    def best(self, crops: Sequence[np.ndarray], keep: int = 3) -> Sequence[Face]: ...


class FaceEmbedder:
    """Finds, checks and embeds faces. ``detector``: the YuNet ONNX file, or None for dlib's HOG detector. A face
    is kept when at least ``min_size`` pixels across, its aligned picture's Laplacian variance at least
    ``min_sharpness`` and its turn at most ``max_turn``."""

    space = FACE_SPACE

    def __init__(
        self,
        detector: str | Path | None,
        *,
        score_threshold: float = 0.8,
        min_size: float = 32.0,
        min_sharpness: float = 10.0,
        max_turn: float = 0.35,
    ) -> None:
        missing = faces_available()
        if missing is not None:
            raise ModelError(missing)
        import dlib
        import face_recognition_models as models

        self._yunet: Any = None
        self._hog: Any = None
        if detector is None:  # dlib's own HOG face detector: no model file, finds faces from about 40 px
            self._hog = dlib.get_frontal_face_detector()
            self.detector = "dlib-hog"
        else:
            path = Path(detector)
            if not path.is_file():
                raise ModelError(f"face detector model not found: {path}")
            try:
                self._yunet = cv2.FaceDetectorYN.create(str(path), "", (320, 320), score_threshold, 0.3, 50)
            except cv2.error as exc:
                raise ModelError(f"cannot load {path} as a YuNet face detector: {exc}") from None
            self.detector = f"yunet ({path.name})"
        self._dlib = dlib
        self._shape = dlib.shape_predictor(models.pose_predictor_five_point_model_location())
        self._resnet = dlib.face_recognition_model_v1(models.face_recognition_model_location())
        self.min_size, self.min_sharpness, self.max_turn = min_size, min_sharpness, max_turn

    def _found(self, image: np.ndarray, rgb: np.ndarray) -> list[tuple[tuple[float, float, float, float], float, Any]]:
        """(x, y, width, height), score and YuNet's landmarks (None from dlib's detector) of each face found."""
        if self._yunet is not None:
            h, w = image.shape[:2]
            self._yunet.setInputSize((w, h))
            _, rows = self._yunet.detect(image)
            if rows is None:
                return []
            return [
                (
                    (float(row[0]), float(row[1]), float(row[2]), float(row[3])),
                    float(row[14]),
                    np.asarray(row[4:14], np.float64).reshape(5, 2),
                )
                for row in rows
            ]
        rects, scores, _ = self._hog.run(rgb, 1, 0.0)  # upsampled once: faces from about 40 px
        return [
            ((float(r.left()), float(r.top()), float(r.width()), float(r.height())), min(1.0, 0.5 + s / 2), None)
            for r, s in zip(rects, scores)
        ]

    def detect(self, image: np.ndarray) -> list[Face]:
        """The good faces in a BGR picture (a person's crop or a whole frame), best first."""
        return self._embedded(self._candidates(image))

    def best(self, crops: Sequence[np.ndarray], keep: int = 3) -> list[Face]:
        """An observation's best ``keep`` faces over its crops (only those are embedded: the face ResNet is the
        costly step)."""
        found = [c for crop in crops for c in self._candidates(crop)]
        return self._embedded(sorted(found, key=lambda c: -c[0].quality)[:keep])

    def _candidates(self, image: np.ndarray) -> list[tuple[Face, np.ndarray]]:
        """The faces good enough to keep in a picture, each with its aligned 150 px picture, not yet embedded."""
        h, w = image.shape[:2]
        if min(h, w) < self.min_size:
            return []  # no face this size fits: skipped cheaply
        rgb = np.ascontiguousarray(image[:, :, ::-1])
        out = []
        for (x, y, fw, fh), score, landmarks in self._found(image, rgb):
            if min(fw, fh) < self.min_size:
                continue
            box = (max(0.0, x), max(0.0, y), min(float(w), x + fw), min(float(h), y + fh))
            if landmarks is not None and _turn(landmarks) > self.max_turn:
                continue  # turned away: not worth aligning
            shape = self._shape(rgb, self._dlib.rectangle(int(box[0]), int(box[1]), int(box[2]), int(box[3])))
            if landmarks is None:  # dlib's five points: two corners of each eye, the bottom of the nose
                p = np.array([[shape.part(k).x, shape.part(k).y] for k in range(5)], np.float64)
                landmarks = np.stack([(p[0] + p[1]) / 2, (p[2] + p[3]) / 2, p[4]])
            turn = _turn(landmarks)
            if turn > self.max_turn:
                continue
            chip = np.asarray(self._dlib.get_face_chip(rgb, shape, size=150))
            sharpness = float(cv2.Laplacian(cv2.cvtColor(chip, cv2.COLOR_RGB2GRAY), cv2.CV_64F).var())
            if sharpness < self.min_sharpness:
                continue
            out.append((Face(box, landmarks, score, sharpness, turn, np.empty(0, np.float32)), chip))
        return out

    def _embedded(self, candidates: Sequence[tuple[Face, np.ndarray]]) -> list[Face]:
        faces = []
        for face, chip in candidates:
            vector = np.asarray(self._resnet.compute_face_descriptor(chip), np.float32)
            vector /= max(float(np.linalg.norm(vector)), 1e-12)
            faces.append(replace(face, vector=vector))
        return sorted(faces, key=lambda f: -f.quality)


def _turn(landmarks: np.ndarray) -> float:
    """How far the face is turned: the nose tip's distance from the eyes' midpoint along the line between the eyes,
    in eye distances (YuNet's landmarks: right eye, left eye, nose tip, right and left mouth corners)."""
    right, left, nose = landmarks[0], landmarks[1], landmarks[2]
    axis = left - right
    distance = float(np.linalg.norm(axis))
    if distance < 1e-6:
        return float("inf")
    return abs(float(np.dot(nose - (right + left) / 2, axis / distance))) / distance
