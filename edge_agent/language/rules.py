"""Rules in plain words, read into the grammar's :class:`~edge_agent.language.grammar.RuleReading` by the same
reader as questions (ReflectWorld-MM's user rules): the subject as a question's subject ("the white van", "a
stranger"), a trigger (appears, leaves, enters, is on / in / near, not seen for a span, the n-th time), the place or
thing it is about (a camera, a zone or named place, a detected thing, a named entity, or nothing: "the van
leaves"), for how long and when in the day. What cannot be read raises :class:`Unreadable` naming the word."""

from __future__ import annotations

from collections.abc import Sequence

from edge_agent.language.grammar import Place, RuleReading, Subject, Trigger, Unreadable
from edge_agent.language.lexicon import (
    AUX,
    DETERMINERS,
    DRIVE_VERBS,
    DRIVEN,
    EVENT_VERBS,
    FILLER,
    PLACE_PREPOSITIONS,
    PRONOUNS,
    Lexicon,
    outdoor_cameras,
    tokenize,
)
from edge_agent.language.reader import (
    _CAMERA_WORDS,
    _PREPOSITION_WORDS,
    _ROOM_WORDS,
    CLOTHES,
    NOT_THINGS,
    STATES,
    THING_STATES,
    TOLD_APART,
    Reader,
    _Phrase,
    _place_word,
)
from edge_agent.language.times import MEALTIMES, NUMBER_WORDS, PARTS

__all__ = ["read_rule", "read_as_any_person"]


def read_rule(reader: Reader, text: str) -> RuleReading:
    """A rule in the grammar's slots: who or what (as a question's subject), the trigger (appears, leaves, enters,
    is on / in / near a place or a thing, not seen for a span, the n-th time), for how long, when in the day.
    :class:`Unreadable` says which word could not be read, or what is missing."""
    tokens, _ = reader.lexicon.respell(tokenize(text))  # typos: "notifiy me if somone is in the bedrom"
    if not tokens:
        raise Unreadable("the rule is empty", missing="rule")
    _refuse_not_telling(tokens, text)
    body = _worn(_empty_room(_refuse_conditions(tokens[_lead(tokens) :], text), reader.lexicon), reader.lexicon)
    body = _outdoors_said(body, reader.lexicon)
    _refuse_unknown_camera(body, reader.lexicon)
    moment, used = _moment(_deadline(body))  # before the parts of the day: "at 9 in the morning" is a moment
    body = [t for j, t in enumerate(body) if j not in used]
    (window, used), (days, on_days) = _day_window(body), _days_said(body)
    body = [t for j, t in enumerate(body) if j not in used | on_days]
    negated, used = _negation(body)
    body = [t for j, t in enumerate(body) if j not in used]
    times, per, within, used = _nth_time(body)
    body = [t for j, t in enumerate(body) if j not in used]
    at_once, used = _count_at_once(body, reader.lexicon)
    body = [t for j, t in enumerate(body) if j not in used]
    _refuse_comparisons(body, reader.lexicon)
    _refuse_states(body, text, reader.lexicon)
    span, span_at, used = _span_said(body)
    body = [t for j, t in enumerate(body) if j not in used]
    _refuse_since(body, text)
    trigger, at, end = _found_trigger(reader, body, text)
    verb_end = end  # the trigger's verb; a preposition closing it is read as a place's ("is on the sofa")
    while verb_end > at + 1 and any(body[verb_end - 1 : end] == list(key) for key in PLACE_PREPOSITIONS):
        verb_end -= 1
    while verb_end > at + 1 and (body[verb_end - 1],) in PLACE_PREPOSITIONS:
        verb_end -= 1
    phrases, _ = reader.phrases(body, frozenset(range(at, verb_end)))
    named = {j for p in phrases if p.name for j in range(p.start, p.end)}  # "Grandma" the user named is no relation
    _refuse_a_relation([w for j, w in enumerate(body[:at]) if j not in named], text)
    head, stranger, after = _head_of(reader, body, phrases, (at, end), text)
    if head.end > head.start:  # a phrase said (not "an unfamiliar face", read as a stranger)
        _refuse_doings(body[head.end : at], reader.lexicon, text)
    trigger = _none_there(head, trigger, span if moment is None else 0.0, text)
    negated = negated or (head.negative and moment is not None)  # "nobody is in the kitchen at 7pm": a check then
    subject = _subject_of(head, body, stranger)
    target = next((p for p in after if p.thing or p.camera or p.zone or p.name or p.unknown or p.regions), None)
    _refuse_a_second_thing(body, target, after, text)
    _refuse_a_spot_in_a_room(body, target, text)
    camera = next((p.camera for p in phrases if p.camera and p is not target), None)
    trigger = _near_a_thing(trigger, target, body, end)
    place = _place_of(reader, target, trigger, body, end)
    return RuleReading(
        subject=subject,
        trigger=trigger,
        place=place,
        unknown_person=stranger,
        min_duration_s=span if (span is not None and trigger is not Trigger.ABSENT) else 0.0,
        absent_for_s=span if trigger is Trigger.ABSENT else None,
        times=times,
        within_s=within,
        per=per,
        at_once=at_once,
        window=window,
        days=days,
        target_entity=target.entity_id if target is not None and target.name else None,
        target_colours=tuple(target.colour_words) if target is not None and not target.name else (),
        camera=camera,
        at=moment,
        negated=negated,
    )


def _head_of(
    reader: Reader, body: Sequence[str], phrases: Sequence[_Phrase], verb: tuple[int, int], text: str
) -> tuple[_Phrase, bool, list[_Phrase]]:
    """(the rule's subject phrase, whether it is a stranger, the phrases after the trigger's verb at ``verb``): the
    thing named before the verb, else after it ("I haven't seen Rex in 3 days"), else an unfamiliar face; none, an
    unknown word, or two things at once refused."""
    at, end = verb
    before = [p for p in phrases if p.end <= at]
    after = [p for p in phrases if p.start >= end]
    subjects = [p for p in before if p.thing or p.name]
    stranger = _is_stranger(body[:at])
    if not subjects and not stranger and not _unknown_words(body[:at], reader.lexicon):
        subjects = [p for p in after if p.thing and not p.unknown]  # "I haven't seen Rex in 3 days"
        after = [p for p in after if p not in subjects[:1]]
    _refuse_two_subjects(body, subjects, text)
    head = subjects[0] if subjects else None
    if head is None and stranger:  # "an unfamiliar face shows up"
        head = _Phrase(0, 0, "subject", kinds=("person",), said="person")
    if head is None:
        unknown = _unknown_words(body[:at], reader.lexicon)
        if unknown:
            raise Unreadable(f"I don't know what {unknown[0]!r} is", words=tuple(unknown))
        raise Unreadable(f"no subject found in {text.strip()!r}: who or what should the rule watch?", missing="subject")
    if head.unknown:
        raise Unreadable(f"I don't know what {head.unknown!r} is", words=(head.unknown,))
    return head, stranger and head.kinds == ("person",), after


def read_as_any_person(text: str) -> tuple[str, ...]:
    """The words of a rule for people that say a sex or an age ("the kids", "the woman"), which it reads as any person
    (memory does not tell them apart so): what the reading says it did."""
    return tuple(dict.fromkeys(w for w in tokenize(text) if w in TOLD_APART))


