"""``edge-agent bench retrieval``: retrieval latency without an LLM (hybrid seeds, PPR, budgeted
selection and rendering), p50 / p95 over a set of questions, on generated memories of 1k / 10k / 100k
observations (10-second clips, four observations each, a caption per clip). The text index is filled
before timing; the first question after a memory change also builds the graph and is reported apart. PPR by
local push (the default) is compared with power iteration on the same questions: time, and the same evidence."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from edge_agent import __version__, _native
from edge_agent.memory import Store
from edge_agent.memory.seed import seed_memory
from edge_agent.perception.text import MiniLMTextEmbedder
from edge_agent.retrieval import MemoryGraph, RetrievalConfig, Retriever, render
from edge_agent.retrieval.ppr import personalized_pagerank

QUESTIONS = (
    "where are the keys?",
    "when was the dog on the sofa?",
    "who was by the door this morning?",
    "how many times was the red cup on the table?",
    "where did I leave my laptop?",
    "what was moving left on camera1?",
    "is the black cat by the sink?",
    "the blue backpack",
    "green bottle at the top left",
    "a person moving right",
    "where is the white book?",
    "yellow chair in the centre",
)


def _native_matvec(
    arrays: tuple[npt.NDArray[np.int64], npt.NDArray[np.int32], npt.NDArray[np.float64]], threads: int
) -> Callable[[npt.NDArray[np.float64]], npt.NDArray[np.float64]]:
    """PPR's ``matvec`` through the native CSR product of ``arrays`` (indptr, indices, data) on ``threads`` threads."""
    return lambda x: _native.csr_matvec(*arrays, x, threads)


def run(sizes: tuple[int, ...] = (1000, 10_000, 100_000), seed: int = 0) -> dict[str, Any]:
    started = time.perf_counter()
    embedder = MiniLMTextEmbedder()
    rows = []
    with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "home") as store:
        have = 0
        for n in sorted(sizes):
            t = time.perf_counter()
            seed_memory(store, n - have, seed=seed + n)
            have = n
            seed_s = time.perf_counter() - t
            retriever = Retriever(store, embedder)
            t = time.perf_counter()
            retriever.index.update()
            index_s = time.perf_counter() - t
            t = time.perf_counter()
            retriever.retrieve(QUESTIONS[0])
            first_ms = (time.perf_counter() - t) * 1000
            samples, stages = [], {"seeds": [], "ppr": [], "select": []}
            for _ in range(3):
                for q in QUESTIONS:
                    t = time.perf_counter()
                    evidence = retriever.retrieve(q)
                    render(store, evidence)
                    samples.append((time.perf_counter() - t) * 1000)
                    for k in stages:
                        stages[k].append(evidence.timings_ms[k])
            # Local push (the default) against power iteration (the exact reference) on the same questions: the
            # PPR stage's time and whether the evidence chosen is the same.
            exact = Retriever(store, embedder, RetrievalConfig(ppr="power"))
            exact.retrieve(QUESTIONS[0])  # its graph
            same, push_ms, power_ms = 0, [], []
            for q in QUESTIONS:
                a, b = retriever.retrieve(q), exact.retrieve(q)
                same += set(a.observation_ids) == set(b.observation_ids) and set(a.episode_ids) == set(b.episode_ids)
                push_ms.append(a.timings_ms["ppr"])
                power_ms.append(b.timings_ms["ppr"])
            # PPR alone, SciPy's sparse product against the native one (1 and 2 threads), same seeds.
            graph = MemoryGraph.build(store)
            seeds = np.zeros(graph.n)
            seeds[np.random.default_rng(seed).integers(0, graph.n, 20)] = 1.0
            ppr_ms = {}
            csr = graph.transitions
            arrays = (
                csr.indptr.astype(np.int64),
                csr.indices.astype(np.int32),
                np.ascontiguousarray(csr.data, np.float64),
            )
            for name, matvec in (
                ("scipy", None),
                ("native_1", _native_matvec(arrays, 1)),
                ("native_2", _native_matvec(arrays, 2)),
            ):
                times = []
                for _ in range(5):
                    t = time.perf_counter()
                    personalized_pagerank(graph.transitions, seeds, matvec=matvec)
                    times.append((time.perf_counter() - t) * 1000)
                ppr_ms[name] = float(np.median(times))
            rows.append(
                {
                    "observations": n,
                    "ppr_ms": ppr_ms,
                    "ppr_push_ms_p50": float(np.median(push_ms)),
                    "ppr_power_ms_p50": float(np.median(power_ms)),
                    "same_evidence_as_power": same / len(QUESTIONS),
                    "entities": len(store.entities()),
                    "seed_s": seed_s,
                    "text_index_s": index_s,
                    "first_question_ms": first_ms,
                    "retrieve_ms_p50": float(np.percentile(samples, 50)),
                    "retrieve_ms_p95": float(np.percentile(samples, 95)),
                    "stage_ms_p50": {k: float(np.percentile(v, 50)) for k, v in stages.items()},
                }
            )
    at_100k = next((r for r in rows if r["observations"] == 100_000), None)
    return {
        "benchmark": "retrieval",
        "version": __version__,
        "questions": len(QUESTIONS),
        "sizes": rows,
        "target_p95_ms_at_100k": {
            "target": "< 100",
            "value": at_100k["retrieve_ms_p95"] if at_100k else None,
            "met": None if at_100k is None else at_100k["retrieve_ms_p95"] < 100,
        },
        "duration_s": time.perf_counter() - started,
    }


def format_table(result: dict[str, Any]) -> str:
    lines = [
        f"edge-agent {result['version']} retrieval benchmark ({result['questions']} questions x 3, no LLM)",
        "",
        f"{'observations':>12} {'entities':>9} {'p50 ms':>8} {'p95 ms':>8} "
        f"{'seeds':>7} {'ppr':>7} {'select':>7} {'1st q ms':>9} {'index s':>8}",
    ]
    for r in result["sizes"]:
        s = r["stage_ms_p50"]
        lines.append(
            f"{r['observations']:>12} {r['entities']:>9} {r['retrieve_ms_p50']:>8.1f} {r['retrieve_ms_p95']:>8.1f} "
            f"{s['seeds']:>7.1f} {s['ppr']:>7.1f} {s['select']:>7.1f} "
            f"{r['first_question_ms']:>9.0f} {r['text_index_s']:>8.1f}"
        )
    for r in result["sizes"]:
        lines.append(
            f"PPR at {r['observations']}: local push {r['ppr_push_ms_p50']:.1f} ms, power iteration "
            f"{r['ppr_power_ms_p50']:.1f} ms ({r['ppr_power_ms_p50'] / max(r['ppr_push_ms_p50'], 1e-9):.1f}x); "
            f"the same evidence on {100 * r['same_evidence_as_power']:.0f}% of the questions"
        )
    t = result["target_p95_ms_at_100k"]
    last = result["sizes"][-1]["ppr_ms"]
    lines.append(
        f"PPR at {result['sizes'][-1]['observations']} observations: SciPy {last['scipy']:.1f} ms, native "
        f"{last['native_1']:.1f} ms (1 thread) / {last['native_2']:.1f} ms (2 threads)"
    )
    lines.append(
        f"\ntarget p95 {t['target']} ms at 100k: {t['value'] if t['value'] is None else round(t['value'], 1)} "
        f"({'met' if t['met'] else 'NOT met' if t['met'] is False else 'not measured'})"
    )
    return "\n".join(lines)
