"""What a describer says of one observation, as typed fields (schema v3): the colour names and the measured
colour, the pattern, the size, where it was (a named zone of the camera, else a region of the image), how it
moved, and the other categories in view; plus a free sentence for reading and text search. Memory keeps the
fields in columns and child rows; facts, traces, episodes, rules and answers read the fields, never the
sentence. The words used to show a field ("by the sink", "staying in place", "striped red cup") are made
here, from the fields, in one place."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, get_args

__all__ = [
    "MOTIONS",
    "REGIONS",
    "SIZES",
    "Description",
    "Placed",
    "company_phrase",
    "counted",
    "label",
    "motion_phrase",
    "place_phrase",
]

#: The nine parts of the image a box centre falls in, when no named zone holds it.
REGIONS = (
    "top left",
    "top centre",
    "top right",
    "middle left",
    "centre",
    "middle right",
    "bottom left",
    "bottom centre",
    "bottom right",
)
Motion = Literal["brief", "still", "moving left", "moving right", "moving up", "moving down"]
MOTIONS: tuple[str, ...] = get_args(Motion)
SIZES = ("small", "medium", "large")  #: the box's share of the frame (square root of its area share)


def counted(category: str, n: int = 2) -> str:
    """'a cup', '3 cups', '2 people'."""
    if n == 1:
        return f"a {category}"
    many = category if category.endswith("s") else "people" if category == "person" else category + "s"
    return f"{n} {many}"


class Placed:
    """Where a described thing was and whether it moved, from its ``zone``, ``region`` and ``motion`` fields (a
    Description, or an Observation read from memory)."""

    zone: str
    region: str
    motion: str

    @property
    def place(self) -> str:
        """The named zone, else the image region; '' when unknown."""
        return self.zone or self.region

    @property
    def moving(self) -> bool:
        return self.motion.startswith("moving")


@dataclass(frozen=True)
class Description(Placed):
    """An observation as described. ``colours``: colour names, the main one first (at most two);
    ``rgb``: the measured colour (0-255 each) the names were given for; ``company``: the other categories
    seen in the clip, with how many of each. Empty fields are unknown."""

    text: str = ""
    colours: tuple[str, ...] = ()
    rgb: tuple[int, int, int] | None = None
    pattern: str = ""
    size: str = ""
    zone: str = ""
    region: str = ""
    motion: str = ""
    company: tuple[tuple[str, int], ...] = ()

    @property
    def colour(self) -> str:
        return self.colours[0] if self.colours else ""

    def state(self) -> tuple[object, ...]:
        """What must stay the same for two sightings to be one trace (one state of the entity)."""
        if not (self.place or self.motion or self.colours or self.pattern or self.company):
            return (self.text,)  # a sentence with no fields: the same words
        return (self.place, self.motion, self.colours, self.pattern, tuple(sorted(self.company)))

    def sentence(self, category: str) -> str:
        """The fields in words: 'a striped red cup by the sink, staying in place; with a person'."""
        text = f"a {label(category, self.colours, self.pattern)}"
        where = place_phrase(self.place)
        text += f" {where}" if where else ""
        text += f", {motion_phrase(self.motion)}" if self.motion else ""
        with_ = company_phrase(self.company)
        return text + (f"; with {with_}" if with_ else "")


def label(category: str, colours: Iterable[str] = (), pattern: str = "") -> str:
    """What a thing is called from its fields: 'striped red cup', 'person in blue plain clothes', 'cup'."""
    colour = next(iter(colours), "")
    if category == "person":
        return f"person in {colour} {pattern or 'plain'} clothes" if colour else "person"
    return " ".join(w for w in (pattern, colour, category) if w)


def place_phrase(place: str) -> str:
    """'by the sink' for a named zone, 'at the top left' / 'in the centre' for a region, '' for none."""
    if not place:
        return ""
    if place == "centre":
        return "in the centre"
    return f"at the {place}" if place in REGIONS else f"by the {place}"


def motion_phrase(motion: str) -> str:
    return {"brief": "seen briefly", "still": "staying in place"}.get(motion, motion)


def company_phrase(company: Iterable[tuple[str, int]]) -> str:
    return ", ".join(counted(c, n) for c, n in sorted(company))