def _found_trigger(reader: Reader, body: Sequence[str], text: str) -> tuple[Trigger, int, int]:
    """The rule's trigger and where its words are: a verb, a bare preposition ("a person on the sidewalk"), or none
    said of a thing named ("kitchen person alert"); a word that names nothing, or no relation, refused."""
    unseen = next((what for what, words in _UNSEEN.items() if words & set(body)), None)
    if unseen is not None:  # ("tell me if the baby cries": not read as the baby appearing)
        raise Unreadable(
            f"a rule cannot watch {unseen} (in {text.strip()!r}): the cameras' memory holds the people, animals and "
            "things they saw, where and when, not sounds, the weather, the temperature or moods; say what to watch "
            "('a person appears in the front yard')"
        )
    found = _trigger(body) or _bare_relation(body)
    if found is None:
        phrases, _ = reader.phrases(list(body), frozenset())
        unknown = [p.unknown for p in phrases if p.unknown]  # "the moon is blue"; a verb unknown may be read
        if unknown:
            raise Unreadable(f"I don't know what {unknown[0]!r} is", words=tuple(unknown))
        found = _telegraphic(body, phrases)
    if found is None and set(body) & _MOVED:
        raise Unreadable(
            f"a rule cannot watch a thing being moved (in {text.strip()!r}): say where it must stay or that it leaves "
            "('the bowl leaves the kitchen', 'the keys are not by the door at 11 pm')"
        )
    if found is None:
        raise Unreadable(
            f"no relation found in {text.strip()!r}: say appears, leaves, enters, is on / in / near a place or "
            "a thing, or has not been seen for a time",
            missing="relation",
        )
    return found


#: Words of a thing being moved, which no rule watches: "alert me if the bowl gets moved".
_MOVED = frozenset({"moved", "moves", "move", "shifted", "touched", "disturbed", "relocated"})


#: Words that may stand between a rule's subject and its trigger without saying what it does: "the van finally leaves"
_BETWEEN = frozenset(
    {"still", "ever", "again", "also", "just", "first", "then", "who", "that", "which", "really", "not", "never", "no"}
)


#: Verbs of putting a thing somewhere, which say where it is: "anything is put on the couch"
_PLACED = frozenset({"put", "placed", "set", "left", "dropped", "parked"})


def _refuse_doings(between: Sequence[str], lexicon: Lexicon, text: str) -> None:
    """ "Someone falls down in the bedroom", "the bowl is moved in the kitchen": what the subject does between it and
    the place is no trigger a rule can watch (memory sees where things are, not what they do); refused, never dropped
    (an alert on the child merely being there is a false alarm)."""
    for w in between:
        closed = w in AUX or w in FILLER or w in DETERMINERS or w in PRONOUNS or w in _PREPOSITION_WORDS
        if not w.isalpha() or closed or w in _BETWEEN or w.endswith("ly") or w in NOT_THINGS:
            continue
        if w in EVENT_VERBS and (EVENT_VERBS[w] != "moved" or w in _PLACED):
            continue  # "anything is put on the couch": where it ends up
        if w in _ALERT_WORDS:  # "kitchen person alert"
            continue
        if w in EVENT_VERBS or not lexicon.tag([w])[0].tags:
            raise Unreadable(
                f"a rule cannot watch what is done ({w!r} in {text.strip()!r}): it watches a thing appearing, leaving, "
                "entering, being in / on / near a place or a thing, or not being seen for a time"
            )


def _refuse_a_second_thing(body: Sequence[str], target: _Phrase | None, after: Sequence[_Phrase], text: str) -> None:
    """ "A person is seen at the desk with a phone": a second thing after the place is a second condition, which a
    rule cannot hold; refused, never dropped."""
    if target is None:
        return
    for p in after:
        if p.start > target.start and p.thing and "with" in body[target.end : p.start]:
            raise Unreadable(
                f"a rule watches one thing at one place: {p.said!r} after the place in {text.strip()!r} is a second "
                "condition; make it the place ('a person is next to the cell phone') or the rule's only thing"
            )


#: Words that make a rule hang on a second condition, which a rule cannot hold: "the child is in the kitchen without
#: an adult".
_CONDITIONS = frozenset({"without", "unless", "except", "but"})
#: Words that make a rule hang on whether the household is home, which memory does not know: "while we're away".
_AWAY = (["while", "we", "are", "away"], ["while", "we", "are", "out"], ["when", "we", "are", "out"],
         ["when", "we", "are", "away"], ["while", "i", "am", "away"], ["while", "i", "am", "out"],
         ["when", "i", "am", "out"], ["when", "i", "am", "away"], ["when", "nobody", "is", "home"],
         ["when", "no", "one", "is", "home"], ["while", "nobody", "is", "home"],
         ["when", "the", "house", "is", "empty"], ["while", "we", "are", "on", "holiday"],
         ["while", "we", "are", "on", "vacation"])  # fmt: skip
#: "with nobody there": a condition on who else is there, too.
_NOBODY = frozenset({"nobody", "noone", "nothing", "no"})
#: Words that make it a condition on who else is there: "the baby is alone in the living room".
_ALONE = (["alone"], ["on", "her", "own"], ["on", "his", "own"], ["on", "its", "own"], ["on", "their", "own"],
          ["by", "herself"], ["by", "himself"], ["by", "itself"], ["by", "themselves"], ["unattended"])  # fmt: skip


def _refuse_conditions(body: list[str], text: str) -> list[str]:
    """A rule with a second condition, or a condition on days of the week, is refused in one line rather than read
    without it."""
    said = next((w for j, w in enumerate(body) if w in _CONDITIONS and body[j + 1 : j + 2] != ["only"]), None)
    said = said or next((f"with {n}" for w, n in zip(body, body[1:]) if w == "with" and n in _NOBODY), None)
    alone = next(
        (" ".join(body[j : j + len(w)]) for j in range(len(body)) for w in _ALONE if body[j : j + len(w)] == w), None
    )
    said = said or alone
    away = next((" ".join(w) for j in range(len(body)) for w in _AWAY if body[j : j + len(w)] == w), None)
    if away is not None:
        raise Unreadable(
            f"memory does not know when the household is home, so '{away}' cannot hold a rule (in {text.strip()!r}); "
            "give the hours instead ('between 9 am and 5 pm', 'on weekdays')"
        )
    unknown = (["not", "know"], ["not", "recognise"], ["not", "recognize"])
    stranger = any(body[j : j + 2] in unknown for j in range(len(body)))
    if said is not None:
        hint = "; for someone memory has no name for, say 'a stranger' ('tell me when a stranger appears')"
        raise Unreadable(
            f"a rule watches one thing at one place; it cannot hold '{said} ...' (in {text.strip()!r})"
            + (hint if stranger else "")
        )  # no word unknown and nothing missing: final, no model reads it better
    return body


def _days_said(body: list[str]) -> tuple[tuple[str, ...], set[int]]:
    """(the days of the week, tokens used) of "on weekends", "on weekdays", "on Mondays", "every saturday and sunday"
    ('mon' ... 'sun')."""
    days: list[str] = []
    used: set[int] = set()
    for j, w in enumerate(body):
        if w not in _DAYS_OF_WEEK:
            continue
        days.extend(_DAYS_OF_WEEK[w])
        used.add(j)
        if j > 0 and body[j - 1] in ("on", "every", "during", "over", "at", "and", "or", "the", "weekly"):
            used.add(j - 1)
        if j > 1 and body[j - 1] == "the" and body[j - 2] in ("on", "at", "over", "during"):
            used.add(j - 2)
    return tuple(d for d in _WEEK if d in days), used


#: The verbs that put a thing in a state no camera memory records (reader.THING_STATES): "the tv gets turned on".
_STATE_VERBS = frozenset(
    {"turned", "turns", "turn", "switched", "switches", "switch", "left", "gets", "get", "goes", "go", "is", "are",
     "was", "were", "been", "comes", "come", "stays", "kept", "flicked", "flicks", "flips", "flipped", "being"}
)  # fmt: skip


