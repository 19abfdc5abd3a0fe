"""``edge-agent bench``: benchmarks that print figures with ratios against baselines measured in the same run."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from edge_agent.cli.common import emit, examples, positive_float, positive_int, random_seed, runtime
from edge_agent.config import COMMAND_LINE_DETECTORS

__all__ = ["register"]


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    bench = commands.add_parser("bench", help="benchmarks with ratios against baselines measured in the same run")
    targets = bench.add_subparsers(dest="target", metavar="TARGET", required=True)
    native = targets.add_parser(
        "native",
        parents=[common],
        help="native core: tracker, association test, cosine top-k",
        epilog=examples(
            "edge-agent bench native",
            "# a quick run: a shorter scene, fewer sizes, a smaller top-k base",
            "edge-agent bench native --frames 200 --sizes 10 50 --topk-rows 10000 --no-reference --json",
        ),
    )
    native.add_argument("--frames", type=positive_int, default=1000, help="frames of the synthetic scene (1000)")
    native.add_argument(
        "--sizes",
        type=positive_int,
        nargs="+",
        default=[10, 50, 100, 200],
        help="numbers of objects N in the scene (10 50 100 200)",
    )
    native.add_argument(
        "--topk-rows", type=positive_int, default=100_000, help="rows in the cosine top-k base (100000)"
    )
    native.add_argument("--seed", type=random_seed, default=0, help="seed of the synthetic scene (0)")
    native.add_argument("--no-reference", action="store_true", help="skip the slow NumPy reference tracker")
    ingest = targets.add_parser(
        "ingest",
        parents=[common],
        help="x real time and per-stage ms of the write path on a recording",
        description="Ingests a recording into a memory made for the run and thrown away, and prints how many times "
        "real time it ran and the milliseconds of each stage (decode, detect, track, embed, faces, write, ...).",
        epilog=examples(
            "edge-agent bench ingest front-door.mp4",
            "# the OpenCV detector instead of the configured one, as JSON",
            "edge-agent bench ingest front-door.mp4 --detector opencv --json",
        ),
    )
    ingest.add_argument("source", help="video file, image folder or MOT sequence")
    ingest.add_argument(
        "--detector",
        choices=COMMAND_LINE_DETECTORS,
        help="detector backend (default: the configuration's; gt replays a MOT sequence's boxes)",
    )
    retrieval = targets.add_parser(
        "retrieval",
        parents=[common],
        help="retrieval without an LLM on generated memories (1k / 10k / 100k observations; a year: "
        "--observations 1000000, about 10 minutes): latency per stage, a fresh process's first answer and memory, "
        "index size, vector recall",
        epilog=examples(
            "edge-agent bench retrieval --observations 1000",
            "edge-agent bench retrieval --observations 1000 10000 --json",
        ),
    )
    retrieval.add_argument(
        "--observations",
        type=positive_int,
        nargs="+",
        default=[1000, 10_000, 100_000],
        help="sizes of the generated memories, in observations (1000 10000 100000)",
    )
    month = targets.add_parser(
        "month",
        parents=[common],
        help="rows and bytes after a simulated month of a fixed camera, traces vs none",
        epilog=examples(
            "# the default, 30 days, takes about 40 minutes on 2 cores; a day takes a minute or two",
            "edge-agent bench month --days 1",
            "edge-agent bench month --days 2 --clip-seconds 30 --json",
        ),
    )
    month.add_argument("--days", type=positive_int, default=30, help="days simulated (30)")
    month.add_argument(
        "--baseline-days", type=positive_int, default=1, help="days the no-trace baseline is measured over"
    )
    month.add_argument("--clip-seconds", type=positive_float, default=10.0, help="length of a clip, seconds (10)")
    memory = targets.add_parser(
        "memory",
        parents=[common],
        help="association throughput and bytes per observation vs existing entities",
        epilog=examples(
            "edge-agent bench memory --entities 1000",
            "edge-agent bench memory --entities 1000 10000 --probes 100 --json",
        ),
    )
    memory.add_argument(
        "--entities",
        type=positive_int,
        nargs="+",
        default=[1000, 10_000, 100_000],
        help="existing entities to measure at (1000 10000 100000)",
    )
    memory.add_argument("--dims", type=positive_int, default=256, help="embedding dimensions (256)")
    memory.add_argument("--probes", type=positive_int, default=200, help="observations ingested per measurement (200)")
    memory.add_argument("--seed", type=random_seed, default=0, help="seed of the generated entities (0)")
    tracking = targets.add_parser(
        "tracking",
        parents=[common],
        help="MOTA / IDF1 on degraded TUD trajectories at 25 and 2 fps, against roboflow's trackers ([bench] extra)",
        epilog=examples("edge-agent bench tracking", "edge-agent bench tracking --seed 0 --fps 2 --json"),
    )
    tracking.add_argument("--seed", type=random_seed, nargs="+", default=[0, 1, 2], help="degradation seeds (0 1 2)")
    tracking.add_argument("--fps", type=positive_float, nargs="+", default=[25.0, 2.0], help="rates (25 2)")
    node = targets.add_parser(
        "node",
        parents=[common],
        help="camera nodes on live 720p streams of recordings: CPU per stream, dropped frames, latency to the hub",
        epilog=examples(
            "edge-agent bench node front-door.mp4 hall.mp4 --streams 2 --seconds 30",
            "# a short run through an existing broker",
            "edge-agent bench node front-door.mp4 --streams 2 --seconds 20 --broker mqtt://127.0.0.1:1883 --json",
        ),
    )
    node.add_argument("videos", type=Path, nargs="+", help="recordings served as the live streams (looped)")
    node.add_argument("--streams", type=positive_int, default=4, help="node processes, one stream each (4)")
    node.add_argument("--seconds", type=positive_float, default=60.0, help="how long the streams run (60)")
    node.add_argument("--broker", metavar="URL", help="an MQTT broker (default: a mosquitto started for the run)")
    for sub in (native, ingest, retrieval, month, memory, tracking, node):
        sub.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
        sub.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.target == "native":
        from edge_agent.bench import native

        result = native.run(
            sizes=args.sizes,
            frames=args.frames,
            seed=args.seed,
            with_reference=not args.no_reference,
            topk_n=args.topk_rows,
        )
        return emit(args, result, native.format_table(result))
    if args.target == "tracking":
        from edge_agent.bench import tracking

        result = tracking.run(seeds=args.seed, rates=args.fps)
        return emit(args, result, tracking.format_table(result))
    if args.target == "ingest":
        from edge_agent.bench import ingest

        rt = runtime(args, **({"detector": {"type": args.detector}} if args.detector else {}))
        result = ingest.run(args.source, rt.config, rt.models)
        return emit(args, result, ingest.format_table(result))
    if args.target == "node":
        from edge_agent.bench import node

        rt = runtime(args)
        result = node.run(
            args.videos, rt.config, rt.models, streams=args.streams, seconds=args.seconds, broker_url=args.broker
        )
        return emit(args, result, node.format_table(result))
    if args.target == "retrieval":
        from edge_agent.bench import retrieval

        result = retrieval.run(sizes=tuple(args.observations))
        return emit(args, result, retrieval.format_table(result))
    if args.target == "month":
        from edge_agent.bench import month

        result = month.run(days=args.days, baseline_days=args.baseline_days, clip_seconds=args.clip_seconds)
        return emit(args, result, month.format_table(result))
    from edge_agent.bench import memory

    result = memory.run(sizes=tuple(args.entities), dims=args.dims, probes=args.probes, seed=args.seed)
    return emit(args, result, memory.format_table(result))
