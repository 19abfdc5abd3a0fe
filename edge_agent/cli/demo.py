"""``edge-agent demo``: writes the generated demo scene (two look-alike mugs on a kitchen counter over two days)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from edge_agent.cli.common import examples

__all__ = ["register"]


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    demo = commands.add_parser(
        "demo",
        help="write the generated demo scene (two look-alike mugs over two days)",
        description="Writes the generated demo scene, needing no camera, video or model: a kitchen counter on two "
        "days with two red mugs that look alike and a person walking past, as two MOT-format sequences (day1, "
        "day2) whose ground-truth boxes ingest --detector gt replays. Prints the two folders.",
        epilog=examples(
            "edge-agent demo demo-scene",
            "# then a memory of it, and a question",
            "edge-agent --home demo-home ingest demo-scene/day1 --detector gt --start 2026-03-02T08:00:00Z",
            'edge-agent --home demo-home ask "where was the red cup last seen?"',
        ),
    )
    demo.add_argument("folder", type=Path, help="a folder to write the scene into (made if missing)")
    demo.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from edge_agent.demo import write_demo_scene

    for path in write_demo_scene(args.folder):
        print(path)
    return 0