#: Ways a vehicle turns off: "the car turns off the road" leaves it.
_ROADS = frozenset({"road", "street", "drive", "driveway", "lane", "highway", "motorway", "path", "track"})
#: Verbs that turn a thing on or off ("someone turns on the tv"): its state, not a place.
_TURNING = frozenset({"turn", "turns", "turned", "turning", "switch", "switches", "switched", "switching", "flick",
                      "flicks", "flicked", "flip", "flips", "flipped"})  # fmt: skip


def _refuse_states(body: list[str], text: str, lexicon: Lexicon) -> None:
    """ "Buzz me when the tv gets turned on", "tell me if the door is open": a state memory does not record (it holds
    who and what the cameras saw, where and when), refused in one line rather than read as a place "on" nothing."""
    words = [w for w in body if w not in ("?", ".", "!", ",")]
    views = {w for c in lexicon.cameras for w in tokenize(c)} | _ROADS  # "the car turns off the street": it leaves
    turned = next(
        (w for j, (v, w) in enumerate(zip(words, words[1:])) if v in _TURNING and w in ("on", "off")
         and not views & set(words[j + 2 : j + 4])),
        None,
    )  # fmt: skip
    # "someone turns the tv on": the particle after what is turned, the rule's last word
    if turned is None and words[-1:] in (["on"], ["off"]) and _TURNING & set(words[-5:-2]):
        turned = words[-1]
    if turned is not None or len(words) >= 2 and words[-1] in THING_STATES and words[-2] in _STATE_VERBS:
        raise Unreadable(
            f"memory records who and what the cameras saw, where and when, not whether a thing is "
            f"{turned or words[-1]}: it cannot watch for that (in {text.strip()!r}); it can watch for someone near it "
            f"or for it to appear"
        )


#: Days of the week, which no rule holds on (a time of day, yes).
_WEEK = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
#: Words for days of the week, with the days they mean.
_DAYS_OF_WEEK = {
    **dict.fromkeys(("weekend", "weekends"), ("sat", "sun")),
    **dict.fromkeys(("weekday", "weekdays", "workdays", "workday"), _WEEK[:5]),
    **{name: (short,) for short, full in zip(_WEEK, ("monday", "tuesday", "wednesday", "thursday", "friday",
       "saturday", "sunday")) for name in (full, full + "s")},
}  # fmt: skip


_EMPTY = frozenset({"empty", "deserted", "unoccupied", "vacant", "quiet"})


def _empty_room(body: list[str], lexicon: Lexicon) -> list[str]:
    """ "The bedroom is empty for 30 minutes": nobody is in the bedroom for 30 minutes (a camera's view with no
    person in it)."""
    k = next((j for j, w in enumerate(body) if w in _EMPTY and j > 0 and body[j - 1] in _EMPTY_VERBS), None)
    if k is None:
        return body
    camera = next((sp for sp in reversed(lexicon.tag(body[: k - 1])) if sp.of("camera")), None)
    if camera is None:
        return body
    return ["nobody", "is", "in", *body[camera.start : camera.end], *body[k + 1 :]]


_EMPTY_VERBS = frozenset({"is", "stays", "remains", "goes", "been", "was", "gets"})


#: Words of what no camera's memory holds, by what it is: "alert me if it starts raining", "if the baby cries", "if it
#: gets too cold in the lounge", "if grandma seems sad", "when someone rings the doorbell".
_UNSEEN = {
    "the weather": frozenset(
        {"rain", "rains", "raining", "rained", "snow", "snows", "snowing", "storm", "storms", "stormy", "thunder",
         "lightning", "hail", "hailing", "fog", "foggy", "windy", "sunny", "weather", "drizzle", "drizzling", "sleet"}
    ),
    "sounds": frozenset(
        {"cries", "crying", "cry", "cried", "barks", "barking", "bark", "rings", "ringing", "rang", "doorbell", "bell",
         "noise", "noises", "noisy", "loud", "sound", "sounds", "hear", "hears", "heard", "alarm", "shouts",
         "shouting", "screams", "screaming", "yells", "yelling", "knocks", "knocking", "music", "talking"}
    ),
    "the temperature": frozenset({"cold", "colder", "freezing", "temperature", "heating", "chilly"}),
    "moods": frozenset({"sad", "upset", "happy", "angry", "scared", "mood", "lonely", "worried", "unhappy", "cross"}),
}  # fmt: skip


def _refuse_since(body: Sequence[str], text: str) -> None:
    """ "Hasn't been seen in the kids room since this morning": a rule watches every day, so "since" (a time left when
    the rest is read) has no start; refused with what would work."""
    if "since" in body:
        raise Unreadable(
            f"a rule watches every day, so 'since' has no start (in {text.strip()!r}): say for how long ('has not been "
            "seen for 4 hours') or by when ('is not in the kitchen by noon')",
            missing="span",
        )


def _refuse_not_telling(tokens: Sequence[str], text: str) -> None:
    """ "Don't tell me about people at the front, only strangers": a rule says what to tell, not what to keep quiet
    about; refused with the rule that would say it."""
    words = [t for t in tokens if t not in ("please", ",")]
    if (
        words[:2] == ["do", "not"]
        and words[2:3]
        and words[2] in _TELLING
        or words[:1] == ["never"]
        and words[1:2]
        and (words[1] in _TELLING)
    ):
        raise Unreadable(
            f"a rule says what to tell you about, not what to keep quiet about (in {text.strip()!r}): say what you "
            "want to hear of, e.g. 'tell me when a stranger appears in the front yard'"
        )


#: Verbs of telling that start a rule: "tell me ...", "don't alert me ...".
_TELLING = frozenset({"tell", "notify", "alert", "ping", "warn", "message", "bother", "inform", "let", "send", "text"})


def _refuse_two_subjects(body: Sequence[str], subjects: Sequence[_Phrase], text: str) -> None:
    """ "The grey car and the white truck are both in the front yard": two things at once, which a rule cannot watch;
    refused (not read as the first alone), with what would work."""
    two = [(a, b) for a, b in zip(subjects, subjects[1:]) if {"and", "or"} & set(body[a.end : b.start])]
    if two:
        a, b = two[0]
        raise Unreadable(
            f"a rule watches one thing: {a.said!r} and {b.said!r} in {text.strip()!r} are two; make a rule for each "
            f"('the {a.said} is in ...', 'the {b.said} is in ...')"
        )


def _refuse_a_spot_in_a_room(body: Sequence[str], target: _Phrase | None, text: str) -> None:
    """ "The cat jumps on the kitchen counter": a spot memory has no name for, in a room it knows, is refused (not read
    as anywhere in the kitchen, which would fire on the cat anywhere there), with what would work instead."""
    if target is None or not target.camera or target.end >= len(body):
        return
    w = body[target.end]
    if not _place_word(w) or w in _CAMERA_WORDS or w in _ROOM_WORDS or w in ("area", "one", "side"):
        return
    raise Unreadable(
        f"I don't know a place called {w!r} on camera {target.camera!r} (in {text.strip()!r}): say it of the room "
        f"('... appears in the {target.said}'), or draw a zone named {w!r} on that camera",
        words=(w,),
        place=True,
    )


def _none_there(head: _Phrase, trigger: Trigger, span: float | None, text: str) -> Trigger:
    """ "Nobody has been in the kitchen for 2 hours", "no car is on the driveway for an hour": none seen there for that
    long, an absence; without a span, refused ("nobody is in the kitchen at 7pm", checked then, is the caller's)."""
    if not head.negative or trigger is Trigger.ABSENT or span == 0.0:  # (0: a check at a moment says when)
        return trigger
    if span is None:
        raise Unreadable(
            f"for how long must {head.said!r} hold? e.g. 'nobody has been in the kitchen for 2 hours' (in "
            f"{text.strip()!r})",
            missing="span",
        )
    return Trigger.ABSENT


