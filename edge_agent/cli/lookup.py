"""Naming an entity on the command line: by its id ("12", "#12"), by the name the user gave it ("Alice", any case),
else by what it looks like ("white van", "the striped car on street") when that fits one entity only; several
fits are listed with their ids, none is one line naming the word. One resolver for every command that takes an
entity, and the short words an entity is shown with (what it looks like, where it was last)."""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from typing import Any

from edge_agent.cli.common import row_id
from edge_agent.errors import InvalidInputError
from edge_agent.language.lexicon import COLOUR_WORDS, PATTERN_WORDS
from edge_agent.memory.description import place_phrase
from edge_agent.memory.records import KINDS, EntityOverview, NotFoundError
from edge_agent.perception.vocabulary import categories_in

__all__ = ["described_as", "entity_ref", "resolve", "shown", "where"]

#: Words a description may hold that say nothing of the thing ("the person in blue clothes on street").
_FILLER = frozenset({"the", "a", "an", "one", "that", "this", "in", "on", "at", "by", "with", "wearing", "clothes"})
_SHOWN = 5  #: candidates an ambiguous name lists before "and N more"


def entity_ref(text: str) -> int | str:
    """An argparse type: an entity's id ("12" or "#12") as an int, else the words (a name or a description)."""
    words = " ".join(text.split())
    if re.fullmatch(r"#?[-+]?\d+", words):  # an id, checked as every id is (-3 is no name)
        return row_id(words.removeprefix("#"))
    if not words:
        raise argparse.ArgumentTypeError("give an entity's id, its name or what it looks like")
    return words


def where(e: EntityOverview) -> str:
    """Where it was last: 'kitchen, by the sink', 'street, at the top right (place 7)', 'street'."""
    if not e.last_camera:
        return ""
    at = place_phrase(e.last_zone or e.last_region)
    unnamed = f"place {e.last_place_id}" if e.last_place_id is not None and not e.last_zone else ""
    text = f"{e.last_camera}, {at}" if at else e.last_camera
    return f"{text} ({unnamed})" if unnamed and at else f"{text}, {unnamed}" if unnamed else text


def shown(e: EntityOverview) -> str:
    """'#3 'Alice' person in red plain clothes (kitchen)': how a candidate is named in a message."""
    name = f" {e.name!r}" if e.name else ""
    return f"#{e.id}{name} {e.label}" + (f" ({e.last_camera})" if e.last_camera else "")


def _tokens(text: str) -> list[str]:
    return re.findall(r"[\w'-]+", text.lower())


def described_as(text: str, overviews: Sequence[EntityOverview]) -> tuple[list[EntityOverview], str | None]:
    """The entities whose description fits ``text`` (a kind of thing and its words: 'van' is a truck or a car;
    colours as questions say them; a pattern; a camera it was seen on; person/animal/object), and the first word
    that is none of these (then nothing fits)."""
    cameras = {c.lower() for e in overviews for c in e.cameras}
    categories, said = categories_in(text, {e.category.lower() for e in overviews})
    rest = text.lower()
    for word in said:  # the words that named a kind of thing are read: the others must say something else
        rest = re.sub(rf"\b{re.escape(word)}\b", " ", rest, count=1)
    tokens = _tokens(rest)
    colours: list[set[str]] = []
    patterns: set[str] = set()
    seen_on: set[str] = set()
    kinds: set[str] = set()
    i = 0
    while i < len(tokens):
        two = " ".join(tokens[i : i + 2])
        if i + 1 < len(tokens) and two in COLOUR_WORDS:
            colours.append(set(COLOUR_WORDS[two]))
            i += 2
            continue
        word = tokens[i]
        if word in COLOUR_WORDS:
            colours.append(set(COLOUR_WORDS[word]))
        elif word in PATTERN_WORDS:
            patterns.add(PATTERN_WORDS[word])
        elif word in cameras:
            seen_on.add(word)
        elif word in KINDS or word == "thing":
            kinds.add(word)
        elif word not in _FILLER:
            return [], word
        i += 1
    if not (categories or colours or patterns or seen_on or kinds):
        return [], None
    fits = [
        e
        for e in overviews
        if (not categories or e.category.lower() in categories)
        and all(c & set(e.colours) for c in colours)
        and (not patterns or e.pattern in patterns)
        and seen_on <= {c.lower() for c in e.cameras}
        and (not kinds - {"thing"} or e.kind in kinds)
    ]
    # the colour a listing shows is the main one: a thing of that colour is meant before one with a touch of it
    mainly = [e for e in fits if all(c & set(e.colours[:1]) for c in colours)]
    return mainly or fits, None


def _one_of(said: str, fits: Sequence[EntityOverview], how: str) -> int:
    if len(fits) == 1:
        return fits[0].id
    listed = ", ".join(shown(e) for e in fits[:_SHOWN])
    more = f" and {len(fits) - _SHOWN} more" if len(fits) > _SHOWN else ""
    raise InvalidInputError(f"{said!r} {how} {len(fits)} entities: {listed}{more}; give the id")


def resolve(store: Any, ref: int | str) -> int:
    """The id of the entity ``ref`` (from :func:`entity_ref`) names: an id as it is; else the entities the user gave
    that name; else the one entity whose description fits the words. Several: InvalidInputError listing them;
    none: NotFoundError naming the word."""
    if isinstance(ref, int):
        return ref
    named = store.entities_named(ref)
    overviews: list[EntityOverview] = store.entity_overviews()
    if named:
        return _one_of(ref, [e for e in overviews if e.id in named], "is the name of")
    fits, unknown = described_as(ref, overviews)
    if fits:
        return _one_of(ref, fits, "fits")
    if unknown is not None:
        raise NotFoundError(
            f"no entity is named {ref!r}, and {unknown!r} is no colour, pattern, kind of thing or camera memory "
            "knows (`edge-agent entities list` shows every entity)"
        )
    raise NotFoundError(f"no entity is named or looks like {ref!r} (`edge-agent entities list` shows every entity)")
