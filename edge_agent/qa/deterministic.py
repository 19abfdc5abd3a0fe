"""The deterministic controller, for models too small to plan (ReflectWorld-MM's QA agent, GEB's read path
without an LLM): the question is read into the typed grammar (:mod:`edge_agent.language`), its constraints
become one scope (:mod:`edge_agent.qa.scope`), the handler of its intent (:mod:`edge_agent.qa.handlers`)
returns a typed finding and one renderer words it (:mod:`edge_agent.qa.render`). One hybrid search with PPR
ranks which thing a question means and is shown as context. What the reader cannot ground is said, with the
answer under the closest reading; a search dump is never the answer. A multiple choice is picked by the
finding's typed value (yes / no, a count, a moment, a duration, a word), else by text similarity."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Protocol

import numpy as np

from edge_agent.clock import find_times
from edge_agent.language.grammar import Intent, Query, Subject, Time
from edge_agent.language.lexicon import COLOUR_WORDS, Lexicon, tokenize
from edge_agent.language.reader import Reader, one_of_people
from edge_agent.language.times import read_times
from edge_agent.memory import Observation, Store, queries
from edge_agent.memory.textindex import STOPWORDS
from edge_agent.perception.text import TextEmbedder
from edge_agent.perception.vocabulary import COLOUR_NAMES
from edge_agent.qa.findings import CANNOT_TELL, Exists, Finding, NotSeen, Ranked, Seconds, Unreadable, YesNo
from edge_agent.qa.findings import Order as OrderFinding
from edge_agent.qa.handlers import Context, handle
from edge_agent.qa.question import MAX_QUESTION_CHARS, bounded
from edge_agent.qa.render import cite, finding_json, render
from edge_agent.qa.scope import View
from edge_agent.retrieval import Evidence, RetrievalConfig, Retriever
from edge_agent.retrieval import render as render_context

if TYPE_CHECKING:  # an image-text model is optional, and its module imports OpenCV
    from edge_agent.perception.imagetext import ImageTextEmbedder

__all__ = ["Answer", "Controller", "DeterministicController", "cite"]

#: Words a choice may use for a described value.
_SAID_AS = {
    "still": ("still", "parked", "stationary", "standing", "not moving", "stayed"),
    "moving": ("moving", "walking", "driving", "in motion", "moved"),
    "grey": ("grey", "gray", "silver"),
    "dark grey": ("dark grey", "dark gray", "charcoal"),
    "together": ("together", "same time", "same moment", "at once", "simultaneously"),
    CANNOT_TELL: (
        "can't tell",
        "cannot tell",
        "can not tell",
        "can't say",
        "cannot say",
        "don't know",
        "do not know",
        "no way to know",
        "not known",
        "unknown",
        "not sure",
        "impossible to say",
        "can't know",
    ),
}
#: Kinds the "I don't know" answer offers at most.
_KNOWN_SHOWN = 12


class Controller(Protocol):
    """What answers a question from memory: the deterministic controller, or a model's search rounds."""

    store: Store  #: the memory it answers from

    @property
    def retriever(self) -> Retriever:
        """The retrieval its searches go through."""
        ...

    def query(self, question: str, as_of: float | None = None) -> Query:
        """The question read into the grammar (nothing answered)."""
        ...

    def ask(
        self,
        question: str,
        *,
        as_of: float | None = None,
        choices: Sequence[str] = (),
        query: Query | None = None,
        context: bool = True,
    ) -> Answer:
        """The answer; ``context``: it carries the search's context (False: only where the answer is read from it)."""
        ...


@dataclass
class Answer:
    text: str
    choice: str | None
    choice_index: int | None
    evidence: list[dict[str, object]]  #: cited records: entity, observation, clip times
    tool: str  #: which handler answered (the intent), or unreadable
    rounds: int
    context: str
    timings_ms: dict[str, float] = field(default_factory=dict)
    video_fallbacks: int = 0
    seen: list[int] = field(default_factory=list)  #: every observation put in front of the reader (context and tools)
    query: dict[str, object] = field(default_factory=dict)  #: the typed query the question was read as
    finding: dict[str, object] = field(default_factory=dict)  #: the typed finding the answer renders


