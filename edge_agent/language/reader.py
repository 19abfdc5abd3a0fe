"""The reader without an LLM: a question read into the grammar's slots (:mod:`edge_agent.language.grammar`); its noun
phrases serve the rule reader too (:mod:`edge_agent.language.rules`). Words are tagged by memory's own lexicon
(kinds, colours, cameras, zones, names: :mod:`edge_agent.language.lexicon`) and the closed classes of English; times
are read by :mod:`edge_agent.language.times`. Noun phrases are then given roles by the words before them (a place
after "in", company after "with", the other side after "than" or a "before" that is not a time, alternatives after
"or", a relative clause's constraints), and the intent by the question word, the auxiliary that opens a yes / no
question, and what the sentence counts, orders or asks of the subject. Where no structure says what is asked
(fragments, imperatives the grammar does not know), the intent is the nearest exemplar by the MiniLM text model when
one is given (:class:`IntentExemplars`). A noun memory has no word for is grounded by the same model to the nearest
kind when it is close enough ("taxicab" -> car), else reported as unknown: the answer says so instead of naming
something else."""

from __future__ import annotations

import contextlib
import os
import re
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from edge_agent.language.grammar import (
    FIELDS,
    Aggregate,
    Event,
    Intent,
    Order,
    Place,
    Query,
    Side,
    Subject,
    Time,
)
from edge_agent.language.lexicon import (
    AFTER_WORDS,
    AGGREGATE_WORDS,
    AUX,
    BEFORE_WORDS,
    COLOUR_WORDS,
    DETERMINERS,
    DRIVE_IN,
    DRIVE_OFF,
    DRIVE_VERBS,
    DRIVEN,
    DURATION_WORDS,
    EVENT_VERBS,
    FEWER_WORDS,
    FIELD_WORDS,
    FILLER,
    FIRST_WORDS,
    GENERIC,
    HABIT_WORDS,
    HAPPEN_WORDS,
    IMPERATIVES,
    LAST_WORDS,
    LEAVE_WORDS,
    MORE_WORDS,
    MOTION_WORDS,
    NEGATIVE_SUBJECTS,
    PATTERN_WORDS,
    PLACE_PREPOSITIONS,
    PRONOUNS,
    WH,
    WITH_WORDS,
    Lexicon,
    Span,
    outdoor_cameras,
    tokenize,
)
from edge_agent.language.times import NUMBER_WORDS, UNITS, read_span, read_time_choices, read_times

__all__ = ["IntentExemplars", "KindGrounder", "Reader", "is_leaving"]


class Embedder(Protocol):
    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


#: Clothes: "the woman in the pink top", "the top of the child": a colour of the person, not a thing.
CLOTHES = frozenset(
    {"clothes", "clothing", "shirt", "shirts", "top", "tops", "jacket", "jackets", "coat", "coats", "dress",
     "trousers", "pants", "jeans", "hoodie", "sweater", "jumper", "tshirt", "t", "outfit", "overalls", "uniform",
     "hat", "cap", "shorts", "skirt", "sleeve", "sleeves", "vest", "blouse"}
)  # fmt: skip
#: Words that are not things (verbs, adverbs, adjectives a question uses): never an unknown noun.
NOT_THINGS = frozenset(
    {"same", "other", "different", "whole", "entire", "time", "times", "longest", "shortest", "longer", "shorter",
     "moment", "while", "way", "lot", "bit", "tell", "know", "wonder", "wondering", "check", "whether", "please",
     "view", "scene", "picture", "image", "frame", "video", "footage", "recording", "clip", "clips", "morning",
     "stretch", "spell", "period", "gap", "indoor", "indoors", "outdoor", "outdoors", "interior", "exterior",
     "evening", "afternoon", "night", "day", "week", "today", "yesterday", "now", "then", "there", "here", "left",
     "right", "top", "bottom", "middle", "centre", "center", "side", "front", "back", "end", "start",
     "beginning", "rest", "most", "more", "less", "all", "both", "either", "neither", "first", "last", "next",
     "only", "just", "very", "much", "many", "few", "number", "amount", "kind", "sort", "type", "colour",
     "color", "size", "pattern", "happened", "person", "going", "on", "of", "clock", "fire", "face", "hand",
     "hands", "head", "boot", "door", "floor", "ground", "wall", "room", "house", "home", "place", "area", "spot",
     "anyone", "someone", "everyone", "anybody", "somebody", "everybody", "any", "i", "me", "you", "we", "us",
     "unusual", "interesting", "new", "strange", "odd", "weird", "else", "one", "ones", "thing", "things", "stuff",
     "half", "busiest", "busier", "quietest", "quieter", "emptiest", "fullest", "alert", "alerts", "notification",
     "notifications", "alarm", "alarms", "ping", "message", "warning", "heads"}
)  # fmt: skip
#: Words after a place word that name no place of their own ("in the view", "at the moment", "at home").
PLACE_WORDS = frozenset(
    {"view", "views", "picture", "image", "scene", "frame", "video", "footage", "recording", "clip", "clips", "end",
     "beginning", "start", "moment", "time", "times", "while", "way", "same", "room", "rooms", "house", "home",
     "camera", "cameras", "cam", "feed", "all", "total", "general", "particular", "one",
     "ones", "it", "them", "there", "here", "this", "that", "which", "what", "whose", "who", "sight", "shot",
     "corner", "distance", "background", "foreground", "area", "place", "places", "spot", "world", "life",
     "order", "case", "row", "most", "least", "last", "first", "morning", "evening", "night", "day", "point",
     "afternoon", "hour", "minute", "second", "week", "past", "future", "meantime", "person", "people",
     "face", "head", "hand", "hands", "arm", "arms", "lap", "body", "neck", "feet", "foot", "shoulder", "shoulders"}
)  # fmt: skip
_PREPOSITION_WORDS = frozenset(w for key in PLACE_PREPOSITIONS for w in key) | {"to", "of", "for"}
#: Words that ask to put things in order: with them, "A, B and C" lists what is ordered.
_ORDERING = frozenset({"order", "sequence", "earlier", "later", "earliest", "latest", "sooner", "first", "last"})
#: What "in what ..." may ask that is no place: "in what order", "in which way".
_MANNER = frozenset({"order", "sequence", "way", "manner", "fashion"})
#: Quantities said instead of a number ("more than a dozen", "a couple").
_QUANTITIES = frozenset({"dozen", "dozens", "couple", "few", "hundred", "hundreds", "handful", "lot", "lots"})
_TIME_UNITS = frozenset({"second", "seconds", "minute", "minutes", "hour", "hours", "day", "days", "moment"})
#: Words that describe a state, not a thing: "the fireplace lit", "the door open".
STATES = frozenset(
    {"lit", "open", "closed", "shut", "on", "off", "empty", "full", "broken", "dirty", "clean", "wet", "dry", "asleep",
     "awake", "alone", "visible", "hidden", "missing", "gone", "home", "out", "away", "up", "down", "over", "round",
     "second", "seconds", "minute", "minutes", "hour", "hours", "moment",
     "together", "inside", "outside", "upstairs", "downstairs", "very", "exact", "far", "whole", "entire", "unknown",
     "unfamiliar", "unrecognised", "unrecognized", "strange"}
)  # fmt: skip


def _sentences(tokens: list[str]) -> list[list[str]]:
    """The sentences of a question ("... for a moment. Was it ...?"), each with its closing mark; a thing said
    before a comma and the question about it ("the bowl, was it orange?", "and the person, when did they come?")
    are two, so that the question's "it" or "they" is that thing."""
    out: list[list[str]] = [[]]
    for i, t in enumerate(tokens):
        out[-1].append(t)
        abbreviated = t == "." and tokens[i - 1 : i] == ["no"] and tokens[i + 1 : i + 2] == ["of"]  # "no. of"
        if t in (".", "?", "!") and not abbreviated or t == "," and _led_by_a_thing(out[-1][:-1], tokens[i + 1 :]):
            out.append([])
    return [s for s in out if any(t not in (".", "?", "!", ",") for t in s)] or [tokens]


def _while_away(sentences: list[list[str]]) -> list[list[str]]:
    """ "I was out between 11 and 12. Did anyone come while I was away?": the clause says the time the other sentence
    names (read from it), no place or thing of its own."""
    if len(sentences) < 2:
        return sentences
    out = []
    for s in sentences:
        at = next((i for i in range(len(s)) if tuple(s[i : i + 4]) in _AWAY or tuple(s[i : i + 5]) in _AWAY), None)
        if at is not None:
            n = 5 if tuple(s[at : at + 5]) in _AWAY else 4
            s = [*s[:at], *s[at + n :]]
        out.append(s)
    return out


#: Clauses that say "then" of a window said in another sentence: "while I was away", "when we were out".
_AWAY = frozenset(
    (lead, who, verb, *rest)
    for lead in ("while", "when", "whilst")
    for who, verb in (("i", "was"), ("we", "were"))
    for rest in (("away",), ("out",), ("gone",), ("asleep",), ("sleeping",), ("at", "work"), ("at", "school"))
)


def _confirmed(sentences: list[list[str]]) -> list[list[str]]:
    """ "My neighbour reckons a man opened the boot. Can you confirm that?", "the truck was there. is that right?":
    whether what the sentence before says is true, asked as such (what someone says of it is no part of it)."""
    if len(sentences) < 2:
        return sentences
    last = [t for t in sentences[-1] if t not in ("?", ".", "!", ",")]
    if tuple(last) not in _CONFIRMS:
        return sentences
    said = [t for t in sentences[-2] if t not in ("?", ".", "!")]
    told = next((i for i, t in enumerate(said) if t in _REPORTS), None)  # "my neighbour reckons (that) ..."
    if told is not None and told < len(said) - 2:
        said = said[told + 1 + (said[told + 1 : told + 2] in (["that"], ["me"])) :]
    return [*sentences[:-2], ["is", "it", "true", "that", *said, "?"]]


#: Sentences that ask whether the one before is true.
_CONFIRMS = frozenset(
    {("can", "you", "confirm", "that"), ("can", "you", "confirm", "it"), ("can", "you", "confirm", "this"),
     ("could", "you", "confirm", "that"), ("confirm",), ("is", "that", "right"), ("is", "that", "true"),
     ("is", "that", "correct"), ("is", "that", "so"), ("is", "it", "true"), ("right",), ("true",), ("correct",),
     ("am", "i", "right"), ("true", "or", "not"), ("did", "that", "happen")}
)  # fmt: skip
#: Verbs that report what someone says or thinks: "my neighbour reckons a man opened the boot".
_REPORTS = frozenset(
    {"reckons", "reckoned", "says", "said", "thinks", "thought", "claims", "claimed", "swears", "swore", "believes",
     "mentioned", "told", "tells", "saw", "heard"}
)  # fmt: skip


#: Words that say whose: "my neighbour", "our car".
_POSSESSIVES = frozenset({"my", "our", "his", "her", "their", "your"})
#: Words that stand for two things named before them: "how long between the two?", "which of them came first?"
_PAIR = (["the", "two", "of", "them"], ["the", "two"], ["both", "of", "them"], ["the", "pair"], ["both"], ["them"])


def _the_two(tokens: list[str]) -> tuple[int, int] | None:
    """Where words standing for two things named in the sentence before are ("between the two"), after "between" or
    "of" ("which of the two"), as (start, end)."""
    for i in range(1, len(tokens)):
        if tokens[i - 1] not in ("between", "of", "did", "were"):
            continue
        for words in _PAIR:
            if tokens[i : i + len(words)] == words:
                return i, i + len(words)
    return None


def _pair_named(
    sentences: list[list[str]], at: int, two_things: Callable[[list[str]], list[str] | None]
) -> tuple[list[str], bool] | None:
    """The question sentence ``at`` with the words standing for two things ("the two", "both") replaced by the things
    named before them, in its first clause ("the truck and the car, were both white?") or the sentence before (the
    two things it names, by ``two_things``, else all of it); and whether it was the sentence before."""
    tokens = sentences[at]
    pair = _the_two(tokens)
    if pair is None:
        return None
    comma = max((i for i in range(pair[0]) if tokens[i] == ","), default=-1)
    if comma > 0 and "and" in tokens[:comma]:
        named, asked, before = tokens[:comma], tokens[comma + 1 :], False
        pair = (pair[0] - comma - 1, pair[1] - comma - 1)
    elif at > 0:  # ("on the street, which of the two ...": the clause before the comma names no two)
        said = [t for t in sentences[at - 1] if t not in (".", "?", "!", ",")]
        named, asked, before = two_things(said) or said, tokens, True
    else:
        return None
    named = named[1:] if named[:1] == ["and"] else named
    if "and" not in named:
        return None
    return [*asked[: pair[0]], *named, *asked[pair[1] :]], before


def _led_by_a_thing(before: list[str], after: list[str]) -> bool:
    """Whether ``before`` is a bare thing ("and the truck"), no clause or list of its own, and ``after`` a question
    that starts there ("did it", "when") and refers to it ("it", "they")."""
    bare = not set(before) & (AUX | WH | {"or", ",", "and"} - {before[0] if before else ""})
    asks = bool(after) and (after[0] in WH or after[0] in AUX)
    sentence = after[: next((k for k, t in enumerate(after) if t in (".", "?", "!")), len(after))]
    tag = len(sentence) <= 3 and sentence[-1:] in (["they"], ["it"], ["she"], ["he"], ["there"])  # "..., did they?"
    return bool(before) and bare and asks and bool(set(sentence) & _REFERRING_BACK) and not tag


#: Pronouns a question after a thing and a comma refers to it with: "the bowl, was it orange?".
_REFERRING_BACK = frozenset({"it", "its", "they", "them", "their", "he", "him", "his", "she", "her"})


#: Words that only lead into the question a wh-word asks: "any idea where it is?", "do you know when ...".
_LEADS_IN = (
    ("i", "would", "like", "to", "know"), ("i", "want", "to", "know"), ("can", "you", "tell", "me"),
    ("could", "you", "tell", "me"), ("would", "you", "know"), ("do", "you", "know"), ("do", "you", "remember"),
    ("please", "tell", "me"), ("tell", "me"), ("i", "wonder"), ("any", "idea"), ("no", "idea"),
)  # fmt: skip
#: Politeness that asks nothing: "could you please tell me, if it's not too much trouble, whether ...".
_POLITE = (
    ("if", "it", "is", "not", "too", "much", "trouble"), ("if", "you", "do", "not", "mind"), ("if", "possible"),
    ("by", "any", "chance"), ("please",), ("kindly",),
    # and what only says it was seen: "which was on screen longer, the tv or the couch?"
    ("on", "the", "screen"), ("on", "screen"), ("in", "shot"), ("in", "frame"), ("in", "the", "frame"),
)  # fmt: skip
#: What closes a list of choices without being one: "A, B, or something else?", "in the kitchen or elsewhere?"
_NOT_CHOICES = (
    ("or", "something", "else"), ("or", "anything", "else"), ("or", "somewhere", "else"), ("or", "anywhere", "else"),
    ("or", "someone", "else"), ("or", "somebody", "else"), ("or", "anyone", "else"), ("or", "elsewhere"),
    ("or", "not"),
)  # fmt: skip
#: What a sentence may say before "whether" / "if" that only leads into a yes-or-no question: "I'm trying to figure
#: out whether ...", "could you check if ...", "I'd like to know whether ...".
_YES_NO_LEAD = frozenset(
    {"i", "am", "we", "are", "you", "can", "could", "would", "will", "do", "please", "just", "really", "actually",
     "trying", "try", "to", "want", "wanted", "need", "needed", "like", "love", "know", "wonder", "wondering",
     "check", "see", "figure", "find", "work", "out", "tell", "me", "us", "ask", "asking", "sure", "make",
     "remember", "recall", "confirm", "verify", "curious", "whether", "if", "so", "ok", "okay", "hey", "um",
     "quickly", "help", "let", "look", "up", "had", "have", "should", "be", "is", "it", "possible", "the"}
)  # fmt: skip


