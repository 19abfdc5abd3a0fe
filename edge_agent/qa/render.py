"""The one renderer of answers (issue 38): a typed finding (:mod:`edge_agent.qa.findings`) into English, with
the observations it rests on named, and into JSON. Each finding type has one function here."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import fields, is_dataclass, replace
from typing import Any

from edge_agent.clock import format_utc
from edge_agent.language.lexicon import COLOUR_WORDS
from edge_agent.memory import Entity, Observation
from edge_agent.memory.description import place_phrase
from edge_agent.memory.queries import LEFT_S
from edge_agent.perception.vocabulary import plural, singular
from edge_agent.qa.findings import (
    Alternatives,
    Attribute,
    Both,
    Cameras,
    Company,
    Count,
    Duration,
    Exists,
    Finding,
    Habit,
    Kinds,
    Left,
    Listing,
    Moved,
    NotSeen,
    Order,
    Profile,
    Recorded,
    Returned,
    Same,
    Seen,
    Stayed,
    Summary,
    Unreadable,
)

__all__ = ["cite", "finding_json", "render"]


def _t(t: float) -> str:
    return format_utc(t, zone=True)


def _a(what: str) -> str:
    """'a dog', 'an apple', 'any keys' (a word memory has no singular for); a name or an entity's number as it is."""
    if what[:1] == "#" or what[:1].isupper() or what.split(" ")[0] in ("the", "my", "our", "your"):
        return what
    what = singular(what)
    if what.endswith("s") and not what.endswith(("ss", "us")):
        return f"any {what}"
    return f"an {what}" if what[:1] in "aeiou" else f"a {what}"


_LISTED = 5  #: a count of at most this many things names them


