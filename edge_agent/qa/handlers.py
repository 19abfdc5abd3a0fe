"""One handler per intent (issue 38; ReflectWorld-MM's memory tools, GEB's typed read path): each takes the query
and a :class:`Context` whose views already hold the question's constraints (:mod:`edge_agent.qa.scope`), and
returns a typed finding (:mod:`edge_agent.qa.findings`). A question naming a kind is answered from the entities of
that kind only; when memory holds none it says so and names nothing else. ``HANDLERS`` is the dispatch table."""

from __future__ import annotations

import fnmatch
import itertools
import math
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from edge_agent.clock import format_utc
from edge_agent.language.grammar import Aggregate, Event, Intent, Order, Place, Query, Side, Subject, against
from edge_agent.language.lexicon import (
    COLOUR_WORDS,
    GENERIC,
    MOTION_WORDS,
    NEGATIVE_SUBJECTS,
    PATTERN_WORDS,
    SIZE_WORDS,
)
from edge_agent.memory import Entity, Observation, Store, queries
from edge_agent.memory.consolidate import facts, traces
from edge_agent.memory.queries import Sighting
from edge_agent.memory.takings import Taking
from edge_agent.perception.vocabulary import COLOUR_NAMES, plural, singular
from edge_agent.qa.findings import (
    SAME_MOMENT_S,
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
    Profile,
    Returned,
    Seen,
    Stayed,
    Summary,
    YesNo,
)
from edge_agent.qa.findings import (
    Order as OrderFinding,
)
from edge_agent.qa.findings import (
    Recorded as RecordedFinding,
)
from edge_agent.qa.findings import (
    Same as SameFinding,
)
from edge_agent.qa.scope import LIST_LIMIT, Scope, View
from edge_agent.retrieval import Evidence

__all__ = ["HANDLERS", "Context", "handle", "place_of", "settled"]

#: Clips recorded without a thing that say it left and came back (one may be a thing hidden behind a person).
_AWAY_CLIPS = 2
#: A thing moved counts where it was put: a place it was read at for less than this before it was read at another
#: (a worn camera's view of a thing carried past a table) is on the way, not where it went.
_SETTLE_S = 10.0
#: A thing seen at a place within this many seconds of a moment a question names was there then (times are written
#: to the second); one seen there only further from it, within the retrieval's ``around_seconds``, is a second choice.
_AT_MOMENT_S = 2.0
#: "On the couch": this fraction of the thing's box inside the couch's in a frame both are in (as a rule's "on")
_ON_OVERLAP = 0.5
#: At most this many of a thing's stays ground an answer that it did not move; a stay is begun again when it was
#: unseen longer than this (the camera off, or out of view).
_STAYS_CITED = 24
_UNSEEN_S = 60.0


@dataclass
class Context:
    """What a handler reads: memory through the views of the question's sides, the search's evidence (it ranks
    which of several things the question means) and the moments the question names. ``search`` runs the search: a
    handler that ranks by it calls it (through :attr:`evidence`), and one that reads memory's typed views does not
    pay for it."""

    store: Store
    view: View
    other: View | None
    search: Callable[[], Evidence]
    around_seconds: float
    moments: tuple[float, ...] = ()
    moving: tuple[str, ...] = ()  #: cameras whose view moves (a worn camera), by name or shell pattern

    @property
    def evidence(self) -> Evidence:
        return self.search()

    def moves(self, camera: str) -> bool:
        """Whether ``camera``'s view moves: a thing out of its view may still be where it was."""
        return any(fnmatch.fnmatchcase(camera, pattern) for pattern in self.moving)

    def entity_label(self, entity_id: int) -> str:
        e = self.store.entity(entity_id)
        return f"{e.category} #{entity_id}" + (f" '{e.name}'" if e.name else "")


Handler = Callable[[Query, Context], Finding]


# -- which things ----------------------------------------------------------------------------------------------


def _colours(subject: Subject) -> tuple[str, ...]:
    """The describer's colour names a subject is described with ("the person in red")."""
    return tuple(dict.fromkeys(n for c in subject.colours for n in COLOUR_WORDS.get(c, (c,)) if n in COLOUR_NAMES))


def _what(subject: Subject) -> str:
    """How the answer calls the thing asked about: its colours and the word the user said, or its name."""
    if subject.name:
        return subject.name
    colours = " ".join(dict.fromkeys(subject.colours))
    word = subject.said if subject.said and subject.said not in ("who",) else (subject.kinds or ("thing",))[0]
    if word in ("someone", "anyone", "somebody", "anybody", "nobody", "noone", "everyone", "everybody"):
        word = "person"
    elif word in ("anything", "something", "everything", "nothing", "stuff", "one", "ones", "object", "objects"):
        word = "thing"
    moving = {"moving": "moving", "still": "stationary"}.get(subject.motion, "")  # "16 moving people"
    way = subject.motion if subject.motion.startswith("moving ") else ""  # "5 people moving left"
    pattern = subject.pattern if subject.pattern not in ("", "plain") else ""  # "6 striped things"
    but = " ".join(f"non-{c}" for c in subject.not_colours)  # "6 non-black people"
    if colours and subject.kinds == ("person",):  # "people in black": what they wore, never what they are
        return " ".join(w for w in (moving, but, pattern, singular(word), way, "in", colours) if w)
    return " ".join(w for w in (moving, but, colours, pattern, singular(word), way) if w)


def candidates(
    query: Query,
    view: View,
    subject: Subject | None = None,
    *,
    select: bool = False,
    detail: bool = False,
    place: Place | None = None,
) -> list[Sighting]:
    """The entities the subject may be, as seen in the view's scope: of its kinds (or its entity), described in its
    colours (all of them for yes / no and counts, the most so else), seen with what it names (``select``: a yes / no
    or a count, where "carrying a bag" picks which; and a thing of no kind, which nothing else picks) and with the
    things its place is next to (``place``: a side's of a comparison, else the question's)."""
    subject = subject or query.subject
    place = place or query.place
    seen = [s for s in view.sightings(subject, detail=detail) if s.entity_id not in subject.not_ids]
    if subject.sightings is not None:  # "which things were seen only once?" (where in the picture says which)
        whole = _regions_left(view)
        times = {s.entity_id: s.observations for s in whole.sightings(subject)} if whole is not view else {}
        seen = [s for s in seen if against(times.get(s.entity_id, s.observations), *subject.sightings)]
    colours = _colours(subject)
    if colours and seen:
        shares = queries.described_share(
            view.store, [s.entity_id for s in seen], "colour", colours, before=view.scope.end
        )
        most = max(shares.values(), default=0.0)
        every = select or subject.seen_most or query.intent in (Intent.WHICH_CAMERA, Intent.LIST)
        least = 0.25 if every else max(most / 2, 1e-9)
        # of all those so described (how many, which cameras): each said so in half its sightings, or a quarter and
        # most often (not one in blue that a single sighting called red); whether any was, any said so a quarter
        counted = every and not query.yes_no
        top = view.likeliest([s.entity_id for s in seen], "colour") if counted else {}
        seen = sorted(
            (
                s
                for s in seen
                if shares.get(s.entity_id, 0.0) >= least
                and (not counted or shares.get(s.entity_id, 0.0) >= 0.5 or top.get(s.entity_id) in colours)
            ),
            key=lambda s: -shares.get(s.entity_id, 0.0),
        )
    left_out = _colours(replace(subject, colours=subject.not_colours))
    if left_out and seen:  # "not counting the ones in black": those described so in a quarter of their sightings
        shares = queries.described_share(
            view.store, [s.entity_id for s in seen], "colour", left_out, before=view.scope.end
        )
        seen = [s for s in seen if shares.get(s.entity_id, 0.0) < 0.25]
    # what a thing was seen with picks it for a yes / no or a count, and where nothing else does ("the thing that was
    # next to the couch"); for one thing asked about, those seen with it where any was ("what was the person I saw
    # next to the couch wearing?")
    strict = select or (subject.generic and not subject.kinds)
    near = [*subject.near, *place.near]
    if seen and near:
        with_ = queries.seen_with(view.store, [s.entity_id for s in seen], near, before=view.scope.end)
        picked = [s for s in seen if s.entity_id in with_]
        if strict or place.near or picked:
            seen = picked
    if seen and place.on:  # "was the baby on the couch?": not those its boxes show beside it
        end = view.scope.end if view.scope.end is not None else math.inf
        beside = queries.not_on(view.store, [s.entity_id for s in seen], place.on, _ON_OVERLAP, end)
        seen = [s for s in seen if s.entity_id not in beside]
    if subject.motion and seen:  # "how many people were walking?": those seen so in a quarter of their sightings
        values = [f"moving {way}" for way in ("left", "right", "up", "down")] if subject.motion == "moving" else []
        shares = queries.described_share(
            view.store, [s.entity_id for s in seen], "motion", values or [subject.motion], before=view.scope.end
        )
        seen = [s for s in seen if shares.get(s.entity_id, 0.0) >= 0.25]
    if subject.pattern and seen:  # "the plain cup": those described so (for yes / no and counts, only those)
        shares = queries.described_share(
            view.store, [s.entity_id for s in seen], "pattern", [subject.pattern], before=view.scope.end
        )
        patterned = [s for s in seen if shares.get(s.entity_id, 0.0) >= 0.25]
        seen = patterned if (patterned or select) else seen
    return seen


def _ranked(ctx: Context, among: set[int] | None = None, kinds: Sequence[str] | None = None) -> int | None:
    """The entity the search ranks highest (summed over its records), or, when the question names moments, by its
    best record then; ``among``: only these."""
    totals: dict[int, float] = defaultdict(float)
    then: dict[int, float] = defaultdict(float)
    window = ctx.around_seconds
    moments = ctx.moments
    for o in ctx.store.observations_by_id(ctx.evidence.observation_ids):
        if o.entity_id is None or (among is not None and o.entity_id not in among) or (kinds and o.kind not in kinds):
            continue
        score = ctx.evidence.scores.get(("observation", o.id), 0.0)
        totals[o.entity_id] += score
        if any(o.t_start - window <= t <= o.t_end + window for t in moments):
            then[o.entity_id] = max(then[o.entity_id], score)
    ranked = then or totals
    return max(ranked, key=lambda k: ranked[k]) if ranked else None


def _regions_left(view: View) -> View:
    """The view without its parts of the picture (the same view when it has none)."""
    return View(view.store, replace(view.scope, regions=())) if view.scope.regions else view


def among(query: Query, ctx: Context, ids: Sequence[int], subject: Subject | None = None) -> int:
    """The entity of those given (most recently seen first) the question means: the search's subject when it is one of
    them (the question's other words and the moment it names rank it), else the one seen last; for "when first / last"
    with nothing but the kind, the one seen last. With a place and a moment ("the cup that was by the sink at nine"):
    one of those there then."""
    subject = subject or query.subject
    if subject.entity_id is not None:
        return subject.entity_id
    moments = ctx.moments
    generic = not (subject.described or moments)
    if generic and query.intent is Intent.WHEN:
        return ids[0]
    allowed = set(ids)
    if subject.near and moments:
        there: set[int] = set()
        for window in (_AT_MOMENT_S, ctx.around_seconds):  # at the moment, else near it
            there = queries.at_place(ctx.store, ids, subject.near, min(moments) - window, max(moments) + window)
            if there:
                break
        if there:
            allowed = there
            ids = [i for i in ids if i in there]
    if subject.seen_most and len(allowed) > 1:  # "the one seen the most": by its sightings in scope
        counts = {
            s.entity_id: s.observations for s in ctx.view.sightings(subject, detail=True) if s.entity_id in allowed
        }
        if counts:
            pick = max if subject.seen_most == "most" else min
            return pick(counts, key=lambda i: (counts[i], -ids.index(i) if i in ids else 0))
    ranked = _ranked(ctx)
    if ranked in allowed:
        return ranked
    ranked = _ranked(ctx, among=allowed)
    return ranked if ranked is not None else ids[0]


