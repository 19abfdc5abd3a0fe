"""A rule's structured predicate: who (subject), what relation to what (object: a category, a named
entity, a named place of the configuration's zones, or a zone drawn in image pixels), for how long,
how many times, at what time of day. One flat JSON object, so that a small LLM can fill it under a
JSON schema and a person can write it by hand:

    {"subject": "dog", "subject_type": "category", "relation": "on", "object": "sofa", "object_type": "place"}
    {"subject": "keys", "subject_type": "entity", "relation": "absent", "absent_for_s": 86400}
    {"subject": "person", "subject_type": "unknown_person", "relation": "appears", "times": 3,
     "within_s": 604800, "per": "episode"}
    {"subject": "keys", "subject_type": "entity", "relation": "near", "object": "door", "object_type": "place",
     "at": "23:00", "negated": true}
"""

from __future__ import annotations

import re
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator

from edge_agent.perception.vocabulary import category_names, category_words, plural

__all__ = ["RELATIONS", "Predicate", "Relation", "category_names", "describe", "several"]

Relation = Literal["on", "in", "near", "enters", "leaves", "appears", "absent"]
RELATIONS: tuple[str, ...] = get_args(Relation)
_NEEDS_OBJECT = {"on", "in", "near"}
#: Relations whose object is optional: without one they are about the camera's view ("the van leaves").
_MAY_TAKE_OBJECT = {"enters", "leaves"}
_CLOCK = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")
#: The subject of "tell me if anything is put on the couch": a thing of any category but a person.
ANY_THING = "thing"