def _place_of(reader: Reader, target: _Phrase | None, trigger: Trigger, body: Sequence[str], end: int) -> Place:
    """The place a rule's trigger names: a camera, a zone, a named entity or a kind of thing; a zone's name over a
    kind ("leaves the sofa": the zone, not any couch); a camera's name over a kind for coming and going ("comes to
    the desk" where a camera is the desk). Words the trigger wants as a place that name nothing are refused."""
    if target is not None and (target.unknown or target.regions):
        word = target.unknown or target.said
        raise Unreadable(f"I don't know a place or thing called {word!r}", words=(word,), place=True)
    if target is None:
        unread = _place_unread(body, end) or _place_said_after(body, end, reader.lexicon)
        if unread:
            return _outside(reader.lexicon, unread)
        return Place()
    zones = {z.lower(): z for z in reader.lexicon.zones}
    if not target.zone and target.said in zones:
        target.zone = zones[target.said]
    named_camera = reader.lexicon.tag(tokenize(target.said))[0].of("camera")
    into = trigger in (Trigger.APPEARS, Trigger.ENTERS, Trigger.LEAVES, Trigger.AT)  # "on the desk" is the furniture
    if target.kinds and not target.camera and named_camera is not None and into:
        target.camera = named_camera.value[0]
    if target.camera:
        return Place(cameras=(target.camera,))
    if target.zone:
        return Place(zones=(target.zone,))
    return Place(near=(target.name or target.said,))


def _outdoors_said(body: list[str], lexicon: Lexicon) -> list[str]:
    """ "A dog is outside", "a bus stops out front": on the one camera whose name says it looks outdoors, as "in the
    street" would say it (several such cameras: left for the place reader to ask which)."""
    cameras = outdoor_cameras(lexicon.cameras)
    if len(cameras) != 1:
        return body
    for j, w in enumerate(body):
        said = 2 if body[j : j + 2] == ["out", "front"] else 1 if w in ("outside", "outdoors") else 0
        if said and body[j + said : j + said + 1] not in (["the"], ["of"], ["a"]):  # not "outside the kitchen"
            lead = ["in"] if j == 0 or body[j - 1] not in _PREPOSITION_WORDS else []
            return [*body[:j], *lead, *tokenize(cameras[0]), *body[j + said :]]
    return body


def _outside(lexicon: Lexicon, unread: str) -> Place:
    """ "Out front", "outside": the one camera whose name says it looks outdoors (the street, the front door), as a
    question reads them; refused when no camera or several do, or the words say another place."""
    cameras = outdoor_cameras(lexicon.cameras)
    if unread.split()[-1] not in _OUTSIDE or not cameras:
        raise Unreadable(f"I don't know a place or thing called {unread!r}", words=(unread,), place=True)
    if len(cameras) > 1:
        raise Unreadable(
            f"{unread!r}: which camera, {' or '.join(cameras)}? say 'on camera {cameras[0]}'", missing="camera"
        )
    return Place(cameras=cameras)


#: Words after "out" (or alone) for outdoors: "out front", "outside", "out the front".
_OUTSIDE = frozenset({"front", "outside", "outdoors"})


_LEADS = (
    ("please",),
    ("notify", "me"),
    ("notify", "us"),
    ("tell", "me"),
    ("tell", "us"),
    ("alert", "me"),
    ("alert", "us"),
    ("warn", "me"),
    ("warn", "us"),
    ("ping", "me"),
    ("message", "me"),
    ("text", "me"),
    ("email", "me"),
    ("remind", "me"),
    ("let", "me", "know"),
    ("let", "us", "know"),
    ("i", "want", "to", "know"),
    ("send", "me", "an", "alert"),
    ("send", "an", "alert"),
    ("alert",),
    ("notify",),
    (",",),
    ("whenever",),
    ("when",),
    ("if",),
    ("as", "soon", "as"),
    ("each", "time"),
    ("every", "time"),
    ("once",),
    # a polite request around the rule: "would you be so kind as to alert me ...", "could you tell me when ..."
    ("would", "you", "be", "so", "kind", "as", "to"),
    ("would", "you", "mind"),
    ("could", "you"),
    ("can", "you"),
    ("would", "you"),
    ("i", "would", "like", "you", "to"),
    ("i", "want", "you", "to"),
)


def _lead(tokens: Sequence[str]) -> int:
    """Where the condition starts: after "notify me when", "let me know if", "please", ..."""
    at = 0
    moved = True
    while moved:
        moved = False
        for lead in _LEADS:
            if tuple(tokens[at : at + len(lead)]) == lead:
                at += len(lead)
                moved = True
                break
    return at


_PARTS_OF_DAY = {
    ("at", "night"): ("22:00", "06:00"),
    ("during", "the", "night"): ("22:00", "06:00"),
    ("overnight",): ("22:00", "06:00"),
    ("in", "the", "night"): ("22:00", "06:00"),
    ("in", "the", "morning"): ("06:00", "12:00"),
    ("in", "the", "mornings"): ("06:00", "12:00"),
    ("in", "the", "afternoon"): ("12:00", "18:00"),
    ("in", "the", "afternoons"): ("12:00", "18:00"),
    ("in", "the", "evening"): ("18:00", "23:00"),
    ("in", "the", "evenings"): ("18:00", "23:00"),
    ("during", "the", "day"): ("08:00", "20:00"),
    ("tonight",): ("18:00", "06:00"),  # a rule runs every day: "3 times tonight" is each evening and night
    # after dark: from an evening's dusk (memory knows no sunset; said so in the reading's window)
    **{
        words: ("18:00", "06:00")
        for words in (
            ("after", "dark"),
            ("after", "sunset"),
            ("after", "nightfall"),
            ("when", "it", "is", "dark"),
            ("in", "the", "dark"),
        )
    },
    **{  # "at dinner time", "during lunch", "over breakfast"
        (*lead, meal, *time): (f"{PARTS[meal][0]:02d}:00", f"{PARTS[meal][1]:02d}:00")
        for meal in MEALTIMES
        for lead in (("at",), ("during",), ("over",), ("around",), ("at", "around"))
        for time in ((), ("time",))
    },
    **{
        (*lead, kind, "hours"): hours
        for kind in ("work", "working", "office", "business", "opening")
        for lead, hours in (
            (("during",), ("09:00", "17:00")),
            (("in",), ("09:00", "17:00")),
            (("outside",), ("17:00", "09:00")),
            (("outside", "of"), ("17:00", "09:00")),
        )
    },  # fmt: skip
    ("after", "hours"): ("17:00", "09:00"),
}


def _clock(tokens: Sequence[str], i: int) -> tuple[str, int] | None:
    """'HH:MM' of a clock time at ``tokens[i]`` ("10pm", "6:30 am", "22:00", "noon"), and tokens used."""
    w = tokens[i] if i < len(tokens) else ""
    if w in ("noon", "midday"):
        return "12:00", 1
    if w == "midnight":
        return "00:00", 1
    parts = w.split(":")[:3]  # "9:00:30": a rule's day runs in minutes
    if not all(p.isdigit() for p in parts) or w.count(":") > 2 or not parts[0]:
        return None
    hour, minute = int(parts[0]), int(parts[1]) if len(parts) == 2 else 0
    n = 1
    half = tokens[i + 1] if i + 1 < len(tokens) and tokens[i + 1] in ("am", "pm") else ""
    if half:
        n = 2
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if half == "pm" else 0)
    if hour > 23 or minute > 59:
        return None
    return f"{hour:02d}:{minute:02d}", n


