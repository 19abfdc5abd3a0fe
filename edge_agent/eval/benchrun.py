"""``edge-agent eval bench NAME ANNOTATIONS --videos DIR``: a public benchmark end to end, for a user who
has its videos. Each video the questions need is ingested into a fresh memory through the configured
pipeline (a folder of recordings, as EgoLife's per-wearer days, in file-name order, back to back), then
each question is asked as of its query time with the configured controller, and the benchmark's own
scoring (:mod:`edge_agent.eval.benchmarks`) is applied."""

from __future__ import annotations

import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from edge_agent import __version__
from edge_agent.capture import VideoFileSource
from edge_agent.config import Config
from edge_agent.eval import benchmarks
from edge_agent.ingest import Pipeline
from edge_agent.memory import Store
from edge_agent.perception.backends import build_backends

__all__ = ["run_benchmark"]

START = 1_772_409_600.0  # 2026-03-02T00:00:00Z: where a benchmark's recording clock starts
VIDEO_SUFFIXES = {".mp4", ".mkv", ".avi", ".mov", ".webm"}


def _recordings(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    found = sorted(p for p in path.rglob("*") if p.suffix.lower() in VIDEO_SUFFIXES)
    if not found:
        raise FileNotFoundError(f"{path} holds no video file ({', '.join(sorted(VIDEO_SUFFIXES))})")
    return found


def run_benchmark(
    name: str,
    annotations: Path,
    videos: Path,
    config: Config,
    models: Path,
    controller_factory: Callable[[Store], Any],
    *,
    limit: int | None = None,
    progress: Callable[[str], None] = lambda _: None,
) -> dict[str, Any]:
    started = time.perf_counter()
    items = benchmarks.load(name, annotations)
    if limit is not None:
        items = items[:limit]
    by_video: dict[str, list[benchmarks.BenchmarkItem]] = defaultdict(list)
    for item in items:
        by_video[item.video].append(item)
    predictions: dict[str, benchmarks.Prediction] = {}
    ingest_s = 0.0
    for video, questions in by_video.items():
        path = benchmarks.video_for(questions[0], videos)
        with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "memory") as store:
            t = time.perf_counter()
            offset = START
            for recording in _recordings(path):
                source = VideoFileSource(recording, sample_fps=config.capture.sample_fps, start=offset)
                report = Pipeline(store, build_backends(config, models, source), config).run(source, camera="benchmark")
                offset += report.video_seconds + 1.0
            ingest_s += time.perf_counter() - t
            controller = controller_factory(store)
            for item in questions:
                as_of = START + item.query_time if item.query_time is not None else None
                answer = controller.ask(item.question, as_of=as_of, choices=item.choices)
                predictions[item.item_id] = benchmarks.Prediction(answer.choice_index, answer.text)
        progress(f"{video}: {len(questions)} questions")
    result = benchmarks.score(name, items, predictions)
    return {
        "evaluation": "bench",
        "benchmark": name,
        "version": __version__,
        "questions": len(items),
        "videos": len(by_video),
        **result,
        "ingest_s": ingest_s,
        "duration_s": time.perf_counter() - started,
    }