def _not_seen(query: Query, view: View, subject: Subject | None = None, value: object = None) -> NotSeen:
    subject = subject or query.subject
    near = subject.near or query.place.near  # "the guy with the couch": not seen with one
    company = f" {'on' if near[0] in query.place.on else 'with'} {_a(near[0])}" if near else ""
    if subject.not_ids:  # "who else?": none but those already named
        company += " other than " + ", ".join(f"#{i}" for i in subject.not_ids[:6])
    return NotSeen(what=_what(subject) + company, where=where_said(view), when=when_said(view), value=value)


def _a(what: str) -> str:
    return f"an {what}" if what[:1] in "aeiou" else f"a {what}"


def _plural(what: str, n: int) -> str:
    """'person' / 'people', 'red cup' / 'red cups'."""
    if n == 1 or what.endswith("s"):
        return what
    head, _, last = what.rpartition(" ")
    return f"{head} {plural(last)}".strip()


def where_said(view: View) -> str:
    s = view.scope
    parts = []
    if s.cameras:
        parts.append("on camera " + " or ".join(s.cameras))
    if s.zones or s.regions:
        parts.append("at " + " or ".join([*s.zones, *s.regions]))
    return " ".join(parts)


def when_said(view: View) -> str:
    s = view.scope
    if s.start is not None and s.end is not None:
        return f"between {format_utc(s.start, zone=True)} and {format_utc(s.end, zone=True)}"
    if s.start is not None:
        return f"after {format_utc(s.start, zone=True)}"
    if s.end is not None:
        return f"before {format_utc(s.end, zone=True)}"
    return ""


def _primary(query: Query, view: View, seen: list[Sighting]) -> list[int]:
    """A word meaning several kinds ("van": truck or car): the first it names leads."""
    ids = [s.entity_id for s in seen]
    if len(query.subject.kinds) > 1 and not query.subject.generic and not query.subject.seen_most:
        lead = [s.entity_id for s in seen if s.category == query.subject.kinds[0]]
        return lead or ids
    return ids


def continued(ctx: Context, entity_id: int) -> list[tuple[int, int, float]]:
    """GEB's unresolved identity, followed forward: (entity, its continuation, similarity) steps from ``entity_id`` to
    the entities recorded as possibly the same as it that were first seen after it was last seen (never together) and
    whose most similar possibly-same entity it is; at each step the most similar. "Where are the keys?" is then
    answered from the latest of them, and says so."""
    view = ctx.view

    def span(entity: int) -> tuple[float, float] | None:
        seen = view.sightings(Subject(entity_id=entity))
        return (seen[0].first, seen[0].last) if seen else None

    related: dict[int, dict[int, float]] = defaultdict(dict)
    for a, b, score in ctx.store.possibly_same():
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


# -- places a thing was at, and moves ----------------------------------------------------------------------------


def place_of(history: Sequence[Observation]) -> Callable[[Observation], str]:
    """Where an observation of this history says the thing was. On a camera without zones (its things have places
    memory found) only a named place is a place: the image region a worn camera saw a thing in, or a place nobody
    named, says nothing of where it was."""
    if any(o.place_id is not None for o in history):
        return lambda o: o.zone
    return lambda o: o.place


def settled(history: Sequence[Observation], where: Callable[[Observation], str]) -> list[Observation]:
    """The observations of ``history`` (time-ordered) read at a place the thing stayed at: not those read at a place
    less than ``_SETTLE_S`` before it was read at another, nor those read at none."""
    placed = [o for o in history if where(o)]
    kept: list[Observation] = []
    leaves: float | None = None
    for o, after in zip(reversed(placed), [None, *reversed(placed)]):
        if after is not None and where(after) != where(o):
            leaves = after.t_start
        if leaves is None or leaves - o.t_start >= _SETTLE_S:
            kept.append(o)
    return kept[::-1]


def _stays(ctx: Context, subject: int) -> list[Observation]:
    """What grounds "it did not move" in the window asked: where it was seen each time it was seen again (its traces
    begun in it after a place change or :data:`_UNSEEN_S` unseen), at most :data:`_STAYS_CITED`."""
    s = ctx.view.scope
    begun: list[int] = []
    place, seen_to = None, -np.inf
    for tr in traces(ctx.store, subject):
        if s.end is not None and tr.t_start >= s.end:
            break
        again = tr.place != place or tr.t_start - seen_to > _UNSEEN_S
        if again and (s.start is None or tr.t_start >= s.start) and tr.first_observation_id is not None:
            begun.append(tr.first_observation_id)
        place, seen_to = tr.place, max(seen_to, tr.t_end)
    if len(begun) > _STAYS_CITED:
        begun = [begun[int(i)] for i in np.linspace(0, len(begun) - 1, _STAYS_CITED)]
    return [o for o in ctx.store.observations_by_id(begun) if ctx.view.scope.holds(o)]


def _moves(query: Query, ctx: Context, subject: int) -> Moved:
    """How many times the subject came to a place the question names ("got on the sofa": a change of place, or the
    same place again after the camera recorded without it), or changed place ("was moved"), in the window asked."""
    history = ctx.view.context(subject)
    entity = ctx.store.entity(subject)
    s = ctx.view.scope
    named = set(query.place.zones) | set(query.subject.near) | set(query.place.near)
    places = {o.place for o in history if o.place and (o.place in named or o.place.split()[-1] in named)}
    moved = query.event is Event.MOVED
    where = place_of(history)
    # A move is where a thing was put: a place it was read at on its way to another does not count, but says it was
    # carried (put back where it was taken from is a move too).
    kept = {o.id for o in (history if places else settled(history, where))}
    arrivals: list[Observation] = []
    before: list[Observation] = []
    previous: Observation | None = None
    carried = False
    for o in history:
        place = where(o)
        if o.id not in kept:
            carried = carried or bool(place)
            continue
        inside = (s.start is None or o.t_start >= s.start) and (not s.cameras or o.camera in s.cameras)
        last_place = where(previous) if previous is not None else None
        changed = (place != last_place or carried) and (previous is not None or carried or not moved)
        if places and not changed and previous is not None and place == last_place and not ctx.moves(o.camera):
            changed = queries.recorded_without(
                ctx.store, o.camera, subject, previous.t_end, o.t_start, clips=_AWAY_CLIPS
            )
        if inside and place and changed and (place in places if places else True):
            arrivals.append(o)
            if previous is not None:
                before.append(previous)  # where it came from: the other half of the evidence of a move
        if place:
            previous, carried = o, False
    # (no move: where each stay began, and the latest sighting, which "not seen moved; last seen" cites)
    cited = sorted(arrivals + before, key=lambda o: o.t_start) or list(
        {o.id: o for o in [*_stays(ctx, subject), *history[-1:]]}.values()
    )
    cited = [o for o in cited if s.holds(o)] or [o for o in history[-1:] if s.holds(o)]
    return Moved(
        tuple(cited),
        entity=entity,
        n=len(arrivals),
        to=tuple(sorted(places)),
        at=tuple(o.t_start for o in arrivals),
        days=(s.start,) if s.start is not None and s.end is not None and s.end - s.start <= 86400 else (),
    )


# -- the handlers --------------------------------------------------------------------------------------------------


def exists(query: Query, ctx: Context) -> Finding:
    if query.alternative_of == "kind" and query.alternatives:
        return _which_kind(query, ctx)
    if query.alternative_of == "time" and query.windows:
        return _which_time(query, ctx)
    if query.event is Event.RETURNS:
        return _returned(query, ctx)
    seen = candidates(query, ctx.view, select=True)
    if query.event is Event.APPEARS and ctx.view.scope.start is not None:  # "did anyone arrive after 8:31?"
        seen = _came_after(ctx, seen[:_LEAVERS], ctx.view.scope.start)
    what = _what(query.subject)
    company = f" with {_a(query.subject.near[0])}" if query.subject.near else ""
    if query.place.near:
        company += f" {'on' if query.place.near[0] in query.place.on else 'with'} {_a(query.place.near[0])}"
    holds = bool(seen) != query.negated
    if not seen and query.event is Event.LEAVES and query.negated:  # "was anyone still there?": no one was there
        holds = False
    if not seen:
        came = query.event is Event.APPEARS and ctx.view.scope.start is not None
        return Exists(
            holds=holds, seen=False, what=what, where=where_said(ctx.view), when=when_said(ctx.view), company=company,
            negated=query.negated, came=came,
        )  # fmt: skip
    if query.event is Event.LEAVES and _one_thing(query.subject):
        return _left(query, ctx, among(query, ctx, _primary(query, ctx.view, seen)))
    if query.event is Event.MOVED and _one_thing(query.subject):  # "has the phone moved?"
        moved = _moves(query, ctx, among(query, ctx, _primary(query, ctx.view, seen)))
        return replace(moved, asked=True, negated=query.negated)
    left: int | None = None
    o = ctx.view.history(max(seen, key=lambda s: s.last).entity_id)[-1:]
    if query.event is Event.LEAVES:  # "did anyone leave?", "was anyone still there?", "did everyone leave?"
        left, holds, o = _any_left(query, ctx, seen[:_LEAVERS], o)
    return Exists(
        tuple(o),
        holds=holds,
        seen=True,
        what=what,
        n=len(seen) if left is None else min(len(seen), _LEAVERS),
        where=where_said(ctx.view),
        when=when_said(ctx.view),
        company=company,
        negated=query.negated,
        left=left,
    )


#: Words that ask of each of them: "did everyone leave?" holds when all did.
_EVERY = frozenset({"everyone", "everybody", "all", "every", "each"})


def _came_after(ctx: Context, seen: Sequence[Sighting], start: float) -> list[Sighting]:
    """Those first seen (on the cameras asked about) at ``start`` or later: they came then, not were there already."""
    cameras = ctx.view.scope.cameras
    came = []
    for s in seen:
        first = next((o for o in ctx.store.observations(s.entity_id) if not cameras or o.camera in cameras), None)
        if first is not None and first.t_start >= start:
            came.append(s)
    return came


def _any_left(
    query: Query, ctx: Context, seen: Sequence[Sighting], last: list[Observation]
) -> tuple[int, bool, list[Observation]]:
    """(how many of them left, the answer, its evidence) of leaving asked of several: "did anyone leave?" holds when
    one did (the last to leave cited); "was anyone still there?" (negated) when one did not (the last one seen cited);
    "did everyone leave?" when all did."""
    leaving = [_leaving(ctx, s.entity_id) for s in seen]
    gone = [o for o, went, _, _ in leaving if went]
    stayed = [o for o, went, _, _ in leaving if not went]
    if query.subject.said in _EVERY or query.quantity is not None and query.compare == "all":
        holds = not stayed
    else:
        holds = bool(stayed) if query.negated else bool(gone)
    cited = stayed if query.negated else gone
    return len(gone), holds, [max(cited, key=lambda g: g.t_end)] if cited else last


