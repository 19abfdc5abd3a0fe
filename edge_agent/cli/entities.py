"""``edge-agent entities``: what memory holds, and the user's corrections of it (audited with the caller)."""

from __future__ import annotations

import argparse
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from edge_agent.cli.common import (
    NEEDS_CONFIRMATION,
    confirm_help,
    count,
    emit,
    examples,
    fail,
    row_id,
    runtime,
    unconfirmed,
    utc,
)
from edge_agent.cli.lookup import entity_ref, resolve, where

__all__ = ["register"]

_ENTITY = "an id (12 or #12), the name you gave it, or what it looks like ('white van', as `entities list` says it)"


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    entities = commands.add_parser("entities", help="inspect and correct the remembered entities")
    actions = entities.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = actions.add_parser(
        "list",
        parents=[common],
        help="every entity, most recently seen first",
        epilog=examples("edge-agent entities list", "edge-agent entities list --kind person --json"),
    )
    listing.add_argument("--kind", choices=["person", "animal", "object"], help="only entities of this kind")
    show = actions.add_parser(
        "show",
        parents=[common],
        help="an entity's biography: observations in time order",
        epilog=examples(
            "edge-agent entities show 12",
            "# by what it looks like, when that fits one entity only",
            'edge-agent entities show "the truck on street" --json',
        ),
    )
    show.add_argument("entity", type=entity_ref, help=_ENTITY)
    merge = actions.add_parser(
        "merge",
        parents=[common],
        help="move every observation of ABSORB into KEEP",
        epilog=examples(
            "edge-agent entities merge 12 15",
            "# also where memory holds the two as 'not the same' (an earlier split)",
            "edge-agent entities merge Alice 15 --force",
        ),
    )
    merge.add_argument("keep", type=entity_ref, help=f"the entity that stays: {_ENTITY}")
    merge.add_argument("absorb", type=entity_ref, help="the entity that joins it, named the same ways")
    merge.add_argument("--force", action="store_true", help="override a 'not the same' constraint")
    split = actions.add_parser(
        "split",
        parents=[common],
        help="move the observations from OBSERVATION on to a new entity",
        epilog=examples(
            "# the observations from 40 on were someone else: they become a new entity",
            "edge-agent entities split 12 40",
            "edge-agent entities split Alice 40 --json",
        ),
    )
    split.add_argument("entity", type=entity_ref, help=_ENTITY)
    split.add_argument(
        "observation", type=row_id, help="the first observation to move (its id, as `entities show` lists it)"
    )
    unmerge = actions.add_parser(
        "unmerge",
        parents=[common],
        help="undo a merge (yours, or association joining two possibly-same entities): its id is in `show`",
        epilog=examples(
            "# `entities show 12` lists the merges into 12 with their correction ids",
            "edge-agent entities unmerge 3",
            "edge-agent entities unmerge 3 --json",
        ),
    )
    unmerge.add_argument("correction", type=row_id, help="the merge's correction id, as `entities show` lists it")
    rename = actions.add_parser(
        "rename",
        parents=[common],
        help='name an entity ("this is Alice"); --clear removes the name',
        epilog=examples(
            "edge-agent entities rename 12 Alice",
            'edge-agent entities rename "red striped cup" "Grandma\'s mug"',
            "edge-agent entities rename Alice --clear",
        ),
    )
    rename.add_argument("entity", type=entity_ref, help=_ENTITY)
    rename.add_argument(
        "name", nargs="?", help='the new name, used in answers and questions ("where is Alice?"); not with --clear'
    )
    rename.add_argument("--clear", action="store_true", help="remove the entity's name instead")
    forget = actions.add_parser(
        "forget",
        parents=[common],
        help="erase an entity and every trace of it (asks for --yes)",
        epilog=examples(
            "# says what would be erased, erases nothing",
            "edge-agent entities forget 12",
            "edge-agent entities forget 12 --yes",
        ),
    )
    forget.add_argument("entity", type=entity_ref, help=_ENTITY)
    forget.add_argument("--yes", action="store_true", help=confirm_help("this cannot be undone"))
    for sub in (listing, show, merge, split, unmerge, rename, forget):
        sub.add_argument("--json", action="store_true", help="print JSON instead of text")
        sub.set_defaults(handler=run)


def _times(n: int) -> str:
    return "once" if n == 1 else f"{n} times"


