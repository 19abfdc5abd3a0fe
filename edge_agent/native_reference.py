"""Short NumPy references of every native function (edge_agent.native), written for clarity rather
than speed. Tests compare the native core against them; ``edge-agent bench native`` times them as the
baseline. The assignment step uses SciPy's exact solver, an implementation independent of ours."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

import numpy as np
import numpy.typing as npt
from scipy.optimize import linear_sum_assignment

from edge_agent.config.tracker import TrackerConfig

_TRACKER = TrackerConfig()  # the same defaults as the native tracker's

#: (owner, qualifies, min_sim, max_sim, mean_sim) of :func:`association_test`.
_Association = tuple[
    npt.NDArray[np.int64],
    npt.NDArray[np.bool_],
    npt.NDArray[np.float32],
    npt.NDArray[np.float32],
    npt.NDArray[np.float32],
]
#: A detection as the tracker holds it: (xyxy, score, class id, index in the frame, unit appearance vector or None).
_Det = tuple[npt.NDArray[np.float64], float, int, int, npt.NDArray[np.float32] | None]
#: (track_id, xyxy, score, class_id, det_index) of :meth:`ByteTrackerReference.update`.
_Tracks = tuple[
    npt.NDArray[np.int64],
    npt.NDArray[np.float32],
    npt.NDArray[np.float32],
    npt.NDArray[np.int32],
    npt.NDArray[np.int64],
]

__all__ = [
    "ByteTrackerReference",
    "association_test",
    "cosine_topk",
    "iou_matrix",
    "linear_assignment",
    "separation",
]


def iou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = np.asarray(a, dtype=np.float64).reshape(-1, 4)
    b = np.asarray(b, dtype=np.float64).reshape(-1, 4)
    iw = np.minimum(a[:, None, 2], b[None, :, 2]) - np.maximum(a[:, None, 0], b[None, :, 0])
    ih = np.minimum(a[:, None, 3], b[None, :, 3]) - np.maximum(a[:, None, 1], b[None, :, 1])
    inter = np.where((iw > 0) & (ih > 0), iw * ih, 0.0)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    union = area_a[:, None] + area_b[None, :] - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((inter > 0) & (union > 0), inter / union, 0.0)


def separation(
    frames_a: npt.ArrayLike,
    boxes_a: npt.ArrayLike,
    frames_b: npt.ArrayLike,
    boxes_b: npt.ArrayLike,
    iou_threshold: float,
    min_shared_frames: int,
    min_fraction: float,
) -> tuple[bool, int, float]:
    frames_a, frames_b = np.asarray(frames_a), np.asarray(frames_b)
    shared, ia, ib = np.intersect1d(frames_a, frames_b, return_indices=True)
    if shared.size == 0:
        return False, 0, 0.0
    ious = np.diag(iou_matrix(np.asarray(boxes_a)[ia], np.asarray(boxes_b)[ib]))
    fraction = float(np.mean(ious < iou_threshold))
    return bool(shared.size >= min_shared_frames and fraction >= min_fraction), int(shared.size), fraction


def _cosine(queries: npt.ArrayLike, base: npt.ArrayLike) -> npt.NDArray[np.float64]:
    q = np.asarray(queries, dtype=np.float64)
    b = np.asarray(base, dtype=np.float64)
    # NumPy's stubs type the float64 matmul and outer product as Any.
    return cast(npt.NDArray[np.float64], (q @ b.T) / np.outer(np.linalg.norm(q, axis=1), np.linalg.norm(b, axis=1)))


def association_test(
    queries: npt.ArrayLike, refs: npt.ArrayLike, ref_owner: npt.ArrayLike, tau_low: float, tau_high: float
) -> _Association:
    """Returns (owner, qualifies, min_sim, max_sim, mean_sim) with per-owner arrays of shape (Q, U)."""
    sims = _cosine(np.atleast_2d(queries), refs).astype(np.float32)
    owners = np.unique(ref_owner)
    columns = [sims[:, np.asarray(ref_owner) == o] for o in owners]
    lo = np.stack([c.min(axis=1) for c in columns], axis=1)
    hi = np.stack([c.max(axis=1) for c in columns], axis=1)
    mean = np.stack([c.astype(np.float64).mean(axis=1) for c in columns], axis=1).astype(np.float32)
    qualifies = (lo >= np.float32(tau_low)) & (hi >= np.float32(tau_high))
    return owners.astype(np.int64), qualifies, lo, hi, mean


def cosine_topk(
    queries: npt.ArrayLike, base: npt.ArrayLike, k: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
    sims = _cosine(np.atleast_2d(queries), base).astype(np.float32)
    k = min(int(k), sims.shape[1])
    n = sims.shape[1]
    # Sort by score descending, then index ascending.
    order = np.lexsort((np.broadcast_to(np.arange(n), sims.shape), -sims), axis=1)[:, :k]
    return order.astype(np.int64), np.take_along_axis(sims, order, axis=1)


def linear_assignment(
    similarity: npt.ArrayLike, min_similarity: float
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    sim = np.asarray(similarity, dtype=np.float64)
    if sim.size == 0:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    allowed = sim > min_similarity
    cost = np.where(allowed, min_similarity - sim, 0.0)
    rows, cols = linear_sum_assignment(cost)
    keep = allowed[rows, cols]
    return rows[keep].astype(np.int64), cols[keep].astype(np.int64)


# --- ByteTrack -------------------------------------------------------------------------------------

_STD_POSITION = 1.0 / 20.0
_STD_VELOCITY = 1.0 / 160.0
_SECOND_PASS_MIN_IOU = 0.5  # at one frame between samples
_NOMINAL_FRAME_RATE = 30.0
_DUPLICATE_MIN_IOU = 0.85
_RECOVERY_MIN_IOU = 0.3
_APPEARANCE_MOMENTUM = 0.9
_F = np.eye(8) + np.eye(8, k=4)
_H = np.eye(4, 8)


def _cosine_of(feature: np.ndarray, look: np.ndarray) -> float:
    return float(np.dot(feature.astype(np.float64), look.astype(np.float64)))


def _xyah(box: np.ndarray) -> np.ndarray:
    w, h = box[2] - box[0], box[3] - box[1]
    return np.array([box[0] + w / 2, box[1] + h / 2, w / h, h])


@dataclass
class _Track:
    internal_id: int
    mean: np.ndarray
    cov: np.ndarray
    score: float
    class_id: int
    frame_id: int
    start_frame: int
    det_index: int
    state: str = "tracked"  # tracked | lost | removed
    is_activated: bool = False
    public_id: int = -1
    feature: np.ndarray | None = None  # unit moving average of confident detections' vectors
    observed: tuple[np.ndarray, np.ndarray] | None = None  # (mean, cov) right after the last detection
    last_box: np.ndarray | None = None
    #: before this frame's warp: (mean, cov, observed, last_box) as if the thing moved with the camera (held)
    held: tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray] | None, np.ndarray | None] | None = None

    def box(self, mean: np.ndarray | None = None) -> np.ndarray:
        x, y, a, h = (self.mean if mean is None else mean)[:4]
        w = a * h
        x1, y1 = x - w / 2, y - h / 2
        return np.array([x1, y1, x1 + w, y1 + h])

    def predict(self) -> None:
        h = self.mean[3]
        std = np.array(
            [_STD_POSITION * h] * 2 + [1e-2, _STD_POSITION * h] + [_STD_VELOCITY * h] * 2 + [1e-5, _STD_VELOCITY * h]
        )
        self.mean = _F @ self.mean
        self.cov = _F @ self.cov @ _F.T + np.diag(std**2)

    def warp(self, matrix: np.ndarray) -> None:
        """The camera moved the image by ``matrix`` (2 x 3): centre and velocity rotate, height scales; the
        state of the last detection and its box with them."""
        self.held = (self.mean.copy(), self.cov.copy(), self.observed, self.last_box)
        r, t = matrix[:, :2], matrix[:, 2]
        scale = float(np.sqrt(abs(r[0, 0] * r[1, 1] - r[0, 1] * r[1, 0])))
        m = np.zeros((8, 8))
        m[0:2, 0:2] = m[4:6, 4:6] = r
        m[2, 2] = m[6, 6] = 1.0
        m[3, 3] = m[7, 7] = scale

        def moved(mean: np.ndarray, cov: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            mean = m @ mean
            mean[:2] += t
            return mean, m @ cov @ m.T

        self.mean, self.cov = moved(self.mean, self.cov)
        if self.observed is not None:
            self.observed = moved(*self.observed)
        if self.last_box is not None:
            b = self.last_box
            centre = r @ np.array([(b[0] + b[2]) / 2, (b[1] + b[3]) / 2]) + t
            half = np.array([b[2] - b[0], b[3] - b[1]]) * scale / 2
            self.last_box = np.r_[centre - half, centre + half]

    def correct(self, z: np.ndarray) -> None:
        h = self.mean[3]
        r = np.array([_STD_POSITION * h, _STD_POSITION * h, 1e-1, _STD_POSITION * h])
        s = _H @ self.cov @ _H.T + np.diag(r**2)
        gain = np.linalg.solve(s, (self.cov @ _H.T).T).T
        self.mean = self.mean + gain @ (z - _H @ self.mean)
        self.cov = self.cov - gain @ s @ gain.T


@dataclass
class ByteTrackerReference:
    """ByteTrack exactly as the native tracker runs it; same parameters and outputs
    (track_id, xyxy, score, class_id, det_index)."""

    high_conf_det_threshold: float = _TRACKER.high_conf_det_threshold
    low_conf_det_threshold: float = _TRACKER.low_conf_det_threshold
    new_track_threshold: float = _TRACKER.new_track_threshold
    minimum_iou_threshold: float = _TRACKER.minimum_iou_threshold
    lost_track_buffer: int = _TRACKER.lost_track_buffer
    frame_rate: float = 30.0
    class_aware: bool = False
    appearance_gate: float = _TRACKER.appearance_gate
    appearance_threshold: float = _TRACKER.appearance_threshold
    observation_recovery: bool = _TRACKER.observation_recovery
    tracked: list[_Track] = field(default_factory=list)
    lost: list[_Track] = field(default_factory=list)
    frame_id: int = 0
    _next_internal: int = 0
    _next_public: int = 0

    @property
    def _frames(self) -> float:
        """Frames of 30 fps between two samples (at least one)."""
        return max(1.0, _NOMINAL_FRAME_RATE / self.frame_rate)

    def reset(self) -> None:
        self.tracked, self.lost = [], []
        self.frame_id = self._next_internal = self._next_public = 0

    def _confirm(self, t: _Track) -> None:
        if not t.is_activated:
            t.is_activated = True
            self._next_public += 1
            t.public_id = self._next_public

    def _update(self, t: _Track, det: _Det, held: bool = False) -> None:
        if held and t.held is not None:  # matched by the held pass: it moved with the camera, its state before the warp
            t.mean, t.cov, t.observed, t.last_box = t.held
        box, score, cls, index, feature = det
        z = _xyah(box)
        gap = self.frame_id - t.frame_id
        if self.observation_recovery and gap > 1 and t.observed is not None and t.last_box is not None:
            z0 = _xyah(t.last_box)  # OC-SORT's re-update along the gap
            t.mean, t.cov = t.observed[0].copy(), t.observed[1].copy()
            for k in range(1, gap):
                t.predict()
                t.correct(z0 + (z - z0) * (k / gap))
            t.predict()
        t.correct(z)
        t.observed, t.last_box = (t.mean.copy(), t.cov.copy()), np.asarray(box, np.float64).copy()
        if feature is not None and score >= self.high_conf_det_threshold:
            if t.feature is None:
                t.feature = feature.copy()
            else:
                mixed = (_APPEARANCE_MOMENTUM * t.feature + (1 - _APPEARANCE_MOMENTUM) * feature).astype(np.float32)
                norm = float(np.sqrt(np.sum(mixed.astype(np.float64) ** 2)))
                t.feature = (mixed / norm).astype(np.float32) if norm > 0 else mixed
        t.frame_id, t.state, t.score, t.class_id, t.det_index = self.frame_id, "tracked", score, cls, index
        self._confirm(t)

    def _match(
        self,
        tracks: list[_Track],
        dets: list[_Det],
        fuse: bool,
        threshold: float,
        appearance: bool = False,
        observed: bool = False,
        held: bool = False,
    ) -> tuple[list[tuple[int, int]], list[int], list[int]]:
        if not tracks or not dets:
            return [], list(range(len(tracks))), list(range(len(dets)))
        boxes = np.array(
            [t.last_box if observed else t.box(t.held[0]) if held and t.held is not None else t.box() for t in tracks]
        )
        det_boxes = np.array([d[0] for d in dets])
        sim = iou_matrix(boxes, det_boxes)
        if fuse:
            sim = sim * np.array([d[1] for d in dets])[None, :]
        if held:  # only tracks and detections that look alike
            for i, t in enumerate(tracks):
                for j, d in enumerate(dets):
                    look = d[4]
                    if t.feature is None or look is None or _cosine_of(t.feature, look) < self.appearance_threshold:
                        sim[i, j] = 0.0
        gate = self.appearance_gate if appearance else 0.0
        for i, t in enumerate(tracks):
            if gate <= 0 or t.feature is None:
                continue
            reach = gate * max(boxes[i, 2] - boxes[i, 0], boxes[i, 3] - boxes[i, 1])
            centre = (boxes[i, :2] + boxes[i, 2:]) / 2
            for j, d in enumerate(dets):
                if d[4] is None:
                    continue
                distance = float(np.linalg.norm((det_boxes[j, :2] + det_boxes[j, 2:]) / 2 - centre))
                cosine = _cosine_of(t.feature, d[4])
                if distance < reach and cosine >= self.appearance_threshold:
                    look = cosine * (1.0 - distance / reach) * (d[1] if fuse else 1.0)
                    sim[i, j] = max(sim[i, j], look)
        if self.class_aware:
            sim = np.where(
                np.array([t.class_id for t in tracks])[:, None] == np.array([d[2] for d in dets])[None, :], sim, 0.0
            )
        rows, cols = linear_assignment(sim, threshold)
        pairs = sorted(zip(rows.tolist(), cols.tolist()))
        matched_rows = {r for r, _ in pairs}
        matched_cols = {c for _, c in pairs}
        return (
            pairs,
            [r for r in range(len(tracks)) if r not in matched_rows],
            [c for c in range(len(dets)) if c not in matched_cols],
        )

    def _start(self, box: np.ndarray, score: float, cls: int, index: int, feature: np.ndarray | None) -> _Track:
        """A new track from an unmatched detection: the Kalman state at its box, velocity unknown."""
        self._next_internal += 1
        z = _xyah(box)
        h = z[3]
        std = np.array(
            [2 * _STD_POSITION * h] * 2
            + [1e-2, 2 * _STD_POSITION * h]
            + [10 * _STD_VELOCITY * h * self._frames] * 2  # velocity per sample, unknown
            + [1e-5, 10 * _STD_VELOCITY * h]
        )
        return _Track(
            self._next_internal,
            np.r_[z, np.zeros(4)],
            np.diag(std**2),
            score,
            cls,
            self.frame_id,
            self.frame_id,
            index,
            feature=None if feature is None else feature.copy(),
            observed=(np.r_[z, np.zeros(4)], np.diag(std**2)),
            last_box=np.asarray(box, np.float64).copy(),
        )

    def update(
        self,
        xyxy: npt.ArrayLike,
        scores: npt.ArrayLike,
        class_ids: npt.ArrayLike | None = None,
        return_predicted: bool = False,
        warp: npt.ArrayLike | None = None,
        features: npt.ArrayLike | None = None,
    ) -> _Tracks:
        self.frame_id += 1
        xyxy = np.asarray(xyxy, dtype=np.float32).reshape(-1, 4).astype(np.float64)
        scores = np.asarray(scores, dtype=np.float32).astype(np.float64)
        classes = np.zeros(len(scores), np.int32) if class_ids is None else np.asarray(class_ids, np.int32)
        looks: list[np.ndarray | None] = [None] * len(scores)
        if features is not None:
            raw = np.asarray(features, dtype=np.float32).reshape(len(scores), -1).astype(np.float64)
            for i, row in enumerate(raw):
                norm = float(np.sqrt(np.sum(row**2)))
                looks[i] = (row / norm).astype(np.float32) if norm > 0 else None
        dets = [(xyxy[i], float(scores[i]), int(classes[i]), i, looks[i]) for i in range(len(scores))]
        high = [d for d in dets if d[1] >= self.high_conf_det_threshold]
        low = [d for d in dets if self.low_conf_det_threshold <= d[1] < self.high_conf_det_threshold]

        for t in self.tracked + self.lost:
            t.det_index = -1
        pool = self.tracked + self.lost
        for t in pool:
            if t.state != "tracked":
                t.mean[7] = 0.0
            t.predict()
        if warp is not None:
            for t in pool:
                t.warp(np.asarray(warp, np.float64).reshape(2, 3))

        activated: list[_Track] = []
        refound: list[_Track] = []
        newly_lost: list[_Track] = []

        def take(tracks: list[_Track], dets: list[_Det], fuse: bool, threshold: float, **how: bool) -> list[_Det]:
            """Matches, updates and files the matched tracks; returns the detections left."""
            pairs, _, unmatched_cols = self._match(tracks, dets, fuse, threshold, **how)
            for r, c in pairs:
                (refound if tracks[r].state == "lost" else activated).append(tracks[r])
                self._update(tracks[r], dets[c], held=how.get("held", False))
            return [dets[c] for c in unmatched_cols]

        left = take(pool, high, True, self.minimum_iou_threshold)
        if self.appearance_gate > 0 and features is not None:  # what IoU left, by look (never what a track overlaps)
            left = take([t for t in pool if t.det_index < 0], left, True, self.minimum_iou_threshold, appearance=True)
        if warp is not None and features is not None:  # the held pass: still unmatched, from the unwarped prediction
            left = take([t for t in pool if t.det_index < 0], left, True, self.minimum_iou_threshold, held=True)

        remaining = [t for t in pool if t.det_index < 0]
        second = max(self.minimum_iou_threshold, _SECOND_PASS_MIN_IOU / self._frames)
        take(remaining, low, False, second)
        if self.observation_recovery:  # OC-SORT: from the last observed box
            left = take([t for t in remaining if t.det_index < 0], left, False, _RECOVERY_MIN_IOU, observed=True)
        for t in remaining:
            if t.det_index >= 0:
                continue
            if not t.is_activated:
                t.state = "removed"
            elif t.state == "tracked":
                t.state = "lost"
                newly_lost.append(t)

        for box, score, cls, index, feature in left:
            if score < self.new_track_threshold:
                continue
            t = self._start(box, score, cls, index, feature)
            if self.frame_id == 1:
                self._confirm(t)
            activated.append(t)

        for t in self.lost:
            if t.state == "lost" and self.frame_id - t.frame_id > int(
                self.frame_rate / _NOMINAL_FRAME_RATE * self.lost_track_buffer
            ):
                t.state = "removed"

        new_tracked: list[_Track] = []
        for t in [t for t in self.tracked if t.state == "tracked"] + activated + refound:
            if not any(t is u for u in new_tracked):
                new_tracked.append(t)
        new_lost: list[_Track] = []
        for t in [t for t in self.lost if t.state == "lost" and not any(t is u for u in new_tracked)] + newly_lost:
            if t.state == "lost" and not any(t is u for u in new_lost):
                new_lost.append(t)

        drop_tracked, drop_lost = set(), set()
        if new_tracked and new_lost:
            overlap = iou_matrix(np.array([t.box() for t in new_tracked]), np.array([t.box() for t in new_lost]))
            for p, q in zip(*np.nonzero(overlap > _DUPLICATE_MIN_IOU)):
                a, b = new_tracked[p], new_lost[q]
                if self.class_aware and a.class_id != b.class_id:
                    continue
                if a.frame_id - a.start_frame > b.frame_id - b.start_frame:
                    drop_lost.add(int(q))
                else:
                    drop_tracked.add(int(p))
        self.tracked = [t for i, t in enumerate(new_tracked) if i not in drop_tracked]
        self.lost = [t for i, t in enumerate(new_lost) if i not in drop_lost]

        out = [t for t in self.tracked if t.is_activated] + (self.lost if return_predicted else [])
        return (
            np.array([t.public_id for t in out], dtype=np.int64),
            np.array([t.box() for t in out], dtype=np.float32).reshape(-1, 4),
            np.array([t.score for t in out], dtype=np.float32),
            np.array([t.class_id for t in out], dtype=np.int32),
            np.array([t.det_index for t in out], dtype=np.int64),
        )