#: Words for any one thing or person: "was anybody seen on more than one camera?" asks of each one
_ONE_OF_ANY = frozenset({"anyone", "anybody", "someone", "somebody", "anything", "something"})
#: Words that name no one thing: "did anyone leave?" asks whether any was seen leaving, not whether one did.
_ANY_ONE = frozenset(
    {"anyone", "anybody", "someone", "somebody", "everyone", "everybody", "people", "persons", "nobody", "noone"}
)


def _holds(finding: Finding) -> bool:
    """Whether a yes / no finding says yes."""
    typed = finding.typed
    return bool(typed.holds) if isinstance(typed, YesNo) else bool(typed)


def _one_thing(subject: Subject) -> bool:
    """Whether the question's subject is one thing ("the van", "Alice"), not anything or anyone."""
    return subject.entity_id is not None or (
        bool(subject.kinds) and not subject.generic and not subject.many and subject.said not in _ANY_ONE
    )


#: At most this many things are checked for whether any of them left ("did anyone leave?").
_LEAVERS = 200


def _leaving(ctx: Context, subject: int) -> tuple[Observation, bool, float | None, Taking | None]:
    """(its last sighting in the window asked, whether it left, until when its camera recorded, its taking): it left
    when that sighting ended ``queries.LEFT_S`` or more before its camera's recording did (it went out of view and
    stayed out), or it was taken there."""
    o = ctx.view.history(subject)[-1]
    end = ctx.view.scope.end
    until = queries.recorded_until(ctx.store, o.camera, end)
    until = min(until, end) if until is not None and end is not None else until  # as of the end of the window asked
    taken = ctx.store.taken(subject, ctx.view.scope.end)
    taken = taken if taken is not None and taken.observation_id == o.id else None
    return o, taken is not None or (until is not None and until - o.t_end >= queries.LEFT_S), until, taken


def _left(query: Query, ctx: Context, subject: int) -> Finding:
    """ "Did the van leave?": whether it left (:func:`_leaving`); else it was still in view when the recording
    ended."""
    o, left, until, taken = _leaving(ctx, subject)
    return Left(
        (o,),
        holds=left != query.negated,
        left=left,
        entity=ctx.store.entity(subject),
        observation=o,
        recorded_until=until,
        taken=taken,
        negated=query.negated,
    )


def _returned(query: Query, ctx: Context) -> Finding:
    """ "Did the woman come back later?": whether it was seen again after :data:`_UNSEEN_S` or more out of view."""
    seen = candidates(query, ctx.view)
    if not seen:
        return _not_seen(query, ctx.view)
    subject = among(query, ctx, _primary(query, ctx.view, seen))
    history = ctx.view.history(subject)
    if not history:
        return _not_seen(query, ctx.view)
    back = [(a, b) for a, b in zip(history, history[1:]) if b.t_start - a.t_end > _UNSEEN_S]
    entity = ctx.store.entity(subject)
    if back:
        gone, again = back[-1]
        return Returned((gone, again), entity=entity, gone=gone, back=again)
    last = history[-1]
    until = queries.recorded_until(ctx.store, last.camera, ctx.view.scope.end)
    return Returned((last,), entity=entity, gone=last, recorded_until=until)


def _which_time(query: Query, ctx: Context) -> Finding:
    """ "Was it before or after 10:30?": of the windows said, the ones it was seen in, with how many sightings."""
    support: list[tuple[str, int]] = []
    evidence: list[Observation] = []
    for said, window in zip(query.alternatives, query.windows):
        view = View.of(ctx.store, Side(query.subject, query.place, window))
        seen = candidates(query, view, select=True, detail=True)
        support.append((said, sum(s.observations for s in seen)))
        evidence.extend(view.history(seen[0].entity_id)[-1:] if seen else [])
    present = [said for said, n in support if n > 0]
    chosen = "both" if len(present) == 2 else present[0] if present else None
    return Alternatives(tuple(evidence), of="time", chosen=chosen, support=tuple(support), whose=_what(query.subject))


def _which_kind(query: Query, ctx: Context) -> Finding:
    """ "Was it a van or a bus?": which of the kinds named was seen (in scope), with how many."""
    from edge_agent.language.lexicon import Lexicon

    words = Lexicon().kind_words()
    said = query.subject  # "was the white vehicle a truck or a car?": of each kind, those described so
    named = tuple(k for word in query.alternatives for k in words.get(word, ()))

    def as_said(word: str) -> Subject | None:
        if words.get(word):
            return replace(said, kinds=words[word], generic=False)
        if GENERIC.get(word) == () and word not in NEGATIVE_SUBJECTS:  # "a person, or just things?": anything else
            return replace(said, kinds=(), generic=True, exclude=said.exclude + named)
        return None

    sides = {word: as_said(word) for word in query.alternatives}
    seen_as = {
        word: candidates(query, ctx.view, side, select=True, detail=True) if side is not None else []
        for word, side in sides.items()
    }
    # a thing either word names counts for the narrower one: a cell phone is a "phone" rather than a "tablet"
    narrowest: dict[int, int] = {}
    for word, seen in seen_as.items():
        for s in seen:
            narrowest[s.entity_id] = min(narrowest.get(s.entity_id, 1 << 30), len(words.get(word, ())))
    support: list[tuple[str, int]] = []
    evidence: list[Observation] = []
    for word, seen in seen_as.items():
        seen = [s for s in seen if len(words.get(word, ())) == narrowest[s.entity_id]]
        support.append((word, sum(s.observations for s in seen)))
        if seen:
            evidence.extend(ctx.view.history(seen[0].entity_id)[-1:])
    present = [word for word, n in support if n > 0]
    best = max(support, key=lambda x: x[1])
    chosen = "both" if len(present) >= 2 and len(support) == 2 else best[0] if best[1] > 0 else None
    if query.negated:  # "which of these was never seen?": the one that was not
        unseen = [word for word, n in support if n == 0]
        chosen = unseen[0] if len(unseen) == 1 else None if unseen else "none"
    none = tuple(word for word, seen in seen_as.items() if not seen and word != chosen)
    return Alternatives(
        tuple(evidence), of="kind", chosen=chosen, support=tuple(support), whose=where_said(ctx.view), unseen=none
    )


def where(query: Query, ctx: Context) -> Finding:
    seen = candidates(query, ctx.view)
    if not seen:
        return _not_seen(query, ctx.view)
    ids = _primary(query, ctx.view, seen)
    if query.alternative_of == "place" and query.alternatives:
        return _which_place(query, ctx, ids)
    if query.alternative_of == "region" and query.alternatives:
        said = _regions_said(query)
        # "did the baby sit at the bottom centre or at the top right?": of several people, the one at either
        at_one = [i for i in ids if any(_where_now(ctx, i, regions) for _, regions in said)]
        return _which_region(query, ctx, among(query, ctx, at_one or ids), said)
    plain = not (query.subject.described or ctx.moments or query.subject.entity_id is not None)
    if plain and query.order in (Order.FIRST, Order.LAST):  # "where was the last person you saw?": by time
        pick = min(seen, key=lambda s: s.first) if query.order is Order.FIRST else max(seen, key=lambda s: s.last)
        return _seen(query, ctx, pick.entity_id, when=False)
    return _seen(query, ctx, among(query, ctx, ids), when=False)


def _which_place(query: Query, ctx: Context, ids: list[int]) -> Finding:
    """ "Was the book by the bed or by the nightstand (at nine)?": of the places said, the one it was last seen at in
    the window asked (of several such things, one seen at either place then)."""
    said = query.alternatives
    s = ctx.view.scope
    there = queries.at_place(ctx.store, ids, said, s.start if s.start is not None else 0.0, s.end or 1e18)
    subject = among(query, ctx, [i for i in ids if i in there] or ids)
    history = ctx.view.history(subject)
    where = place_of(history)
    at = [o for o in history if where(o) in said]
    chosen = where(at[-1]) if at else None
    return Alternatives(
        tuple(at[-1:] or history[-1:]),
        of="place",
        chosen=chosen,
        support=tuple((p, sum(1 for o in at if where(o) == p)) for p in said),
        whose=ctx.entity_label(subject),
    )


def _regions_said(query: Query) -> list[tuple[str, tuple[str, ...]]]:
    """Each alternative the question gives ("at the bottom centre or at the top right") with its image regions."""
    from edge_agent.language.lexicon import Lexicon

    lexicon = Lexicon()
    out = []
    for said in query.alternatives:
        tag = next((t for s in lexicon.tag(said.split()) for t in s.tags if t.type == "region"), None)
        out.append((said, tuple(tag.value) if tag is not None else ()))
    return out


def _where_now(ctx: Context, subject: int, regions: Sequence[str]) -> int:
    """How many of the sightings that say where the subject is (its last one with a region, else all) are in
    ``regions``."""
    history = ctx.view.history(subject)
    where_now = [o for o in history[-1:] if o.region] or history
    return sum(1 for o in where_now if o.region in regions)


def _which_region(query: Query, ctx: Context, subject: int, said: list[tuple[str, tuple[str, ...]]]) -> Finding:
    history = ctx.view.history(subject)
    support = [(alternative, _where_now(ctx, subject, regions)) for alternative, regions in said]
    best = max(support, key=lambda x: x[1])
    return Alternatives(
        tuple(history[-1:]),
        of="region",
        chosen=best[0] if best[1] else None,
        support=tuple(support),
        whose=ctx.entity_label(subject),
    )


def _seen(query: Query, ctx: Context, subject: int, *, when: bool) -> Finding:
    first = query.order is Order.FIRST or (when and query.event is Event.APPEARS and query.order is not Order.LAST)
    named = query.subject.entity_id is not None  # "when did #9 leave?": that entity, not what it may have become
    chain = [] if first or named else continued(ctx, subject)
    colours = _colours(query.subject)
    if chain and colours:  # "where was the person in grey?": not a continuation described otherwise
        shares = queries.described_share(ctx.store, [chain[-1][1]], "colour", colours, before=ctx.view.scope.end)
        chain = chain if shares.get(chain[-1][1], 0.0) >= 0.25 else []
    if chain:  # the last sighting is that of its most likely continuation
        subject = chain[-1][1]
    history = ctx.view.history(subject)
    if not history:
        return _not_seen(query, ctx.view)
    o = history[0] if first else history[-1]
    arrived = when and not first and query.event is Event.APPEARS  # "when did it come back?": its last stay's start
    if arrived:
        o = [b for a, b in zip([None, *history], history) if a is None or b.t_start - a.t_end > _UNSEEN_S][-1]
    at: float | None = None
    scope = ctx.view.scope
    if not (when or first or query.event is Event.LEAVES or query.subject.near or query.subject.clause) and (
        ctx.moments and scope.start is None and scope.end is None
    ):  # "where was the car at 09:00:45?": its sighting then (a moment in "the cup by the sink at 9" picks which)
        nearest = _at(history, ctx.moments)[0]
        if max(nearest.t_start - ctx.moments[0], ctx.moments[0] - nearest.t_end) <= ctx.around_seconds:
            o, at = nearest, ctx.moments[0]
    then = [] if when or at is not None else [h for h in _at(history, ctx.moments) if h.id != o.id]
    steps = []
    for earlier, later, score in chain:
        last_id = queries.last_observation_of(ctx.store, earlier, ctx.view.scope.end)
        if last_id is not None:
            steps.append((earlier, later, score, ctx.store.observation(last_id)))
    evidence = [s[3] for s in steps] + then + [o]
    taken = None if first else ctx.store.taken(subject, ctx.view.scope.end)
    if taken is not None and taken.observation_id != o.id:
        taken = None  # taken after a sighting the question's scope leaves out
    taker = ctx.store.entity(taken.by_entity_id) if taken is not None and taken.by_entity_id is not None else None
    if taken is not None and taken.by_observation_id is not None:  # who took it, where the question's scope holds it
        evidence += [p for p in ctx.store.observations_by_id([taken.by_observation_id]) if ctx.view.scope.holds(p)]
    leaving = query.event is Event.LEAVES
    stayed_until = None
    if leaving and not first and taken is None:  # "when did the van leave?": had it?
        _, went, until, _ = _leaving(ctx, subject)
        stayed_until = until if not went and until is not None else None
    return Seen(
        tuple(evidence),
        entity=ctx.store.entity(subject),
        observation=o,
        first=first,
        when_asked=when,
        leaving=leaving,
        stayed_until=stayed_until,
        arrived=arrived,
        chain=tuple(steps),
        taken=taken,
        taker=taker,
        at=at,
        ago_from=ctx.view.scope.end if query.asks == "ago" else None,
    )


