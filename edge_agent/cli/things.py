"""``edge-agent things``: the things the household names. ``enroll NAME --image PHOTO...`` keeps what each photo
shows as that thing's look (a later sighting that looks like it is that thing, by GEB's two thresholds); ``list``;
``forget NAME`` removes the name and the enrolled looks. Naming a seen thing is ``entities rename``.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import asdict
from typing import Any, cast

from edge_agent.cli.common import confirm_help, count, emit, examples, fail, runtime, unconfirmed
from edge_agent.cli.entities import entity_line

__all__ = ["register"]


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    things = commands.add_parser("things", help="the things you name (keys, a bag), known by how they look")
    actions = things.add_subparsers(dest="action", metavar="ACTION", required=True)
    enroll = actions.add_parser(
        "enroll",
        parents=[common],
        help="keep each photo (the thing filling the picture) as NAME's look",
        epilog=examples(
            "edge-agent things enroll keys --image keys-1.jpg keys-2.jpg",
            "# more photos later are added to the looks the keys have",
            "edge-agent things enroll 'blue bag' --image bag.jpg --category backpack --json",
        ),
    )
    enroll.add_argument("name", help="the thing's name, as questions and rules will say it")
    enroll.add_argument(
        "--image", nargs="+", required=True, metavar="FILE", help="photos of the thing, filling most of the picture"
    )
    enroll.add_argument(
        "--category",
        metavar="CAT",
        help="its detector class (cup, backpack, ...); default: the one thing the detector finds in the photos, "
        "else 'object' (then any object that looks like it may be it)",
    )
    listing = actions.add_parser(
        "list",
        parents=[common],
        help="every named thing, its enrolled looks, how often and where it was last seen",
        epilog=examples("edge-agent things list", "edge-agent --home demo-home things list --json"),
    )
    forget = actions.add_parser(
        "forget",
        parents=[common],
        help="remove a thing's name and enrolled looks (asks for --yes)",
        epilog=examples(
            "# says what would be removed, removes nothing",
            "edge-agent things forget keys",
            "edge-agent things forget keys --yes",
        ),
    )
    forget.add_argument("name", help="the name the thing was enrolled (or an entity named) under")
    forget.add_argument("--yes", action="store_true", help=confirm_help("the enrolled looks cannot be restored"))
    for sub in (enroll, listing, forget):
        sub.add_argument("--json", action="store_true", help="print JSON instead of text")
        sub.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from edge_agent.memory import things

    if args.action == "forget" and not args.yes:
        with runtime(args).store(mode="read") as store:
            # named_things holds only named entities: every name is a str
            named = [t for t in things.named_things(store) if cast(str, t.entity.name).lower() == args.name.lower()]
        if not named:
            return fail(f"no thing named {args.name!r} (`edge-agent things list` shows what is named)")
        refs = sum(t.references for t in named)
        return unconfirmed(
            f"Forgetting {args.name!r} would remove the name from {count(len(named), 'entity', 'entities')} and "
            f"{count(refs, 'enrolled look')}; what was seen of it stays, unnamed.\n"
            "Not forgotten yet: add --yes to forget it."
        )
    caller = f"cli (uid {os.getuid()})"
    rt = runtime(args)
    if args.action == "enroll":
        space, vectors, category = _looks_of(rt, args.image, args.category)
    with rt.store(mode="read" if args.action == "list" else "write") as store:
        if args.action == "list":
            found = things.named_things(store)
            lines = [
                f"{entity_line(t.entity)}; {count(t.references, 'enrolled look')}"
                + (f"; last seen on {t.last_camera}" if t.last_camera else "")
                for t in found
            ]
            return emit(args, [asdict(t) for t in found], "\n".join(lines) or "no thing is named yet")
        if args.action == "enroll":
            done = things.enroll(store, args.name, space, vectors, category, caller=caller)
            said = {"new": "a new thing", "existing": "added to"}[done.how]
            return emit(args, asdict(done), f"{said}: {entity_line(done.entity)} (+{count(done.added, 'look')})")
        gone = things.forget(store, args.name, caller=caller)
        return emit(
            args,
            asdict(gone),
            f"forgot {gone.name!r}: {count(len(gone.entities), 'entity', 'entities')} unnamed "
            f"({gone.removed} never seen, removed), {count(gone.references, 'enrolled look')} removed",
        )


def _looks_of(rt: Any, images: list[str], category: str | None) -> tuple[str, Any, str]:
    """(space, (N, D) vectors, category): each photo embedded by the object embedder, in the space association
    compares objects in, cut to the biggest thing the detector boxes in it (a tenth of the photo or more, as a
    sighting's crop is cut), else whole; the category given, else the detector's one non-person class over the
    photos, else 'object'. InvalidInputError names a photo that cannot be read."""
    import cv2
    import numpy as np

    from edge_agent.capture.frames import Frame
    from edge_agent.errors import InvalidInputError
    from edge_agent.perception.detect import kind_of
    from edge_agent.perception.embed import observation_embedding
    from edge_agent.perception.observe import crop

    backends = rt.backends()
    embedder = backends.embedders["object"]
    if backends.space("object") != embedder.space:
        raise InvalidInputError(
            f"objects are compared in {backends.space('object')} (appearance joined with descriptions): "
            "things can be enrolled only where objects are compared by appearance alone"
        )
    pictures = []
    for name in images:
        image = cv2.imread(name) if os.path.isfile(name) else None
        if image is None:
            raise InvalidInputError(f"cannot read {name} as a picture")
        pictures.append(image)
    found: set[str] = set()
    looks = []
    for image in pictures:  # each photo as a sighting's crop: the thing the detector boxes in it, else the whole photo
        dets = backends.detector.detect(Frame(0, 0.0, image))
        things = [i for i in range(len(dets)) if kind_of(dets.category(i)) == "object" and dets.confidence[i] >= 0.3]
        found.update(dets.category(i) for i in things)
        area = image.shape[0] * image.shape[1]
        sizes = {i: float(np.prod(dets.xyxy[i, 2:] - dets.xyxy[i, :2])) for i in things}
        biggest = max(things, key=lambda i: sizes[i], default=None)
        looks.append(crop(image, dets.xyxy[biggest]) if biggest is not None and sizes[biggest] >= 0.1 * area else image)
    if category is None:
        category = found.pop() if len(found) == 1 else "object"
    vectors = np.stack([observation_embedding(embedder, [look]) for look in looks]).astype(np.float32)
    return embedder.space, vectors, category
