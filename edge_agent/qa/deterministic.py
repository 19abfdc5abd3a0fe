"""The deterministic controller, for models too small to plan (ReflectWorld-MM's QA agent, GEB's
read path without an LLM): one hybrid search with PPR, the rendered context, and direct memory tools
for the questions memory answers by itself. A question naming a kind of thing (edge_agent.qa.question)
is answered from the entities of that kind only: exists -> yes / no, where and when first / last, how
many distinct ones, which camera, who was with it; when memory holds none it says so and names nothing
else. Answers are open text with cited evidence; a yes/no or a count picks its choice from the typed
answer, any other is mapped to the nearest choice by text similarity."""

from __future__ import annotations

import re
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from edge_agent.clock import find_days, find_times, format_utc
from edge_agent.memory import Observation, Store, queries
from edge_agent.memory.consolidate import facts, traces
from edge_agent.memory.description import place_phrase
from edge_agent.memory.textindex import STOPWORDS
from edge_agent.perception.text import TextEmbedder
from edge_agent.perception.vocabulary import COLOUR_NAMES, plural
from edge_agent.qa.question import TYPED_INTENTS, Query, parse_question
from edge_agent.retrieval import Evidence, RetrievalConfig, Retriever, render

if TYPE_CHECKING:  # an image-text model is optional, and its module imports OpenCV
    from edge_agent.perception.imagetext import ImageTextEmbedder

__all__ = ["Answer", "DeterministicController", "moments"]

_RECENT = re.compile(r"\b(most recent(?:ly)?|latest|last)\b", re.I)
_TIMES = re.compile(r"\b(how many times|how often|times)\b", re.I)
#: Clips recorded without a thing that say it left and came back (one may be a thing hidden behind a person).
_AWAY_CLIPS = 2
#: A thing moved counts where it was put: a place it was read at for less than this before it was read at another
#: (a worn camera's view of a thing carried past a table) is on the way, not where it went.
_SETTLE_S = 10.0
#: A thing seen at a place within this many seconds of a moment a question names was there then (times are written
#: to the second); one seen there only further from it, within the retrieval's ``around_seconds``, is a second choice.
_AT_MOMENT_S = 2.0
#: At most this many of a thing's stays ground an answer that it did not move; a stay is begun again when it was
#: unseen longer than this (the camera off, or out of view).
_STAYS_CITED = 24
_UNSEEN_S = 60.0
_MANY = re.compile(r"\b(most|all|every|each)\b", re.I)
#: Words a choice may use for a described value.
_SAID_AS = {
    "still": ("still", "parked", "stationary", "standing", "not moving", "stayed"),
    "moving": ("moving", "walking", "driving", "in motion", "moved"),
    "grey": ("grey", "gray", "silver"),
    "dark grey": ("dark grey", "dark gray", "charcoal"),
}

_WHERE = re.compile(r"\b(where|last seen|last time|see .* last)\b", re.I)
_COUNT = re.compile(r"\b(how many|how often|number of|count)\b", re.I)
_WHO = re.compile(r"\bwho\b", re.I)
_AFTER = re.compile(r"\b(after|afterwards|next|then)\b", re.I)
_USUAL = re.compile(
    r"\b(usual|usually|normally|typically|generally|habits?|most (?:days|mornings|afternoons|evenings|nights)|"
    r"whose|belongs?|owns?|owner|where does .* (?:live|stay|go))\b",
    re.I,
)


@dataclass
class Answer:
    text: str
    choice: str | None
    choice_index: int | None
    evidence: list[dict[str, object]]  #: cited records: entity, observation, clip times
    tool: str  #: which path answered: where, count, who, search
    rounds: int
    context: str
    timings_ms: dict[str, float] = field(default_factory=dict)
    video_fallbacks: int = 0
    seen: list[int] = field(default_factory=list)  #: every observation put in front of the reader (context and tools)
    query: dict[str, object] = field(default_factory=dict)  #: the typed query the question was read as


def moments(question: str, as_of: float | None) -> tuple[float | None, list[float]]:
    """(the bound on what may be used, the moments named): the earliest of ``as_of`` and the times the
    question puts after 'before' / 'by' / 'until'; the other times it writes."""
    mentions = find_times(question)
    bounds = [m.t for m in mentions if m.bound] + ([as_of] if as_of is not None else [])
    return (min(bounds) if bounds else None), [m.t for m in mentions if not m.bound]


def _t(t: float) -> str:
    return format_utc(t, zone=True)


def _a(what: str) -> str:
    return f"an {what}" if what[:1] in "aeiou" else f"a {what}"


