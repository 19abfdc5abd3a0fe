"""The deterministic controller, for models too small to plan (ReflectWorld-MM's QA agent, GEB's
read path without an LLM): one hybrid search with PPR, the rendered context, and direct memory tools
for the questions memory answers by itself: where / last seen, how many times, who. Answers are open
text with cited evidence; a multiple-choice question is answered openly and mapped to the nearest
choice by text similarity."""

from __future__ import annotations

import re
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from edge_agent.clock import find_days, find_times, format_utc
from edge_agent.memory import Observation, Store
from edge_agent.memory.consolidate import facts
from edge_agent.memory.textindex import STOPWORDS
from edge_agent.memory.wording import place_of
from edge_agent.perception.imagetext import ImageTextEmbedder
from edge_agent.perception.text import TextEmbedder
from edge_agent.retrieval import Evidence, RetrievalConfig, Retriever, render

__all__ = ["Answer", "DeterministicController", "moments"]

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


def moments(question: str, as_of: float | None) -> tuple[float | None, list[float]]:
    """(the bound on what may be used, the moments named): the earliest of ``as_of`` and the times the
    question puts after 'before' / 'by' / 'until'; the other times it writes."""
    mentions = find_times(question)
    bounds = [m.t for m in mentions if m.bound] + ([as_of] if as_of is not None else [])
    return (min(bounds) if bounds else None), [m.t for m in mentions if not m.bound]


def _place_of(o: Observation) -> str | None:
    return place_of(o.description)


def _t(t: float) -> str:
    return format_utc(t, zone=True)


