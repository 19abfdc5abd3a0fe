"""The ``edge-agent`` command. argparse (standard library): subcommands and typed options are all this
needs, and it adds no dependency to an embedded install."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from edge_agent import __version__


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="edge-agent",
        description="On-device agent that remembers the physical things a camera sees.",
    )
    parser.add_argument("--version", action="version", version=f"edge-agent {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    bench = commands.add_parser("bench", help="benchmarks with ratios against baselines measured in the same run")
    targets = bench.add_subparsers(dest="target", metavar="TARGET", required=True)
    native = targets.add_parser("native", help="native core: tracker, association test, cosine top-k")
    native.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    native.add_argument("--frames", type=_positive_int, default=1000, help="frames of the synthetic scene (1000)")
    native.add_argument("--sizes", type=_positive_int, nargs="+", default=[10, 50, 100, 200],
                        help="numbers of objects N in the scene (10 50 100 200)")
    native.add_argument("--topk-rows", type=_positive_int, default=100_000, help="rows in the cosine top-k base (100000)")
    native.add_argument("--seed", type=int, default=0)
    native.add_argument("--no-reference", action="store_true", help="skip the slow NumPy reference tracker")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    if args.command == "bench" and args.target == "native":
        from edge_agent.bench import native as bench_native

        result = bench_native.run(
            sizes=args.sizes,
            frames=args.frames,
            seed=args.seed,
            with_reference=not args.no_reference,
            topk_n=args.topk_rows,
        )
        print(json.dumps(result, indent=2) if args.json else bench_native.format_table(result))
        return 0
    parser.error(f"unknown command {args.command}")
    return 2


if __name__ == "__main__":
    sys.exit(main())