def _count_of(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


def _plural(what: str, n: int) -> str:
    return what if n == 1 or what.endswith("s") or what == "people" else plural(what)


_YES = re.compile(r"^\s*(yes|yeah|true|it was|there was|there were)\b", re.I)
_NO = re.compile(r"^\s*(no|not|never|none|false|there was not|there wasn't|nothing)\b", re.I)
_RANGE = re.compile(
    r"(\d+)\s*(?:-|to|–)\s*(\d+)|(?:more than|over|at least|>=?)\s*(\d+)|(?:fewer than|less than|under|<)\s*(\d+)|(\d+)"
)


def _typed_choice(typed: object, choices: Sequence[str]) -> tuple[str | None, int | None]:
    """The choice a typed answer picks: yes / no for a bool, the choice whose number or range holds a count."""
    if not choices or typed is None:
        return None, None
    if isinstance(typed, bool):
        pattern = _YES if typed else _NO
        hits = [i for i, c in enumerate(choices) if pattern.search(c)]
        return (choices[hits[0]], hits[0]) if len(hits) == 1 else (None, None)
    if isinstance(typed, int):
        if typed == 0:
            hits = [
                i for i, c in enumerate(choices) if re.fullmatch(r"\s*(none|no|zero|nothing|nobody|0)\b.*", c, re.I)
            ]
            if len(hits) == 1:
                return choices[hits[0]], hits[0]
        for i, c in enumerate(choices):
            m = _RANGE.search(c)
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
        near = sorted((d, i) for i, d in named if d is not None)
        if near and (len(near) == 1 or near[1][0] - near[0][0] >= 1.0):  # times are written to the second
            return choices[near[0][1]], near[0][1]
        return None, None
    if isinstance(typed, str):  # a camera, or a described value (a colour, a motion, ...)
        words = _SAID_AS.get(typed.lower(), (typed.lower(),))
        hits = [i for i, c in enumerate(choices) if any(re.search(rf"\b{re.escape(w)}\b", c.lower()) for w in words)]
        return (choices[hits[0]], hits[0]) if len(hits) == 1 else (None, None)
    return None, None


#: The describer's colour names a colour word of a question covers (a word it never uses filters nothing).
_COLOURS = {
    "gray": ("grey", "dark grey"),
    "grey": ("grey", "dark grey"),
    "green": ("green", "teal"),
    "blue": ("blue", "teal"),
}


def _colours(query: Query) -> tuple[str, ...]:
    """The colour names to select the subject by: those the question describes it with (not the colour an
    attribute question asks for, whose colour words name something else: "the car behind the white van")."""
    if query.intent == "attribute":
        return ()
    return tuple(dict.fromkeys(n for a in query.attributes for n in _COLOURS.get(a, (a,) if a in COLOUR_NAMES else ())))


def _place_of(history: Sequence[Observation]) -> Callable[[Observation], str]:
    """Where an observation of this history says the thing was. On a camera without zones (its things have
    places memory found) only a named place is a place: the image region a worn camera saw a thing in, or a place
    nobody named, says nothing of where it was."""
    if any(o.place_id is not None for o in history):
        return lambda o: o.zone
    return lambda o: o.place


def _settled(history: Sequence[Observation], where: Callable[[Observation], str]) -> list[Observation]:
    """The observations of ``history`` (time-ordered) read at a place the thing stayed at: not those read at a
    place less than ``_SETTLE_S`` before it was read at another, nor those read at none."""
    placed = [o for o in history if where(o)]
    kept: list[Observation] = []
    leaves: float | None = None  # when the thing was next read at a place other than this one
    for o, after in zip(reversed(placed), [None, *reversed(placed)]):
        if after is not None and where(after) != where(o):
            leaves = after.t_start
        if leaves is None or leaves - o.t_start >= _SETTLE_S:
            kept.append(o)
    return kept[::-1]


def _there(o: Observation) -> str:
    """', by the desk' when the observation's place is not in its sentence (a place named after it was seen);
    for a place memory found from the thing's surroundings, how alike they were: ', by the desk (place 0.97
    alike)'."""
    where = place_phrase(o.place)
    if not where or where in o.description:
        return ""
    sure = f" (place {o.place_score:.2f} alike)" if o.place_id is not None and o.place_score is not None else ""
    return f", {where}{sure}"


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


class DeterministicController:
    def __init__(
        self,
        store: Store,
        embedder: TextEmbedder,
        config: RetrievalConfig | None = None,
        image_text: ImageTextEmbedder | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.retriever = Retriever(store, embedder, config, image_text=image_text)
        self._known: tuple[tuple[int, int], dict[str, int], list[str], list[str], list[str]] | None = None

    def _subject(
        self,
        evidence: Evidence,
        kinds: Sequence[str] | None = None,
        around: Sequence[float] = (),
        among: set[int] | None = None,
    ) -> int | None:
        """The entity the question is most about: the largest summed rank among its retrieved records;
        when the question names a moment, by its best-matching record at that moment, if any was seen
        then (what it looked like and where it was then is what the question describes). ``among``: only these."""
        totals: dict[int, float] = defaultdict(float)
        then: dict[int, float] = defaultdict(float)
        window = self.retriever.config.around_seconds
        for o in self.store.observations_by_id(evidence.observation_ids):
            if (
                o.entity_id is not None
                and (kinds is None or o.kind in kinds)
                and (among is None or o.entity_id in among)
            ):
                score = evidence.scores.get(("observation", o.id), 0.0)
                totals[o.entity_id] += score
                if any(o.t_start - window <= t <= o.t_end + window for t in around):
                    then[o.entity_id] = max(then[o.entity_id], score)  # its best match then, however often it was seen
        ranked = then or totals
        return max(ranked, key=ranked.get) if ranked else None

    def _continued(self, entity_id: int, as_of: float | None) -> list[tuple[int, int, float]]:
        """GEB's unresolved identity, followed forward: (entity, its continuation, similarity) steps from
        ``entity_id`` to the entities recorded as possibly the same as it that were first seen after it was last
        seen (never together) and whose most similar possibly-same entity it is; at each step the most similar.
        "Where are the keys?" is then answered from the latest of them, and says so."""

        def span(entity: int) -> tuple[float, float] | None:
            seen = queries.sightings_of(self.store.db, (), entity_id=entity, before=as_of)
            return (seen[0][1], seen[0][2]) if seen else None

        related: dict[int, dict[int, float]] = defaultdict(dict)  # entity -> its possibly-same entities, scored
        for a, b, score in self.store.possibly_same():
            related[a][b] = related[b][a] = score
        steps: list[tuple[int, int, float]] = []
        current, visited = entity_id, {entity_id}
        while len(steps) < 8:
            known = span(current)
            if known is None:
                break
            options = []
            for other, score in related[current].items():
                later = span(other) if other not in visited else None
                if later is None or later[0] < known[1]:
                    continue
                if max(related[other], key=related[other].__getitem__) == current:  # its most similar, too
                    options.append((score, other))
            if not options:
                break
            score, other = max(options)
            steps.append((current, other, score))
            visited.add(other)
            current = other
        return steps

    def _history(self, entity_id: int, as_of: float | None) -> list[Observation]:
        return [o for o in self.store.observations(entity_id) if as_of is None or o.t_start < as_of]

    def ask(
        self, question: str, *, as_of: float | None = None, choices: Sequence[str] = (), query: Query | None = None
    ) -> Answer:
        """Times written in the question count: one after 'before' / 'by' / 'until' bounds what is used
        (as ``as_of`` does), any other names a moment whose records join the search. ``query``: the question
        already read (by a model); else the parser reads it."""
        started = time.perf_counter()
        as_of, around = moments(question, as_of)
        evidence = self.retriever.retrieve(question, as_of=as_of, around=around)
        context = render(self.store, evidence, biographies=self.retriever.config.biography_text)
        timings = dict(evidence.timings_ms)
        query = query or self.query(question)
        typed: object = None
        if query.has_subject and query.intent in TYPED_INTENTS and not (_USUAL.search(question) and not around):
            tool, text, cited, typed = self._typed(query, question, evidence, as_of, around)
        elif query.intent == "what_happened" and not (around and _AFTER.search(question)):  # else: what it did next
            tool, text, cited = "episodes", *self._happened(query, evidence, as_of, around)
        elif _USUAL.search(question) and not around:
            tool, text, cited = "facts", *self._facts(evidence, question, as_of)
        elif _WHO.search(question):
            tool, text, cited = "who", *self._who(evidence, as_of, around)
        elif _COUNT.search(question):
            tool, text, cited = "count", *self._count(evidence, as_of, question)
        elif around and _AFTER.search(question):
            tool, text, cited = (
                "after",
                *self._after(evidence, as_of, around, self._named(query, evidence, as_of, around)),
            )
        elif _WHERE.search(question):
            tool, text, cited = "where", *self._where(evidence, as_of, around)
        else:
            tool, text, cited = "search", *self._summary(evidence, camera=query.camera)
        choice, index = _typed_choice(typed, choices)
        if index is None:
            choice, index = self._nearest_choice(text, choices)
        timings["total"] = (time.perf_counter() - started) * 1000
        seen = sorted(set(evidence.observation_ids) | {int(c["observation"]) for c in cited})  # type: ignore[call-overload]
        return Answer(text, choice, index, cited, tool, 1, context, timings, seen=seen, query=query.as_dict())

    def known(self) -> tuple[dict[str, int], list[str], list[str], list[str]]:
        """(names -> entity ids, cameras, categories, named places) memory holds, read again only after memory
        changed."""
        db = self.store.db
        version = (db.data_version(), self.store.generation)
        if self._known is None or self._known[0] != version:
            self._known = (
                version,
                queries.named_entities(db),
                queries.cameras(db),
                queries.entity_categories(db),
                queries.zones(db),
            )
        return self._known[1:]

    def query(self, question: str) -> Query:
        """The question as a typed query, read by the parser with the names, cameras and categories memory knows."""
        names, cameras, categories, zones = self.known()
        return parse_question(question, names=names, cameras=cameras, categories=categories, zones=zones)

    def _typed(
        self, query: Query, question: str, evidence: Evidence, as_of: float | None, around: Sequence[float]
    ) -> tuple[str, str, list[dict[str, object]], object]:
        """(tool, text, cited, typed answer) from the entities of the kinds the question names."""
        days = find_days(question) if query.intent == "count" else []
        narrowed = as_of is not None or query.camera is not None or bool(days)
        if narrowed or query.intent in ("count", "which_camera"):
            seen = queries.sightings_of(
                self.store.db, query.categories, entity_id=query.entity_id, before=as_of, camera=query.camera, days=days
            )
        else:  # nothing to narrow by: the entities table alone (a kind seen thousands of times costs no scan)
            seen = [
                (i, a, b, 0, [])
                for i, a, b in queries.entities_of_kinds(self.store.db, query.categories, entity_id=query.entity_id)
            ]
        what = query.name or (
            query.categories[0] if len(query.categories) == 1 else (query.said or query.categories)[0]
        )
        colours = _colours(query)
        if colours and seen:  # "the person in red": those described so (all, for is there / how many / where)
            shares = queries.described_share(self.store.db, [s[0] for s in seen], "colour", colours, before=as_of)
            most = max(shares.values(), default=0.0)
            least = 0.25 if query.intent in ("exists", "count", "which_camera") else max(most / 2, 1e-9)
            seen = sorted((s for s in seen if shares.get(s[0], 0.0) >= least), key=lambda s: -shares.get(s[0], 0.0))
            what = f"{' '.join(a for a in query.attributes if _COLOURS.get(a) or a in COLOUR_NAMES)} {what}"
        company = ""
        plain_count = query.intent == "count" and not _TIMES.search(question)
        if seen and query.places and (query.intent == "exists" or plain_count):
            # "was anyone carrying a bag?", "how many people were on the sofa?": those seen with it, or there
            near = queries.seen_with(self.store.db, [s[0] for s in seen], query.places, before=as_of)
            seen = [s for s in seen if s[0] in near]
            company = f" with {_a(query.places[0])}"
        if not seen:
            where = f" on camera {query.camera}" if query.camera else ""
            when = f" before {_t(as_of)}" if as_of is not None else ""
            none = f"I have not seen {_a(what)}{company}{where}{when}."
            if query.intent == "exists":
                return "exists", f"No: {none}", [], False
            if query.intent == "count":
                return "count", f"0: {none}", [], 0
            return query.intent, none, [], None
        ids = [s[0] for s in seen]
        if query.intent == "exists":
            last = max(seen, key=lambda s: s[2])
            o = self._history(last[0], as_of)[-1]
            return (
                "exists",
                f"Yes: {len(seen)} {_plural(what, len(seen))}{company} seen, the last at {_t(o.t_end)} on camera "
                f"{o.camera}: {o.description or 'no description'} (observation {o.id}).",
                [cite(o)],
                True,
            )
        if query.intent == "count" and not _TIMES.search(question):
            n = len(seen)
            observations = sum(s[3] for s in seen)
            cameras = sorted({c for s in seen for c in s[4]})
            note = " (identity is conservative: one may be counted twice)" if n > 1 else ""
            latest = [queries.last_observation_of(self.store.db, i, as_of) for i in ids[:10]]
            cited = [cite(o) for o in self.store.observations_by_id([i for i in latest if i is not None])]
            return (
                "count",
                f"{n} {_plural(what, n)}{company}{note}: {_count_of(observations, 'observation')} "
                f"on camera {', '.join(cameras)}.",
                cited,
                n,
            )
        if query.intent == "which_camera":
            one = self._among(ids, query, evidence, around) if query.attributes or query.places or around else None
            per_camera = queries.cameras_of(self.store.db, query.categories, entity_id=one, before=as_of)
            recent = _RECENT.search(question) is not None  # "most recently": the camera of the latest sighting
            ranked = sorted(per_camera, key=lambda c: (-c[2],) if recent else (-c[1], -c[2]))
            parts = [f"camera {c} ({_count_of(n, 'observation')}, the last at {_t(last)})" for c, n, last, _ in ranked]
            text = f"{_a(what).capitalize()} was seen on " + ", and on ".join(parts) + "."
            cited = [cite(o) for o in self.store.observations_by_id([c[3] for c in ranked])]
            return "which_camera", text, cited, ranked[0][0]
        if len(query.categories) > 1:  # a word meaning several kinds ("van": truck or car): the first it names leads
            primary = queries.sightings_of(self.store.db, query.categories[:1], before=as_of, camera=query.camera)
            ids = [p[0] for p in primary] or ids
        if query.intent == "attribute":
            many = _MANY.search(question) is not None or any(w == "people" or w.endswith("s") for w in query.said)
            pool = ids if many else [self._among(ids, query, evidence, around)]
            return self._attribute(query, what, pool, as_of, many)
        subject = self._among(ids, query, evidence, around)
        if query.intent == "with":
            tool, text, cited = "who", *self._who(evidence, as_of, around, subject=subject)
            return tool, text, cited, None
        if query.intent == "count":
            tool, text, cited = "count", *self._count(evidence, as_of, question, subject=subject)
            return tool, text, cited, None
        first = query.intent == "when_first" or (query.first and query.intent != "where")
        chain = [] if first else self._continued(subject, as_of)
        if chain:  # the last sighting is that of its most likely continuation
            subject = chain[-1][1]
        history = self._history(subject, as_of)
        entity = self.store.entity(subject)
        name = f" '{entity.name}'" if entity.name else ""
        if first:
            o = history[0]
            return (
                "when",
                f"Entity #{subject}{name} ({entity.category}) was first seen {_t(o.t_start)} on camera "
                f"{o.camera}: {o.description or 'no description'} (observation {o.id}).",
                [cite(o)],
                o.t_start,
            )
        tool, text, cited = "where", *self._where(evidence, as_of, around, subject=subject)
        for earlier, later, score in chain:
            last_id = queries.last_observation_of(self.store.db, earlier, as_of)
            if last_id is None:
                continue
            last = self.store.observation(last_id)
            text += (
                f" Entity #{later} is possibly the same {entity.category} as entity #{earlier} (similarity "
                f"{score:.2f}), which was last seen {_t(last.t_end)} (observation {last.id}), before it was first seen."
            )
            cited.insert(0, cite(last))
        return ("attribute" if query.intent == "attribute" else tool), text, cited, history[-1].t_end

    def _attribute(
        self, query: Query, what: str, pool: Sequence[int], as_of: float | None, many: bool
    ) -> tuple[str, str, list[dict[str, object]], object]:
        """The described field asked about (colour, pattern, motion, size), by majority over the observations of
        the subject (or, for "most people", of all of that kind), with how many said so and the latest that did."""
        field = query.asks or "colour"
        values = queries.described_as(self.store.db, pool, field, before=as_of, camera=query.camera)
        if field == "motion":  # moving this way or that is moving; seen briefly says nothing
            merged: dict[str, list[float]] = {}
            for value, n, last, end in values:
                key = "moving" if value.startswith("moving") else value
                if key != "brief":
                    m = merged.setdefault(key, [0, last, end])
                    m[0] += n
                    m[1:] = [last, end] if end > m[2] else m[1:]
            values = sorted(((k, int(n), int(i), t) for k, (n, i, t) in merged.items()), key=lambda v: (-v[1], -v[3]))
        whose = f"the {len(pool)} {_plural(what, len(pool))} seen" if many else f"entity #{pool[0]} ({what})"
        if not values:
            return "attribute", f"Memory does not say the {field} of {whose}.", [], None
        value, n, last, _ = values[0]
        total = sum(v[1] for v in values)
        others = ", ".join(f"{v} {k}" for v, k, _, _ in values[1:4])
        o = self.store.observation(last)
        text = (
            f"{value.capitalize()}: {n} of {total} observations of {whose} say {field} {value}"
            + (f" (also: {others})" if others else "")
            + f"; the latest, {_t(o.t_end)} on camera {o.camera}: {o.description} (observation {o.id})."
        )
        return "attribute", text, [cite(o)], value

    def _among(self, ids: Sequence[int], query: Query, evidence: Evidence, around: Sequence[float]) -> int:
        """The entity, of those of the kind asked about (most recently seen first), the question means: the search's
        subject when it is of that kind (the question's other words and the moment it names rank it), else the best
        ranked of that kind, else the one seen last; for when first / last with nothing but the kind, the one seen
        last. The search alone may pick another kind of thing (the couch for "where was the TV?"): that is what
        this prevents."""
        if query.entity_id is not None:
            return query.entity_id
        generic = not (query.attributes or query.places or around)
        if not (generic and query.intent in ("when_first", "when_last")):  # "when was a person last seen?": the latest
            allowed = set(ids)
            if query.places and around:  # "the cup that was by the dishwasher at nine": one of those there then
                there: set[int] = set()
                for window in (_AT_MOMENT_S, self.retriever.config.around_seconds):  # at the moment, else near it
                    there = queries.at_place(
                        self.store.db, ids, query.places, min(around) - window, max(around) + window
                    )
                    if there:
                        break
                if there:
                    allowed = there
                    ids = [i for i in ids if i in there]
            subject = self._subject(evidence, around=around)
            if subject in allowed:
                return subject
            ranked = self._subject(evidence, around=around, among=allowed)
            if ranked is not None:
                return ranked
        return ids[0]

    def _happened(
        self, query: Query, evidence: Evidence, as_of: float | None, around: Sequence[float]
    ) -> tuple[str, list[dict[str, object]]]:
        """What happened (on the camera, around the moments, up to as-of the question names): the episodes of
        the finest scale memory has for it (10-minute windows, else hours, days, else the clips' captions), the
        latest six; with the search's best records from them as evidence. A question about a thing is about
        the camera that saw it last."""
        camera = query.camera
        if camera is None and query.has_subject:
            seen = queries.sightings_of(self.store.db, query.categories, entity_id=query.entity_id, before=as_of)
            if seen:
                last = queries.last_observation_of(self.store.db, seen[0][0], as_of)
                camera = self.store.observation(last).camera if last is not None else None
        window = self.retriever.config.around_seconds
        start = min(around) - window if around else None
        end = min(([max(around) + window] if around else []) + ([as_of] if as_of is not None else []), default=None)
        ids: list[int] = []
        for scale in ("10min", "hour", "day", "clip"):
            ids = queries.episode_ids(self.store.db, scale, camera=camera, start=start, end=end)
            if ids:
                break
        where = f" on camera {camera}" if camera else ""
        if not ids:
            return f"Memory holds nothing recorded{where}{' then' if around or as_of else ''}.", []
        episodes = self.store.episodes_by_id(ids[-6:])
        shown = [
            o
            for o in self.store.observations_by_id(evidence.observation_ids)
            if any(e.camera == o.camera and e.t_start <= o.t_start <= e.t_end for e in episodes)
        ]
        return " ".join(e.text.rstrip(".") + "." for e in episodes), [cite(o) for o in shown[:3]]

    def _at(self, history: list[Observation], moments: Sequence[float]) -> list[Observation]:
        """The subject's observation nearest each moment the question names."""
        return [min(history, key=lambda o: abs((o.t_start + o.t_end) / 2 - t)) for t in moments] if history else []

    def _where(
        self, evidence: Evidence, as_of: float | None, around: Sequence[float] = (), subject: int | None = None
    ) -> tuple[str, list[dict[str, object]]]:
        subject = subject if subject is not None else self._subject(evidence, around=around)
        if subject is None:
            return "Memory holds nothing that matches the question.", []
        history = self._history(subject, as_of)
        last = history[-1]
        entity = self.store.entity(subject)
        name = f" '{entity.name}'" if entity.name else ""
        then = [o for o in self._at(history, around) if o.id != last.id]
        return (
            f"Entity #{subject}{name} ({entity.category}) was last seen {_t(last.t_end)} on camera {last.camera}"
            f"{_there(last)}: {last.description or 'no description'} (observation {last.id}).",
            [cite(o) for o in then] + [cite(last)],
        )

    def _named(self, query: Query, evidence: Evidence, as_of: float | None, around: Sequence[float]) -> int | None:
        """The entity of the kind the question names that it means (:meth:`_among`); None when it names no kind or
        memory holds none seen before ``as_of``."""
        if not query.has_subject:
            return None
        seen = queries.sightings_of(self.store.db, query.categories, entity_id=query.entity_id, before=as_of)
        return self._among([s[0] for s in seen], query, evidence, around) if seen else None

    def _after(
        self, evidence: Evidence, as_of: float | None, around: Sequence[float], subject: int | None = None
    ) -> tuple[str, list[dict[str, object]]]:
        """What changed for the subject after the moment named: the first later observation somewhere else."""
        subject = subject if subject is not None else self._subject(evidence, around=around)
        if subject is None:
            return "Memory holds nothing that matches the question.", []
        history = self._history(subject, as_of)
        # As it was at the moment or just after (a thing being put down is hidden by the hand that moves it).
        window = self.retriever.config.around_seconds
        where = _place_of(history)
        stays = _settled(history, where) or history
        start = ([o for o in stays if o.t_start <= around[0] + window] or stays[:1])[-1]
        place = where(start)
        later = next((o for o in stays if o.t_start > start.t_end and where(o) != place), None)
        if later is None:  # grounded on the moment and its latest sighting
            return (
                f"After {_t(start.t_end)}, entity #{subject} stayed {place_phrase(place) or 'where it was'} "
                f"as far as memory knows (last seen {_t(history[-1].t_end)}).",
                [cite(o) for o in {o.id: o for o in (start, history[-1])}.values()],
            )
        there = where(later)
        return (
            f"After {_t(start.t_end)} it was moved to the {there or 'somewhere else'}: "
            f"entity #{subject} was seen {place_phrase(there) or 'somewhere else'} at {_t(later.t_start)} "
            f"(observation {later.id}).",
            [cite(start), cite(later)],
        )

    def _count(
        self, evidence: Evidence, as_of: float | None, question: str = "", subject: int | None = None
    ) -> tuple[str, list[dict[str, object]]]:
        """How many times the subject came to a place the question names ("got on the sofa": a change of place,
        or the same place again after the camera recorded without it), or changed place ("was moved"), on the
        days it names; else how often it was seen."""
        subject = subject if subject is not None else self._subject(evidence)
        if subject is None:
            return "Memory holds nothing that matches the question.", []
        history = self._history(subject, as_of)
        entity = self.store.entity(subject)
        days = find_days(question)
        words = set(re.findall(r"[a-z]+", question.lower()))
        places = {o.place for o in history if o.place and o.place.split()[-1] in words}
        moved = bool(words & {"moved", "move", "moves", "carried", "taken"})
        if places or moved:
            where = _place_of(history)
            # A move is where a thing was put: a place it was read at on its way to another does not count, but
            # says it was carried (put back where it was taken from is a move too).
            kept = {o.id for o in (history if places else _settled(history, where))}
            arrivals, before = [], []
            previous: Observation | None = None
            carried = False
            for o in history:
                place = where(o)
                if o.id not in kept:
                    carried = carried or bool(place)
                    continue
                inside = not days or any(a <= o.t_start < b for a, b in days)
                last_place = where(previous) if previous is not None else None
                changed = (place != last_place or carried) and (previous is not None or carried or not moved)
                if places and not changed and previous is not None and place == last_place:
                    # back at the same place after the camera recorded without it there: it came again
                    changed = queries.recorded_without(
                        self.store.db, o.camera, subject, previous.t_end, o.t_start, clips=_AWAY_CLIPS
                    )
                if inside and place and changed and (place in places if places else True):
                    arrivals.append(o)
                    if previous is not None:
                        before.append(previous)  # where it came from: the other half of the evidence of a move
                if place:
                    previous, carried = o, False
            what = f"came {' or '.join(sorted(map(place_phrase, places)))}" if places else "moved to another place"
            when = f" on {', '.join(_t(a)[:10] for a, _ in days)}" if days else ""
            cited = sorted(arrivals + before, key=lambda o: o.t_start) or self._stays(subject, days, as_of)
            return (
                f"{_count_of(len(arrivals), 'time')}: entity #{subject} ({entity.category}) {what}{when}"
                + (f", at {', '.join(_t(o.t_start)[11:19] for o in arrivals)}." if arrivals else "."),
                [cite(o) for o in cited or history[-1:]],
            )
        shown = [o for o in history if not days or any(a <= o.t_start < b for a, b in days)]
        dates = sorted({_t(o.t_start)[:10] for o in shown})
        return (
            f"Entity #{subject} ({entity.category}) appears in {len(shown)} observations on {len(dates)} day(s) "
            f"({', '.join(dates)}).",
            [cite(o) for o in shown],
        )

    def _stays(self, subject: int, days: Sequence[tuple[float, float]], as_of: float | None) -> list[Observation]:
        """What grounds "it did not move" on the days named: where it was seen each time it was seen again (its
        traces begun in them after a place change or :data:`_UNSEEN_S` unseen), at most :data:`_STAYS_CITED`."""
        begun: list[int] = []
        place, seen_to = None, -np.inf
        for tr in traces(self.store, subject):
            if as_of is not None and tr.t_start >= as_of:
                break
            again = tr.place != place or tr.t_start - seen_to > _UNSEEN_S
            if again and (not days or any(a <= tr.t_start < b for a, b in days)):
                begun.append(tr.first_observation_id)
            place, seen_to = tr.place, max(seen_to, tr.t_end)
        if len(begun) > _STAYS_CITED:
            begun = [begun[int(i)] for i in np.linspace(0, len(begun) - 1, _STAYS_CITED)]
        return self.store.observations_by_id(begun)

    def _who(
        self, evidence: Evidence, as_of: float | None, around: Sequence[float] = (), subject: int | None = None
    ) -> tuple[str, list[dict[str, object]]]:
        if subject is None:
            subject = self._subject(evidence, kinds=("object", "animal"), around=around)
        if subject is None:
            return self._summary(evidence)
        history = self._history(subject, as_of)
        # People seen in the same clips as the subject: at the moment the question names, else the most recent.
        order = (
            sorted(history, key=lambda o: min(abs(o.t_start - t) for t in around))
            if around
            else list(reversed(history))
        )
        for o in order:
            people = [
                p
                for p in self.store.observations_in_clip(o.clip_id)
                if p.kind == "person" and p.entity_id is not None and p.entity_id != subject
            ]
            if people:
                p = people[0]
                entity = self.store.entity(p.entity_id)
                name = f" '{entity.name}'" if entity.name else ""
                return (
                    f"Person #{p.entity_id}{name} was with entity #{subject} at {_t(o.t_start)} on camera {o.camera}: "
                    f"{p.description or 'no description'}.",
                    [cite(o), cite(p)],
                )
        return f"No person was seen together with entity #{subject}.", []

    def _facts(self, evidence: Evidence, question: str, as_of: float | None) -> tuple[str, list[dict[str, object]]]:
        """What memory has learnt about the subject (usual place, owner, habits, state), most important first."""
        subject = self._subject(evidence)
        if subject is None:
            return self._summary(evidence)
        known = facts(self.store, [subject], before=as_of)
        owner = re.search(r"\b(whose|belongs?|owns?|owner)\b", question, re.I)
        known = sorted(known, key=lambda f: (not (f.kind == "owner") if owner else f.kind == "state", -f.importance))
        if not known:
            return f"Memory has learnt nothing yet about entity #{subject}; " + self._summary(evidence)[0], []
        entity = self.store.entity(subject)
        name = f" '{entity.name}'" if entity.name else ""
        said = "; ".join(f.line() for f in known[:4])
        history = self._history(subject, as_of)
        return f"Entity #{subject}{name} ({entity.category}): {said}.", [cite(o) for o in history[-1:]]

    def _summary(self, evidence: Evidence, camera: str | None = None) -> tuple[str, list[dict[str, object]]]:
        """The three most relevant observations (in time order); of the camera the question names, where it has any."""
        found = {o.id: o for o in self.store.observations_by_id(evidence.observation_ids)}
        ranked = [found[i] for i in evidence.observation_ids if i in found]
        ranked = [o for o in ranked if o.camera == camera] or ranked
        shown = sorted(ranked[:3], key=lambda o: (o.t_start, o.id))
        if not shown:
            return "Memory holds nothing that matches the question.", []
        parts = [
            f"{o.description} ({_t(o.t_start)}, camera {o.camera}, entity #{o.entity_id}, observation {o.id})"
            for o in shown
        ]
        return "Most relevant in memory: " + "; ".join(parts) + ".", [cite(o) for o in shown]

    def _nearest_choice(self, text: str, choices: Sequence[str]) -> tuple[str | None, int | None]:
        """The choice nearest the open answer: the same number when the choices are numbers and the answer
        leads with one, else by text similarity."""
        if not choices:
            return None, None
        leading = re.match(r"\s*(\d+)\b", text)
        if leading and all(c.strip().isdigit() for c in choices) and leading.group(1) in [c.strip() for c in choices]:
            index = [c.strip() for c in choices].index(leading.group(1))
            return choices[index], index
        # A choice whose every content word the answer says wins (the most specific if several): the
        # similarity of a whole answer sentence is swayed by everything else it says.
        said = set(re.findall(r"[a-z0-9]+", text.lower()))
        content = [set(re.findall(r"[a-z0-9]+", c.lower())) - STOPWORDS for c in choices]
        named = [i for i, words in enumerate(content) if words and words <= said]
        if named:
            most = max(len(content[i]) for i in named)
            named = [i for i in named if len(content[i]) == most]
            if len(named) == 1:
                return choices[named[0]], named[0]
        pool = named or list(range(len(choices)))
        vectors = self.embedder.embed([text, *[choices[i] for i in pool]])
        index = pool[int(np.argmax(vectors[1:] @ vectors[0]))]
        return choices[index], index