def _plain(tokens: list[str]) -> list[str]:
    """The tokens without what only leads into a wh-question ("do you know where the phone is?" asks where it is),
    a choice that is none ("or something else") and a closing "then" ("which one was it on then?")."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        lead = next((n for n in map(len, _LEADS_IN) if tuple(tokens[i : i + n]) in _LEADS_IN), 0)
        asks = tokens[i + lead : i + lead + 2]  # "... where", "... in which order"
        if lead and asks and (asks[0] in WH or asks[0] in ("in", "at", "on", "from", "by") and asks[-1] in WH):
            i += lead
            continue
        choice = next((len(c) for c in _NOT_CHOICES if tuple(tokens[i : i + len(c)]) == c), 0)
        if choice:
            i += choice
            continue
        if tokens[i] in ("whether", "if") and out and set(out) <= _YES_NO_LEAD and out[-1] not in ("whether", "if"):
            out = ["whether"]  # "I'm trying to figure out whether the bowl was ...": asks whether it was (a yes/no)
            i += 1
            continue
        polite = next((len(p) for p in _POLITE if tuple(tokens[i : i + len(p)]) == p), 0)
        if polite:
            i += polite + (tokens[i + polite : i + polite + 1] == [","])
            continue
        opener = _opener(tokens, i)
        if opener:  # "quick one - who came first?", "hi! one more thing: ..."
            i += opener
            continue
        closing = tokens[i] == "then" and (i + 1 == len(tokens) or tokens[i + 1] in ("?", ".", "!")) and i > 1
        if closing and tokens[i - 1] not in _AT_THEN:  # ("who else was around then?" says when)
            i += 1
            continue
        joined = _SPLIT_WORDS.get((tokens[i], tokens[i + 1]) if i + 1 < len(tokens) else ("", ""))  # "any buddy"
        out.append(joined or tokens[i])
        i += 1 + bool(joined)
    return out


#: Words speech-to-text splits in two: "any buddy in the kitchen?" asks whether anybody was.
_SPLIT_WORDS = {
    ("any", "body"): "anybody", ("any", "buddy"): "anybody", ("some", "body"): "somebody",
    ("some", "buddy"): "somebody", ("every", "body"): "everybody", ("no", "body"): "nobody",
    ("according", "to"): "on",  # "according to the living-room camera, ...": what it recorded
}  # fmt: skip


#: Words of a short opener said before a question: "quick one -", "hi! one more thing:", "ok so, ..."
_OPENER_WORDS = frozenset(
    {"quick", "one", "question", "more", "thing", "another", "random", "real", "silly", "small", "little", "hi",
     "hello", "hey", "ok", "okay", "so", "um", "uh", "well", "alright", "sorry", "oh", "btw", "q"}
)  # fmt: skip


def _opener(tokens: Sequence[str], i: int) -> int:
    """How many tokens from ``i`` are an opener of chatter closed by punctuation before a question word or an
    auxiliary ("quick one, who came first?" asks who came first): 0 where none is (a thing named before the comma,
    "the couch, was it blue?", is the question's)."""
    if i and tokens[i - 1] not in (",", "!", ".", ":"):
        return 0
    n = 0
    while i + n < len(tokens) and n < 4 and tokens[i + n] in _OPENER_WORDS:
        n += 1
    if not n or tokens[i + n : i + n + 1] not in ([","], ["!"], [":"], ["."]):
        return 0
    after = tokens[i + n + 1 : i + n + 2]
    return n + 1 if after and (after[0] in WH or after[0] in AUX) else 0


def _names_said(question: str, lexicon: Lexicon) -> frozenset[str]:
    """Words written with a capital inside a sentence that memory knows no name or word for: "my neighbour Tom"."""
    found = set()
    for m in re.finditer(r"(?<![.?!]\s)(?<!^)\b([A-Z][a-z]{2,})\b", question.strip()):
        word = m.group(1).lower()
        if not lexicon.tag([word])[0].tags and word not in DETERMINERS | AUX | WH | FILLER:
            found.add(word)
    return frozenset(found)


def _unknown_verb(w: str) -> bool:
    """Whether a word after a question's subject is a verb of something done that no camera memory records."""
    known = (
        AUX, EVENT_VERBS, STATES, NOT_THINGS, FILLER, _PREPOSITION_WORDS, WITH_WORDS, DETERMINERS, PRONOUNS,
        FIELD_WORDS, HAPPEN_WORDS, HABIT_WORDS, IMPERATIVES, CLOTHES, NEGATIVE_SUBJECTS, WH,
    )  # fmt: skip
    return (
        w.isalpha() and len(w) > 2 and not any(w in words for words in known) and w not in ("not", "ever", "and")
        and w not in _WORE  # "anyone dressed in grey?": what they wore, which memory describes
    )  # fmt: skip


#: Verbs of where a thing rests ("is my phone lying on the desk?", "the keys sitting by the door"): of a thing, being
#: there; of a person or an animal, a posture, which memory does not record.
_RESTS = frozenset(
    {"lying", "laying", "lies", "lay", "lie", "sitting", "sits", "sit", "standing", "stands", "stand", "resting",
     "rests", "kept", "stored", "left", "lurking", "hanging", "kicking", "floating"}
)  # fmt: skip
_LIVING = frozenset({"person", "dog", "cat", "bird", "horse", "sheep", "cow", "elephant", "bear", "zebra", "giraffe"})


def _done(w: str, after: str, subject: _Phrase) -> bool:
    """Whether ``w`` after the subject is a verb of something done (:func:`_unknown_verb`; a state's verb said of
    someone: "did somebody open the boot?"), not of being there."""
    acts = w in _ACTS and (bool(_LIVING & set(subject.kinds)) or subject.pronoun)
    return (acts or _unknown_verb(w)) and not _lies_there(w, after, subject)


def _new_ones(query: Query, tokens: list[str]) -> Query:
    """ "How many new people from 9:01 on?", "any new cars?": those first seen then, not every one in view."""
    said = [i for i, w in enumerate(tokens[:-1]) if w == "new" and tokens[i + 1] not in ("?", ".", "!", "in", "on")]
    if not said or query.intent not in (Intent.COUNT, Intent.LIST, Intent.EXISTS) or query.event is not Event.SEEN:
        return query
    return replace(query, event=Event.APPEARS) if query.subject.kinds or query.subject.generic else query


def _new_thing(w: str, spans: Sequence[Span], k: int) -> bool:
    """Whether "new" at span ``k`` says which thing ("the last new person to turn up"), not that something happened
    ("anything new?")."""
    after = spans[k + 1] if k + 1 < len(spans) else None
    return w == "new" and after is not None and (bool(after.of("kind")) or after.words in ("one", "ones", "thing"))


def _pointing_at_thing(spans: Sequence[Span], k: int) -> bool:
    """Whether span ``k + 1`` points at a thing named right after it ("that orange bowl", "her phone")."""
    return (
        k + 1 < len(spans)
        and spans[k + 1].words in _POINTING
        and any(s.of("kind") or s.of("name") for s in spans[k + 2 : k + 4])
    )


def _side_follows(spans: Sequence[Span], k: int) -> bool:
    """Whether the other side of an order follows the word at span ``k`` ("before the van", "after Rex", "before or
    after that orange bowl"), not a moment ("before 9", "after that")."""
    after = spans[k + 1] if k + 1 < len(spans) else None
    if after is None:
        return False
    return (
        after.words in ("the", "a", "an", "my", "our", "any")
        or bool(after.of("kind") or after.of("name"))
        or _pointing_at_thing(spans, k)
    )


def _opening(tokens: Sequence[str], i: int) -> bool:
    """Whether the word at ``i`` opens a question said without its determiner or verb ("fireplace going in the living
    room?", "keys on the table?"): the first word but fillers, followed by a verb, a state or a place."""
    after = tokens[i + 1] if i + 1 < len(tokens) else ""
    if any(t not in FILLER for t in tokens[:i]) or tokens[i] in IMPERATIVES or tokens[i] in _PREPOSITION_WORDS:
        return False
    alone = after in ("?", "") and all(t in ("?", ".", "!") for t in tokens[i + 1 :])  # "microwave?"
    alone = alone and tokens[i] not in _INTERJECTIONS  # ("hello?", "huh?": no thing asked about)
    return alone or after in AUX or after in STATES or after in _PREPOSITION_WORDS or after.endswith("ing")


#: Words said alone that name no thing: "hello?", "huh?", "thanks?".
_INTERJECTIONS = frozenset(
    {"hello", "hi", "hey", "huh", "what", "why", "how", "thanks", "thank", "thx", "ok", "okay", "yes", "no", "yeah",
     "yep", "nope", "hmm", "sorry", "please", "bye", "cool", "great", "nice", "wow", "oh", "ah", "um", "uh", "well",
     "really", "seriously", "anyone", "anybody", "someone", "anything", "something", "help", "hallo", "yo", "sup"}
)  # fmt: skip


#: Words of a thing's state that are things done when someone is their subject ("did somebody open the boot?").
_ACTS = frozenset({"open", "opened", "close", "closed", "shut", "lock", "locked", "unlock", "unlocked", "lit", "light"})


def _lies_there(w: str, after: str, subject: _Phrase) -> bool:
    """Whether ``w`` says only that a thing is there: "lying around", "sitting about", "hanging around" of anything
    ("is there a phone lying around somewhere?"), or a verb of resting said of a thing that is not alive."""
    if w not in _RESTS:
        return False
    return after in ("around", "about") or not (_LIVING & set(subject.kinds)) and not subject.pronoun


def _says_which(spans: list[Span], used: frozenset[int], names: frozenset[str], tokens: list[str]) -> list[Span]:
    """The spans but those of tokens ``used`` (by times), but an unknown word said between a determiner and a kind,
    which says which one ("the food bowl", "by its water bowl": a bowl; the kind is what is asked about), and but
    words that say nothing of a thing or place here: "still" as "yet" ("was memory still seeing a person?"), the
    "in" of "in what order"."""
    spans = [s for s in spans if not any(i in used for i in range(s.start, s.end))]
    spans = [_worn(s, tokens) for s in spans if not _says_nothing(s, tokens)]
    return [s for k, s in enumerate(spans) if not _which_one(spans, k, names)]


def _worn(span: Span, tokens: list[str]) -> Span:
    """ "Her red top", "the person in the striped top": clothes, not the top of the picture (as "top left" is)."""
    if span.words not in ("top", "tops") or span.of("region") is None or span.start == 0:
        return span
    before, after = tokens[span.start - 1], tokens[span.end : span.end + 1]
    described = before in COLOUR_WORDS or before in PATTERN_WORDS or before in _POSSESSIVES
    if not described or after[:1] in (["left"], ["right"], ["centre"], ["center"], ["middle"], ["of"], ["half"]):
        return span
    return Span(span.start, span.end, span.words, tuple(t for t in span.tags if t.type != "region"))


def _says_nothing(span: Span, tokens: list[str]) -> bool:
    after = tokens[span.end : span.end + 2]
    if span.words == "still":  # ("still there", "still on the street" are read as not gone; "was it still?" as still)
        return (after[:1] or [""])[0] not in _STILL_THERE | _STILL_ENDS
    return span.words == "in" and after[:1] in (["what"], ["which"]) and len(after) > 1 and after[1] in _MANNER


def _ordered(relation: str, phrases: Sequence[_Phrase]) -> bool:
    """Whether the other side is a clause of order ("after the van was first seen did ..."), its place said in it or
    not ("after the person showed up in the kitchen did the bowl ...")."""
    return relation in ("before", "after") or any(
        p.other_side and p.role == "other" and p.relation in ("before", "after") for p in phrases
    )


#: Words before a kind that say which or whose it is: "its food bowl", "the water bowl"
_WHOSE = frozenset({"its", "his", "her", "their", "my", "our", "your", "the", "a", "an", "that", "this"})


def _which_one(spans: Sequence[Span], k: int, names: frozenset[str]) -> bool:
    """Whether span ``k`` is an unknown word between a determiner and a kind of thing (not "the earliest anyone")."""
    w = spans[k].words
    if spans[k].tags or not w.isalpha() or w in names or w.endswith(("s", "est")) or w in NOT_THINGS or w == "non":
        return False  # ("the non-person objects": those left out, said)
    before, after = spans[k - 1] if k else None, spans[k + 1] if k + 1 < len(spans) else None
    if before is None or after is None or before.words not in _WHOSE or after.of("kind") is None:
        return False
    return after.words not in _PEOPLE_WORDS


def _of_a_camera_said(tokens: list[str], i: int, n: int, phrases: list[_Phrase]) -> bool:
    """Whether the preposition at ``i`` (``n`` words) opens a relative clause about a camera said before it: "every
    camera on which a person was seen", "the street, in which ..."."""
    before, after = tokens[i - 1] if i else "", tokens[i + n] if i + n < len(tokens) else ""
    camera = before in _CAMERA_WORDS or before in ("room", "rooms") or bool(phrases and phrases[-1].camera)
    return after in ("which", "whom") and camera


def _said_as_camera(tokens: list[str], spans: Sequence[Span], k: int) -> bool:
    """Whether span ``k``, a camera's name and a kind's word, is said as the camera: "the desk cam", "desk person
    how long", "left the desk" (what one leaves or enters is a place)."""
    i = spans[k].start
    return i > 0 and tokens[i - 1] in ("camera", "cam") or _before_a_thing(spans, k) or _place_verb_before(tokens, i)


def _before_a_thing(spans: Sequence[Span], k: int) -> bool:
    """Whether span ``k`` comes right before a thing's name: "desk person how long" (a camera named like a kind, so
    said, is the camera)."""
    return k + 1 < len(spans) and spans[k + 1].start == spans[k].end and spans[k + 1].of("kind") is not None


def _camera_after(spans: Sequence[Span], k: int) -> bool:
    """Whether a camera's word follows span ``k`` ("the desk camera") or its recording does ("the desk recording",
    "the desk video": the camera's, where a camera has the name of a kind)."""
    after = spans[k + 1].words if k + 1 < len(spans) else ""
    return after in _CAMERA_WORDS or after in _RECORDING_WORDS


#: Words that say a place held nothing: "the living room was empty".
_EMPTY_WORDS = frozenset({"empty", "deserted", "vacant", "unoccupied", "quiet"})


def _empty_phrase(start: int, end: int, phrases: Sequence[_Phrase], cues: _Cues, before: str) -> _Phrase:
    """ "Was empty": nothing there (a negative "anything"); "was not empty": something was, the "not" being its."""
    emptied = before not in ("not", "never")
    cues.negated_aux = cues.negated_aux and emptied
    role = "subject" if not any(p.thing for p in phrases) else "object"
    return _Phrase(start, end, role, "", generic=True, negative=emptied, said="anything")


def _place_word(w: str) -> bool:
    """Whether a word may be (part of) the name of a place: not a word of grammar, time or state."""
    return (
        w.isalpha()
        and len(w) > 1
        and w not in PLACE_WORDS
        and w not in FILLER
        and w not in STATES
        and w not in AUX
        and w not in EVENT_VERBS
        and w not in WH
        and w not in DETERMINERS
        and w not in PRONOUNS
        and w not in _PREPOSITION_WORDS
        and w not in ("or", "and", "than", "but", "not", "no", "so", "if", "then", "when", "while")
        and w not in BEFORE_WORDS
        and w not in AFTER_WORDS  # "by the counter after it was put there": the place is "counter"
        and w not in NUMBER_WORDS  # "in the final two seconds": a number, no place
        and w not in _RANKING  # "what stayed around the longest?": how long, no place
        and not w.endswith(("ing", "ly"))
    )


#: Words that rank, which name no place: "around the longest", "at the most".
_RANKING = frozenset(
    {"longest", "shortest", "most", "least", "biggest", "smallest", "largest", "busiest", "quietest", "earliest",
     "latest", "oldest", "newest", "longer", "shorter", "more", "less", "fewest"}
)  # fmt: skip


_CLAUSE_BREAKS = frozenset({":", ";", "?", ",", ".", "!"})
_RELATIVE = frozenset({"that", "which", "who", "whom", "where"})
#: Determiners that point at a thing talked about ("that orange bowl", "her phone").
_POINTING = frozenset({"that", "this", "those", "these", "his", "her", "their", "your"})
_SUBJECT_PRONOUNS = frozenset({"i", "we", "you", "he", "she", "they"})
#: Pronouns that stand for a person: "he", "she" (memory does not tell sex: any person).
_PERSONAL = frozenset({"he", "she", "him", "her", "his", "hers"})


def _pronoun(word: str) -> dict[str, Any]:
    """What a pronoun says of its thing: "where was he?" asks of a person (the last one talked of)."""
    return {"kinds": ("person",), "said": "person"} if word in _PERSONAL else {"said": word}


def _one_is_noun(word: str, after: Span | None, before: Span | None) -> bool:
    """Whether "one" is a thing ("the little one", "the one I saw"), not a number ("one dog") nor a camera's ("the
    street one")."""
    if word not in ("one", "ones") or before is not None and before.of("camera"):
        return False
    return not (after is not None and (bool(after.tags) or after.words in GENERIC or after.words in CLOTHES))


def _event(verb: str, before: str, after: str = "", following: str = "") -> str:
    """What a verb says happened: "where did I leave my keys?" asks where I put them, not where they went; "when was
    the phone left on the desk?" when it was put there (it came there; ``after``: the word after a passive verb); "did
    the truck get spotted?" whether it was seen (``following``: the word after the verb)."""
    event = EVENT_VERBS[verb]
    if verb in ("get", "got", "gets", "gotten") and EVENT_VERBS.get(following) == "seen":
        return "seen"
    if event == "leaves" and verb in ("leave", "left") and before in ("i", "we"):
        return "moved"
    if event == "leaves" and verb == "left" and after in _LEFT_AT:  # said passive: "was the phone left on ..."
        return "appears"
    return event


_LEFT_AT = frozenset({"on", "in", "at", "by", "near", "next", "beside", "there", "here", "behind", "under"})


_PEOPLE_WORDS = frozenset({"who", "whom", "anyone", "someone", "anybody", "somebody", "everyone", "everybody"})
_CAMERA_WORDS = frozenset({"camera", "cameras", "cam", "cams", "view", "views", "feed", "feeds"})
_ROOM_WORDS = frozenset({"room", "rooms"})


def is_leaving(text: str) -> bool:
    """Whether a chat line says goodbye ("quit", "exit", "bye") rather than asking."""
    words = [
        w for w in tokenize(text) if w not in ("?", ",", ":", ";", ".", "!", "please", "now", "ok", "okay", "thanks")
    ]
    return (
        bool(words)
        and all(w in LEAVE_WORDS or w in ("thank", "you", "see", "ya", "that", "is", "all") for w in words)
        and (any(w in LEAVE_WORDS for w in words) or words[-3:] == ["that", "is", "all"] or words[-2:-1] == ["see"])
    )  # ("thank you" alone thanks, and the conversation goes on)


#: Words of a line that only thanks or acknowledges ("ok thanks", "great, thank you", "got it").
_COURTESY = frozenset(
    {"ok", "okay", "thanks", "thank", "you", "cool", "great", "nice", "got", "it", "alright", "sure", "perfect",
     "cheers", "ty", "awesome", "good", "fine", "k", "kk", "right", "lovely", "brilliant", "much", "very", "so"}
)  # fmt: skip


def is_courtesy(text: str) -> bool:
    """Whether a chat line only thanks or acknowledges ("ok thanks", "got it") rather than asking."""
    words = [w for w in tokenize(text) if w not in ("?", ",", ":", ";", ".", "!")]
    return bool(words) and all(w in _COURTESY for w in words) and not is_leaving(text)


# -- what the model adds ---------------------------------------------------------------------------------------


class KindGrounder:
    """A noun memory has no word for, read as the nearest kind word by the text model, when it is close enough
    (cosine of all-MiniLM-L6-v2 sentence vectors; measured on pairs in tests/language/test_reader.py)."""

    #: At least this alike to be read as that kind. Measured on single words (tests/language/test_reader.py):
    #: "automobile" / car 0.86, "pickup truck" / truck 0.87, "mobile phone" 0.87, but "glasses" / wine glasses 0.74,
    #: "pot" / potted plant 0.71, "headphones" / phones 0.61, "ipad" / apple 0.64: only near-synonyms pass.
    THRESHOLD = 0.75

    def __init__(self, embedder: Embedder, words: dict[str, tuple[str, ...]], *, cache: Path | None = None) -> None:
        self.embedder = embedder
        self.words = sorted(words)
        self.meant = words
        self.cache = cache
        self._vectors: np.ndarray | None = None

    def vectors(self) -> np.ndarray:
        """The kind words' vectors: embedded once, and kept in ``cache`` (a file beside memory) for the next process
        (embedding the few hundred words costs a question about 2 s on this machine)."""
        if self._vectors is not None:
            return self._vectors
        space = str(getattr(self.embedder, "space", ""))
        if self.cache is not None and self.cache.is_file():
            # Each member carries its CRC-32 (zip), checked as it is read. The file is opened here: numpy leaks one it
            # opens itself when the archive is damaged.
            try:
                with open(self.cache, "rb") as f, np.load(f, allow_pickle=False) as saved:
                    words, saved_space = list(saved["words"]), str(saved["space"])
                    vectors = np.asarray(saved["vectors"], np.float32)
                if vectors.shape[:1] != (len(words),) or not np.all(np.isfinite(vectors)):
                    raise ValueError("its vectors do not match its words")
            except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
                from edge_agent.memory.derived import set_aside  # the memory's, where a file beside it is damaged

                set_aside(
                    self.cache.parent,
                    [self.cache],
                    f"the kind words' vectors {self.cache} are damaged ({str(exc).split('. ')[0]})",
                )
            else:
                if words == self.words and saved_space == space:
                    self._vectors = vectors
                    return self._vectors
        self._vectors = self.embedder.embed(self.words)
        if self.cache is not None:
            tmp = self.cache.with_name(f".{self.cache.name}.{os.getpid()}.tmp")
            try:  # whole or not at all: another process may be reading it
                self.cache.parent.mkdir(parents=True, exist_ok=True)
                with open(tmp, "wb") as out:
                    np.savez(out, words=np.array(self.words), space=np.array(space), vectors=self._vectors)
                os.replace(tmp, self.cache)
            except OSError:  # a read-only memory: embedded again next time
                with contextlib.suppress(OSError):
                    tmp.unlink(missing_ok=True)
        return self._vectors

    def ground(self, word: str) -> tuple[str, tuple[str, ...], float] | None:
        """(the kind word, the kinds it means, similarity), or None when none is close enough."""
        vectors = self.vectors()
        v = self.embedder.embed([word])[0]
        scores = vectors @ v
        best = int(np.argmax(scores))
        if float(scores[best]) < self.THRESHOLD:
            return None
        return self.words[best], self.meant[self.words[best]], float(scores[best])


#: Exemplars of each intent, for questions whose structure says nothing of what they ask.
EXEMPLARS: dict[Intent, tuple[str, ...]] = {
    Intent.SUMMARY: (
        "tell me about the kitchen",
        "what went on today",
        "anything new",
        "give me a summary of the day",
        "describe what the camera saw",
        "any activity",
    ),
    Intent.LIST: ("show me everything you saw", "list the people", "all the animals", "everything on the desk"),
    Intent.WHERE: ("the keys location", "location of the car", "my phone", "find my wallet"),
    Intent.WHEN: ("the time the van arrived", "time of the last visit"),
    Intent.COUNT: ("the number of people", "count the cars", "total visitors"),
    Intent.EXISTS: ("any dogs", "anyone at the door", "a cat on the sofa"),
}


class IntentExemplars:
    """The intent of a question by its similarity to exemplars (the text model's sentence vectors)."""

    def __init__(self, embedder: Embedder, exemplars: dict[Intent, tuple[str, ...]] | None = None) -> None:
        self.embedder = embedder
        pairs = [(intent, text) for intent, texts in (exemplars or EXEMPLARS).items() for text in texts]
        self.intents = [p[0] for p in pairs]
        self.texts = [p[1] for p in pairs]
        self._vectors: np.ndarray | None = None

    def nearest(self, question: str) -> tuple[Intent, float]:
        if self._vectors is None:
            self._vectors = self.embedder.embed(self.texts)
        scores = self._vectors @ self.embedder.embed([question])[0]
        best = int(np.argmax(scores))
        return self.intents[best], float(scores[best])


# -- noun phrases ----------------------------------------------------------------------------------------------


@dataclass
class _Phrase:
    """A noun phrase: its head (a kind, a name, a camera, a zone, a generic or unknown noun) and modifiers."""

    start: int
    end: int
    role: str  #: subject, place, with, other, alternative, exclude, relative, object
    relation: str = ""  #: for a place: in, on, at, near
    kinds: tuple[str, ...] = ()
    said: str = ""
    colours: tuple[str, ...] = ()
    colour_words: tuple[str, ...] = ()
    pattern: str = ""
    size: str = ""
    motion: str = ""
    name: str | None = None
    entity_id: int | None = None
    camera: str | None = None
    zone: str | None = None
    regions: tuple[str, ...] = ()
    generic: bool = False
    negative: bool = False  #: "no dog", "nobody"
    unknown: str = ""
    pronoun: bool = False
    plural: bool = False
    attached: bool = False  #: a place right after the subject ("the woman in the kitchen"): part of which one
    other_side: bool = False  #: named after "than" or a "before" / "after" that is not a time: the other side
    owner: int = -1  #: for an attached place, the phrase it says which one of
    sibling: int = -1  #: for an alternative, the phrase it is an alternative to
    values: list[tuple[str, str]] = field(default_factory=list)  #: trailing described values: (field, value)

    @property
    def thing(self) -> bool:
        return bool(self.kinds) or self.entity_id is not None or self.generic or bool(self.unknown)


@dataclass
class _Modifiers:
    """Words that describe a thing, waiting for the noun they describe."""

    colours: tuple[str, ...] = ()
    colour_words: tuple[str, ...] = ()
    pattern: str = ""
    size: str = ""
    motion: str = ""
    many: bool = False

    def clear(self) -> None:
        self.colours = self.colour_words = ()
        self.pattern = self.size = self.motion = ""
        self.many = False


@dataclass
class _Cues:
    wh: str = ""
    wh_at: int = -1
    how: str = ""  #: the word after "how"
    yes_no: bool = False
    imperative: str = ""
    negated_aux: bool = False
    order_words: list[tuple[int, str]] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    aggregate: str = ""
    field_word: str = ""
    habit: bool = False
    happen: bool = False
    duration: bool = False
    compare: str = ""
    has_or: bool = False
    camera_word: bool = False  #: "which camera", "what room"
    clause: list[str] = field(default_factory=list)  #: words of relative clauses that name nothing memory knows
    unit: str = ""  #: the word after "how many" / "how much"
    refers: list[str] = field(default_factory=list)  #: slots a pronoun refers back to: subject ("it"), place ("there")
    fragment: bool = False  #: "what about the dog?", "and the cat?": the previous question, about this
    other_clause: bool = False  #: the other side has a verb of its own ("after the van was seen"): its own place
    commas: set[int] = field(default_factory=set)  #: where commas are: "the van, the tv or the bowl" is one list
    unknown_verbs: list[str] = field(default_factory=list)  #: "has anyone watered the plants?": done, not seen
    listed: bool = False  #: things listed with "and" to be put in order
    ordering: bool = False  #: "in what order", "put these in order": what is named is ranked by time
    company: bool = False  #: "did the baby have company?", "was she alone?"
    with_word: bool = False
    now: bool = False
    drives: bool = False  #: a verb whose doer is a vehicle: "did anyone drive off?"
    timed: bool = False  #: a time was said ("after 11?")
    direction: str = ""  #: the way a verb of going says it went: "walked left", "driving to the right"


def _verbs(tokens: list[str], cues: _Cues) -> None:
    """What some verbs say beyond their event: "what went on?" asks what happened (nobody left); a verb whose doer is
    a vehicle ("did anyone drive off?") is noted, and what "drove" says it did read by the word after it: arrived
    ("drove in"), left ("drove off"), else was seen ("drove past")."""
    for i, w in enumerate(tokens):
        after = tokens[i + 1] if i + 1 < len(tokens) else ""
        way = _way_gone(tokens, i)
        if way:  # "how many people walked left?": seen going that way (nobody left, nobody came)
            cues.direction = way
            gone = {EVENT_VERBS.get(w), "leaves" if way == "left" else None}
            cues.events[:] = [e for e in cues.events if e not in gone]
            cues.drives = cues.drives or w in DRIVE_VERBS
            continue
        if w in ("going", "went", "goes") and after == "on" and "leaves" in cues.events:
            cues.events.remove("leaves")
            cues.happen = True
        if (
            w in ("go", "goes", "went", "gone", "going")
            and after in ("in", "into", "inside", "to")
            and "leaves" in cues.events
        ):  # "did the dog go in the kitchen?", "did she go to the living room later?": it came there
            cues.events[cues.events.index("leaves")] = "appears"
        if w == "left" and after == "handed" and "leaves" in cues.events:  # "was he left-handed?": no camera says
            cues.events.remove("leaves")
            cues.unknown_verbs.append("left-handed")
        if _said_back(tokens, i) and not cues.order_words:  # "when did she come back?": her last arrival, not her first
            cues.order_words.append((i, "last"))
            cues.events.append("appears")
        if w not in DRIVE_VERBS:
            continue
        cues.drives = True
        if EVENT_VERBS.get(w) == "leaves" and "leaves" in cues.events:
            event = "appears" if after in DRIVE_IN else "leaves" if after in DRIVE_OFF else "seen"
            cues.events[cues.events.index("leaves")] = event


#: Verbs whose object is a place one goes into or out of: "left the desk" is the camera called desk, not a desk.
_PLACE_VERBS = frozenset(
    {"leave", "leaves", "left", "leaving", "exit", "exits", "exited", "exiting", "enter", "enters", "entered",
     "entering", "visit", "visits", "visited", "visiting", "reach", "reaches", "reached", "quit", "quits"}
)  # fmt: skip


def _place_verb_before(tokens: list[str], i: int) -> bool:
    """Whether the word at ``i`` is the object of a verb of going into or out of a place ("left the desk")."""
    j = i - 1
    while j >= 0 and tokens[j] in ("the", "a", "an", "this", "that", "his", "her", "their", "my", "our", "its"):
        j -= 1
    return j >= 0 and tokens[j] in _PLACE_VERBS


#: Verbs of going somewhere, and the ways the describer says a thing moved across the picture.
_GOING = frozenset(
    {"walk", "walks", "walked", "walking", "move", "moves", "moved", "moving", "drive", "drives", "drove", "driving",
     "run", "runs", "ran", "running", "go", "goes", "went", "going", "head", "heads", "headed", "heading", "travel",
     "travels", "travelled", "traveled", "travelling", "traveling", "cycle", "cycled", "cycling"}
)  # fmt: skip
_WAYS = {"left": "left", "right": "right", "leftward": "left", "leftwards": "left", "rightward": "right"}
_WAYS |= {"rightwards": "right"}
#: Words after "right" that make it "just" or "straight" ("right after 9", "right into the kitchen"), not a way.
_RIGHT_AS_JUST = frozenset(
    {"after", "before", "now", "away", "there", "here", "then", "when", "into", "in", "inside", "at", "up", "back",
     "past", "by", "through", "to", "on", "behind", "beside", "next", "out", "outside", "off", "across", "around"}
)  # fmt: skip


def _way_gone(tokens: list[str], i: int) -> str:
    """The way a verb of going at ``i`` says it went ("walked left", "going to the right", "headed off leftwards"),
    or ""."""
    if tokens[i] not in _GOING:
        return ""
    j = i + 1
    while j < len(tokens) and j <= i + 3 and tokens[j] in ("to", "the", "towards", "toward", "off", "over", "its"):
        j += 1
    following = tokens[j + 1] if j + 1 < len(tokens) else ""
    if j >= len(tokens) or following in ("of", "or"):  # ("went left of the car": a place; "left or right": asked)
        return ""
    if tokens[j] == "right" and following in _RIGHT_AS_JUST:  # "walked right after 9", "went right into the kitchen"
        return ""
    return _WAYS.get(tokens[j], "")


def _other_drove(query: Query, tokens: list[str], phrases: list[_Phrase]) -> bool:
    """Whether the verb of driving is the other side's: "did the child appear before the car drove off?" (the car
    drove, not the child), but not "did anyone drive off before the truck?"."""
    if query.other is None or not set(query.other.subject.kinds) & set(DRIVEN):
        return False
    other = next((p.start for p in phrases if p.other_side), len(tokens))
    return any(t in DRIVE_VERBS for t in tokens[other:])


def _refined(query: Query, tokens: list[str], phrases: list[_Phrase], cues: _Cues) -> Query:
    """What the words around the phrases change of the query: whoever drove is a vehicle ("did anyone drive off?");
    things joined by "and" are counted together ("how many cars and trucks?"); what someone wore is an attribute;
    "who was the last person you saw?" is when the last one was; "is anything blue?" asks whether any blue thing was
    seen; and the rest in :func:`_ranked`."""
    subject, intent = query.subject, query.intent
    if subject.generic and subject.said in ("kind", "kinds", "sort", "sorts", "type", "types"):
        thing = next((p for p in phrases if p.kinds and not p.other_side), None)  # "any kind of vehicle": a vehicle
        subject = replace(Reader._subject(thing, [], [], []), many=True) if thing is not None else subject
    if cues.direction:  # "how many people walked left?": those the describer saw moving that way
        subject = replace(subject, motion=f"moving {cues.direction}")
    anyone = subject.kinds == ("person",) or subject.generic and not subject.kinds  # "what was parked?": a vehicle
    other_drove = _other_drove(query, tokens, phrases)
    if cues.drives and anyone and subject.entity_id is None and cues.wh not in ("who", "whom") and not other_drove:
        subject = replace(subject, kinds=DRIVEN, said="vehicle", many=True)
    heads = [p for p in phrases if p.role in ("subject", "object") and p.kinds and not p.other_side]
    if intent is Intent.COUNT and query.other is None and heads and heads[0].kinds == subject.kinds:
        chain = heads[:1]
        for p in heads[1:]:
            if tokens[chain[-1].end : p.start] != ["and"]:
                break
            chain.append(p)
        kinds = tuple(dict.fromkeys(k for p in chain for k in p.kinds))
        subject = replace(subject, kinds=kinds, said=" and ".join(p.said for p in chain)) if len(chain) > 1 else subject
    asked_what = cues.wh == "what" or "what" in tokens  # ("the one who was at the desk, what were they wearing?")
    if intent in (Intent.COMPANY, Intent.LIST) and asked_what and set(tokens) & _WORE:
        someone = subject.generic and not subject.kinds and subject.said in ("", "one")  # "the bedroom one"
        if subject.kinds == ("person",) or subject.said in _WEARERS or someone:  # "what was the lady / she wearing?"
            person = replace(subject, kinds=("person",), generic=False)  # who wears: a person
            worn = subject if subject.kinds else person
            return _ranked(replace(query, intent=Intent.ATTRIBUTE, subject=worn, asks="colour"), tokens, cues)
        wearer = next((p for p in phrases if p.role == "subject" and p.kinds == ("person",) and not p.other_side), None)
        if wearer is not None and intent is Intent.COMPANY and subject.kinds:
            # "what was the person next to the blue couch wearing?": the person's clothes, the couch says which one
            place = replace(query.place, near=tuple(dict.fromkeys([*query.place.near, *subject.kinds])))
            worn = Reader._subject(wearer, [], [], [])
            worn_asked = replace(query, intent=Intent.ATTRIBUTE, subject=worn, place=place, asks="colour")
            return _ranked(worn_asked, tokens, cues)
    one = subject.kinds or subject.generic and subject.said in ("thing", "one", "object")
    if intent is Intent.LIST and query.order in (Order.FIRST, Order.LAST) and not subject.many and one:
        intent = Intent.WHEN  # "who was the last person you saw?", "last thing you saw": the last one, not a list
    said = [t for t in tokens if t not in ("?", ".", "!")]
    if intent is Intent.LIST and cues.wh == "which" and subject.said == "one" and said[-1:] in (["on"], ["in"], ["at"]):
        intent = Intent.WHICH_CAMERA  # "which one was it on?", "which one was the tv in?": the camera it was in
        thing = next((p for p in phrases if p.thing and p.said != "one" and not p.other_side), None)
        subject = Reader._subject(thing, [], [], []) if thing is not None else subject
    places = query.place.zones
    if len(places) > 1 and not query.alternatives and "or" in tokens and "there" not in tokens[:3] and subject.named:
        # "was the book by the bed or by the nightstand?": which of the two it was at ("was there a cat by the sink
        # or the sofa?" asks whether any was, at either)
        query = replace(query, alternatives=places, alternative_of="place", place=replace(query.place, zones=()))
        query, intent = replace(query, yes_no=False), Intent.WHERE
    still = [
        i
        for i, w in enumerate(tokens[:-1])
        if w == "still" and tokens[i + 1] in _STILL_THERE and (i == 0 or tokens[i - 1] not in _POSTURES)
    ]
    if still and query.alternatives == ("still",) and query.yes_no:  # "is the truck still on the street?": not gone
        query = replace(query, event=Event.LEAVES, negated=not query.negated, alternatives=(), alternative_of="")
        query, intent = replace(query, asks=""), Intent.EXISTS
    one_value = query.alternative_of in ("colour", "pattern") and len(query.alternatives) == 1
    some = subject.generic or tokens[1:2] == ["there"] or subject.said in ("anyone", "anybody", "someone", "somebody")
    if intent is Intent.ATTRIBUTE and query.yes_no and some and one_value:  # "is anything blue?", "anything striped?"
        value = query.alternatives
        colour = query.alternative_of == "colour"
        subject = replace(subject, colours=value) if colour else replace(subject, pattern=value[0])
        query = replace(query, intent=Intent.EXISTS, asks="", alternatives=(), alternative_of="")
        intent = Intent.EXISTS
    if (
        intent in (Intent.LIST, Intent.WHERE)
        and cues.imperative in ("list", "show", "name", "tell")
        and _cameras_asked(tokens)
    ):
        intent = Intent.WHICH_CAMERA  # "list every camera that saw a person": the cameras, not the people
    return _ranked(replace(query, intent=intent, subject=subject), tokens, cues)


def _about(query: Query, tokens: list[str], phrases: list[_Phrase]) -> Query:
    """ "Tell me everything about the couch", "what do you know about the van?": the thing after "about" is the
    subject, not "everything"."""
    if not query.subject.generic or "about" not in tokens:
        return query
    at = tokens.index("about")
    thing = next((p for p in phrases if p.start > at and p.thing and not p.generic and not p.other_side), None)
    return replace(query, subject=Reader._subject(thing, [], [], [])) if thing is not None else query


#: Words that name a camera's recording itself: "the street video", "the kitchen footage", "stop recording".
_RECORDING_WORDS = frozenset(
    {"recording", "recordings", "video", "videos", "footage", "feed", "recorded", "record", "clip", "clips"}
)
#: Words of a recording's start and end: "when did it start", "when did the camera stop recording?"
_STARTS = frozenset({"start", "started", "starts", "begin", "began", "begins", "beginning", "first", "on"})
_ENDS = frozenset({"stop", "stopped", "stops", "end", "ended", "ends", "finish", "finished", "last", "off"})


def _recording(query: Query, tokens: list[str], cues: _Cues) -> Query:
    """ "When did the street recording start?", "how long is the kitchen video?", "which camera recorded the longest?":
    the recording itself is asked about (when it started or stopped, how long it ran, which ran longest), not a thing
    in it. Only for when, how long and which camera, and only where no thing is named."""
    said = set(tokens)
    started = bool(said & {"cam", "camera", "cameras"} and said & (_STARTS | _ENDS) - {"first", "last", "on", "off"})
    # "how long was the office camera on?", "how long was the camera running?": its recording
    started = started or cues.how == "long" and bool(said & {"cam", "camera"} and said & {"on", "running", "rolling"})
    if not (said & _RECORDING_WORDS or started) or query.subject.kinds or query.subject.entity_id is not None:
        return query  # ("when did the kitchen cam start?" asks of its recording)
    if query.subject.said in ("thing", "things", "anything", "something", "object", "objects", "item", "items"):
        return query  # "the first thing recorded today": a thing it recorded
    if {"sightings", "observations", "detections", "things", "objects"} & said:
        return query  # "which camera recorded the most sightings?": what it recorded, counted
    intent = query.intent
    theirs = query.other.place.cameras if query.other is not None and not query.other.subject.named else ()
    if intent is Intent.DURATION and query.place.cameras and theirs:  # "was the bedroom recording longer than the
        # kitchen one?": of the two recordings, which ran longer
        fewest = query.compare == "fewer" or bool({"shorter", "shortest"} & said)
        place = Place(cameras=(*query.place.cameras, *theirs))
        rank = "fewest" if fewest else "most"
        subject = Subject(recording=True, said="recording")
        return replace(query, intent=Intent.WHICH_CAMERA, subject=subject, place=place, other=None, rank=rank,
                       yes_no=False, compare="")  # fmt: skip
    ranked = {"longest", "longer", "shortest", "shorter"} & said  # "what's the longest clip?": which camera's
    if cues.how == "long" or (cues.wh in ("which", "what") and ({"most"} & said or ranked)):
        intent = Intent.WHICH_CAMERA if cues.camera_word or ranked else Intent.DURATION
    elif intent is Intent.COUNT:  # "how many videos do you have?": the recordings
        unknown = tuple(u for u in query.unknown if u not in _RECORDING_WORDS)
        return replace(query, subject=Subject(recording=True, said="recording"), aggregate=None, unknown=unknown)
    elif intent is not Intent.WHEN:
        return query
    order = Order.FIRST if said & _STARTS and not said & _ENDS else Order.LAST if said & _ENDS else query.order
    subject = Subject(recording=True, said="recording")
    rank = ("fewest" if {"shortest", "shorter"} & said else "most") if intent is Intent.WHICH_CAMERA else ""
    return replace(query, intent=intent, subject=subject, order=order, rank=rank)


#: Intents that pick things of a kind: by how they moved ("how many people were walking?"), by a count held against
#: a number ("were there more than 3?"), among people ("which room was the lady in?").
_PICKING = frozenset({Intent.COUNT, Intent.LIST, Intent.EXISTS, Intent.WHICH_CAMERA})
#: Words before "still" that make it a posture, not "yet": "standing still", "sat still".
_POSTURES = frozenset({"standing", "stood", "stand", "sitting", "sat", "sit", "keeping", "kept", "staying", "stayed"})


def _moving(query: Query, tokens: list[str]) -> Query:
    """ "How many people were walking?", "did you see anyone running?", "were any people standing still?", "how many
    cars were parked?": things picked by how they were seen moving (a described value), of several or any; a single
    thing asked "was the truck moving?" keeps its attribute question."""
    subject = query.subject
    several = subject.many or subject.generic or subject.said in ("anyone", "someone", "anybody", "somebody")
    be_moving = any(
        w == "moving"
        and {"was", "were", "is", "are"} & set(tokens[:i])
        and (tokens[i + 1 : i + 2] or [""])[0] not in DETERMINERS | {"it", "them", "him", "her", "this", "that"}
        for i, w in enumerate(tokens)
    )  # "was anything moving (after 6)?", not "was anyone moving the couch?"
    if query.subject.recording or not several and not (be_moving and query.event is Event.MOVED and query.yes_no):
        return query
    if not several:  # "was the person in the study moving?": how it was seen, not whether it was moved
        return replace(
            query, intent=Intent.ATTRIBUTE, event=Event.SEEN, asks="motion", alternatives=("moving",),
            alternative_of="motion",
        )  # fmt: skip
    if query.event is Event.MOVED and be_moving:  # "was anything moving?": seen in motion, not moved by someone
        return replace(query, event=Event.SEEN, subject=replace(subject, motion=_way(subject, "moving")))
    if query.intent is Intent.ATTRIBUTE and query.yes_no and query.alternative_of == "motion":
        if len(query.alternatives) == 1:  # "did you see anyone walking?": whether any was seen so
            motion = MOTION_WORDS.get(query.alternatives[0], query.alternatives[0])
            return replace(
                query, intent=Intent.EXISTS, subject=replace(subject, motion=_way(subject, motion)), alternatives=(),
                alternative_of="", asks="",
            )  # fmt: skip
        return query
    if query.intent not in _PICKING:
        return query
    said = [
        MOTION_WORDS[w]
        for i, w in enumerate(tokens)
        if w in MOTION_WORDS
        and i > 0
        and (tokens[i - 1] in AUX or tokens[i - 1] in _POSTURES or w in ("parked",))
        and not (w == "still" and tokens[i + 1 : i + 2] and tokens[i + 1] in _STILL_THERE)  # "still there": yet
    ]
    if not said:
        return query
    event = Event.SEEN if query.event is Event.MOVED else query.event  # "moving" says how it was seen, not moved
    return replace(query, subject=replace(subject, motion=_way(subject, said[0])), event=event)


def _way(subject: Subject, motion: str) -> str:
    """``motion`` of a subject, with the way it went where the question said one ("were walking left")."""
    return subject.motion if motion == "moving" and subject.motion.startswith("moving ") else motion


def _every_camera(query: Query, tokens: list[str], cameras: Sequence[str]) -> Query:
    """ "Did every camera see a person?", "was the dog seen in all the rooms?": the cameras that saw it, held against
    all of them."""
    tokens = [t for t in tokens if t != "single"]  # "did every single room ..."
    said = [i for i, w in enumerate(tokens[:-1]) if w in ("every", "each", "all")]
    asked = any(
        (tokens[i + 1] in _CAMERA_WORDS | _ROOM_WORDS) or (tokens[i + 1] == "the" and tokens[i + 2 : i + 3] and
                                                           tokens[i + 2] in _CAMERA_WORDS | _ROOM_WORDS)
        for i in said
    )  # fmt: skip
    if not asked or not query.yes_no or query.intent not in _PICKING or not cameras:
        return query
    subject = query.subject
    if subject.generic and subject.said in ("camera", "cameras", "room", "rooms", "one"):
        subject = replace(subject, said="thing")
    return replace(
        query,
        intent=Intent.COUNT,
        subject=subject,
        aggregate=Aggregate.CAMERAS,
        quantity=len([c for c in cameras if c not in query.place.not_cameras]),
        compare="all",
    )


def _not_there(query: Query, tokens: list[str]) -> Query:
    """ "Were there any people not on the street?": every camera but that one (a "not" after a noun, not after the
    auxiliary: "the truck was not on the street" denies, it picks no camera)."""
    cameras = query.place.cameras
    picked = not query.yes_no and query.intent in (Intent.LIST, Intent.COUNT)  # "which things were not seen on it?"
    for i, w in enumerate(tokens[1:-1], start=1):
        after = i + 1 + (picked and tokens[i + 1] in _SEEN_VERBS)  # "not seen on", "not caught in"
        if w != "not" or tokens[after : after + 1] not in (["on"], ["in"], ["at"], ["inside"]) or not cameras:
            continue
        if (tokens[after + 1 : after + 2] or [""])[0] in COLOUR_WORDS:  # "people not in black on the street": dress
            continue
        if tokens[i - 1] not in AUX or picked:
            return replace(
                query,
                place=replace(query.place, cameras=(), not_cameras=(*query.place.not_cameras, *cameras)),
                negated=query.negated and not picked,
            )
    return query


#: Verbs of being seen between "not" and the place: "which things were not seen on the street?"
_SEEN_VERBS = frozenset({"seen", "spotted", "caught", "recorded", "filmed", "picked"})


def _clause_colour(query: Query, tokens: list[str], phrases: list[_Phrase]) -> Query:
    """ "The thing that was orange, where was it?", "where was the cup which was red?": a colour a relative clause says
    picks the subject, as "the orange thing" does."""
    if query.yes_no or query.alternatives or query.subject.colours or query.intent is Intent.ATTRIBUTE:
        return query
    if not {"that", "which", "who"} & set(tokens):
        return query
    colours = [v for p in phrases if not p.other_side for f, v in p.values if f == "colour"]
    if not colours:
        return query
    subject = replace(query.subject, colours=tuple(dict.fromkeys(colours)), near=())
    return replace(query, subject=subject)


def _cameras_in_order(query: Query) -> Query:
    """ "Did the kitchen or the bedroom get visited first?": the two cameras' first sightings in order, not which
    camera saw the subject."""
    choices = query.alternatives
    if query.intent is Intent.WHICH_CAMERA and query.alternative_of == "camera" and len(choices) >= 2:
        if query.order in (Order.FIRST, Order.LAST) and not query.rank:
            return replace(query, intent=Intent.ORDER, yes_no=False, place=replace(query.place, cameras=()))
    return query


#: Words that set one of the things asked about aside: "anyone besides the cook", "anyone other than her".
_BESIDES = (["besides"], ["except"], ["apart", "from"], ["other", "than"], ["aside", "from"], ["but"])


def _besides(query: Query, tokens: list[str]) -> Query:
    """ "Did the camera pick up anyone besides the cook?", "was there anyone other than the woman in the kitchen?": one
    of the people set aside, whether there was more than one person (not whether any person was there, nor "no
    person at all" for the kind set aside)."""
    at = next((i + len(w) for i in range(len(tokens)) for w in _BESIDES if tokens[i : i + len(w)] == w), None)
    if at is None or query.subject.kinds != ("person",) or query.intent is not Intent.EXISTS:
        return query
    rest = [t for t in tokens[at : at + 3] if t not in DETERMINERS]
    person = (
        query.subject.exclude == ("person",)
        or bool(rest)
        and (rest[0] in TOLD_APART or rest[0] in query.unknown or rest[0] in ("her", "him", "me", "them"))
    )
    if not person:  # "anything besides the bowl": the kind left out
        return query
    subject = replace(query.subject, exclude=())
    if any(t in COLOUR_WORDS or t in PATTERN_WORDS for t in tokens[at:]):  # "besides the guy in blue": his, not theirs
        subject = replace(subject, colours=(), pattern="")
    unknown = tuple(u for u in query.unknown if u not in rest)  # "the cook": a person, set aside
    return replace(query, intent=Intent.COUNT, subject=subject, quantity=1, compare="more", unknown=unknown)


def _unknown_camera(query: Query, tokens: list[str], cameras: Sequence[str]) -> Query:
    """ "Is there any footage from the garage camera?", "was the front door camera showing anyone?": a place memory
    does not know, said as a camera."""
    said = tuple(
        u for u in (*query.unknown_places, *query.unknown)
        if any(tokens[i : i + 2] == [u.split()[-1], w] for i in range(len(tokens)) for w in _CAMERA_WORDS)
        and u.split()[-1] not in _NOT_CAMERA_NAMES  # "the indoor cameras", "how many distinct cameras"
    )  # fmt: skip
    known = {w for c in cameras for w in tokenize(c)}
    names = _NOT_CAMERA_NAMES | STATES | known  # words that end a camera's name said before "camera"
    for i, w in enumerate(tokens):
        if w not in ("camera", "cam", "cameras") or query.place.cameras:
            continue
        j = i
        while j > 0 and tokens[j - 1].isalpha() and tokens[j - 1] not in names:
            j -= 1
        name = " ".join(tokens[j:i])
        if name and not any(t in known for t in tokens[max(0, j - 1) : i]) and name not in said:
            said = (*said, name)
    return replace(query, unknown_cameras=said) if said else query


#: Words before "camera" that name no camera: "the camera", "which camera", "any other camera", "my security camera".
_NOT_CAMERA_NAMES = (
    DETERMINERS
    | frozenset(NUMBER_WORDS)
    | WH
    | AUX
    | PRONOUNS
    | FILLER
    | {"any", "other", "each", "every", "all", "same", "which", "what", "one", "security", "indoor", "outdoor", "my",
       "your", "our", "both", "two", "first", "last", "second", "another", "different", "that", "this", "the", "a",
       "an", "by", "on", "from", "in", "at", "of", "to", "no", "video", "main", "single", "particular", "given",
       "busiest", "quietest", "most", "least", "more", "fewer", "many", "how", "did", "saw", "see", "seen", "inside",
       "outside", "home", "house", "wearable", "body", "worn", "cctv", "web", "spy", "hidden", "new", "old", "distinct",
       "separate", "unique", "various", "several", "multiple", "total", "indoors", "outdoors", "interior", "exterior"}
)  # fmt: skip


#: Words that leave some out: "not counting the ones in black", "except those in red".
_LEAVING_OUT = (("not", "counting"), ("without", "counting"), ("except",), ("besides",), ("excluding",),
                ("apart", "from"), ("other", "than"), ("but", "not"), ("not", "wearing"), ("not", "dressed"),
                ("not", "in"))  # fmt: skip


def _not_in_colours(query: Query, tokens: list[str]) -> Query:
    """ "How many people were on the street, not counting the ones in black?": a colour said after the words that
    leave some out is left out, not asked for."""
    starts = [i + len(w) for i in range(len(tokens)) for w in _LEAVING_OUT if (*tokens[i : i + len(w)],) == w]
    said = query.subject.colours
    # ("apart from the street, was anyone in red?": what the words leave out ends with their clause)
    ends = [next((j for j in range(at, len(tokens)) if tokens[j] in (",", ";", ":")), len(tokens)) for at in starts]
    out = {c for at, end in zip(starts, ends) for c in tokens[at:end] if c not in tokens[: starts[0]]}
    left_out = tuple(c for c in said if c in out)
    if not left_out:
        return query
    kept = tuple(c for c in said if c not in left_out)
    return replace(query, subject=replace(query.subject, colours=kept, not_colours=left_out))


def _dressed_or(query: Query, tokens: list[str]) -> Query:
    """ "Was the child in red or in blue?", "in red or blue?": a choice of the colours joined by "or" (the first is
    not the subject's colour, with the second asked about it)."""
    said: list[str] = []
    for i, w in enumerate(tokens):
        if w in COLOUR_WORDS and (said or "or" in tokens[i + 1 : i + 4]):
            joined = not said or "or" in tokens[max(0, i - 3) : i]
            if joined:
                said.append(w)
    if len(set(said)) < 2 or query.intent not in (Intent.EXISTS, Intent.ATTRIBUTE) or query.other is not None:
        return query
    if (MORE_WORDS | FEWER_WORDS) & set(tokens) or not (query.subject.kinds or query.subject.entity_id is not None):
        return query
    colours = tuple(dict.fromkeys(said))
    subject = replace(query.subject, colours=tuple(c for c in query.subject.colours if c not in colours))
    return replace(
        query, intent=Intent.ATTRIBUTE, asks="colour", subject=subject, alternatives=colours, alternative_of="colour"
    )


def _same_kind_in_colours(query: Query, tokens: list[str]) -> Query:
    """ "Was the red bowl or the orange bowl in the kitchen?": one kind said twice in two colours is a choice of colour
    (which of them it was), not of kinds."""
    kinds = set(query.alternatives)
    said = [t for t in tokens if t in COLOUR_WORDS]
    if query.alternative_of != "kind" or len(kinds) != 1 or len(set(said)) < 2 or query.other is not None:
        return query
    subject = replace(query.subject, colours=())
    colours = tuple(dict.fromkeys(said))
    return replace(
        query, intent=Intent.ATTRIBUTE, asks="colour", subject=subject, alternatives=colours, alternative_of="colour",
        yes_no=False,
    )  # fmt: skip


def _colour_sides(query: Query, tokens: list[str]) -> Query:
    """ "Were there more people in black or in blue?", "more people in black than in blue?": the things of each colour
    counted, the colour with more (or fewer) the answer."""
    if not (MORE_WORDS | FEWER_WORDS) & set(tokens) or not {"or", "than"} & set(tokens) or query.other is not None:
        return query
    said = [t for t in tokens if t in COLOUR_WORDS]
    named = query.subject.kinds or query.subject.generic
    if len(said) != 2 or not named or query.intent not in (Intent.COUNT, Intent.EXISTS, Intent.LIST):
        return query
    mine = replace(query.subject, colours=(said[0],), many=True)
    choosing = "or" in tokens
    return replace(
        query,
        intent=Intent.COUNT,
        subject=mine,
        other=Side(subject=replace(mine, colours=(said[1],))),
        compare="fewer" if FEWER_WORDS & set(tokens) else "more",
        aggregate=Aggregate.THINGS,
        alternatives=tuple(said) if choosing else (),
        alternative_of="colour" if choosing else "",
        yes_no=query.yes_no and not choosing,
    )


def _rooms_in_order(query: Query, tokens: list[str], cameras: Sequence[str]) -> Query:
    """ "In what order did the rooms get visitors?", "in which order did the cameras see someone?": every camera (the
    rooms: those indoors) by when it first saw the subject."""
    if "order" not in tokens or query.place.cameras or query.alternatives or not {"rooms", "cameras"} & set(tokens):
        return query
    outdoor = set(outdoor_cameras(cameras))
    chosen = tuple(c for c in cameras if "rooms" not in tokens or c not in outdoor)
    if len(chosen) < 2:
        return query
    return replace(
        query, intent=Intent.ORDER, order=Order.FIRST, alternatives=chosen, alternative_of="camera", yes_no=False,
        place=replace(query.place, not_cameras=()),
    )  # fmt: skip


def _users_own(query: Query, tokens: list[str]) -> Query:
    """ "Was anyone in the kitchen while I was gone?": the user's own leaving says when, no one else left."""
    if query.event is not Event.LEAVES:
        return query
    leaving = ("gone", "away", "out", "left", "leaving", "off")
    own = any(
        w in ("i", "we") and tokens[i + 1 : i + 2] and tokens[i + 1] in AUX and tokens[i + 2 : i + 3]
        and tokens[i + 2] in leaving
        for i, w in enumerate(tokens[:-2])
    )  # fmt: skip
    others = [
        w
        for i, w in enumerate(tokens)
        if EVENT_VERBS.get(w) == "leaves" and tokens[i - 1 : i] not in (["was"], ["were"])
    ]
    return replace(query, event=Event.SEEN) if own and not others else query


#: Words for people that say a sex or an age, which no camera here tells: each is read as any person, and said so.
TOLD_APART = frozenset(
    {"woman", "women", "man", "men", "lady", "ladies", "guy", "guys", "girl", "girls", "boy", "boys", "child",
     "children", "kid", "kids", "baby", "babies", "toddler", "toddlers", "adult", "adults", "teenager", "teenagers",
     "gentleman", "gentlemen", "mother", "father", "mum", "mom", "dad", "grandma", "grandpa", "wife", "husband",
     "daughter", "daughters", "son", "sons", "sister", "brother", "partner", "boyfriend", "girlfriend", "grandson",
     "granddaughter", "grandmother", "grandfather", "granny", "aunt", "uncle", "niece", "nephew", "mommy", "daddy"}
)  # fmt: skip
#: What is asked of one person: which of several a word memory cannot tell them apart by means, it cannot say.
_OF_ONE = frozenset({Intent.ATTRIBUTE, Intent.WHERE, Intent.WHEN, Intent.DURATION})


def _person_words(query: Query) -> Query:
    """ "Which room was the lady in?": memory tells people apart by look and face, not by sex or age: the answer says
    it read "lady" as any person."""
    said = query.subject.said
    theirs = query.other.subject if query.other is not None else Subject()
    if theirs.kinds == ("person",) and theirs.said in TOLD_APART and not query.place.cameras:
        # "was the baby seen before or after the woman?": two people memory cannot tell apart by those words
        told = tuple(dict.fromkeys(w for w in (said, theirs.said) if w in TOLD_APART))
        return replace(query, grounded=(*query.grounded, *((w, _ANY_PERSON) for w in told)))
    if query.subject.kinds != ("person",) or said not in TOLD_APART or query.subject.name:
        return query
    if query.intent not in _PICKING or query.place.cameras:  # where it picks among people, not of one in a room
        return query
    subject = replace(query.subject, said="person")  # "2 people seen", not "2 babies": the caveat says why
    return replace(query, subject=subject, grounded=(*query.grounded, (said, _ANY_PERSON)))


def one_of_people(query: Query) -> Query:
    """ "What was my daughter wearing?", "where was the lady?" (the whole question, a conversation's included): which
    person that is memory cannot tell by such a word, where no name, room or description says; the people seen, each
    with what they wore, where and when, are what it can say: a list of them, which the answer says it read so."""
    said, subject = query.subject.said, query.subject
    if subject.kinds != ("person",) or said not in TOLD_APART or subject.name or subject.entity_id is not None:
        return query
    if query.place.cameras or query.place.zones or query.place.near or subject.near or subject.described:
        return query  # "the guy with the phone": the phone says which
    if query.alternatives or query.intent not in _OF_ONE or query.other is not None or query.rank:
        return query
    if query.intent is Intent.WHEN and query.order in (Order.FIRST, Order.LAST) and query.event is Event.SEEN:
        # "when did you last see the baby?": when the last person was seen is what memory can say, said so
        return replace(query, subject=replace(subject, said="person"), grounded=(*query.grounded, (said, _ANY_PERSON)))
    if query.intent is Intent.WHERE and query.event is Event.SEEN:
        # "where's the baby?": the cameras people were seen on, each with its last sighting (not every person)
        subject = replace(subject, said="person")
        return replace(query, intent=Intent.WHICH_CAMERA, order=None, subject=subject,
                       grounded=(*query.grounded, (said, _ANY_PERSON)))  # fmt: skip
    return replace(
        query,
        intent=Intent.LIST,
        order=None,
        subject=replace(subject, said="person"),  # "21 people seen", not "21 ladies"
        grounded=(*query.grounded, (said, _ANY_PERSON)),
    )


_ANY_PERSON = "any person (memory does not tell sex or age)"


def _ago(query: Query, tokens: list[str]) -> Query:
    """ "How long ago was the phone seen?", "how many hours ago did the van leave?": when, said back from now."""
    at = next((i for i, w in enumerate(tokens) if w == "ago" and i >= 2), None)
    if at is None or "how" not in tokens[max(0, at - 3) : at]:
        return query
    if query.intent is Intent.DURATION and (tokens[at - 1] in UNITS or tokens[at - 1] == "long"):
        return replace(query, intent=Intent.WHEN, asks="ago")  # "how many hours ago ...": not a length
    return replace(query, asks="ago") if query.intent is Intent.WHEN else query


def _whose(query: Query, tokens: list[str]) -> Query:
    """ "Whose car was that?", "who owns the phone?", "who does the bowl belong to?": its owner, as memory learnt it."""
    if (
        not _OWNING & set(tokens)
        or not query.subject.named
        or query.subject.generic
        or query.subject.kinds == ("person",)
    ):
        return query
    return replace(query, intent=Intent.HABIT, asks="owner", yes_no=False)


#: Words asking a thing's owner.
_OWNING = frozenset({"whose", "owns", "owner", "owned", "belong", "belongs", "belonged"})


def _same_in_two(query: Query, tokens: list[str]) -> Query:
    """ "Was it the same person in the kids room and the lounge?": whether memory holds the one seen on each camera
    as one thing, not whether one was seen on either."""
    cameras = query.place.cameras
    if "same" not in tokens or not query.yes_no or len(cameras) != 2 or query.other is not None:
        return query
    if query.intent not in (Intent.EXISTS, Intent.COUNT) or not query.subject.kinds:
        return query
    other = Side(subject=replace(query.subject, colours=()), place=Place(cameras=cameras[1:]), time=query.time)
    return replace(query, intent=Intent.SAME, place=replace(query.place, cameras=cameras[:1]), other=other)


def _same_room(query: Query, tokens: list[str], phrases: Sequence[_Phrase]) -> Query:
    """ "Were the tv and the couch in the same room?": whether the two were seen together (on one camera at once)."""
    said = any(a == "same" and b in _ROOMLIKE for a, b in zip(tokens, tokens[1:]))
    things = [p for p in phrases if p.kinds and p.role in ("subject", "object")]
    if not said or not query.yes_no or len(things) != 2 or query.intent is not Intent.EXISTS:
        return query
    first, second = things
    subject = Subject(kinds=first.kinds, said=first.said, near=(second.kinds[0],))
    return replace(query, subject=subject, other=None, place=Place())


#: Words for where two things may be said to be together: "the same room", "the same camera".
_ROOMLIKE = frozenset({"room", "camera", "place", "spot", "view", "area", "cam"})


def _only_place(query: Query, tokens: list[str], phrases: Sequence[_Phrase]) -> Query:
    """ "Was the kitchen the only place with a bowl?", "was the bowl only in the kitchen?": whether that camera alone
    saw it (not whether it saw anything)."""
    if "only" not in tokens or not query.yes_no or len(query.place.cameras) != 1 or query.other is not None:
        return query
    things = [p for p in phrases if p.kinds and not p.camera]
    if len(things) != 1 or query.intent is not Intent.EXISTS:  # ("the bedroom only saw one person": a count)
        return query
    thing = things[0]
    return replace(
        query,
        intent=Intent.WHICH_CAMERA,
        subject=Subject(kinds=thing.kinds, said=thing.said),
        place=Place(),
        alternatives=query.place.cameras,
        alternative_of="camera",
        asks="only",
    )


def _after_a_room(query: Query, tokens: list[str]) -> Query:
    """ "What came after the kitchen?": the cameras that saw things after that camera did, in order (not the kitchen
    after some moment)."""
    other = query.other
    if other is None or query.order not in (Order.AFTER, Order.BEFORE) or query.intent not in (Intent.LIST,):
        return query
    if len(other.place.cameras) != 1 or other.subject.named or query.place.named or not query.subject.generic:
        return query
    return replace(query, intent=Intent.WHICH_CAMERA)


def _rooms_had(query: Query, tokens: list[str]) -> Query:
    """ "Did every room have somebody in it?": each room had someone (any one), not one person in every room ("was
    anybody seen in every room?")."""
    if query.aggregate is not Aggregate.CAMERAS or query.compare != "all" or query.subject.said not in _ANY_ONE:
        return query
    every = next((i for i, w in enumerate(tokens[:-1]) if w in ("every", "each", "all")), None)
    one = tokens.index(query.subject.said) if query.subject.said in tokens else None
    if every is None or one is None or every > one or not (_CAMERA_WORDS | _ROOM_WORDS) & set(tokens[every + 1 : one]):
        return query
    said = "people" if query.subject.kinds == ("person",) else "things"
    return replace(query, subject=replace(query.subject, said=said, many=True))


#: Words for any one thing or person: "did every room have somebody?"
_ANY_ONE = frozenset({"somebody", "someone", "anybody", "anyone", "something", "anything"})


def _direction(query: Query, tokens: list[str]) -> Query:
    """ "Which way was #4 walking?", "what direction did the truck go?": how it was seen moving (its motion), not a
    list of it."""
    pairs = {(a, b) for a, b in zip(tokens, tokens[1:])}
    either = _either_way(tokens)  # "did he go left or right?": which of the two, not whether he was on the right
    how = any(  # "how did the person in the kitchen move around?": how it was seen moving
        w == "how" and tokens[i + 1 : i + 2] and tokens[i + 1] in AUX and _GOING & set(tokens[i + 2 :])
        for i, w in enumerate(tokens)
    )
    if not (pairs & _DIRECTION_ASKED or either or how) or not query.subject.named or query.subject.generic:
        return query
    if query.yes_no and not either:
        return query
    if either:
        query = replace(query, yes_no=False, intent=Intent.ATTRIBUTE, place=replace(query.place, regions=()))
        query = replace(query, subject=replace(query.subject, motion=""))
    if query.intent not in (Intent.LIST, Intent.SUMMARY, Intent.WHERE, Intent.ATTRIBUTE) and not how:
        return query
    return replace(
        query,
        intent=Intent.ATTRIBUTE,
        asks="direction",
        event=Event.SEEN,
        alternatives=(),
        alternative_of="",
        order=None,
    )


#: Verbs: of what happened, and of going somewhere.
_VERBS = frozenset(EVENT_VERBS) | _GOING


def _either_way(tokens: list[str]) -> bool:
    """Whether a verb of going is asked with two ways: "did he go left or right?", "walking to the left or right"."""
    for i, w in enumerate(tokens):
        if w in _WAYS and tokens[i + 1 : i + 2] == ["or"] and any(t in _GOING for t in tokens[:i]):
            rest = [t for t in tokens[i + 2 : i + 5] if t not in ("to", "the", "towards")]
            return bool(rest) and rest[0] in _WAYS
    return False


#: Words that ask which way a thing moved.
_DIRECTION_ASKED = frozenset({("which", "way"), ("what", "direction"), ("which", "direction"), ("what", "way")})


def _alone(query: Query, tokens: list[str]) -> Query:
    """ "Was the baby alone?": whether nobody was with it, the company question asked the other way round."""
    if query.intent is Intent.COMPANY and {"alone", "unaccompanied"} & set(tokens):
        return replace(query, negated=True)
    own = any(tokens[i : i + 3] in (["on", w, "own"] for w in _OWNERS) for i in range(len(tokens)))
    if (own or _BY_ITSELF & set(tokens)) and query.yes_no:  # "was the baby on her own?", "by himself?": alone
        return replace(query, intent=Intent.COMPANY, asks="person", negated=True)
    return query


#: "On her own", "by himself": alone.
_OWNERS = ("her", "his", "its", "their", "my")
_BY_ITSELF = frozenset({"herself", "himself", "itself", "themselves"})


#: Parts of a recording: "the first half of the street video".
_PARTS = {"half": 0.5, "third": 1 / 3, "quarter": 0.25}
_FIRSTS = {"first": "first", "opening": "first", "start": "first", "beginning": "first", "last": "last",
           "final": "last", "closing": "last", "end": "last"}  # fmt: skip


_AT_THE_END = (["at", "the", "end"], ["at", "the", "start"], ["at", "the", "beginning"])


def _stretch_of(tokens: list[str], camera: bool) -> list[str]:
    """A stretch said as the recording's own, "in its last 10 seconds" (of a camera named: ``camera``) or "the street
    recording's first minute", said as "the last 10 seconds of the recording" (the form read after)."""
    for i, owner in enumerate(tokens[:-2]):
        if not (owner == "its" and camera or owner in _RECORDING_WORDS) or tokens[i + 1] not in _FIRSTS:
            continue
        j = i + 2
        half_a = tokens[j] == "half" and len(tokens) > j + 1 and tokens[j + 1] in UNITS  # "its final half minute"
        if half_a or tokens[j].isdigit() or tokens[j] in NUMBER_WORDS:  # "its last 10 seconds"
            j += 1
        if j < len(tokens) and (tokens[j] in UNITS or tokens[j] in _PARTS):
            return [*tokens[:i], "the", *tokens[i + 1 : j + 1], "of", "the", "recording", *tokens[j + 1 :]]
    return tokens


def _recording_window(query: Query, tokens: list[str]) -> Query:
    """ "What was seen in the first minute of the street video?", "who was there at the end of the recording?", "in
    the last 30 seconds of the footage": a stretch of the recording, made a window from what memory recorded (a tenth
    of it where no length is said); "at the end", of a camera, is the end of its recording. ("Was anyone still there
    at the end of the recording?" asks whether any had not left: no window.)"""
    if query.event is Event.LEAVES and query.yes_no:
        return query
    tokens = _stretch_of(tokens, bool(query.place.cameras))
    bare = next((i + 3 for i in range(len(tokens)) if tokens[i : i + 3] in _AT_THE_END), None)
    if bare is not None and tokens[bare : bare + 1] != ["of"] and query.place.cameras:
        tokens = [*tokens[:bare], "of", "the", "recording", *tokens[bare:]]
    at = next((i for i, w in enumerate(tokens) if w in _RECORDING_WORDS and "of" in tokens[max(0, i - 4) : i]), None)
    if at is None:  # "what did the street cam see in the first minute?": of what it recorded, said or not
        j = next((i for i, w in enumerate(tokens[:-1]) if w in UNITS and tokens[i + 1] in ("?", ".", "!", ",")), -1)
        j = j if j >= 0 or not tokens or tokens[-1] not in UNITS else len(tokens) - 1
        firsts = tokens[max(0, j - 3) : j]  # "in the first minute", "the final half minute" ("the last 5 minutes" is
        if j < 0 or not any(w in _FIRSTS and w != "last" for w in firsts):  # back from now, read with the times)
            return query
    else:
        j = max(i for i in range(max(0, at - 4), at) if tokens[i] == "of") - 1
    seconds, part = 0.0, _PARTS.get(tokens[j], 0.0) if j >= 0 else 0.0  # "the first half of the street video"
    if part:
        j -= 1
        if j >= 0 and tokens[j] == "second" and part == 0.5:  # "the second half": the last
            tokens = [*tokens[:j], "last", *tokens[j + 1 :]]
    elif j >= 0 and tokens[j] in UNITS:
        seconds, j = UNITS[tokens[j]], j - 1
        if j >= 0 and tokens[j] == "half":  # "the final half minute"
            seconds, j = seconds / 2, j - 1
        elif j >= 0 and (tokens[j].isdigit() or tokens[j] in NUMBER_WORDS):
            seconds, j = seconds * (int(tokens[j]) if tokens[j].isdigit() else NUMBER_WORDS[tokens[j]]), j - 1
    if j < 0 or tokens[j] not in _FIRSTS:
        return query
    which = _FIRSTS[tokens[j]]
    time = replace(query.time, start=None, moments=(), of_recording=which, recording_s=seconds, recording_part=part)
    order = None if query.order in (Order.FIRST, Order.LAST) else query.order
    subject = Subject(generic=True, said="thing") if query.subject.recording else query.subject  # what was seen in it
    listed = query.intent is Intent.WHEN and (subject.generic or query.order in (Order.FIRST, Order.LAST))
    intent = Intent.LIST if listed else query.intent
    places = tuple(u for u in query.unknown_places if u.split()[-1] not in _PARTS)  # "in the first half": no place
    return replace(query, time=time, order=order, intent=intent, subject=subject, unknown_places=places)


def _cameras_asked(tokens: list[str]) -> bool:
    """Whether what an imperative asks for is cameras or rooms: "name the rooms where someone was", "show me every
    camera that saw the dog"."""
    said = [t for t in tokens[1:] if t not in ("me", "us", "every", "all", "each", "the", "of", "which", "those")]
    return bool(said) and (said[0] in _CAMERA_WORDS or said[0] in _ROOM_WORDS)


def _compared(query: Query, tokens: list[str], cues: _Cues, cameras: Sequence[str]) -> Query:
    """ "Between the street and the kitchen, where were more people?": a count on each camera, the one with more the
    answer (as "which saw more people, the street or the kitchen?"); a camera named like a kind ("the desk") is the
    camera there; "more time than" compares how long each was there."""
    other = query.other
    two = query.alternative_of == "camera" and len(query.alternatives) == 2 and other is None
    if two and query.intent is Intent.WHICH_CAMERA and (MORE_WORDS | FEWER_WORDS) & set(tokens):
        # "which camera saw more people, the street one or the desk one?": a count on each, held against the other
        return replace(
            query,
            intent=Intent.COUNT,
            place=replace(query.place, cameras=query.alternatives[:1]),
            other=Side(place=Place(cameras=query.alternatives[1:])),
            compare="fewer" if FEWER_WORDS & set(tokens) else "more",
            aggregate=query.aggregate or Aggregate.THINGS,
            rank="",
        )
    if two and query.intent is Intent.DURATION and {"longer", "shorter"} & set(tokens):
        # "living room or desk, where did someone stay longer?": how long on each, held against the other
        return replace(
            query,
            place=replace(query.place, cameras=query.alternatives[:1]),
            other=Side(place=Place(cameras=query.alternatives[1:])),
            compare="fewer" if "shorter" in tokens else "more",
            alternatives=(),
            alternative_of="",
        )
    timed = any(w in ("more", "less") and after in ("time", "while") for w, after in zip(tokens, tokens[1:]))
    if timed and query.intent is Intent.COUNT and other is not None and query.compare:
        return replace(query, intent=Intent.DURATION, aggregate=None)
    if other is not None and other.subject.named and not other.place.named and query.place.cameras:
        camera = next((c for c in cameras if " ".join(tokenize(c)) == other.subject.said), None)
        other = Side(place=Place(cameras=(camera,))) if camera is not None else other
        query = replace(query, other=other)  # "between the kitchen and the desk": the desk camera
    query = _place_shared(query)
    other = query.other
    if not query.compare or other is None or other.subject.named or cues.duration:
        return query
    if query.intent not in (Intent.WHERE, Intent.LIST, Intent.WHICH_CAMERA) or query.yes_no:
        return query
    if not (len(query.place.cameras) == 1 and len(other.place.cameras) == 1):
        return query
    return replace(
        query,
        intent=Intent.COUNT,
        other=other,
        aggregate=query.aggregate or Aggregate.THINGS,
        alternatives=(query.place.cameras[0], other.place.cameras[0]),
        alternative_of="camera",
        rank="",
    )


def _place_shared(query: Query) -> Query:
    """ "Were there more people than cars on the street?": a place said once, after both things compared, is where
    both were counted (the second side already keeps a place only the first names)."""
    other = query.other
    if other is None or not query.compare or query.place.named or query.place.anywhere:
        return query
    if not (query.subject.kinds and other.subject.kinds and other.place.named):
        return query
    return replace(query, place=other.place, other=replace(other, place=Place()))


_INDOOR_WORDS = frozenset({"indoor", "indoors", "inside", "interior"})
#: "Was anyone in the house while I was out?": the cameras indoors, wherever in the sentence it is said.
_IN_THE_HOUSE = [[a, "the", b] for a in ("in", "inside", "around") for b in ("house", "home", "flat", "apartment")]
_OUTDOOR_WORDS = frozenset({"outdoor", "outdoors", "outside", "exterior"})


def _indoors(query: Query, tokens: list[str], cameras: Sequence[str]) -> Query:
    """ "How many of the indoor cameras saw someone?": the cameras whose names say indoors (or outdoors), by the words
    in them; a count of cameras when the question counts cameras or rooms; "a stretch when no camera saw anything" is
    whether any was seen (none, for yes)."""
    outdoor = outdoor_cameras(cameras)
    split = bool(outdoor) and len(outdoor) < len(cameras)  # some cameras look out, some in
    for i, w in enumerate(tokens):
        after = tokens[i + 1] if i + 1 < len(tokens) else ""
        if after not in ("camera", "cameras", "ones", "rooms", "one") or query.place.cameras:
            continue
        if w in _INDOOR_WORDS or w in _OUTDOOR_WORDS:
            chosen = tuple(c for c in cameras if (c in outdoor) == (w in _OUTDOOR_WORDS))
            places = tuple(u for u in query.unknown_places if u.split()[-1] != w)  # "the indoor cameras": read
            query = replace(query, place=replace(query.place, cameras=chosen or ("",)), unknown_places=places)
    words = [t for t in tokens if t not in ("?", ".", "!")]
    home = words[-1:] in (["home"], ["indoors"], ["inside"]) or words[-2:] in (["the", "house"], ["the", "home"])
    home = (
        home
        or any(  # "a summary of everything indoors today" (not "inside the kitchen")
            w == "indoors" and words[i + 1 : i + 2] not in (["the"], ["of"]) for i, w in enumerate(words)
        )
    )
    home = home or any(
        words[i : i + 3] in _IN_THE_HOUSE or words[i : i + 2] == ["at", "home"] for i in range(len(words))
    )
    out = any(  # "what was out front?", "what did the camera outside catch?" (not "outside the kitchen")
        (w in ("outside", "outdoors") and words[i + 1 : i + 2] not in (["the"], ["of"], ["a"]))
        or words[i : i + 2] in (["out", "front"], ["out", "back"])
        for i, w in enumerate(words)
    )
    floors = [w for w in words if w in ("upstairs", "downstairs") and w not in cameras]
    if floors and not query.place.named:  # "anything upstairs?": no camera is said to be on a floor
        query = replace(query, unknown_places=tuple(dict.fromkeys((*query.unknown_places, *floors))))
    if (home or out) and not query.place.named and split:  # "anyone home?", "how many people outside?": the cameras so
        place = replace(query.place, not_cameras=outdoor) if home else replace(query.place, cameras=outdoor)
        query = replace(query, place=place, unknown_places=())
    rooms = [i for i, w in enumerate(tokens) if w in ("room", "rooms") and tokens[i - 1 : i] in _ROOM_ASKED]
    among = any(tokens[i : i + 3] in (["of", "the", "rooms"], ["in", "the", "rooms"]) for i in range(len(tokens)))
    picking = bool(rooms) and query.intent in (Intent.COUNT, Intent.WHICH_CAMERA)
    if (among or picking) and not query.place.cameras and split:
        # "in any of the rooms", "how many rooms had someone?", "which room was busiest?": the cameras indoors (a
        # street is no room)
        not_cameras = tuple(dict.fromkeys((*query.place.not_cameras, *outdoor)))
        query = replace(query, place=replace(query.place, not_cameras=not_cameras))
        if query.compare == "all" and query.aggregate is Aggregate.CAMERAS:  # "did every room have someone?"
            query = replace(query, quantity=len([c for c in cameras if c not in not_cameras]))
    many = tokens.index("many") + 1 if "many" in tokens[:3] else len(tokens)
    counted = tokens[many : many + 3]  # "how many (different) cameras", not "how many objects did the cameras see"
    counts_cameras = query.intent is Intent.COUNT and {"cameras", "rooms"} & set(counted) and "how" in tokens[:2]
    if counts_cameras and query.aggregate in (None, Aggregate.THINGS):
        query = replace(query, aggregate=Aggregate.CAMERAS)
    spans = [k for k, w in enumerate(tokens) if w == "when" and set(tokens[max(0, k - 4) : k]) & _SPANS_OF_TIME]
    if query.intent is Intent.WHEN and query.yes_no and any({"a", "an", "any"} & set(tokens[k - 5 : k]) for k in spans):
        query = replace(query, intent=Intent.EXISTS, order=None)  # "was there a time when nothing was seen?"
    return query


#: Words for the cameras indoors, or outdoors, as one place: "more people on the street or in the house?"
_HOUSE = {("the", "house"): "in", ("the", "home"): "in", ("home",): "in", ("indoors",): "in", ("inside",): "in",
          ("the", "flat"): "in", ("the", "apartment"): "in", ("outside",): "out", ("outdoors",): "out"}  # fmt: skip


def _house_compared(query: Query, tokens: list[str], cameras: Sequence[str]) -> Query:
    """ "Were there more people on the street or in the house?", "fewer people in the house than on the street?",
    "more people outside or inside?": the cameras indoors (or outdoors, by the words in their names) as one side of
    a count held against the other (a camera, or the other group)."""
    if not (MORE_WORDS | FEWER_WORDS) & set(tokens) or not {"or", "than"} & set(tokens):
        return query
    said = [w for i in range(len(tokens)) for w in _HOUSE if tuple(tokens[i : i + len(w)]) == w]
    outdoor = outdoor_cameras(cameras)
    indoor = tuple(c for c in cameras if c not in outdoor)
    if not said or not outdoor or not indoor:
        return query
    groups = [(" ".join(w), indoor if _HOUSE[w] == "in" else outdoor) for w in said]
    theirs = query.other.place.cameras if query.other is not None else ()
    if len(query.place.cameras) == 1 and not theirs and query.place.cameras[0] not in groups[0][1]:
        sides = [(query.place.cameras[0], query.place.cameras), groups[0]]  # "the street or the house"
    elif not query.place.cameras and len(theirs) == 1:
        sides = [groups[0], (theirs[0], theirs)]  # "fewer in the house than on the street"
    elif not query.place.cameras and len(groups) == 2 and groups[0][1] != groups[1][1]:
        sides = groups  # "outside or inside"
    else:
        return query
    (mine, here), (other, there) = sides
    choosing = "or" in tokens
    return replace(
        query,
        intent=Intent.COUNT,
        place=replace(query.place, cameras=here, not_cameras=()),
        other=Side(place=Place(cameras=there)),
        compare="fewer" if FEWER_WORDS & set(tokens) else "more",
        aggregate=query.aggregate or Aggregate.THINGS,
        alternatives=(mine, other) if choosing else (),
        alternative_of="camera" if choosing else "",
        unknown_places=(),
        yes_no=query.yes_no and not choosing,
    )


#: Words before "room(s)" that ask among the rooms ("which room", "how many rooms"), not name one ("living room").
_ROOM_ASKED = (
    ["which"],
    ["what"],
    ["many"],
    ["each"],
    ["every"],
    ["all"],
    ["other"],
    ["busiest"],
    ["quietest"],
    ["single"],
    ["different"],
    ["distinct"],
    ["separate"],
    ["the"],  # "of the rooms", "how many of the rooms had ...": among them
)
#: Nouns of a stretch of time: "was there a time when no camera saw anything?" asks whether there was.
_SPANS_OF_TIME = frozenset({"time", "stretch", "moment", "period", "spell", "gap", "while", "point"})


#: Verbs before "back" that say it returned: "came back", "got back".
_BACK = frozenset({"come", "came", "comes", "coming", "got", "get", "gets", "is", "was", "were", "walked", "drove"})
#: Words after "still" that make it "yet" ("still there", "still on the street"), not a thing standing still.
_STILL_THERE = frozenset({"on", "in", "at", "there", "here", "around", "by", "near", "inside", "outside", "parked"})
#: Words after "still" that leave it saying how a thing stood: "was the car still?", "still or moving?"
_STILL_ENDS = frozenset({"", "?", ".", "!", ",", ";", "or", "and", "when", "while", "for", "during", "the", "all"})
#: What someone wore, asked: "what was she wearing?"
_WORE = frozenset({"wearing", "wear", "wore", "wears", "dressed"})
#: Pronouns of someone who wears: "what was she wearing?"
_WEARERS = frozenset({"she", "he", "her", "him", "they", "them"})
#: What may follow "that" or "this" standing for a thing ("was that the van?", "what time was that?").
_ENDS_CLAUSE = AUX | {"?", ".", "!", "", ","}
#: A correction of the last question: "no, I meant the car", "I mean the truck".
_MEANT = (("i", "meant"), ("i", "mean"), ("i", "was", "asking", "about"), ("i", "meant", "to", "ask", "about"))
#: Words that point back at something the conversation named: "that person", "this car", "the same van".
_DEMONSTRATIVES = frozenset({"that", "this", "those", "these", "same"})


def _corrected(tokens: list[str]) -> tuple[list[str], bool]:
    """ "No, I meant the car": (what was meant, True), to be asked as the last question was; else (tokens, False)."""
    rest = list(tokens)
    while rest and rest[0] in _SORRY:  # "no sorry, i meant the truck", "oops, actually I meant ..."
        rest = rest[1:]
    for lead in sorted(_MEANT, key=len, reverse=True):
        meant = rest[len(lead) :]
        if tuple(rest[: len(lead)]) == lead and meant and meant[0] not in WH | AUX | {","}:  # not "I mean, who ...?"
            return meant, True
    return tokens, False


#: Words that open a correction before what was meant: "no, sorry, I meant the truck".
_SORRY = frozenset({"no", "nope", "sorry", "oops", "actually", "wait", "ah", "oh", ",", "-"})

#: Nouns a count is asked by ("the number of cameras", "total count of people"), and the words that may lead to them
_COUNT_NOUNS = frozenset({"number", "count", "amount", "tally", "total"})
_COUNT_LEAD = frozenset(
    {"what", "is", "was", "the", "total", "overall", "a", "give", "me", "tell", "your", "and", "so"}
)


def _how_many(tokens: list[str]) -> list[str]:
    """A count asked without "how many", read as asked with it: "number of cameras", "what's the total number of
    people on the street?", "no. of sightings", "times car seen" (a terse "how many times")."""
    if tokens[:1] == ["times"] and len(tokens) > 1 and tokens[1] not in _PREPOSITION_WORDS:
        return ["how", "many", *tokens]
    for i, w in enumerate(tokens[:-2]):
        if not all(t in _COUNT_LEAD for t in tokens[:i]):
            break
        noun = w in _COUNT_NOUNS or w == "no" and tokens[i + 1] == "."
        at = i + 1 + (tokens[i + 1] == ".")
        if noun and tokens[at] == "of" and at + 1 < len(tokens) and tokens[at + 1] not in DETERMINERS:
            return ["how", "many", *tokens[at + 1 :]]
    return tokens


def _then_order(tokens: list[str]) -> list[str]:
    """ "Tv then couch?", "the person then the bowl?": whether the first came before the second (two things said
    with "then" and no verb or question word between them)."""
    words = [t for t in tokens if t not in ("?", ".", "!")]
    if words.count("then") != 1 or set(words) & (AUX | WH | set(EVENT_VERBS) | {"and", "what", "so"}):
        return tokens
    at = words.index("then")
    first, second = words[:at], words[at + 1 :]
    if not 0 < len(first) <= 6 or not 0 < len(second) <= 6:
        return tokens
    return ["did", *first, "come", "before", *second, "?"]


def _left_out_there(tokens: list[str]) -> list[str]:
    """ "Excluding those on the street", "except the ones in the kitchen": the place left out ("excluding the
    street"), not the things named there."""
    for i in range(len(tokens)):
        lead = _excluding(tokens, i)
        j = i + lead
        if not lead or tokens[j : j + 1] not in (["those"], ["ones"], ["the"], ["anything"], ["everything"]):
            continue
        k = j + 2 if tokens[j : j + 2] == ["the", "ones"] else j + 1 if tokens[j] != "the" else -1
        k += k > 0 and tokens[k : k + 1] in (["seen"], ["recorded"])
        after = [t for t in tokens[k + 1 : k + 3] if t != "the"][:1]
        if (
            k > 0
            and tokens[k : k + 1] in (["on"], ["in"], ["at"], ["from"])
            and not any(t in COLOUR_WORDS for t in after)
        ):
            return [*tokens[:j], *tokens[k + 1 :]]  # (not "the ones in black": what they wore)
    return tokens


def _versus(tokens: list[str]) -> list[str]:
    """ "Kitchen vs living room, which had more people?", "compare the kitchen and the living room: which had more?":
    two things held against each other, asked as a choice between them ("the kitchen or the living room")."""
    out = ["or" if w in ("vs", "versus") else w for w in tokens]
    if out[:1] in (["compare"], ["comparing"]) and "and" in out:
        out[out.index("and")] = "or"
        out = out[1:]
    return out


def _group_said(tokens: list[str]) -> list[str]:
    """ "More ... than all the indoor cameras combined": the other side is the cameras indoors, as "than indoors"."""
    for i, w in enumerate(tokens):
        if w in ("indoor", "outdoor") and tokens[i + 1 : i + 2] in (["cameras"], ["cams"], ["rooms"], ["ones"]):
            j = i - (tokens[i - 1 : i] == ["the"])
            j -= tokens[j - 1 : j] == ["all"]
            k = i + 2 + (tokens[i + 2 : i + 3] in (["combined"], ["together"]))
            if tokens[j - 1 : j] == ["than"]:
                return [*tokens[:j], w + "s", *tokens[k:]]
    return tokens


def _partitive(tokens: list[str]) -> list[str]:
    """ "A piece of furniture", "any items of clothing": the thing named after "of"."""
    for i, w in enumerate(tokens[:-2]):
        if w in ("piece", "pieces", "item", "items", "article", "articles") and tokens[i + 1] == "of":
            return [*tokens[:i], *tokens[i + 2 :]]
    return tokens


def _rooms_with(tokens: list[str]) -> list[str]:
    """ "Rooms with no person", "cameras with a truck", "any rooms where nobody was seen?", "is there any room without
    a person?": which of them had it (or had none)."""
    views = {
        "rooms": "rooms",
        "cameras": "cameras",
        "cams": "cams",
        "room": "rooms",
        "camera": "cameras",
        "cam": "cams",
    }
    lead = next((i for i, w in enumerate(tokens[:4]) if w in views), None)
    allowed = {"any", "were", "there", "are", "the", "is", "a"}
    if lead is None or not set(tokens[:lead]) <= allowed or len(tokens) < lead + 3:
        return tokens
    if tokens[lead + 1] in ("with", "having", "where"):  # "any rooms where nobody was seen?"
        return ["which", views[tokens[lead]], "had", *tokens[lead + 2 :]]
    if tokens[lead + 1] == "without":  # "is there a room without a person?"
        return ["which", views[tokens[lead]], "had", "no", *tokens[lead + 2 :]]
    return tokens


def _value_asked(words: list[str], phrases: list[_Phrase], cues: _Cues) -> bool:
    """ "Bowl orange?", "the couch blue?", "the couch it was blue?": a thing and what it is said to be, without a
    question's word order: whether it was."""
    said = phrases[1:] if len(phrases) == 2 and phrases[1].pronoun else phrases  # "the couch, it was blue?"
    if cues.wh or cues.imperative or len(said) != 1 or not said[0].values or not phrases[0].thing:
        return False
    return words[-1] == said[0].values[-1][1]


def _sightings_of(tokens: list[str]) -> list[str]:
    """ "How many truck sightings?", "truck sightings how many": how many sightings of the truck (not how many
    trucks)."""
    words = [t for t in tokens if t not in ("?", ".", "!")]
    at = next((i for i in range(len(words) - 1) if words[i : i + 2] == ["how", "many"]), None)
    noun = next((j for j, w in enumerate(words) if w in ("sightings", "appearances", "visits")), None)
    if at is None or noun is None or words[noun + 1 : noun + 2] == ["of"]:
        return tokens
    said = words[at + 2 : noun] if at < noun else words[:noun]
    rest = words[noun + 1 :] if at < noun else words[noun + 1 : at] + words[at + 2 :]
    if not said or len(said) > 3 or set(said) & (AUX | WH):
        return tokens
    return ["how", "many", words[noun], "of", "the", *said, *rest, "?"]


def _cameras_saw(tokens: list[str]) -> list[str]:
    """ "What did they pick up while I was gone?", "what colour did it record the bowl as?": "they" or "it" that sees
    or records is the cameras, not a thing talked about."""
    for i, w in enumerate(tokens[1:-1], 1):
        if w in ("they", "it") and tokens[i - 1] in _DID and tokens[i + 1] in _SEEING:
            return [*tokens[:i], "the", "cameras" if w == "they" else "camera", *tokens[i + 1 :]]
    return tokens


_DID = frozenset({"did", "do", "does", "has", "have", "had", "could", "can", "would"})
#: Verbs of a camera seeing: "what did they pick up", "did it catch anyone?"
_SEEING = frozenset(
    {"see", "saw", "seen", "pick", "picked", "catch", "caught", "record", "recorded", "spot", "spotted", "film",
     "filmed", "capture", "captured", "get", "got", "detect", "detected", "register", "registered"}
)  # fmt: skip


#: Verbs of memory holding what was seen, which say nothing of the thing: "the earliest thing you remember".
_KNOWING = frozenset(
    {"remember", "remembers", "remembered", "recall", "recalls", "recalled", "know", "knows", "knew", "notice",
     "noticed", "observe", "observed", "witness", "witnessed", "memory", "ever"}
)  # fmt: skip


def _into_room(tokens: list[str], lexicon: Lexicon) -> list[str]:
    """ "Did anyone use the kitchen?", "who visited the office?": came into that room (a verb of being in a room said
    of a camera's name; "did she use the phone?" stays a doing memory does not see)."""
    out: list[str] = []
    for i, w in enumerate(tokens):
        j = i + 1 + (tokens[i + 1 : i + 2] in (["the"], ["our"], ["my"]))
        rest = tokens[j:]
        rooms = (tokenize(name.replace("-", " ")) for name in lexicon.cameras)
        if w in _ROOM_VERBS and rest and any(rest[: len(c)] == c for c in rooms):
            out += ["came" if w.endswith("ed") else "come", "into"]
        else:
            out.append(w)
    return out


#: Verbs of being in a room: "did anyone use the kitchen?"
_ROOM_VERBS = frozenset({"use", "used", "visit", "visited", "occupy", "occupied"})


def _room_with(tokens: list[str]) -> list[str]:
    """ "The room with the couch?", "camera with the truck": which one had it (a fragment naming a room by a thing)."""
    words = tokens[1:] if tokens[:1] in (["the"], ["that"]) else tokens
    if len(words) < 3 or words[0] not in ("room", "camera", "cam", "place") or words[1] not in ("with", "where"):
        return tokens
    return ["which", words[0], "had", *words[2:]] if words[1] == "with" else ["which", words[0], *words[1:]]


def _non(tokens: list[str]) -> list[str]:
    """ "A non-person object", "the non-person things": the thing said after, the kind before it left out ("an object
    other than person")."""
    for i, w in enumerate(tokens[:-2]):
        after = tokens[i + 2]
        if w == "non" and after.isalpha() and after not in AUX and after not in _PREPOSITION_WORDS and after not in WH:
            return [*tokens[:i], after, "other", "than", tokens[i + 1], *tokens[i + 3 :]]
    return tokens


def _said_plainly(tokens: list[str]) -> list[str]:
    """The question's words with what some forms say put the way the reader reads it: "than the indoor cameras" as
    "than indoors", "vs" as "or", "X then Y?" as an order, "rooms with ..." as which rooms, counts without "how many",
    "non-person" things, a place left out, "a piece of" furniture, "the most common" as most often."""
    rewrites = (
        _group_said,
        _versus,
        _then_order,
        _rooms_with,
        _room_with,
        _how_many,
        _non,
        _left_out_there,
        _partitive,
    )
    for rewrite in (*rewrites, _cameras_saw, _sightings_of, _commonest, _property_of):
        tokens = rewrite(tokens)
    return tokens


def _property_of(tokens: list[str]) -> list[str]:
    """ "The licence plate of the grey car", "the make of the van": said as "the grey car licence plate", so that the
    thing is what is asked about (and the property memory does not hold is said to be its)."""
    for i in range(len(tokens)):
        words = next((w for w in _UNRECORDED if w[-1] in _PROPERTIES and tuple(tokens[i : i + len(w)]) == w), None)
        alone = tokens[i] in _PROPERTIES - {"plate", "number"} and tokens[i - 1 : i] == ["the"]  # "the make of"
        words = words or (tuple(tokens[i : i + 1]) if alone else None)
        if words is None or tokens[i + len(words) : i + len(words) + 1] not in (["of"], ["on"]):
            continue
        j = i + len(words) + 1
        j += tokens[j : j + 1] in (["the"], ["a"], ["that"], ["this"])
        k = next((m for m in range(j, len(tokens)) if tokens[m] in _CLAUSE_BREAKS or tokens[m] in AUX), len(tokens))
        if k > j and len(words) == 1 and tokens[:1] == ["what"]:  # "what was the make of the van?": what make it was
            return ["what", *words, *tokens[1 : i - 1], *tokens[j:k], *tokens[k:]]
        if k > j:
            return [*tokens[:i], *tokens[j:k], *words, *tokens[k:]]
    return tokens


#: The nouns of properties memory does not hold that a thing has: "the make of the van", "the plate on the car".
_PROPERTIES = frozenset({"plate", "number", "registration", "make", "model", "brand"})


def _in_order(query: Query, tokens: list[str]) -> Query:
    """ "Put these in order: the truck, the dog and the tv", "in what order did ... show up?": all of them in the order
    they came, not which came first."""
    if query.intent is not Intent.ORDER or len(query.alternatives) < 3 or query.rank:
        return query
    return replace(query, rank="order") if {"order", "sequence", "sort", "arrange", "rank"} & set(tokens) else query


def _head(subjects: list[_Phrase], tokens: list[str]) -> _Phrase | None:
    """The phrase the question is about, of its subjects: the first, but what "it" is said to be ("was it a van or a
    bus?") and what anyone saw ("when did anyone last see my phone?": the phone, not who saw it)."""
    head = subjects[0] if subjects else None
    if head is not None and len(subjects) > 1:
        if head.pronoun and not subjects[1].pronoun or _a_seer(head, subjects[1], tokens):
            return subjects[1]
    return head


def _a_seer(seer: _Phrase, seen: _Phrase, tokens: list[str]) -> bool:
    """Whether ``seer`` only says someone saw ``seen`` ("anyone saw my phone", "did someone spot the bowl?"): the one
    seeing is anyone at all, and a verb of seeing comes between them."""
    between = tokens[seer.end : seen.start]
    return seer.said in _ANYONE and seen.thing and not seen.generic and bool(set(between) & _NOTICING)


#: Words for anyone at all, as the one who saw: "when did anyone last see my phone?"
_ANYONE = frozenset({"anyone", "anybody", "someone", "somebody", "you", "we", "i", "one"})
#: Verbs of someone seeing a thing: "anyone saw my phone", "did you spot the bowl?"
_NOTICING = frozenset({"see", "saw", "seen", "sees", "spot", "spotted", "spots", "notice", "noticed", "sight",
                       "sighted", "glimpse", "glimpsed"})  # fmt: skip


def _commonest(tokens: list[str]) -> list[str]:
    """ "The most common thing you saw", "the least frequent visitor": the one seen most (least) often; "all the
    other rooms put together": combined."""
    out: list[str] = []
    for w in tokens:
        if w == "together" and out[-1:] == ["put"] and "than" in out:
            out[-1] = "combined"
        elif w in ("common", "frequent", "usual") and out[-1:] in (["most"], ["least"]):
            out.append("often")
        elif w == "commonest":
            out += ["most", "often"]
        else:
            out.append(w)
    return out


def _again_there(query: Query, tokens: list[str], cameras: Sequence[str]) -> Query:
    """ "Same question for the desk", "and the desk?" (a fragment), where a camera is called the desk: that camera,
    not a desk (a thing); the conversation asks the same there."""
    if query.method != "fragment" or query.place.named or query.subject.described:
        return query
    camera = next((c for c in cameras if " ".join(tokenize(c)) == query.subject.said), None)
    if camera is None:
        return query
    return replace(query, subject=Subject(), place=replace(query.place, cameras=(camera,)))


def _duration_noun(query: Query, tokens: list[str], phrases: list[_Phrase]) -> Query:
    """ "What's the total duration the grey car was parked?": how long, of the thing named after it; so is a question
    without a question word that names a duration and a thing ("total duration the grey car was in view, in s")."""
    if query.intent is not Intent.DURATION and query.method in ("fragment", "similarity") and _says_duration(tokens):
        if query.subject.named and not query.subject.generic:
            return replace(query, intent=Intent.DURATION, method="grammar")
    if query.subject.said not in ("duration", "length") or query.intent is Intent.DURATION:
        return query
    thing = next((p for p in phrases if p.thing and p.said not in ("duration", "length") and not p.other_side), None)
    if thing is None:
        return query
    unknown = tuple(u for u in query.unknown if u not in ("duration", "length"))
    return replace(query, intent=Intent.DURATION, subject=Reader._subject(thing, [], [], []), unknown=unknown)


#: What "any other ..." may name that is a camera's view: "did he turn up on any other camera?"
_VIEWS = frozenset({"camera", "cameras", "cam", "cams", "room", "rooms", "place", "places", "view", "views"})


def _elsewhere(query: Query, tokens: list[str]) -> Query:
    """ "Where else was he seen?", "did he turn up on any other camera?": somewhere other than where the conversation
    saw him (refers "else"); "was the person at the desk on any other camera?": whether the one at the desk was seen
    on a camera but the desk (the same thing)."""
    other = any(w in ("other", "another") and _VIEWS & set(tokens[i + 1 : i + 3]) for i, w in enumerate(tokens))
    if not ({"else", "elsewhere"} & set(tokens) or other):
        return query
    more = next((w for w in tokens if w in ("more", "fewer", "less")), None) if "than" in tokens else None
    if query.intent in (Intent.EXISTS, Intent.COUNT) and query.yes_no and other and more and query.place.cameras:
        # "were there more people on the street than in all the other rooms combined?": this camera against the rest
        them = Side(subject=replace(query.subject, colours=()), place=Place(not_cameras=query.place.cameras))
        compare = "more" if more == "more" else "fewer"
        return replace(query, intent=Intent.COUNT, other=them, compare=compare, aggregate=Aggregate.THINGS)
    other = (
        other
        or "elsewhere" in tokens
        or any(
            w == "else" and tokens[i - 1] in ("anywhere", "somewhere", "everywhere") for i, w in enumerate(tokens) if i
        )
    )  # "were they seen anywhere else?": on a camera but this one
    if query.intent is Intent.EXISTS and query.yes_no and other:
        if not query.place.cameras:  # which cameras saw it (in a conversation: but the one it was talked about on)
            return replace(query, intent=Intent.WHICH_CAMERA, yes_no=False, refers=(*query.refers, "else"))
        them = Side(subject=Subject(kinds=query.subject.kinds, said=query.subject.said),
                    place=Place(not_cameras=query.place.cameras))  # fmt: skip
        return replace(query, intent=Intent.SAME, other=them)
    if query.intent not in (Intent.WHERE, Intent.WHICH_CAMERA):
        return query  # (which cameras saw it: "the person in red - where else did they go?" is answered by them all)
    if query.place.not_cameras and not query.place.cameras:  # "besides the street, where else were people seen?"
        return replace(query, intent=Intent.WHICH_CAMERA)
    return query if query.place.named else replace(query, intent=Intent.WHICH_CAMERA, refers=(*query.refers, "else"))


#: Words that put a thing beside another: "was anything next to them?"
_BESIDE = (("next", "to"), ("near",), ("beside",), ("by",), ("with",), ("close", "to"), ("around",), ("on",))


def _longest(query: Query, tokens: list[str]) -> Query:
    """ "Who stayed the longest on the street?", "which car was there the shortest time?": the one seen longest."""
    said = set(tokens)
    ranked = "most" if "longest" in said else "fewest" if "shortest" in said else ""
    if not ranked or not {"who", "which", "what"} & said or (query.intent is Intent.DURATION and query.rank):
        return query
    return replace(query, intent=Intent.DURATION, rank=ranked, order=None)


#: Verbs of taking a thing in hand: "did anyone pick up a phone?" asks who was seen with it.
_TAKING = frozenset({"pick", "picked", "picks", "grab", "grabbed", "grabs", "took", "take", "takes", "lift", "lifted"})


def _held(query: Query, tokens: list[str], phrases: list[_Phrase]) -> Query:
    """ "Did anyone pick up a phone?": a person seen with a phone (memory keeps who was with what, not hands)."""
    if query.subject.kinds != ("person",) or query.subject.near or not _TAKING & set(tokens):
        return query
    at = min(i for i, t in enumerate(tokens) if t in _TAKING)
    thing = next((p for p in phrases if p.start > at and p.kinds and p.kinds != ("person",)), None)
    if thing is None:
        return query
    return replace(query, subject=replace(query.subject, near=thing.kinds), event=Event.SEEN)


#: States of a thing no camera memory records: "was the tv on?", "was the door open?"
THING_STATES = frozenset(
    {"on", "off", "open", "opened", "closed", "shut", "lit", "locked", "unlocked", "broken", "plugged"}
)


def _state_asked(query: Query, tokens: list[str], phrases: list[_Phrase]) -> Query:
    """ "Was the tv on?": a state memory does not hold, said so (with what it saw) instead of answering whether the
    tv was there."""
    words = [t for t in tokens if t not in ("?", ".", "!")]
    telegraphic = not (set(words) & WH) and not (set(words[:1]) & AUX)  # "tv on in the living room?"
    if not (query.yes_no or telegraphic) or len(words) < 2:
        return query
    ends = {p.end for p in phrases if p.thing}
    for j, w in enumerate(words):
        said_of = j in ends or (j - 1 in ends and words[j - 1] in _SWITCHED)  # "the tv (switched) on"
        if w in THING_STATES and said_of and words[j + 1 : j + 2] in ([], *([a] for a in _AFTER_STATE)):
            return replace(query, intent=Intent.EXISTS, yes_no=True, unknown_verbs=(*query.unknown_verbs, w))
    return query


#: Verbs of switching said before a state: "was the tv switched on?"
_SWITCHED = frozenset({"switched", "turned", "left", "kept", "still"})
#: Words that may follow a state of a thing (not a place it is on): "was the tv on in the living room / at noon?"
_AFTER_STATE = frozenset(
    {"in", "at", "inside", "right", "now", "today", "yesterday", "this", "last", "when", "while", "during", "then",
     "earlier", "all", ",", "or", "and"}
)  # fmt: skip


#: Properties of a thing that no description in memory holds, by the words that ask them: "how old was she?",
#: "what make was the car?", "was he happy?" (memory describes kind, colour, pattern, size and motion).
_UNRECORDED = {
    ("how", "old"): "age", ("what", "age"): "age", ("how", "tall"): "height",
    ("how", "heavy"): "weight",
    ("how", "fast"): "speed", ("what", "speed"): "speed", ("what", "brand"): "brand", ("what", "make"): "make",
    ("which", "make"): "make", ("what", "model"): "model", ("which", "brand"): "brand",
    ("number", "plate"): "number plate", ("licence", "plate"): "number plate", ("license", "plate"): "number plate",
    ("plate", "number"): "number plate", ("registration",): "number plate", ("mood",): "mood",
    ("happy",): "mood", ("sad",): "mood", ("angry",): "mood", ("upset",): "mood", ("scared",): "mood",
    ("smiling",): "mood", ("crying",): "mood", ("tired",): "mood", ("nationality",): "nationality",
    ("ethnicity",): "ethnicity", ("gender",): "sex", ("sex",): "sex", ("hands",): "what was done with hands",
    ("hand",): "what was done with hands", ("why",): "why things happen", ("talking",): "what was said",
    ("talked",): "what was said", ("speaking",): "what was said", ("spoke",): "what was said",
    ("saying",): "what was said", ("asleep",): "whether someone was asleep", ("awake",): "whether someone was asleep",
    ("older",): "age", ("younger",): "age", ("oldest",): "age", ("youngest",): "age", ("newer",): "age",
}  # fmt: skip
#: Verbs of switching a thing on or off ("who switched the tv off?"), which memory does not see done.
_SWITCHING = frozenset({"switch", "switched", "switches", "turn", "turned", "turns", "flicked", "flick"})


#: Family words: "who is the child's mother?" asks what memory does not record.
_KIN = frozenset({"mother", "father", "mum", "mom", "mam", "dad", "parent", "parents", "wife", "husband", "partner",
                  "brother", "sister", "grandmother", "grandfather", "grandma", "grandpa", "aunt", "uncle", "son",
                  "daughter", "cousin", "family", "related", "relative"})  # fmt: skip
#: Things whose screen shows something memory does not record: "what was on the tv?"
_SCREENS = frozenset({"tv", "television", "telly", "screen", "monitor", "laptop", "phone", "tablet", "ipad"})


def _unrecorded(query: Query, tokens: list[str]) -> Query:
    """ "How old was the baby?", "what make was the car?": a property memory does not describe, said so (with what it
    saw of the thing) instead of answering another question about it."""
    found, said = next(
        (
            (what, words)
            for i in range(len(tokens))
            for words, what in _UNRECORDED.items()
            if tuple(tokens[i : i + len(words)]) == words
        ),
        ("", ()),
    )
    switched = [
        i
        for i, w in enumerate(tokens)
        if w in _SWITCHING
        and (
            tokens[i + 1 : i + 2] in (["on"], ["off"])  # "who turned off the tv?"
            or any(  # "who switched the tv off?" (not "did she turn up on another camera?")
                t in ("on", "off") and tokens[j + 1 : j + 2] in ([], ["?"], ["."], ["!"])
                for j, t in enumerate(tokens[i + 2 : i + 5], i + 2)
            )
        )
    ]
    if not found and switched:  # "who switched the tv off?": not what memory records
        found, said = "whether a thing is on", (tokens[switched[0]],)
    last = [t for t in tokens if t not in ("?", ".", "!")][-1:]
    short = len([t for t in tokens if t not in ("?", ".", "!")]) <= 5 and tokens[:1] not in (["and"], ["ok"], ["okay"])
    if not found and short and last in (["ok"], ["okay"], ["alright"], ["safe"], ["fine"]):  # "kids ok?"
        found, said = "whether anyone is all right", tuple(last)
    after_what = tokens[tokens.index("what") + 1 :] if "what" in tokens else []
    if not found and (last in (["say"], ["said"]) or {"say", "said"} & set(after_what[:4])):
        # "what did the person at the desk say?", "what did she say on the phone?" (not "can you say when")
        found, said = "what was said", ("say", "said")
    named = query.subject.name is not None  # one the user named: its name is known
    if not found and not named and tokens[:1] == ["what"] and {"name", "names"} & set(tokens[1:7]):  # "baby's name?"
        found, said = "names but those you gave (`edge-agent entities rename ID NAME`)", ("name", "names")
    kin = [w for i, w in enumerate(tokens[2:], 2) if w in _KIN and tokens[i - 1] not in DETERMINERS | _POSSESSIVES]
    if not found and tokens[:1] in (["who"], ["whose"]) and tokens[1:2] in (["is"], ["was"], ["are"]) and kin:
        found, said = "who is family to whom", tuple(kin)  # "who is the child's mother?"
    screen = [w for w in after_what[1:4] if w in _SCREENS]
    if not found and after_what[:1] in (["was"], ["is"], ["s"]) and "on" in after_what[:3] and screen:
        found, said = "what a screen showed", ("on", *screen)  # "what was on the tv?": not what was by it
    if not found or not (query.subject.named or query.subject.said or "subject" in query.refers):
        return query
    if found == "what was done with hands" and _in_hand(tokens):  # "what was in her hand?": what she held
        query = replace(query, intent=Intent.COMPANY, yes_no=False, unknown_places=(), unknown=())
        if query.subject.generic and not query.subject.said and {"his", "her", "their"} & set(tokens):
            query = replace(query, subject=Subject(kinds=("person",), said="person"), refers=(*query.refers, "subject"))
        return query
    places = tuple(u for u in query.unknown_places if not set(u.split()) & set(said))  # "in a good mood": no place
    query = replace(query, unknown_places=places, unknown=tuple(u for u in query.unknown if u not in said))
    if found in ("why things happen", "what was said"):  # "why was she in such a hurry?": the rest is the reason
        query = replace(query, unknown_places=(), unknown=())
    query = replace(query, alternatives=(), alternative_of="", asks="")
    return replace(query, intent=Intent.EXISTS, unrecorded=found, yes_no=True)


def _in_hand(tokens: Sequence[str]) -> bool:
    """ "In his hand", "in her hands", "in hand": what is there was held (company, which memory records)."""
    return any(
        t in ("hand", "hands") and "in" in tokens[max(0, i - 2) : i] and "what" in tokens[:i]
        for i, t in enumerate(tokens)
    )


#: Who a question picks by what they wore: "who was wearing checked clothes?", "whoever wore black, where did they go?"
_WEARERS_ASKED = frozenset({"who", "whoever", "anyone", "anybody", "someone", "somebody", "they", "people", "person"})


def _worn_by(query: Query, tokens: list[str]) -> Query:
    """ "Who was wearing checked clothes?", "how many people wore black?", "who was in blue?": the people of that
    colour or pattern (what memory describes of clothes), listed or counted; "whoever wore black, where did they
    go?": that person. A question of what one person wore ("was she wearing red?") is the attribute's."""
    if query.intent is Intent.ATTRIBUTE or query.alternatives:
        return query
    at = next((i for i, t in enumerate(tokens) if t in _WORE or t == "in"), None)
    while at is not None:
        colours: list[str] = []
        pattern = ""
        j = at + 1
        while j < len(tokens) and (tokens[j] in COLOUR_WORDS or tokens[j] in PATTERN_WORDS or tokens[j] in CLOTHES
                                   or tokens[j] in ("a", "an", "the", "some", "and")):  # fmt: skip
            colours.extend(tokens[j : j + 1] if tokens[j] in COLOUR_WORDS else [])  # the words (as said)
            pattern = PATTERN_WORDS.get(tokens[j], pattern)
            j += 1
        if colours or pattern:
            break
        at = next((i for i in range(at + 1, len(tokens)) if tokens[i] in _WORE or tokens[i] == "in"), None)
    subject = query.subject
    wearer = subject.kinds == ("person",) or subject.said in _WEARERS_ASKED or "subject" in query.refers
    wearer = wearer or (not subject.named and bool({"who", "whoever"} & set(tokens)))  # "whoever wore black"
    theirs = at is not None and query.other is not None and tuple(dict.fromkeys(colours)) == query.other.subject.colours
    if at is None or not wearer or subject.entity_id is not None or (subject.colours and not colours) or theirs:
        return query  # (nor what the other side wore: "did the child show up before the person in pink?")
    subject = replace(
        subject, kinds=("person",), colours=tuple(dict.fromkeys(colours)) or subject.colours,
        pattern=pattern or subject.pattern, said=subject.said if subject.kinds else "person",
    )  # fmt: skip
    accompanied = any(t in WITH_WORDS and t not in _WORE for t in tokens)  # "who was with the person in red?"
    listed = query.intent is Intent.COMPANY and query.asks == "person" and not accompanied
    intent = Intent.LIST if listed else query.intent
    refers = tuple(r for r in query.refers if r != "subject")
    asks = "" if intent is Intent.LIST else query.asks
    return replace(query, intent=intent, subject=subject, asks=asks, refers=refers)


def _also_elsewhere(query: Query, tokens: list[str]) -> Query:
    """ "Was the person at the desk also on the street?", "was the woman in grey at the desk the one on the street?":
    whether the one seen at the first camera is one seen at the second (the same thing), not whether any was at
    either."""
    also = "also" in tokens or "too" in tokens or any(tokens[i : i + 2] == ["the", "one"] for i in range(len(tokens)))
    # "did the lady from the kitchen ever turn up in the living room?": the one from there, seen here
    also = also or bool({"from", "ever"} & set(tokens)) and not {"or", "and", "both"} & set(tokens)
    # "did the woman in the kitchen go to the living room later?": the one there, seen at the other afterwards
    also = also or bool({"later", "afterwards", "afterward"} & set(tokens)) and not {"or", "both"} & set(tokens)
    cameras = query.place.cameras
    asked = query.intent is Intent.EXISTS and query.yes_no and bool(query.subject.kinds)
    if not also or not asked or len(cameras) != 2:
        return query
    them = Subject(kinds=query.subject.kinds, said=query.subject.said)
    other = Side(subject=them, place=Place(cameras=cameras[1:]))
    return replace(query, intent=Intent.SAME, place=replace(query.place, cameras=cameras[:1]), other=other)


def _happened_beside(query: Query, tokens: list[str]) -> Query:
    """ "What happened after the truck was seen?", "anything happen before the van left?": what happened from (or
    until) the other side's moment, not which of "anything" and the truck came first."""
    if query.intent is not Intent.ORDER or query.other is None or query.order not in (Order.AFTER, Order.BEFORE):
        return query
    generic = query.subject.generic or not query.subject.named
    came = any(  # "what came after ...", "right after the woman left, what showed up?"
        w == "what" and any(EVENT_VERBS.get(v) == "appears" for v in tokens[j + 1 : j + 3])
        for j, w in enumerate(tokens)
    )
    there = tokens[:2] in (["what", "was"], ["who", "was"], ["what", "were"], ["who", "were"])  # "what was in ..."
    people = there and query.subject.kinds == ("person",) and not query.subject.described  # "who was in ... after"
    if not (generic or people) or not (HAPPEN_WORDS & set(tokens) or came or there):  # ("did anything come after?")
        return query
    if there and not came and not HAPPEN_WORDS & set(tokens):  # "what was in the kitchen before the bowl showed up?"
        relative = any(
            w in ("that", "which", "who") and EVENT_VERBS.get(v) == "appears" for w, v in zip(tokens, tokens[1:])
        )
        event = query.event if relative else Event.SEEN  # ("what was the thing that appeared there after ...?")
        return replace(query, intent=Intent.LIST, yes_no=False, event=event)
    return replace(query, intent=Intent.SUMMARY, yes_no=False)


#: Words for all the time recorded: "was the van there the whole time?"
_WHOLE_TIME = (("whole", "time"), ("entire", "time"), ("all", "the", "time"), ("the", "whole", "recording"))


def _whole_time(query: Query, tokens: list[str]) -> Query:
    """ "Was the van there the whole time?", "did the car stay all the time?": whether it was there as long as its
    camera recorded (a duration held against the recording)."""
    said = any(tuple(tokens[i : i + len(w)]) == w for w in _WHOLE_TIME for i in range(len(tokens)))
    if not said or not query.yes_no or query.other is not None:
        return query
    return replace(query, intent=Intent.DURATION, compare="all", quantity=None, span_s=None)


def _that(query: Query, tokens: list[str]) -> Query:
    """ "What time was that?", "where was this?": the thing the conversation was about (a closing "that"); "how many
    people was that?": those people, where and when the conversation was (refers "place" and "time")."""
    words = [t for t in tokens if t not in ("?", ".", "!")]
    if words[-1:] not in (["that"], ["this"]) or query.subject.entity_id is not None:
        return query
    if words[-2:-1] and (words[-2] in _SHIFTS or words[-2] in ("than", "like", "about", "of")):  # "before that"
        return query
    if query.subject.kinds:  # "how many people was that?": of the things the last answer named, there and then
        return replace(query, refers=tuple(dict.fromkeys((*query.refers, "place", "time"))))
    return replace(query, subject=Subject(said=words[-1]), refers=tuple(dict.fromkeys((*query.refers, "subject"))))


#: Words before a closing "then" that make it a time ("around then", "there then"), not a filler ("on then").
_AT_THEN = frozenset({"around", "back", "by", "since", "until", "till", "just", "right", "there", "here", "about"})


def _then(query: Query, tokens: list[str]) -> Query:
    """ "Who else was around then?", "what happened at that time?": the time the conversation was at (refers "time")."""
    words = [t for t in tokens if t not in ("?", ".", "!")]
    said = words[-1:] == ["then"] or any(words[i : i + 3] in (["at", "that", "time"], ["at", "the", "time"])
                                          for i in range(len(words)))  # fmt: skip
    t = query.time
    if not said or t.said or t.start is not None or t.moments or t.of_recording:  # (an as-of's end names no time)
        return query
    return replace(query, refers=tuple(dict.fromkeys((*query.refers, "time"))))


#: Verbs of putting a thing somewhere: what is put is no person ("the thing I put on the desk")
_PUT_VERBS = frozenset({"put", "left", "leave", "placed", "place", "dropped", "set", "stashed", "stored", "kept"})


def _put_thing(query: Query, tokens: list[str]) -> Query:
    """ "The thing I put on the desk", "something I left in the kitchen": a thing, not the people seen there."""
    s = query.subject
    if not s.generic or s.kinds or s.exclude or s.said not in ("thing", "things", "something", "stuff", "item"):
        return query
    if not _PUT_VERBS & set(tokens):
        return query
    return replace(query, subject=replace(s, exclude=("person",)))


def _for_long(query: Query, tokens: list[str]) -> Query:
    """ "Did the truck stay long?", "kitchen person stick around long?": how long it was there (said as a length, which
    is what a yes or no would rest on), not whether it was seen, and "long" is no place."""
    words = [t for t in tokens if t not in ("?", ".", "!")]
    if words[-1:] != ["long"] or "how" in words or query.intent not in (Intent.EXISTS, Intent.SUMMARY, Intent.LIST):
        return query
    if not (query.subject.kinds or query.subject.entity_id is not None or "subject" in query.refers):
        return query
    places = tuple(p for p in query.unknown_places if p != "long")
    return replace(query, intent=Intent.DURATION, yes_no=False, unknown_places=places, method="grammar")


def _dressed_so(query: Query, tokens: list[str]) -> Query:
    """ "Which person was not wearing black on the street?": those so dressed, not who was with them."""
    s = query.subject
    asked = bool({"which", "who"} & set(tokens[:3])) and bool(_WORE & set(tokens))
    worn = s.colours or s.not_colours or any(t in COLOUR_WORDS for t in tokens)
    if query.intent is not Intent.COMPANY or not asked or not worn or s.near:
        return query
    return replace(query, intent=Intent.LIST, negated=False, yes_no=False)


def _colour_alone(query: Query, tokens: list[str]) -> Query:
    """ "And black?" (after "how many of them wore blue?"), "how many in blue?": a colour alone, the conversation's
    subject in it."""
    counted = query.intent is Intent.COUNT and not query.subject.generic  # "how many in blue?": of them, in blue
    if query.method != "fragment" and not counted or query.subject.named or query.subject.colours:
        return query
    colours = tuple(dict.fromkeys(t for t in tokens if t in COLOUR_WORDS))
    return replace(query, subject=replace(query.subject, colours=colours)) if colours else query


def _denied_place(query: Query) -> Query:
    """ "The person who wasn't on the street, where were they?": one seen on another camera than the one the relative
    clause denies (the question asks of them, not whether)."""
    s, place = query.subject, query.place
    if "not" not in s.clause or not place.cameras or query.intent in (Intent.EXISTS, Intent.COUNT):
        return query
    place = replace(place, cameras=(), not_cameras=tuple(dict.fromkeys((*place.not_cameras, *place.cameras))))
    return replace(
        query, place=place, subject=replace(s, clause=tuple(c for c in s.clause if c != "not")), negated=False
    )


def _any_such(query: Query, tokens: list[str]) -> Query:
    """ "Which cameras recorded a person in red?", "where was a person in red?", "where were people in red seen?":
    every camera that saw any such one (a thing said with "a" or "any", or in the plural, and asked of cameras in
    the plural or, described, of where), not the one likest to be meant."""
    s = query.subject
    where = query.intent is Intent.WHERE and bool(s.colours or s.pattern) and not query.yes_no
    # (not "a red cup that was by the sink: where was it last seen?": the clause says which one)
    where = where and not (
        s.near or s.clause or query.order or query.refers or query.time.moments or query.alternatives
    )
    if query.intent is not Intent.WHICH_CAMERA and not where or not s.said or s.many and not where:
        return query
    if not where and not {"cameras", "rooms", "cams", "places", "views"} & set(tokens):
        return query
    head = s.said.split()[0]
    at = next((i for i, w in enumerate(tokens) if w == head), None)
    before = {tokens[j] for j in range(max(0, (at or 0) - 3), at or 0)}
    if at is None or not (before & {"a", "an", "any", "anyone", "anybody", "some"} or s.many):
        return query
    return replace(query, intent=Intent.WHICH_CAMERA, subject=replace(s, many=True))


def compound(tokens: list[str]) -> tuple[list[str], list[str]] | None:
    """The two questions of one asked as two, joined by "and" before a question word of its own: "when did the truck
    arrive and when did it leave?", "how many people and how many vehicles did the street camera see?" (a first part
    without a verb of its own takes the second's: "how many people did the street camera see?"). None for one
    question ("where and when was it seen?", "between 9 and 10", "the car and the truck")."""
    for k, w in enumerate(tokens):
        if w != "and" or k < 3 or tokens[k - 1] == "," and tokens[k + 1 : k + 2] and tokens[k + 1] not in WH:
            continue  # ("the van, the tv and the bowl"; but "was anyone in grey, and where?")
        rest = tokens[k + 1 :]
        if rest[:1] and rest[0] in ("where", "when") and all(t in ("?", ".", "!") for t in rest[1:]):
            rest = [rest[0], "was", "that", "?"]  # "was anybody in grey, and where?": where that one was
        asks = rest[:1] and (
            rest[0] in WH or rest[0] in AUX and rest[1:2] and rest[1] in _SUBJECT_PRONOUNS | {"it", "there", "the"}
        )
        first = [t for t in tokens[:k] if t != ","]
        if not asks or len(rest) < 3 or not any(t in WH or t in AUX or t in IMPERATIVES for t in first[:6]):
            continue  # ("yo when did the bowl pop up and when did it go", "the person at the desk, when did he come")
        if rest[0] in WH and rest[1:2] in (["and"], ["or"]):
            continue
        verbs = [i for i, t in enumerate(rest) if t in AUX or t in EVENT_VERBS]
        said = first[0] in IMPERATIVES | AUX or any(
            t in AUX or t in EVENT_VERBS or t in HAPPEN_WORDS for t in first[1:]
        )
        if not said and verbs:  # "how many people and how many vehicles did ... see?": the verb is both parts'
            first = [*first, *rest[verbs[0] :]]
        return first, rest
    return None


def _same_span(query: Query, tokens: list[str]) -> Query:
    """ "Did the car and the truck stay for the same amount of time?": how long each was there, held as equal (not
    whether they are one thing)."""
    said = any(tokens[i : i + 4] in (["same", "amount", "of", "time"], ["same", "length", "of", "time"])
               for i in range(len(tokens)))  # fmt: skip
    if not said or query.other is None or query.intent not in (Intent.SAME, Intent.EXISTS, Intent.DURATION):
        return query
    return replace(query, intent=Intent.DURATION, compare="same", yes_no=True, negated=False, aggregate=None)


def _which_of_two(query: Query, tokens: list[str]) -> Query:
    """ "Was the person in red or the one in black seen first?", "was the truck or the car there longer?": which of
    the two, not yes or no."""
    either = "or" in tokens and query.alternative_of in ("", "kind") and query.other is not None
    if query.intent is Intent.ORDER and query.yes_no and either and query.order in (Order.FIRST, Order.LAST):
        return replace(query, yes_no=False)
    if query.intent is Intent.DURATION and query.yes_no and either and query.compare and "than" not in tokens:
        return replace(query, yes_no=False)
    return query


def _others(query: Query, tokens: list[str]) -> Query:
    """ "Who else?", "what else was there?", "anyone else?": in a conversation, those the last answer named are left
    out, there and then (refers "others", "place" and "time")."""
    s = query.subject
    if "else" not in tokens or s.entity_id is not None or s.described or not (s.generic or s.kinds == ("person",)):
        return query
    if query.intent not in (Intent.LIST, Intent.EXISTS, Intent.COUNT) or "else" in query.refers:
        return query
    return replace(query, refers=tuple(dict.fromkeys((*query.refers, "others", "place", "time"))))


def _right_now(query: Query, tokens: list[str], now: float) -> Query:
    """ "What's on camera right now?", "who is in the kitchen now?": what was in view at the last moment recorded (of
    several things, each; "where is the cup now?" stays where it was last seen)."""
    anyone = ("who", "person", "anyone", "anybody", "someone", "somebody")
    generic = query.subject.generic or query.subject.kinds == ("person",) and query.subject.said in anyone
    said = "now" in tokens or "currently" in tokens
    asked = (Intent.WHEN, Intent.LIST, Intent.WHERE, Intent.EXISTS)
    t = query.time
    whether = query.intent is Intent.EXISTS and query.event is Event.SEEN  # "is the bowl in the kitchen right now?"
    if not said or not (generic or whether) or t.said or t.start is not None or t.moments or query.intent not in asked:
        return query  # (an as-of's end names no time)
    opening = (["what"], ["who"], ["whats"], ["anything"], ["anyone"])
    if query.order is not Order.LAST or not (tokens[:1] in opening or whether and tokens[:1] and tokens[0] in AUX):
        return query
    now_said = Time(start=now - _NOW_S, end=now, said=("now",))
    if query.intent is Intent.EXISTS:  # "anyone home right now?": whether any was in view then (or nothing recorded)
        return replace(query, order=None, time=now_said)
    return replace(query, intent=Intent.LIST, order=None, time=now_said)


_NOW_S = 2.0  #: "right now": the last moments recorded (frames are sampled about 2 a second)


def _as_long_as(query: Query, tokens: list[str], lexicon: Lexicon) -> Query:
    """ "Did the person stay as long as the tv?": its time there held against the other's (at least as long); "the
    person didn't stay as long as the tv, did they?" whether it stayed less time (yes: it did not)."""
    at = next((i + 3 for i in range(len(tokens)) if tokens[i : i + 3] == ["as", "long", "as"]), None)
    if at is None or query.other is not None or not (query.subject.kinds or query.subject.entity_id is not None):
        return query
    words = [t for t in tokens[at : at + 3] if t not in ("the", "a", "an", "that")]
    kinds = lexicon.kind_words().get(words[0], ()) if words else ()
    if not kinds:
        return query
    other = Side(subject=Subject(kinds=kinds, said=words[0]))
    negated = query.negated or "not" in tokens[: at - 3] or "never" in tokens[: at - 3]
    return replace(query, intent=Intent.DURATION, other=other, compare="fewer" if negated else "atleast",
                   yes_no=True, negated=False, aggregate=None, alternatives=(), alternative_of="")  # fmt: skip


def _right_after(query: Query, tokens: list[str]) -> Query:
    """ "What came right after the bowl?", "what showed up next after the woman left?": only the first to come; "what
    did the camera see right before the baby?": only the last to come before it."""
    close = ("right", "just", "immediately", "directly", "straight", "next")
    right = any(w in close and after in ("after", "before") for w, after in zip(tokens, tokens[1:]))
    right = right or "next" in tokens and query.order is Order.AFTER
    if (
        not right
        or query.other is None
        or query.order not in (Order.AFTER, Order.BEFORE)
        or query.subject.named
        and not query.subject.generic
    ):
        return query
    if query.intent in (Intent.ORDER, Intent.SUMMARY, Intent.LIST):  # "what was the next thing seen after ...?"
        query = replace(query, intent=Intent.SUMMARY, event=Event.APPEARS, yes_no=False)
    return replace(query, rank="next" if query.order is Order.AFTER else "previous")


_POSSESSIVE = re.compile(r"\b([a-z]+)'s\s+([a-z]+)", re.IGNORECASE)


def _owners_dropped(tokens: list[str], question: str, lexicon: Lexicon) -> list[str]:
    """ "Was my grandson's bicycle on the street?": the thing owned is asked about, not its owner (a person word
    before "'s" and a kind of thing: memory knows no owners but the ones it learnt)."""
    if "'s" not in question.lower() and "\u2019s" not in question.lower():
        return tokens
    kinds = lexicon.kind_words()
    owners = {
        (owner.lower(), owned.lower())
        for owner, owned in _POSSESSIVE.findall(question)
        if kinds.get(owner.lower()) == ("person",) and kinds.get(owned.lower()) not in (None, ("person",))
    }
    return [t for i, t in enumerate(tokens) if (t, tokens[i + 1] if i + 1 < len(tokens) else "") not in owners]


def _when_clause(tokens: list[str]) -> list[str]:
    """A yes / no question with a clause "when ..." said of another thing: "was the couch already there when the
    person showed up?" asks whether the couch came before the person (read as "... before the person showed up");
    "was anyone around when the bowl was in the kitchen?" whether anyone was seen with the bowl ("... with the bowl in
    the kitchen"). "Do you know when ...?" asks when; "a time when ..." is a time."""
    if not tokens or tokens[0] not in AUX:
        return tokens
    at = next((i for i, w in enumerate(tokens) if w in ("when", "while") and i > 1), None)
    if at is None or tokens[at - 1] in _ASKING_WHEN | _SPANS_OF_TIME or not tokens[at + 1 : at + 2]:
        return tokens
    clause = tokens[at + 1 :]
    if tokens[at + 1] in _SUBJECT_PRONOUNS - {"he", "she", "they"} or tokens[at + 1] in AUX | WH:
        return tokens  # "was it there when I left?", "was she in when is it?": the user's own, or no clause
    events = [EVENT_VERBS.get(w) for w in clause]
    if "appears" in events or "leaves" in events:
        return [*tokens[:at], "before", *clause]
    verb = next((i for i, w in enumerate(clause) if w in ("was", "were", "is", "are")), None)
    if verb is None or verb == 0:
        return tokens
    return [*tokens[:at], "with", *clause[:verb], *clause[verb + 1 :]]


#: Verbs after which "when" asks when (an embedded question): "do you know when the truck came?"
_ASKING_WHEN = frozenset({"know", "tell", "remember", "recall", "say", "wonder", "check", "see", "ask", "asking",
                          "find", "show", "me", "idea", "sure"})  # fmt: skip


def _cameras_ranked(query: Query, tokens: list[str]) -> Query:
    """ "Rank the cameras by how many sightings they had", "sort the rooms by how many people they saw": the cameras,
    the one that saw the most first ("they" are the cameras); by sightings when those are counted."""
    ranking = any(
        w in ("rank", "sort", "order", "list")
        and tokens[i + 1 : i + 3] in (["the", "cameras"], ["the", "rooms"], ["cameras"], ["rooms"], ["all", "cameras"])
        and tokens[i - 1 : i] in ([], ["please"], ["you"], ["and"])
        for i, w in enumerate(tokens)
    )  # fmt: skip (said as asked: "rank the cameras by ...")
    counted = {"sightings", "observations", "detections"} & set(tokens)
    if query.intent is Intent.WHICH_CAMERA and query.rank and counted:  # "which camera had the most sightings?"
        return replace(query, aggregate=Aggregate.SIGHTINGS)
    if not ranking or query.place.cameras:
        return query
    subject = query.subject
    if subject.said in PRONOUNS or not subject.named:  # "they": the cameras, what they saw is anything
        subject = Subject(generic=True)
    fewest = next((w for w in tokens if w in MORE_WORDS | FEWER_WORDS | {"least", "most"}), "most") in FEWER_WORDS
    aggregate = Aggregate.SIGHTINGS if query.aggregate is Aggregate.SIGHTINGS or counted else None
    refers = tuple(r for r in query.refers if r != "subject")
    return replace(query, intent=Intent.WHICH_CAMERA, subject=subject, rank="fewest" if fewest else "most",
                   aggregate=aggregate, refers=refers, unknown=())  # fmt: skip


def _said_back(tokens: list[str], i: int) -> bool:
    """Whether the word at ``i`` says a return: "came back", "got back", "returned"."""
    w = tokens[i]
    return w == "back" and i > 0 and tokens[i - 1] in _BACK or w in ("return", "returned", "returns", "returning")


def _came_back(query: Query, tokens: list[str]) -> Query:
    """ "Did the woman come back later?", "has the cat returned?": whether that one thing was seen again after it had
    gone (Event.RETURNS), not whether it was seen."""
    back = any(_said_back(tokens, i) for i in range(len(tokens)))
    one = (query.subject.kinds or query.subject.entity_id is not None) and not query.subject.many
    if not (back and one and query.yes_no and query.intent is Intent.EXISTS and query.other is None):
        return query
    return replace(query, event=Event.RETURNS, order=None)


def _missing(query: Query, tokens: list[str]) -> Query:
    """ "Is anything missing from the living room?", "has something gone from the desk?": whether a thing left it
    (people walking off are not things gone missing); "is the phone missing?" whether it left."""
    said = next(
        (
            i
            for i, w in enumerate(tokens)
            if w in ("missing", "gone")
            and i > 0
            and not {"i", "we"} & set(tokens[i - 3 : i])
            and not (w == "gone" and tokens[i + 1 : i + 2] in (["into"], ["in"], ["inside"], ["to"], ["through"]))
        ),
        None,
    )  # (not "while I was gone": the user's own going; not "has anybody gone into the bedroom?": came in)
    if said is None or query.intent not in (Intent.EXISTS, Intent.LIST, Intent.WHERE) or query.other is not None:
        return query
    subject = query.subject
    if subject.generic and not subject.kinds:
        subject = replace(subject, exclude=tuple(dict.fromkeys((*subject.exclude, "person"))))
    if query.intent is Intent.LIST:  # "what is missing from the kitchen?": whether anything left, and what
        query = replace(query, intent=Intent.EXISTS, yes_no=True)
    return replace(query, subject=subject, event=Event.LEAVES)


def _kinds_compared(query: Query, tokens: list[str], lexicon: Lexicon) -> Query:
    """ "Were there more cars or trucks?", "was the car or the truck seen more often?": a count of each kind (of its
    sightings, for "more often"), the one with more the answer."""
    compared = (MORE_WORDS | FEWER_WORDS) & set(tokens)
    if query.alternative_of != "kind" or len(query.alternatives) != 2 or not compared or query.other is not None:
        return query
    kinds = lexicon.kind_words().get(query.alternatives[1], ())
    if not kinds:
        return query
    other = Side(subject=Subject(kinds=kinds, said=query.alternatives[1], many=query.subject.many))
    less = bool({"shorter", "less", "fewer", "least", "shortest"} & compared)
    if any(w in ("longer", "shorter") or (w in ("more", "less") and after in ("time", "while"))
           for w, after in zip(tokens, [*tokens[1:], ""])):  # fmt: skip
        # "which was on screen for less time, the tv or the couch?": how long each was there
        return replace(query, intent=Intent.DURATION, other=other, compare="fewer" if less else "more", yes_no=False,
                       aggregate=None, alternatives=(), alternative_of="", rank="", asks="")  # fmt: skip
    often = bool({"often", "times", "frequently", "sightings"} & set(tokens))
    often = often or not (query.subject.many or other.subject.many)  # "car or truck seen more": one each, its sightings
    return replace(
        query,
        intent=Intent.COUNT,
        other=other,
        compare="fewer" if less else "more",
        aggregate=Aggregate.SIGHTINGS if often else Aggregate.THINGS,
        yes_no=False,
        rank="",
        asks="",
    )


def _time_choices(query: Query, choices: Sequence[tuple[str, Time]], as_of: float | None) -> Query:
    """ "Was the person in the bedroom before or after 10:30?", "was the bowl seen in the morning or the afternoon?":
    which of two windows it was seen in (no window of its own)."""
    if len(choices) != 2 or query.alternatives or query.other is not None:
        return query
    return replace(
        query,
        intent=Intent.EXISTS,
        time=Time().bounded(as_of),
        alternatives=tuple(said for said, _ in choices),
        alternative_of="time",
        windows=tuple(t.bounded(as_of) for _, t in choices),
        yes_no=False,
        order=None,
    )


_PASSIVE = frozenset({"was", "were", "been", "got", "is", "are"})  #: before a verb said in the passive


def _is_pronoun(tokens: list[str], i: int, phrases: Sequence[_Phrase]) -> bool:
    """Whether the word at ``i`` stands for a thing talked about: "it", "she", "that" closing a clause; not the holder
    itself ("did the guy have anything with him?")."""
    w = tokens[i]
    if w in ("that", "this"):
        return (tokens[i + 1] if i + 1 < len(tokens) else "") in _ENDS_CLAUSE
    return w in PRONOUNS and not (_reflexive(tokens, i) and bool(phrases) and phrases[0].kinds == ("person",))


def _excluding(tokens: list[str], i: int) -> int:
    """How many words at ``i`` say that what follows is left out ("other than", "apart from", "except", "not
    counting", "ignoring", "anything but"), else 0."""
    w, after = tokens[i], tokens[i + 1] if i + 1 < len(tokens) else ""
    if w in ("other", "apart", "aside") and after in ("than", "from", "for"):
        return 2
    if (w, after) in (("not", "counting"), ("without", "counting"), ("not", "including"), ("leaving", "out")):
        return 2
    if w in ("except", "excluding", "besides", "ignoring", "non"):  # "non-person things"
        return 1
    if w == "not" and i > 1 and tokens[i - 1] in (",", "but") and after not in ("just", "only", "even", "?", ""):
        return 1  # "who came in first today (not the street)", "..., but not on the street"
    if w == "not" and i > 0 and tokens[i - 1] in _ANY_THING and after in ("a", "an", "any", "the"):
        return 1  # "anything not a person in the kitchen?"
    said = tokens[i + 3] if i + 3 < len(tokens) else ""
    if w in ("that", "which") and after in ("are", "were", "is", "was") and tokens[i + 2 : i + 3] == ["not"]:
        return (
            3 if said in ("a", "an", "any", "the") or said.endswith("s") or said == "people" else 0
        )  # "aren't people"
    return (
        1 if w == "but" and i > 0 and tokens[i - 1] in ("anything", "anyone", "nothing", "nobody", "everything") else 0
    )


#: Words for any thing, after which "not a ..." leaves a kind out: "anything not a person".
_ANY_THING = frozenset({"anything", "something", "everything", "things", "stuff", "objects", "nothing"})


def _after_verb(role: str, event: str, said: bool, in_relative: bool) -> str:
    """The role of what follows a verb: after "did the cat come in" what it came with is no subject; after "other than
    the street one saw" what was seen is asked ("which cameras other than the street one saw a person?")."""
    if role == "exclude" and said:
        return "subject"
    return "object" if event != "seen" and role == "subject" and said and not in_relative else role


def _alternatives_head(
    head: _Phrase | None, alternatives: list[_Phrase], phrases: Sequence[_Phrase], cues: _Cues
) -> tuple[_Phrase | None, list[_Phrase]]:
    """The subject of "A or B" (A, or the first of "the van, the tv or the bowl", where no other thing is the head:
    "first thing the camera saw: the woman or the bowl?") and all the choices."""
    if not alternatives or not 0 <= alternatives[0].sibling < len(phrases):
        return head, alternatives
    listed: list[_Phrase] = []  # "the van, the tv or the bowl": what comes before the alternatives' sibling
    sibling = phrases[alternatives[0].sibling]
    j = alternatives[0].sibling
    while j > 0 and phrases[j - 1].thing and phrases[j - 1].end in cues.commas:
        listed.insert(0, phrases[j - 1])
        j -= 1
    if head is None or head.generic or head.pronoun or sibling.thing:
        head = (listed or [sibling])[0]
    return head, [*listed[1:], sibling, *alternatives] if listed else alternatives


def _described_as(subject: Subject, said: _Phrase | None, head: _Phrase | None) -> Subject:
    """ "Was the white vehicle a truck or a car?": the choices are of the thing described so (its colours)."""
    if said is None or said is head or not said.colour_words or subject.colours:
        return subject
    return replace(subject, colours=tuple(dict.fromkeys(said.colour_words)))


def _dressed(phrases: Sequence[_Phrase]) -> _Phrase:
    """Who "in red" is said of: the last person (or thing) named, or "the one" just said ("the guy in red or the one
    in grey": the one is in grey)."""
    if phrases[-1].said in ("one", "ones"):
        return phrases[-1]
    return next((p for p in reversed(phrases) if p.kinds), phrases[-1])


def _held_by_person(phrases: Sequence[_Phrase], i: int) -> bool:
    """Whether "have" at ``i`` follows a person said just before it (with a place of its own): "did the guy at the
    desk have a bowl?" asks what was with him."""
    if not phrases or phrases[-1].end != i:
        return False
    holder = phrases[phrases[-1].owner] if phrases[-1].attached else phrases[-1]
    return holder.kinds == ("person",)


#: Pronouns for someone who may hold a thing: "what did she have?"
_HOLDERS = frozenset({"he", "she", "they", "someone", "somebody", "anyone", "anybody", "you", "i", "we"})


def _what_held(tokens: Sequence[str], i: int, phrases: Sequence[_Phrase]) -> bool:
    """Whether the verb of holding at ``i`` asks what a person had, its object the question word: "what did the guy
    at the desk have?", "what did she bring with her?" (but not "what did the dog have?" nor "did she have a cup?")."""
    if "what" not in tokens[: i - 1] or tokens[i + 1 : i + 2] not in ([], ["?"], ["with"], ["on"], ["in"]):
        return False
    before = tokens[i - 1] if i else ""
    return before in _HOLDERS or _held_by_person(phrases, i)


def _alternatives_places(phrases: Sequence[_Phrase], alternatives: Sequence[_Phrase], there: bool) -> set[int]:
    """The places said right after an alternative, which are that one's ("the tablet at the desk or the bowl in the
    kitchen"); but a camera said once, after the last of kinds said in the plural or of what ``there`` was, is where
    all of them were ("were there people or cars on the street?", "was there a person or just things in the
    kitchen?")."""
    theirs = {id(a) for a in alternatives}
    own = [p for p in phrases if p.attached and 0 <= p.owner < len(phrases) and id(phrases[p.owner]) in theirs]
    others = [p for p in phrases if p.attached and 0 <= p.owner < len(phrases) and id(phrases[p.owner]) not in theirs]
    plural = there or all(a.plural for a in alternatives)  # ("the tv or the person at the desk": the person's)
    shared = plural and bool(own) and all(phrases[p.owner] is alternatives[-1] and p.camera for p in own) and not others
    return set() if shared else {id(p) for p in own}


def _anything_with(intent: Intent, asks: str, subject: Subject, withs: Sequence[_Phrase]) -> tuple[Intent, str]:
    """ "Did the guy have anything with him?": whether anything (anyone) was with him, not whether he was seen."""
    anything = next((p for p in withs if p.generic), None)
    if intent is Intent.EXISTS and anything is not None and subject.kinds and not subject.generic:
        return Intent.COMPANY, "person" if anything.said in _PEOPLE_WORDS else ""
    return intent, asks


#: Words for things that leave people out: "which objects were on the desk?"
_NOT_OBJECTS = {w: ("person",) for w in ("object", "objects", "item", "items", "belongings", "stuff")}

#: Verbs of having a thing on one: "did he have anything with him?", "was she carrying something on her?"
_HOLDING = frozenset({"have", "has", "had", "carry", "carried", "carrying", "hold", "held", "holding", "bring",
                      "brought", "bringing", "take", "took", "taking", "got"})  # fmt: skip


def _reflexive(tokens: list[str], i: int) -> bool:
    """Whether the pronoun at ``i`` is the holder itself: "with him" after "did the guy have anything"."""
    return (
        tokens[i] in ("him", "her", "them", "himself", "herself", "themselves")
        and tokens[i - 1 : i] in (["with"], ["on"])
        and bool(_HOLDING & set(tokens[:i]))
    )


def _near_pronoun(query: Query, tokens: list[str]) -> Query:
    """ "Was anything next to them?", "who was with her?": what was with the one the conversation talks about
    (refers "near"); not the holder itself ("did she have anything with her?")."""
    if query.subject.kinds == ("person",) and any(_reflexive(tokens, i) for i in range(1, len(tokens))):
        return query
    for i in range(len(tokens)):
        for words in _BESIDE:
            if tuple(tokens[i : i + len(words)]) == words and tokens[i + len(words) : i + len(words) + 1] in (
                ["them"],
                ["her"],
                ["him"],
                ["it"],
                ["that"],
                ["this"],
            ):
                return replace(query, refers=(*query.refers, "near"))
    return query


#: Words of a tag that asks whether what was said is so: "..., isn't that so?", "..., is that right?"
_TAG_WORDS = frozenset({"is", "was", "not", "that", "it", "so", "right", "true", "correct", "isn", "am", "i"})


def _tagged(words: Sequence[str]) -> bool:
    """Whether the sentence ends in a tag after a comma made of "that so" / "that right" words: "the bedroom camera
    only ever saw one person, isn't that so?"."""
    if "," not in words:
        return False
    tag = list(words[len(words) - 1 - list(reversed(words)).index(",") + 1 :])
    return 2 <= len(tag) <= 4 and set(tag) <= _TAG_WORDS and tag[-1] in ("so", "right", "true", "correct")


#: How far around a moment said to the second what was in view then is looked for (observations' spans are sampled)
_AT_THE_SECOND_S = 1.0
#: Words that count what was in view together: "how many people were on the street at the same time?"
_AT_ONCE = (("at", "the", "same", "time"), ("at", "once"), ("at", "one", "time"), ("at", "a", "time"),
            ("simultaneously",), ("at", "any", "one", "time"), ("all", "at", "once"))  # fmt: skip


def _at_once(query: Query, tokens: list[str]) -> Query:
    """ "How many people were on the street at the same time?", "max people at once", "were there ever more than 5
    people at once?": the most in view together, not how many there were in all."""
    said = any(tuple(tokens[i : i + len(w)]) == w for w in _AT_ONCE for i in range(len(tokens)))
    most = bool({"max", "maximum", "most", "peak"} & set(tokens)) and query.subject.kinds
    counted = query.intent is Intent.COUNT or (most and query.intent in _PICKING)
    if not said or not counted or query.other is not None or query.aggregate not in (None, Aggregate.THINGS):
        return query
    places = tuple(u for u in query.unknown_places if not set(u.split()) & {"once", "same", "time", "one"})
    return replace(query, intent=Intent.COUNT, aggregate=Aggregate.AT_ONCE, rank="", unknown_places=places)


#: Nouns of kinds: "how many kinds of objects did you see?"
_KIND_NOUNS = frozenset({"kind", "kinds", "type", "types", "sort", "sorts", "variety", "varieties"})


def _kinds_counted(query: Query, tokens: list[str], phrases: list[_Phrase]) -> Query:
    """ "How many kinds of objects did you see?", "how many different types of vehicle?": the kinds counted (of the
    kind named after "of"; "objects" are things but people), not the things."""
    at = next((i for i in range(len(tokens) - 1) if tokens[i : i + 2] == ["how", "many"]), None)
    if at is None or query.intent is not Intent.COUNT or query.other is not None:
        return query
    rest = [t for t in tokens[at + 2 : at + 5] if t not in ("different", "distinct", "separate")]
    if not rest or rest[0] not in _KIND_NOUNS:
        return query
    of = next((p for p in phrases if p.kinds and p.start > at and not p.other_side), None)
    after = tokens[tokens.index(rest[0]) + 1 : tokens.index(rest[0]) + 3]  # "of objects"
    objects = after[:1] == ["of"] and after[1:] and after[1] in _NOT_OBJECTS  # things, not people
    subject = Subject(generic=True, said=rest[0], exclude=("person",) if objects else ())
    if of is not None:
        subject = Subject(kinds=of.kinds, said=f"{rest[0]} of {of.said}", many=True)
    return replace(query, subject=subject, aggregate=Aggregate.KINDS, quantity=query.quantity if query.yes_no else None)


def _colours_counted(query: Query, tokens: list[str]) -> Query:
    """ "How many colours did the people wear?", "how many different colors do the objects have?": the colours the
    things were (each by its likeliest), not the things."""
    at = next((i for i in range(len(tokens) - 1) if tokens[i : i + 2] == ["how", "many"]), None)
    if at is None or query.intent is not Intent.COUNT or query.other is not None:
        return query
    said = tokens[at + 2 : at + 5]
    rest = [t for t in said if t not in ("different", "distinct", "separate") and t not in CLOTHES]
    if not rest or rest[0] not in ("colours", "colors", "colour", "color", "shades"):
        return query
    subject = query.subject
    if subject.said in ("colours", "colors", "colour", "color", "shades") or not subject.named:
        # "how many colours did you see?"; "how many clothing colours?": the people's
        worn = bool(set(said) & CLOTHES)
        subject = Subject(kinds=("person",), said="person") if worn else Subject(generic=True, said="thing")
        subject = replace(subject, exclude=query.subject.exclude)
    subject = replace(subject, colours=(), many=True)
    return replace(query, subject=subject, aggregate=Aggregate.COLOURS, unknown=(), asks="")


#: Words for what the user was sent: "I got an alert about the kitchen, what was it?"
_ALERTS = frozenset({"alert", "alerts", "notification", "notifications", "alarm", "alarms", "ping", "message"})


def _doing(query: Query, tokens: list[str], lexicon: Lexicon) -> Query:
    """ "What was the baby doing?": what happened with the baby (a summary of it); "what was she cooking?", "what did
    the kid read?": what someone did a thing to, which memory does not record (said so, with what it saw), not a
    list of everything seen."""
    words = [t for t in tokens if t not in ("?", ".", "!")]
    if query.intent is not Intent.LIST or len(words) < 4 or words[0] != "what" or not set(words[1:5]) & AUX:
        return query  # ("what the child is reading?": the auxiliary after its subject, as some say it)
    if query.subject.kinds != ("person",) or query.subject.entity_id is not None:
        return query
    verb = words[-1]
    for j in range(3, len(words) - 1):  # "what was she cooking in there?": the verb before where (or when) it was
        if words[j].endswith("ing") and words[j + 1] in (*_PREPOSITION_WORDS, "there", "here", "today", "yesterday"):
            words, verb = words[: j + 1], words[j]
            break
    if verb in ("doing", "do", "up"):  # "what was the baby doing?", "what was she up to" (to: a preposition)
        return replace(query, intent=Intent.SUMMARY)
    known = verb in EVENT_VERBS or verb in WITH_WORDS or verb in _WORE or verb in _HOLDING or verb in AUX
    noun = bool(lexicon.tag([verb])[0].tags) and words[-2] not in PRONOUNS  # "what did she cook?": a verb after her
    if known or noun or verb in ("see", "saw", "seen", "notice") or not (verb.endswith("ing") or words[1] == "did"):
        return query
    return replace(query, intent=Intent.EXISTS, yes_no=True, unrecorded=f"what someone was {verb}" if
                   verb.endswith("ing") else f"what someone did ({verb!r})")  # fmt: skip


def _told_apart(query: Query) -> Query:
    """ "Was it a man or a woman?", "a child or an adult?": a choice memory cannot make (it does not tell sex or age),
    said so, with what it saw."""
    if len(query.alternatives) < 2 or not all(a in TOLD_APART for a in query.alternatives):
        return query
    subject = replace(query.subject, said="person")  # what it saw: people, not "mans"
    return replace(
        query,
        intent=Intent.EXISTS,
        yes_no=True,
        subject=subject,
        alternatives=(),
        alternative_of="",
        unrecorded="sex or age",
    )


def _alerted(query: Query, tokens: list[str]) -> Query:
    """ "I got an alert about the kitchen, what was it?": "it" is what the alert was about (what was seen there), not
    a thing named before."""
    if not _ALERTS & set(tokens) or "subject" not in query.refers or query.subject.named:
        return query
    refers = tuple(r for r in query.refers if r != "subject")
    return replace(query, subject=Subject(generic=True, said="thing"), refers=refers)


def _who_had(query: Query, tokens: list[str]) -> Query:
    """ "Who's the person that had a phone with them?": the person seen with the phone (who was with it), not who
    was with a person who had one."""
    s = query.subject
    if query.intent is not Intent.COMPANY or s.kinds != ("person",) or not s.near or s.entity_id is not None:
        return query
    if not tokens or tokens[0] not in ("who", "whoever"):
        return query
    thing = Subject(kinds=(s.near[0],), said=s.near[0], colours=())
    return replace(query, subject=thing, asks="person")


def _longer_one(query: Query, tokens: list[str]) -> Query:
    """ "Who stayed longer?", "which one was there shorter?": how long each was there, the longest (or shortest) the
    answer; a conversation holds the two it talked about against each other."""
    said = {"longer", "shorter"} & set(tokens)
    if not said or query.other is not None or query.alternatives or tokens[:1] not in (["who"], ["which"]):
        return query
    if query.intent not in (Intent.LIST, Intent.WHEN) or query.subject.entity_id is not None:
        return query
    shorter = "shorter" in said
    return replace(query, intent=Intent.DURATION, rank="fewest" if shorter else "most", compare="fewer" if shorter
                   else "more", order=None)  # fmt: skip


def _who_with_it(query: Query, tokens: list[str]) -> Query:
    """ "Who was using it?", "who was holding that?": who was with the thing talked about (the pronoun is the
    subject the conversation names), not whoever memory ranks first."""
    s = query.subject
    if query.intent is not Intent.COMPANY or s.kinds != ("person",) or s.entity_id is not None or s.near:
        return query
    words = [t for t in tokens if t not in ("?", ".", "!")]
    if words[:1] != ["who"] or len(words) < 3 or words[-1] not in ("it", "that", "this") or words[-2] not in WITH_WORDS:
        return query
    return replace(query, subject=Subject(said=words[-1]), asks="person", refers=(*query.refers, "subject"))


def _other_one(query: Query, tokens: list[str]) -> Query:
    """ "What about the other one?": the thing named with the one talked about (refers "other"), asked the same."""
    if not any(tokens[i : i + 2] in (["other", "one"], ["other", "?"]) for i in range(len(tokens))):
        return query
    if query.subject.kinds or query.subject.entity_id is not None:
        return query
    return replace(query, method="fragment", subject=Subject(), refers=(*query.refers, "other", "subject"))


def _those(query: Query, tokens: list[str]) -> Query:
    """ "Which of those was first?", "which of them came last?": the things the conversation just named (refers
    "those"), put in order; "how many of those were people?": of them, the people (refers "among")."""
    said = any(tokens[i : i + 2] in (["of", "those"], ["of", "these"], ["of", "them"]) for i in range(len(tokens)))
    if said and query.subject.kinds and query.intent in (Intent.COUNT, Intent.LIST, Intent.EXISTS):
        return replace(query, refers=(*query.refers, "among"))  # "how many of those were people?": of them, people
    if not said or query.order not in (Order.FIRST, Order.LAST) or query.subject.kinds:
        return query
    return replace(query, refers=(*query.refers, "those"))


def _both(query: Query, tokens: list[str], phrases: list[_Phrase]) -> Query:
    """ "Were the car and the truck (both) white?": the value asked of each of two things (the other side)."""
    if query.intent is not Intent.ATTRIBUTE or not query.yes_no or query.other is not None:
        return query
    heads = [p for p in phrases if p.role in ("subject", "object") and p.kinds and not p.other_side]
    if len(heads) < 2 or tokens[heads[0].end : heads[1].start] not in (["and"], ["and", "the"], ["and", "a"]):
        return query
    return replace(query, other=Side(subject=Reader._subject(heads[1], [], [], [])))


#: Words for more than one, as the other choice of "just the one or several?".
_SEVERAL = frozenset({"several", "many", "more", "multiple", "lots", "few", "others", "two"})


def _one_or_several(query: Query, tokens: list[str], phrases: list[_Phrase]) -> Query:
    """ "Was it just the one person in the kitchen or were there several?": how many."""
    if "or" not in tokens or query.intent is Intent.COUNT:
        return query
    k = tokens.index("or")
    one = {"one", "single", "alone"} & set(tokens[:k])
    if not one or not _SEVERAL & set(tokens[k + 1 :]):
        return query
    thing = next((p for p in phrases if p.thing and p.kinds and not p.other_side), None)
    subject = Reader._subject(thing, [], [], []) if thing is not None else query.subject
    return replace(
        query, intent=Intent.COUNT, aggregate=Aggregate.THINGS, subject=subject, yes_no=False, alternatives=(),
        alternative_of="", refers=tuple(r for r in query.refers if r != "subject"),
    )  # fmt: skip


def _most_of(query: Query, tokens: list[str]) -> Query:
    """ "What did you see most of?", "what kind of thing was seen the most?": the kinds, by how many of each."""
    words = [t for t in tokens if t not in ("?", ".", "!")]
    ranked = next((_RANKS[w] for w in words if w in ("most", "least", "fewest")), "")
    kind_asked = bool({"kind", "kinds", "type", "types", "sort"} & set(words)) and "what" in words[:2]
    if not ranked or query.subject.kinds or not (words[-2:] in (["most", "of"], ["least", "of"]) or kind_asked):
        return query
    return replace(query, intent=Intent.COUNT, aggregate=Aggregate.KINDS, rank=ranked, subject=Subject(generic=True))


def _counted_colour(query: Query, tokens: list[str]) -> Query:
    """ "How many cars were grey?", "how many of them were white?": the things counted are those of that colour; and
    "was anything orange in the kitchen?": a colour said after "anything" is its (orange is a colour there, not a
    fruit)."""
    subject = query.subject
    at = tokens.index(subject.said) + 1 if subject.generic and subject.said in tokens and not subject.colours else 0
    if at and at < len(tokens) and tokens[at] in COLOUR_WORDS:
        return replace(query, subject=replace(subject, colours=(tokens[at],)))
    if query.intent is not Intent.COUNT or query.subject.colours or query.alternatives:
        return query
    for i, w in enumerate(tokens[:-1]):
        k = i + 1 + (tokens[i + 1] in ("wearing", "in", "dressed")) + (tokens[i + 1 : i + 3] == ["dressed", "in"])
        said = tokens[k] if k < len(tokens) else ""  # "were grey", "were wearing blue", "were dressed in red"
        if (
            w in ("was", "were", "is", "are")
            and said in COLOUR_WORDS
            and tokens[k + 1 : k + 2] in ([], ["?"], ["."], ["ones"])
        ):
            return replace(query, subject=replace(query.subject, colours=(said,)))  # the word said, as elsewhere
    return query


#: A follow-up that only moves the window: "what about before that?", "and after?", "and later on?"
_SHIFTS = {"before": "before", "earlier": "before", "after": "after", "later": "after", "afterwards": "after"}


def _shifted(query: Query, tokens: list[str]) -> Query:
    """ "And before that?": the last question asked of the time before its window ("after" of the time after); the
    conversation moves the window (refers "before" or "after")."""
    drop = ("and", "what", "how", "about", "that", "then", "on", "the", "?", ".", "!")
    words = [t for t in tokens if t not in drop]
    said = [t for t in tokens if t not in ("?", ".", "!")]
    named = bool(query.time.said)  # a time the question names (not the as-of bound every question has)
    if not named and said[-2:] in (["before", "that"], ["after", "that"]) and len(said) > 2:
        # "who was there before that?": this question, of the time before the conversation's moment
        return replace(query, order=None, other=None, refers=(*query.refers, _SHIFTS[said[-2]]))
    if not named and words in (["day", "before"], ["previous", "day"], ["day", "before", "that"]):
        # "and the day before?": the last question asked of the day before its window
        return replace(query, method="fragment", order=None, refers=(*query.refers, "day before"))
    words = words[:1] if words[1:] in (["day"], ["morning"], ["afternoon"], ["evening"]) else words  # "later that day"
    if named or len(words) != 1 or words[0] not in _SHIFTS:
        return query
    return replace(query, method="fragment", order=None, refers=(*query.refers, _SHIFTS[words[0]]))


def _pointed(query: Query, tokens: list[str]) -> Query:
    """ "What was that person wearing?", "when did this car leave?": the subject is one the conversation named."""
    said = query.subject.said.split()[-1:] if query.subject.said else []
    at = next((i for i, t in enumerate(tokens) if said and t == said[0]), None)
    if at is None or at == 0 or tokens[at - 1] not in _DEMONSTRATIVES or "subject" in query.refers:
        return query
    return replace(query, refers=(*query.refers, "subject"))


def _ranked(query: Query, tokens: list[str], cues: _Cues) -> Query:
    """Which room had the most people ("where did you see the most cars?" too), unless it is "most of the time" or
    "most recently"; and "was it there for more than a minute?": its time there, held against that."""
    subject, intent = query.subject, query.intent
    asks = query.asks if query.asks in FIELDS else ""
    rank = ""
    for i, w in enumerate(tokens):
        ahead = tokens[i + 1 : i + 4]
        if w in _RANKS and "time" not in ahead and not set(ahead[:1]) & _NOT_RANKED:
            rank = _RANKS[w]
            break
    if rank and intent is Intent.WHERE and subject.many and query.other is None:
        intent = Intent.WHICH_CAMERA  # "where were most of the people?": the camera that saw the most
    often = [w for w, after in zip(tokens, tokens[1:]) if w in ("most", "more", "least", "less") and after == "often"]
    camera = intent in (Intent.WHICH_CAMERA, Intent.COUNT) or cues.camera_word  # "which camera saw it most often?"
    most_seen = _seen_most(tokens)
    if often and cues.camera_word and intent is Intent.HABIT:
        return replace(query, intent=Intent.WHICH_CAMERA, subject=subject)  # by sightings on each, the most first
    if (often or most_seen) and not camera and cues.wh in ("which", "what", "who") and intent in _LISTED and not asks:
        if subject.named and query.other is None:  # "which cup did you see most often?": its kind, by sightings
            rank = "most" if (often or ["most"])[0] in ("most", "more") and most_seen != "fewest" else "fewest"
            return replace(query, intent=Intent.LIST, subject=subject, rank=rank)
    if most_seen and not camera and subject.named:
        # "the person in blue who was seen the most: when did they first show up?": which one, by its sightings
        intent = Intent.ATTRIBUTE if asks else intent  # "what colour was the one seen most often?"
        return replace(query, intent=intent, subject=replace(subject, seen_most=most_seen), rank="", aggregate=None)
    said_alone = not (cues.wh or cues.yes_no or cues.imperative)  # "busiest room?"
    if rank and said_alone and any(b in _CAMERA_WORDS | _ROOM_WORDS for b in tokens):
        intent = Intent.WHICH_CAMERA  # "busiest room?": which room it was
    if intent is not Intent.WHICH_CAMERA or query.other is not None:
        rank = ""
    span = read_span(tokens)
    if span is not None and subject.named and query.other is None and (intent is Intent.DURATION or query.yes_no):
        # "was the bowl there for more than a minute?", "did the car stay under 30 seconds?": its time there, held
        # against that (the number is no place: "over ten seconds")
        places = tuple(w for w in query.unknown_places if w not in span[2])
        return replace(
            query, intent=Intent.DURATION, subject=subject, compare=span[0], span_s=span[1], unknown_places=places
        )
    return replace(query, intent=intent, subject=subject, rank=rank)


#: Words after "the most" (or "the least") that say it is how often a thing was seen: "seen the most often", "seen the
#: most on the street", "showed up the most?"
_AFTER_MOST = frozenset(
    {"", "often", "frequently", "times", "?", ".", "!", ",", "-", ":", "on", "in", "at", "by", "and", "when", "where",
     "what", "today", "yesterday", "then", "there", "here", "overall"}
)  # fmt: skip


#: Intents a "which ... seen most often?" asks as a list of them ranked by sightings.
_LISTED = frozenset({Intent.LIST, Intent.HABIT, Intent.WHICH_CAMERA, Intent.EXISTS, Intent.COUNT})


def _seen_most(tokens: list[str]) -> str:
    """ "Seen the most", "showed up the least often": "most" or "fewest" where a verb of being seen is ranked."""
    for i, w in enumerate(tokens):
        seen = EVENT_VERBS.get(w) in ("seen", "appears") or (
            w in ("showed", "turned") and tokens[i + 1 : i + 2] == ["up"]
        )
        k = i + (2 if w in ("showed", "turned") else 1)
        k += tokens[k : k + 1] == ["the"]
        if seen and tokens[k : k + 1] in (["most"], ["least"]) and (tokens[k + 1 : k + 2] or [""])[0] in _AFTER_MOST:
            return "most" if tokens[k] == "most" else "fewest"
    return ""


#: Words before a number that say how a count is held against it: "more than 3", "at least two", "exactly one".
_QUANTITY_LEADS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("no", "more", "than"), "most"), (("not", "more", "than"), "most"), (("more", "than"), "more"),
    (("over",), "more"), (("fewer", "than"), "fewer"), (("less", "than"), "fewer"), (("under",), "fewer"),
    (("at", "least"), "least"), (("at", "most"), "most"), (("exactly",), "exactly"), (("only",), "exactly"),
    (("just",), "exactly"),
)  # fmt: skip
#: What a number counts when it names no thing: "on two cameras", "more than 3 times", "on two days".
_COUNTED = {"cameras": Aggregate.CAMERAS, "times": Aggregate.TIMES, "days": Aggregate.DAYS, "places": Aggregate.PLACES}