def _cite(o: Observation) -> dict[str, object]:
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

    def _subject(
        self, evidence: Evidence, kinds: Sequence[str] | None = None, around: Sequence[float] = ()
    ) -> int | None:
        """The entity the question is most about: the largest summed rank among its retrieved records;
        when the question names a moment, by its best-matching record at that moment, if any was seen
        then (what it looked like and where it was then is what the question describes)."""
        totals: dict[int, float] = defaultdict(float)
        then: dict[int, float] = defaultdict(float)
        window = self.retriever.config.around_seconds
        for o in self.store.observations_by_id(evidence.observation_ids):
            if o.entity_id is not None and (kinds is None or o.kind in kinds):
                score = evidence.scores.get(("observation", o.id), 0.0)
                totals[o.entity_id] += score
                if any(o.t_start - window <= t <= o.t_end + window for t in around):
                    then[o.entity_id] = max(then[o.entity_id], score)  # its best match then, however often it was seen
        ranked = then or totals
        return max(ranked, key=ranked.get) if ranked else None

    def _history(self, entity_id: int, as_of: float | None) -> list[Observation]:
        return [o for o in self.store.observations(entity_id) if as_of is None or o.t_start < as_of]

    def ask(self, question: str, *, as_of: float | None = None, choices: Sequence[str] = ()) -> Answer:
        """Times written in the question count: one after 'before' / 'by' / 'until' bounds what is used
        (as ``as_of`` does), any other names a moment whose records join the search."""
        started = time.perf_counter()
        as_of, around = moments(question, as_of)
        evidence = self.retriever.retrieve(question, as_of=as_of, around=around)
        context = render(self.store, evidence, biographies=self.retriever.config.biography_text)
        timings = dict(evidence.timings_ms)
        if _USUAL.search(question) and not around:
            tool, text, cited = "facts", *self._facts(evidence, question, as_of)
        elif _WHO.search(question):
            tool, text, cited = "who", *self._who(evidence, as_of, around)
        elif _COUNT.search(question):
            tool, text, cited = "count", *self._count(evidence, as_of, question)
        elif around and _AFTER.search(question):
            tool, text, cited = "after", *self._after(evidence, as_of, around)
        elif _WHERE.search(question):
            tool, text, cited = "where", *self._where(evidence, as_of, around)
        else:
            tool, text, cited = "search", *self._summary(evidence)
        choice, index = self._nearest_choice(text, choices)
        timings["total"] = (time.perf_counter() - started) * 1000
        seen = sorted(set(evidence.observation_ids) | {int(c["observation"]) for c in cited})  # type: ignore[call-overload]
        return Answer(text, choice, index, cited, tool, 1, context, timings, seen=seen)

    def _at(self, history: list[Observation], moments: Sequence[float]) -> list[Observation]:
        """The subject's observation nearest each moment the question names."""
        return [min(history, key=lambda o: abs((o.t_start + o.t_end) / 2 - t)) for t in moments] if history else []

    def _where(
        self, evidence: Evidence, as_of: float | None, around: Sequence[float] = ()
    ) -> tuple[str, list[dict[str, object]]]:
        subject = self._subject(evidence, around=around)
        if subject is None:
            return "Memory holds nothing that matches the question.", []
        history = self._history(subject, as_of)
        last = history[-1]
        entity = self.store.entity(subject)
        name = f" '{entity.name}'" if entity.name else ""
        then = [o for o in self._at(history, around) if o.id != last.id]
        return (
            f"Entity #{subject}{name} ({entity.category}) was last seen {_t(last.t_end)} on camera {last.camera}: "
            f"{last.description or 'no description'} (observation {last.id}).",
            [_cite(o) for o in then] + [_cite(last)],
        )

    def _after(
        self, evidence: Evidence, as_of: float | None, around: Sequence[float]
    ) -> tuple[str, list[dict[str, object]]]:
        """What changed for the subject after the moment named: the first later observation somewhere else."""
        subject = self._subject(evidence, around=around)
        if subject is None:
            return "Memory holds nothing that matches the question.", []
        history = self._history(subject, as_of)
        # As it was at the moment or just after (a thing being put down is hidden by the hand that moves it).
        window = self.retriever.config.around_seconds
        start = ([o for o in history if o.t_start <= around[0] + window] or history[:1])[-1]
        place = _place_of(start)
        later = next((o for o in history if o.t_start > start.t_end and _place_of(o) != place), None)
        if later is None:
            return (
                f"After {_t(start.t_end)}, entity #{subject} stayed {place or 'where it was'} as far as memory knows.",
                [_cite(start)],
            )
        where = _place_of(later) or "somewhere else"
        moved_to = where.split(" the ", 1)[1] if " the " in where else where
        return (
            f"After {_t(start.t_end)} it was moved to the {moved_to}: "
            f"entity #{subject} was seen {where} at {_t(later.t_start)} "
            f"(observation {later.id}).",
            [_cite(start), _cite(later)],
        )

    def _count(
        self, evidence: Evidence, as_of: float | None, question: str = ""
    ) -> tuple[str, list[dict[str, object]]]:
        """How many times the subject came to a place the question names ("got on the sofa"), or changed
        place ("was moved"), on the days it names; else how often it was seen."""
        subject = self._subject(evidence)
        if subject is None:
            return "Memory holds nothing that matches the question.", []
        history = self._history(subject, as_of)
        entity = self.store.entity(subject)
        days = find_days(question)
        words = set(re.findall(r"[a-z]+", question.lower()))
        places = {p for p in map(_place_of, history) if p and p.split()[-1] in words}
        moved = bool(words & {"moved", "move", "moves", "carried", "taken"})
        if places or moved:
            arrivals, before = [], []
            previous: Observation | None = None
            for o in history:
                place = _place_of(o)
                inside = not days or any(a <= o.t_start < b for a, b in days)
                last_place = _place_of(previous) if previous is not None else None
                changed = place != last_place and (previous is not None or not moved)
                if inside and place and changed and (place in places if places else True):
                    arrivals.append(o)
                    if previous is not None:
                        before.append(previous)  # where it came from: the other half of the evidence of a move
                if place:
                    previous = o
            what = f"came {' or '.join(sorted(places))}" if places else "moved to another place"
            when = f" on {', '.join(_t(a)[:10] for a, _ in days)}" if days else ""
            return (
                f"{len(arrivals)} times: entity #{subject} ({entity.category}) {what}{when}"
                + (f", at {', '.join(_t(o.t_start)[11:19] for o in arrivals)}." if arrivals else "."),
                [_cite(o) for o in sorted(arrivals + before, key=lambda o: o.t_start)]
                or [_cite(o) for o in history[-1:]],
            )
        shown = [o for o in history if not days or any(a <= o.t_start < b for a, b in days)]
        dates = sorted({_t(o.t_start)[:10] for o in shown})
        return (
            f"Entity #{subject} ({entity.category}) appears in {len(shown)} observations on {len(dates)} day(s) "
            f"({', '.join(dates)}).",
            [_cite(o) for o in shown],
        )

    def _who(
        self, evidence: Evidence, as_of: float | None, around: Sequence[float] = ()
    ) -> tuple[str, list[dict[str, object]]]:
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
                p for p in self.store.observations_in_clip(o.clip_id) if p.kind == "person" and p.entity_id is not None
            ]
            if people:
                p = people[0]
                entity = self.store.entity(p.entity_id)
                name = f" '{entity.name}'" if entity.name else ""
                return (
                    f"Person #{p.entity_id}{name} was with entity #{subject} at {_t(o.t_start)} on camera {o.camera}: "
                    f"{p.description or 'no description'}.",
                    [_cite(o), _cite(p)],
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
        return f"Entity #{subject}{name} ({entity.category}): {said}.", [_cite(o) for o in history[-1:]]

    def _summary(self, evidence: Evidence) -> tuple[str, list[dict[str, object]]]:
        shown = self.store.observations_by_id(evidence.observation_ids[:3])
        if not shown:
            return "Memory holds nothing that matches the question.", []
        parts = [
            f"{o.description} ({_t(o.t_start)}, camera {o.camera}, entity #{o.entity_id}, observation {o.id})"
            for o in shown
        ]
        return "Most relevant in memory: " + "; ".join(parts) + ".", [_cite(o) for o in shown]

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