def entity_line(e: Any, looks: str = "") -> str:
    """'#3     person in red plain clothes 'Alice', seen 4 times, ...': what it is (``looks``, else its category; the
    category says the kind), its name, how often and when it was seen."""
    name = f" {e.name!r}" if e.name else ""
    if not e.observations:  # a person enrolled from pictures, not seen yet
        return f"#{e.id:<6} {looks or e.category}{name} not seen yet"
    return (
        f"#{e.id:<6} {looks or e.category}{name}, seen {_times(e.observations)}, "
        f"{utc(e.first_seen)} .. {utc(e.last_seen)} UTC"
    )


def overview_lines(found: Sequence[Any]) -> list[str]:
    """``entities list`` as a table, a line each: id, name, what it looks like, where it was last (and its other
    cameras), how often and when last it was seen; each column as wide as its widest cell."""
    rows = []
    for e in found:
        what = (f"{e.name!r} " if e.name else "") + e.label
        if not e.observations and not e.cameras:
            rows.append((f"#{e.id}", what, "not seen yet", "", ""))
            continue
        others = [c for c in e.cameras if c != e.last_camera]
        place = where(e) + (f"; also on {', '.join(others)}" if others else "")
        rows.append((f"#{e.id}", what, place, f"seen {_times(e.observations)}", f"last {utc(e.last_seen)} UTC"))
    widths = [max((len(row[k]) for row in rows), default=0) for k in range(4)]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, [*widths, 0], strict=True)).rstrip() for row in rows]


def run(args: argparse.Namespace) -> int:
    from edge_agent.memory import corrections

    if args.action == "rename" and args.clear == (args.name is not None):
        return fail("give either a NAME or --clear")
    caller = f"cli (uid {os.getuid()})"
    out: Any
    asked = args.action == "forget" and not args.yes  # nothing is written: what would go is shown
    with runtime(args).store(mode="read" if args.action in ("list", "show") or asked else "write") as store:
        for ref in ("entity", "keep", "absorb"):  # a name or a description, as the user gave it, is an id from here
            if ref in vars(args):
                setattr(args, ref, resolve(store, getattr(args, ref)))
        if asked:
            e = store.entity(args.entity)
            return unconfirmed(
                f"Forgetting #{e.id} {e.category}" + (f" {e.name!r}" if e.name else "") + " would erase it and every "
                f"trace of it ({count(e.observations, 'observation')} and their pictures) for good.\n"
                f"Not forgotten yet: add --yes to forget it (exit status {NEEDS_CONFIRMATION} until then)."
            )
        if args.action == "list":
            found = store.entity_overviews(args.kind)
            return emit(
                args,
                [{**asdict(e), "last_place": where(e)} for e in found],
                "\n".join(overview_lines(found)) or "no entities yet",
            )
        if args.action == "show":
            bio = store.biography(args.entity)
            looks = Counter(o.label for o in bio.observations).most_common(1)
            cameras = ", ".join(dict.fromkeys(o.camera for o in reversed(bio.observations)))
            lines = [entity_line(bio.entity, looks[0][0] if looks else "") + (f", on {cameras}" if cameras else "")]
            for o in bio.observations:
                crop = store.media_path(o.crop_path) if o.crop_path else "-"
                lines.append(
                    f"  obs {o.id:<7} {utc(o.t_start)} .. {utc(o.t_end)[11:]}  {o.camera:<12} "
                    f"{o.description or '(no description)'}  crop: {crop}"
                )
            taken = store.taken(args.entity)
            if taken is not None:
                who = store.entity(taken.by_entity_id) if taken.by_entity_id is not None else None
                by = "" if who is None else f" by #{who.id} " + (repr(who.name) if who.name else who.category)
                lines.append(f"  taken {utc(taken.t)}{by}, after obs {taken.observation_id} on {taken.camera}")
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
                    f"  {c['action']} {c['id']}: #{d['absorb']} joined it "
                    f"({count(d['observations_moved'], 'observation')}; `entities unmerge {c['id']}` undoes it)"
                )
            out = {
                "entity": asdict(bio.entity),
                "observations": [asdict(o) for o in bio.observations],
                "references": store.reference_ids(args.entity),
                "possibly_same": [{"entity": b if a == args.entity else a, "score": w} for a, b, w in related],
                "merges": merges,
                "taken": None if taken is None else asdict(taken),
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
            f"forgot entity #{report.entity_id}: {count(report.observations, 'observation')}, "
            f"{count(report.files, 'file')}",
        )