#: Times said as a word: "seen once", "seen twice".
_TIMES_WORDS = {"once": 1, "twice": 2, "thrice": 3}
#: Verbs a bound on how often something was seen follows: "seen more than 5 times", "showed up only once".
_SIGHTED = frozenset({"seen", "spotted", "sighted", "caught", "recorded", "captured", "noticed", "appeared", "showed"})


def _seen_times(query: Query, tokens: list[str]) -> Query:
    """ "Which things were seen only once?", "what was seen more than 5 times?", "which objects were never seen more
    than once?": the things asked about, by how many times each was seen (its sightings), held against the number; of
    any question, in a clause that says which one ("the person in blue who memory saw ten times")."""
    asked = not query.yes_no and query.intent in (Intent.LIST, Intent.COUNT, Intent.WHICH_CAMERA)
    for i, w in enumerate(tokens):
        n = _TIMES_WORDS.get(w)
        if n is None and (w.isdigit() or w in NUMBER_WORDS) and tokens[i + 1 : i + 2] in (["times"], ["time"]):
            n = int(w) if w.isdigit() else NUMBER_WORDS[w]
        before = set(tokens[max(0, i - 6) : i])
        if n is None or tokens[i - 1 : i] == ["at"] or not (_SIGHTED | {"saw"}) & before:
            continue  # ("at once": together)
        if not (asked or before & {"who", "that", "which", "whom"}):
            continue
        lead, compare = next(
            ((le, c) for le, c in _QUANTITY_LEADS if tuple(tokens[max(0, i - len(le)) : i]) == le), ((), "")
        )
        if {"never", "not"} & set(tokens[max(0, i - len(lead) - 3) : i - len(lead)]):  # "never seen more than once"
            compare = {"more": "most", "fewer": "least", "most": "more", "least": "fewer"}.get(compare, compare)
        subject = replace(query.subject, sightings=(compare or "exactly", n))  # a bare number: that many
        return replace(query, subject=subject, negated=False if compare else query.negated)
    return query


