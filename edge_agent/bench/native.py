"""``edge-agent bench native``: the native core against its NumPy references and third-party baselines,
on the synthetic scene of issue #2 (1920x1080, N boxes of 30-90 px at constant velocity with 1 px jitter,
5% of detections dropped, scores 0.3-0.95). Detections are built before timing.

JSON keys (stable; documented in the README) are produced by :func:`run`.
"""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from edge_agent import __version__, native_reference
from edge_agent.native import ByteTracker, association_test, cosine_topk, iou_matrix, kernel_isa, linear_assignment

WIDTH, HEIGHT = 1920, 1080
BOX_PX = (30.0, 90.0)
JITTER_PX = 1.0
DROP_RATE = 0.05
SCORE_RANGE = (0.3, 0.95)
SPEED_PX = (0.5, 6.0)


@dataclass(frozen=True)
class Scene:
    """Per frame: detections (xyxy float32 (M, 4), scores float32 (M,)) and the true boxes (N, 4)."""

    detections: list[tuple[np.ndarray, np.ndarray]]
    truth: list[np.ndarray]


def synthetic_scene(n: int, frames: int, seed: int = 0) -> Scene:
    rng = np.random.default_rng(seed)
    size = rng.uniform(*BOX_PX, (n, 2))
    pos = rng.uniform(0, [WIDTH - BOX_PX[1], HEIGHT - BOX_PX[1]], (n, 2))
    angle = rng.uniform(0, 2 * np.pi, n)
    speed = rng.uniform(*SPEED_PX, n)
    vel = np.stack([np.cos(angle), np.sin(angle)], axis=1) * speed[:, None]
    detections, truth = [], []
    for _ in range(frames):
        pos += vel
        for axis, limit in ((0, WIDTH), (1, HEIGHT)):  # bounce off the borders: velocity stays constant in size
            out = (pos[:, axis] < 0) | (pos[:, axis] + size[:, axis] > limit)
            vel[out, axis] *= -1
            pos[:, axis] = np.clip(pos[:, axis], 0, limit - size[:, axis])
        boxes = np.hstack([pos, pos + size])
        truth.append(boxes.astype(np.float32))
        keep = rng.random(n) >= DROP_RATE
        jittered = boxes[keep] + rng.uniform(-JITTER_PX, JITTER_PX, (int(keep.sum()), 4))
        detections.append(
            (
                np.ascontiguousarray(jittered, dtype=np.float32),
                rng.uniform(*SCORE_RANGE, int(keep.sum())).astype(np.float32),
            )
        )
    return Scene(detections, truth)


def _percentiles(samples_ns: Sequence[int]) -> tuple[float, float]:
    ms = np.asarray(samples_ns, dtype=np.float64) / 1e6
    return float(np.percentile(ms, 50)), float(np.percentile(ms, 95))


def _time_calls(fn: Callable[[], Any], repeat: int, warmup: int = 2) -> list[int]:
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter_ns()
        fn()
        samples.append(time.perf_counter_ns() - start)
    return samples


def _time_tracker(update: Callable[[Any], Any], inputs: Sequence[Any]) -> tuple[float, float]:
    samples = []
    for item in inputs:
        start = time.perf_counter_ns()
        update(item)
        samples.append(time.perf_counter_ns() - start)
    return _percentiles(samples)


def _per_frame(tracker: Any) -> Callable[[tuple[np.ndarray, np.ndarray]], Any]:
    """``tracker.update(boxes, scores)`` as a function of one frame's (boxes, scores), for :func:`_time_tracker`."""
    return lambda d: tracker.update(d[0], d[1])


def _roboflow_tracker() -> tuple[Any, Any] | None:
    """roboflow/trackers' ByteTrack and supervision's Detections, when the [bench] extra is installed."""
    try:
        import supervision as sv
        from trackers import ByteTrackTracker
    except ImportError:
        return None
    return ByteTrackTracker, sv


