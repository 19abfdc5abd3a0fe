"""Observations (GEB section 3.1): the native ByteTracker runs over a clip's sampled frames; one
tracklet in one clip is one observation, with its visible span, its box on every sampled frame, and
its best crops (ranked by size, sharpness and detector score)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from edge_agent.capture.clipper import ClipFrames
from edge_agent.native import ByteTracker
from edge_agent.perception.detect import Detections

__all__ = ["Tracklet", "TrackerSettings", "crop", "track_clip"]


@dataclass(frozen=True)
class TrackerSettings:
    """ByteTracker parameters for one clip (see edge_agent.native.ByteTracker), plus what makes a
    tracklet an observation."""

    high_conf_det_threshold: float = 0.5
    low_conf_det_threshold: float = 0.1
    new_track_threshold: float = 0.6
    minimum_iou_threshold: float = 0.1
    lost_track_buffer: int = 30
    min_frames: int = 2  #: tracklets detected on fewer sampled frames are dropped (likely false positives)
    crops_per_observation: int = 3


@dataclass
class Tracklet:
    track_id: int
    category: str
    frame_indices: list[int] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    boxes: list[np.ndarray] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)
    crops: list[tuple[float, np.ndarray]] = field(default_factory=list)  # (quality, BGR crop), best first

    @property
    def t_start(self) -> float:
        return self.times[0]

    @property
    def t_end(self) -> float:
        return self.times[-1]


def crop(image: np.ndarray, box: np.ndarray, margin: float = 0.05) -> np.ndarray:
    """The box with a small margin, clipped to the image."""
    x1, y1, x2, y2 = box
    mx, my = (x2 - x1) * margin, (y2 - y1) * margin
    h, w = image.shape[:2]
    xa, ya = int(max(0, x1 - mx)), int(max(0, y1 - my))
    xb, yb = int(min(w, np.ceil(x2 + mx))), int(min(h, np.ceil(y2 + my)))
    return image[ya:max(yb, ya + 1), xa:max(xb, xa + 1)]


def crop_quality(patch: np.ndarray, score: float) -> float:
    """Bigger, sharper, more confident is better: sqrt(area) x log(1 + Laplacian variance) x score."""
    gray = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY) if patch.ndim == 3 else patch
    sharpness = float(cv2.Laplacian(gray, cv2.CV_64F).var()) if min(gray.shape) >= 3 else 0.0
    return float(np.sqrt(patch.shape[0] * patch.shape[1]) * np.log1p(sharpness) * score)


def track_clip(clip: ClipFrames, detections: Sequence[Detections], settings: TrackerSettings, frame_rate: float) -> list[Tracklet]:
    """Runs a fresh class-aware tracker over the clip and returns its tracklets, time-ordered."""
    tracker = ByteTracker(
        high_conf_det_threshold=settings.high_conf_det_threshold,
        low_conf_det_threshold=settings.low_conf_det_threshold,
        new_track_threshold=settings.new_track_threshold,
        minimum_iou_threshold=settings.minimum_iou_threshold,
        lost_track_buffer=settings.lost_track_buffer,
        frame_rate=max(frame_rate, 1e-3),
        class_aware=True,
    )
    tracklets: dict[int, Tracklet] = {}
    for frame, dets in zip(clip.frames, detections):
        tracks = tracker.update(dets.xyxy, dets.confidence, dets.class_id)
        for track_id, box, score, class_id, det_index in zip(
            tracks.track_id.tolist(), tracks.xyxy, tracks.score.tolist(), tracks.class_id.tolist(), tracks.det_index.tolist()
        ):
            if det_index < 0:
                continue
            raw_box = dets.xyxy[det_index]  # the detector's box, not the filtered one, for crops and boxes
            t = tracklets.setdefault(track_id, Tracklet(track_id, dets.class_names[class_id]))
            t.frame_indices.append(frame.index)
            t.times.append(frame.t)
            t.boxes.append(raw_box.copy())
            t.scores.append(float(score))
            patch = crop(frame.image, raw_box)
            if patch.size:
                t.crops.append((crop_quality(patch, float(score)), patch.copy()))
                t.crops.sort(key=lambda c: -c[0])
                del t.crops[settings.crops_per_observation:]
    kept = [t for t in tracklets.values() if len(t.times) >= settings.min_frames and t.crops]
    return sorted(kept, key=lambda t: (t.t_start, t.track_id))
