"""Observations (GEB section 3.1): the native ByteTracker runs over a clip's sampled frames; one
tracklet in one clip is one observation, with its visible span, its box on every sampled frame, and
its best crops (ranked by size, sharpness and detector score)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from edge_agent.capture.clipper import ClipFrames
from edge_agent.capture.frames import Frame
from edge_agent.config.tracker import TrackerConfig
from edge_agent.native import ByteTracker
from edge_agent.perception.constancy import Constancy
from edge_agent.perception.detections import Detections, confusable_ids, merge_confusable
from edge_agent.perception.embed import ColorTextureEmbedder
from edge_agent.perception.motion import CameraMotion

__all__ = ["Tracklet", "appearance", "crop", "track_clip"]


@dataclass
class Tracklet:
    track_id: int
    #: the class with the highest summed detection score over the tracklet's frames (a track follows a thing
    #: across the classes of its confusable group); ``runner_up`` the next ('' for none), for the describer
    category: str
    runner_up: str = ""
    #: per class, the summed scores of the tracklet's detections and of the runner-ups merged into them
    labels: dict[str, float] = field(default_factory=dict)
    frame_indices: list[int] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    boxes: list[np.ndarray] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)
    crops: list[tuple[float, np.ndarray]] = field(default_factory=list)  # (quality, BGR crop), best first
    #: a person's crop on every sampled frame, in time order (faces are looked for in them: the sharpest crops are
    #: often the back of a head)
    frames: list[np.ndarray] = field(default_factory=list)
    #: boxes in the clip's first frame's image, the camera's own motion taken out (a moving camera); else empty
    steady: list[np.ndarray] = field(default_factory=list)
    #: in someone's hand throughout, on a moving camera that follows carried things (``[tracker] follow_carried``):
    #: it moved with the camera, so where it was in the image says nothing of where it stood
    carried: bool = False

    @property
    def t_start(self) -> float:
        return self.times[0]

    @property
    def t_end(self) -> float:
        return self.times[-1]


#: a move between two frames of at least this much of the thing's size tells whether it moved with the camera
_MOVED = 0.25
#: a track's later pieces (picked up, put down) are tracklets numbered this many times their order, plus the track
_PIECE = 100_000


def _centre(box: np.ndarray) -> np.ndarray:
    return np.array([(box[0] + box[2]) / 2, (box[1] + box[3]) / 2], np.float64)


def carried(box: np.ndarray, steady: np.ndarray, then: np.ndarray, steady_then: np.ndarray) -> bool | None:
    """Whether a thing moved with a moving camera from one frame to the next (in the wearer's hand it stays put in the
    image while the room moves behind it), from its boxes in the image and in steady coordinates (the camera's motion
    taken out); None when neither moved enough to tell (``_MOVED`` of its size)."""
    in_image = float(np.hypot(*(_centre(then) - _centre(box))))
    in_room = float(np.hypot(*(_centre(steady_then) - _centre(steady))))
    size = max(float(then[2] - then[0]), float(then[3] - then[1]), 1.0)
    return in_room > in_image if max(in_room, in_image) >= _MOVED * size else None


class _Pieces:
    """On a moving camera, matching by appearance within a gate joined a thing carried past and the thing put down
    into one observation whose place was lost (measured on the worn-camera worlds). Following carried things there
    (``[tracker] follow_carried``), the appearance vectors serve only the tracker's held pass, which keeps the track
    of a thing in the wearer's hand (matched where it was in the image, by its look: it moves with the camera); a track
    then goes on as a new tracklet where the thing is picked up or put down, so that what was carried
    (``Tracklet.carried``: seen at no place) and where it stood before and after are sightings of their own."""

    def __init__(self, tracklets: dict[int, Tracklet], follow: bool) -> None:
        self.tracklets = tracklets
        self.follow = follow
        self._of: dict[int, tuple[int, bool | None]] = {}  # a track's current tracklet; whether it is being carried
        self._later = itertools.count(1)

    def piece(self, track_id: int, box: np.ndarray, steady: np.ndarray | None) -> tuple[int, bool]:
        """The tracklet a track's frame goes to, and whether the thing is being carried."""
        if not self.follow or steady is None:
            return track_id, False
        key, held = self._of.get(track_id, (track_id, None))
        last = self.tracklets.get(key)
        if last is not None:
            now = carried(last.boxes[-1], last.steady[-1], box, steady)
            if now is not None and held is not None and now != held:
                key = _PIECE * next(self._later) + track_id
            elif now is not None:
                last.carried = now  # the piece's first frames are as the first that tells
            held = held if now is None else now
        self._of[track_id] = (key, held)
        return key, bool(held)


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
    """Runs a fresh class-aware tracker over the clip and returns its tracklets, time-ordered. For a fixed
    camera with ``settings.appearance_gate`` the tracker is given each confident detection's colour-texture
    vector, so a thing that moved further than its width since the last sampled frame stays one track when it
    looks the same. ``moving``: the camera's view moves, so the tracker follows its motion from frame to frame
    instead (:mod:`edge_agent.perception.motion`), and matches by appearance only what the wearer carries
    (:class:`_Pieces`). ``constancy`` corrects the crops by their frame's illuminant.

    Every frame's detections first go through :func:`merge_confusable` (a van seen as car and truck is one box),
    and the tracker is class-aware by confusable group, so that a thing whose best class flips between car and
    truck from frame to frame stays one track; its category is decided over the whole tracklet."""
    tracker = ByteTracker(
        high_conf_det_threshold=settings.high_conf_det_threshold,
        low_conf_det_threshold=settings.low_conf_det_threshold,
        new_track_threshold=settings.new_track_threshold,
        minimum_iou_threshold=settings.minimum_iou_threshold,
        lost_track_buffer=settings.lost_track_buffer,
        frame_rate=max(frame_rate, 1e-3),
        class_aware=True,
        appearance_gate=0.0 if moving else settings.appearance_gate,
        appearance_threshold=settings.appearance_threshold,
        observation_recovery=settings.observation_recovery,
    )
    tracklets: dict[int, Tracklet] = {}
    pieces = _Pieces(tracklets, moving and settings.follow_carried)
    looks = ColorTextureEmbedder(size=32) if settings.appearance_gate > 0 and (pieces.follow or not moving) else None
    motion = CameraMotion() if moving else None
    gains: dict[int, np.ndarray | None] = {}  # per frame, computed once when a crop is first cut from it

    def add(track_id: int, dets: Detections, det_index: int, frame: Frame, score: float) -> None:
        category, raw_box = dets.category(det_index), dets.xyxy[det_index]
        steady = motion.steady(raw_box) if motion is not None else None
        track_id, held = pieces.piece(track_id, raw_box, steady)
        t = tracklets.setdefault(track_id, Tracklet(track_id, category, carried=held))
        t.labels[category] = t.labels.get(category, 0.0) + float(dets.confidence[det_index])
        runner_up = dets.runner_up(det_index)
        if runner_up:
            t.labels[runner_up] = t.labels.get(runner_up, 0.0) + float(dets.runner_up_confidence[det_index])
        t.frame_indices.append(frame.index)
        t.times.append(frame.t)
        t.boxes.append(raw_box.copy())
        if steady is not None:
            t.steady.append(steady)
        t.scores.append(score)
        patch = crop(frame.image, raw_box)
        if constancy is not None and patch.size:
            if frame.index not in gains:
                gains[frame.index] = constancy.gains(frame.image)
            patch = constancy.apply(patch, gains[frame.index])
        if patch.size:
            if category == "person":
                t.frames.append(patch.copy())
            t.crops.append((crop_quality(patch, score), patch.copy()))
            t.crops.sort(key=lambda c: -c[0])
            del t.crops[settings.crops_per_observation :]

    for frame, found in zip(clip.frames, detections):
        dets = merge_confusable(found, settings.confusable_merge_iou_threshold)
        warp = motion.estimate(frame.image, dets.xyxy) if motion is not None else None
        features = None if looks is None else appearance(looks, frame.image, dets, settings.high_conf_det_threshold)
        group = confusable_ids(dets.class_names)[dets.class_id]
        tracks = tracker.update(dets.xyxy, dets.confidence, group, warp=warp, features=features)
        for track_id, score, det_index in zip(
            tracks.track_id.tolist(), tracks.score.tolist(), tracks.det_index.tolist()
        ):
            if det_index >= 0:  # the detector's box
                add(track_id, dets, det_index, frame, float(score))
    kept = [t for t in tracklets.values() if len(t.times) >= settings.min_frames and t.crops]
    for t in kept:
        ranked = sorted(t.labels, key=lambda c: -t.labels[c])  # stable: a tie goes to the class seen first
        t.category, t.runner_up = ranked[0], ranked[1] if len(ranked) > 1 else ""
    return sorted(kept, key=lambda t: (t.t_start, t.track_id))


def appearance(embedder: ColorTextureEmbedder, image: np.ndarray, dets: Detections, least: float) -> np.ndarray:
    """The tracker's appearance vector of each detection scoring at least ``least`` (the confident ones, the
    only ones it matches by appearance); zeros for the rest."""
    out = np.zeros((len(dets.confidence), embedder.dims), np.float32)
    confident = np.flatnonzero(dets.confidence >= least)
    if confident.size:
        out[confident] = embedder.embed([crop(image, dets.xyxy[i]) for i in confident.tolist()])
    return out
