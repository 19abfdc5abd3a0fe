"""Ground-truth replay for evaluation: a MOT sequence's annotated boxes (gt/gt.txt), with optional noise
standing in for a detector's misses, jitter and false positives."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from edge_agent.capture import MOTSequenceSource
from edge_agent.capture.frames import CaptureError, Frame
from edge_agent.capture.images import read_mot_rows
from edge_agent.config import GroundTruthDetectorConfig
from edge_agent.perception.detections import Detections, ModelError
from edge_agent.perception.registry import DETECTORS, BuildContext

__all__ = ["MOT_PERSON_CLASSES", "DetectionNoise", "GroundTruthDetector"]

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


@DETECTORS.register("gt")
def build(config: GroundTruthDetectorConfig, context: BuildContext) -> GroundTruthDetector:
    if not isinstance(context.source, MOTSequenceSource):
        raise ModelError(
            "--detector gt replays ground truth and needs a MOT-format sequence "
            "(a folder with seqinfo.ini and gt/gt.txt)"
        )
    return GroundTruthDetector.from_mot(
        context.source.root,
        noise=DetectionNoise(config.miss_rate, config.jitter_px, config.false_positive_rate, seed=config.seed),
        min_visibility=config.min_visibility,
    )