#: Parts of the day said after a bare hour, and the half of the day each puts it in: "after 9 at night".
_HALVES = {("at", "night"): "pm", ("in", "the", "evening"): "pm", ("tonight",): "pm", ("in", "the", "morning"): "am",
           ("in", "the", "afternoon"): "pm", ("this", "evening"): "pm", ("this", "morning"): "am"}  # fmt: skip


def _half_said(tokens: Sequence[str], at: int) -> tuple[str, int] | None:
    """("am" or "pm", tokens used) of a part of the day said at ``tokens[at]`` ("at night"), else None."""
    return next(((h, len(w)) for w, h in _HALVES.items() if tuple(tokens[at : at + len(w)]) == w), None)


#: "After" a time from this one on runs through the night, until the morning ("after 11pm": until 6 am)
_EVENING, _MORNING = "18:00", "06:00"


def _day_window(tokens: Sequence[str]) -> tuple[tuple[str, str] | None, set[int]]:
    """A rule's time of day: "at night", "in the morning", "between 10pm and 6:30am", "from 9 to 5", "after 3pm"
    (until midnight), "after 10pm" (through the night, until 6 am), "before 7am" (from midnight)."""
    for i in range(len(tokens)):
        if tokens[i] in ("after", "before", "until", "till") and i + 1 < len(tokens):
            clock = _clock(tokens, i + 1)
            said = tokens[i + 1]  # a clock time said as one: "10pm", "22:00", "noon", "17" (not "before midnight")
            unit = tokens[i + 2] if i + 2 < len(tokens) else ""
            bare = clock is not None and clock[1] == 1 and said.isdigit() and 1 <= int(said) <= 12
            half = _half_said(tokens, i + 2)
            if bare and half is not None:  # "after 9 at night": 9pm, by the part of the day said after it
                clock = (f"{int(said) % 12 + (12 if half[0] == 'pm' else 0):02d}:00", 1 + half[1])
            elif bare and unit not in _SPAN_UNITS:
                raise Unreadable(
                    f"'{tokens[i]} {said}': morning or evening? say '{tokens[i]} {said}am' or '{tokens[i]} {said}pm'",
                    missing="time",
                )  # "after 11" silently read either way fires half a day wrong
            if clock is not None and clock[0] == "00:00" and unit not in _SPAN_UNITS:
                if tokens[i] != "after":  # "before midnight": from when is not said
                    raise Unreadable(
                        f"'{tokens[i]} midnight': from when? say 'between 8pm and midnight'", missing="time"
                    )
                return ("00:00", _MORNING), set(range(i, i + 1 + clock[1]))  # "after midnight": until the morning
            if clock is not None and clock[0] != "00:00" and unit not in _SPAN_UNITS:
                # after an evening's hour, through the night ("after 11pm": someone there at 1 am too)
                night = tokens[i] == "after" and clock[0] >= _EVENING
                window = (clock[0], _MORNING if night else "00:00") if tokens[i] == "after" else ("00:00", clock[0])
                return window, set(range(i, i + 1 + clock[1]))
        for words, window in _PARTS_OF_DAY.items():
            if tuple(tokens[i : i + len(words)]) == words:
                return window, set(range(i, i + len(words)))
        if tokens[i] in ("between", "from"):
            first = _clock(tokens, i + 1)
            if first is not None and i + 1 + first[1] < len(tokens) and tokens[i + 1 + first[1]] in ("and", "to"):
                j = i + 2 + first[1]
                second = _clock(tokens, j)
                if second is not None:
                    return (first[0], _afternoon(tokens[j], second, first[0])), set(range(i, j + second[1]))
    return None, set()


def _afternoon(said: str, clock: tuple[str, int], start: str) -> str:
    """The end of "between 9 and 5", "from 10 to 2": a bare hour earlier than a morning start is in the afternoon
    (17:00, 14:00), as people mean it."""
    bare = clock[1] == 1 and said.isdigit() and 1 <= int(said) <= 12
    if bare and clock[0] < start < "12:00":
        return f"{int(clock[0][:2]) + 12:02d}{clock[0][2:]}"
    return clock[0]


def _moment(tokens: Sequence[str]) -> tuple[str | None, set[int]]:
    """A moment of the day to check at: "at 11 pm", "at 23:00", "at noon", "at 9 in the morning" (a clock time said
    unambiguously: "at 3" may be a place's number)."""
    for i in range(len(tokens) - 1):
        if tokens[i] == "at":
            clock = _clock(tokens, i + 1)
            said = tokens[i + 1]
            half = _half_said(tokens, i + 2)
            if clock is not None and clock[1] == 1 and said.isdigit() and 1 <= int(said) <= 12 and half is not None:
                return f"{int(said) % 12 + (12 if half[0] == 'pm' else 0):02d}:00", set(range(i, i + 2 + half[1]))
            if clock is not None and (clock[1] == 2 or ":" in said or said in ("noon", "midday", "midnight")):
                return clock[0], set(range(i, i + 1 + clock[1]))
    return None, set()


def _deadline(tokens: list[str]) -> list[str]:
    """A clock time said with "by" ("if nobody is in the kitchen by 7pm"), or after a state that is still so ("is
    still in the kids room after 9 in the morning", "the phone is left in the office after 6pm"), is a moment to check
    at: said "at" (not where a span is said: "stays for 10 minutes after 10pm" is a stay in a window)."""
    left = any(
        w == "left" and tokens[i - 1] in ("is", "are", "was", "were", "been", "gets") for i, w in enumerate(tokens)
    )
    staying = "still" in tokens or left
    out = list(tokens)
    if "for" in tokens:  # a span said: "nobody has been in the kitchen for 2 hours by 7pm" is not a check at a moment
        return out
    for i, w in enumerate(tokens[:-1]):
        if (w == "by" or w == "after" and staying) and _clock(tokens, i + 1) is not None:
            out[i] = "at"
    return out


#: Words after "is not" that make it a place negated ("is not by the door"), not an absence ("is not seen").
_NEGATED_PLACES = frozenset({"on", "in", "at", "by", "near", "next", "beside", "inside", "onto", "there", "home"})


def _negation(tokens: Sequence[str]) -> tuple[bool, set[int]]:
    """ "is not by the door", "are not on the shelf": the "not" of a place relation (read without it, and kept as
    ``negated``); "is not seen", "has not been seen" stay absences."""
    for i in range(1, len(tokens) - 1):
        if tokens[i] == "not" and tokens[i - 1] in ("is", "are", "was", "were") and tokens[i + 1] in _NEGATED_PLACES:
            return True, {i}
    return False, set()


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
_PERIODS = {"hour": 3600.0, "day": 86400.0, "today": 86400.0, "week": 604800.0, "month": 2592000.0}


