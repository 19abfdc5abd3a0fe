"""``edge-agent bench memory``: association throughput with 1k / 10k / 100k existing entities for both
candidate indexes (in-memory matrix + native cosine top-k, and sqlite-vec KNN), the KNN latency of
each, and bytes on disk per observation. The memory is seeded with distinct synthetic entities (four
references each); the probes then go through the real ingest path: half are new sightings of existing
entities, half new entities, five observations per clip."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from edge_agent import __version__
from edge_agent.memory import AssociationConfig, AssociationDecision, ClipRecord, ObservationRecord, Store
from edge_agent.memory.description import Description
from edge_agent.memory.seed import seed_entities

SPACE = "bench-appearance"


def _probes(
    rng: np.random.Generator, prototypes: np.ndarray, count: int, t0: float
) -> tuple[list[tuple[ClipRecord, list[ObservationRecord]]], list[int | None]]:
    """Clips of five observations; the expected entity index (row of prototypes) or None for new."""
    dims: int = prototypes.shape[1]
    clips: list[tuple[ClipRecord, list[ObservationRecord]]] = []
    expected: list[int | None] = []
    for c in range(0, count, 5):
        start = t0 + c * 2.0
        records = []
        # Distinct targets within a clip: two sightings of one entity side by side on the same frames
        # would rightly be vetoed as two instances.
        targets = rng.choice(len(prototypes), size=5, replace=False)
        for j in range(min(5, count - c)):
            if (c + j) % 2 == 0:
                target = int(targets[j])
                vector = prototypes[target] + rng.normal(0, 0.02, dims).astype(np.float32)
                expected.append(target)
            else:
                vector = rng.normal(size=dims).astype(np.float32)
                expected.append(None)
            times: npt.NDArray[np.float64] = start + np.arange(20, dtype=np.float64) * 0.5
            box = np.array([j * 100, 0, j * 100 + 40, 40], np.float32)
            records.append(
                ObservationRecord(
                    j,
                    "object",
                    "thing",
                    times,
                    np.tile(box, (20, 1)),
                    np.full(20, 0.9, np.float32),
                    vector,
                    SPACE,
                    description=Description(text="a thing"),
                )
            )
        clips.append((ClipRecord("probe", start, start + 10.0), records))
    return clips, expected


def _ingest(
    store: Store,
    clips: list[tuple[ClipRecord, list[ObservationRecord]]],
    expected: list[int | None],
    entity_of_prototype: dict[int, int],
) -> tuple[float, float]:
    """(observations per second, fraction of re-sightings given the right entity)."""
    decisions: list[AssociationDecision] = []
    start = time.perf_counter()
    for clip, records in clips:
        decisions.extend(store.ingest_clip(clip, records).decisions)
    elapsed = time.perf_counter() - start
    right = [d.entity_id == entity_of_prototype[e] for d, e in zip(decisions, expected) if e is not None]
    return len(decisions) / elapsed, (sum(right) / len(right)) if right else 1.0


def _knn_ms(store: Store, vectors: np.ndarray) -> float:
    space_id = store._spaces[SPACE][0]  # noqa: SLF001
    index = store.associator.index
    samples = []
    for v in vectors:
        t = time.perf_counter_ns()
        index.candidates(space_id, "object", v, store.config.candidate_entities)
        samples.append(time.perf_counter_ns() - t)
    return float(np.median(samples)) / 1e6


def run(
    sizes: tuple[int, ...] = (1000, 10_000, 100_000),
    dims: int = 256,
    probes: int = 200,
    seed: int = 0,
    home: Path | None = None,
) -> dict[str, Any]:
    started = time.perf_counter()
    rng = np.random.default_rng(seed)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(home) if home is not None else Path(tmp) / "home"
        matrix = Store(home, config=AssociationConfig(index="matrix"))
        vec = Store(home, config=AssociationConfig(index="sqlite-vec"))
        prototypes = np.empty((0, dims), np.float32)
        entity_of_prototype: dict[int, int] = {}
        rows = []
        t0 = 1e9
        try:
            for n in sorted(sizes):
                have = len(prototypes)
                if n > have:
                    seeding = time.perf_counter()
                    added, ids = seed_entities(matrix, n - have, dims=dims, space=SPACE, seed=seed + n)
                    seed_s = time.perf_counter() - seeding
                    for k, entity_id in enumerate(ids):
                        entity_of_prototype[have + k] = entity_id
                    prototypes = np.concatenate([prototypes, added])
                else:
                    seed_s = 0.0
                matrix.checkpoint()
                row: dict[str, Any] = {
                    "entities": n,
                    "seed_s": seed_s,
                    "bytes_per_observation": matrix.file_bytes() / matrix.counts()["observations"],
                }
                queries = rng.normal(size=(30, dims)).astype(np.float32)
                row["matrix_knn_ms_p50"] = _knn_ms(matrix, queries)
                vec.sync()
                row["sqlite_vec_knn_ms_p50"] = _knn_ms(vec, queries[:10])
                clips, expected = _probes(rng, prototypes, probes, t0)
                t0 += probes * 2.0 + 100
                row["matrix_obs_per_s"], row["matrix_resighting_accuracy"] = _ingest(
                    matrix, clips, expected, entity_of_prototype
                )
                vec_count = max(10, probes // 4)
                clips, expected = _probes(rng, prototypes, vec_count, t0)
                t0 += vec_count * 2.0 + 100
                vec.sync()
                row["sqlite_vec_obs_per_s"], row["sqlite_vec_resighting_accuracy"] = _ingest(
                    vec, clips, expected, entity_of_prototype
                )
                matrix.sync()
                row["matrix_over_sqlite_vec"] = row["matrix_obs_per_s"] / row["sqlite_vec_obs_per_s"]
                rows.append(row)
        finally:
            matrix.close()
            vec.close()
    faster = "matrix" if all(r["matrix_obs_per_s"] >= r["sqlite_vec_obs_per_s"] for r in rows) else "sqlite-vec"
    return {
        "benchmark": "memory",
        "version": __version__,
        "dims": dims,
        "references_per_entity": 4,
        "boxes_per_observation": 20,
        "probes": probes,
        "cpus": os.cpu_count(),
        "sizes": rows,
        "knn_path": {"chosen": "matrix", "faster_in_this_run": faster},
        "duration_s": time.perf_counter() - started,
    }


def format_table(result: dict[str, Any]) -> str:
    lines = [
        f"edge-agent {result['version']} memory benchmark ({result['dims']}-d embeddings, "
        f"{result['references_per_entity']} references per entity, "
        f"{result['boxes_per_observation']} boxes per observation)",
        "",
        f"{'entities':>9} {'matrix obs/s':>13} {'sqlite-vec obs/s':>17} {'ratio':>6} {'matrix KNN ms':>14} "
        f"{'sqlite-vec KNN ms':>18} {'bytes/obs':>10} {'re-id ok':>9}",
    ]
    for r in result["sizes"]:
        lines.append(
            f"{r['entities']:>9} {r['matrix_obs_per_s']:>13.0f} {r['sqlite_vec_obs_per_s']:>17.1f} "
            f"{r['matrix_over_sqlite_vec']:>6.1f} "
            f"{r['matrix_knn_ms_p50']:>14.3f} {r['sqlite_vec_knn_ms_p50']:>18.2f} {r['bytes_per_observation']:>10.0f} "
            f"{min(r['matrix_resighting_accuracy'], r['sqlite_vec_resighting_accuracy']):>9.2f}"
        )
    lines.append(
        f"\ncandidate index in use: {result['knn_path']['chosen']} "
        f"(faster in this run: {result['knn_path']['faster_in_this_run']})"
    )
    lines.append(f"({result['duration_s']:.0f} s)")
    return "\n".join(lines)
