"""``edge-agent demo``: writes the generated demo scene (two look-alike mugs on a kitchen counter over two days)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

__all__ = ["register"]


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    demo = commands.add_parser("demo", help="write the generated demo scene (two look-alike mugs over two days)")
    demo.add_argument("folder", type=Path)
    demo.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from edge_agent.demo import write_demo_scene

    for path in write_demo_scene(args.folder):
        print(path)
    return 0