#: The scene runs at 30 fps, where ByteTrack (and roboflow's) match at IoU x score 0.2; the product's 0.1 is for 2 fps.
BYTETRACK_30FPS_IOU = 0.2


def _ratio(numerator: float | None, denominator: float | None) -> float | None:
    if numerator is None or denominator is None or denominator <= 0:
        return None
    return numerator / denominator


def bench_tracker(sizes: Sequence[int], frames: int, seed: int, with_reference: bool) -> list[dict[str, Any]]:
    roboflow = _roboflow_tracker()
    rows = []
    for n in sizes:
        scene = synthetic_scene(n, frames, seed)
        row: dict[str, Any] = {"n": n}

        tracker = ByteTracker(minimum_iou_threshold=BYTETRACK_30FPS_IOU)
        row["native_ms_p50"], row["native_ms_p95"] = _time_tracker(_per_frame(tracker), scene.detections)

        row["reference_ms_p50"] = row["reference_ms_p95"] = None
        if with_reference:
            reference = native_reference.ByteTrackerReference(minimum_iou_threshold=BYTETRACK_30FPS_IOU)
            row["reference_ms_p50"], row["reference_ms_p95"] = _time_tracker(_per_frame(reference), scene.detections)

        row["roboflow_ms_p50"] = row["roboflow_ms_p95"] = None
        if roboflow is not None:
            tracker_cls, sv = roboflow
            rf = tracker_cls(
                lost_track_buffer=30,
                frame_rate=30.0,
                track_activation_threshold=0.6,
                minimum_iou_threshold=BYTETRACK_30FPS_IOU,
                high_conf_det_threshold=0.5,
            )
            dets = [sv.Detections(xyxy=x.astype(np.float64), confidence=s) for x, s in scene.detections]
            row["roboflow_ms_p50"], row["roboflow_ms_p95"] = _time_tracker(rf.update, dets)

        # The assignment problem of each frame's first pass: true boxes of frame t (the tracks) against
        # the detections of frame t + 1, IoU x score as the tracker builds it.
        problems = []
        for t in range(min(frames - 1, 200)):
            boxes, scores = scene.detections[t + 1]
            problems.append((iou_matrix(scene.truth[t], boxes) * scores[None, :]).astype(np.float32))
        row["solver_ms_p50"], _ = _time_tracker(lambda s: linear_assignment(s, 0.2), problems)
        row["scipy_solver_ms_p50"], _ = _time_tracker(lambda s: native_reference.linear_assignment(s, 0.2), problems)

        row["reference_over_native"] = _ratio(row["reference_ms_p50"], row["native_ms_p50"])
        row["roboflow_over_native"] = _ratio(row["roboflow_ms_p50"], row["native_ms_p50"])
        rows.append(row)
    return rows


def bench_association(entities: int = 1000, refs_per_entity: int = 4, dims: int = 512, seed: int = 0) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    refs = rng.normal(size=(entities * refs_per_entity, dims)).astype(np.float32)
    refs /= np.linalg.norm(refs, axis=1, keepdims=True)
    owners = np.repeat(np.arange(entities, dtype=np.int64), refs_per_entity)
    query = refs[5] + 0.1 * rng.normal(size=dims).astype(np.float32)
    native_p50, native_p95 = _percentiles(_time_calls(lambda: association_test(query, refs, owners, 0.5, 0.8), 200))
    reference_p50, _ = _percentiles(
        _time_calls(lambda: native_reference.association_test(query, refs, owners, 0.5, 0.8), 10)
    )
    return {
        "entities": entities,
        "refs_per_entity": refs_per_entity,
        "dims": dims,
        "native_ms_p50": native_p50,
        "native_ms_p95": native_p95,
        "reference_ms_p50": reference_p50,
        "reference_over_native": _ratio(reference_p50, native_p50),
    }


