"""Ground truth for scoring memory: per camera and frame time, the true boxes and instance labels
(MOT-format gt.txt, as the MOT17 sequences and the synthetic worlds write it), and the labelling of
memory's observations with the instance they saw: per frame the ground-truth box of highest IoU
(>= 0.5), then the majority over the observation's frames."""

from __future__ import annotations

import configparser
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from edge_agent import native
from edge_agent.capture.images import read_mot_rows
from edge_agent.errors import InvalidInputError
from edge_agent.memory import Store

__all__ = ["GroundTruth", "frame_rate"]


def _frame_ms(start: float, frame: int, fps: float) -> int:
    # As the capture sources time a MOT frame and the records round it: start + (frame - 1) / fps, in ms.
    return int(np.round((start + (frame - 1) / fps) * 1000.0))


def frame_rate(sequence: str | Path) -> float:
    """The frame rate a MOT sequence's seqinfo.ini gives; ValueError naming the file otherwise."""
    path = Path(sequence) / "seqinfo.ini"
    info = configparser.ConfigParser()
    if not info.read(path):
        raise InvalidInputError(f"{Path(sequence)} is not a MOT sequence: no seqinfo.ini")
    fps = float(info.get("Sequence", "frameRate", fallback="0") or 0)
    if fps <= 0:
        raise ValueError(f"{path} gives no frameRate")
    return fps


class GroundTruth:
    def __init__(self) -> None:
        self._frames: dict[tuple[str, int], tuple[np.ndarray, list[str]]] = {}

    def add(self, camera: str, frame_ms: int, boxes: np.ndarray, labels: list[str]) -> None:
        """True boxes (xyxy) and instance labels of one frame of one camera."""
        self._frames[(camera, int(frame_ms))] = (np.asarray(boxes, np.float32).reshape(-1, 4), list(labels))

    def add_mot(
        self,
        sequence: str | Path,
        camera: str,
        start: float,
        *,
        names: Mapping[int, str] | None = None,
        fps: float | None = None,
        min_visibility: float = 0.0,
    ) -> int:
        """Reads ``sequence``/gt/gt.txt (rows with conf 0 ignored, and those less visible than
        ``min_visibility``); a track id becomes the label ``names[id]``, else ``<sequence name>:<id>``.
        Returns the number of boxes read."""
        root = Path(sequence)
        fps = fps or frame_rate(root)
        rows = read_mot_rows(root / "gt" / "gt.txt")  # an empty file: nothing was in view
        rows = rows[rows[:, 6] != 0]
        if min_visibility > 0 and rows.shape[1] >= 9:
            rows = rows[rows[:, 8] >= min_visibility]
        for frame in np.unique(rows[:, 0]).astype(int):
            r = rows[rows[:, 0] == frame]
            boxes = np.stack([r[:, 2], r[:, 3], r[:, 2] + r[:, 4], r[:, 3] + r[:, 5]], axis=1)
            labels = [names[int(i)] if names is not None else f"{root.name}:{int(i)}" for i in r[:, 1]]
            self.add(camera, _frame_ms(start, int(frame), fps), boxes, labels)
        return len(rows)

    def label_observations(self, store: Store, *, min_iou: float = 0.5) -> dict[int, str]:
        """observation id -> the instance it saw; observations matching no true box on any frame (false
        positives) are left out."""
        cameras = {camera for camera, _ in self._frames}
        labels: dict[int, str] = {}
        for camera in sorted(cameras):
            for observation_id, (frames, boxes) in store.observation_boxes(camera).items():
                instance = self.label_boxes(camera, frames.tolist(), boxes, min_iou=min_iou)
                if instance is not None:
                    labels[observation_id] = instance
        return labels

    def label_boxes(
        self, camera: str, frames_ms: Sequence[int], boxes: np.ndarray, *, min_iou: float = 0.5
    ) -> str | None:
        """The instance a track's boxes (one per frame, frame times in ms) overlap on most of its frames; None
        when they match no true box."""
        votes: Counter[str] = Counter()
        for ms, box in zip(frames_ms, boxes):
            truth = (
                self._frames.get((camera, ms))
                or self._frames.get((camera, ms - 1))
                or self._frames.get((camera, ms + 1))
            )
            if truth is None or not len(truth[0]):
                continue
            iou = native.iou_matrix(np.asarray(box, np.float32)[None], truth[0])[0]
            best = int(np.argmax(iou))
            if iou[best] >= min_iou:
                votes[truth[1][best]] += 1
        return votes.most_common(1)[0][0] if votes else None