def _at(history: Sequence[Observation], moments: Sequence[float]) -> list[Observation]:
    """The subject's observation nearest each moment the question names."""
    return [min(history, key=lambda o: abs((o.t_start + o.t_end) / 2 - t)) for t in moments] if history else []


def when(query: Query, ctx: Context) -> Finding:
    seen = candidates(query, ctx.view)
    if not seen:
        return _not_seen(query, ctx.view)
    one_named = query.subject.described or ctx.moments or query.subject.entity_id is not None
    if query.event is Event.LEAVES and query.order in (Order.FIRST, Order.LAST) and not one_named:
        # "who left first?": of those that left (not still in view when recording ended), the earliest to go
        went = [s for s in seen[:_RANKED_LEAVERS] if _leaving(ctx, s.entity_id)[1]] or seen
        pick = min if query.order is Order.FIRST else max
        subject = pick(went, key=lambda s: (s.last, s.entity_id)).entity_id
        one = replace(query, order=None, subject=replace(query.subject, entity_id=subject))  # that one, as it went
        return _seen(one, ctx, subject, when=True)
    if query.order is Order.FIRST and not one_named:
        subject = min(seen, key=lambda s: (s.first, s.entity_id)).entity_id  # "the earliest anyone came": of them all
    elif query.order is Order.LAST and query.event is Event.APPEARS and not one_named:
        subject = max(seen, key=lambda s: (s.first, s.entity_id)).entity_id  # "who showed up last": came latest
    else:
        subject = among(query, ctx, _primary(query, ctx.view, seen))
    return _seen(query, ctx, subject, when=True)


def count(query: Query, ctx: Context) -> Finding:
    """How many (of what: ``aggregate``), of this side against the other's, or held against a number."""
    if query.quantity is not None and query.aggregate is Aggregate.CAMERAS and query.subject.said in _ONE_OF_ANY:
        found: Finding = _one_on_most_cameras(query, ctx)  # "was anybody seen on more than one camera?"
    else:
        found = _count(query, ctx)
    if query.quantity is None:
        return found
    if isinstance(found, NotSeen):  # none at all: held against the number too ("fewer than 3 dogs?": yes)
        aggregate = query.aggregate or Aggregate.THINGS
        found = Count(n=0, unit=aggregate.value, what=found.what, where=found.where, when=found.when)
    return replace(found, against=query.quantity, compare=query.compare) if isinstance(found, Count) else found


def _one_on_most_cameras(query: Query, ctx: Context) -> Finding:
    """ "Was anybody seen on more than one camera?": the cameras of the one thing seen on the most of them (one
    thing on several cameras, not several things on several cameras)."""
    seen = candidates(query, ctx.view, select=True, detail=True)
    if not seen:
        return _not_seen(query, ctx.view, value=0)
    best = max(seen, key=lambda s: (len(s.cameras), s.last, s.entity_id))
    history = ctx.view.history(best.entity_id)
    return Count(
        tuple(history[-1:]),
        n=len(best.cameras),
        unit="cameras",
        what=f"{best.category} #{best.entity_id} (seen on the most)",
        names=tuple(sorted(best.cameras)),
        observations=best.observations,
        where=where_said(ctx.view),
        when=when_said(ctx.view),
    )


def _count(query: Query, ctx: Context) -> Finding:
    side, other_side = query.sides()
    if query.compare and other_side is not None and ctx.other is not None:
        mine = _count_things(query, ctx.view, side)
        theirs = _count_things(query, ctx.other, other_side)
        which = query.alternatives if query.alternative_of in ("camera", "colour", "kind") else ()
        return replace(
            mine,
            other=theirs,
            compare=query.compare,
            evidence=mine.evidence + theirs.evidence,
            which=which,
            by_how_many=not query.yes_no and not which and query.compare in ("more", "fewer"),
        )
    aggregate = query.aggregate or Aggregate.THINGS
    if aggregate is Aggregate.TIMES and (
        query.event in (Event.MOVED, Event.ARRIVES_AT) or query.place.zones or query.subject.near
    ):
        seen = candidates(query, ctx.view)
        if not seen:
            return _not_seen(query, ctx.view, value=0)
        return _moves(query, ctx, among(query, ctx, [s.entity_id for s in seen]))
    counted = aggregate in (Aggregate.THINGS, Aggregate.SIGHTINGS, Aggregate.TIMES)
    seen = candidates(query, ctx.view, select=True, detail=counted)
    if not seen:
        return _not_seen(query, ctx.view, value=0)
    if aggregate is Aggregate.THINGS:
        return _count_things(query, ctx.view, side, seen)
    if aggregate is Aggregate.AT_ONCE:
        return _at_once(query, ctx.view, seen)
    anyone = query.subject.many or query.subject.generic or query.subject.said in _ANY_ONE  # "did someone appear"
    if aggregate in (Aggregate.TIMES, Aggregate.SIGHTINGS) and not anyone:
        one = among(query, ctx, [s.entity_id for s in seen])  # once: it reads the search's evidence
        seen = [s for s in seen if s.entity_id == one]
    if aggregate is Aggregate.KINDS:  # "what did you see most of?": the things of each kind, most first
        per_kind: dict[str, list[Sighting]] = {}
        for s in seen:
            per_kind.setdefault(s.category, []).append(s)
        sign = 1 if query.rank == "fewest" else -1
        ranked = sorted(per_kind.items(), key=lambda kv: (sign * len(kv[1]), kv[0]))
        top = ranked[0][1] if ranked else []
        return Kinds(
            tuple(o for s in top[:1] for o in ctx.view.history(s.entity_id)[-1:]),
            counts=tuple((kind, len(things)) for kind, things in ranked),
            fewest=query.rank == "fewest",
            where=where_said(ctx.view),
            when=when_said(ctx.view),
            counted=query.subject.said.split(" ")[0] in ("kind", "kinds", "type", "types", "sort", "sorts"),
        )
    if aggregate is Aggregate.COLOURS:  # "how many colours did the people wear?": each one's likeliest colour
        colour_of = ctx.view.likeliest([s.entity_id for s in seen], "colour")
        colours = sorted(Counter(colour_of.values()).items(), key=lambda kv: (-kv[1], kv[0]))
        shown = [next(e for e, c in colour_of.items() if c == colour) for colour, _ in colours[:_LISTED_COLOURS]]
        return Count(
            tuple(o for e in shown for o in ctx.view.history(e)[-1:]),
            n=len(colours),
            unit="colours",
            what=_what(query.subject),
            names=tuple(f"{colour} ({n})" for colour, n in colours),
            observations=len(colour_of),
            where=where_said(ctx.view),
            when=when_said(ctx.view),
        )
    if aggregate is Aggregate.CAMERAS:  # counted by the database, however many things of that kind there are
        per_camera = ctx.view.cameras_seeing([s.entity_id for s in seen])
        return Count(
            tuple(ctx.store.observations_by_id([c.last_observation for c in per_camera])),
            n=len(per_camera),
            unit="cameras",
            what=_what(query.subject),
            names=tuple(sorted(c.camera for c in per_camera)),
            observations=sum(c.observations for c in per_camera),
            where=where_said(ctx.view),
            when=when_said(ctx.view),
        )
    return _count_seen(query, ctx, seen, aggregate, counted)


def _count_seen(query: Query, ctx: Context, seen: list[Sighting], aggregate: Aggregate, counted: bool) -> Count:
    """Places, days, visits or sightings of the things seen: places and days from the observations of the most
    recently seen (at most LIST_LIMIT things); sightings counted by the database, cited by at most _STAYS_CITED."""
    histories = {s.entity_id: ctx.view.history(s.entity_id) for s in seen[:LIST_LIMIT]}
    observations = sorted((o for h in histories.values() for o in h), key=lambda o: (o.t_start, o.id))
    cited = observations
    if len(cited) > _STAYS_CITED:
        cited = [observations[int(i)] for i in np.linspace(0, len(observations) - 1, _STAYS_CITED)]
    if aggregate is Aggregate.PLACES:  # the rooms (cameras) it was in; on one camera, the spots there
        cameras = sorted({o.camera for o in observations})
        spots = (o.zone or (f"place {o.place_id}" if o.place_id else o.region) for o in observations)
        names = tuple(f"camera {c}" for c in cameras) if len(cameras) > 1 else tuple(sorted(set(spots)))
        n = len(names)
    elif aggregate is Aggregate.DAYS:
        names = tuple(sorted({format_utc(o.t_start)[:10] for o in observations}))
        n = len(names)
    elif aggregate is Aggregate.TIMES and query.event is Event.APPEARS:  # "how many times did the car show up?"
        names = ()
        n = sum(_visits(ctx.store, h) for h in histories.values())
    else:
        names = ()
        n = sum(s.observations for s in seen)
    return Count(
        tuple(cited),
        n=n,
        unit=aggregate.value if aggregate is not Aggregate.TIMES else "sightings",
        what=_what(query.subject),
        names=names,
        observations=sum(s.observations for s in seen) if counted else len(observations),
        where=where_said(ctx.view),
        when=when_said(ctx.view),
        days=len({format_utc(o.t_start)[:10] for o in observations}),
    )


def _visits(store: Store, history: Sequence[Observation]) -> int:
    """How many times a thing came (not each clip it was in): its sightings in time order, a new visit where it was
    seen on another camera, or unseen longer than ``_UNSEEN_S`` while its camera recorded without it (as a stay
    is told in :func:`duration`)."""
    visits = 0
    for previous, o in zip([None, *history], history):
        if previous is None or o.camera != previous.camera:
            visits += 1
        elif o.t_start - previous.t_end > _UNSEEN_S and o.entity_id is not None:
            visits += queries.recorded_without(store, o.camera, o.entity_id, previous.t_end, o.t_start)
    return visits