def _nth_time(tokens: Sequence[str]) -> tuple[int | None, str, float | None, set[int]]:
    """(times, per, within_s, tokens used) of "for the third time this week", "3 times in an hour", "on 3 different
    days this week"."""
    for i, w in enumerate(tokens):
        n = _ORDINALS.get(w) or (int(w[:-2]) if w[:-2].isdigit() and w.endswith(("st", "nd", "rd", "th")) else None)
        if n is None and tokens[i + 1 : i + 2] == ["times"] and (w.isdigit() or w in NUMBER_WORDS):
            n = int(w) if w.isdigit() else NUMBER_WORDS[w]  # "comes 3 times in an hour": the third time in one
            n = n if w not in ("a", "an") else None
        once = {"twice": 2, "thrice": 3}.get(w)  # "twice in a day"
        if once or (n is not None and i + 1 < len(tokens) and tokens[i + 1] in ("time", "times")):
            n, j = (once, i + 1) if once else (n, i + 2)
            while j < len(tokens) and tokens[j] in ("this", "in", "a", "an", "the", "last", "within", "per", "one"):
                j += 1
            first = i - 2 if tokens[i - 1 : i] == ["the"] and tokens[i - 2 : i - 1] == ["for"] else i
            first = i - 1 if first == i and tokens[i - 1 : i] == ["the"] else first
            if (
                n is not None
                and not once
                and (tokens[max(0, i - 2) : i] == ["more", "than"] or tokens[i - 1 : i] == ["over"])
            ):
                n, first = n + 1, i - (2 if tokens[i - 1] == "than" else 1)  # "more than 3 times": the 4th
            if j < len(tokens) and tokens[j] in _PERIODS:
                return n, "episode", _PERIODS[tokens[j]], set(range(first, j + 1))
            later = next(
                (
                    k
                    for k in range(j, len(tokens))
                    if tokens[k] in _PERIODS and tokens[k - 1] in ("this", "each", "every")
                ),
                None,
            )
            if not once and n == 1 and later is not None:  # "the first time each day": once a day
                raise Unreadable(
                    f"'the first time each {tokens[later]}': a rule fires each time its thing comes; say how long it "
                    f"keeps quiet after an alert instead (rules add ... --cooldown {int(_PERIODS[tokens[later]])})"
                )
            if (
                not once and n is not None and later is not None
            ):  # "the 2nd time a truck shows up this week", "each day"
                return n, "episode", _PERIODS[tokens[later]], {*range(first, i + 2), later - 1, later}
            if not once and n is not None and n >= 2:  # "the third time he enters", "3 times tonight": in a day
                return n, "episode", _PERIODS["day"], set(range(first, i + 2))
        if w == "on" and i + 2 < len(tokens):
            amount = tokens[i + 1]
            count = int(amount) if amount.isdigit() else NUMBER_WORDS.get(amount) or _ORDINALS.get(amount)
            j = i + 2
            while j < len(tokens) and tokens[j] in ("different", "separate", "distinct"):
                j += 1
            if count and j < len(tokens) and tokens[j] in ("days", "day"):
                k = j + 1
                while k < len(tokens) and tokens[k] in ("this", "in", "a", "the", "last", "within"):
                    k += 1
                period = tokens[k] if k < len(tokens) and tokens[k] in ("week", "month") else "week"
                end = k + 1 if k < len(tokens) and tokens[k] in ("week", "month") else j + 1
                return int(count), "day", _PERIODS[period], set(range(i, end))
    return None, "episode", None, set()


def _subject_of(head: _Phrase, tokens: Sequence[str], stranger: bool) -> Subject:
    """The rule's subject: its head phrase's, but a vehicle where someone parks or drives ("somebody parks on the
    street")."""
    if head.kinds == ("person",) and head.entity_id is None and not stranger and set(tokens) & DRIVE_VERBS:
        return Subject(kinds=DRIVEN, said="vehicle")
    return Subject(
        kinds=head.kinds, said=head.said, name=head.name, entity_id=head.entity_id, colours=tuple(head.colour_words),
        pattern=head.pattern, generic=head.generic and not head.kinds,
    )  # fmt: skip


def _count_at_once(tokens: Sequence[str], lexicon: Lexicon) -> tuple[int | None, set[int]]:
    """(how many, tokens used) of "more than 3 people are in the living room" (4), "at least 2 dogs", "3 or more cars",
    "over 5 people": that many of the kind there at the same moment. "Fewer than 2" is refused: a rule watches for
    things there, not for too few."""
    kinds = lexicon.kind_words()
    for i in range(len(tokens)):
        rest = list(tokens[i:])
        if rest[:1] in (["a"], ["an"]) and len(rest) > 2 and _ORDINALS.get(rest[1], 1) > 1 and rest[2] in kinds:
            return _ORDINALS[rest[1]], {i + 1}  # "a second person shows up": two of them there at once
        said = next((len(lead) for lead in _AT_ONCE if rest[: len(lead)] == lead), None)
        amount, noun = (rest[said : said + 1], rest[said + 1 : said + 2]) if said else (rest[:1], rest[3:4])
        if said is None and rest[1:3] != ["or", "more"]:
            continue
        number = amount and (amount[0].isdigit() or (amount[0] in NUMBER_WORDS and amount[0] not in ("a", "an")))
        if not (number and noun and noun[0] in kinds):
            continue
        n = int(amount[0]) if amount[0].isdigit() else NUMBER_WORDS[amount[0]]
        lead = rest[:said] if said else []
        if lead in (["fewer", "than"], ["less", "than"], ["at", "most"]):
            counted = " ".join(rest[: (said or 0) + 2])
            raise Unreadable(
                f"a rule watches for things being there, not for too few ({counted!r}); say 'no {noun[0]} ... for 2 "
                "hours' for none at all",
                missing="count",
            )
        n += 1 if lead in (["more", "than"], ["over"]) else 0
        if n < 2:
            continue  # "more than 0 people", "at least one dog": any of them
        used = set(range(i, i + (said + 1 if said else 3)))
        return n, used
    return None, set()


def _refuse_comparisons(tokens: Sequence[str], lexicon: Lexicon) -> None:
    """ "Tell me if the truck stays longer than the car": a rule watches one thing, never held against another; refused
    with what it can watch, rather than read as the first thing alone."""
    kinds = lexicon.kind_words()
    for i, w in enumerate(tokens):
        if w != "than" or i == 0:
            continue
        rest = [t for t in tokens[i + 1 : i + 4] if t not in ("the", "a", "an", "any", "my", "that")]
        if rest and (rest[0] in kinds or rest[0] in lexicon.names):
            said = " ".join(tokens[max(0, i - 1) : i + 3])
            raise Unreadable(
                f"a rule watches one thing and cannot hold it against another ({said!r}); it can watch how long one "
                "stays, e.g. 'tell me when the truck is on the street for more than 10 minutes'",
                missing="comparison",
            )


#: What says a count of things at once: "more than 3 people", "at least two cars" ("3 or more dogs" too).
_AT_ONCE = (["more", "than"], ["fewer", "than"], ["less", "than"], ["over"], ["at", "least"], ["at", "most"])


_SPAN_UNITS = {
    "second": 1.0, "seconds": 1.0, "sec": 1.0, "secs": 1.0, "minute": 60.0, "minutes": 60.0, "min": 60.0,
    "mins": 60.0, "hour": 3600.0, "hours": 3600.0, "hr": 3600.0, "hrs": 3600.0, "day": 86400.0, "days": 86400.0,
    "week": 604800.0, "weeks": 604800.0,
}  # fmt: skip


def _span_said(tokens: Sequence[str]) -> tuple[float | None, int, set[int]]:
    """(seconds, where, tokens used) of "for 5 minutes", "for more than an hour", "in 3 days", "for a day"."""
    for i, w in enumerate(tokens):
        if w not in ("for", "in", "within", "during", "over", "after", "than"):  # "still parked after 10 minutes"
            continue
        j = i + 1
        while j < len(tokens) and tokens[j] in ("at", "least", "more", "than", "over", "longer", "about", "the", "last",
                                                  "past"):  # fmt: skip
            j += 1
        amount = tokens[j] if j < len(tokens) else ""
        n = float(amount) if amount.replace(".", "", 1).isdigit() else NUMBER_WORDS.get(amount)
        unit_at = j + 1 if n is not None else j
        if n is None and amount in _SPAN_UNITS and tokens[j - 1 : j] in (["the"], ["last"], ["past"]):
            n = 1.0  # "in the last day"
        if n is not None and unit_at < len(tokens) and tokens[unit_at] in _SPAN_UNITS:
            return float(n) * _SPAN_UNITS[tokens[unit_at]], i, set(range(i, unit_at + 1))
    return None, -1, set()