def bench_topk(n: int = 100_000, dims: int = 512, k: int = 10, batch: int = 64, seed: int = 0) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    base = rng.normal(size=(n, dims)).astype(np.float32)
    base /= np.linalg.norm(base, axis=1, keepdims=True)
    queries = rng.normal(size=(batch, dims)).astype(np.float32)
    bytes_scanned = base.nbytes

    def numpy_scan(q: np.ndarray) -> np.ndarray:
        scores = base @ q
        top = np.argpartition(-scores, k)[:k]
        return top[np.argsort(-scores[top])]

    native_q1, _ = _percentiles(_time_calls(lambda: cosine_topk(queries[0], base, k), 15))
    numpy_q1, _ = _percentiles(_time_calls(lambda: numpy_scan(queries[0]), 15))
    native_batch, _ = _percentiles(_time_calls(lambda: cosine_topk(queries, base, k), 5, warmup=1))
    q1_throughput = 1000.0 / native_q1
    batch_throughput = batch * 1000.0 / native_batch
    return {
        "n": n,
        "dims": dims,
        "k": k,
        "q1": {
            "native_ms_p50": native_q1,
            "numpy_ms_p50": numpy_q1,
            "native_over_numpy": native_q1 / numpy_q1,
            "native_gb_s": bytes_scanned / native_q1 / 1e6,
            "numpy_gb_s": bytes_scanned / numpy_q1 / 1e6,
        },
        f"q{batch}": {
            "native_ms_p50": native_batch,
            "queries_per_s": batch_throughput,
            "throughput_over_q1": batch_throughput / q1_throughput,
            "native_gb_s": bytes_scanned / native_batch / 1e6,
        },
    }


def _growth(rows: list[dict[str, Any]], key: str, small: int, large: int) -> float | None:
    by_n = {r["n"]: r for r in rows}
    if small not in by_n or large not in by_n:
        return None
    return _ratio(by_n[large][key], by_n[small][key])


def run(
    sizes: Sequence[int] = (10, 50, 100, 200),
    frames: int = 1000,
    seed: int = 0,
    with_reference: bool = True,
    topk_n: int = 100_000,
) -> dict[str, Any]:
    started = time.perf_counter()
    tracker = bench_tracker(sizes, frames, seed, with_reference)
    association = bench_association(seed=seed)
    topk = bench_topk(n=topk_n, seed=seed)
    at_50 = next((r for r in tracker if r["n"] == 50), None)
    growth = {
        "native": _growth(tracker, "native_ms_p50", 50, 200),
        "solver": _growth(tracker, "solver_ms_p50", 50, 200),
        "scipy_solver": _growth(tracker, "scipy_solver_ms_p50", 50, 200),
    }
    rf_ratio = at_50["roboflow_over_native"] if at_50 else None
    targets = {
        "tracker_vs_roboflow_at_50": {
            "target": ">= 25",
            "value": rf_ratio,
            "met": None if rf_ratio is None else rf_ratio >= 25,
        },
        "tracker_growth_50_to_200_vs_solver": {
            "target": "native <= solver",
            "value": growth["native"],
            "met": None
            if growth["native"] is None or growth["solver"] is None
            else growth["native"] <= growth["solver"],
        },
        "association_test_ms": {
            "target": "< 0.5",
            "value": association["native_ms_p50"],
            "met": association["native_ms_p50"] < 0.5,
        },
        "cosine_topk_q1_vs_numpy": {
            "target": "<= 1.5",
            "value": topk["q1"]["native_over_numpy"],
            "met": topk["q1"]["native_over_numpy"] <= 1.5,
        },
        "cosine_topk_q64_throughput_vs_q1": {
            "target": ">= 3",
            "value": topk["q64"]["throughput_over_q1"],
            "met": topk["q64"]["throughput_over_q1"] >= 3,
        },
    }
    return {
        "benchmark": "native",
        "version": __version__,
        "kernel_isa": kernel_isa,
        "machine": {"platform": platform.platform(), "processor": platform.machine(), "cpus": os.cpu_count()},
        "scene": {
            "width": WIDTH,
            "height": HEIGHT,
            "frames": frames,
            "box_px": list(BOX_PX),
            "jitter_px": JITTER_PX,
            "drop_rate": DROP_RATE,
            "score_range": list(SCORE_RANGE),
            "seed": seed,
        },
        "tracker": tracker,
        "tracker_growth_50_to_200": growth,
        "association_test": association,
        "cosine_topk": topk,
        "targets": targets,
        "duration_s": time.perf_counter() - started,
    }