def _at_once(query: Query, view: View, seen: list[Sighting]) -> Count:
    """ "How many people were on the street at the same time?": the most of them in view together (their observations'
    spans overlapping; one that ends as another starts is not with it), when that first was, and who they were."""
    observations = [o for s in seen[:LIST_LIMIT] for o in view.history(s.entity_id)]
    spans = [(o.t_start, 1, o) for o in observations] + [(o.t_end, -1, o) for o in observations]
    active: Counter[int] = Counter()
    there: dict[int, Observation] = {}
    most, at, cited = 0, None, []
    for t, step, o in sorted(spans, key=lambda e: (e[0], e[1], e[2].id)):
        entity = o.entity_id if o.entity_id is not None else -o.id
        active[entity] += step
        if step > 0:
            there[entity] = o
        elif not active[entity]:
            there.pop(entity, None)
        if len(there) > most:
            most, at, cited = len(there), t, list(there.values())
    return Count(
        tuple(sorted(cited, key=lambda o: (o.t_start, o.id))),
        n=most,
        unit=Aggregate.AT_ONCE.value,
        what=_what(query.subject),
        names=tuple(sorted({o.camera for o in cited})),
        observations=len(cited),
        where=where_said(view),
        when=when_said(view),
        at=at,
    )


def _count_things(query: Query, view: View, side: Side, seen: list[Sighting] | None = None) -> Count:
    seen = seen if seen is not None else candidates(query, view, side.subject, select=True, detail=True)
    if query.event is Event.APPEARS and view.scope.start is not None and len(seen) <= _NEW_CHECKED:
        # "how many people showed up after 9:01?": those first seen then (there), not every one still in view
        before = View(view.store, replace(view.scope, start=None, end=view.scope.start))
        seen = [s for s in seen if not before.history(s.entity_id)]
    near = [*side.subject.near, *query.place.near]
    latest_ids = [queries.last_observation_of(view.store, s.entity_id, view.scope.end) for s in seen[:10]]
    latest = [o for o in view.store.observations_by_id([i for i in latest_ids if i is not None]) if view.scope.holds(o)]
    if len(latest) < len(latest_ids):  # the latest overall is out of scope: the latest in it
        latest = [h[-1] for s in seen[:10] for h in [view.history(s.entity_id)] if h]
    sightings = query.aggregate is Aggregate.SIGHTINGS and query.other is not None  # "seen more often, A or B?"
    return Count(
        tuple(latest),
        n=sum(s.observations for s in seen) if sightings else len(seen),
        unit="sightings" if sightings else "things",
        what=_what(side.subject),
        company=f" with {_a(singular(near[0]))}" if near else "",
        names=tuple(sorted({c for s in seen for c in s.cameras})),
        observations=sum(s.observations for s in seen),
        where=where_said(view),
        when=when_said(view),
    )


#: How many things a count of those that appeared in a window checks one by one for an earlier sighting.
_NEW_CHECKED = 500


def _values_of(field: str, said: str) -> tuple[str, ...]:
    """The describer's values a word of a question covers, for one field."""
    if field == "colour":
        return tuple(n for n in COLOUR_WORDS.get(said, (said,)) if n)
    if field == "pattern":
        return (PATTERN_WORDS.get(said, said),)
    if field == "motion":
        return (MOTION_WORDS.get(said, said),)
    return (SIZE_WORDS.get(said, said),)


def attribute(query: Query, ctx: Context) -> Finding:
    """The described field asked about (colour, pattern, motion, size), by majority over the observations of the
    subject (or, for "most people", of all of that kind), with how many said so and the latest that did; for "A or
    B", the one memory says more often; asked which way (``asks`` "direction"), the motion with its way."""
    direction = query.asks == "direction"  # "which way was it going?": the motion, each way apart
    field = "motion" if direction else query.asks or "colour"
    side, other = query.sides()
    if other is not None and query.yes_no and len(query.alternatives) == 1:  # "were the car and the truck white?"
        parts = (
            attribute(replace(query, other=None), ctx),
            attribute(replace(query, subject=other.subject, place=other.place, time=other.time, other=None), ctx),
        )
        return Both(tuple(o for p in parts for o in p.evidence), parts=parts, holds=all(_holds(p) for p in parts))
    subject = replace(query.subject, colours=()) if field == "colour" else query.subject
    seen = candidates(query, ctx.view, subject)
    if not seen:
        return _not_seen(query, ctx.view, subject)
    ids = _primary(query, ctx.view, seen)
    every = query.subject.said in _EVERY_ONE and query.yes_no and len(query.alternatives) == 1
    many = query.subject.many or query.subject.generic or every
    pool = ids if many else [among(query, ctx, ids, subject)]
    if every and query.alternative_of == field:  # "was everyone in the front yard wearing black?": each of them
        return _each_so(query, ctx, pool, field, subject)
    values = ctx.view.described_as(pool, field)
    if field == "motion":  # moving this way or that is moving; seen briefly says nothing
        merged: dict[str, list[float]] = {}
        for value, n, last, end in values:
            key = "moving" if value.startswith("moving") and not direction else value
            if key != "brief":
                m = merged.setdefault(key, [0, last, end])
                m[0] += n
                m[1:] = [last, end] if end > m[2] else m[1:]
        values = sorted(((k, int(n), int(i), t) for k, (n, i, t) in merged.items()), key=lambda v: (-v[1], -v[3]))
    whose = f"the {len(pool)} {_plural(_what(subject), len(pool))} seen" if many else ctx.entity_label(pool[0])
    if query.alternatives and query.alternative_of == field:
        counts = {v: n for v, n, _, _ in values}
        support = tuple((said, sum(counts.get(v, 0) for v in _values_of(field, said))) for said in query.alternatives)
        top = values[0][0] if values else ""
        if len(query.alternatives) == 1:  # "was the couch blue?": yes when memory says so most
            said = query.alternatives[0]
            chosen = said if top in _values_of(field, said) else None
        else:
            best = max(support, key=lambda x: x[1])
            chosen = best[0] if best[1] else None
        latest = [ctx.store.observation(values[0][2])] if values else []
        return Alternatives(
            tuple(latest), of=field, chosen=chosen, support=support, whose=whose, yes_no=len(query.alternatives) == 1
        )
    if not values:
        return Attribute(field=field, whose=whose)
    value, n, last, _ = values[0]
    o = ctx.store.observation(last)
    return Attribute(
        (o,),
        field=field,
        value=value,
        n=n,
        total=sum(v[1] for v in values),
        others=tuple((k, v) for k, v, _, _ in values[1:4]),
        whose=whose,
        latest=o,
    )


#: Words for every one of the things asked about: "was everyone wearing black?"
_EVERY_ONE = frozenset({"everyone", "everybody", "everything", "all"})


def _each_so(query: Query, ctx: Context, pool: Sequence[int], field: str, subject: Subject) -> Finding:
    """Whether every one of ``pool`` is mostly described with the value asked ("was everyone in black?"): how many
    are, of how many."""
    said = query.alternatives[0]
    wanted = _values_of(field, said)
    so = [e for e in pool if (top := ctx.view.described_as([e], field)) and top[0][0] in wanted]
    latest = [ctx.store.observation(ctx.view.history(e)[-1].id) for e in (so or pool)[-1:] if ctx.view.history(e)]
    return Alternatives(
        tuple(latest),
        of=field,
        chosen=said if len(so) == len(pool) else None,
        support=((said, len(so)),),
        whose=f"the {len(pool)} {_plural(_what(subject), len(pool))} seen",
        yes_no=True,
        each=len(pool),
    )


def which_camera(query: Query, ctx: Context) -> Finding:
    seen = candidates(query, ctx.view, detail=bool(query.rank))
    cameras = ctx.view.cameras()
    if query.alternative_of == "camera" and query.alternatives:
        cameras = [c for c in query.alternatives]
    if not seen and not query.negated:
        return _not_seen(query, ctx.view)
    ids = [s.entity_id for s in seen]
    # ("which rooms had no one in red?": none of them, not the likeliest one; "which room was the person in red in?":
    # each room one so described was in, which memory could not tell apart)
    narrowing = ctx.moments or query.subject.near
    one = among(query, ctx, ids) if (ids and narrowing and not query.subject.many and not query.negated) else None
    per_camera = ctx.view.cameras_seeing([one] if one is not None else ids) if ids else []
    per_camera = [c for c in per_camera if c.camera in cameras]
    order = query.order
    if query.asks == "only" and query.alternatives:  # "was the kitchen the only place with a bowl?": every camera
        every = ctx.view.cameras_seeing(ids) if ids else []
        everywhere = sorted(every, key=lambda c: (c.camera != query.alternatives[0], -c.last))
        return Cameras(
            tuple(ctx.store.observations_by_id([c.last_observation for c in everywhere])),
            what=_what(query.subject),
            seen=tuple((c.camera, c.observations, c.last) for c in everywhere),
            only=query.alternatives[0],
        )
    if order in (Order.AFTER, Order.BEFORE) and (mark := _camera_mark(query, ctx)) is not None:
        # "which room saw someone right after the bedroom?": the cameras whose first sighting came after (or last one
        # before) that camera's, the nearest first
        other, t = mark
        after = order is Order.AFTER
        per_camera = [c for c in per_camera if c.camera != other and (c.first > t if after else c.last < t)]
        order = Order.FIRST if after else Order.LAST
    if order is Order.LAST:
        ranked = sorted(per_camera, key=lambda c: -c.last)
    elif order is Order.FIRST:  # "which room saw someone first?", "in which order ...": by the first sighting
        ranked = sorted(per_camera, key=lambda c: c.first)
    else:
        ranked = sorted(per_camera, key=lambda c: (-c.observations, -c.last))
    things: list[tuple[str, int]] = []
    if query.rank:  # "which room had the most people?": by how many of them each camera saw, ties by sightings
        per = Counter(c for s in seen for c in s.cameras if c in cameras)
        sightings = {c.camera: c.observations for c in per_camera}
        if query.aggregate is Aggregate.SIGHTINGS:  # "rank the cameras by how many sightings they had"
            per = Counter(sightings)
        things = sorted(((c, per.get(c, 0)) for c in cameras), key=lambda t: (-t[1], -sightings.get(t[0], 0), t[0]))
        if query.rank == "fewest":
            things.reverse()
        order_of = {c: i for i, (c, _) in enumerate(things)}
        ranked = sorted(ranked, key=lambda c: order_of.get(c.camera, len(order_of)))
    evidence = ctx.store.observations_by_id([c.last_observation for c in ranked])
    return Cameras(
        tuple(evidence),
        what="sighting" if query.rank and query.aggregate is Aggregate.SIGHTINGS else _what(query.subject),
        seen=tuple((c.camera, c.observations, c.last) for c in ranked),
        not_seen=tuple(c for c in cameras if c not in {r.camera for r in ranked}),
        negated=query.negated,
        rank=query.rank,
        things=tuple(things),
        order=order.value if order in (Order.FIRST, Order.LAST) and not query.rank else "",
        moments=tuple(c.first if order is Order.FIRST else c.last for c in ranked),
    )