#: A rule's triggers, as words (any of the spellings), longest first where they overlap.
_TRIGGERS: tuple[tuple[tuple[str, ...], Trigger], ...] = tuple(
    sorted(
        [
            *[(t, Trigger.ABSENT) for t in (
                ("has", "not", "been", "seen"), ("have", "not", "been", "seen"), ("is", "not", "seen"),
                ("are", "not", "seen"), ("has", "not", "shown", "up"), ("have", "not", "shown", "up"),
                ("has", "not", "been", "spotted"), ("has", "not", "appeared"), ("is", "missing"), ("are", "missing"),
                ("goes", "missing"), ("go", "missing"), ("has", "been", "missing"), ("has", "gone", "missing"),
                ("has", "not", "come", "back"), ("is", "not", "back"), ("have", "not", "seen"), ("not", "seen"),
                ("is", "gone", "for"), ("has", "been", "gone"), ("is", "not", "around"),
            )],
            *[(t, Trigger.LEAVES) for t in (
                ("leaves",), ("leave",), ("exits",), ("exit",), ("goes", "out", "of"), ("go", "out", "of"),
                ("walks", "out", "of"), ("gets", "out", "of"), ("drives", "off"), ("drive", "off"),
                ("drives", "away"), ("drive", "away"), ("goes", "away"), ("go", "away"), ("is", "gone"),
                ("are", "gone"), ("departs",), ("depart",), ("walks", "away"), ("walks", "out"), ("pulls", "out", "of"),
                ("pulls", "away"), ("disappears",), ("disappear",), ("goes", "out"), ("moves", "away"), ("gone",),
                ("drives", "out"), ("takes", "off"), ("heads", "off"),
            )],
            *[(t, Trigger.ENTERS) for t in (
                ("enters",), ("enter",), ("comes", "into"), ("come", "into"), ("goes", "into"), ("go", "into"),
                ("walks", "into"), ("walk", "into"), ("gets", "into"), ("get", "into"), ("pulls", "into"),
                ("pull", "into"), ("drives", "into"), ("runs", "into"), ("comes", "in"), ("walks", "in"),
            )],
            *[(t, Trigger.APPEARS) for t in (
                ("sees",), ("spots",), ("detects",), ("catches",),
                ("appears",), ("appear",), ("is", "seen"), ("are", "seen"), ("shows", "up"), ("show", "up"),
                ("turns", "up"), ("turn", "up"), ("arrives",), ("arrive",), ("comes", "home"), ("come", "home"),
                ("comes", "back"), ("come", "back"), ("is", "back"), ("are", "back"), ("gets", "home"),
                ("comes", "by"), ("is", "spotted"), ("is", "detected"), ("is", "here"), ("is", "home"),
                ("comes", "to"), ("come", "to"), ("is", "around"), ("pops", "up"), ("visits",), ("comes",), ("come",),
            )],
            *[(t, Trigger.ON) for t in (
                ("is", "on"), ("are", "on"), ("gets", "on"), ("get", "on"), ("jumps", "on"), ("jump", "on"),
                ("jumps", "onto"), ("climbs", "on"), ("climbs", "onto"), ("sits", "on"), ("sit", "on"),
                ("lies", "on"), ("is", "lying", "on"), ("sleeps", "on"), ("stands", "on"), ("is", "on", "top", "of"),
                ("gets", "onto"), ("is", "up", "on"), ("is", "sitting", "on"), ("is", "sleeping", "on"),
                ("are", "sitting", "on"), ("lands", "on"),
            )],
            *[(t, Trigger.NEAR) for t in (
                ("is", "near"), ("are", "near"), ("is", "next", "to"), ("are", "next", "to"), ("is", "by"),
                ("are", "by"), ("is", "beside"), ("is", "close", "to"), ("comes", "near"), ("goes", "near"),
                ("gets", "near"), ("gets", "close", "to"), ("approaches",), ("is", "standing", "by"),
                ("is", "standing", "near"), ("stands", "by"), ("stands", "near"), ("is", "waiting", "by"),
                ("is", "waiting", "at"), ("hangs", "around"), ("is", "hanging", "around"), ("lingers", "near"),
                ("walks", "past"), ("walk", "past"), ("walks", "by"), ("walk", "by"), ("goes", "past"), ("passes",),
                ("pass",), ("is", "walking", "past"), ("walks", "near"), ("is", "using"), ("uses",), ("is", "holding"),
                ("holds",), ("is", "carrying"), ("carries",), ("picks", "up"), ("is", "playing", "with"),
                ("is", "touching"), ("touches",),
            )],
            *[(t, Trigger.AT) for t in (
                ("is", "in"), ("are", "in"), ("is", "inside"), ("are", "inside"), ("is", "at"), ("are", "at"),
                ("is", "seen", "in"), ("is", "seen", "at"), ("is", "seen", "on"), ("are", "seen", "on"),
                ("stays", "in"), ("is", "parked", "in"), ("is", "parked", "on"), ("parks", "in"), ("parks", "on"),
                ("stops", "in"), ("stops", "at"), ("waits", "in"), ("waits", "at"), ("remains", "in"),
            )],
            *[(t, Trigger.APPEARS) for t in (
                ("is", "still", "parked"), ("is", "still", "there"), ("is", "still", "here"), ("is", "parked"),
                ("stays",), ("is", "still", "around"), ("is", "there"), ("sits", "there"), ("stays", "there"),
                ("stops",), ("remains",), ("waits",), ("lingers",), ("parks",), ("park",), ("pulls", "up"),
                ("pull", "up"), ("pulls", "in"), ("is", "parking"),
            )],
        ],
        key=lambda pair: -len(pair[0]),
    )
)  # fmt: skip


def _trigger(tokens: Sequence[str]) -> tuple[Trigger, int, int] | None:
    """The first trigger in the tokens: (trigger, where its words start, where they end)."""
    for i in range(len(tokens)):
        for words, trigger in _TRIGGERS:
            if tuple(tokens[i : i + len(words)]) == words:
                return trigger, i, i + len(words)
    return None


_BARE = {
    ("on",): Trigger.ON,
    ("onto",): Trigger.ON,
    ("in",): Trigger.AT,
    ("inside",): Trigger.AT,
    ("at",): Trigger.AT,
    ("near",): Trigger.NEAR,
    ("by",): Trigger.NEAR,
    ("beside",): Trigger.NEAR,
    ("next", "to"): Trigger.NEAR,
}


def _bare_relation(tokens: Sequence[str]) -> tuple[Trigger, int, int] | None:
    """A condition without a verb, "a person on the sidewalk", "the dog near the door": the first place
    preposition after a subject is the relation (its words stay the place's: it ends where it starts)."""
    for i in range(1, len(tokens)):
        for words, trigger in _BARE.items():
            if tuple(tokens[i : i + len(words)]) == words:
                return trigger, i, i
    return None


#: Who someone is to the user, which no camera sees: "my wife", "the neighbour's daughter" (a name says it).
_RELATIONS = frozenset(
    {"wife", "husband", "partner", "boyfriend", "girlfriend", "son", "daughter", "sons", "daughters", "mum", "mom",
     "mother", "dad", "father", "brother", "sister", "grandma", "grandpa", "grandmother", "grandfather", "neighbour",
     "neighbor", "neighbours", "neighbors", "friend", "friends", "nanny", "babysitter", "cleaner", "aunt", "uncle",
     "cousin", "niece", "nephew", "flatmate", "roommate", "landlord", "boss"}
)  # fmt: skip