def _quantity(query: Query, tokens: list[str], phrases: list[_Phrase]) -> Query:
    """A yes / no question that holds a count against a number: "were there more than 3 people?", "was the bowl seen on
    two different cameras?", "did at least one camera see her?", "did you see the truck more than 5 times?". A bare
    number is at least that many; what it counts is the noun after it (a thing, cameras or rooms, times, days)."""
    if not query.yes_no or query.other is not None or query.intent not in _PICKING:
        return query
    for i, w in enumerate(tokens):
        n = int(w) if w.isdigit() else NUMBER_WORDS.get(w) if w not in ("a", "an", "few", "couple") else None
        if n is None or (i > 0 and tokens[i - 1] in ("the", "which", "that", "those", "these", "this")):
            continue
        j = i + 1
        while j < len(tokens) and tokens[j] in ("different", "distinct", "separate", "other", "more"):
            j += 1
        noun = tokens[j] if j < len(tokens) else ""
        thing = next((p for p in phrases if p.start == j and p.thing and not p.other_side), None)
        counted = _COUNTED.get(AGGREGATE_WORDS.get(noun, ""))
        if thing is None and counted is None:
            continue
        compare = next((c for lead, c in _QUANTITY_LEADS if tuple(tokens[max(0, i - len(lead)) : i]) == lead), "least")
        if compare == "least" and "only" in tokens[max(0, i - 4) : i]:  # "only ever saw one person": exactly one
            compare = "exactly"
        if tokens[j + 1 : j + 3] in (["or", "more"], ["or", "over"]):
            compare = "least"
        elif tokens[j + 1 : j + 3] in (["or", "fewer"], ["or", "less"]):
            compare = "most"
        subject, place = query.subject, query.place
        if thing is not None and thing.role == "place":  # "at least 20 people": no place
            place = replace(place, near=tuple(k for k in place.near if k not in thing.kinds))
        if thing is not None and counted is None:
            subject = replace(Reader._subject(thing, [], [], []), many=True) if not subject.kinds else subject
        elif subject.generic and subject.said in ("one", "ones", "thing"):  # "did more than one camera see a person?"
            other = next((p for p in phrases if p.thing and p.start > j and not p.other_side), None)
            subject = Reader._subject(other, [], [], []) if other is not None else subject
        return replace(
            query,
            intent=Intent.COUNT,
            subject=subject,
            place=place,
            aggregate=counted or Aggregate.THINGS,
            quantity=n,
            unknown_places=tuple(u for u in query.unknown_places if not set(u.split()) & set(tokens[i:j])),
            compare=compare,
            alternatives=(),
            alternative_of="",
        )
    return query