def _fmt(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def format_table(result: dict[str, Any]) -> str:
    lines = [
        f"edge-agent {result['version']} native benchmark (kernels: {result['kernel_isa']}, "
        f"{result['machine']['cpus']} CPUs, {result['scene']['frames']} frames)",
        "",
        "tracker update, ms per frame (p50 / p95)",
        f"{'N':>5} {'native':>17} {'numpy reference':>17} {'roboflow':>17} "
        f"{'ref/nat':>8} {'rf/nat':>8} {'solver':>8} {'scipy':>8}",
    ]
    for r in result["tracker"]:
        lines.append(
            f"{r['n']:>5} {_fmt(r['native_ms_p50']):>8} /{_fmt(r['native_ms_p95']):>7} "
            f"{_fmt(r['reference_ms_p50']):>8} /{_fmt(r['reference_ms_p95']):>7} "
            f"{_fmt(r['roboflow_ms_p50']):>8} /{_fmt(r['roboflow_ms_p95']):>7} "
            f"{_fmt(r['reference_over_native'], 1):>8} {_fmt(r['roboflow_over_native'], 1):>8} "
            f"{_fmt(r['solver_ms_p50']):>8} {_fmt(r['scipy_solver_ms_p50']):>8}"
        )
    g = result["tracker_growth_50_to_200"]
    lines.append(
        f"growth N=50 -> 200: tracker x{_fmt(g['native'], 2)}, solver x{_fmt(g['solver'], 2)}, "
        f"scipy solver x{_fmt(g['scipy_solver'], 2)}"
    )
    a = result["association_test"]
    lines += [
        "",
        f"association_test, {a['entities']} entities x {a['refs_per_entity']} refs x {a['dims']} dims: "
        f"{_fmt(a['native_ms_p50'], 4)} ms p50, {_fmt(a['native_ms_p95'], 4)} ms p95 "
        f"(numpy reference {_fmt(a['reference_ms_p50'], 3)} ms, x{_fmt(a['reference_over_native'], 1)})",
    ]
    t = result["cosine_topk"]
    q1, qb = t["q1"], t["q64"]
    lines += [
        f"cosine_topk over {t['n']} x {t['dims']}, k={t['k']}:",
        f"  Q=1:  native {_fmt(q1['native_ms_p50'], 2)} ms ({_fmt(q1['native_gb_s'], 1)} GB/s), "
        f"numpy matvec {_fmt(q1['numpy_ms_p50'], 2)} ms ({_fmt(q1['numpy_gb_s'], 1)} GB/s), "
        f"native/numpy x{_fmt(q1['native_over_numpy'], 2)}",
        f"  Q=64: native {_fmt(qb['native_ms_p50'], 1)} ms, {_fmt(qb['queries_per_s'], 0)} queries/s, "
        f"x{_fmt(qb['throughput_over_q1'], 2)} the single-query throughput",
        "",
        "targets:",
    ]
    for name, target in result["targets"].items():
        met = {True: "met", False: "NOT met", None: "not measured"}[target["met"]]
        lines.append(f"  {name}: {_fmt(target['value'], 3)} (target {target['target']}): {met}")
    lines.append(f"\n({result['duration_s']:.0f} s)")
    return "\n".join(lines)
