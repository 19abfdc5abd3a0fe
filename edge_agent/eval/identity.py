"""``edge-agent eval identity``: cross-clip identity association on real video (EVAL.md section 1).
Each MOT sequence is cut into clips of a few frames (MOT17-mini has images for frames 1-8: clips of
frames 1-4 and 5-8), run through the real write path into a fresh memory (ground-truth boxes replayed,
or a detector + the project's tracker), and memory's entities are scored against the true track ids:
each observation is labelled with the ground-truth box it overlaps (IoU >= 0.5) on most of its frames."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from edge_agent import __version__
from edge_agent.capture import MOTSequenceSource
from edge_agent.config import Config
from edge_agent.eval.calibrate import Recording, RecordingStore, labelled
from edge_agent.eval.groundtruth import GroundTruth, frame_rate
from edge_agent.eval.metrics import IDENTITY_KEYS, identity_scores
from edge_agent.ingest import IngestReport, Pipeline
from edge_agent.memory import Store, queries
from edge_agent.perception.backends import build_backends

__all__ = ["evaluate_mot", "format_table", "record_mot"]

START = 1_772_434_800.0  # 2026-03-02T07:00:00Z: any fixed wall-clock start will do


def evaluate_mot(
    sequences: Sequence[str | Path], config: Config, models: Path, *, frames_per_clip: int = 4
) -> dict[str, Any]:
    """Scores per sequence and over all of them (observations of different sequences are different
    instances, each in its own memory). ``config.detector`` picks the boxes: ``gt`` replays them."""
    started = time.perf_counter()
    per_sequence: dict[str, Any] = {}
    predicted: dict[tuple[str, int], int | tuple[str, int]] = {}
    truth: dict[tuple[str, int], str] = {}
    backends_used: dict[str, str] = {}
    for sequence in map(Path, sequences):
        with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "memory") as store:
            report, gt, backends_used = _ingest_sequence(sequence, config, models, store, frames_per_clip)
            labels = gt.label_observations(store)
            entities = queries.observation_entities(store)
        scores = identity_scores(entities, labels)
        per_sequence[sequence.name] = {
            "identity": scores,
            "clips": report.clips,
            "observations": report.observations,
            "labelled": len(labels),
            "entities": len(set(entities.values())),
        }
        for o, e in entities.items():
            predicted[(sequence.name, o)] = (sequence.name, e)
        for o, label in labels.items():
            truth[(sequence.name, o)] = label
    return {
        "evaluation": "identity",
        "version": __version__,
        "detector": config.detector.type,
        "backends": backends_used,
        "frames_per_clip": frames_per_clip,
        "sequences": per_sequence,
        "identity": identity_scores(predicted, truth),
        "duration_s": time.perf_counter() - started,
    }


def _ingest_sequence(
    sequence: Path, config: Config, models: Path, store: Store, frames_per_clip: int
) -> tuple[IngestReport, GroundTruth, dict[str, str]]:
    """A MOT sequence cut into clips of ``frames_per_clip`` frames through the pipeline into ``store``; (the
    report, its ground truth, the backends)."""
    fps = frame_rate(sequence)
    run_config = config.model_copy(
        update={
            "capture": config.capture.model_copy(
                update={"clip_seconds": (frames_per_clip - 0.01) / fps, "sample_fps": fps}
            )
        }
    )
    source = MOTSequenceSource(sequence, sample_fps=fps, start=START)
    backends = build_backends(run_config, models, source)
    report = Pipeline(store, backends, run_config).run(source, camera=sequence.name)
    gt = GroundTruth()
    gt.add_mot(
        sequence,
        sequence.name,
        START,
        fps=fps,
        min_visibility=config.detector.min_visibility if config.detector.type == "gt" else 0.0,
    )
    return report, gt, backends.summary()


def record_mot(sequence: str | Path, config: Config, models: Path, *, frames_per_clip: int = 4) -> Recording:
    """A MOT sequence perceived once, its clips kept with each observation's true track (calibration)."""
    sequence = Path(sequence)
    with tempfile.TemporaryDirectory() as tmp, RecordingStore(Path(tmp) / "memory") as store:
        _, gt, _ = _ingest_sequence(sequence, config, models, store, frames_per_clip)
        return labelled(sequence.name, store.recorded, gt)


def format_table(result: dict[str, Any]) -> str:
    head = f"{'sequence':<18} {'obs':>5} {'ent':>5} " + " ".join(
        f"{k.replace('pairwise_', 'pw_').replace('bcubed_', 'b3_'):>10}" for k in IDENTITY_KEYS
    )
    lines = [
        f"edge-agent {result['version']} identity on MOT (detector {result['detector']}, "
        f"{result['frames_per_clip']} frames a clip; embedder {result['backends'].get('embedder.person', '?')})",
        "",
        head,
    ]
    rows = [(name, s["labelled"], s["entities"], s["identity"]) for name, s in result["sequences"].items()]
    rows.append(
        (
            "overall",
            result["identity"]["items"],
            sum(s["entities"] for s in result["sequences"].values()),
            result["identity"],
        )
    )
    for name, n, e, scores in rows:
        lines.append(f"{name:<18} {n:>5} {e:>5} " + " ".join(f"{scores[k]:>10.3f}" for k in IDENTITY_KEYS))
    return "\n".join(lines)
