"""``edge-agent places``: the places memory found for cameras without zones (worn, handheld), and the user
naming them once ("this is the sofa"), merging two that are one, forgetting one (audited with the caller)."""

from __future__ import annotations

import argparse
import os
from dataclasses import asdict
from typing import Any

from edge_agent.cli.common import count, emit, examples, fail, row_id, runtime, utc

__all__ = ["register"]


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    group = commands.add_parser("places", help="name the places memory found for cameras without zones")
    actions = group.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = actions.add_parser(
        "list",
        parents=[common],
        help="every place, most observed first, with an example",
        epilog=examples("edge-agent places list", "edge-agent places list --camera street --json"),
    )
    listing.add_argument("--camera", help="only this camera's places")
    name = actions.add_parser(
        "name",
        parents=[common],
        help='name a place ("this is the sofa"), before and after',
        epilog=examples("edge-agent places name 3 sofa", 'edge-agent places name 7 "front door" --json'),
    )
    name.add_argument("place", type=row_id, help="the place's id, as `places list` shows it")
    name.add_argument("name", help='what to call it; questions and rules can then say it ("on the sofa")')
    merge = actions.add_parser(
        "merge",
        parents=[common],
        help="one place seen two ways: ABSORB becomes KEEP",
        epilog=examples("edge-agent places merge 3 7", "edge-agent places merge 3 7 --json"),
    )
    merge.add_argument("keep", type=row_id, help="the place that stays (its id)")
    merge.add_argument("absorb", type=row_id, help="the place whose observations join it (its id)")
    forget = actions.add_parser(
        "forget",
        parents=[common],
        help="delete a place; its observations keep no place",
        epilog=examples("edge-agent places forget 7", "edge-agent places forget 7 --json"),
    )
    forget.add_argument("place", type=row_id, help="the place's id, as `places list` shows it")
    for sub in (listing, name, merge, forget):
        sub.add_argument("--json", action="store_true", help="print JSON instead of text")
        sub.set_defaults(handler=run)


#: Said under a listing with an unnamed place: where places come from, and how to name one.
NAMING_HINT = (
    "Places are learned for cameras with no zones drawn ([zones.CAMERA] in the configuration). Name one with "
    '`edge-agent places name ID NAME` ("this is the sofa"); one place seen two ways: `places merge KEEP ABSORB`.'
)


def place_line(p: Any, crop: str | None) -> str:
    name = repr(p.name) if p.name else "(unnamed)"
    seen = f"{utc(p.first_seen)} .. {utc(p.last_seen)} UTC" if p.first_seen is not None else "not seen since"
    example = f"; example: observation {p.example}" + (f", crop {crop}" if crop else "") if p.example else ""
    alike = f" (alike {p.likeness:.2f})" if p.likeness is not None else ""
    return f"  place {p.id:<5} {name:<16} {count(p.observations, 'observation')}{alike}, {seen}{example}"


def listing(found: list[Any], crops: dict[int, str | None]) -> str:
    """The places grouped by camera (the camera with the most observed place first), each camera's count and how
    many are named, and :data:`NAMING_HINT` while one is unnamed."""
    cameras: dict[str, list[Any]] = {}
    for p in found:
        cameras.setdefault(p.camera, []).append(p)
    lines = []
    for camera, its in cameras.items():
        named = sum(1 for p in its if p.name)
        lines.append(f"{camera}: {count(len(its), 'place')}, {'none' if not named else named} named")
        lines += [place_line(p, crops.get(p.id)) for p in its]
    if any(not p.name for p in found):
        lines.append(NAMING_HINT)
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from edge_agent.memory import corrections, places

    caller = f"cli (uid {os.getuid()})"
    with runtime(args).store(mode="read" if args.action == "list" else "write") as store:
        if args.action == "list":
            found = places.places(store, args.camera)
            crops = {}
            for p in found:
                crop = store.observation(p.example).crop_path if p.example else None
                crops[p.id] = str(store.media_path(crop)) if crop else None
            text = listing(found, crops) or "no places yet (they are found for cameras without zones)"
            return emit(args, [asdict(p) for p in found], text)
        with store.write():
            if args.action == "name":
                changed = places.name(store, args.place, args.name)
                corrections.audit(store, "place name", caller, place=args.place, name=args.name, observations=changed)
                are = "is" if changed == 1 else "are"
                text = f"place {args.place} is {args.name!r}: {count(changed, 'observation')} {are} there"
                out = {"place": args.place, "name": args.name, "observations": changed}
            elif args.action == "merge":
                if args.keep == args.absorb:
                    return fail("a place cannot be merged into itself")
                moved = places.merge(store, args.keep, args.absorb)
                corrections.audit(store, "place merge", caller, keep=args.keep, absorb=args.absorb, observations=moved)
                text = f"merged place {args.absorb} into {args.keep}: {count(moved, 'observation')} moved"
                out = {"keep": args.keep, "absorb": args.absorb, "observations": moved}
            else:
                changed = places.forget(store, args.place)
                corrections.audit(store, "place forget", caller, place=args.place, observations=changed)
                keep = "keeps" if changed == 1 else "keep"
                text = f"forgot place {args.place}: {count(changed, 'observation')} {keep} no place"
                out = {"place": args.place, "observations": changed}
        return emit(args, out, text)