#: Pronouns of a thing that point back: asked on their own, they point at nothing.
_POINTING = frozenset({"it", "its", "they", "them", "this", "that", "those", "these"})
#: Subjects that name nothing in particular: "still there?", "who was there?" ask of a place that must be said
_ANYONE_THERE = frozenset({"", "who", "anyone", "anybody", "someone", "somebody", "anything", "something", "thing"})

_RANGE = re.compile(
    r"(\d+)\s*(?:-|to|–)\s*(\d+)|(?:more than|over|at least|>=?)\s*(\d+)|(?:fewer than|less than|under|<)\s*(\d+)|(\d+)"
)
_DURATION = re.compile(
    r"(?P<cmp>under|less than|below|within|over|more than|above|at least|about|around|roughly|nearly|almost)?\s*"
    r"(?P<n>\d+(?:\.\d+)?|a few|a couple of|an?|one|two|three|five|ten|twenty|thirty|half an?)\s*"
    r"(?P<unit>seconds?|secs?|s\b|minutes?|mins?|m(?=\d|\b)|hours?|hrs?|h(?=\d|\b)|days?)",  # "1m19s", "2h"
    re.I,
)
_AMOUNTS = {"a": 1.0, "an": 1.0, "one": 1.0, "two": 2.0, "three": 3.0, "five": 5.0, "ten": 10.0, "twenty": 20.0}
_AMOUNTS |= {"thirty": 30.0, "a few": 3.0, "a couple of": 2.0, "half a": 0.5, "half an": 0.5}


def _duration_range(choice: str, unit: str = "") -> tuple[float, float] | None:
    """The span of seconds a choice names: "under 10 seconds" [0, 10), "about a minute" [30, 120], "over an hour";
    a bare number ("about four") in ``unit``, the one the question counted in."""
    found = list(_DURATION.finditer(choice))
    if not found and unit:
        found = list(_DURATION.finditer(_digits(choice) + f" {unit}"))
    if not found:
        return (0.0, 2.0) if _MOMENT.search(choice) else None  # "just a moment", "a split second"
    m = found[0]
    amount = m.group("n").lower()
    joined = choice[found[0].end() : found[1].start()].strip().lower() if len(found) > 1 else ""
    if len(found) == 2 and (joined in ("to", "-", "–", "or") or "between" in choice.lower()):
        return _seconds_of(found[0]), _seconds_of(found[1])  # "between 10 seconds and a minute"
    s = sum(_seconds_of(d) for d in found)  # "about 1 min 19 s", "a minute and 20 seconds": 79, 80
    cmp = (m.group("cmp") or "").lower()
    if len(found) > 1 and cmp not in _BOUNDS:  # said to the second: near it
        return s * 0.8, s * 1.25
    if cmp in ("under", "less than", "below", "within"):
        return 0.0, s
    if cmp in ("over", "more than", "above", "at least"):
        return s, float("inf")
    if amount in ("a few", "a couple of"):
        return s / 3, s * 3
    return s / 2, s * 2


#: A choice that says the length of a moment: "just a moment, one sighting", "a split second", "an instant".
_MOMENT = re.compile(r"\b(a moment|an instant|a split second|a blink|momentar\w*|a flash|only briefly)\b", re.I)


def _seconds_of(m: re.Match[str]) -> float:
    """The seconds one length a choice says names ("20 seconds", "a minute", "2 h")."""
    amount = m.group("n").lower()
    n = float(amount) if amount[:1].isdigit() else _AMOUNTS.get(amount, 1.0)
    unit = m.group("unit").lower()
    scale = 86400.0 if unit.startswith("d") else 3600.0 if unit.startswith("h") else 60.0 if unit.startswith("m") else 1
    return n * scale


#: Words that bound a length from one side: "under 10 seconds", "over an hour".
_BOUNDS = frozenset({"under", "less than", "below", "within", "over", "more than", "above", "at least"})


