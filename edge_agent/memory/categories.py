"""Which detector categories may be one physical thing: GEB section 3.3's association compares
appearance only, so a couch entity could absorb a "cell phone" track whose crop embeds close to it.
A candidate entity qualifies only when its category is compatible with the observation's.

Compatible means the same category, or two categories of one group of :data:`CONFUSABLE`: COCO-80
classes that a small detector (YOLOX-nano) swaps on one physical thing from one clip to the next, so
that refusing them would split an entity. The groups are disjoint, so compatibility is an equivalence.
A category outside every group (or outside COCO: a synthetic world's "keys") is compatible only with
itself. An entity keeps the category of its first observation when a confusable one joins it (no
majority vote: the entity's category does not flip between a user's questions or rules, and a group
being an equivalence, the first category admits exactly what any member would)."""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["CONFUSABLE", "compatible", "group_of"]

#: Groups of detector classes confusable on one thing; each class in at most one group. Kept small: a
#: group admits joins (the similarity thresholds and the separation veto still apply) and so weakens the
#: category veto for its members. Left out on purpose: bottle (its neck sets it apart from cups), keyboard
#: (a laptop's keys, but never a tv's), bicycle/motorcycle and the farm animals (not a home camera's
#: confusions), teddy bear with dog/cat (an object, never a candidate for an animal: the KNN is per kind).
CONFUSABLE: tuple[tuple[str, ...], ...] = (
    ("car", "truck", "bus"),  # vans, SUVs and pickups are labelled car or truck, minibuses bus or truck
    ("dog", "cat"),  # small pets at night, under infrared and from behind
    ("backpack", "handbag", "suitcase"),  # bags are COCO's most confused accessory classes
    ("cup", "bowl", "wine glass", "vase"),  # a mug from above is a bowl, a tumbler a glass, a jar a vase
    ("chair", "couch", "bed", "bench"),  # an armchair is chair or couch; a sofa bed and a bench the same
    ("tv", "laptop"),  # a monitor and an open laptop's screen
    ("cell phone", "remote"),  # a dark hand-held rectangle
    ("microwave", "oven"),  # a box with a door window
)

_GROUP: Mapping[str, int] = {category: k for k, group in enumerate(CONFUSABLE) for category in group}


def group_of(category: str) -> tuple[str, ...]:
    """The categories one thing of ``category`` may be detected as (itself alone when in no group)."""
    k = _GROUP.get(category.lower())
    return (category.lower(),) if k is None else CONFUSABLE[k]


def compatible(a: str, b: str) -> bool:
    """Whether things detected as ``a`` and ``b`` may be one entity."""
    a, b = a.lower(), b.lower()
    if a == b:
        return True
    k = _GROUP.get(a)
    return k is not None and k == _GROUP.get(b)