def _count_of(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


def _plural(what: str, n: int) -> str:
    """The thing's words for ``n`` of them: 'person' / 'people', 'van' / 'vans'."""
    what = singular(what)
    for joint in (" in ", " moving "):  # "person in black": "people in black"; "person moving left"
        if joint in what:
            head, _, rest = what.partition(joint)
            return f"{_plural(head, n)}{joint}{rest}"
    if n == 1 or what.endswith("s"):
        return what
    head, _, last = what.rpartition(" ")
    return f"{head} {plural(last)}".strip()


def _and(words: Sequence[str]) -> str:
    """'a, b and c'."""
    return " and ".join(words) if len(words) < 3 else f"{', '.join(words[:-1])} and {words[-1]}"


def _span(seconds: float) -> str:
    """'1 min 19 s', '3 s', '2 h 5 min'."""
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min" + (f" {s % 60} s" if s % 60 else "")
    return f"{s // 3600} h" + (f" {s % 3600 // 60} min" if s % 3600 // 60 else "")


def cite(o: Observation) -> dict[str, object]:
    """An observation as an answer cites it."""
    return {
        "entity": o.entity_id,
        "observation": o.id,
        "clip": o.clip_id,
        "camera": o.camera,
        "t_start": o.t_start,
        "t_end": o.t_end,
    }


def _there(o: Observation) -> str:
    """', by the desk' when the observation's place is not in its sentence (a place named after it was seen); for a
    place memory found from the thing's surroundings, how alike they were: ', by the desk (place 0.97 alike)'."""
    where = place_phrase(o.place)
    if not where or where in o.description:
        return ""
    sure = f" (place {o.place_score:.2f} alike)" if o.place_id is not None and o.place_score is not None else ""
    return f", {where}{sure}"


def _entity(e: Entity) -> str:
    return f"#{e.id}" + (f" '{e.name}'" if e.name else "")


def _sighting(o: Observation) -> str:
    return f"{_t(o.t_start)} on camera {o.camera}{_there(o)}: {o.description or 'no description'} (observation {o.id})"


def _scope(where: str, when: str) -> str:
    return "".join(f" {p}" for p in (where, when) if p)


def _unreadable(f: Unreadable) -> str:
    words = ", ".join(f"'{w}'" for w in f.words)
    if f.unrecorded:
        head = (
            f"I don't know: memory does not record {f.unrecorded}. It describes what the cameras saw by kind, colour, "
            "pattern, size and motion, with where and when."
        )
        return f"{head} What it saw: {render(f.answer)}" if f.answer is not None else head
    if f.verbs:
        head = (
            f"I don't know: I cannot tell whether it was {' or '.join(f.words)}. Memory holds what the cameras saw "
            "(who and what, where and when), not what was done."
        )
        return f"{head} What it saw: {render(f.answer)}" if f.answer is not None else head
    if f.pointing:
        return (
            f"I don't know what {words} refers to: name the thing (e.g. 'where did the truck go?'), or ask in chat, "
            "where it is the last thing talked about."
        )
    if f.cameras:
        return f"No: there is no camera called {words}; the cameras are {', '.join(f.known) or 'none yet'}."
    if f.places:
        head = f"I don't know a place called {words}; I know {', '.join(f.known) or 'no named place yet'}."
    else:
        plural = len(f.words) == 1 and f.words[0].endswith("s") and not f.words[0].endswith(("ss", "us"))
        article = "" if plural else "an " if f.words and f.words[0][:1] in "aeiou" else "a "
        head = (
            f"I don't know what {article}{words} {'are' if plural else 'is'}: nothing in memory is called that"
            + (f"; I know {', '.join(f.known)}" if f.known else "")
            + "."
        )
    if f.answer is not None:
        return f"{head} Reading the question without it: {render(f.answer)}"
    return head


def _not_seen(f: NotSeen) -> str:
    prefix = "No: " if f.value is False else "0: " if f.value == 0 and f.value is not False else ""
    text = f"{prefix}I have not seen {_a(f.what)}{_scope(f.where, f.when)}{_unrecorded(f.unrecorded, f.where)}."
    return text + _last_before(f.last_before)


def _last_before(last: tuple[Observation, str] | None) -> str:
    """ "Anyone home right now?" with nothing recorded now: when one was last seen, which is what memory can say."""
    if last is None:
        return ""
    o, who = last
    return (
        f" The last seen before then: {who}, {_t(o.t_end)} on camera {o.camera}: {o.description} (observation {o.id})."
    )


def _unrecorded(unrecorded: bool, where: str) -> str:
    """What a "not seen" rests on when nothing was recorded then: not an absence seen, none that could be."""
    return (": that camera recorded nothing then" if where else ": no camera recorded then") if unrecorded else ""


def _exists(f: Exists) -> str:
    answer = "Yes" if f.holds else "No"
    if not f.seen and f.last_before is not None:  # asked of now, and nothing recorded now: not a no
        answer = "I can't tell"
    if not f.seen and f.came:  # "nobody new came after 10:00:05?": none arrived (one there already may stay)
        return f"{answer}: no {f.what}{f.company} came{_scope(f.where, f.when)}."
    if not f.seen:
        unrecorded = _unrecorded(f.unrecorded, f.where)
        text = f"{answer}: I have not seen {_a(f.what)}{f.company}{_scope(f.where, f.when)}{unrecorded}."
        return text + _last_before(f.last_before)
    seen = f"{f.n} {_plural(f.what, f.n)}{f.company} seen{_scope(f.where, f.when)}"
    if f.left is not None:
        still = f.n - f.left
        if not f.left:
            seen = f"none of the {seen} left view while recorded" if f.n > 1 else f"the {seen} did not leave view"
        elif f.n > 1:
            seen = f"{f.left} of the {seen} left view" + (
                f", {still} {'was' if still == 1 else 'were'} still in view when the recording ended" if still else ""
            )
        else:
            seen = f"the {seen} left view"
    if not f.evidence:
        return f"{answer}: {seen}."
    o = f.evidence[-1]
    if f.left and not f.negated:
        return (
            f"{answer}: {seen}, the last to leave at {_t(o.t_end)} on camera {o.camera}: "
            f"{o.description or 'no description'} (observation {o.id})."
        )
    last = f", the last at {_t(o.t_end)} on camera {o.camera}: {o.description or 'no description'} (observation {o.id})"
    return f"{answer}: {seen}{last}."


def _left(f: Left) -> str:
    e, o = f.entity, f.observation
    if e is None or o is None:
        return "Memory holds nothing that matches the question."
    answer = "Yes" if f.holds else "No"
    who = f"entity {_entity(e)} ({e.category})"
    last = f"last seen {_t(o.t_end)} on camera {o.camera}{_there(o)} (observation {o.id})"
    if f.taken is not None:
        return f"{answer}: {who} was taken {_t(f.taken.t)}; {last}."
    if f.left:
        return f"{answer}: {who} left: {last}; the camera recorded on until {_t(f.recorded_until or o.t_end)}."
    until = f" at {_t(f.recorded_until)}" if f.recorded_until is not None else ""
    if (
        f.recorded_until is not None and f.recorded_until - o.t_end >= 1
    ):  # unseen for the last seconds, too few to go by
        gap = f"{f.recorded_until - o.t_end:.0f} s"
        return (
            f"{answer}, not that memory can tell: {who} was {last}, {gap} before camera {o.camera}'s recording "
            f"ended{until}, too short a time out of view to say it had gone."
        )
    return f"{answer}: {who} was still in view when camera {o.camera}'s recording ended{until}: {last}."


def _alternatives(f: Alternatives) -> str:
    if f.of == "seconds seen":
        said = "; ".join(f"{value}: {_span(n)}" for value, n in f.support)
    else:
        said = "; ".join(f"{value}: {n} observation{'s' if n != 1 else ''}" for value, n in f.support)
    o = f.evidence[-1] if f.evidence else None
    latest = f" The latest, {_sighting(o)}." if o is not None else ""
    whose = (f" {f.whose}" if f.of == "kind" else f" of {f.whose}") if f.whose else ""  # a kind's: where it was
    if f.yes_no and f.of == "seconds seen":  # "was the couch there longer than the tv?"
        value = f.support[0][0] if f.support else ""
        than = "for less time" if f.least else "as long" if f.as_long else "longer"
        than = "for the same time" if f.same else than  # "did they stay for the same amount of time?"
        held = ("Yes", "") if f.chosen is not None else ("No", " not")
        return f"{held[0]}: the {value} was{held[1]} seen {than} ({said})."
    if f.yes_no and f.each:  # "was everyone in black?": each of them mostly so
        value, n = f.support[0] if f.support else ("", 0)
        lead = "Yes: all" if f.chosen is not None else f"No: {n} of"
        so = f"in {value}" if f.of == "colour" else value  # "in black", "striped"
        return f"{lead} {f.whose} {'are' if f.each != 1 else 'is'} mostly {so}.{latest}"
    if f.yes_no:
        value = f.support[0][0] if f.support else ""
        if f.chosen is not None:
            return f"Yes: memory says {f.of} {value} most often{whose} ({said}).{latest}"
        return f"No: memory does not say {f.of} {value} most often{whose} ({said}).{latest}"
    if f.of == "time":  # "before or after 10:30?": the window it was seen in
        seen = {"both": "in both", None: "in neither"}.get(f.chosen, f.chosen)
        return f"{(f.chosen or 'neither').capitalize()}: {_a(f.whose)} was seen {seen} ({said}).{latest}"
    if f.chosen is None:
        return f"Neither: memory says none of {', '.join(v for v, _ in f.support)}{whose}.{latest}"
    if f.of == "seconds seen":  # "which stayed longer, the tv or the couch?"
        if f.chosen == "same":
            return f"The same time: seen for {said}.{latest}"
        return f"The {f.chosen}, {'for less time' if f.least else 'longer'}: seen for {said}.{latest}"
    if f.of == "kind":  # "a person, or just things?": "Things, no person"
        lead = f"{f.chosen.capitalize()}{', no ' + ' and no '.join(f.unseen) if f.unseen else ''}"
        return f"{lead}: {said}{whose}.{latest}"
    return f"{f.chosen.capitalize()}: {f.of} {said}{whose}.{latest}"


def _seen(f: Seen) -> str:
    e, o = f.entity, f.observation
    if e is None or o is None:
        return "Memory holds nothing that matches the question."
    if f.at is not None:
        near = "then" if o.t_start - 1.0 <= f.at <= o.t_end + 1.0 else "nearest then"
        text = f"At {_t(f.at)}, entity {_entity(e)} ({e.category}) was seen ({near}) {_sighting(o)}."
    elif f.first:
        text = f"Entity {_entity(e)} ({e.category}) was first seen {_sighting(o)}."
    elif f.arrived:
        text = f"Entity {_entity(e)} ({e.category}) last arrived {_sighting(o)}."
    elif f.leaving and f.stayed_until is not None:  # "when did the van leave?", and it had not
        text = (
            f"It did not leave while recorded: entity {_entity(e)} ({e.category}) was still in view when camera "
            f"{o.camera}'s recording ended at {_t(f.stayed_until)}: last seen {_sighting(o)}."
        )
    elif f.leaving:
        text = f"Entity {_entity(e)} ({e.category}) was last seen (before it left) {_t(o.t_end)} on camera {o.camera}"
        text += f"{_there(o)}: {o.description or 'no description'} (observation {o.id})."
    else:
        text = (
            f"Entity {_entity(e)} ({e.category}) was last seen {_t(o.t_end)} on camera {o.camera}{_there(o)}: "
            f"{o.description or 'no description'} (observation {o.id})."
        )
    if f.ago_from is not None and f.stayed_until is None:  # "how long ago?": back from now (or the answer's as-of)
        moment = o.t_start if f.first or f.arrived else o.t_end
        text = f"{_span(max(f.ago_from - moment, 0.0))} ago: {text[0].lower()}{text[1:]}"
    if f.taken is not None:
        who = f" by {_entity(f.taker)} ({f.taker.category})" if f.taker is not None else ""
        text += f" Then it was taken{who} {_t(f.taken.t)}"
        text += f" (observation {f.taken.by_observation_id})." if f.taken.by_observation_id is not None else "."
    for earlier, later, score, last in f.chain:
        text += (
            f" Entity #{later} is possibly the same {e.category} as entity #{earlier} (similarity {score:.2f}), which "
            f"was last seen {_t(last.t_end)} (observation {last.id}), before it was first seen."
        )
    return text


#: How a count held against a number says it: "more than 3", "2 or more".
_AGAINST = {
    "more": "more than {}",
    "fewer": "fewer than {}",
    "most": "{} or fewer",
    "exactly": "exactly {}",
    "all": "all {}",
}


def _side(f: Count) -> str:
    """One side of a compared count: "17 people on camera street", "the car seen 8 times"."""
    if f.unit == "sightings":
        return f"{_a(f.what)} seen {_count_of(f.n, 'time')}{_scope(f.where, f.when)}"
    return f"{f.n} {_plural(f.what, f.n)}{_scope(f.where, f.when)}"


def _count(f: Count) -> str:
    if f.against is not None:  # "were there more than 3 people?": yes or no, the count, and what it was held against
        said = _AGAINST.get(f.compare, "{} or more").format(f.against)
        answer, held = ("Yes", said) if f.holds else ("No", f"not {said}")
        if not f.n:
            return f"{answer}: I have not seen {_a(f.what)}{_scope(f.where, f.when)} ({held})."
        return f"{answer}: {_count(replace(f, against=None, compare=''))[:-1]} ({held})."
    if f.other is not None and f.which:
        here, there = _side(f), _side(f.other)
        typed = str(f.typed)
        if typed == f.which[-1] and typed != f.which[0]:  # the side chosen first
            here, there = there, here
        plain = typed.startswith("the ") or typed in ("outside", "inside", "indoors", "outdoors", *COLOUR_WORDS)
        said = typed if plain else f"the {typed}"  # "the street", "outside", "black"
        return f"{said[0].upper()}{said[1:]}: {here} against {there}."
    if f.other is not None and f.by_how_many:  # "how many more ... than ...?": the difference, then each
        n = f.n - f.other.n if f.compare == "more" else f.other.n - f.n
        said = f"{n} {f.compare}" if n >= 0 else f"none {f.compare}, {-n} {'fewer' if f.compare == 'more' else 'more'}"
        return f"{said[0].upper()}{said[1:]}: {_side(f)} against {_side(f.other)}."
    if f.other is not None and f.compare:
        return f"{'Yes' if f.holds else 'No'}: {_side(f)} against {_side(f.other)}."
    scope = _scope(f.where, f.when)
    if f.unit == "things":
        note = " (identity is conservative: one may be counted twice)" if f.n > 1 else ""
        counted = {o.entity_id: o.category for o in f.evidence if o.entity_id is not None}
        if 0 < f.n <= _LISTED and len(counted) == f.n:  # few: which they are
            listed = ", ".join(f"{category} #{e}" for e, category in counted.items())
        else:
            listed = ""
        seen = f"{_count_of(f.observations, 'observation')} on camera {', '.join(f.names)}"
        return f"{f.n} {_plural(f.what, f.n)}{f.company}{scope}{note}: " + (
            f"{listed} ({seen})." if listed else f"{seen}."
        )
    if f.unit == "at once":  # "at the same time": the most together, when, and which
        listed = ", ".join(f"{o.category} #{o.entity_id}" for o in f.evidence[:_LISTED])
        more = f" and {len(f.evidence) - _LISTED} more" if len(f.evidence) > _LISTED else ""
        camera = f" on camera {', '.join(f.names)}" if f.names and not f.where else ""
        when = f", first at {_t(f.at)}{camera}" if f.at is not None and f.n else ""
        return f"{f.n} {_plural(f.what, f.n)} at once{scope}{when}" + (f": {listed}{more}." if listed else ".")
    if f.unit == "colours":  # "how many colours did the people wear?": the colours, by how many things each
        return f"{_count_of(f.n, 'colour')}{scope} among {f.observations} {_plural(f.what, 2)}: {', '.join(f.names)}."
    if f.unit in ("cameras", "places", "days"):
        unit = {"cameras": "camera", "places": "place", "days": "day"}[f.unit]
        if f.unit == "cameras":  # the cameras counted name where: "of camera a or b" would say it twice
            scope = _scope("", f.when)
        if f.unit == "cameras" and f.what in ("thing", "things", ""):  # "how many cameras do I have?"
            return f"{_count_of(f.n, unit)}{scope}: {', '.join(f.names)}."
        return f"{_count_of(f.n, unit)}: {f.what} was seen{scope} on {', '.join(f.names)}."
    return (
        f"{_count_of(f.n, 'time')}: {f.what}{scope} appears in {_count_of(f.observations, 'observation')} "
        f"on {f.days} day(s)."
    )


def _both(f: Both) -> str:
    said = [render(p) for p in f.parts]
    said = [s.split(": ", 1)[1] if s.startswith(("Yes: ", "No: ")) else s for s in said]
    return f"{'Yes' if f.holds else 'No'}: " + "; ".join(s.rstrip(".") for s in said) + "."


def _kinds(f: Kinds) -> str:
    if not f.counts:
        return f"I have not seen anything{_scope(f.where, f.when)}."
    total = sum(n for _, n in f.counts)
    n = f.counts[0][1]
    tied = [k for k, m in f.counts if m == n]
    rest = f.counts[len(tied) :]
    then = "; then " + ", ".join(f"{m} {_plural(k, m)}" for k, m in rest[:8]) if rest else ""
    more = f" and {len(rest) - 8} more kinds" if len(rest) > 8 else ""
    kinds = ", ".join(_plural(k, 2) for k in tied)
    each = f"{n} each" if len(tied) > 1 else str(n)
    if f.counted:  # "how many kinds of things?": how many, then which
        listed = ", ".join(f"{m} {_plural(k, m)}" for k, m in f.counts[:10])
        more = f" and {len(f.counts) - 10} more" if len(f.counts) > 10 else ""
        return f"{_count_of(len(f.counts), 'kind')}{_scope(f.where, f.when)}: {listed}{more}."
    return (
        f"{'Fewest' if f.fewest else 'Most'} were {kinds}: {each} of the {_count_of(total, 'thing')} seen"
        f"{_scope(f.where, f.when)}{then}{more}."
    )


def _moved(f: Moved) -> str:
    e = f.entity
    who = f"entity #{e.id} ({e.category})" if e is not None else "it"
    what = f"came {' or '.join(place_phrase(p) for p in f.to)}" if f.to else "moved to another place"
    when = f" on {', '.join(_t(d)[:10] for d in f.days)}" if f.days else ""
    at = f", at {', '.join(_t(t)[11:19] for t in f.at)}" if f.at else ""
    if f.asked:  # "has the phone moved?"
        answer = "Yes" if (f.n > 0) != f.negated else "No"
        if not f.n:
            o = f.evidence[-1] if f.evidence else None
            where = f"; last seen {_sighting(o)}" if o is not None else ""
            return f"{answer}: {who} was not seen moved{when}{where}."
        return f"{answer}: {who} {what} {_count_of(f.n, 'time')}{when}{at}."
    return f"{_count_of(f.n, 'time')}: {who} {what}{when}{at}."


def _returned(f: Returned) -> str:
    e, gone = f.entity, f.gone
    if e is None or gone is None:
        return "Memory holds nothing that matches the question."
    if f.back is not None:
        return (
            f"Yes: entity {_entity(e)} ({e.category}) came back {_sighting(f.back)}, after it was last seen at "
            f"{_t(gone.t_end)} on camera {gone.camera}."
        )
    if f.recorded_until is not None and f.recorded_until - gone.t_end < LEFT_S:  # never went: nothing to come back
        return (
            f"No: entity {_entity(e)} ({e.category}) never went: it was still in view when camera {gone.camera}'s "
            f"recording ended at {_t(f.recorded_until)} (observation {gone.id})."
        )
    until = f", which recorded until {_t(f.recorded_until)}" if f.recorded_until is not None else ""
    return (
        f"No: entity {_entity(e)} ({e.category}) was last seen {_t(gone.t_end)} on camera {gone.camera}{until}, and "
        "not again after it had gone."
    )


def _stayed(f: Stayed) -> str:
    if f.asked is not None:
        return (
            f"Nothing after {_t(f.asked)}: entity #{f.entity_id} was last seen {_sighting(f.evidence[-1])}, and "
            "memory holds nothing of it later."
        )
    if f.moved_to is None:
        return (
            f"After {_t(f.since)}, entity #{f.entity_id} stayed {place_phrase(f.place) or 'where it was'} as far as "
            f"memory knows (last seen {_t(f.last_seen)})."
        )
    there = f.moved_to
    later = f.evidence[-1]
    return (
        f"After {_t(f.since)} it was moved to the {there or 'somewhere else'}: entity #{f.entity_id} was seen "
        f"{place_phrase(there) or 'somewhere else'} at {_t(f.at or later.t_start)} (observation {later.id})."
    )


def _attribute(f: Attribute) -> str:
    if not f.value or f.latest is None:
        return f"Memory does not say the {f.field} of {f.whose}."
    others = ", ".join(f"{v} {n}" for v, n in f.others)
    o = f.latest
    return (
        f"{f.value.capitalize()}: {f.n} of {f.total} observations of {f.whose} say {f.field} {f.value}"
        + (f" (also: {others})" if others else "")
        + f"; the latest, {_t(o.t_end)} on camera {o.camera}: {o.description} (observation {o.id})."
    )


def _cameras(f: Cameras) -> str:
    if f.only:  # "was the kitchen the only place with a bowl?"
        on = [c for c, _, _ in f.seen]
        if on == [f.only]:
            return f"Yes: {_a(f.what)} was seen only on camera {f.only}."
        others = [c for c in on if c != f.only]
        elsewhere = f"on camera{'s' * (len(others) > 1)} {', '.join(others)}" if others else "on no camera"
        if f.only not in on:
            return f"No: {_a(f.what)} was not seen on camera {f.only}; it was seen {elsewhere}."
        return f"No: {_a(f.what)} was seen {elsewhere} as well as {f.only}."
    if f.negated:
        saw = ", ".join(c for c, _, _ in f.seen) or "none"
        if not f.not_seen:
            return f"Every camera saw {_a(f.what)} ({saw})."
        return f"Camera {', '.join(f.not_seen)} saw no {_plural(f.what, 2)}; {_a(f.what)} was seen on {saw}."
    if f.rank and f.things:
        (best, n), rest = f.things[0], f.things[1:]
        ties = [c for c, m in rest if m == n]
        then = "; then " + ", ".join(f"{c} {m}" for c, m in rest if c not in ties) if len(rest) > len(ties) else ""
        if ties:
            return (
                f"No one camera saw the {f.rank} {_plural(f.what, 2)}: {', '.join([best, *ties])} saw {n} each{then}."
            )
        return f"Camera {best} saw the {f.rank} {_plural(f.what, 2)}: {n}{then}."
    parts = [f"camera {c} ({_count_of(n, 'observation')}, the last at {_t(last)})" for c, n, last in f.seen]
    if not parts:
        return f"No camera saw {_a(f.what)}."
    if f.order and f.moments:  # "which room saw someone first?": that one, then the rest in order
        others = [f"{c} at {_t(t)}" for (c, _, _), t in zip(f.seen[1:], f.moments[1:])]
        then = f"; {'after' if f.order == 'first' else 'before'} it: {', '.join(others)}" if others else ""
        return f"Camera {f.seen[0][0]} was the {f.order} to see {_a(f.what)}, at {_t(f.moments[0])}{then}."
    return f"{_a(f.what).capitalize()} was seen on " + ", and on ".join(parts) + "."


def _company(f: Company) -> str:
    if f.yes_no and f.entity is not None:  # "did she have company?", "was she alone?"
        said = _company(replace(f, yes_no=False))
        return f"{'Yes' if f.typed else 'No'}: {said[:1].lower()}{said[1:]}"
    e = f.entity
    if e is None:
        return "Memory holds nothing that matches the question."
    if not f.with_ or f.at is None:
        return f"No {'person' if f.people_only else 'one and nothing'} was seen together with entity #{e.id}."
    o = f.at
    first, first_at = f.with_[0]
    if f.people_only or len(f.with_) == 1:
        who = f"{first.category.capitalize()} {_entity(first)}"
        return (
            f"{who} was with entity #{e.id} ({e.category}) at {_t(max(o.t_start, first_at.t_start))} on camera "
            f"{o.camera}: {first_at.description or 'no description'}."
        )
    others = "; ".join(f"{c.category} {_entity(c)}: {p.description or 'no description'}" for c, p in f.with_)
    return f"With entity #{e.id} ({e.category}) at {_t(o.t_start)} on camera {o.camera}: {others}."


def _listing(f: Listing) -> str:
    if not f.items:
        return f"I have not seen {_a(f.what)}{_scope(f.where, f.when)}."
    if f.rank:  # "which cup did you see most often?"
        (e, o, n), rest = f.items[0], f.items[1:]
        then = "; then " + ", ".join(f"{x.category} {_entity(x)} {m}" for x, _, m in rest) if rest else ""
        how = "most" if f.rank == "most" else "least"
        return (
            f"{e.category.capitalize()} {_entity(e)} was seen {how} often{_scope(f.where, f.when)}: "
            f"{_count_of(n, 'observation')}, the last {_sighting(o)}{then}."
        )
    parts = [
        f"{e.category} {_entity(e)} ({o.description or 'no description'}; {_t(o.t_start)}, camera {o.camera}, "
        f"observation {o.id})"
        for e, o, _ in f.items
    ]
    more = ""
    if f.more:  # of a list cut short, what all of them were: "and 7 more (17 people, 1 truck and 1 car in all)"
        kinds = _and([f"{n} {_plural(k, n)}" for k, n in f.kinds])
        more = f"; and {f.more} more" + (f" ({kinds} in all)" if len(f.kinds) > 1 else "")
    what = _plural(f.what if f.what not in ("thing", "") else "thing", len(f.items) + f.more)
    return f"{len(f.items) + f.more} {what} seen{_scope(f.where, f.when)}: " + "; ".join(parts) + more + "."


def _order(f: Order) -> str:
    verb = "left" if f.leaving else "first seen"
    if f.more or f.rank:
        moments = [(label, f.moment(o)) for label, o in [(f.a, f.a_at), (f.b, f.b_at), *f.more]]
        said = "; ".join(  # in the order they came, those never seen last
            f"the {label} {verb} {_t(t)}" if t is not None else f"I have not seen {_a(label)}"
            for label, t in sorted(moments, key=lambda m: (m[1] is None, m[1] or 0.0))
        )
        ranked = [label for label, _ in f.ranked()]
        if not ranked:
            return f"I cannot tell: {said}."
        if f.asked in ("first", "last") and not f.rank:  # "which came last: the tv, the couch or the baby?"
            pick = ranked[0] if f.asked == "first" else ranked[-1]
            came = "left" if f.leaving else "came"
            return f"The {pick} {came} {f.asked}: in order {', then '.join(ranked)} ({said})."
        return f"In order: {', then '.join(ranked)} ({said})."
    if f.alike and f.a_at is not None and f.b_at is not None and f.a_at.id == f.b_at.id and f.a != f.b:
        # "was the baby seen after the woman?" with both read as any person: one sighting answers for both
        return (
            f"I cannot tell the {f.a} from the {f.b}: memory tells them apart by nothing, and the same sighting "
            f"answers for both ({_sighting(f.a_at)})."
        )
    a = f"the {f.a} {verb} {_t(f.a_time)}" if f.a_time is not None else f"I have not seen {_a(f.a)}"
    b_verb = "left" if f.b_leaving else "first seen"
    b = f"the {f.b} {b_verb} {_t(f.b_time)}" if f.b_time is not None else f"I have not seen {_a(f.b)}"
    stayed = (
        "was still there as far as memory can tell (last seen {}, too near the end of its camera's recording to say "
        "it had gone)"
    )
    if f.leaving and f.a_stayed and f.a_time is not None:
        a = f"the {f.a} {stayed.format(_t(f.a_time))}"
    if f.b_leaving and f.b_stayed and f.b_time is not None:
        b = f"the {f.b} {stayed.format(_t(f.b_time))}"
    first = f.a_first
    if f.asked == "before or after" and (f.a_time is None or f.b_time is None):
        first = None  # one of them never seen: neither before nor after it
    if first is None and f.leaving and f.a_stayed and f.b_stayed:
        return f"Neither left while the cameras recorded: {a}; {b}."
    if first is None:
        return f"I cannot tell: {a}; {b}."
    if f.asked == "together":
        both = f"; in view together on camera {f.overlap.camera} (observation {f.overlap.id})" if f.overlap else ""
        return f"{'Yes' if f.typed else 'No'}: {a}, {b}{both}."
    if f.together:  # in view together from the same moment: neither came first
        if f.yes_no and f.asked != "before or after":
            return f"No, at the same time: {a}, {b}."
        return f"At the same time: {a}, {b}."
    winner, loser = (f.a, f.b) if first else (f.b, f.a)
    if f.asked == "before or after":
        return f"{'Before' if first else 'After'}: {a}, {b}."
    if f.yes_no:
        answer = "Yes" if f.typed else "No"
        return f"{answer}: {a}, {b}."
    came = "left" if f.leaving else "came"
    if f.asked in ("last", "after"):
        winner, loser = loser, winner
        return f"The {winner} {came} last: {a}; {b}."
    return f"The {winner} {came} first: {a}; {b}."


def _recorded(f: Recorded) -> str:
    if not f.recordings:
        return "Memory holds no recording there and then."
    by_start = sorted(f.recordings, key=lambda r: r.start)
    each = [f"camera {r.camera} from {_t(r.start)} to {_t(r.end)} ({_span(r.seconds)} recorded)" for r in by_start]
    if f.asked in ("rank", "shortest"):
        ranked = sorted(f.recordings, key=lambda r: r.seconds if f.asked == "shortest" else -r.seconds)
        rest = "; then " + ", ".join(f"{r.camera} {_span(r.seconds)}" for r in ranked[1:]) if len(ranked) > 1 else ""
        most = "shortest" if f.asked == "shortest" else "longest"
        return f"Camera {ranked[0].camera} recorded the {most}: {_span(ranked[0].seconds)}{rest}."
    if f.asked == "count":
        return f"{_count_of(len(f.recordings), 'camera')} recorded: " + "; ".join(each) + "."
    if f.asked == "duration":
        return f"About {_span(sum(r.seconds for r in f.recordings))}: " + "; ".join(each) + "."
    one = by_start[0] if f.asked == "first" else max(f.recordings, key=lambda r: r.end)
    verb, t = ("started", one.start) if f.asked == "first" else ("stopped", one.end)
    which = f" on camera {one.camera}" if len(f.recordings) > 1 else ""
    return f"The recording {verb} {_t(t)}{which}: " + "; ".join(each) + "."


def _same(f: Same) -> str:
    a, b = f.a, f.b
    if a is None or b is None or f.a_at is None or f.b_at is None:
        return "I cannot tell: I have not seen both."
    answer = "Yes" if f.same != f.negated else "No"
    if f.same:
        return (
            f"{answer}: both are entity {_entity(a)} ({a.category}), seen {_sighting(f.a_at)}"
            + (f", and {_sighting(f.b_at)}" if f.b_at.id != f.a_at.id else "")
            + "."
        )
    if f.possibly is not None:  # GEB's unresolved identity: two entities association would not join
        return (
            f"Possibly: memory holds them as two, entity {_entity(a)} ({a.category}), last seen {_sighting(f.a_at)}; "
            f"and entity {_entity(b)}, last seen {_sighting(f.b_at)}, which it records as possibly the same "
            f"(similarity {f.possibly:.2f}, below what it needs to join them)."
        )
    of = [f" (one of {n} it may be)" if n > 1 else "" for n in (f.a_of, f.b_of)]
    return (
        f"{answer}: memory holds them as two: entity {_entity(a)} ({a.category}){of[0]}, last seen "
        f"{_sighting(f.a_at)}; and entity {_entity(b)} ({b.category}){of[1]}, last seen {_sighting(f.b_at)}."
    )


def _duration(f: Duration) -> str:
    if f.between:
        a, b = f.between
        was_a, was_b = f.moments or ("first seen", "first seen")
        b_said = f"the {b} {_t(f.end)}" if was_a == was_b else f"the {b} {was_b} {_t(f.end)}"
        lead = f.bound or "About"  # "At most": one side left later than memory saw
        return f"{lead} {_span(f.seconds)}: the {a} {'was ' * (was_a == 'first seen')}{was_a} {_t(f.start)}, {b_said}."
    e = f.entity
    who = f"Entity {_entity(e)} ({e.category})" if e is not None else f"{f.what} (any of them)" if f.what else "It"
    stays = f" in {f.stays} stays" if f.stays > 1 else ""
    was = "were" if f.what and e is None else "was"
    if f.holds is not None and f.recorded is not None:  # "was it there the whole time?"
        whole = f"the whole {_span(f.recorded)} its camera recorded"
        return (
            f"{'Yes' if f.holds else 'No'}: about {_span(f.seconds)}, {whole if f.holds else 'not ' + whole}: {who} "
            f"{was} seen{_scope(f.where, '')} from {_t(f.start)} to {_t(f.end)}{stays} "
            f"({_count_of(len(f.evidence), 'cited observation')})."
        )
    if f.holds is not None and f.against is not None:
        than = f"{'more' if f.longer else 'less'} than {_span(f.against)}"
        return (
            f"{'Yes' if f.holds else 'No'}: about {_span(f.seconds)}, {than if f.holds else 'not ' + than}: {who} "
            f"{was} seen{_scope(f.where, '')} from {_t(f.start)} to {_t(f.end)}{stays} "
            f"({_count_of(len(f.evidence), 'cited observation')})."
        )
    if f.seen_until is not None:  # a worn camera: the stay's end not seen, only when it was next seen elsewhere
        return (
            f"Up to about {_span(f.seconds)}: {who} {was} seen{_scope(f.where, '')} from {_t(f.start)} to "
            f"{_t(f.seen_until)} (at least {_span(f.seen_until - f.start)}), then next seen at {f.next_place}, "
            f"{_t(f.end)}; its camera is worn and did not watch there in between "
            f"({_count_of(len(f.evidence), 'cited observation')})."
        )
    if f.seconds < 1.0:  # a sampled frame or two: no length to give
        return (
            f"Only a moment (under a second): {who} {was} seen{_scope(f.where, '')} at {_t(f.start)} "
            f"({_count_of(len(f.evidence), 'cited observation')})."
        )
    return (
        f"About {_span(f.seconds)}: {who} {was} seen{_scope(f.where, '')} from {_t(f.start)} to {_t(f.end)}{stays} "
        f"({_count_of(len(f.evidence), 'cited observation')})."
    )


def _summary(f: Summary) -> str:
    if not f.lines:
        where = f" on camera {f.where}" if f.where else ""
        return f"Memory holds nothing recorded{where}{' ' + f.when if f.when else ''}."
    return " ".join(f.lines)


def _profile(f: Profile) -> str:
    e, first, last = f.entity, f.first, f.last
    if e is None or first is None or last is None:
        return "Memory holds nothing that matches the question."
    cameras = ", ".join(f.cameras)
    text = (
        f"{e.category.capitalize()} {_entity(e)}: seen {_count_of(f.sightings, 'time')} on camera {cameras}, first "
        f"{_t(first.t_start)}, last {_t(last.t_end)} on camera {last.camera}{_there(last)}: "
        f"{last.description or 'no description'} (observation {last.id})."
    )
    if f.taken is not None:
        text += f" Then it was taken {_t(f.taken.t)}."
    if f.facts:
        text += " Memory has learnt: " + "; ".join(f.facts) + "."
    return text


def _habit(f: Habit) -> str:
    e = f.entity
    if e is None:
        return "Memory holds nothing that matches the question."
    lead = ""
    if f.owner_unknown:  # "whose car is that?": an owner is learnt from who is seen with it, day after day
        lead = (
            f"I don't know whose {e.category} #{e.id} is: memory has learnt no owner for it (it learns one from the "
            "person seen with a thing over days). "
        )
    if not f.facts:
        rest = render(f.fallback) if f.fallback is not None else ""
        return lead + f"Memory has learnt nothing yet about entity #{e.id}; " + rest
    return lead + f"Entity {_entity(e)} ({e.category}): {'; '.join(f.facts)}."


_RENDERERS: dict[type, Callable[[Any], str]] = {
    Unreadable: _unreadable,
    NotSeen: _not_seen,
    Exists: _exists,
    Left: _left,
    Alternatives: _alternatives,
    Seen: _seen,
    Count: _count,
    Kinds: _kinds,
    Both: _both,
    Moved: _moved,
    Stayed: _stayed,
    Returned: _returned,
    Attribute: _attribute,
    Cameras: _cameras,
    Company: _company,
    Listing: _listing,
    Order: _order,
    Recorded: _recorded,
    Same: _same,
    Duration: _duration,
    Summary: _summary,
    Habit: _habit,
    Profile: _profile,
}


def render(finding: Finding) -> str:
    """The finding in English."""
    return _RENDERERS[type(finding)](finding)


def _json(value: Any) -> Any:
    if isinstance(value, Observation):
        return cite(value)
    if isinstance(value, Entity):
        return {"entity": value.id, "category": value.category, "name": value.name}
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _json(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, (list, tuple)):
        return [_json(v) for v in value]
    return value


def finding_json(finding: Finding) -> dict[str, Any]:
    """The finding as JSON: its type, its fields, its evidence as citations and its typed value."""
    out: dict[str, Any] = {"type": type(finding).__name__}
    out.update(_json(finding))
    typed = finding.typed
    out["typed"] = typed if isinstance(typed, (bool, int, float, str)) or typed is None else str(typed)
    return out