def _duration_choice(seconds: float, choices: Sequence[str], unit: str = "") -> tuple[str | None, int | None]:
    """The choice whose span holds the duration, else the nearest by ratio."""
    ranges = [(i, _duration_range(c, unit)) for i, c in enumerate(choices)]
    holding = [(i, r) for i, r in ranges if r is not None and r[0] <= seconds <= r[1]]
    if len(holding) > 1:  # the tightest
        holding.sort(key=lambda x: x[1][1] - x[1][0])
    if holding:
        return choices[holding[0][0]], holding[0][0]

    def distance(r: tuple[float, float]) -> float:
        low, high = max(r[0], 0.5), max(r[1], 0.5)
        s = max(seconds, 0.5)
        return float(min(abs(np.log(s / low)), abs(np.log(s / high)) if np.isfinite(high) else np.inf))

    near = sorted((distance(r), i) for i, r in ranges if r is not None)
    return (choices[near[0][1]], near[0][1]) if near else (None, None)


_NUMBER_WORDS = {
    "zero": 0, "once": 1, "one": 1, "twice": 2, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30,
    "single": 1, "a dozen": 12,
}  # fmt: skip
_NUMBER = re.compile(r"\b(" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + r")\b", re.I)
#: A choice that says no (or that none was there), anywhere in it: "right, no cat was seen", "nobody".
_NEGATIVE = re.compile(
    r"\b(no|not|never|none|nobody|nothing|neither|nowhere|empty|without|unknown|cannot|\w+n't)(?![\w'])", re.I
)
_CLOCK = re.compile(
    r"\b(noon|midday|midnight|(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\b|(\d{1,2}):(\d{2})(?::(\d{2}))?)", re.I
)


def _digits(choice: str) -> str:
    """Number words as digits: "once" -> "1", "more than ten" -> "more than 10"."""
    return _NUMBER.sub(lambda m: str(_NUMBER_WORDS[m.group(1).lower()]), choice)


def _clock_seconds(choice: str) -> list[float]:
    """Seconds into the day of the clock times a choice names ("around 1 pm", "noon", "11:30")."""
    out = []
    for m in _CLOCK.finditer(choice):
        word, hour, minute, half, hour24, minute24, second24 = m.groups()
        if word.lower() in ("noon", "midday"):
            out.append(12 * 3600.0)
        elif word.lower() == "midnight":
            out.append(0.0)
        elif hour is not None:
            h = int(hour) % 12 + (12 if half.lower() == "p" else 0)
            out.append(h * 3600.0 + int(minute or 0) * 60)
        else:
            out.append(int(hour24) * 3600.0 + int(minute24) * 60 + int(second24 or 0))  # "12:00:03" to the second
    return out


def _said_time_off(moment: float, choice: str) -> float | None:
    """How far ``moment`` is from the time a choice says, read as a question's time is (relative to the moment
    itself: "nine" is that morning's, "in the evening" the evening before one at 11 am): 0 inside a window it names
    but a minute's worth less exact than a moment; None where it names none."""
    time_said = read_times(tokenize(choice), moment).time
    if time_said.moments:
        return min(abs(m - moment) for m in time_said.moments)
    start, end = time_said.start, time_said.end
    if start is None and end is None:
        return None
    below = (start - moment) if start is not None and moment < start else 0.0
    above = (moment - end) if end is not None and moment >= end else 0.0
    return max(below, above) or 60.0


_LEAD_YES = re.compile(r"^\s*(yes|yeah|yep|yup|right|correct|true|indeed|sure)\b", re.I)
_LEAD_NO = re.compile(r"^\s*(no|nope|nah|wrong|false|not really|not true|not so|not quite|incorrect)\b", re.I)


def _yes_no_pool(holds: bool, fact: bool, choices: Sequence[str]) -> list[int]:
    """The choices a yes / no answer leaves: those led by yes / no answer the question as asked (``holds``); others
    are statements, picked by whether they say the fact or its absence ("someone did" / "right, nobody")."""
    led = [i for i, c in enumerate(choices) if _LEAD_YES.search(c) or _LEAD_NO.search(c)]
    if led:
        pattern = _LEAD_YES if holds else _LEAD_NO
        hits = [i for i in led if pattern.search(choices[i])]
        if hits:
            return hits
    return [i for i, c in enumerate(choices) if bool(_NEGATIVE.search(c)) != fact]


_MANY_WORDS = re.compile(r"\b(crowd|crowds|several|many|lots|plenty|group|groups|dozens|loads)\b", re.I)
_ONE_WORDS = re.compile(r"^\s*(?:yes,?\s*|no,?\s*)?(a|an|one|single|lone|just one|only one)\b", re.I)


