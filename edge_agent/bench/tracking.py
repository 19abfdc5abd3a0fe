"""Tracking accuracy on real pedestrian trajectories (``edge-agent bench tracking``): the ground truth of
TUD-Campus and TUD-Stadtmitte (shipped inside the motmetrics wheel, the [bench] extra) degraded as a detector
sees people (a tenth of the boxes missed, every box jittered, scores spread, false positives), at the
recording's 25 fps and subsampled to the product's 2 fps (from every starting frame in turn); the native
tracker (ByteTrack), the same with OC-SORT's observation-centric recovery and re-update, supervision's port of the
official ByteTrack where an older supervision provides it, and roboflow's ``trackers`` ByteTrack and OC-SORT where
installed, all on the same detections in the same run, scored by motmetrics (MOTA, IDF1, identity switches).
The trajectories carry no pixels, so appearance takes no part here (the worlds and ``bench ingest`` measure
it)."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from edge_agent.config.tracker import TrackerConfig
from edge_agent.errors import EdgeAgentError
from edge_agent.native import ByteTracker, iou_matrix

__all__ = ["SEQUENCES", "Degraded", "MissingBenchmarkError", "degrade", "format_table", "run"]


class MissingBenchmarkError(EdgeAgentError, RuntimeError):
    """What the benchmark needs is not installed; the message says what to install."""


#: Sequences of the motmetrics wheel, recorded at 25 fps.
SEQUENCES = ("TUD-Campus", "TUD-Stadtmitte")
FPS = 25.0
#: ByteTrack's first-pass IoU at the recording's rate; the product's (config) at 2 fps.
FULL_RATE_IOU = 0.2


@dataclass(frozen=True)
class Degraded:
    """One sequence as a detector would give it: per evaluated frame, the truth (ids, xyxy) and the detections
    (xyxy, scores)."""

    name: str
    fps: float
    truth: list[tuple[np.ndarray, np.ndarray]]
    detections: list[tuple[np.ndarray, np.ndarray]]


def _data_folder() -> Path | None:
    try:
        import motmetrics
    except ImportError:
        return None
    return Path(motmetrics.__file__).parent / "data"


def _ground_truth(path: Path) -> dict[int, list[tuple[int, np.ndarray]]]:
    """MOT15 gt.txt: frame, id, x, y, w, h, ... -> per frame [(id, xyxy)]."""
    frames: dict[int, list[tuple[int, np.ndarray]]] = {}
    for row in np.loadtxt(path, delimiter=",", ndmin=2):
        frame, ident, x, y, w, h = row[:6]
        frames.setdefault(int(frame), []).append((int(ident), np.array([x, y, x + w, y + h])))
    return frames


def degrade(name: str, gt: dict[int, list[tuple[int, np.ndarray]]], step: int, seed: int, offset: int = 0) -> Degraded:
    """Every ``step``-th frame of ``gt`` from its ``offset``-th: each true box missed with p = 0.1, else jittered by
    4% of its size with a score in [0.3, 0.95]; on average 0.5 false positives a frame (person-sized, scores in
    [0.1, 0.7])."""
    rng = np.random.default_rng(seed)
    truth, detections = [], []
    for frame in sorted(gt)[offset::step]:
        people = gt[frame]
        ids = np.array([i for i, _ in people], np.int64)
        boxes = np.array([b for _, b in people], np.float64).reshape(-1, 4)
        truth.append((ids, boxes))
        size = np.repeat(boxes[:, 2:] - boxes[:, :2], 2, axis=0).reshape(-1, 4)
        seen = boxes + rng.normal(0, 0.04, boxes.shape) * size
        keep = rng.random(len(boxes)) >= 0.1
        scores = rng.uniform(0.3, 0.95, len(boxes))
        false = []
        for _ in range(rng.poisson(0.5)):
            w = rng.uniform(40, 110)
            x, y = rng.uniform(0, 640 - w), rng.uniform(100, 480 - 2.4 * w)
            false.append([x, y, x + w, y + 2.4 * w])
        xyxy = np.vstack([seen[keep], np.array(false).reshape(-1, 4)]).astype(np.float32)
        score = np.concatenate([scores[keep], rng.uniform(0.1, 0.7, len(false))]).astype(np.float32)
        xyxy[:, 2:] = np.maximum(xyxy[:, 2:], xyxy[:, :2] + 1)
        detections.append((xyxy, score))
    return Degraded(name, FPS / step, truth, detections)


Tracker = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]  # one frame -> (ids, xyxy)


def _native(iou: float, fps: float, recovery: bool) -> Tracker:
    config = TrackerConfig()
    tracker = ByteTracker(
        high_conf_det_threshold=config.high_conf_det_threshold,
        low_conf_det_threshold=config.low_conf_det_threshold,
        new_track_threshold=config.new_track_threshold,
        minimum_iou_threshold=iou,
        lost_track_buffer=config.lost_track_buffer,
        frame_rate=fps,
        observation_recovery=recovery,
    )

    def update(xyxy: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        tracks = tracker.update(xyxy, scores)  # the detector's boxes, as perception keeps them (and roboflow's)
        return tracks.track_id, xyxy[tracks.det_index]

    return update


def _roboflow(kind: str, iou: float, fps: float) -> Tracker | None:
    """roboflow's ByteTrack or OC-SORT on the same thresholds, when the [bench] extra is installed."""
    try:
        import supervision as sv
        from trackers import ByteTrackTracker, OCSORTTracker
    except ImportError:
        return None
    config = TrackerConfig()
    rf: Any
    if kind == "bytetrack":
        rf = ByteTrackTracker(
            lost_track_buffer=config.lost_track_buffer,
            frame_rate=fps,
            track_activation_threshold=config.new_track_threshold,
            minimum_iou_threshold=iou,
            high_conf_det_threshold=config.high_conf_det_threshold,
        )
    else:  # OC-SORT asks for IoU 0.3 by default; given ours so that only the method differs
        rf = OCSORTTracker(
            lost_track_buffer=config.lost_track_buffer,
            frame_rate=fps,
            minimum_consecutive_frames=2,
            minimum_iou_threshold=iou,
            high_conf_det_threshold=config.high_conf_det_threshold,
        )

    def update(xyxy: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        out = rf.update(sv.Detections(xyxy=xyxy.astype(np.float64), confidence=scores))
        ids = np.asarray(out.tracker_id if out.tracker_id is not None else [], np.int64)
        keep = ids >= 0
        return ids[keep], np.asarray(out.xyxy, np.float64)[keep]

    return update


def _official(iou: float, fps: float) -> Tracker | None:
    """supervision's ByteTrack (a port of the official code, removed from supervision 0.26 on), where the
    installed supervision still has it; the [bench] extra pins a later one, so this row appears only where an
    older supervision is put first on the path (README, bench tracking)."""
    try:
        import supervision as sv
    except ImportError:
        return None
    if not hasattr(sv, "ByteTrack"):
        return None
    config = TrackerConfig()
    official = sv.ByteTrack(
        track_activation_threshold=config.high_conf_det_threshold,  # new tracks from this + 0.1, as ours
        lost_track_buffer=config.lost_track_buffer,
        minimum_matching_threshold=1.0 - iou,
        frame_rate=round(fps),
        minimum_consecutive_frames=1,
    )

    def update(xyxy: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        detections = sv.Detections(xyxy=xyxy.astype(np.float64), confidence=scores, class_id=np.zeros(len(scores), int))
        out = official.update_with_detections(detections)
        ids = np.asarray(out.tracker_id if out.tracker_id is not None else [], np.int64)
        return ids, np.asarray(out.xyxy, np.float64).reshape(-1, 4)

    return update


def _trackers(iou: float, fps: float) -> Iterator[tuple[str, Tracker]]:
    yield "edge-agent ByteTrack", _native(iou, fps, False)
    yield "edge-agent ByteTrack + OC-SORT recovery", _native(iou, fps, True)
    made = _official(iou, fps)
    if made is not None:
        yield "supervision ByteTrack (official port)", made
    for kind, label in (("bytetrack", "roboflow trackers ByteTrack"), ("ocsort", "roboflow trackers OC-SORT")):
        made = _roboflow(kind, iou, fps)
        if made is not None:
            yield label, made


def _score(sequence: Degraded, tracker: Tracker) -> tuple[Any, float]:
    """motmetrics' accumulator of the tracker on the sequence, and its milliseconds per frame."""
    import motmetrics as mm

    acc = mm.MOTAccumulator(auto_id=True)
    spent = 0.0
    for (gt_ids, gt_boxes), (xyxy, scores) in zip(sequence.truth, sequence.detections):
        start = time.perf_counter()
        ids, boxes = tracker(xyxy, scores)
        spent += time.perf_counter() - start
        boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
        # MOTChallenge's rule (motmetrics' iou_matrix, max_iou 0.5; not called: it uses NumPy 1 only API)
        distances = 1.0 - iou_matrix(gt_boxes, boxes).astype(np.float64)
        distances[distances > 0.5] = np.nan
        acc.update(gt_ids.tolist(), np.asarray(ids).tolist(), distances)
    return acc, spent * 1000 / max(1, len(sequence.truth))


def run(seeds: Sequence[int] = (0, 1, 2), rates: Sequence[float] = (FPS, 2.0)) -> dict[str, Any]:
    """Per rate and tracker: MOTA, IDF1 and identity switches over both sequences and every seed (motmetrics'
    overall figures), and milliseconds per frame."""
    folder = _data_folder()
    if folder is None:
        raise MissingBenchmarkError(
            "bench tracking needs motmetrics (its wheel ships the TUD ground truth): pip install -e '.[bench]'"
        )
    import motmetrics as mm

    truths = {name: _ground_truth(folder / name / "gt.txt") for name in SEQUENCES}
    metrics = mm.metrics.create()
    rows = []
    for rate in rates:
        step = max(1, round(FPS / rate))
        iou = FULL_RATE_IOU if step == 1 else TrackerConfig().minimum_iou_threshold
        accumulators: dict[str, list[Any]] = {}
        names: dict[str, list[str]] = {}
        times: dict[str, list[float]] = {}
        # A subsampled sequence starts at every frame of the first step in turn (12 sequences at 2 fps): each is
        # as likely a recording, and one alone is a few frames (TUD-Campus at 2 fps: 6).
        for seed, offset, (name, gt) in itertools.product(seeds, range(step), truths.items()):
            sequence = degrade(name, gt, step, seed, offset)
            for label, tracker in _trackers(iou, sequence.fps):
                acc, ms = _score(sequence, tracker)
                accumulators.setdefault(label, []).append(acc)
                names.setdefault(label, []).append(f"{name}/{seed}/{offset}")
                times.setdefault(label, []).append(ms)
        for label, accs in accumulators.items():
            summary = metrics.compute_many(
                accs, names=names[label], metrics=["mota", "idf1", "num_switches"], generate_overall=True
            )
            overall = summary.loc["OVERALL"]
            rows.append(
                {
                    "fps": FPS / step,
                    "tracker": label,
                    "mota": float(overall["mota"]),
                    "idf1": float(overall["idf1"]),
                    "switches": int(overall["num_switches"]),
                    "ms_per_frame": float(np.mean(times[label])),
                }
            )
    return {"sequences": list(SEQUENCES), "seeds": list(seeds), "rows": rows}


def format_table(result: dict[str, Any]) -> str:
    lines = [
        f"degraded TUD trajectories ({', '.join(result['sequences'])}; seeds {result['seeds']}): motmetrics overall",
        f"{'fps':>5}  {'tracker':<44} {'MOTA':>6} {'IDF1':>6} {'switches':>8} {'ms/frame':>9}",
    ]
    for r in result["rows"]:
        lines.append(
            f"{r['fps']:>5.1f}  {r['tracker']:<44} {r['mota']:>6.3f} {r['idf1']:>6.3f} {r['switches']:>8d} "
            f"{r['ms_per_frame']:>9.3f}"
        )
    return "\n".join(lines)