def _camera_mark(query: Query, ctx: Context) -> tuple[str, float] | None:
    """(the camera, its moment) of "after the bedroom" / "before the kitchen" said of a camera alone: when it last
    saw (after) or first saw (before) what the question asks about, or anything."""
    other = query.other
    if other is None or len(other.place.cameras) != 1 or other.subject.named or ctx.other is None:
        return None
    camera = other.place.cameras[0]
    subject = query.subject if query.subject.named else Subject(generic=True)
    seen = [s for s in ctx.other.sightings(subject) if camera in s.cameras] or ctx.other.sightings(
        Subject(generic=True)
    )
    if not seen:
        return None
    after = query.order is Order.AFTER
    return camera, (max(s.last for s in seen) if after else min(s.first for s in seen))


_LISTED_COLOURS = 6  #: of "how many colours?", the colours whose latest sighting is cited
_RANKED_LEAVERS = 50  #: of how many things "who left first?" is asked (the most recently seen)
_TOGETHER_S = 1.0  #: sightings this close in time are together (frames are sampled about 2 a second)


def company(query: Query, ctx: Context) -> Finding:
    """Who (or what) was with the subject: in the same clip, at the moment the question names, else the latest
    time any was."""
    # "were the car and the truck seen together?": with the things named, not whoever
    wanted = set(query.subject.near) if query.yes_no else set()
    people_only = query.asks == "person" and not wanted
    seen = candidates(query, ctx.view)
    if not seen:
        return _not_seen(query, ctx.view)
    subject = among(query, ctx, _primary(query, ctx.view, seen))
    history = ctx.view.history(subject)
    moments = ctx.moments
    order = (
        sorted(history, key=lambda o: min(abs(o.t_start - t) for t in moments)) if moments else list(reversed(history))
    )
    for o in order:
        with_ = [
            p
            for p in ctx.store.observations_in_clip(o.clip_id)
            if p.entity_id is not None
            and p.entity_id != subject
            and (p.category in wanted if wanted else p.kind == "person" or not people_only)
            and p.t_start <= o.t_end + _TOGETHER_S
            and p.t_end >= o.t_start - _TOGETHER_S  # in view at the same time, not only in the same clip
        ]
        if with_:  # who was with it: people; what was: the things first, then the people
            people_first = sorted(with_, key=lambda p: ((p.kind != "person") == people_only, p.id))
            return Company(
                (o, *people_first[:6]),
                entity=ctx.store.entity(subject),
                people_only=people_only,
                with_=tuple((ctx.store.entity(p.entity_id), p) for p in people_first[:6] if p.entity_id is not None),
                at=o,
                yes_no=query.yes_no,
                alone=query.negated,
            )
    return Company(
        tuple(history[-1:]),
        entity=ctx.store.entity(subject),
        people_only=people_only,
        at=None,
        yes_no=query.yes_no,
        alone=query.negated,
    )


def listing(query: Query, ctx: Context, came_after: Observation | None = None) -> Finding:
    """Who or what was seen in the place or window asked: each entity with its latest sighting there (``came_after``:
    only those first seen after that sighting's thing came or left, and not it)."""
    if query.other is not None and query.order in (Order.AFTER, Order.BEFORE) and came_after is None:
        return _beside_the_other(query, ctx)  # "what was in the kitchen before the bowl showed up?"
    seen = candidates(query, ctx.view, select=True, detail=True)
    if came_after is not None:
        since = ctx.view.scope.start or came_after.t_start
        seen = [s for s in _came_after(ctx, seen, since) if s.entity_id != came_after.entity_id]
    elif query.event is Event.APPEARS and ctx.view.scope.start is not None:  # "what showed up after 11?": new ones
        seen = _came_after(ctx, seen, ctx.view.scope.start)
    if not seen:
        return _not_seen(query, ctx.view)
    if query.rank:  # "which cup did you see most often?": by sightings
        seen = sorted(seen, key=lambda s: (-s.observations if query.rank == "most" else s.observations, -s.last))
    shown = seen[:12]
    latest = {h[-1].entity_id: _nearest(h, ctx.moments) for s in shown for h in [ctx.view.history(s.entity_id)] if h}
    items = tuple(
        (ctx.store.entity(s.entity_id), latest[s.entity_id], s.observations) for s in shown if s.entity_id in latest
    )
    if not query.rank:
        items = tuple(sorted(items, key=lambda item: (item[1].t_start, item[1].id)))
    return Listing(
        tuple(i[1] for i in items),
        what=_what(query.subject),
        where=where_said(ctx.view),
        when=when_said(ctx.view),
        items=items,
        more=max(0, len(seen) - len(shown)),
        rank=query.rank,
        kinds=tuple(Counter(s.category for s in seen).most_common()),
    )


def _nearest(history: Sequence[Observation], moments: Sequence[float]) -> Observation:
    """The sighting to cite of one thing: the one nearest the moment asked about (one covering it first), else the
    latest."""
    if not moments:
        return history[-1]
    at = moments[0]
    return min(reversed(history), key=lambda o: max(o.t_start - at, at - o.t_end, 0.0))


def _anyone(subject: Subject, place: Place) -> bool:
    """Whether a side names a person no place, description or name picks ("the baby", "the guy")."""
    return subject.kinds == ("person",) and subject.entity_id is None and not subject.described and not place.named


def _beside_each_other(
    ctx: Context,
    side: Side,
    other_side: Side | None,
    a_at: Observation | None,
    b_at: Observation | None,
    moment: Callable[..., Observation | None],
    other_leaving: bool,
) -> tuple[Observation | None, Observation | None]:
    """ "Did the baby show up before or after the tv?": a person no place or description picks is the one on the camera
    the other thing was seen on, when one was seen there (not the first person anywhere)."""
    if other_side is None or a_at is None or b_at is None:
        return a_at, b_at
    if _anyone(side.subject, side.place) and not _anyone(other_side.subject, other_side.place):
        there = View(ctx.store, replace(ctx.view.scope, cameras=(b_at.camera,)))
        return moment(side.subject, there, side.place) or a_at, b_at
    if _anyone(other_side.subject, other_side.place) and not _anyone(side.subject, side.place):
        there = View(ctx.store, replace((ctx.other or ctx.view).scope, cameras=(a_at.camera,)))
        return a_at, moment(other_side.subject, there, other_side.place, other_leaving) or b_at
    return a_at, b_at


def order(query: Query, ctx: Context) -> Finding:
    """When each of two things was first seen (or last, for leaving) in its scope, and which came first."""
    side, other_side = query.sides()
    leaving = query.event is Event.LEAVES

    def moment(subject: Subject, view: View, place: Place | None = None, leaving: bool = leaving) -> Observation | None:
        """The first sighting of any of them in the view (the last, for leaving); ``place``: the side's ("the person
        on the sofa": one seen with a couch)."""
        seen = candidates(query, view, subject, place=place)
        if not seen:
            return None
        pick = max(seen, key=lambda x: x.last) if leaving else min(seen, key=lambda x: x.first)
        history = view.history(pick.entity_id)
        return (history[-1] if leaving else history[0]) if history else None

    if query.alternative_of == "camera" and len(query.alternatives) >= 2:  # "in what order did the cameras see ..."
        scope = ctx.view.scope
        seen_on = [(c, moment(side.subject, View(ctx.store, replace(scope, cameras=(c,))))) for c in query.alternatives]
        (a, a_at), (b, b_at), *rest = seen_on
        return OrderFinding(
            tuple(o for _, o in seen_on if o is not None),
            a=a,
            b=b,
            a_at=a_at,
            b_at=b_at,
            leaving=leaving,
            asked=(query.order or Order.FIRST).value,
            more=tuple(rest),
            rank=True,
        )
    a_at = moment(side.subject, ctx.view, side.place)
    other_leaving = None if other_side is None or other_side.event is None else other_side.event is Event.LEAVES
    b_leaving = leaving if other_leaving is None else other_leaving
    b_at = moment(other_side.subject, ctx.other or ctx.view, other_side.place, b_leaving) if other_side else None
    a_at, b_at = _beside_each_other(ctx, side, other_side, a_at, b_at, moment, bool(other_leaving))
    asked = (query.order or Order.FIRST).value
    if query.alternative_of == "order":
        asked = "before or after"
    elif query.asks == "together":  # "did they come at the same time?"
        asked = "together"
    more: list[tuple[str, Observation | None]] = []
    if query.alternative_of == "kind" and len(query.alternatives) > 2:  # "the van, the tv or the bowl"
        from edge_agent.language.lexicon import Lexicon

        words = Lexicon().kind_words()
        for said in query.alternatives[2:]:
            more.append((said, moment(Subject(kinds=words.get(said, ()), said=said), ctx.view)))

    def called(s: Side | None, view: View) -> str:
        if s is None:
            return ""
        named = s.subject.kinds or s.subject.entity_id is not None
        return _what(s.subject) if named or not view.scope.narrowed else f"sighting {where_said(view)}"

    together = None
    if asked == "together" and query.event is Event.SEEN and other_side is not None:  # "seen at the same time?"
        together = _in_view_together(query, ctx, side, other_side)
    a, b = called(side, ctx.view), called(other_side, ctx.other or ctx.view)
    if a == b and ctx.other is not None and where_said(ctx.view) != where_said(ctx.other):
        a, b = f"{a} {where_said(ctx.view)}", f"{b} {where_said(ctx.other)}"  # "a person on the street or ... kitchen"
    return OrderFinding(
        tuple(o for o in (a_at, b_at, *(o for _, o in more)) if o is not None),
        a=a,
        b=b,
        a_at=a_at,
        b_at=b_at,
        leaving=leaving,
        other_leaving=other_leaving,
        asked=asked,
        yes_no=query.yes_no,
        more=tuple(more),
        rank=query.rank == "order",
        overlap=together,
        alike=other_side is not None and _alike(side, other_side),
        a_stayed=leaving and _stayed(ctx.view, a_at),
        b_stayed=bool(other_leaving if other_leaving is not None else leaving) and _stayed(ctx.other or ctx.view, b_at),
    )


def _alike(side: Side, other: Side) -> bool:
    """Whether two sides of an order name the same kind, in the same scope, with nothing said to tell them apart."""
    a, b = side.subject, other.subject
    same = (a.kinds, a.colours, a.pattern, a.near, a.entity_id) == (b.kinds, b.colours, b.pattern, b.near, b.entity_id)
    return (
        same and bool(a.kinds) and not (a.generic or b.generic) and (side.place, side.time) == (other.place, other.time)
    )


def _stayed(view: View, o: Observation | None) -> bool:
    """Whether a thing's last sighting was still in view when its camera's recording ended (it did not leave)."""
    if o is None:
        return False
    end = queries.recorded_until(view.store, o.camera, view.scope.end)
    return end is not None and end - o.t_end < queries.LEFT_S


def _in_view_together(query: Query, ctx: Context, side: Side, other_side: Side) -> Observation | None:
    """The first sighting of the one side during which the other side was in view too (on any camera), if any."""
    view = ctx.other or ctx.view
    mine = candidates(query, ctx.view, side.subject, place=side.place)[:LIST_LIMIT]
    theirs = candidates(query, view, other_side.subject, place=other_side.place)[:LIST_LIMIT]
    spans = [(o.t_start, o.t_end) for s in theirs for o in view.history(s.entity_id)]
    during = [
        o for s in mine for o in ctx.view.history(s.entity_id) if any(a <= o.t_end and o.t_start <= b for a, b in spans)
    ]
    return min(during, key=lambda o: (o.t_start, o.id)) if during else None