def _says_quantity(choice: str, n: int | None) -> bool:
    """Whether a choice can be about ``n`` things (True when either says no number): "two grown-ups" is not about
    one person, "a crowd of people" not about one."""
    if n is None:
        return True
    numbers = [int(x) for x in re.findall(r"(?<![\d:.-])\b\d{1,3}\b(?![:.-]?\d)", _digits(choice))]  # not times
    if numbers:
        return n in numbers or any(x >= n for x in numbers if "more than" in choice or "at least" in choice)
    if _MANY_WORDS.search(choice):
        return n >= 3
    if _ONE_WORDS.search(choice) and not re.search(r",|\band\b", choice):  # "a small child", not "a tv and a cup"
        return n == 1
    return True


def _pool(typed: object, choices: Sequence[str]) -> list[int]:
    """The choices a typed answer leaves possible when it picks none alone (all of them when it says nothing)."""
    if isinstance(typed, YesNo):
        return _yes_no_pool(typed.holds, typed.fact, choices) or list(range(len(choices)))
    if isinstance(typed, bool):
        return _yes_no_pool(typed, typed, choices) or list(range(len(choices)))
    return list(range(len(choices)))


def _unseen(finding: Finding) -> NotSeen | Exists | None:
    """The finding, where it says that nothing was seen (which a window nothing was recorded in says of itself)."""
    if isinstance(finding, NotSeen) or isinstance(finding, Exists) and not finding.seen:
        return finding
    return None


def _typed_choice(typed: object, choices: Sequence[str]) -> tuple[str | None, int | None]:
    """The choice a typed answer picks: yes / no for a bool, the choice whose number or range holds a count, the
    choice naming the nearest moment, the one whose span holds a duration, the one naming a value."""
    if not choices or typed is None:
        return None, None
    if isinstance(typed, (YesNo, bool)):
        hits = _pool(typed, choices)
        return (choices[hits[0]], hits[0]) if len(hits) == 1 else (None, None)
    if isinstance(typed, Ranked):  # things in order: the choice naming them in that order, else the first

        def plain(text: str) -> str:  # a camera "living-room" is the "living room" a choice says
            return text.lower().replace("-", " ").replace("_", " ")

        for i, c in enumerate(choices):
            at = [plain(c).find(plain(label)) for label in typed]
            if all(a >= 0 for a in at) and at == sorted(at) and len(at) > 1:
                return c, i
        return _typed_choice(typed[0], choices) if typed else (None, None)
    if isinstance(typed, Seconds):
        return _duration_choice(float(typed), choices, typed.unit)
    if isinstance(typed, int):
        if typed == 0:
            hits = [
                i for i, c in enumerate(choices) if re.fullmatch(r"\s*(none|no|zero|nothing|nobody|0)\b.*", c, re.I)
            ]
            if len(hits) == 1:
                return choices[hits[0]], hits[0]
        for i, c in enumerate(choices):
            m = _RANGE.search(_digits(c))
            if m is None:
                continue
            low, high, above, below, exact = m.groups()
            if (
                (low is not None and int(low) <= typed <= int(high))
                or (above is not None and typed > int(above) - ("at least" in c or ">=" in c))
                or (below is not None and typed < int(below))
                or (exact is not None and typed == int(exact))
            ):
                return c, i
        return None, None
    if isinstance(typed, float):  # a time: the choice that names the nearest one
        named = [(i, min((abs(m.t - typed) for m in find_times(c)), default=None)) for i, c in enumerate(choices)]
        if all(d is None for _, d in named):  # clock words only ("around 1 pm"): the time of day
            day = typed % 86400
            named = [(i, min((abs(t - day) for t in _clock_seconds(c)), default=None)) for i, c in enumerate(choices)]
            # and as the reader reads times ("just after nine", "at 10 in the morning", "in the evening", "yesterday")
            said = [(i, _said_time_off(typed, c)) for i, c in enumerate(choices)]
            named = [(i, d if d is not None else other) for (i, d), (_, other) in zip(named, said)]
        near = sorted((d, i) for i, d in named if d is not None)
        if near and (len(near) == 1 or near[1][0] - near[0][0] >= 1.0):  # times are written to the second
            return choices[near[0][1]], near[0][1]
        return None, None
    if isinstance(typed, str):  # a camera, a kind, or a described value (a colour, a motion, ...)
        hits = naming(typed, choices)
        return (choices[hits[0]], hits[0]) if len(hits) == 1 else (None, None)
    return None, None


