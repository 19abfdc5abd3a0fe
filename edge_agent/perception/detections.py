"""Detection's data and protocol (GEB section 3.1, the first half of observations): one ``Detector`` protocol
returning a ``Detections`` dataclass of parallel arrays, what a backend raises when its model is not usable, and
the mapping of categories to entity kinds (person / animal / object). The backends are in
``edge_agent.perception.detectors``, one module each. :func:`merge_confusable` makes one box of the boxes two
classes of one confusable group put on one thing in one frame (a van as car and truck).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import numpy.typing as npt

from edge_agent.capture.frames import Frame
from edge_agent.errors import EdgeAgentError
from edge_agent.memory.categories import CONFUSABLE
from edge_agent.memory.records import Kind
from edge_agent.native import iou_matrix
from edge_agent.perception.vocabulary import ANIMALS, COCO_CLASSES

__all__ = [
    "COCO_CLASSES",
    "Detections",
    "Detector",
    "ModelError",
    "confusable_ids",
    "kind_of",
    "merge_confusable",
]


def kind_of(category: str) -> Kind:
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