def recorded(query: Query, ctx: Context) -> Finding:
    """What the cameras asked about recorded in the window asked: when it started or stopped, how long, which ran
    longest (from the ingest log: what was recorded, seen or not)."""
    scope = ctx.view.scope
    recordings = ctx.store.recordings(scope.cameras, scope.start, scope.end)
    asked = {Intent.DURATION: "duration", Intent.WHICH_CAMERA: "rank", Intent.COUNT: "count"}.get(query.intent)
    if asked == "rank" and query.rank == "fewest":
        asked = "shortest"
    return RecordedFinding(
        recordings=tuple(recordings),
        asked=asked or ("first" if query.order is Order.FIRST else "last"),
    )


def same(query: Query, ctx: Context) -> Finding:
    """Whether the two sides are one thing in memory: the entity both may mean, else the one each means."""
    side, other_side = query.sides()
    theirs = other_side or side
    view = ctx.other or ctx.view
    a = candidates(query, ctx.view, side.subject, place=side.place)
    b = candidates(query, view, theirs.subject, place=theirs.place)
    if not a or not b:
        return _not_seen(query, ctx.view if not a else view, side.subject if not a else theirs.subject, value=False)
    in_b = {s.entity_id for s in b}
    both = [s.entity_id for s in a if s.entity_id in in_b]
    first = both[0] if both else among(query, ctx, [s.entity_id for s in a], side.subject)
    links = {} if both else _possibly_same_as(ctx, first, in_b)
    if both:
        second = both[0]
    elif links:  # one memory records as possibly the first (two association would not join)
        second = max(links, key=links.__getitem__)
    else:
        second = among(query, ctx, [s.entity_id for s in b], theirs.subject)
    a_at, b_at = ctx.view.history(first)[-1:], view.history(second)[-1:]
    return SameFinding(
        (*a_at, *b_at),
        a=ctx.store.entity(first),
        b=ctx.store.entity(second),
        a_at=a_at[0] if a_at else None,
        b_at=b_at[0] if b_at else None,
        a_of=len(a),
        b_of=len(b),
        negated=query.negated,
        possibly=links.get(second),
    )


def _possibly_same_as(ctx: Context, entity: int, among_ids: set[int]) -> dict[int, float]:
    """The entities of ``among_ids`` memory records as possibly the same as ``entity`` (GEB's unresolved identity),
    with their similarity."""
    found: dict[int, float] = {}
    for a, b, score in ctx.store.possibly_same([entity]):
        other = b if a == entity else a if b == entity else None
        if other is not None and other in among_ids:
            found[other] = max(score, found.get(other, 0.0))
    return found


def duration(query: Query, ctx: Context) -> Finding:
    """How long the subject was there: its sightings in scope joined into stays (unseen for less than a minute is
    still there), their summed length, from the first to the last."""
    if query.other is not None and query.compare:
        return _longer(query, ctx)
    if query.other is not None:
        return _between(query, ctx)
    seen = candidates(query, ctx.view)
    if not seen:
        return _not_seen(query, ctx.view)
    ranked = query.rank in ("most", "fewest")  # "who was there the shortest?": that one, not all of them
    if query.subject.many and query.subject.entity_id is None and len(seen) > 1:  # "how long did the parked cars stay?"
        if not ranked:
            return _any_there(query, ctx, seen)
    if query.rank in ("most", "fewest") and query.subject.entity_id is None and len(seen) > 1:  # "who stayed longest?"
        span = max if query.rank == "most" else min
        subject = span(seen, key=lambda s: (s.last - s.first, -s.entity_id)).entity_id
    else:
        subject = among(query, ctx, _primary(query, ctx.view, seen))
    # where in the picture says which one ("the person at the middle left"), not when it was there
    whole = _regions_left(ctx.view)
    history = whole.history(subject)
    if not history:
        return _not_seen(query, ctx.view)
    places = [*query.subject.near, *query.place.zones]
    if ctx.moments and (places or query.order is Order.AFTER):
        # "how long was the wallet by the nightstand after it was put there at nine?": that stay, from then
        return _stay_at(query, ctx, subject, history, places, min(ctx.moments))
    stays: list[list[float]] = []
    previous: Observation | None = None
    for o in history:
        # still there: unseen less than a minute, or the camera recorded nothing without it in between
        there = previous is not None and (
            o.t_start - stays[-1][1] <= _UNSEEN_S
            or (
                o.camera == previous.camera
                and not queries.recorded_without(ctx.store, o.camera, subject, previous.t_end, o.t_start)
            )
        )
        if there:
            stays[-1][1] = max(stays[-1][1], o.t_end)
        else:
            stays.append([o.t_start, o.t_end])
        previous = o
    against, recorded = query.span_s, None
    if query.compare == "all":  # "was the van there the whole time?": as long as its camera recorded, near enough
        s = ctx.view.scope
        recorded = sum(r.seconds for r in ctx.store.recordings(sorted({o.camera for o in history}), s.start, s.end))
        against = max(recorded - 2 * queries.LEFT_S, 0.8 * recorded)  # (a short recording: most of it, not any)
    return Duration(
        (history[0], history[-1]) if len(history) > 1 else (history[0],),
        unit=query.asks,
        entity=ctx.store.entity(subject),
        seconds=sum(b - a for a, b in stays),
        start=history[0].t_start,
        end=history[-1].t_end,
        stays=len(stays),
        where=where_said(whole),
        against=against,
        longer=query.compare != "fewer",
        recorded=recorded,
    )


def _any_there(query: Query, ctx: Context, seen: list[Sighting]) -> Finding:
    """ "How long were people on the street?": the time any of them was there (their sightings joined, unseen by all
    for less than a minute still there), from the first to the last."""
    sightings = sorted((o for s in seen[:LIST_LIMIT] for o in ctx.view.history(s.entity_id)), key=lambda o: o.t_start)
    stays: list[list[float]] = []
    for o in sightings:
        if stays and o.t_start - stays[-1][1] <= _UNSEEN_S:
            stays[-1][1] = max(stays[-1][1], o.t_end)
        else:
            stays.append([o.t_start, o.t_end])
    return Duration(
        (sightings[0], max(sightings, key=lambda o: o.t_end)),
        unit=query.asks,
        seconds=sum(b - a for a, b in stays),
        start=stays[0][0],
        end=stays[-1][1],
        stays=len(stays),
        where=where_said(ctx.view),
        against=query.span_s,
        longer=query.compare != "fewer",
        what=f"{len(seen)} {plural(_what(query.subject)) if len(seen) > 1 else _what(query.subject)}",
    )


def _stay_at(
    query: Query, ctx: Context, subject: int, history: Sequence[Observation], places: Sequence[str], since: float
) -> Finding:
    """How long it stayed at one of ``places`` from ``since`` (none named: where it was first seen from then, the place
    memory found when no one named it): to the end of its last sighting there before it was first seen at another
    place (a sighting at no place says nothing of where it was); on a worn camera, to that next sighting."""
    where = place_of(history)
    if not places:
        first = next((o for o in history if o.t_end >= since - _AT_MOMENT_S and (where(o) or o.place_id)), None)
        if first is not None and not where(first):  # an unnamed place: its places are memory's, by id
            where = lambda o: f"place {o.place_id}" if o.place_id is not None else ""  # noqa: E731
        places = [where(first)] if first is not None else []
    after = [o for o in history if o.t_end >= since - _AT_MOMENT_S and where(o)]
    there = list(
        itertools.takewhile(lambda o: where(o) in places, itertools.dropwhile(lambda o: where(o) not in places, after))
    )
    if not there:
        return _not_seen(query, ctx.view)
    start = min(since, there[0].t_start)  # it was put there then, as the question says (or seen there already)
    # A worn camera watches a place only while it looks at it: a thing unseen there since may have stayed until it
    # was next seen elsewhere (and no later), which is then the end of the stay, its last sighting there the least.
    later = after[after.index(there[-1]) + 1 :]  # ``there`` is a run of ``after``: what follows is elsewhere
    elsewhere = later[0] if later and ctx.moves(there[-1].camera) else None
    end = elsewhere.t_start if elsewhere is not None else there[-1].t_end
    cited = (there[0], there[-1]) if len(there) > 1 else (there[0],)
    return Duration(
        cited + ((elsewhere,) if elsewhere is not None else ()),
        unit=query.asks,
        entity=ctx.store.entity(subject),
        seconds=end - start,
        start=start,
        end=end,
        where=f"at {where(there[0])}",
        against=query.span_s,
        longer=query.compare != "fewer",
        seen_until=there[-1].t_end if elsewhere is not None else None,
        next_place=where(elsewhere) if elsewhere is not None else "",
    )


def _longer(query: Query, ctx: Context) -> Finding:
    """ "Who stayed longer, the person in the bedroom or the one in the kitchen?": each side's time there."""
    side, other_side = query.sides()
    support: list[tuple[str, int]] = []
    evidence: list[Observation] = []
    same_kind = other_side is not None and side.subject.kinds == other_side.subject.kinds
    for s, view in ((side, ctx.view), (other_side, ctx.other or ctx.view)):
        if s is None:
            continue
        one = replace(query, subject=s.subject, place=s.place, time=s.time, other=None, compare="")
        found = duration(one, replace(ctx, view=view, other=None))
        # the two told apart by what they are, or, both people say, by where they were
        label = (where_said(view).removeprefix("on camera ") if same_kind else "") or _what(s.subject)
        seconds = found.seconds if isinstance(found, Duration) else 0.0
        support.append((label, int(round(seconds))))
        evidence.extend(found.evidence)
    if support and not any(n for _, n in support) and not evidence:  # neither seen there: say so, compare nothing
        return _not_seen(query, ctx.view, value=False if query.yes_no else None)
    ranked = sorted(support, key=lambda x: x[1], reverse=query.compare != "fewer")
    chosen = ranked[0][0] if ranked and ranked[0][1] != (ranked[1][1] if len(ranked) > 1 else -1) else "same"
    if query.yes_no and not query.alternatives and support:  # "was the couch there longer than the tv?": yes or no
        holds = chosen == support[0][0]
        if query.compare == "atleast":  # "did the car stay as long as the truck?"
            holds = len(support) > 1 and support[0][1] >= support[1][1]
        if query.compare == "same":  # "did they stay for the same amount of time?": to the second
            holds = len(support) > 1 and support[0][1] == support[1][1]
        return Alternatives(
            tuple(evidence),
            of="seconds seen",
            chosen=support[0][0] if holds else None,
            support=tuple(support),
            yes_no=True,
            least=query.compare == "fewer",
            as_long=query.compare in ("atleast", "same"),
            same=query.compare == "same",
        )
    return Alternatives(
        tuple(evidence), of="seconds seen", chosen=chosen, support=tuple(support), least=query.compare == "fewer"
    )


