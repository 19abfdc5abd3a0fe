"""``edge-agent calibrate identity``: association thresholds for an embedding space, and the weight of the
description's words in it (GEB's multimodal embedding, :class:`~edge_agent.perception.embed.Described`), from
labelled observations at a chosen false-merge rate.

Perception runs once: MOT sequences (ground-truth boxes, the configured embedders; ``eval identity``'s clips)
or rendered synthetic worlds (``eval world``'s pipeline) are ingested with appearance alone while every clip's
records are kept, and each observation is labelled with the true instance it shows. Then, per description
weight w, the kind's appearance vectors are joined with their words' text vectors, and for every
(tau_low, tau_high) of a grid the records are replayed into a fresh memory (association only: no traces, no
episodes) and scored against the labels (pairwise and B-cubed precision / recall / F1, false merges) over the
observations of that kind. The proposal is the setting with the highest pairwise recall whose false-merge rate
is at most the target (ties: the higher thresholds, the more conservative)."""

from __future__ import annotations

import dataclasses
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from edge_agent import __version__
from edge_agent.config import Config
from edge_agent.config.consolidation import ConsolidationConfig
from edge_agent.eval.groundtruth import GroundTruth
from edge_agent.eval.metrics import identity_scores
from edge_agent.memory import ClipRecord, IngestResult, ObservationRecord, Store
from edge_agent.memory.associate import AssociationConfig, Thresholds
from edge_agent.memory.description import label
from edge_agent.perception.embed import Described

__all__ = [
    "Recording",
    "RecordingStore",
    "calibrate",
    "default_pairs",
    "format_table",
    "labelled",
    "replay",
]

Clip = tuple[ClipRecord, list[ObservationRecord], dict[str, Any]]


class RecordingStore(Store):
    """A store that keeps what perception wrote, clip by clip, to replay it under other associations."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.recorded: list[Clip] = []

    def __enter__(self) -> RecordingStore:
        return self

    def ingest_clip(self, clip: ClipRecord, observations: Iterable[ObservationRecord], **kwargs: Any) -> IngestResult:
        observations = list(observations)
        self.recorded.append((clip, observations, kwargs))
        return super().ingest_clip(clip, observations, **kwargs)


def _key(camera: str, record: ObservationRecord) -> tuple[str, int, int]:
    return camera, int(record.frame_ms[0]), int(record.track_id)


@dataclass
class Recording:
    """One labelled recording: its clips as perception wrote them, and per observation (camera, first frame
    in ms, track id) the true instance it shows (observations matching none are left out of the scores)."""

    name: str
    clips: list[Clip]
    labels: dict[tuple[str, int, int], str]


def labelled(name: str, recorded: list[Clip], gt: GroundTruth) -> Recording:
    """Recorded clips with the ground truth's label of each observation (by its boxes)."""
    labels: dict[tuple[str, int, int], str] = {}
    for clip, records, _ in recorded:
        for record in records:
            instance = gt.label_boxes(clip.camera, record.frame_ms.tolist(), record.boxes)
            if instance is not None:
                labels[_key(clip.camera, record)] = instance
    return Recording(name, recorded, labels)


