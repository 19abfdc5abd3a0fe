"""``edge-agent entities``: what memory holds, and the user's corrections of it (audited with the caller)."""

from __future__ import annotations

import argparse
import os
from dataclasses import asdict
from typing import Any

from edge_agent.cli.common import emit, fail, row_id, runtime, utc

__all__ = ["register"]


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    entities = commands.add_parser("entities", help="inspect and correct the remembered entities")
    actions = entities.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", parents=[common], help="every entity, most recently seen first")
    listing.add_argument("--kind", choices=["person", "animal", "object"])
    show = actions.add_parser("show", parents=[common], help="an entity's biography: observations in time order")
    show.add_argument("entity", type=row_id)
    merge = actions.add_parser("merge", parents=[common], help="move every observation of ABSORB into KEEP")
    merge.add_argument("keep", type=row_id)
    merge.add_argument("absorb", type=row_id)
    merge.add_argument("--force", action="store_true", help="override a 'not the same' constraint")
    split = actions.add_parser(
        "split", parents=[common], help="move the observations from OBSERVATION on to a new entity"
    )
    split.add_argument("entity", type=row_id)
    split.add_argument("observation", type=row_id)
    unmerge = actions.add_parser(
        "unmerge",
        parents=[common],
        help="undo a merge (yours, or association joining two possibly-same entities): its id is in `show`",
    )
    unmerge.add_argument("correction", type=row_id)
    rename = actions.add_parser(
        "rename", parents=[common], help='name an entity ("this is Alice"); --clear removes the name'
    )
    rename.add_argument("entity", type=row_id)
    rename.add_argument("name", nargs="?")
    rename.add_argument("--clear", action="store_true")
    forget = actions.add_parser(
        "forget", parents=[common], help="erase an entity and every trace of it (asks for --yes)"
    )
    forget.add_argument("entity", type=row_id)
    forget.add_argument("--yes", action="store_true", help="confirm: this cannot be undone")
    for sub in (listing, show, merge, split, unmerge, rename, forget):
        sub.add_argument("--json", action="store_true", help="print JSON instead of text")
        sub.set_defaults(handler=run)


def entity_line(e: Any) -> str:
    name = f" {e.name!r}" if e.name else ""
    if not e.observations:  # a person enrolled from pictures, not seen yet
        return f"#{e.id:<6} {e.kind:<7} {e.category:<14}{name} not seen yet"
    return (
        f"#{e.id:<6} {e.kind:<7} {e.category:<14}{name} seen {e.observations}x, "
        f"{utc(e.first_seen)} .. {utc(e.last_seen)} UTC"
    )


def run(args: argparse.Namespace) -> int:
    from edge_agent.memory import corrections

    if args.action == "forget" and not args.yes:
        return fail(f"forgetting entity #{args.entity} erases it for good; run again with --yes")
    if args.action == "rename" and args.clear == (args.name is not None):
        return fail("give either a NAME or --clear")
    caller = f"cli (uid {os.getuid()})"
    out: Any
    with runtime(args).store(mode="read" if args.action in ("list", "show") else "write") as store:
        if args.action == "list":
            found = store.entities(args.kind)
            return emit(args, [asdict(e) for e in found], "\n".join(map(entity_line, found)) or "no entities yet")
        if args.action == "show":
            bio = store.biography(args.entity)
            lines = [entity_line(bio.entity)]
            for o in bio.observations:
                crop = store.media_path(o.crop_path) if o.crop_path else "-"
                lines.append(
                    f"  obs {o.id:<7} {utc(o.t_start)} .. {utc(o.t_end)[11:]}  {o.camera:<12} "
                    f"{o.description or '(no description)'}  crop: {crop}"
                )
            related = store.possibly_same([args.entity])
            for a, b, score in related:
                lines.append(f"  possibly the same as #{b if a == args.entity else a} (similarity {score:.2f})")
            merges = [
                c
                for c in store.corrections()
                if c["action"] in ("merge", "join") and c["details"].get("keep") == args.entity
            ]
            for c in merges:
                d = c["details"]
                lines.append(
                    f"  {c['action']} {c['id']}: #{d['absorb']} joined it ({d['observations_moved']} observations; "
                    f"`entities unmerge {c['id']}` undoes it)"
                )
            out = {
                "entity": asdict(bio.entity),
                "observations": [asdict(o) for o in bio.observations],
                "references": store.reference_ids(args.entity),
                "possibly_same": [{"entity": b if a == args.entity else a, "score": w} for a, b, w in related],
                "merges": merges,
            }
            return emit(args, out, "\n".join(lines))
        if args.action == "merge":
            e = corrections.merge(store, args.keep, args.absorb, force=args.force, caller=caller)
            return emit(args, asdict(e), f"merged #{args.absorb} into {entity_line(e)}")
        if args.action == "split":
            a, b = corrections.split(store, args.entity, args.observation, caller=caller)
            return emit(
                args, {"entity": asdict(a), "new_entity": asdict(b)}, f"{entity_line(a)}\n{entity_line(b)} (new)"
            )
        if args.action == "unmerge":
            a, b = corrections.unmerge(store, args.correction, caller=caller)
            return emit(
                args, {"entity": asdict(a), "new_entity": asdict(b)}, f"{entity_line(a)}\n{entity_line(b)} (new)"
            )
        if args.action == "rename":
            e = corrections.rename(store, args.entity, None if args.clear else args.name, caller=caller)
            return emit(args, asdict(e), entity_line(e))
        report = corrections.forget(store, args.entity, caller=caller)
        return emit(
            args,
            asdict(report),
            f"forgot entity #{report.entity_id}: {report.observations} observations, {report.files} files",
        )