def naming(typed: str, choices: Sequence[str]) -> list[int]:
    """The choices that name a value the answer found (a camera, a kind, a colour, a winner), but those that say it
    was not there ("never saw a bowl" names the bowl too)."""
    words = _SAID_AS.get(typed.lower(), (typed.lower(),))
    spaced = [w.replace("-", " ") for w in words]
    lowered = [c.lower().replace("-", " ") for c in choices]
    hits = [i for i, c in enumerate(lowered) if any(re.search(rf"\b{re.escape(w)}\b", c) for w in spaced)]
    if not hits:  # "right side" for the choice "the right": a word of it that one choice alone says
        for word in (w for phrase in spaced for w in phrase.split() if w not in STOPWORDS | {"side", "camera"}):
            hits = [i for i, c in enumerate(lowered) if re.search(rf"\b{re.escape(word)}\b", c)]
            said = [i for i in hits if not _NEGATIVE.search(choices[i])]
            if len(said) == 1 or len(hits) == 1:
                break
    if not hits and typed.lower() in COLOUR_NAMES:  # "teal" is what a choice says "light blue" or "turquoise"
        hits = [i for i, c in enumerate(lowered) if typed.lower() in _colours_said(c)]
    if typed == CANNOT_TELL:  # ("can't tell - the cameras last saw it at 11" says it is not known, not no)
        return hits
    return [i for i in hits if not _NEGATIVE.search(_ANSWER_LEAD.sub("", choices[i]))]  # ("no, the person ...")


def _colours_said(text: str) -> set[str]:
    """The describer's colour names the colour words of a text cover, the longest word first ("light blue" is not
    also "blue")."""
    covered: set[str] = set()
    for word in sorted(COLOUR_WORDS, key=len, reverse=True):
        if re.search(rf"\b{re.escape(word)}\b", text):
            covered.update(COLOUR_WORDS[word])
            text = re.sub(rf"\b{re.escape(word)}\b", " ", text)
    return covered


#: Words for a camera a choice may say ("the living-room cam"), which name nothing an answer must repeat.
_CAMERA_WORDS = frozenset({"cam", "cams", "camera", "cameras"})


def _said_choices(text: str, choices: Sequence[str], allowed: set[int]) -> list[int]:
    """The most specific of the choices (of ``allowed``) whose every content word the answer says."""
    said = set(re.findall(r"[a-z0-9]+", text.lower()))
    content = [set(re.findall(r"[a-z0-9]+", c.lower().replace("-", " "))) - STOPWORDS - _CAMERA_WORDS for c in choices]
    named = [i for i, words in enumerate(content) if words and words <= said and i in allowed]
    most = max((len(content[i]) for i in named), default=0)
    return [i for i in named if len(content[i]) == most]


#: A yes or no leading a choice, set off from what it goes on to say: "no, person came ~3 secs before".
_ANSWER_LEAD = re.compile(r"^\s*(yes|yeah|yep|no|nope|nah)\s*[,:;\u2013-]\s*", re.I)


def _named_by(finding: Finding, choices: Sequence[str]) -> list[int]:
    """The choices naming what the finding found, where its typed value picks none alone: its typed value, the winner
    of an order ("bedroom first, about an hour earlier")."""
    said: list[str] = []
    if isinstance(finding.typed, str):
        said.append(finding.typed)
    if isinstance(finding, OrderFinding) and finding.a_first is not None and not finding.together:
        said.append(finding.a if finding.a_first else finding.b)
    for words in said:
        hits = naming(words, choices)
        if 0 < len(hits) < len(choices):
            return hits
    return []


#: How far around a moment said to the second ("what was going on at 9:00:30?") an answer looks, in seconds.
_AROUND_A_SECOND = 10.0


class _Search:
    """The hybrid search of one question, run the first time it is called (a handler that ranks by it, or an answer
    that carries its context), then kept: ``evidence`` is None until then."""

    def __init__(self, run: Callable[[], Evidence]) -> None:
        self._run = run
        self.evidence: Evidence | None = None

    def __call__(self) -> Evidence:
        if self.evidence is None:
            self.evidence = self._run()
        return self.evidence