# Words people use for detector categories (COCO names and the synthetic worlds' categories): a word -> the
# categories it may mean. Plurals are read by rule (dogs, buses, couches) except the irregular ones below.
class Predicate(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    subject: str = Field(
        ..., min_length=1, max_length=40, description="a category (dog), an entity's name, 'person', or 'thing' (any)"
    )
    subject_type: Literal["category", "entity", "unknown_person"] = Field(
        "category",
        description=(
            "category: any thing of that category; entity: one remembered entity; unknown_person: an unnamed person"
        ),
    )
    entity_id: int | None = Field(
        None, description="the entity, for subject_type 'entity' (resolved from its name when the rule is added)"
    )
    colours: tuple[str, ...] = Field(
        (), max_length=4, description="subject_type 'category': only things described in one of these colours"
    )
    pattern: str = Field(
        "", max_length=20, description="subject_type 'category': only things described with this pattern (striped, ...)"
    )
    relation: Relation
    object: str | None = Field(
        None,
        max_length=40,
        description="what the subject is on / in / near / enters / leaves (none: enters or leaves the camera's view)",
    )
    object_type: Literal["category", "entity", "place", "zone"] | None = Field(
        None, description="place: a named zone of the configuration; zone: the box given in `zone`"
    )
    object_colours: tuple[str, ...] = Field(
        (), max_length=4, description="object_type 'category': only objects described in one of these colours"
    )
    object_entity_id: int | None = None
    zone: tuple[float, float, float, float] | None = Field(
        None, description="x1, y1, x2, y2 in image pixels (object_type 'zone')"
    )
    camera: str | None = Field(None, max_length=80, description="only this camera")
    min_duration_s: float = Field(0.0, ge=0, description="the condition must hold this long before it fires")
    absent_for_s: float | None = Field(
        None, gt=0, description="relation 'absent': fires once the subject is unseen this long"
    )
    times: int | None = Field(
        None, ge=2, le=1000, description="fires at the n-th appearance within `within_s` (entity-aware)"
    )
    within_s: float | None = Field(None, gt=0, description="the window `times` is counted over")
    at_once: int | None = Field(
        None,
        ge=2,
        le=1000,
        description="fires when at least this many of the subject are there at the same moment on one camera (in "
        "view, or on / in / near the object): 'more than 3 people in the living room' is 4",
    )
    per: Literal["episode", "day"] = Field(
        "episode", description="what `times` counts: separate visits, or distinct days"
    )
    window: tuple[str, str] | None = Field(
        None,
        description="time of day it applies, 'HH:MM' to 'HH:MM' (may wrap past midnight); relation 'absent': told "
        "only in it",
    )
    days: tuple[Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"], ...] = Field(
        (), max_length=7, description="days of the week it applies ('mon' ... 'sun', local time; none: every day)"
    )
    at: str | None = Field(
        None,
        description="a check once a day at this time, 'HH:MM': where the subject was last seen by then decides "
        "(relations on, in, near, or appears with a camera)",
    )
    negated: bool = Field(
        False, description="with `at`: fires when the subject is NOT on / in / near the object (or not on the camera)"
    )

    @model_validator(mode="after")
    def _consistent(self) -> Predicate:
        if self.relation in _NEEDS_OBJECT:
            if not self.object_type:
                raise ValueError(f"relation {self.relation!r} needs an object and its object_type")
            if self.object_type == "zone" and self.zone is None:
                raise ValueError("object_type 'zone' needs `zone`: [x1, y1, x2, y2] in image pixels")
            if self.object_type != "zone" and not self.object:
                raise ValueError(f"relation {self.relation!r} needs an object")
        elif self.relation in _MAY_TAKE_OBJECT:
            if self.object_type == "zone" and self.zone is None:
                raise ValueError("object_type 'zone' needs `zone`: [x1, y1, x2, y2] in image pixels")
            if bool(self.object_type) != bool(self.object or self.object_type == "zone"):
                raise ValueError(f"relation {self.relation!r}: give both object and object_type, or neither")
        elif self.object_type is not None or self.object:
            raise ValueError(f"relation {self.relation!r} takes no object")
        if self.object_colours and self.object_type != "category":
            raise ValueError("object_colours are of a kind of thing: object_type 'category'")
        if self.zone is not None and not (self.zone[0] < self.zone[2] and self.zone[1] < self.zone[3]):
            raise ValueError(f"zone {list(self.zone)} is not [x1, y1, x2, y2] with x1 < x2 and y1 < y2")
        if (self.relation == "absent") != (self.absent_for_s is not None):
            raise ValueError("relation 'absent' needs absent_for_s, and absent_for_s needs relation 'absent'")
        if (self.times is None) != (self.within_s is None):
            raise ValueError("`times` and `within_s` go together")
        if self.times is not None and self.relation not in ("appears", "enters"):
            raise ValueError("`times` counts appearances: use it with relation 'appears' or 'enters'")
        if self.at_once is not None:
            if self.subject_type == "entity":
                raise ValueError("`at_once` counts things of a kind at the same moment: not one entity")
            if self.relation not in ("appears", "on", "in", "near") or self.times is not None or self.at is not None:
                raise ValueError("`at_once` goes with relation appears, on, in or near, without times or at")
        if self.subject_type == "unknown_person" and self.subject != "person":
            raise ValueError("subject_type 'unknown_person' has subject 'person'")
        if self.at is not None:
            if not _CLOCK.match(self.at):
                raise ValueError(f"`at` is a time 'HH:MM', got {self.at!r}")
            if self.relation not in _NEEDS_OBJECT and not (self.relation == "appears" and self.camera):
                raise ValueError("`at` checks where the subject is: relation on, in or near, or appears with a camera")
            if self.window is not None or self.times is not None or self.min_duration_s:
                raise ValueError("`at` is a moment: it does not go with window, times or min_duration_s")
        elif self.negated:
            raise ValueError("`negated` needs `at`: the time of day to check that the subject is not there")
        if self.window is not None:
            for clock in self.window:
                if not _CLOCK.match(clock):
                    raise ValueError(f"window times are 'HH:MM', got {clock!r}")
        return self


def _span(seconds: float) -> str:
    for unit, length in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= length and seconds % length == 0:
            n = int(seconds // length)
            return f"{n} {unit}{'s' if n != 1 else ''}"
    return f"{seconds:g} s"


def describe(p: Predicate) -> str:
    """The predicate read back in words, for the user to confirm."""
    if p.subject_type == "unknown_person":
        who = "an unknown (unnamed) person"
    elif p.subject_type == "entity":
        who = f"entity #{p.entity_id} ({p.subject!r})" if p.entity_id is not None else f"the entity named {p.subject!r}"
    else:
        looks = " ".join(w for w in (" or ".join(p.colours), p.pattern) if w)
        who = f"any {looks + ' ' if looks else ''}{p.subject}"
        meant = category_words().get(p.subject.lower(), ())
        if len(meant) > 1 and p.subject.lower() not in meant:  # "any van (a truck or car)": what it will fire on
            who += f" (a {' or '.join(meant)})"
    if p.relation == "absent" and p.subject_type == "category":  # the kind as a whole: none of them seen
        looks = " ".join(w for w in (" or ".join(p.colours), p.pattern) if w)  # "no white truck"
        who, what = (
            f"no {looks + ' ' if looks else ''}{p.subject}",
            f"has been seen for {_span(float(p.absent_for_s or 0))}",
        )
    elif p.relation == "absent":
        what = f"has not been seen for {_span(float(p.absent_for_s or 0))}"
    elif p.relation == "appears":
        what = "appears"
    elif p.relation in _MAY_TAKE_OBJECT and not p.object_type:
        what = {"enters": "comes into view", "leaves": "leaves the view"}[p.relation]
    else:
        if p.object_type == "zone":
            target = f"the zone {list(p.zone or ())}"
        elif p.object_type == "place":
            target = f"the place {p.object!r}"
        elif p.object_type == "entity":
            target = (
                f"entity #{p.object_entity_id} ({p.object!r})"
                if p.object_entity_id is not None
                else f"the entity {p.object!r}"
            )
        else:
            target = f"any {' or '.join(p.object_colours) + ' ' if p.object_colours else ''}{p.object}"
            meant = category_words().get(str(p.object).lower(), ())
            if meant and str(p.object).lower() not in meant:  # "any desk (a dining table)": what it will look for
                target += f" (a {' or '.join(meant)})"
        what = (
            {"on": "is on", "in": "is in", "near": "is near", "enters": "enters", "leaves": "leaves"}[p.relation]
            + " "
            + target
        )
    if p.at is not None:
        if p.relation == "appears":
            what = f"is seen on camera {p.camera!r}"
        where = what.replace("is ", "is not ", 1) if p.negated else what
        if p.negated and p.subject_type != "entity" and who.startswith("any "):  # none of the kind is there
            who, where = "no " + who[len("any ") :], what
        return f"every day at {p.at}, if {who} {where} (where it was last seen by then)"
    if p.at_once is not None:  # "when 4 or more people are in view together"
        who = f"{p.at_once} or more {several(p)}"
        what = "are in view together" if p.relation == "appears" else what.replace("is ", "are ", 1) + " together"
    parts = [f"when {who} {what}"]
    if p.min_duration_s:
        parts.append(f"for at least {_span(p.min_duration_s)}")
    if p.times is not None:
        parts.append(
            f"for the {_ordinal(p.times)} time ({'distinct days' if p.per == 'day' else 'separate visits'} of one "
            f"{'thing' if p.subject_type == 'category' else 'entity'}) "
            f"within {_span(float(p.within_s or 0))}"
        )
    if p.window is not None:
        parts.append(f"between {p.window[0]} and {p.window[1]}")
    if p.days:
        parts.append(f"on {_days(p.days)}")
    if p.camera:
        parts.append(f"on camera {p.camera!r}")
    return ", ".join(parts)


def _days(days: tuple[str, ...]) -> str:
    named = {("sat", "sun"): "weekends", ("mon", "tue", "wed", "thu", "fri"): "weekdays"}
    return named.get(tuple(days), ", ".join(d.capitalize() for d in days))


def several(p: Predicate) -> str:
    """The subject said of several: "red cars", "people", "unknown (unnamed) people"."""
    looks = " ".join(w for w in (" or ".join(p.colours), p.pattern) if w)
    said = p.subject.lower()
    kind = plural(said) if not any(plural(c) == said for c in category_words().get(said, ())) else said
    kind = "unknown (unnamed) people" if p.subject_type == "unknown_person" else kind
    return f"{looks + ' ' if looks else ''}{kind}"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