def _refuse_a_relation(subject: Sequence[str], text: str) -> None:
    """ "When my wife comes home", "the neighbour's daughter is in the kitchen": memory knows people by look and face,
    not by who they are to the user; refused with how to name them (a name the user gave is read before this)."""
    said = next((w for w in subject if w in _RELATIONS), None)
    if said is not None:
        raise Unreadable(
            f"I cannot tell who the {said} is (in {text.strip()!r}): memory knows people by look and face, not by who "
            f"they are to you; name them first (`edge-agent people enroll NAME --image PHOTO`, or `edge-agent entities "
            f"rename ID NAME`), then say 'tell me when NAME is in the kitchen'"
        )


def _refuse_unknown_camera(body: Sequence[str], lexicon: Lexicon) -> None:
    """ "When the garage camera sees a car" with no camera of that name: refused as a place, with the cameras there
    are."""
    for j in range(1, len(body)):
        w = body[j - 1]
        closed = w in DETERMINERS or w in FILLER or w in AUX or w in PRONOUNS or w in _PREPOSITION_WORDS
        if body[j] in ("camera", "cam", "cameras") and w.isalpha() and not closed:
            if not lexicon.tag([w])[0].tags and w not in ("any", "every", "each", "which", "other", "no", "the"):
                raise Unreadable(f"no camera called {w!r}", words=(w,), place=True)


def _telegraphic(body: Sequence[str], phrases: Sequence[_Phrase]) -> tuple[Trigger, int, int] | None:
    """ "Kitchen person alert please": a rule said without a verb or a preposition, a thing (and a camera) named, is
    that thing appearing (there); None where a verb is said ("the dog is hungry"), which it does not read, or only a
    topic ("about the dog")."""
    if not any(p.thing and not p.unknown for p in phrases):
        return None
    named = {j for p in phrases if p.thing or p.camera or p.zone for j in range(p.start, p.end)}
    if any(j not in named and w not in _ALERT_WORDS for j, w in enumerate(body)):
        return None
    asked = any(p.camera or p.zone for p in phrases) or bool(set(body) & _ASKING)
    if not asked:  # "the dog" alone names a thing, not when to tell
        return None
    return Trigger.APPEARS, len(body), len(body)


#: Words that ask for an alert: with them a thing named alone is a rule ("dog alert").
_ASKING = frozenset({"alert", "alerts", "alarm", "notification", "notifications", "notify", "ping", "warning"})
#: The words a rule said without a verb may have beside what it names: "kitchen person alert please".
_ALERT_WORDS = frozenset(
    {"alert", "alerts", "alarm", "notification", "notifications", "notify", "ping", "warning", "please", "any",
     "a", "an", "the", "my", "new", "?", "!", ".", ",", "on", "in", "at", "camera", "cam"}
)  # fmt: skip


#: Words after an appearing trigger that put the thing next to another ("appears next to a cell phone", "with a dog").
_NEXT_TO = (["next", "to"], ["near"], ["by"], ["beside"], ["close", "to"], ["with"])


def _near_a_thing(trigger: Trigger, target: _Phrase | None, body: Sequence[str], end: int) -> Trigger:
    """ "A person appears next to a cell phone": near the thing (not in it); "... appears on the couch": on it."""
    if trigger not in (Trigger.APPEARS, Trigger.AT) or target is None or not target.thing or target.camera:
        return trigger
    after = list(body[end : end + 2])
    if any(after[: len(w)] == w for w in _NEXT_TO):
        return Trigger.NEAR
    return Trigger.ON if after[:1] in (["on"], ["onto"]) else trigger


#: Words for what someone wears, read as "in": "a person wearing red" is "a person in red".
_WEARING = (["wearing", "a"], ["wearing", "an"], ["wearing"], ["dressed", "in", "a"], ["dressed", "in"], ["in", "a"],
            ["in"], ["with", "a"])  # fmt: skip


def _worn(body: list[str], lexicon: Lexicon) -> list[str]:
    """ "A person wearing red shows up", "a person in striped clothes": the colours and pattern worn, read as the
    subject's ("a red person", "a striped person"); the clothes themselves are no thing to watch."""
    for j in range(1, len(body)):
        for words in _WEARING:
            k = j + len(words)
            if body[j:k] != words:
                continue
            end = k
            while end < len(body) and (_described(lexicon, body[end]) or body[end] in CLOTHES or body[end] == "and"):
                end += 1
            worn = [w for w in body[k:end] if _described(lexicon, w)]
            if worn:  # before the word it is said of: "a person wearing stripes" -> "a striped person"
                return [*body[: j - 1], *worn, body[j - 1], *body[end:]]
    return body


def _described(lexicon: Lexicon, word: str) -> bool:
    tags = lexicon.tag([word])[0]
    return bool(tags.of("colour") or tags.of("pattern"))


def _unknown_words(tokens: Sequence[str], lexicon: Lexicon) -> list[str]:
    """Words of a rule's subject that name nothing: "bob arrives" with no entity named bob."""
    found = [
        w
        for w in tokens
        if w.isalpha()
        and len(w) > 2
        and w not in AUX
        and w not in DETERMINERS
        and w not in FILLER
        and w not in PRONOUNS
        and w not in NOT_THINGS
        and w not in STATES
        and w not in _PREPOSITION_WORDS
        and w not in EVENT_VERBS
        and w not in _STRANGERS
        and w not in ("not", "know", "don", "does", "person", "face", "what", "who", "with")
    ]
    return [w for w in found if not lexicon.tag([w])[0].tags]


_STRANGERS = frozenset({"stranger", "strangers", "unknown", "unfamiliar", "unrecognised", "unrecognized", "intruder"})


def _is_stranger(tokens: Sequence[str]) -> bool:
    """ "a stranger", "an unknown person", "someone I don't know", "an unfamiliar face"."""
    words = list(tokens)
    know = any(words[j : j + 3] in (["do", "not", "know"], ["does", "not", "know"]) for j in range(len(words)))
    kin = any(
        words[j : j + 2] in (["not", "family"], ["not", "one"]) and "family" in words[j:] for j in range(len(words))
    )
    return bool(_STRANGERS & set(words)) or know or kin  # ("someone who isn't family")


#: A trigger's last word that wants a place after it: "comes to ...", "walks into ...", "is on ...".
_WANTS_PLACE = frozenset({"to", "into", "in", "inside", "at", "on", "onto", "near", "by", "beside", "of", "around"})


#: Words for where something is that no camera may be called: "a car parked out front", "someone upstairs"
_WHERE_WORDS = frozenset(
    {"front", "back", "outside", "upstairs", "downstairs", "yard", "garden", "driveway", "porch", "garage", "hallway",
     "hall", "entrance", "gate", "lawn", "patio", "doorstep", "backyard", "frontyard"}
)  # fmt: skip


def _place_said_after(tokens: Sequence[str], end: int, lexicon: Lexicon) -> str:
    """Words after the trigger that say where ("parked out front", "is upstairs") and name no camera or zone: the
    place the rule would watch, which must not be dropped without a word."""
    for i in range(end, len(tokens)):
        if tokens[i] in _WHERE_WORDS and not lexicon.tag([tokens[i]])[0].tags:
            lead = tokens[i - 1] if i > end and tokens[i - 1] in ("out", "in", "at", "the") else ""
            return f"{lead} {tokens[i]}".strip()
    return ""


def _place_unread(tokens: Sequence[str], end: int) -> str:
    """The words of the place a trigger ending at ``end`` names, when no phrase read them: "the front door" of "comes
    to the front door" where no camera or zone has that name; "" when the trigger wants no place or none is said."""
    if end == 0 or tokens[end - 1] not in _WANTS_PLACE:
        return ""
    i = end
    while i < len(tokens) and tokens[i] in DETERMINERS:
        i += 1
    said: list[str] = []
    while (
        i < len(tokens) and tokens[i].isalpha() and tokens[i] not in FILLER and tokens[i] not in AUX and len(said) < 3
    ):
        said.append(tokens[i])
        i += 1
    return " ".join(said)