class DeterministicController:
    """``timezone``: the user's (IANA name), for the times a question names."""

    def __init__(
        self,
        store: Store,
        embedder: TextEmbedder,
        config: RetrievalConfig | None = None,
        image_text: ImageTextEmbedder | None = None,
        *,
        timezone: str = "UTC",
        max_question_chars: int = MAX_QUESTION_CHARS,
        moving_cameras: Sequence[str] = (),
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.timezone = timezone
        self.moving_cameras = tuple(moving_cameras)  #: [tracker] moving_cameras: worn cameras, by name or pattern
        self.max_question_chars = max_question_chars  #: longer questions are refused (edge_agent.qa.question)
        self.retriever = Retriever(store, embedder, config, image_text=image_text)
        self._known: tuple[tuple[int, int], dict[str, int], list[str], list[str], list[str]] | None = None
        self._reader: tuple[tuple[int, int], Reader] | None = None

    def known(self) -> tuple[dict[str, int], list[str], list[str], list[str]]:
        """(names -> entity ids, cameras, categories, named places) memory holds, read again only after memory
        changed."""
        db = self.store
        version = (db.data_version(), db.generation)
        if self._known is None or self._known[0] != version:
            self._known = (
                version,
                queries.named_entities(db),
                queries.cameras(db),
                queries.entity_categories(db),
                queries.zones(db),
            )
        return self._known[1:]

    def reader(self) -> Reader:
        """The reader with memory's lexicon (made again after memory changed)."""
        names, cameras, categories, zones = self.known()
        version = self._known[0] if self._known is not None else (0, 0)
        if self._reader is None or self._reader[0] != version:
            index = self.store.home / "index"  # the kind words' vectors and the English words, for the next process
            lexicon = Lexicon(
                names=names, cameras=cameras, categories=categories, zones=zones, dictionary=index / "english-words.npz"
            )
            self._reader = (version, Reader(lexicon, embedder=self.embedder, cache=index / "kind-words.npz"))
        return self._reader[1]

    def reference(self, as_of: float | None) -> float:
        """What relative times ("today", "in the last hour") are read against: the as-of, else the end of what memory
        recorded (a live camera's now), else now."""
        if as_of is not None:
            return as_of
        end = queries.last_clip_end(self.store)
        return end if end is not None else time.time()

    def query(self, question: str, as_of: float | None = None) -> Query:
        """The question as a typed query, read with the names, cameras, kinds and places memory knows."""
        bounded(question, self.max_question_chars)
        return self.reader().read(question, reference=self.reference(as_of), zone=self.timezone, as_of=as_of)

    def ask(
        self,
        question: str,
        *,
        as_of: float | None = None,
        choices: Sequence[str] = (),
        query: Query | None = None,
        context: bool = True,
    ) -> Answer:
        """Times written in the question count: a window or a bound narrows what is used (as ``as_of`` does), a
        moment joins the search. ``query``: the question already read (by a model, or a conversation); else the
        reader reads it. ``context``: the answer carries the search's context (what a reader model would be shown;
        its observations join ``seen``); without it, the search runs only where the handler ranks by it, and the
        answer is the same."""
        bounded(question, self.max_question_chars)
        parts = self.reader().parts(question) if query is None else ()
        if len(parts) == 2:  # "when did the truck arrive and when did it leave?": each, the second as a follow-up
            return self._both_parts(parts, as_of, choices)
        started = time.perf_counter()
        alone = query is None  # asked on its own: a pronoun has nothing before it to point at
        query = self._one_of_people(query or self.query(question, as_of))
        query = replace(query, time=query.time.bounded(as_of))
        bound = query.time
        search = _Search(lambda: self.retriever.retrieve(question, as_of=as_of, until=bound.end, around=bound.moments))
        s = query.subject
        unpointed = alone and "subject" in query.refers and not s.kinds and s.entity_id is None and s.said in _POINTING
        unpointed = unpointed and not query.place.named  # ("who sat at the desk and what did they have with them?")
        listed = query.intent is Intent.LIST and s.said in ("person", "people")  # "who was there?"
        anyone = s.entity_id is None and not s.described and (s.said in _ANYONE_THERE or listed)  # not "the kid"
        there = alone and query.refers == ("place",) and anyone and not query.place.named  # "still there?"
        if there and not query.time.named and query.other is None and query.intent is not Intent.COUNT:
            finding: Finding = Unreadable((), words=("there",), pointing=True)
        else:
            finding = Unreadable((), words=(s.said,), pointing=True) if unpointed else self.find(query, search)
        said = render(finding)
        text = said
        if query.grounded:  # a word read by similarity: say so ("taxicab" as taxi)
            text = "(Reading " + ", ".join(f"'{w}' as {kind}" for w, kind in query.grounded) + ".) " + text
        choice, index = _typed_choice(finding.typed, choices)
        if index is None and query.intent is Intent.WHERE and finding.evidence:  # "kitchen or bedroom: where ...?"
            choice, index = _typed_choice(finding.evidence[-1].camera, choices)
        if index is None:  # by what the answer says (not how the question was read), among those it names
            pool = [i for i in _pool(finding.typed, choices) if _says_quantity(choices[i], finding.quantity)]
            named = [i for i in _named_by(finding, choices) if i in (pool or range(len(choices)))]
            choice, index = self._nearest_choice(said, choices, named or pool or _pool(finding.typed, choices))
        evidence = search() if context else search.evidence
        biographies = self.retriever.config.biography_text
        shown = (
            render_context(self.store, evidence, biographies=biographies) if context and evidence is not None else ""
        )
        timings = {} if evidence is None else dict(evidence.timings_ms)
        timings["total"] = (time.perf_counter() - started) * 1000
        cited = [cite(o) for o in finding.evidence]
        seen = sorted(set(() if evidence is None else evidence.observation_ids) | {o.id for o in finding.evidence})
        tool = "unreadable" if isinstance(finding, Unreadable) else query.intent.value
        return Answer(
            text,
            choice,
            index,
            cited,
            tool,
            1,
            shown,
            timings,
            seen=seen,
            query=query.as_dict(),
            finding=finding_json(finding),
        )

    def _one_of_people(self, query: Query) -> Query:
        """ "How long was the baby on camera?": which person a word like "baby" is memory cannot tell, so it lists the
        people seen (:func:`one_of_people`); where it saw one person only, in the question's scope, it is them, and
        the question is answered of them (saying how "baby" was read)."""
        listed = one_of_people(query)
        if listed is query:
            return query
        people = View.of(self.store, query.sides()[0]).sightings(Subject(kinds=("person",)), limit=2)
        return replace(query, grounded=listed.grounded) if len(people) == 1 else listed

    def _both_parts(self, parts: Sequence[str], as_of: float | None, choices: Sequence[str]) -> Answer:
        """The answer to a question asked as two: each part answered in turn as a conversation would (the second's
        "it" or "they" is what the first was about), the texts joined; the first part picks among ``choices``."""
        from edge_agent.qa.conversation import Conversation

        chat = Conversation(self)
        first = chat.ask(parts[0], as_of=as_of)
        second = chat.ask(parts[1], as_of=as_of)
        picked = self.ask(parts[0], as_of=as_of, choices=choices, query=chat.asked[0]) if choices else first
        both = _said_choices(f"{first.text} {second.text}", choices, set(range(len(choices))))
        if len(both) == 1 and both[0] != picked.choice_index:  # "which camera saw a tv, and where?": both parts say it
            picked = replace(picked, choice=choices[both[0]], choice_index=both[0])
        return replace(
            picked,
            text=f"{first.text} {second.text}",
            evidence=[*first.evidence, *second.evidence],
            seen=sorted({*first.seen, *second.seen}),
            query={"parts": [first.query, second.query]},
            finding={"parts": [first.finding, second.finding]},
        )

    def find(self, query: Query, search: Callable[[], Evidence]) -> Finding:
        """The finding of a query: what cannot be read is said (with the answer under the closest reading), the
        constraints made views, the intent's handler run (``search`` gives the search's evidence, where it ranks by
        it), and every observation it cites checked against them."""
        mine, theirs = query.sides()
        views = [View.of(self.store, mine)]
        if theirs is not None:
            views.append(View.of(self.store, theirs))
        context = Context(
            self.store,
            views[0],
            views[1] if len(views) > 1 else None,
            search,
            _AROUND_A_SECOND if query.time.to_second else self.retriever.config.around_seconds,
            query.time.moments,
            self.moving_cameras,
        )
        subject = query.subject
        if query.unknown_cameras:  # "footage from the garage camera": there is none
            return Unreadable(words=query.unknown_cameras, cameras=True, known=tuple(self.known()[1]))
        unknown_subject = bool(query.unknown) and not (
            subject.kinds or subject.entity_id is not None or subject.generic
        )
        if unknown_subject:
            value: object = {Intent.EXISTS: query.negated, Intent.COUNT: 0}.get(query.intent, False)
            return Unreadable(
                words=query.unknown,
                known=tuple(self._kinds_known()),
                answer=NotSeen(what=query.unknown[0], value=value),
            )
        listed = query.intent is Intent.LIST and not subject.said  # "desk cam?": what it saw
        if not subject.named and (query.intent not in (Intent.SUMMARY, Intent.LIST, Intent.HABIT) or listed):
            query = replace(query, subject=replace(subject, generic=True, said=subject.said or "thing"))
        finding = handle(query, context)
        unseen = _unseen(finding)
        if unseen is not None and (query.time.start is not None or query.time.end is not None):
            if not queries.recorded_between(self.store, query.time.start, query.time.end, query.place.cameras):
                finding = replace(unseen, unrecorded=True)  # "before 9 am?": nothing recorded then to see it in
                if query.time.said == ("now",):  # "anyone home right now?": nor now; when one was last seen, said
                    finding = replace(finding, last_before=self._last_before(query, query.time.start))
        scopes = [v.scope for v in views]
        finding = replace(finding, evidence=tuple(o for o in finding.evidence if any(s.holds(o) for s in scopes)))
        if query.unknown_places:
            _, cameras, _, zones = self.known()
            return Unreadable(words=query.unknown_places, places=True, known=tuple([*cameras, *zones]), answer=finding)
        if query.unrecorded:
            return Unreadable(unrecorded=query.unrecorded, answer=finding)
        if query.unknown_verbs and query.intent is Intent.EXISTS:
            return Unreadable(words=query.unknown_verbs, verbs=True, answer=finding)
        return finding

    def _last_before(self, query: Query, moment: float | None) -> tuple[Observation, str] | None:
        """The last observation of what ``query`` asks about before ``moment`` (on its cameras), with its label."""
        mine = query.sides()[0]
        view = View.of(self.store, replace(mine, time=Time(end=moment)))
        subject = query.subject if query.subject.named else replace(query.subject, generic=True)
        seen = view.sightings(subject, limit=1)
        history = view.history(seen[0].entity_id) if seen else []
        return (history[-1], f"{seen[0].category} #{seen[0].entity_id}") if history else None

    def _kinds_known(self) -> list[str]:
        """The kinds memory holds (most seen first would cost a scan: by name), for "I know ..."."""
        _, _, categories, _ = self.known()
        return sorted(categories)[:_KNOWN_SHOWN]

    def _nearest_choice(
        self, text: str, choices: Sequence[str], among: Sequence[int] | None = None
    ) -> tuple[str | None, int | None]:
        """The choice nearest the open answer (of ``among``, those the typed answer left): the same number when the
        choices are numbers and the answer leads with one, else by text similarity."""
        if not choices:
            return None, None
        allowed = set(among) if among is not None else set(range(len(choices)))
        leading = re.match(r"\s*(\d+)\b", text)
        if leading and all(c.strip().isdigit() for c in choices) and leading.group(1) in [c.strip() for c in choices]:
            index = [c.strip() for c in choices].index(leading.group(1))
            return choices[index], index
        # A choice whose every content word the answer says wins (the most specific if several): the similarity of a
        # whole answer sentence is swayed by everything else it says.
        named = _said_choices(text, choices, allowed)
        if len(named) == 1:
            return choices[named[0]], named[0]
        pool = named or sorted(allowed)
        vectors = self.embedder.embed([text, *[choices[i] for i in pool]])
        index = pool[int(np.argmax(vectors[1:] @ vectors[0]))]
        return choices[index], index
