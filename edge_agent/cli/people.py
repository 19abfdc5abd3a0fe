"""``edge-agent people``: the people the household names. ``enroll NAME --image FILE...`` keeps the face in each
picture as that person's (a later sighting whose face matches is them, any day, in any clothes); ``list``;
``forget NAME`` removes the name, the face vectors and the crops that show the face. Faces never leave the device.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import asdict
from typing import Any

from edge_agent.cli.common import emit, fail, runtime
from edge_agent.cli.entities import entity_line

__all__ = ["register"]


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    people = commands.add_parser("people", help="the people you name, known by their faces")
    actions = people.add_subparsers(dest="action", metavar="ACTION", required=True)
    enroll = actions.add_parser(
        "enroll", parents=[common], help="keep the face in each picture as NAME's (one clear face per picture)"
    )
    enroll.add_argument("name")
    enroll.add_argument("--image", nargs="+", required=True, metavar="FILE", help="pictures of their face")
    listing = actions.add_parser("list", parents=[common], help="every named person and how many faces they have")
    forget = actions.add_parser(
        "forget", parents=[common], help="remove a person's name, face vectors and face pictures (asks for --yes)"
    )
    forget.add_argument("name")
    forget.add_argument("--yes", action="store_true", help="confirm: this cannot be undone")
    for sub in (enroll, listing, forget):
        sub.add_argument("--json", action="store_true", help="print JSON instead of text")
        sub.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from edge_agent.memory import people

    if args.action == "forget" and not args.yes:
        return fail(f"forgetting {args.name!r} removes their name and faces for good; run again with --yes")
    caller = f"cli (uid {os.getuid()})"
    rt = runtime(args)
    if args.action == "enroll":
        space, faces = _faces_of(rt, args.image)
    with rt.store(mode="read" if args.action == "list" else "write") as store:
        if args.action == "list":
            found = people.named_people(store)
            lines = [f"{entity_line(p.entity)}; {p.faces} faces ({p.enrolled} enrolled)" for p in found]
            return emit(args, [asdict(p) for p in found], "\n".join(lines) or "no one is named yet")
        if args.action == "enroll":
            done = people.enroll(store, args.name, space, faces, caller=caller)
            said = {"new": "a new person", "existing": "added to", "recognised": "recognised and named"}[done.how]
            return emit(args, asdict(done), f"{said}: {entity_line(done.entity)} (+{done.added} faces)")
        gone = people.forget(store, args.name, caller=caller)
        return emit(
            args,
            asdict(gone),
            f"forgot who {gone.name!r} is: {len(gone.entities)} entities unnamed, {gone.faces} face vectors and "
            f"{gone.pictures} pictures removed",
        )


def _faces_of(rt: Any, images: list[str]) -> tuple[str, Any]:
    """(space, (F, D) vectors): the one good face of each picture; InvalidInputError names a picture without one."""
    import cv2
    import numpy as np

    from edge_agent.errors import InvalidInputError
    from edge_agent.perception.backends import face_embedder

    embedder = face_embedder(rt.config.faces, rt.models, required=True)
    vectors = []
    for name in images:
        image = cv2.imread(name) if os.path.isfile(name) else None
        if image is None:
            raise InvalidInputError(f"cannot read {name} as a picture")
        found = embedder.detect(image)
        if not found:
            raise InvalidInputError(
                f"{name}: no face big, sharp and frontal enough (at least {rt.config.faces.min_size:g} px across)"
            )
        if len(found) > 1 and found[1].quality > 0.5 * found[0].quality:
            raise InvalidInputError(f"{name}: {len(found)} faces; give a picture of this person alone (or crop it)")
        vectors.append(found[0].vector)
    return embedder.space, np.stack(vectors)
