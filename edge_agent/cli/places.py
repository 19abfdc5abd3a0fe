"""``edge-agent places``: the places memory found for cameras without zones (worn, handheld), and the user
naming them once ("this is the sofa"), merging two that are one, forgetting one (audited with the caller)."""

from __future__ import annotations

import argparse
import os
from dataclasses import asdict
from typing import Any

from edge_agent.cli.common import emit, fail, row_id, runtime, utc

__all__ = ["register"]


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    group = commands.add_parser("places", help="name the places memory found for cameras without zones")
    actions = group.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", parents=[common], help="every place, most observed first, with an example")
    listing.add_argument("--camera")
    name = actions.add_parser("name", parents=[common], help='name a place ("this is the sofa"), before and after')
    name.add_argument("place", type=row_id)
    name.add_argument("name")
    merge = actions.add_parser("merge", parents=[common], help="one place seen two ways: ABSORB becomes KEEP")
    merge.add_argument("keep", type=row_id)
    merge.add_argument("absorb", type=row_id)
    forget = actions.add_parser("forget", parents=[common], help="delete a place; its observations keep no place")
    forget.add_argument("place", type=row_id)
    for sub in (listing, name, merge, forget):
        sub.add_argument("--json", action="store_true", help="print JSON instead of text")
        sub.set_defaults(handler=run)


def place_line(p: Any, crop: str | None) -> str:
    name = repr(p.name) if p.name else "(unnamed)"
    seen = f"{utc(p.first_seen)} .. {utc(p.last_seen)} UTC" if p.first_seen is not None else "no observations"
    example = f"  example: observation {p.example}" + (f", crop {crop}" if crop else "") if p.example else ""
    alike = f" (alike {p.likeness:.2f})" if p.likeness is not None else ""
    return f"place {p.id:<5} {p.camera:<12} {name:<16} {p.observations} observations{alike}, {seen}{example}"


def run(args: argparse.Namespace) -> int:
    from edge_agent.memory import corrections, places

    caller = f"cli (uid {os.getuid()})"
    with runtime(args).store(mode="read" if args.action == "list" else "write") as store:
        if args.action == "list":
            found = places.places(store.db, args.camera)
            lines = []
            for p in found:
                crop = store.observation(p.example).crop_path if p.example else None
                lines.append(place_line(p, str(store.media_path(crop)) if crop else None))
            text = "\n".join(lines) or "no places yet (they are found for cameras without zones)"
            return emit(args, [asdict(p) for p in found], text)
        with store.write():
            if args.action == "name":
                changed = places.name(store.db, args.place, args.name)
                corrections.audit(store, "place name", caller, place=args.place, name=args.name, observations=changed)
                text = f"place {args.place} is {args.name!r}: {changed} observations are there"
                out = {"place": args.place, "name": args.name, "observations": changed}
            elif args.action == "merge":
                if args.keep == args.absorb:
                    return fail("a place cannot be merged into itself")
                moved = places.merge(store.db, args.keep, args.absorb)
                corrections.audit(store, "place merge", caller, keep=args.keep, absorb=args.absorb, observations=moved)
                text = f"merged place {args.absorb} into {args.keep}: {moved} observations moved"
                out = {"keep": args.keep, "absorb": args.absorb, "observations": moved}
            else:
                changed = places.forget(store.db, args.place)
                corrections.audit(store, "place forget", caller, place=args.place, observations=changed)
                text = f"forgot place {args.place}: {changed} observations keep no place"
                out = {"place": args.place, "observations": changed}
        return emit(args, out, text)
