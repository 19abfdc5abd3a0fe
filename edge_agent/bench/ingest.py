"""``edge-agent bench ingest SOURCE``: the write path on a recording into a throwaway memory: x real time
(video seconds per wall second, JSON key ``x_realtime``) and milliseconds per stage (decode, detect,
track, embed, faces, describe, write), in total and per sampled frame; and what looking for faces cost against the
rest of the same run."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from edge_agent import __version__
from edge_agent.capture import open_source
from edge_agent.config import Config
from edge_agent.ingest import Pipeline
from edge_agent.memory import Store
from edge_agent.perception.backends import build_backends


def run(source_spec: str, config: Config, models: Path, *, start: float | None = 0.0) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "home") as store:
        source = open_source(
            source_spec, sample_fps=config.capture.sample_fps, start=start, image_fps=config.capture.image_fps
        )
        backends = build_backends(config, models, source)
        report = Pipeline(store, backends, config).run(source, "bench")
        entities = store.entities()
        counts = store.counts()
        persons = sum(e.observations for e in entities if e.kind == "person")
    frames = max(report.frames, 1)
    return {
        "benchmark": "ingest",
        "version": __version__,
        "source": source_spec,
        "sample_fps": config.capture.sample_fps,
        "clip_seconds": config.capture.clip_seconds,
        "backends": report.backends,
        "video_seconds": report.video_seconds,
        "wall_seconds": report.wall_seconds,
        "x_realtime": report.x_realtime,
        "frames": report.frames,
        "clips": report.clips,
        "observations": report.observations,
        "entities": len(entities),
        "entities_by_category": _count(e.category for e in entities),
        "stage_ms": report.stage_ms,
        "stage_ms_per_frame": {k: v / frames for k, v in report.stage_ms.items()},
        # faces: what looking for them cost, against the same run's ingest without that stage
        "faces": report.backends.get("faces", "off"),
        "faces_cost": report.stage_ms["faces"] / max(report.wall_seconds * 1000 - report.stage_ms["faces"], 1e-9),
        "person_observations": persons,
        "faces_kept": counts["observation_faces"],
    }


def _count(items: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for item in items:
        out[item] = out.get(item, 0) + 1
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def format_table(result: dict[str, Any]) -> str:
    lines = [
        f"edge-agent {result['version']} ingest benchmark: {result['source']}",
        "backends: " + "; ".join(f"{k} = {v}" for k, v in result["backends"].items()),
        f"{result['video_seconds']:.1f} s of video in {result['wall_seconds']:.2f} s: "
        f"{result['x_realtime']:.1f}x real time "
        f"({result['frames']} frames sampled at {result['sample_fps']:g} fps, {result['clips']} clips)",
        f"{result['observations']} observations, {result['entities']} entities: "
        + ", ".join(f"{n} {c}" for c, n in result["entities_by_category"].items()),
        "",
        f"{'stage':<10} {'total ms':>10} {'ms/frame':>10}",
    ]
    for stage, total in result["stage_ms"].items():
        lines.append(f"{stage:<10} {total:>10.1f} {result['stage_ms_per_frame'][stage]:>10.2f}")
    if result["faces"] != "off":
        lines.append(
            f"faces ({result['faces']}): +{100 * result['faces_cost']:.1f}% over this ingest without looking for "
            f"them; {result['faces_kept']} faces kept from {result['person_observations']} person observations"
        )
    return "\n".join(lines)
