"""A question as a typed query (issue 16): what it asks (intent), about what (the detector classes its words
name, with synonyms, plurals and groups; attributes; a name the user gave), where (a camera, a place) and up
to when. The deterministic controller answers from memory by the query, not by which record ranks first, so
it can say "I have not seen a dog" instead of naming another thing. ``ask --explain`` shows it."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from edge_agent.perception.vocabulary import COLOURS, PATTERNS, categories_in

__all__ = ["ASKS", "INTENTS", "TYPED_INTENTS", "Query", "parse_question"]

INTENTS = (
    "where",
    "when_first",
    "when_last",
    "count",
    "exists",
    "attribute",
    "which_camera",
    "with",
    "what_happened",
    "open",
)

#: Intents answered from the entities of the kind the question names.
TYPED_INTENTS = ("where", "when_first", "when_last", "exists", "count", "which_camera", "attribute", "with")
#: The described fields an attribute question may ask about.
ASKS = ("colour", "pattern", "motion", "size")

# Checked in this order: the first that matches is the intent.
_INTENT_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("what_happened", re.compile(r"\bwhat (?:happened|was going on|went on|did .+ do)\b")),
    ("which_camera", re.compile(r"\b(?:which|what) camera\b|\bon which\b|\bcamera did\b")),
    (
        "attribute",
        re.compile(
            r"\b(?:what|which) (?:colou?rs?|patterns?|size)\b|\bcolou?r (?:of|was|were|is|did)\b|\bhow (?:big|large)\b|"
            r"\b(?:moving|parked|still|stationary) or (?:moving|parked|still|stationary)\b"
        ),
    ),
    ("count", re.compile(r"\bhow (?:many|often)\b|\bnumber of\b|\bcount\b")),
    ("with", re.compile(r"\bwho\b|\bwhat .*\b(?:with|next to|beside)\b|\b(?:with|together with) (?:the|a|an) ")),
    ("when_first", re.compile(r"\b(?:first|earliest)\b.*\b(?:seen|appear|arrive|show|come)|\bwhen .*\bfirst\b")),
    ("when_last", re.compile(r"\bwhen\b|\bwhat time\b")),
    ("where", re.compile(r"\bwhere\b|\blast seen\b|\bwhich (?:side|part|place|room)\b")),
    ("exists", re.compile(r"^(?:is|are|was|were|did|do|does|have|has|had)\b|\bany\b|\bever\b|\bseen\b")),
)

# A category after one of these is where the subject is, or what it is with (or carries), not the subject itself.
_PLACE = re.compile(
    r"\b(?:on|in|inside|into|onto|near|by|at|beside|under|behind|next to|in front of|on top of|"
    r"with|together with|carrying|holding|wearing|pushing|pulling|walking|riding|"
    r"(?:anyone|someone|anybody|somebody|people|person|man|woman|he|she|they) (?:have|has|had))\s+"
    r"(?:the\s+|a\s+|an\s+|my\s+|our\s+|his\s+|her\s+|their\s+)?$"
)
#: The described field an attribute question asks about (edge_agent.memory.queries.FIELDS), first match.
_FIELDS = (
    ("colour", re.compile(r"\bcolou?rs?\b")),
    ("pattern", re.compile(r"\bpatterns?\b|\bstriped\b|\bchecked\b")),
    ("size", re.compile(r"\bsize\b|\bhow (?:big|large)\b")),
    ("motion", re.compile(r"\b(?:moving|parked|still|stationary|walking|standing)\b")),
)
_CAMERA = re.compile(r"\bcamera\s+([\w-]+)")


@dataclass(frozen=True)
class Query:
    intent: str  #: one of INTENTS
    categories: tuple[str, ...] = ()  #: detector classes the subject may be (empty: the question names none)
    said: tuple[str, ...] = ()  #: the words that named them
    attributes: tuple[str, ...] = ()  #: colours and patterns asked about or describing the subject
    name: str | None = None  #: a name the user gave an entity, when the question uses it
    entity_id: int | None = None
    camera: str | None = None
    places: tuple[str, ...] = ()  #: detector classes or named places the subject is said to be at or with
    first: bool = False  #: "first" was asked for (else the latest)
    asks: str = ""  #: for an attribute question, the described field asked about: colour, pattern, motion, size

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def has_subject(self) -> bool:
        return bool(self.categories) or self.entity_id is not None


def _intent(text: str) -> str:
    for intent, pattern in _INTENT_PATTERNS:
        if pattern.search(text):
            return intent
    return "open"


def parse_question(
    question: str,
    *,
    names: Mapping[str, int] | None = None,
    cameras: Iterable[str] = (),
    categories: Iterable[str] = (),
    zones: Iterable[str] = (),
) -> Query:
    """The typed query of a question. ``names``: the names the user gave entities (name -> entity id);
    ``cameras``: the cameras memory knows (a question naming one is about that camera); ``categories``: the
    categories memory holds that the detector's vocabulary may not (another detector's classes); ``zones``: the
    places memory has things described at ("by the dishwasher": where the subject was, a place of the query)."""
    known = [c for c in categories if c]
    text = " ".join(question.lower().split())
    intent = _intent(text)
    subject: list[str] = []
    places: list[str] = []
    said: list[str] = []
    placed: dict[str, list[str]] = {}  # the words that named a place -> the classes they meant
    _, words = categories_in(text, known)
    position = 0
    for word in words:
        at = text.find(word, position)
        position = at + len(word)
        meant, _ = categories_in(word, known)
        into = places if _PLACE.search(text[:at]) and not (intent == "with" and not subject) else subject
        into.extend(c for c in meant if c not in into)
        if into is subject:
            said.append(word)
        else:
            placed.setdefault(word, []).extend(meant)
    for zone in zones:
        for found in re.finditer(rf"\b{re.escape(zone.lower())}\b", text):
            if zone not in places and _PLACE.search(text[: found.start()]):
                places.append(zone)
    if "orange" in subject and len(subject) > 1:  # "a person in orange": the colour, not the fruit
        subject.remove("orange")
    attributes = tuple(w for w in re.findall(r"[a-z]+", text) if w in COLOURS or w in PATTERNS)
    name = entity = None
    for known, entity_id in (names or {}).items():
        if known and re.search(rf"\b{re.escape(known.lower())}\b", text):
            name, entity = known, int(entity_id)
            break
    camera = None
    named_camera = _CAMERA.search(text)
    spaced = re.sub(r"[-_]", " ", text)
    for known_camera in cameras:
        words = re.sub(r"[-_]", " ", known_camera.lower())  # the camera "living-room" is "the living room's view"
        named = named_camera is not None and named_camera.group(1) == known_camera.lower()
        # or named bare, unless its name is the thing asked about: "where is the cup?" with a camera named cup
        if named or (words not in said and re.search(rf"\b{re.escape(words)}\b", spaced)):
            camera = known_camera
            break
    if camera is not None:  # "people at the desk" with a camera named desk: the camera, not a thing there
        view = re.sub(r"[-_]", " ", camera.lower())
        places = [p for p in places if not any(p in meant and word == view for word, meant in placed.items())]
    if not subject and places and intent in ("where", "when_first", "when_last", "exists", "count", "attribute"):
        subject, places = (
            places,
            [],
        )  # "is there anything on the sofa?" names no subject: the sofa is the thing asked about
    asks = ""
    if intent == "attribute":
        asks = next((field for field, pattern in _FIELDS if pattern.search(text)), "colour")
    return Query(
        intent,
        tuple(subject),
        tuple(said),
        attributes,
        name,
        entity,
        camera,
        tuple(places),
        first=intent == "when_first" or bool(re.search(r"\bfirst\b", text)),
        asks=asks,
    )