#: Words after "same" that say another question: "at the same time", "on the same camera", "the same colour".
_SAME_OTHER = frozenset(
    {"time", "times", "moment", "day", "days", "place", "places", "spot", "camera", "cameras", "room", "rooms", "way",
     "colour", "color", "size", "kind", "type", "hour", "minute", "second"}
)  # fmt: skip


#: Words that point at what the conversation was about: "was that the same person as ...?"
_POINTED = frozenset({"that", "it", "this", "he", "she", "they", "him", "her", "them"})


def _same(query: Query, tokens: list[str], phrases: list[_Phrase]) -> Query:
    """ "Is the person in the kitchen the same as the one at the desk?", "were the cup on the street and the cup in the
    kitchen the same one?": whether the two sides are one thing in memory. The sides are split at the "as" after
    "same" (or the "and" before it); a side naming no thing of its own ("the one at the desk") is the first's kind."""
    if "same" not in tokens:
        return query
    k = tokens.index("same")
    if tokens[k + 1 : k + 2] in (["question"], ["for"], ["again"]):  # "same question for the bedroom": the last one
        return replace(query, method="fragment")
    if not query.yes_no:
        return query
    said = [t for t in tokens[k + 1 : k + 3] if t not in ("one", "ones", "thing", "person", "as")]
    things = [p for p in phrases if p.thing and p.start < k and p.role != "place"]
    things += [p for p in phrases if p.thing and p.start > k + 2 and tokens[k + 2 : k + 3] == ["as"]][:1]
    if said[:1] in (["time"], ["moment"]) and len(things) >= 2 and query.other is None:
        # "did the truck and the car appear at the same time?": whether neither came first
        other = Side(subject=Reader._subject(things[1], [], [], []))
        return replace(query, intent=Intent.ORDER, other=other, order=Order.FIRST, asks="together")
    if said[:1] and said[0] in _SAME_OTHER:
        return query
    cut = next((i for i in range(k + 1, len(tokens)) if tokens[i] == "as"), None)
    if cut is not None:
        mine, theirs = [p for p in phrases if p.start < k], [p for p in phrases if p.start > cut]
    else:
        cut = next((i for i in range(k - 1, 0, -1) if tokens[i] == "and"), None)
        if cut is None:
            return query
        mine, theirs = [p for p in phrases if p.start < cut], [p for p in phrases if cut < p.start < k]

    def side(group: list[_Phrase], like: Subject | None) -> tuple[Subject, Place]:
        things = [p for p in group if p.thing and p.role != "place" and not (p.generic and p.said in ("one", "ones"))]
        places = [p for p in group if p.camera or p.zone or p.regions or (p.role == "place" and p.kinds)]
        subject = Reader._subject(things[0], [], [], []) if things else like or Subject()
        return subject, Reader._place(places)

    subject, place = side(mine, None)
    if not subject.named and set(tokens[:k]) & _POINTED:  # "was that the same person as the one in the bedroom?"
        subject = side([p for p in phrases if k < p.start < cut], None)[0]
    if not subject.named:
        return query
    second, there = side(theirs, subject)
    return replace(
        query,
        intent=Intent.SAME,
        subject=subject,
        place=place,
        other=Side(subject=second, place=there),
        alternatives=(),
        alternative_of="",
        compare="",
        order=None,
    )


