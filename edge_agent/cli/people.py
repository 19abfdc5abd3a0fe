"""``edge-agent people``: the people the household names. ``enroll NAME --image FILE...`` keeps the face in each
picture as that person's (a later sighting whose face matches is them, any day, in any clothes); ``list``;
``forget NAME`` removes the name, the face vectors and the crops that show the face. Faces never leave the device.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import asdict
from typing import Any

from edge_agent.cli.common import confirm_help, count, emit, examples, fail, runtime, unconfirmed
from edge_agent.cli.entities import entity_line

__all__ = ["register"]


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    people = commands.add_parser("people", help="the people you name, known by their faces")
    actions = people.add_subparsers(dest="action", metavar="ACTION", required=True)
    enroll = actions.add_parser(
        "enroll",
        parents=[common],
        help="keep the face in each picture as NAME's (one clear face per picture)",
        epilog=examples(
            "edge-agent people enroll Alice --image alice-1.jpg alice-2.jpg",
            "# more pictures later: they are added to the faces Alice has",
            "edge-agent people enroll Alice --image alice-garden.jpg --json",
        ),
    )
    enroll.add_argument("name", help="the person's name, as questions and rules will say it")
    enroll.add_argument("--image", nargs="+", required=True, metavar="FILE", help="pictures of their face")
    listing = actions.add_parser(
        "list",
        parents=[common],
        help="every named person and how many faces they have",
        epilog=examples("edge-agent people list", "edge-agent --home demo-home people list --json"),
    )
    forget = actions.add_parser(
        "forget",
        parents=[common],
        help="remove a person's name, face vectors and face pictures (asks for --yes)",
        epilog=examples(
            "# says what would be removed, removes nothing",
            "edge-agent people forget Alice",
            "edge-agent people forget Alice --yes",
        ),
    )
    forget.add_argument("name", help="the name the person was enrolled (or an entity named) under")
    forget.add_argument("--yes", action="store_true", help=confirm_help("this cannot be undone"))
    for sub in (enroll, listing, forget):
        sub.add_argument("--json", action="store_true", help="print JSON instead of text")
        sub.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from edge_agent.memory import people

    if args.action == "forget" and not args.yes:
        with runtime(args).store(mode="read") as store:
            named = len(store.entities_named(args.name))
        if not named:
            return fail(f"no person named {args.name!r} (`edge-agent people list` shows who is named)")
        return unconfirmed(
            f"Forgetting who {args.name!r} is would remove the name from {count(named, 'entity', 'entities')}, "
            "every face vector of them and the pictures that show the face, for good.\n"
            "Not forgotten yet: add --yes to forget it."
        )
    caller = f"cli (uid {os.getuid()})"
    rt = runtime(args)
    if args.action == "enroll":
        space, faces = _faces_of(rt, args.image)
    with rt.store(mode="read" if args.action == "list" else "write") as store:
        if args.action == "list":
            found = people.named_people(store)
            lines = [f"{entity_line(p.entity)}; {count(p.faces, 'face')} ({p.enrolled} enrolled)" for p in found]
            return emit(args, [asdict(p) for p in found], "\n".join(lines) or "no one is named yet")
        if args.action == "enroll":
            done = people.enroll(store, args.name, space, faces, caller=caller)
            said = {"new": "a new person", "existing": "added to", "recognised": "recognised and named"}[done.how]
            return emit(args, asdict(done), f"{said}: {entity_line(done.entity)} (+{count(done.added, 'face')})")
        gone = people.forget(store, args.name, caller=caller)
        return emit(
            args,
            asdict(gone),
            f"forgot who {gone.name!r} is: {count(len(gone.entities), 'entity', 'entities')} unnamed, "
            f"{count(gone.faces, 'face vector')} and {count(gone.pictures, 'picture')} removed",
        )


def _faces_of(rt: Any, images: list[str]) -> tuple[str, Any]:
    """(space, (F, D) vectors): the one good face of each picture; InvalidInputError names a picture without one."""
    import cv2
    import numpy as np

    from edge_agent.errors import InvalidInputError
    from edge_agent.perception.backends import face_embedder

    embedder = face_embedder(rt.config.faces, rt.models, required=True)
    assert embedder is not None  # required=True raises ModelError instead of returning None
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