def _between(query: Query, ctx: Context) -> Finding:
    """ "How long after the van came did the bowl?": the time from one side's first sighting to the other's."""
    found = order(replace(query, order=Order.FIRST, yes_no=False), ctx)
    assert isinstance(found, OrderFinding)
    if found.a_time is None or found.b_time is None:
        return found  # says which was not seen
    sides = [(found.a_time, found.a, "first seen"), (found.b_time, found.b, "first seen")]
    unseen_going = -1  # the side that never left while recorded: its leaving is later than memory can say
    for k, (at, event) in enumerate(
        ((found.a_at, query.event), (found.b_at, query.other.event if query.other else None))
    ):
        if event is Event.LEAVES and at is not None and at.entity_id is not None:  # "... did the car leave?"
            last, left, _, _ = _leaving(ctx, at.entity_id)
            if not left:  # still in view when its recording ended: it left after its last sighting, unseen
                sides[k], unseen_going = (last.t_end, sides[k][1], _STILL_THERE), k
            else:
                sides[k] = (last.t_end, sides[k][1], "left")  # "between the person leaving and the bowl showing up"
    early, late = sorted(sides)
    bound = "" if unseen_going < 0 else "At most" if sides[unseen_going] is early else "At least"
    return Duration(
        found.evidence,
        seconds=late[0] - early[0],
        start=early[0],
        end=late[0],
        between=(early[1], late[1]),
        moments=(early[2], late[2]),
        unit=query.asks,
        bound=bound,
    )


#: A side of "how long between X leaving and ..." that was still in view when its recording ended.
_STILL_THERE = "last seen, still in view when its recording ended, at"


def summary(query: Query, ctx: Context) -> Finding:
    """What happened: for a thing after a moment, whether it stayed or where it was moved; else the episodes of the
    finest scale memory has for the place and window asked (10-minute windows, else hours, days, the clips'
    captions), the latest six, with the search's best records from them as evidence."""
    if query.other is not None and query.order in (Order.AFTER, Order.BEFORE):
        return _beside_the_other(query, ctx)
    subject_named = bool(query.subject.kinds) or query.subject.entity_id is not None
    if subject_named and ctx.moments and query.order is Order.AFTER:
        seen = candidates(query, ctx.view)
        if seen:
            return _after(query, ctx, among(query, ctx, [s.entity_id for s in seen]))
    if subject_named and not query.subject.many and not query.subject.generic and not ctx.moments:
        seen = candidates(query, ctx.view)  # "tell me about the car": that thing, not the camera it was on
        if seen:
            return _profile(ctx, among(query, ctx, [s.entity_id for s in seen]))
    s = ctx.view.scope
    cameras: list[str | None] = list(s.cameras) or [None]
    if not s.cameras and subject_named:  # a question about a thing is about the camera that saw it last
        seen = candidates(query, ctx.view)
        if not seen:  # "microwave?" with none seen: that, not what every camera saw
            return _not_seen(query, ctx.view)
        last = ctx.view.history(seen[0].entity_id)[-1:]
        cameras = [last[0].camera] if last else [None]
    window = ctx.around_seconds
    moments = ctx.moments
    start = s.start if s.start is not None else (min(moments) - window if moments else None)
    end = s.end if moments == () or s.end is not None else max(moments) + window
    ids: list[int] = []
    # a window shorter than the finest episode ("at the end of the street video"): what was seen in it, not the
    # episodes around it
    short = start is not None and end is not None and end - start < 600 and not moments
    for scale in () if short else ("10min", "hour", "day", "clip"):
        ids = [i for c in cameras for i in queries.episode_ids(ctx.store, scale, camera=c, start=start, end=end)]
        if ids:
            break
    if not ids and not subject_named:  # no episode summarised yet (or too coarse): what was seen there, then
        found = listing(replace(query, subject=Subject(generic=True, said="thing")), ctx)
        if isinstance(found, Listing) and found.items:
            return found
    episodes = sorted(ctx.store.episodes_by_id(sorted(ids)[-6:]), key=lambda e: (e.t_start, e.id))  # the latest six
    shown = [
        o
        for o in ctx.store.observations_by_id(ctx.evidence.observation_ids)
        if s.holds(o) and any(e.camera == o.camera and e.t_start <= o.t_start <= e.t_end for e in episodes)
    ]
    return Summary(
        tuple(shown[:3]),
        lines=tuple(e.text.rstrip(".") + "." for e in episodes),
        where=" or ".join(c for c in cameras if c),
        when=when_said(ctx.view),
    )


def _beside_the_other(query: Query, ctx: Context) -> Finding:
    """ "What happened after the truck was seen?", "anything before the van left?": what happened from (or until) the
    other side's moment: its first sighting, or its last where it left."""
    found = order(replace(query, intent=Intent.ORDER, yes_no=False), ctx)
    assert isinstance(found, OrderFinding)
    other_leaving = found.leaving if found.other_leaving is None else found.other_leaving
    at = found.b_at
    if at is None:
        return found  # says the other side was not seen
    moment = at.t_end if other_leaving else at.t_start
    scope = ctx.view.scope
    scope = replace(scope, start=moment) if query.order is Order.AFTER else replace(scope, end=moment)
    plain = replace(query, other=None, order=None, subject=Subject(), yes_no=False)
    if query.rank == "previous":  # "what did the camera see right before the baby?": the last to come before it
        return _just_before(plain, ctx, scope, moment, at)
    if query.intent is Intent.LIST and query.rank != "next" and query.event is not Event.APPEARS:  # "who was in ..."
        listed = replace(plain, subject=query.subject if query.subject.kinds else Subject(generic=True))
        return listing(listed, replace(ctx, view=View(ctx.store, scope), other=None))
    if query.event is Event.APPEARS and query.order is Order.AFTER and query.other is not None:
        # "what showed up after the woman left the kitchen?": what came there (anywhere, if no place was said) then
        # (the next to come anywhere, where no place is asked: "the next thing seen after the bedroom person")
        there = scope if query.rank == "next" else replace(scope, cameras=query.other.place.cameras or scope.cameras)
        things = replace(plain, intent=Intent.LIST, subject=Subject(generic=True, said="thing"), rank="")
        found = listing(things, replace(ctx, view=View(ctx.store, replace(there, start=moment + 1e-3))), at)
        if query.rank == "next" and isinstance(found, Listing) and found.items:  # "what came right after it?"
            firsts = {e.id: ctx.store.observations(e.id)[0].t_start for e, _, _ in found.items}
            soonest = min(firsts.values())
            items = tuple(i for i in found.items if firsts[i[0].id] <= soonest + SAME_MOMENT_S * 2)
            return _only(found, items)
        return found
    return summary(plain, replace(ctx, view=View(ctx.store, scope), other=None))


def _just_before(plain: Query, ctx: Context, scope: Scope, moment: float, at: Observation) -> Finding:
    """The things that came last before ``moment`` (first seen before it, the latest of them, and any that came
    within a moment of that), anywhere unless a place was asked; not the other side itself."""
    things = replace(plain, intent=Intent.LIST, subject=Subject(generic=True, said="thing"), rank="")
    before = replace(scope, end=moment - SAME_MOMENT_S)
    found = listing(things, replace(ctx, view=View(ctx.store, before), other=None))
    if not isinstance(found, Listing) or not found.items:
        return found
    firsts = {e.id: ctx.store.observations(e.id)[0].t_start for e, _, _ in found.items}
    latest = max((t for e, t in firsts.items() if e != at.entity_id), default=None)
    if latest is None:
        return found
    items = tuple(i for i in found.items if i[0].id != at.entity_id and firsts[i[0].id] >= latest - SAME_MOMENT_S * 2)
    return _only(found, items)


def _only(found: Listing, items: tuple[tuple[Entity, Observation, int], ...]) -> Listing:
    """The listing of only ``items`` of it."""
    kinds = tuple(Counter(e.category for e, _, _ in items).most_common())
    return replace(found, items=items, evidence=tuple(o for _, o, _ in items), more=0, kinds=kinds)


def _profile(ctx: Context, subject: int) -> Finding:
    """What memory holds of one thing: its sightings in scope, first and last, what memory learnt of it."""
    history = ctx.view.history(subject)
    if not history:
        return _not_seen(Query(Intent.SUMMARY), ctx.view)
    known = sorted(facts(ctx.store, [subject], before=ctx.view.scope.end), key=lambda f: -f.importance)
    taken = ctx.store.taken(subject, ctx.view.scope.end)
    return Profile(
        (history[0], history[-1]) if len(history) > 1 else (history[0],),
        entity=ctx.store.entity(subject),
        sightings=len(history),
        cameras=tuple(dict.fromkeys(o.camera for o in history)),
        first=history[0],
        last=history[-1],
        facts=tuple(f.line() for f in known[:2]),
        taken=taken if taken is not None and taken.observation_id == history[-1].id else None,
    )


def _after(query: Query, ctx: Context, subject: int) -> Finding:
    """What changed for the subject after the moment named: the first later observation somewhere else."""
    history = ctx.view.context(subject)
    if not history:
        return _not_seen(query, ctx.view)
    window = ctx.around_seconds
    moments = ctx.moments
    if moments[0] > history[-1].t_end + window:  # "after 2 pm", when it was last seen at 1 pm
        last = history[-1]
        return Stayed((last,), entity_id=subject, since=last.t_end, last_seen=last.t_end, asked=moments[0])
    where_ = place_of(history)
    stays = settled(history, where_) or history
    start = ([o for o in stays if o.t_start <= moments[0] + window] or stays[:1])[-1]
    place = where_(start)
    later = next((o for o in stays if o.t_start > start.t_end and where_(o) != place), None)
    if later is None:  # grounded on the moment and its latest sighting
        return Stayed(
            tuple({o.id: o for o in (start, history[-1])}.values()),
            entity_id=subject,
            since=start.t_end,
            place=place,
            last_seen=history[-1].t_end,
        )
    return Stayed(
        (start, later), entity_id=subject, since=start.t_end, place=place, moved_to=where_(later), at=later.t_start
    )


def habit(query: Query, ctx: Context) -> Finding:
    """What memory has learnt about the subject (usual place, owner, habits, state), most important first."""
    seen = candidates(query, ctx.view)
    subject = among(query, ctx, [s.entity_id for s in seen]) if seen else _ranked(ctx)
    if subject is None:
        return summary(query, ctx)
    known = facts(ctx.store, [subject], before=ctx.view.scope.end)
    owner = query.asks == "owner"
    known = sorted(known, key=lambda f: (not (f.kind == "owner") if owner else f.kind == "state", -f.importance))
    history = ctx.view.history(subject)
    fallback = summary(query, ctx) if not known else None
    return Habit(
        tuple(history[-1:]),
        entity=ctx.store.entity(subject),
        facts=tuple(f.line() for f in known[:4]),
        fallback=fallback if isinstance(fallback, Summary) else None,
        owner_unknown=owner and not any(f.kind == "owner" for f in known),
    )


HANDLERS: dict[Intent, Handler] = {
    Intent.EXISTS: exists,
    Intent.WHERE: where,
    Intent.WHEN: when,
    Intent.COUNT: count,
    Intent.ATTRIBUTE: attribute,
    Intent.WHICH_CAMERA: which_camera,
    Intent.COMPANY: company,
    Intent.LIST: listing,
    Intent.ORDER: order,
    Intent.DURATION: duration,
    Intent.SUMMARY: summary,
    Intent.HABIT: habit,
    Intent.SAME: same,
}


def handle(query: Query, ctx: Context) -> Finding:
    """The finding of a query: the recording itself asked about ("when did the street recording start?", "how long
    is the video?", "which camera recorded the longest?") from what was recorded, else the intent's handler."""
    if query.subject.recording:
        return recorded(query, ctx)
    return HANDLERS[query.intent](query, ctx)