#: Words that rank cameras by how many things they saw: "which room had the most people?", "which camera was busiest?"
_RANKS = {"most": "most", "busiest": "most", "fewest": "fewest", "least": "fewest", "quietest": "fewest"}
#: Words after "most" or "least" that say it ranks no camera: "most recently", "least often".
_NOT_RANKED = frozenset({"recently", "recent", "often", "times", "likely"})


class Reader:
    """Reads questions and rules with one lexicon. ``embedder``: the text model, for intents by exemplar and
    for grounding unknown nouns (without it neither is done)."""

    #: A clause grounds a camera ("the woman who was cooking": the kitchen) when its likeness to the camera's name is
    #: at least this, and this much above the next camera's (MiniLM: cooking-kitchen 0.65, sleeping-bedroom 0.48).
    CLAUSE_PLACE = 0.45
    CLAUSE_MARGIN = 0.08

    def __init__(self, lexicon: Lexicon, *, embedder: Embedder | None = None, cache: Path | None = None) -> None:
        self.lexicon = lexicon
        self.embedder = embedder
        self.grounder = KindGrounder(embedder, lexicon.kind_words(), cache=cache) if embedder is not None else None
        self.exemplars = IntentExemplars(embedder) if embedder is not None else None
        self._camera_vectors: np.ndarray | None = None

    def _clause_place(self, query: Query) -> Query:
        """What a clause memory has no word for says of where: "the woman who was cooking" was most likely on the camera
        whose name is most like cooking (the kitchen), when one clearly is; the answer says it was read so."""
        cameras = self.lexicon.cameras
        if self.embedder is None or not query.subject.clause or query.place.named or len(cameras) < 2:
            return query
        if self._camera_vectors is None:
            vectors = self.embedder.embed([c.replace("-", " ").replace("_", " ") for c in cameras])
            self._camera_vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
        said = " ".join(query.subject.clause)
        v = self.embedder.embed([said])[0]
        scores = self._camera_vectors @ (v / max(float(np.linalg.norm(v)), 1e-9))
        best, second = np.argsort(-scores)[:2]
        if scores[best] < self.CLAUSE_PLACE or scores[best] - scores[second] < self.CLAUSE_MARGIN:
            return query
        return replace(
            query,
            place=replace(query.place, cameras=(cameras[int(best)],)),
            grounded=(*query.grounded, (said, f"on camera {cameras[int(best)]}")),
        )

    # -- the sentence into phrases ---------------------------------------------------------------------------

    def phrases(
        self, tokens: list[str], used: frozenset[int], names: frozenset[str] = frozenset()
    ) -> tuple[list[_Phrase], _Cues]:
        """The noun phrases of ``tokens`` (but those ``used`` by times) with their roles, and the cues of the question
        (its question word, order, counting and polarity words). ``names``: words written with a capital that memory
        has no name for."""
        spans = _says_which(self.lexicon.tag(tokens), used, names, tokens)
        cues = _Cues(timed=bool(used))
        phrases: list[_Phrase] = []
        role, relation = "subject", ""
        in_relative = False
        other_side = False
        verb_since_subject = True  # an auxiliary or verb came after the last subject: a place is not part of it
        pending = _Modifiers()  # modifiers waiting for a head
        determiner = False
        negative_det = False
        first_content = True
        last_value = -9  # the token a described value was last read at
        other_auxiliaries = 0  # auxiliaries since the other side's phrase
        alternative_to = -1  # the phrase the next alternative is an alternative to
        between = False
        ordering = bool(set(tokens) & _ORDERING)  # "in what order", "which one is earlier": "and" lists the things
        together = "together" in tokens
        k = 0

        def word(i: int) -> str:
            return tokens[i] if 0 <= i < len(tokens) else ""

        def next_role_after_head() -> None:
            nonlocal role, relation, determiner, negative_det
            determiner = negative_det = False
            pending.clear()

        def add(p: _Phrase) -> None:
            nonlocal role, verb_since_subject
            p.colours = pending.colours + p.colours
            p.colour_words = pending.colour_words + p.colour_words
            p.pattern = p.pattern or pending.pattern
            p.size = p.size or pending.size
            p.motion = p.motion or pending.motion
            p.negative = p.negative or negative_det
            p.plural = p.plural or pending.many
            if in_relative and p.role in ("subject", "object", "place", "with"):
                p.role = "relative"
            p.other_side = other_side
            if p.role == "alternative":
                p.sibling = alternative_to if alternative_to >= 0 else len(phrases) - 1
            owner = next((j for j in range(len(phrases) - 1, -1, -1) if phrases[j].thing), None)
            if p.role == "place" and owner is not None and not verb_since_subject:
                if phrases[owner].role in ("subject", "object", "alternative", "other"):
                    p.attached, p.owner = True, owner
            if p.role in ("subject", "object", "alternative"):  # ("the couch appearing or the person in the bedroom")
                verb_since_subject = False
            phrases.append(p)
            before = phrases[-2] if len(phrases) > 1 else None
            if (
                p.thing
                and before is not None
                and before.camera
                and before.end == p.start
                and not before.attached
                and p.role in ("subject", "object", "alternative", "other")
            ):
                before.attached, before.owner = True, len(phrases) - 1  # "the kitchen bowl": the kitchen's
                before.other_side = p.other_side
            next_role_after_head()
            if p.role == "place":  # what follows a place is the subject if none came yet ("where in X was the tv")
                has_subject = any(q.role in ("subject", "object") and not q.other_side for q in phrases)
                role = "object" if has_subject else "subject"

        while k < len(spans):
            span = spans[k]
            w = span.words
            i = span.start
            kind = span.of("kind")
            if w in AUX or w in EVENT_VERBS:
                verb_since_subject = True
                if role == "exclude" and phrases and phrases[-1].role == "exclude":
                    role = "object"  # "which cameras besides the street was a person seen on?": the exclusion ended
                if other_side and phrases and phrases[-1].other_side and w in AUX:
                    other_auxiliaries += 1
                    cues.other_clause = True
                    following = spans[k + 1] if k + 1 < len(spans) else None
                    inverted = following is not None and (
                        following.words in DETERMINERS or bool(following.of("kind") or following.of("name"))
                    )
                    if inverted and _ordered(relation, phrases):
                        # "after the van was first seen did the bowl show up": the clause asking is this side's
                        other_side, role, relation = False, "object", ""
            if w in _CLAUSE_BREAKS:
                if w == ",":
                    cues.commas.add(i)
                if in_relative or w in (":", ";"):
                    in_relative = False
                role, relation, other_side = "subject", "", False
                pending.clear()
                k += 1
                continue
            if in_relative and w.isalpha() and not span.tags and w not in AUX and w not in DETERMINERS and (
                w not in PRONOUNS and w not in _SUBJECT_PRONOUNS and w not in _RELATIVE and w not in FILLER
                and w not in EVENT_VERBS and w not in _PREPOSITION_WORDS and w not in WITH_WORDS and w not in NOT_THINGS
                and w not in _CAMERA_WORDS and w not in GENERIC and w not in _SEEING and w not in _KNOWING
            ):  # fmt: skip
                cues.clause.append(w)  # what a relative clause says of the subject: "the woman who was cooking"
            if first_content and w not in FILLER and w not in ("?",):
                first_content = False
                if w in AUX or w in ("any", "anything", "anyone", "anybody", "anywhere", "no", "whether"):
                    cues.yes_no = True
                elif w in IMPERATIVES and not cues.wh:
                    cues.imperative = w
                elif w == "there" and word(i + 1) in AUX:
                    cues.yes_no = True
            if w in WH and not cues.wh and not (w == "that"):
                if not (w in _RELATIVE and phrases and word(i - 1) not in (",", ":") and phrases[-1].end == i
                        and phrases[-1].role in ("subject", "object") and phrases[-1].thing):  # fmt: skip
                    cues.wh, cues.wh_at = w, i
                    if w == "how":
                        cues.how = word(i + 1)
                    if w in ("who", "whom"):
                        role = "subject"
                    k += 1
                    continue
            lead = _excluding(tokens, i)
            if lead:  # "other than the street one", "not counting the car", "anything but people"
                role = "exclude"
                k += lead
                continue
            # relative clauses: "the cup that was by the sink", "the thing I was drawing on", "the one where ..."
            if (
                not in_relative
                and phrases
                and phrases[-1].end == i
                and phrases[-1].role in ("subject", "object")
                and (w in _RELATIVE or (w in _SUBJECT_PRONOUNS and phrases[-1].thing))
            ):
                in_relative = True
                role = "relative"
                k += 1
                continue
            if w in ("not",) or (w == "never"):
                if word(i - 1) in AUX or word(i - 2) in AUX or w == "never":
                    cues.negated_aux = True
                k += 1
                continue
            if w == "no" and k + 1 < len(spans):
                negative_det = True
                k += 1
                continue
            # order, comparison, events, counting, fields: cues, not phrases
            if w in ("order", "sequence") and not kind:
                cues.order_words.append((i, "first"))  # "in what order", "put these in order"
                cues.ordering = True
                k += 1
                continue
            if w in ("company", "alone", "accompanied", "unaccompanied", "together") and not kind:
                cues.company = True  # "did the baby have company?", "was she alone?"
                if w == "together":
                    cues.with_word = True
                k += 1
                continue
            if w in FIRST_WORDS or w in LAST_WORDS:
                cues.order_words.append((i, "first" if w in FIRST_WORDS else "last"))
                if w in ("recently", "recent") and word(i - 1) == "most":
                    cues.order_words[-1] = (i, "last")
                k += 1
                continue
            if w in ("now", "currently") or (w == "right" and word(i + 1) == "now"):
                cues.now = True
                k += 1
                continue
            if (
                w in ("after", "before", "when", "while", "until", "since")
                and word(i + 1) in PRONOUNS | {"i", "we"}
                and (cues.wh != w)
                and not _pointing_at_thing(spans, k)
            ):
                # "after it was put by the sink at 9", "when its boot was opened": a clause saying which moment
                if w in ("after", "before"):
                    cues.order_words.append((i, w))
                in_relative, role = True, "relative"
                k += 1
                continue
            if (w in BEFORE_WORDS or w in AFTER_WORDS) and not (w == "next" and word(i + 1) == "to"):
                order = "before" if w in BEFORE_WORDS else "after"
                cues.order_words.append((i, order))
                if w in ("before", "after", "earlier", "later") and _side_follows(spans, k):
                    role, relation, other_side = "other", order, True
                    other_auxiliaries = 0
                if w in ("earlier", "later") and word(i + 1) == "than":
                    role, relation, other_side = "other", order, True
                    k += 1
                k += 1
                continue
            if w in ("most", "all", "every", "each") and word(i + 1) not in ("recently", "recent", "often", "times"):
                pending.many = True  # "most people", "all the cars": asked of all of them
                k += 1
                continue
            if w in MORE_WORDS or w in FEWER_WORDS:
                if word(i + 1) not in ("recently", "recent"):
                    cues.compare = "more" if w in MORE_WORDS else "fewer"
                if w in ("longer", "shorter"):
                    cues.duration = True  # "who stayed longer?"
                k += 1
                continue
            if w == "than":
                said_after = [t for t in tokens[i + 1 : i + 4] if t not in ("a", "an", "about")]
                if said_after and (
                    said_after[0].isdigit()
                    or said_after[0] in NUMBER_WORDS
                    or said_after[0] in _QUANTITIES
                    or said_after[0] in _TIME_UNITS
                ):
                    if len(said_after) > 1 and said_after[1] in _TIME_UNITS or said_after[0] in _TIME_UNITS:
                        cues.duration = True  # "more or less than a minute?"
                    cues.compare = ""  # "more than a dozen": a quantity, not another side
                else:
                    role, relation, other_side = "other", cues.compare or "than", True
                k += 1
                continue
            if w == "or" or (w == "either"):
                if w == "or":
                    cues.has_or = True
                    nxt = [t for t in spans[k + 1 : k + 3] if t.words not in ("the", "a", "an", "in", "on", "at")]
                    place_next = bool(tokens[i + 1 : i + 2]) and (
                        (tokens[i + 1],) in PLACE_PREPOSITIONS
                        or bool(nxt and (nxt[0].of("camera") or nxt[0].of("zone") or nxt[0].of("region")))
                    )
                    if last_value >= 0 and (not phrases or last_value >= phrases[-1].end):
                        role = "value"  # "moving or parked", "driving about or just parked up"
                    elif phrases and phrases[-1].role in ("subject", "object", "alternative", "place", "other"):
                        previous = phrases[-1]
                        if previous.role == "place" and (place_next or not previous.attached):
                            role, relation = "place", previous.relation  # "in the kitchen or in the bedroom"
                        else:  # "the tablet at the desk or the bowl": the bowl is the tablet's alternative
                            sibling = previous.owner if previous.role == "place" else len(phrases) - 1
                            role, relation = "alternative", phrases[sibling].relation
                            alternative_to = sibling
                    elif phrases and phrases[-1].values:
                        role = "value"
                k += 1
                continue
            if w == "between" and not in_relative:
                between = True  # "between the street camera and the desk camera": two sides
                k += 1
                continue
            if w == "and" and between and phrases:
                role, relation, other_side, between = "other", "between", True, False
                other_auxiliaries = 0
                k += 1
                continue
            last_thing = next((j for j in range(len(phrases) - 1, -1, -1) if phrases[j].thing), None)
            if w == "and" and last_thing is not None and (ordering or together) and not in_relative:
                # "the bowl, the tv and the car: in what order?"; "a person and a couch together"
                if together:
                    role = "with"
                else:
                    previous = phrases[-1]
                    sibling = previous.owner if previous.role == "place" and previous.attached else last_thing
                    role, relation, alternative_to = "alternative", phrases[sibling].relation, sibling
                    cues.listed = True
                k += 1
                continue
            left_as_place = w == "left" and (word(i - 1) in ("the", "top", "bottom", "middle") or word(i + 1) == "side")
            view_as_noun = w == "view" and word(i - 1) in ("the", "street")
            if (
                w in EVENT_VERBS
                and not kind
                and not (span.of("motion") and "or" in tokens[max(0, i - 3) : i + 4])  # "moving or parked": values
                and not left_as_place
                and not view_as_noun
                and w not in ("there", "around")
            ):
                event = _event(w, word(i - 1), word(i + 1) if _PASSIVE & set(tokens[:i]) else "", word(i + 1))
                cues.events.append(event)
                role = _after_verb(role, event, bool(phrases), in_relative)
                k += 1
                continue
            if w == "there" or w == "here":
                following = spans[k + 1] if k + 1 < len(spans) else None
                existential = following is not None and (
                    following.words in DETERMINERS
                    or following.words in GENERIC
                    or following.words in AUX
                    or following.words in ("more", "fewer", "less", "someone", "anyone", "somebody", "anybody")
                    or bool(following.of("kind") or following.of("name") or following.of("colour"))
                )
                if not existential and w == "there":
                    cues.refers.append("place")  # "who else was there?": the place talked about
                k += 1
                continue
            if w in DURATION_WORDS and (cues.how == w or word(i - 1) in ("how", "what", "for", "a")):
                cues.duration = True  # "how long", "for long", "for a long time"
                k += 1
                continue
            if w == "ages" and word(i - 1) == "for":
                cues.duration = True
                k += 1
                continue
            if w in HABIT_WORDS:
                cues.habit = True
                if w == "often":
                    cues.aggregate = cues.aggregate or "times"
                k += 1
                continue
            if w in HAPPEN_WORDS and not kind and not _new_thing(w, spans, k):
                if w not in ("going", "went") or word(i + 1) == "on" or word(i - 1) in ("was", "is"):
                    cues.happen = True
                    k += 1
                    continue
            if w in ("many", "much") and word(i - 1) == "how":
                role = "subject"
                ahead = k + 1
                while ahead < len(spans) and spans[ahead].words in ("of", "the", "different", "distinct", "separate"):
                    ahead += 1  # "how many of the cameras", "how many different people"
                unit = spans[ahead].words if ahead < len(spans) else ""
                cues.unit = unit
                if unit in AGGREGATE_WORDS and not spans[ahead].of("kind") and not spans[ahead].of("camera"):
                    cues.aggregate = AGGREGATE_WORDS[unit]
                    if cues.aggregate == "cameras":
                        cues.camera_word = True
                    k = ahead + 1
                    continue
                if any(spans[j].words in ("different", "distinct", "separate") for j in range(k + 1, ahead)):
                    cues.aggregate = "things"
                k = ahead + 1 if unit in ("hours", "minutes", "seconds", "time") else ahead
                continue
            if w in AGGREGATE_WORDS and not kind and not span.of("camera") and not span.of("zone"):
                determiner = False  # "the cameras picked up": the words after it are no noun of it
                if role == "place":  # "on camera for long": no place of its own
                    role = "object" if any(p.thing for p in phrases) else "subject"
                agg = AGGREGATE_WORDS[w]
                if w in _CAMERA_WORDS or w in _ROOM_WORDS:
                    if (cues.wh in ("which", "what") and cues.wh_at in (i - 1, i - 2)) or word(i - 1) in (
                        "which",
                        "what",
                        "many",
                    ):
                        cues.camera_word = True
                elif agg in ("things",) and word(i - 1) == "many":
                    cues.aggregate = "things"
                elif agg == "times" and word(i - 1) in ("many", "of"):
                    cues.aggregate = "times"
                k += 1
                continue
            if w in FIELD_WORDS and not kind and not span.of("colour") and not span.of("size"):
                if w in ("colour", "color", "colours", "colors", "pattern", "patterns", "size", "shade", "hue"):
                    cues.field_word = FIELD_WORDS[w]
                    k += 1
                    continue
            if cues.how in ("big", "large", "small", "tall", "huge") and w == cues.how:
                cues.field_word = "size"
                k += 1
                continue
            # prepositions set the role of the next phrase
            prep = None
            for n in (3, 2, 1):
                key = tuple(tokens[i : i + n])
                if key in PLACE_PREPOSITIONS and all(j not in used for j in range(i, i + n)):
                    prep = (key, n)
                    break
            if prep is not None and not kind and not span.of("camera") and not span.of("zone"):
                key, n = prep
                # "in red", "in a pink top": a colour of the subject, not a place
                after = spans[k + 1] if k + 1 < len(spans) else None
                if after is not None and after.of("colour") and key == ("in",):
                    role = "dress"
                elif _of_a_camera_said(tokens, i, n, phrases):
                    role = "object"  # "every camera on which a person was seen": the place is the camera said before
                else:
                    role, relation = "place", PLACE_PREPOSITIONS[key]
                while k < len(spans) and spans[k].start < i + n:
                    k += 1
                continue
            if w in WITH_WORDS and not kind and not (span.of("motion") and word(i + 1) in ("or", "?", ",", "")):
                cues.with_word = True
                role = "with" if not in_relative else "relative"
                k += 1
                continue
            if w in _HOLDING and _what_held(tokens, i, phrases):
                cues.with_word = True  # "what did she have (on her)?", "what did they bring?": what was with them
                k += 1
                continue
            if w in ("have", "has", "had") and _held_by_person(phrases, i):
                role = "with"  # "did the guy (at the desk) have a bowl?": what was with him
                k += 1
                continue
            after_one = spans[k + 1] if k + 1 < len(spans) else None
            one_is_noun = _one_is_noun(w, after_one, spans[k - 1] if k else None)
            if w in DETERMINERS and not one_is_noun:  # "one dog"; but "the little one", "the one I saw" are things
                determiner = True
                if w in ("all", "every", "each", "most"):
                    pending.many = True
                k += 1
                continue
            # modifiers
            colour = span.of("colour")
            pattern = span.of("pattern")
            size = span.of("size")
            motion = span.of("motion")
            region = span.of("region")
            head = kind or span.of("name") or span.of("camera") or span.of("zone")
            if w in GENERIC and not head:
                p = _Phrase(i, span.end, role, relation, kinds=GENERIC[w], said=w, generic=not GENERIC[w])
                if w in NEGATIVE_SUBJECTS:
                    p.negative = True
                if w in _PEOPLE_WORDS or GENERIC[w]:
                    p.generic = False
                add(p)
                role = "object" if role == "subject" else role
                k += 1
                continue
            if w in _PEOPLE_WORDS and w != "who":
                p = _Phrase(i, span.end, role, relation, kinds=("person",), said=w)
                add(p)
                role = "object" if role == "subject" else role
                k += 1
                continue
            if (colour or pattern or size or motion) and not head:
                if role == "dress" and phrases:
                    dressed = _dressed(phrases)
                    if colour:
                        dressed.colours += colour.value
                        dressed.colour_words += (w,)
                    if pattern:
                        dressed.pattern = pattern.value[0]
                    k += 1
                    continue
                after = spans[k + 1] if k + 1 < len(spans) else None
                heads_next = after is not None and bool(
                    after.of("kind")
                    or after.of("name")
                    or after.words in GENERIC
                    or after.of("colour")
                    or after.of("pattern")
                    or after.of("size")
                    or (after.words not in _CLAUSE_BREAKS and after.words not in AUX and not after.tags and determiner
                        and after.words not in NOT_THINGS and after.words not in EVENT_VERBS and after.words != "or")
                )  # fmt: skip
                if heads_next:
                    if colour:
                        pending.colours += colour.value
                        pending.colour_words += (w,)
                    if pattern:
                        pending.pattern = pattern.value[0]
                    if size:
                        pending.size = size.value[0]
                    if motion:
                        pending.motion = motion.value[0]
                    k += 1
                    continue
                # a described value with no head after it: asked of the subject ("was the couch blue?")
                target = next((p for p in reversed(phrases) if p.thing or p.pronoun), None)
                value = (
                    ("colour", w)
                    if colour
                    else ("pattern", pattern.value[0])
                    if pattern
                    else ("motion", motion.value[0])
                    if motion
                    else ("size", size.value[0])  # type: ignore[union-attr]
                )
                if target is not None:
                    target.values.append(value)
                else:
                    holder = _Phrase(i, span.end, "value")
                    holder.values.append(value)
                    phrases.append(holder)
                last_value = i
                k += 1
                continue
            if region and not head and role == "place":
                add(_Phrase(i, span.end, "place", relation or "at", regions=region.value, said=w))
                k += 1
                continue
            if head is not None:
                camera = span.of("camera")
                zone = span.of("zone")
                name = span.of("name")
                followed_by_camera = _camera_after(spans, k)
                said_as_camera = _said_as_camera(tokens, spans, k)
                place_role = role == "place" or role == "dress"
                p = _Phrase(i, span.end, role if role != "dress" else "place", relation, said=w)
                if name is not None:
                    p.name, p.entity_id = name.value[0], name.entity_id
                elif camera is not None and (place_role or followed_by_camera or said_as_camera or not kind):
                    p.camera = camera.value[0]
                    if not place_role and role not in ("alternative", "other", "exclude"):
                        p.role, p.relation = "place", "in"
                elif zone is not None and (place_role or not kind):
                    p.zone = zone.value[0]
                    if not place_role:
                        p.role, p.relation = "place", "at"
                elif kind is not None:
                    p.kinds = kind.value
                    p.plural = w.endswith("s") or w in ("people", "children", "men", "women")
                if followed_by_camera and word(span.end) not in _RECORDING_WORDS:
                    k += 1
                add(p)
                if p.role == "subject":
                    role = "object"
                k += 1
                continue
            if w in ("it", "that", "this") and word(i + 1) in ("true", "right", "correct", "so", "the"):
                if word(i + 1) != "the" or word(i + 2) == "case":  # "is it true (that) nobody came?"
                    k += 2 if word(i + 1) != "the" else 3
                    continue
            if w in _EMPTY_WORDS:  # "the living room was empty": nothing was there ("not empty": something was)
                add(_empty_phrase(i, span.end, phrases, cues, word(i - 1)))
                k += 1
                continue
            if _is_pronoun(tokens, i, phrases):
                p = _Phrase(i, span.end, role, relation, pronoun=True, **_pronoun(w))
                if not in_relative and role in ("subject", "object"):
                    cues.refers.append("subject")  # "and where was it?": the thing talked about
                add(p)
                if role == "subject":
                    role = "object"
                k += 1
                continue
            if w in CLOTHES and phrases:
                k += 1
                continue
            # a place memory has no name for: "at the front door" with no camera or zone of that name
            if role == "place" and not span.tags and _place_word(w):
                words = [w]
                while k + 1 < len(spans) and not spans[k + 1].tags and _place_word(spans[k + 1].words):
                    k += 1
                    words.append(spans[k].words)
                add(_Phrase(i, spans[k].end, "place", relation, unknown=" ".join(words), said=" ".join(words)))
                k += 1
                continue
            if role == "place" and w in PLACE_WORDS:  # "at the end", "in the picture": no place of its own
                role = "object" if any(p.thing for p in phrases) else "subject"
                k += 1
                continue
            # a verb memory cannot see done, right after the subject of a yes / no question: "has anyone watered"
            if (
                cues.yes_no
                and not in_relative
                and phrases
                and phrases[-1].end == i
                and phrases[-1].role in ("subject", "object")
                and (phrases[-1].thing or phrases[-1].pronoun)
                and not span.tags
                and _done(w, word(i + 1), phrases[-1])
            ):
                cues.unknown_verbs.append(w)
                role = "object"
                k += 1
                continue
            # a word memory has no word for, where a thing is named: "my keys", "a gizmo"
            if (
                not span.tags
                and w.isalpha()
                and len(w) > 2
                and w not in NOT_THINGS
                and w not in AUX
                and w not in WH
                and w not in FILLER
                and w not in _VERBS  # ("the person in the red top heading": a verb, no thing)
                and w not in DETERMINERS
                and w not in CLOTHES
                and w not in NUMBER_WORDS  # "during its last ten seconds": a number, no thing
                and w not in ("of", "to", "for", "as", "and", "the", "was", "were", "ago", "there")
                and w not in STATES
                and not (role == "place" and w in PLACE_WORDS)
                and (determiner or role in ("place",) or word(i - 1) in ("many",) or w in names or _opening(tokens, i))
            ):
                # "the tv stand": a word before another noun is not the thing named; any other word ends the phrase
                if not self._noun_follows(word(span.end)) or w in names:
                    p = _Phrase(i, span.end, role, relation, unknown=w, said=w)
                    p.plural = w.endswith("s")
                    if w in names and phrases and phrases[-1].end == i and phrases[-1].kinds:
                        p.role = phrases.pop().role  # "my neighbour Tom": the name says which one
                    add(p)
                    if role == "subject":
                        role = "object"
                    k += 1
                    continue
            if w.isdigit() or w in NUMBER_WORDS:
                k += 1
                continue
            k += 1
        return phrases, cues

    # -- questions ------------------------------------------------------------------------------------------------

    def read(self, question: str, *, reference: float, zone: str = "UTC", as_of: float | None = None) -> Query:
        """The question's query. ``reference``: the moment relative times are read against (the question's
        as-of, else the end of what memory recorded); ``zone``: the user's time zone; ``as_of``: nothing later
        is used (joined with the bound the question names). A question of several sentences ("I think I saw the
        couch only for a moment. Was it more or less than a minute?") is its question sentence, read with what the
        others say of the subject, the place and the time."""
        tokens, respelt = self.lexicon.respell(_plain(tokenize(question)))
        tokens = _into_room(_when_clause(_owners_dropped(tokens, question, self.lexicon)), self.lexicon)
        names = _names_said(question, self.lexicon)
        sentences = _while_away(_confirmed(_sentences(tokens)))
        readings = [self._read_tokens(s, names, reference, zone, as_of) for s in sentences]
        asked = [r for r, c in readings if c.wh or c.yes_no or c.imperative] or [r for r, _ in readings]
        main = asked[-1]
        at = next(i for i, (r, _) in enumerate(readings) if r is main)
        wh = [i for i, (_, c) in enumerate(readings[:at]) if c.wh]
        if main.alternatives and "subject" in main.refers and wh and main.alternative_of != "region":
            # "In which order did the rooms have someone? Was it the bedroom, the kitchen, ...?": the choices of the
            # question asked before, read as one ("... : the bedroom, the kitchen, ...")
            choices = sentences[at]
            while choices and (choices[0] in AUX or choices[0] in PRONOUNS):
                choices = choices[1:]
            joined = [t for t in sentences[wh[-1]] if t not in (".", "?", "!")] + [":", *choices]
            main = self._read_tokens(joined, names, reference, zone, as_of)[0]
        paired = _pair_named(sentences, at, self._two_things)
        if paired is not None:  # "the woman in the kitchen and the baby, how long between the two?": those two
            main = self._read_tokens(paired[0], names, reference, zone, as_of)[0]
            if paired[1]:  # the sentence before said them: nothing of it is the question's beside
                readings[at - 1] = (Query(Intent.LIST), readings[at - 1][1])
        for i, (said, cues) in enumerate(readings):
            if i == at:
                continue
            one = main.subject.generic and main.subject.said in ("one", "ones")  # "which camera spotted one?"
            if (not main.subject.named or one or "subject" in main.refers) and (said.subject.named or said.unknown):
                # "whoever wore black, where did they go?": "they" is the one described before it ("and the person,
                # when did they come?" points on, at the person the conversation talked about)
                refers = tuple(r for r in main.refers if r != "subject" or not said.subject.described)
                main = replace(main, subject=said.subject, unknown=main.unknown + said.unknown, refers=refers)
            if not main.place.named and said.place.named and not (cues.negated_aux or said.negated):
                main = replace(main, place=said.place)  # but "it wasn't on the street, was it?" says where it was not
            if not main.time.said and said.time.said:  # (the as-of bounds both: not a time either names)
                main = replace(main, time=said.time)
        main = _alerted(main, [t for s in sentences for t in s])  # "I got an alert about the desk. what was that?"
        return replace(main, grounded=main.grounded + respelt) if respelt else main

    def _two_things(self, tokens: list[str]) -> list[str] | None:
        """The two things a sentence names, as a list ("my neighbour parks a grey car next to a white truck on our
        street" -> "a grey car and a white truck"); None unless it names exactly two."""
        phrases, _ = self.phrases(tokens, frozenset())
        things = [p for p in phrases if (p.kinds or p.entity_id is not None) and not (p.pronoun or p.generic)]
        if len(things) > 2:  # "my neighbour parks a grey car next to a white truck": the one who does it is no side
            things = [
                p for p in things if not (p.start > 0 and tokens[p.start - 1] in _POSSESSIVES and p.role == "subject")
            ]
        if len(things) != 2:
            return None

        def said(p: _Phrase) -> list[str]:
            return ["the", *(w for w in (p.size, p.pattern) if w), *p.colour_words, *tokens[p.start : p.end]]

        return [*said(things[0]), "and", *said(things[1])]

    def parts(self, question: str) -> tuple[str, ...]:
        """The questions of a question asked as two ("when did the truck arrive and when did it leave?", "who was in
        the kitchen and what were they wearing?"), each as words to read (the second read after the first, as in a
        conversation); () when it asks one."""
        tokens, _ = self.lexicon.respell(_plain(tokenize(question)))
        split = compound(tokens)
        sentences = _sentences(tokens)
        last = compound(sentences[-1]) if not split and len(sentences) > 1 else None
        if last is not None:
            # "We moved the telly. Which camera saw a tv, and where in the picture?": the last sentence asks two,
            # the first read with what was said before it
            split = ([t for s in sentences[:-1] for t in s] + list(last[0]), last[1])
        return tuple(" ".join(t for t in part) for part in split) if split else ()

    def _read_tokens(
        self, tokens: list[str], names: frozenset[str], reference: float, zone: str, as_of: float | None
    ) -> tuple[Query, _Cues]:
        tokens, corrected = _corrected(tokens)
        tokens = _said_plainly(tokens)
        fragment = (
            corrected
            or tokens[:2] in (["what", "about"], ["how", "about"])
            or tokens[:3]
            in (
                ["and", "what", "about"],
                ["and", "how", "about"],
            )
        )
        if fragment and not corrected:  # "what about the dog?": no question word of its own
            tokens = tokens[tokens.index("about") + 1 :]
        times = read_times(tokens, reference if as_of is None else as_of, zone)
        phrases, cues = self.phrases(tokens, times.used, names)
        cues.fragment = fragment or (
            bool(tokens)
            and tokens[0] == "and"
            and not (set(tokens) & WH)
            and not any(w in AUX and tokens[j - 1] in ("and", ",") for j, w in enumerate(tokens[1:], 1))
        )  # "and the truck, did it leave?" asks a question of its own
        words = [t for t in tokens if t not in ("?", ".", "!")]
        tag = words[-4:] if len(words) >= 4 and words[-2] == "not" else words[-3:]
        if len(tag) >= 3 and tag[0] == "," and tag[1] in AUX and tag[-1] in PRONOUNS | {"there", "you", "i", "we"}:
            cues.yes_no = True  # a tag question: "the living room was empty, wasn't it?"
        elif len(words) > 2 and words[-2] == "," and words[-1] in ("right", "correct", "true", "yeah"):
            cues.yes_no = True
        elif _tagged(words):  # "..., isn't that so?", "..., is that right?"
            cues.yes_no = True
        if not cues.wh and any(w == "," and after in AUX for w, after in zip(tokens, tokens[1:])):
            cues.yes_no = True  # "apart from the street, was anyone in red?": the question after its leading clause
        cues.yes_no = cues.yes_no or _value_asked(words, phrases, cues)
        time = times.time.bounded(as_of)
        _verbs(tokens, cues)
        query = _refined(self._query(" ".join(tokens), phrases, cues, time), tokens, phrases, cues)
        query = _same(_quantity(_compared(query, tokens, cues, self.lexicon.cameras), tokens, phrases), tokens, phrases)
        query = _seen_times(query, tokens)
        query = _shifted(_pointed(_again_there(query, tokens, self.lexicon.cameras), tokens), tokens)
        query = _duration_noun(_counted_colour(query, tokens), tokens, phrases)
        query = _both(_most_of(_those(_elsewhere(query, tokens), tokens), tokens), tokens, phrases)
        query = _near_pronoun(_other_one(_one_or_several(query, tokens, phrases), [*tokens, "?"]), tokens)
        query = _colour_alone(_denied_place(_put_thing(_any_such(_then(query, tokens), tokens), tokens)), tokens)
        query = _new_ones(_for_long(_dressed_so(query, tokens), tokens), tokens)
        query = _that(_state_asked(_held(_longest(query, tokens), tokens, phrases), tokens, phrases), tokens)
        query = _worn_by(_unrecorded(_whole_time(query, tokens), tokens), tokens)
        query = _also_elsewhere(_happened_beside(query, tokens), tokens)
        query = _alone(_moving(_recording(_about(query, tokens, phrases), tokens, cues), tokens), tokens)
        query = _whose(_direction(_ago(query, tokens), tokens), tokens)
        query = _not_there(_every_camera(query, tokens, self.lexicon.cameras), tokens)
        query = _users_own(_cameras_in_order(_clause_colour(query, tokens, phrases)), tokens)
        query = _besides(_rooms_in_order(query, tokens, self.lexicon.cameras), tokens)
        query = _dressed_or(_same_kind_in_colours(_colour_sides(query, tokens), tokens), tokens)
        query = _unknown_camera(_not_in_colours(query, tokens), tokens, self.lexicon.cameras)
        query = _clause_events(_recording_window(query, tokens), tokens)
        query = _house_compared(_indoors(query, tokens, self.lexicon.cameras), tokens, self.lexicon.cameras)
        query = _time_choices(query, read_time_choices(tokens, reference if as_of is None else as_of, zone), as_of)
        query = _came_back(_missing(_kinds_compared(query, tokens, self.lexicon), tokens), tokens)
        query = _right_after(_cameras_ranked(query, tokens), tokens)
        query = _right_now(_as_long_as(query, tokens, self.lexicon), tokens, reference if as_of is None else as_of)
        query = _same_span(_which_of_two(_others(query, tokens), tokens), tokens)
        query = _told_apart(_alerted(_who_with_it(_who_had(_longer_one(query, tokens), tokens), tokens), tokens))
        query = _in_order(_doing(query, tokens, self.lexicon), tokens)
        query = _colours_counted(_kinds_counted(_at_once(query, tokens), tokens, phrases), tokens)
        query = _same_room(_same_in_two(_rooms_had(_after_a_room(query, tokens), tokens), tokens), tokens, phrases)
        query = _only_place(query, tokens, phrases)
        return _person_words(self._clause_place(query)), cues

    def _ground(self, p: _Phrase, grounded: list[tuple[str, str]], unknown: list[str]) -> None:
        """An unknown noun read as the nearest kind by the text model, when close enough; else left unknown."""
        if not p.unknown:
            return
        found = None
        word = p.unknown
        if self.grounder is not None:
            found = self.grounder.ground(word)
            if found is None and word.endswith("s") and len(word) > 3:
                found = self.grounder.ground(word[:-1])
        if found is not None:
            kind_word, kinds, _ = found
            p.kinds = kinds
            grounded.append((word, kind_word))
            p.unknown = ""
        else:
            unknown.append(word)

    @staticmethod
    def _place(places: Sequence[_Phrase]) -> Place:
        return Place(
            cameras=tuple(dict.fromkeys(p.camera for p in places if p.camera)),
            zones=tuple(dict.fromkeys(p.zone for p in places if p.zone)),
            regions=tuple(dict.fromkeys(r for p in places for r in p.regions)),
            near=tuple(dict.fromkeys(k for p in places for k in p.kinds if not (p.camera or p.zone))),
            on=tuple(
                dict.fromkeys(k for p in places if p.relation == "on" for k in p.kinds if not (p.camera or p.zone))
            ),
        )

    def _noun_follows(self, after: str) -> bool:
        """Whether ``after``, the word after an unknown one, may be the noun it is a part of ("the tv stand")."""
        return (
            after.isalpha()
            and after not in AUX
            and after not in FILLER
            and after not in WH
            and after not in DETERMINERS
            and after not in _PREPOSITION_WORDS
            and after not in WITH_WORDS
            and after not in EVENT_VERBS
            and after not in NOT_THINGS
            and after not in STATES
            and not after.endswith(("ed", "ing"))
            and after not in ("or", "and", "than", "that", "which", "before", "after", "i", "we", "you")
            and not self.lexicon.tag([after])[0].tags
        )

    @staticmethod
    def _subject(
        p: _Phrase | None, relatives: Sequence[_Phrase], withs: Sequence[_Phrase], excludes: Sequence[_Phrase]
    ) -> Subject:
        if p is None:
            return Subject()
        near = [k for r in relatives for k in (r.kinds or ((r.zone,) if r.zone else ()))]
        near += [k for w in withs for k in w.kinds]
        return Subject(
            kinds=p.kinds,
            said=p.said,
            colours=tuple(dict.fromkeys(p.colour_words)),
            pattern=p.pattern,
            size=p.size,
            name=p.name,
            entity_id=p.entity_id,
            generic=p.generic,
            # "which objects ...?": things, not people (who are no object)
            exclude=tuple(dict.fromkeys([*(k for e in excludes for k in e.kinds), *_NOT_OBJECTS.get(p.said, ())])),
            near=tuple(dict.fromkeys(near)),
            many=p.plural,
        )

    def _query(self, question: str, phrases: list[_Phrase], cues: _Cues, time: Time) -> Query:
        grounded: list[tuple[str, str]] = []
        unknown: list[str] = []
        unknown_places: list[str] = []
        for p in phrases:
            if p.unknown and p.role == "place":
                if p.unknown in NUMBER_WORDS:  # "in the final two seconds": a number, no place
                    continue
                unknown_places.append(p.unknown)  # "at the front door" with no camera or zone of that name
            else:
                self._ground(p, grounded, unknown)
        alternatives = [p for p in phrases if p.role == "alternative" and p.thing and not p.other_side]
        theirs_at = {id(a) for a in alternatives}
        # a place said right after an alternative or the other side is that one's ("the tablet at the desk or the
        # bowl in the kitchen")
        theirs_at |= _alternatives_places(phrases, alternatives, "there" in question.split()[:3])
        mine = [p for p in phrases if not p.other_side and id(p) not in theirs_at]
        theirs = [p for p in phrases if p.other_side]
        subjects = [p for p in mine if p.role in ("subject", "object") and (p.thing or p.pronoun)]
        relatives = [p for p in mine if p.role == "relative"]
        places = [p for p in mine if p.role == "place" and (p.camera or p.zone or p.regions or p.kinds)]
        places += [p for p in relatives if p.camera or p.regions]  # "the one I saw at the desk", "that sat at the top"
        withs = [p for p in mine if p.role == "with"]
        excludes = [p for p in mine if p.role == "exclude"]
        values = [v for p in mine for v in p.values]
        people_wh = cues.wh in ("who", "whom")
        head = _head(subjects, question.split())
        for a in alternatives:  # "the person in the bedroom or the one in the kitchen": "one" is another person
            if a.said in ("one", "ones") and a.generic and head is not None and head.kinds:
                a.kinds, a.generic, a.said = head.kinds, False, head.said
        said_head = head
        head, alternatives = _alternatives_head(head, alternatives, phrases, cues)
        if head is None and people_wh:
            head = _Phrase(-1, -1, "subject", kinds=("person",), said="person")
        if head is None and (cues.wh in ("what", "which") or cues.imperative in ("list", "show", "name")):
            head = _Phrase(-1, -1, "subject", generic=True)  # any thing, none said: "what colour?" of the last one
        subject = _described_as(self._subject(head, relatives, withs, excludes), said_head, head)
        if cues.clause and head is not None:
            subject = replace(subject, clause=tuple(dict.fromkeys(cues.clause)))
        place = self._place(places)
        left_out = tuple(p.camera for p in excludes if p.camera)
        if left_out:
            place = replace(place, not_cameras=left_out)  # "apart from the street one", "except the living room"
        other: Side | None = None
        order: Order | None = None
        other_subjects = [p for p in theirs if p.thing or p.pronoun]
        other_places = [p for p in theirs if p.camera or p.zone or p.regions or (p.role == "place" and p.kinds)]
        if other_subjects or other_places:
            other = Side(
                subject=self._subject(other_subjects[0], [], [], []) if other_subjects else Subject(),
                place=self._place(other_places),
            )
            relation = (other_subjects or other_places)[0].relation
            if relation in ("before", "after"):
                order = Order.BEFORE if relation == "before" else Order.AFTER
        alternative_of, choices = "", tuple[str, ...]()
        if values and (cues.has_or or cues.yes_no):
            alternative_of = values[0][0]
            choices = tuple(dict.fromkeys(v for f, v in values if f == alternative_of))
        elif alternatives and head is not None:
            alternative_of, choices = "kind", (head.said, *(a.said for a in alternatives))
        elif cues.has_or and len([p for p in places if p.camera]) > 1:
            alternative_of, choices = "camera", tuple(p.camera for p in places if p.camera is not None)
        elif cues.has_or and len([p for p in places if p.regions]) > 1:
            alternative_of, choices = "region", tuple(p.said for p in places if p.regions)
        reading = _Reading(
            cues, subject, head, place, other, order, alternative_of, choices, alternatives, values, people_wh
        )
        intent, order_said, event, aggregate, asks, method = self._intent(question, reading)
        order = order or order_said
        said_order = {w for _, w in cues.order_words}
        if intent is Intent.ORDER and cues.has_or and {"before", "after"} <= said_order:
            alternative_of, choices, order = "order", ("before", "after"), Order.BEFORE  # "before or after her?"
        if intent is Intent.COUNT and alternative_of == "camera" and cues.compare and len(choices) >= 2:
            # "did the kitchen or the bedroom have more people?": one side a camera
            place, other = replace(place, cameras=(choices[0],)), Side(place=Place(cameras=(choices[1],)))
            alternative_of, choices = "camera", choices[:2]
        if intent in (Intent.ORDER, Intent.DURATION) and other is None and alternatives:
            alternative = alternatives[0]
            other = Side(
                subject=self._subject(alternative, [], [], []),
                place=self._place([p for p in phrases if p.attached and phrases[p.owner] is alternative]),
            )
            if len(alternatives) < 2:
                alternative_of, choices = "", ()
        if intent is Intent.ORDER and other is None and len(place.cameras) >= 2 and not alternatives:
            alternative_of, choices = "camera", place.cameras  # each camera's first sighting, in order
            place = replace(place, cameras=())
        if intent is Intent.WHICH_CAMERA and alternative_of == "camera":
            place = replace(place, cameras=())
        if intent is Intent.WHERE and alternative_of == "region":
            place = replace(place, regions=())
        if intent is Intent.ATTRIBUTE and alternative_of in ("colour", "pattern", "motion", "size"):
            asks = alternative_of
        if intent is Intent.COMPANY and people_wh:
            asks = "person"
        intent, asks = _anything_with(intent, asks, subject, withs)
        if intent is Intent.COMPANY and (subject.generic or subject.kinds == ("person",)):
            # "what was next to the tv?", "who was at the car?": the thing named is the subject; the company is asked
            thing = next((p for p in [*withs, *places] if p.kinds and not (p.camera or p.zone)), None)
            if thing is not None:
                subject = Subject(
                    kinds=thing.kinds, said=thing.said, colours=tuple(thing.colour_words), pattern=thing.pattern
                )
                place = replace(place, near=tuple(k for k in place.near if k not in thing.kinds))
        attached = any(p.attached for p in places)
        if (
            other is not None
            and intent in (Intent.ORDER, Intent.DURATION)
            and not other.place.named
            and (attached or cues.other_clause)
            and not ("place" in cues.refers and place.named)  # "... before the guy got there": there, too
        ):
            other = replace(other, place=Place(anywhere=True))  # the place says which one, or is in another clause
        if intent is Intent.DURATION and cues.unit in ("hours", "minutes", "seconds"):
            asks = cues.unit
        if event is Event.MOVED and place.zones:
            # "who moved the keys to the dishwasher at 7:57?": where it was put says which one and when, it does not
            # narrow where it is looked for
            subject = replace(subject, near=tuple(dict.fromkeys((*subject.near, *place.zones))))
            place = replace(place, zones=())
        negated = bool(head is not None and head.negative) or (cues.negated_aux and not cues.yes_no)
        is_named = bool(subject.kinds) or subject.entity_id is not None
        if intent is Intent.SUMMARY and is_named and time.start is not None and not time.moments and time.end is None:
            # "what happened to the keys after 9?": what they did from that moment, not a window of episodes
            time, order = replace(time, start=None, moments=(time.start,)), Order.AFTER
        elif (
            time.moments
            and time.start is None
            and not subject.near
            and (
                intent in (Intent.LIST, Intent.EXISTS, Intent.COUNT, Intent.WHICH_CAMERA)
                or (intent is Intent.SUMMARY and not is_named)
            )
        ):
            # "who was seen around midday?": what was there then; a rough time is half an hour, one to the second is
            # that second ("what was in the living room at 12:00:05?": what was in view then, not ten seconds around)
            moment = time.moments[0]
            second = _AT_THE_SECOND_S if intent is not Intent.SUMMARY else 10.0  # what went on: the seconds around
            span = second if time.to_second else 1800.0 if moment % 300 == 0 else 60.0
            time = replace(time, start=moment - span, end=min(moment + span, time.end or moment + span), moments=())
        return Query(
            intent,
            subject=subject,
            place=place,
            time=time,
            other=other,
            order=order,
            event=event,
            aggregate=aggregate,
            asks=asks,
            yes_no=cues.yes_no,
            negated=negated,
            alternatives=choices,
            alternative_of=alternative_of,
            compare=cues.compare if other is not None else "",
            unknown=tuple(dict.fromkeys(unknown)),
            unknown_places=tuple(dict.fromkeys(unknown_places)),
            unknown_verbs=tuple(dict.fromkeys(cues.unknown_verbs)),
            grounded=tuple(grounded),
            method=method,
            refers=tuple(dict.fromkeys(cues.refers)),
        )

    def _intent(self, question: str, r: _Reading) -> tuple[Intent, Order | None, Event, Aggregate | None, str, str]:
        """(intent, first or last, event, what a count counts, the field asked, how it was read)."""
        c = r.cues
        order = _order_said(r)
        events = c.events
        event = Event.SEEN
        if "moved" in events:
            event = Event.MOVED
        elif "appears" in events:
            event = (
                Event.ARRIVES_AT if (r.place.zones or r.place.near) and c.how in ("many", "often") else Event.APPEARS
            )
        elif "leaves" in events:
            event = Event.LEAVES
        aggregate = Aggregate(c.aggregate) if c.aggregate else None
        asks = c.field_word
        wh = c.wh
        two = r.other is not None and r.other.subject.named or len(r.alternatives) > 0
        method = "grammar"
        if c.habit and wh != "how" and not r.subject.near and not c.happen:
            return Intent.HABIT, order, event, aggregate, asks, method
        if wh == "how":
            if c.how in ("many", "much") and c.unit in ("hours", "minutes", "seconds", "time"):
                return Intent.DURATION, order, event, aggregate, asks, method  # "how many minutes", "how much time"
            if c.how in ("many", "much"):
                return Intent.COUNT, order, event, aggregate or Aggregate.THINGS, asks, method
            if c.how == "often":
                return Intent.COUNT, order, event, Aggregate.TIMES, asks, method
            if c.how == "long":
                if "ago" in tokenize(question):
                    return Intent.WHEN, order or Order.LAST, event, aggregate, asks, method
                return Intent.DURATION, order, event, aggregate, asks, method
            if c.how in ("big", "large", "small", "tall", "huge"):
                return Intent.ATTRIBUTE, order, event, aggregate, "size", method
        if asks and (wh in ("what", "which") or c.imperative or (c.yes_no and r.alternative_of == asks)):
            return Intent.ATTRIBUTE, order, event, aggregate, asks, method
        if c.camera_word and wh in ("which", "what", "how"):
            return Intent.WHICH_CAMERA, order, event, aggregate, asks, method
        if order in (Order.FIRST, Order.LAST) and two and (wh in ("", "which", "what", "who") or c.yes_no):
            return Intent.ORDER, order, event, aggregate, asks, method
        said_order = {s for _, s in c.order_words}
        if c.ordering and len(r.place.cameras) >= 2:
            return Intent.ORDER, Order.FIRST, event, aggregate, asks, method  # "in what order did the cameras see ..."
        if c.duration and (two or r.alternative_of == "camera") and c.compare:
            return Intent.DURATION, order, event, aggregate, asks, method  # "who stayed longer, A or B?"
        if two and said_order & {"before", "after"} and wh in ("", "which", "what", "who"):
            # "who turned up earlier, the baby or the person at the desk?"; "before or after the woman?"
            return Intent.ORDER, Order.FIRST if "before" in said_order else Order.LAST, event, aggregate, asks, method
        if c.compare and r.alternative_of == "camera" and len(r.choices) >= 2:  # "the kitchen or the bedroom: more?"
            return Intent.COUNT, order, event, aggregate or Aggregate.THINGS, asks, method
        if c.duration and c.yes_no:
            return Intent.DURATION, order, event, aggregate, asks, method  # "was the sofa there for long?"
        timed = (
            wh in ("what", "which")
            and order in (Order.FIRST, Order.LAST)
            and (
                event is not Event.SEEN or r.subject.generic  # "what was the very first thing the cameras caught?"
            )
        )
        if wh in ("what", "which", "") and r.alternative_of == "kind" and not c.listed:
            return Intent.EXISTS, order, event, aggregate, asks, method  # "which of these was never seen: A, B or C?"
        if c.company and not c.listed:
            return Intent.COMPANY, order, event, aggregate, asks or "person", method
        if wh == "when" or (wh == "what" and "time" in tokenize(question)[c.wh_at : c.wh_at + 2]) or timed:
            if order is None:
                order = Order.FIRST if event is Event.APPEARS else Order.LAST
            return Intent.WHEN, order, event, aggregate, asks, method
        if wh == "where":
            return Intent.WHERE, order, event, aggregate, asks, method
        if wh == "whose":
            return Intent.HABIT, order, event, aggregate, asks, method
        if r.people_wh:
            thing = (r.subject.kinds and r.subject.kinds != ("person",)) or r.subject.entity_id is not None
            if thing or r.place.near or r.subject.near or c.with_word:
                return Intent.COMPANY, order, event, aggregate, asks, method
            if c.happen:
                return Intent.SUMMARY, order, event, aggregate, asks, method
            return Intent.LIST, order, event, aggregate, asks, method
        if wh in ("what", "which"):
            if c.happen or (r.subject.named and not r.subject.generic and "do" in tokenize(question)):
                return Intent.SUMMARY, order, event, aggregate, asks, method
            if c.with_word or (r.subject.generic and r.place.near and not r.place.cameras):
                return Intent.COMPANY, order, event, aggregate, asks, method
            if two and r.order is not None:
                return Intent.ORDER, r.order, event, aggregate, asks, method
            return Intent.LIST, order, event, aggregate, asks, method
        if c.yes_no:
            if c.compare and r.other is not None:
                return Intent.COUNT, order, event, aggregate or Aggregate.THINGS, asks, method
            if r.order is not None and r.other is not None:
                return Intent.ORDER, r.order, event, aggregate, asks, method
            chosen = _chosen_by_alternatives(r, asks)
            if chosen is not None:
                return chosen[0], order, event, aggregate, chosen[1], method
            if c.happen and not (r.subject.kinds or r.subject.entity_id is not None):
                return Intent.SUMMARY, order, event, aggregate, asks, method
            return Intent.EXISTS, order, event, aggregate, asks, method
        if c.imperative:
            verb = c.imperative
            if verb in ("count",):
                return Intent.COUNT, order, event, aggregate or Aggregate.THINGS, asks, method
            if verb in ("find",):
                return Intent.WHERE, order, event, aggregate, asks, method
            if verb in ("list", "show", "name") and not c.happen:
                return Intent.LIST, order, event, aggregate, asks, method
            return Intent.SUMMARY, order, event, aggregate, asks, method
        if c.happen:
            return Intent.SUMMARY, order, event, aggregate, asks, method
        if c.fragment:
            return Intent.EXISTS, order, event, aggregate, asks, "fragment"  # the conversation's question applies
        chosen = _chosen_by_alternatives(r, asks) or ((Intent.ATTRIBUTE, asks) if asks else None)
        if chosen is not None:  # "the bowl, was it orange or red?", "the bowl - orange or red?", "car colour"
            return chosen[0], order, event, aggregate, chosen[1], method
        bare = _without_question_word(r, order, asks)
        if bare is not None:
            return bare, order, event, aggregate, asks, method
        if self.exemplars is not None:
            intent, _ = self.exemplars.nearest(question)
            return intent, order, event, aggregate, asks, "similarity"
        if r.subject.named or r.place.named:
            return Intent.EXISTS, order, event, aggregate, asks, "fragment"
        return Intent.SUMMARY, order, event, aggregate, asks, "fragment"


