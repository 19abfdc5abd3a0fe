"""Migrating a v2 memory to v3, once: v2 kept what the template describer saw only in its sentence
("a striped red cup by the sink, staying in place; with a person"); v3 keeps it in typed fields. The fields
of every stored observation are read back from its sentence where it has the template's shape (category,
colour, pattern, zone or region, motion, the things with it), else left empty; the sentence itself stays
as it was. Traces and facts that kept a place as a phrase ("by the sink") keep the place itself ("sink").
This is the only code that reads meaning out of a description, and it runs inside the migration."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from edge_agent.memory.description import MOTIONS, REGIONS, Description, motion_phrase

if TYPE_CHECKING:
    from edge_agent.memory.db import Database

__all__ = ["from_template", "migrate_to_v3"]

_PATTERNS = ("plain", "striped", "checked", "patterned")
_MOTION = {motion_phrase(m): m for m in MOTIONS}
_WHERE = re.compile(r"^(?P<subject>.*?) (?P<where>by the [a-z ]+|on the [a-z ]+|at the [a-z ]+|in the centre)$")
_COUNTED = re.compile(r"^(?:an? |(?P<n>\d+) )(?P<what>.+)$")


def _place(phrase: str) -> tuple[str, str]:
    """(zone, region) of 'by the sink' / 'at the top left' / 'in the centre'."""
    if phrase == "in the centre":
        return "", "centre"
    place = phrase.split(" the ", 1)[1]
    return ("", place) if place in REGIONS else (place, "")


def _singular(word: str) -> str:
    if word == "people":
        return "person"
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def from_template(text: str, category: str) -> Description:
    """The fields of a template sentence; a sentence of another shape gives only its text back."""
    head, _, company_text = text.partition("; with ")
    subject, _, motion_text = head.rpartition(", ")
    if not subject or motion_text not in _MOTION:
        return Description(text=text)
    match = _WHERE.match(subject)
    if match is None or not match["subject"].startswith(("a ", "an ")):
        return Description(text=text)
    words = match["subject"].split(" ", 1)[1]
    if category == "person":
        person = re.fullmatch(r"person in (?P<colour>[a-z ]+?) (?P<pattern>[a-z]+) clothes", words)
        if words != "person" and (person is None or person["pattern"] not in _PATTERNS):
            return Description(text=text)
        colour, pattern = (person["colour"], person["pattern"]) if person else ("", "")
    else:
        if not words.endswith(category):
            return Description(text=text)
        before = words[: -len(category)].split()
        pattern = before.pop(0) if before and before[0] in _PATTERNS else ""
        colour = " ".join(before)
    company: list[tuple[str, int]] = []
    for part in filter(None, company_text.split(", ")):
        counted = _COUNTED.match(part)
        if counted:
            n = int(counted["n"] or 1)
            company.append((_singular(counted["what"]) if n > 1 else counted["what"], n))
    zone, region = _place(match["where"].replace("on the ", "by the ", 1))
    return Description(
        text=text,
        colours=(colour,) if colour else (),
        pattern=pattern,
        zone=zone,
        region=region,
        motion=_MOTION[motion_text],
        company=tuple(company),
    )


def migrate_to_v3(db: Database) -> None:
    """Fills the v3 fields of the observations a v2 memory holds, and turns places kept as phrases into
    places. Runs inside the migration's transaction."""
    for observation_id, category, text in db.query("SELECT id, category, description FROM observations"):
        d = from_template(text, category)
        if d.motion:
            db.execute(
                "UPDATE observations SET colour = ?, pattern = ?, zone = ?, region = ?, motion = ? WHERE id = ?",
                (d.colour, d.pattern, d.zone, d.region, d.motion, observation_id),
            )
            db.executemany(
                "INSERT OR IGNORE INTO observation_company (observation_id, category, n) VALUES (?, ?, ?)",
                [(observation_id, c, n) for c, n in d.company],
            )
    for trace_id, place in db.query("SELECT id, place FROM traces WHERE place LIKE '% the %'"):
        zone, region = _place(place.replace("on the ", "by the ", 1))
        db.execute("UPDATE traces SET place = ? WHERE id = ?", (zone or region, trace_id))
    for fact_id, value in db.query(
        "SELECT id, value FROM facts WHERE (kind IN ('place', 'state') OR kind LIKE 'habit:%') AND value LIKE '% the %'"
    ):
        zone, region = _place(value.replace("on the ", "by the ", 1))
        db.execute("UPDATE facts SET value = ? WHERE id = ?", (zone or region, fact_id))