def replay(
    recording: Recording, association: AssociationConfig, kind: str | None = None
) -> tuple[dict[tuple[str, int], tuple[str, int]], dict[tuple[str, int], tuple[str, str]]]:
    """(observation -> entity, observation -> true instance) after replaying the recording's clips into a fresh
    memory with ``association`` (only observations of ``kind`` scored, when given), keys prefixed with its name."""
    predicted: dict[tuple[str, int], tuple[str, int]] = {}
    truth: dict[tuple[str, int], tuple[str, str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        with Store(Path(tmp) / "memory", config=association, consolidation=ConsolidationConfig(enabled=False)) as s:
            for clip, records, kwargs in recording.clips:
                result = s.ingest_clip(clip, records, **{k: v for k, v in kwargs.items() if k == "speech"})
                for record, decision in zip(records, result.decisions):
                    instance = recording.labels.get(_key(clip.camera, record))
                    if instance is not None and (kind is None or record.kind == kind):
                        # entities and instances of different recordings are different
                        predicted[(recording.name, decision.observation_id)] = (recording.name, decision.entity_id)
                        truth[(recording.name, decision.observation_id)] = (recording.name, instance)
    return predicted, truth


def default_pairs() -> list[tuple[float, float]]:
    """(tau_low, tau_high): tau_low 0.50 to 0.90 by 0.05, tau_high 0.80 to 0.96 by 0.04, tau_low <= tau_high."""
    lows = np.round(np.arange(0.50, 0.901, 0.05), 2)
    highs = np.round(np.arange(0.80, 0.961, 0.04), 2)
    return [(float(lo), float(hi)) for lo in lows for hi in highs if lo <= hi]


def _joined(recordings: Sequence[Recording], kind: str, described: Described) -> tuple[list[Recording], set[str]]:
    """The recordings with the kind's vectors joined with their words (w = 0: as recorded); the spaces used."""
    spaces: set[str] = set()
    out = []
    for recording in recordings:
        clips = []
        for clip, records, kwargs in recording.clips:
            changed = []
            for r in records:
                if r.kind == kind:
                    space = described.space(kind, r.embedding_space)
                    spaces.add(space)
                    words = label(r.category, r.description.colours, r.description.pattern)
                    r = dataclasses.replace(
                        r, embedding=described.combine(kind, r.embedding, words), embedding_space=space
                    )
                changed.append(r)
            clips.append((clip, changed, kwargs))
        out.append(Recording(recording.name, clips, recording.labels))
    return out, spaces


def calibrate(
    recordings: Sequence[Recording],
    kind: str,
    config: Config,
    *,
    text: Any,
    weights: Iterable[float] = (0.0,),
    pairs: Sequence[tuple[float, float]] | None = None,
    max_false_merges: float = 0.01,
) -> dict[str, Any]:
    """Every (weight, tau_low, tau_high) scored on the recordings' observations of ``kind``; the proposal."""
    started = time.perf_counter()
    pairs = list(pairs or default_pairs())
    rows: list[dict[str, Any]] = []
    spaces_by_weight: dict[float, list[str]] = {}
    for w in weights:
        joined, spaces = _joined(recordings, kind, Described(text, {kind: w}))
        spaces_by_weight[w] = sorted(spaces)
        for lo, hi in pairs:
            thresholds = Thresholds(tau_low=lo, tau_high=hi)
            association = config.association.model_copy(
                update={
                    "spaces": {**config.association.spaces, **{s: thresholds for s in spaces}},
                    "thresholds": {**config.association.thresholds, kind: thresholds},
                }
            )
            predicted: dict[tuple[str, int], tuple[str, int]] = {}
            truth: dict[tuple[str, int], tuple[str, str]] = {}
            for recording in joined:
                p, t = replay(recording, association, kind)
                predicted.update(p)
                truth.update(t)
            rows.append({"weight": w, "tau_low": lo, "tau_high": hi, **identity_scores(predicted, truth)})
    allowed = [r for r in rows if r["false_merge_rate"] <= max_false_merges]
    best = max(allowed, key=lambda r: (r["pairwise_recall"], r["tau_low"], r["tau_high"]), default=None)
    per_weight = {
        w: max(
            (r for r in allowed if r["weight"] == w),
            key=lambda r: (r["pairwise_recall"], r["tau_low"], r["tau_high"]),
            default=None,
        )
        for w in spaces_by_weight
    }
    return {
        "calibration": "identity",
        "version": __version__,
        "kind": kind,
        "recordings": [r.name for r in recordings],
        "observations": sum(1 for r in recordings for k in r.labels),
        "max_false_merges": max_false_merges,
        "spaces": {str(w): s for w, s in spaces_by_weight.items()},
        "best_per_weight": {str(w): r for w, r in per_weight.items()},
        "proposal": best,
        "rows": rows,
        "duration_s": time.perf_counter() - started,
    }


def format_table(result: dict[str, Any]) -> str:
    lines = [
        f"edge-agent {result['version']} calibration of {result['kind']} identity on "
        f"{', '.join(result['recordings'])} (false merges <= {result['max_false_merges']:.1%})",
        "",
        f"{'weight':>6} {'tau_low':>7} {'tau_high':>8} {'pw_prec':>8} {'pw_rec':>8} {'pw_f1':>8} {'b3_f1':>8} "
        f"{'merges':>8}",
    ]
    for w, row in result["best_per_weight"].items():
        if row is None:
            lines.append(f"{float(w):>6.2f}  no setting keeps false merges under the target")
            continue
        lines.append(
            f"{float(w):>6.2f} {row['tau_low']:>7.2f} {row['tau_high']:>8.2f} {row['pairwise_precision']:>8.3f} "
            f"{row['pairwise_recall']:>8.3f} {row['pairwise_f1']:>8.3f} {row['bcubed_f1']:>8.3f} "
            f"{row['false_merge_rate']:>8.2%}"
        )
    best = result["proposal"]
    if best is None:
        lines += ["", "no setting keeps false merges under the target"]
        return "\n".join(lines)
    w = best["weight"]
    spaces = result["spaces"][str(w)]
    lines += ["", "proposal (configuration):", "[embedders.described]", f"{result['kind']} = {w:g}"]
    lines += ["[association.spaces]"] + [
        f'"{s}" = {{ tau_low = {best["tau_low"]:.2f}, tau_high = {best["tau_high"]:.2f} }}' for s in spaces
    ]
    return "\n".join(lines)