def _order_said(r: _Reading) -> Order | None:
    """First or last (or after) as the question's words say: "the last one", "still there now", "in which order"."""
    c = r.cues
    said = next((Order.FIRST if w == "first" else Order.LAST for _, w in c.order_words if w in ("first", "last")), None)
    if said is None and c.now:
        return Order.LAST
    if said is None and c.ordering:
        return Order.FIRST  # "in which order did the rooms have somebody in them?": by when each first did
    if said is None and any(w in ("before", "after") for _, w in c.order_words) and r.other is None:
        return Order.AFTER if any(w == "after" for _, w in c.order_words) else None
    return said


def _without_question_word(r: _Reading, order: Order | None, asks: str) -> Intent | None:
    """What a question without a question word asks, where its words say: "last thing seen in the kitchen" which
    thing was last and when; "after 11?", "between 8 and 9 pm" (a time alone) what was seen then."""
    c = r.cues
    if c.wh or c.how or asks:
        return None
    if order in (Order.FIRST, Order.LAST) and r.subject.said:
        return Intent.WHEN
    return Intent.LIST if c.timed and not r.subject.said and not c.events else None


#: Nouns of how long something lasted, said without "how long": "total duration the car was in view", "length of the
#: baby's stay", "its time in view".
_DURATION_NOUNS = (("duration",), ("time", "in", "view"), ("stay",))


