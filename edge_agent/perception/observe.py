"""Observations (GEB section 3.1): the native ByteTracker runs over a clip's sampled frames; one
tracklet in one clip is one observation, with its visible span, its box on every sampled frame, and
its best crops (ranked by size, sharpness and detector score)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from edge_agent.capture.clipper import ClipFrames
from edge_agent.capture.frames import Frame
from edge_agent.config.tracker import TrackerConfig
from edge_agent.native import ByteTracker
from edge_agent.perception.constancy import Constancy
from edge_agent.perception.detect import Detections
from edge_agent.perception.motion import CameraMotion

__all__ = ["Tracklet", "crop", "track_clip"]


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
    return image[ya : max(yb, ya + 1), xa : max(xb, xa + 1)]


def crop_quality(patch: np.ndarray, score: float) -> float:
    """Bigger, sharper, more confident is better: sqrt(area) x log(1 + Laplacian variance) x score."""
    gray = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY) if patch.ndim == 3 else patch
    sharpness = float(cv2.Laplacian(gray, cv2.CV_64F).var()) if min(gray.shape) >= 3 else 0.0
    return float(np.sqrt(patch.shape[0] * patch.shape[1]) * np.log1p(sharpness) * score)


def track_clip(
    clip: ClipFrames,
    detections: Sequence[Detections],
    settings: TrackerConfig,
    frame_rate: float,
    constancy: Constancy | None = None,
    moving: bool = False,
) -> list[Tracklet]:
    """Runs a fresh class-aware tracker over the clip and returns its tracklets, time-ordered. ``constancy``
    corrects the crops by their frame's illuminant; ``moving``: the camera's view moves, so the tracker follows
    its motion from frame to frame (:mod:`edge_agent.perception.motion`)."""
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
    pieces = 0
    gains: dict[int, np.ndarray | None] = {}  # per frame, computed once when a crop is first cut from it

    def add(track_id: int, category: str, frame: Frame, raw_box: np.ndarray, score: float) -> None:
        t = tracklets.setdefault(track_id, Tracklet(track_id, category))
        t.frame_indices.append(frame.index)
        t.times.append(frame.t)
        t.boxes.append(raw_box.copy())
        t.scores.append(score)
        patch = crop(frame.image, raw_box)
        if constancy is not None and patch.size:
            if frame.index not in gains:
                gains[frame.index] = constancy.gains(frame.image)
            patch = constancy.apply(patch, gains[frame.index])
        if patch.size:
            t.crops.append((crop_quality(patch, score), patch.copy()))
            t.crops.sort(key=lambda c: -c[0])
            del t.crops[settings.crops_per_observation :]

    motion = CameraMotion() if moving else None
    for frame, dets in zip(clip.frames, detections):
        warp = motion.estimate(frame.image, dets.xyxy) if motion is not None else None
        tracks = tracker.update(dets.xyxy, dets.confidence, dets.class_id, warp=warp)
        used = set()
        for track_id, score, class_id, det_index in zip(
            tracks.track_id.tolist(), tracks.score.tolist(), tracks.class_id.tolist(), tracks.det_index.tolist()
        ):
            if det_index >= 0:
                used.add(det_index)
                add(
                    track_id, dets.class_names[class_id], frame, dets.xyxy[det_index], float(score)
                )  # the detector's box
        if settings.link_gate > 0:  # confident detections no track took: one-frame pieces that linking may join
            for i in np.flatnonzero(dets.confidence >= settings.new_track_threshold).tolist():
                if i not in used:
                    pieces += 1
                    add(
                        -pieces, dets.class_names[int(dets.class_id[i])], frame, dets.xyxy[i], float(dets.confidence[i])
                    )
    position = {frame.index: i for i, frame in enumerate(clip.frames)}
    linked = link_tracklets(list(tracklets.values()), position, settings.link_gate, settings.crops_per_observation)
    kept = [t for t in linked if len(t.times) >= settings.min_frames and t.crops]
    return sorted(kept, key=lambda t: (t.t_start, t.track_id))


def _centre(box: np.ndarray) -> np.ndarray:
    return np.array([(box[0] + box[2]) / 2, (box[1] + box[3]) / 2])


def link_tracklets(
    tracklets: list[Tracklet], position: dict[int, int], gate: float, crops_per_observation: int = 3
) -> list[Tracklet]:
    """Joins a tracklet to the one of its category that ended on the sampled frame just before it
    (``position``: a frame's index -> its place among the clip's sampled frames), when
    its first box lies within ``gate`` box sizes of where that one was heading, and each is the other's
    only such candidate. At a low sampling rate a walking person moves further between frames than their
    own width: IoU matching then starts a new track every frame, and every piece is too short to keep."""
    if gate <= 0:
        return tracklets
    while True:
        candidates: dict[int, list[int]] = {}
        for a, ta in enumerate(tracklets):
            last, size = ta.boxes[-1], max(ta.boxes[-1][2] - ta.boxes[-1][0], ta.boxes[-1][3] - ta.boxes[-1][1])
            heading = _centre(last) + ((_centre(last) - _centre(ta.boxes[-2])) if len(ta.boxes) > 1 else 0.0)
            candidates[a] = [
                b
                for b, tb in enumerate(tracklets)
                if b != a
                and tb.category == ta.category
                and position[tb.frame_indices[0]] == position[ta.frame_indices[-1]] + 1
                and np.linalg.norm(_centre(tb.boxes[0]) - heading) <= gate * size
            ]
        incoming: dict[int, list[int]] = {}
        for a, bs in candidates.items():
            for b in bs:
                incoming.setdefault(b, []).append(a)
        pairs = [(a, bs[0]) for a, bs in candidates.items() if len(bs) == 1 and len(incoming[bs[0]]) == 1]
        if not pairs:
            return tracklets
        absorbed = set()
        for a, b in pairs:
            if a in absorbed or b in absorbed:
                continue
            ta, tb = tracklets[a], tracklets[b]
            ta.frame_indices += tb.frame_indices
            ta.times += tb.times
            ta.boxes += tb.boxes
            ta.scores += tb.scores
            ta.crops = sorted(ta.crops + tb.crops, key=lambda c: -c[0])[:crops_per_observation]
            absorbed.add(b)
        tracklets = [t for i, t in enumerate(tracklets) if i not in absorbed]