def _says_duration(tokens: Sequence[str]) -> bool:
    return any(list(n) == list(tokens[i : i + len(n)]) for i in range(len(tokens)) for n in _DURATION_NOUNS)


def _clause_events(query: Query, tokens: Sequence[str]) -> Query:
    """ "did anyone come after the van left?", "was the car there before the woman arrived?": each side of an order
    its own event where the clauses around "before" / "after" say different ones (coming, leaving, or being seen); so
    has what happened after the other side's moment ("what showed up after the woman left?")."""
    if query.intent not in (Intent.ORDER, Intent.SUMMARY, Intent.DURATION) or query.other is None:
        return query
    at = next((i for i, t in enumerate(tokens) if t in ("before", "after", "until", "since", "between")), None)
    if at is None:
        return query

    def event(words: Sequence[str], before: Sequence[str]) -> str | None:
        said = [
            EVENT_VERBS[w]
            for j, w in enumerate(words)
            if EVENT_VERBS.get(w) in ("appears", "leaves")
            and not (w == "left" and (before[j : j + 1] or [""])[0] in _SIDE)
        ]
        return said[0] if said else None

    # "right after the woman left the kitchen, what showed up?", "how long after the truck came did the car leave?":
    # the clause put first is the other side's, up to a comma or the asking verb
    fronted = not set(tokens[:at]) & (AUX | set(EVENT_VERBS))
    comma = next((i for i in range(at + 1, len(tokens)) if tokens[i] == "," or tokens[i] in AUX), None)
    joined = next((i for i in range(at + 1, len(tokens)) if tokens[i] == "and"), None)
    if tokens[at] == "between" and joined is not None:  # "between the person leaving and the bowl showing up"
        mine = event(tokens[at + 1 : joined], tokens[at:joined])
        theirs = event(tokens[joined + 1 :], tokens[joined : len(tokens) - 1])
        said = query.event.value if query.event in (Event.APPEARS, Event.LEAVES) else None  # "showing up"
        mine, theirs = (mine or (said if said != theirs else None)), (theirs or (said if said != mine else None))
    elif comma is not None and fronted and (tokens[comma] == "," or not set(tokens[:at]) - WH - {"long", "much"}):
        mine = event(tokens[comma + 1 :], tokens[comma : len(tokens) - 1])
        theirs = event(tokens[at + 1 : comma], tokens[at : comma - 1])
    else:
        mine = event(tokens[:at], ["", *tokens[: at - 1]])
        theirs = event(tokens[at + 1 :], tokens[at : len(tokens) - 1])
    if theirs is None or theirs == mine:
        return query
    own = Event(mine) if mine else Event.SEEN
    return replace(query, event=own, other=replace(query.other, event=Event(theirs)))


#: Words before "left" that make it a side of the view, not leaving: "the person on the left".
_SIDE = frozenset({"the", "on", "to", "at", "far", "top", "bottom", "upper", "lower"})


def _chosen_by_alternatives(r: _Reading, asks: str) -> tuple[Intent, str] | None:
    """(intent, field asked) that "A or B" says is asked when the alternatives are values of a field ("orange or
    red": the colour), cameras (which camera) or parts of the view (where); None when they are things or none."""
    if r.alternative_of in ("colour", "pattern", "motion", "size"):
        return Intent.ATTRIBUTE, r.alternative_of
    if r.alternative_of == "camera":
        return Intent.WHICH_CAMERA, asks
    if r.alternative_of == "region":
        return Intent.WHERE, asks
    return None


@dataclass
class _Reading:
    """What :meth:`Reader._intent` decides from."""

    cues: _Cues
    subject: Subject
    head: _Phrase | None
    place: Place
    other: Side | None
    order: Order | None
    alternative_of: str
    choices: tuple[str, ...]
    alternatives: list[_Phrase]
    values: list[tuple[str, str]]
    people_wh: bool
