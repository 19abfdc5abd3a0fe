"""What a handler found, typed (issue 38): one dataclass per kind of answer, each with the observations it rests
on (its evidence) and the value a multiple choice is picked by (``typed``). :mod:`edge_agent.qa.render` turns them
into English and JSON; nothing here is worded."""

from __future__ import annotations

from dataclasses import dataclass, field

from edge_agent.language.grammar import against as held_against
from edge_agent.memory import Entity, Observation, Recording
from edge_agent.memory.takings import Taking

__all__ = [
    "Alternatives",
    "Attribute",
    "Both",
    "Cameras",
    "Company",
    "Count",
    "Duration",
    "Exists",
    "Left",
    "Finding",
    "Habit",
    "Kinds",
    "Listing",
    "Moved",
    "NotSeen",
    "Order",
    "Profile",
    "Returned",
    "Seconds",
    "Ranked",
    "Seen",
    "Stayed",
    "Summary",
    "Unreadable",
    "YesNo",
]


class Seconds(float):
    """A span of time (not a moment): what a duration answer is picked by; ``unit``: the unit the question counted
    in ("how many hours"), for choices that give only a number."""

    unit: str = ""

    def __new__(cls, value: float, unit: str = "") -> Seconds:
        made = super().__new__(cls, value)
        made.unit = unit
        return made


class Ranked(tuple[str, ...]):
    """Things in order (what came first, then next): a choice is picked by naming them in this order, or by the
    first of them."""


@dataclass(frozen=True)
class YesNo:
    """A yes / no answer: whether the question as asked holds, and whether the thing was there. They differ for a
    question that asks after none ("was nobody there?": someone was, so no)."""

    holds: bool
    fact: bool


#: The typed answer of a question memory cannot answer either way ("is the bowl there right now?" with nothing
#: recorded now): the choice that says so.
CANNOT_TELL = "can't tell"


@dataclass(frozen=True)
class Finding:
    evidence: tuple[Observation, ...] = ()

    @property
    def typed(self) -> object:
        """The value a multiple choice is picked by: a bool, a count, a moment, a word, or None (by the text)."""
        return None

    @property
    def quantity(self) -> int | None:
        """How many things the answer is about, where it says: a choice that says another number is not it."""
        return None


@dataclass(frozen=True)
class Unreadable(Finding):
    """Words that name nothing memory knows (a kind, a place), and what it does know."""

    words: tuple[str, ...] = ()
    places: bool = False  #: the words were where a place is named
    verbs: bool = False  #: the words say what was done ("watered"), which no camera records
    unrecorded: str = ""  #: the property asked that memory does not describe ("age")
    known: tuple[str, ...] = ()  #: kinds (or places) memory knows, to say instead
    answer: Finding | None = None  #: the answer under the closest reading, when there is one
    pointing: bool = False  #: the words point back ("it") with nothing before them to point at
    cameras: bool = False  #: the words were said as a camera's name, and no camera is called so

    @property
    def typed(self) -> object:
        if self.verbs or self.unrecorded:
            return None  # it cannot tell: the choice is the one that says so, by its words
        return self.answer.typed if self.answer is not None else False


@dataclass(frozen=True)
class NotSeen(Finding):
    what: str = ""
    where: str = ""  #: "on camera kitchen", "" for anywhere
    when: str = ""  #: "after 11:00", "before ...", ""
    value: object = None  #: the typed answer: False for a yes / no question, 0 for a count
    unrecorded: bool = False  #: no camera asked about recorded at all in the window asked about
    #: asked of now, and nothing recorded now: its last sighting before (the observation, "person #26")
    last_before: tuple[Observation, str] | None = None

    @property
    def typed(self) -> object:
        return self.value


@dataclass(frozen=True)
class Both(Finding):
    """A yes / no asked of two things at once ("were the car and the truck white?"): yes when it holds of each."""

    parts: tuple[Finding, ...] = ()
    holds: bool = False

    @property
    def typed(self) -> object:
        return YesNo(self.holds, self.holds)


@dataclass(frozen=True)
class Kinds(Finding):
    """How many things of each kind were seen, most first (fewest first when asked): "what did you see most of?"."""

    counts: tuple[tuple[str, int], ...] = ()
    fewest: bool = False
    where: str = ""
    when: str = ""
    counted: bool = False  #: "how many kinds of things?": the number of kinds is the answer

    @property
    def typed(self) -> object:
        if self.counted:
            return len(self.counts)
        return Ranked(kind for kind, _ in self.counts) if self.counts else None


@dataclass(frozen=True)
class Exists(Finding):
    holds: bool = False  #: the answer to the question as asked (a negative question flips it)
    seen: bool = False  #: whether any was seen
    what: str = ""
    n: int = 0
    where: str = ""
    when: str = ""
    company: str = ""
    negated: bool = False
    left: int | None = None  #: "did anyone leave?": how many of the ``n`` left view (None: leaving not asked)
    came: bool = False  #: "did anyone come after 10?": only those first seen then count (arrivals, not stays)
    unrecorded: bool = False  #: none seen, and no camera asked about recorded at all in the window asked about
    last_before: tuple[Observation, str] | None = None  #: as NotSeen's: asked of now, its last sighting before

    @property
    def typed(self) -> object:
        if not self.seen and self.last_before is not None:
            return CANNOT_TELL  # nothing recorded now: neither yes nor no
        return YesNo(self.holds, self.seen)

    @property
    def quantity(self) -> int | None:
        return self.n if self.seen else 0


@dataclass(frozen=True)
class Left(Finding):
    """Whether a thing left ("did the van leave?"): its last sighting ended while its camera recorded on without
    it (``recorded_until``), or it was taken; else it was still in view when the recording ended."""

    holds: bool = False  #: the answer as asked (a negative question flips it)
    left: bool = False
    entity: Entity | None = None
    observation: Observation | None = None
    recorded_until: float | None = None
    taken: Taking | None = None
    negated: bool = False

    @property
    def typed(self) -> object:
        return YesNo(self.holds, self.left)


@dataclass(frozen=True)
class Alternatives(Finding):
    """Which of "A or B" holds: each value with how often memory says so."""

    of: str = ""  #: kind, colour, pattern, motion, size, camera, region
    chosen: str | None = None
    support: tuple[tuple[str, int], ...] = ()
    whose: str = ""
    yes_no: bool = False  #: asked as "was it A?" (one value): the answer is yes / no
    least: bool = False  #: the value with the least is asked for ("was it there for less time than ...?")
    as_long: bool = False  #: "did it stay as long as ...?": at least as long is asked
    same: bool = False  #: "for the same amount of time?": as long as each other, to the second
    unseen: tuple[str, ...] = ()  #: of kinds, those nothing seen was ("a person, or just things?": no person)
    each: int = 0  #: asked of every one ("was everyone in black?"): of how many; ``support`` says how many are so

    @property
    def typed(self) -> object:
        if self.yes_no:
            return self.chosen is not None
        return self.chosen


@dataclass(frozen=True)
class Seen(Finding):
    """Where and when a thing was seen (first or last), as the observation it rests on."""

    entity: Entity | None = None
    observation: Observation | None = None
    first: bool = False
    when_asked: bool = False  #: a "when" question: the moment is the answer
    leaving: bool = False  #: "when did it leave": the end of its last sighting
    #: asked when it left, but it was still in view when its camera's recording ended (then): it did not leave
    stayed_until: float | None = None
    arrived: bool = False  #: "when did it come back": the start of its last stay (``observation`` begins it)
    chain: tuple[tuple[int, int, float, Observation], ...] = ()  #: possibly-same steps: (earlier, later, score, last)
    taken: Taking | None = None  #: after the last sighting it went with a person within reach (memory.takings)
    taker: Entity | None = None  #: that person
    at: float | None = None  #: the moment asked ("where was it at 09:00:45?"): ``observation`` is the one nearest it
    ago_from: float | None = None  #: "how long ago was it seen?": the moment (now, or as-of) counted back from

    @property
    def typed(self) -> object:
        if self.observation is None:
            return None
        if self.when_asked:
            return self.observation.t_start if (self.first or self.arrived) else self.observation.t_end
        return self.observation.place or None  # where: the zone or image region it was at


@dataclass(frozen=True)
class Count(Finding):
    n: int = 0
    unit: str = "things"  #: things, cameras, places, sightings, days, colours
    what: str = ""
    names: tuple[str, ...] = ()  #: the cameras, places or days counted (colours: "black (11)", most first)
    observations: int = 0
    other: Count | None = None  #: the other side of "more here than there"
    compare: str = ""  #: more / fewer
    where: str = ""
    when: str = ""
    days: int = 0
    company: str = ""  #: " with a dog": what the things counted were seen with
    which: tuple[str, ...] = ()  #: "did the kitchen or the bedroom have more?": this side's and the other's names
    against: int | None = None  #: "more than 3?": the number the count is held against, by ``compare``
    at: float | None = None  #: "at the same time": the first moment the most were in view together
    by_how_many: bool = False  #: "how many more people on the street than in the kitchen?": the difference asked

    @property
    def holds(self) -> bool | None:
        if self.against is not None:
            return held_against(self.n, self.compare, self.against)
        if self.other is None or not self.compare:
            return None
        return self.n > self.other.n if self.compare == "more" else self.n < self.other.n

    @property
    def typed(self) -> object:
        if self.which and self.other is not None:  # the side with more (or fewer), or "same"
            if self.n == self.other.n:
                return "same"
            more = self.n > self.other.n
            return self.which[0] if more == (self.compare != "fewer") else self.which[1]
        if self.by_how_many and self.other is not None:  # "how many more?": by how many
            return self.n - self.other.n if self.compare == "more" else self.other.n - self.n
        return self.holds if self.holds is not None else self.n


@dataclass(frozen=True)
class Moved(Finding):
    """How many times a thing came to a place, or was moved, on the days asked; when."""

    entity: Entity | None = None
    n: int = 0
    to: tuple[str, ...] = ()  #: the places it came to ("" : moved anywhere)
    at: tuple[float, ...] = ()
    days: tuple[float, ...] = ()
    asked: bool = False  #: asked as yes / no ("has the phone moved?")
    negated: bool = False

    @property
    def typed(self) -> object:
        if self.asked:
            return YesNo((self.n > 0) != self.negated, self.n > 0)
        return self.n


@dataclass(frozen=True)
class Stayed(Finding):
    """What a thing did after a moment: stayed where it was, or was moved to another place."""

    entity_id: int = 0
    since: float = 0.0
    place: str = ""
    moved_to: str | None = None
    at: float | None = None
    last_seen: float = 0.0
    asked: float | None = None  #: the moment asked after, where it is later than the thing was last seen


@dataclass(frozen=True)
class Returned(Finding):
    """Whether a thing came back after it had gone: the sighting it came back at (``back``), after the one it was
    last seen at before (``gone``); or, never back, its last sighting and how long its camera recorded on."""

    entity: Entity | None = None
    gone: Observation | None = None
    back: Observation | None = None
    recorded_until: float | None = None

    @property
    def typed(self) -> object:
        return YesNo(self.back is not None, self.back is not None)


@dataclass(frozen=True)
class Attribute(Finding):
    field: str = "colour"
    value: str = ""
    n: int = 0
    total: int = 0
    others: tuple[tuple[str, int], ...] = ()
    whose: str = ""
    latest: Observation | None = None

    @property
    def typed(self) -> object:
        return self.value or None


@dataclass(frozen=True)
class Cameras(Finding):
    """Which cameras saw it: each with how often and when last; or, asked negatively, those that never did."""

    what: str = ""
    seen: tuple[tuple[str, int, float], ...] = ()  #: (camera, observations, last end), the answer first
    not_seen: tuple[str, ...] = ()
    negated: bool = False
    rank: str = ""  #: "most" or "fewest": ranked by how many things each saw (``things``), the answer first
    things: tuple[tuple[str, int], ...] = ()  #: (camera, distinct things of the kind it saw)
    order: str = ""  #: "first" or "last": ranked by when each first (or last) saw it, with ``moments``
    moments: tuple[float, ...] = ()  #: those moments, one per camera in ``seen``
    only: str = ""  #: "was the kitchen the only place with a bowl?": that camera (``seen``: every camera that saw it)

    @property
    def typed(self) -> object:
        if self.only:
            seen = [c for c, _, _ in self.seen]
            return YesNo(seen == [self.only], self.only in seen)
        if self.negated:  # "which camera saw no people?": that one, or none did (False)
            return self.not_seen[0] if len(self.not_seen) == 1 else False if not self.not_seen else None
        if self.rank:
            return self.things[0][0] if self.things else None
        return self.seen[0][0] if self.seen else None


@dataclass(frozen=True)
class Company(Finding):
    """Who or what was seen with a thing: at the moment asked, else the latest time anyone was."""

    entity: Entity | None = None
    people_only: bool = False
    with_: tuple[tuple[Entity, Observation], ...] = ()
    at: Observation | None = None
    yes_no: bool = False  #: "did it have company?": whether anyone (or anything) was with it
    alone: bool = False  #: asked the other way round: "was she alone?"

    @property
    def typed(self) -> object:
        return bool(self.with_) != self.alone if self.yes_no else None


@dataclass(frozen=True)
class Listing(Finding):
    """The things (or people) seen in a place or a window: each entity with its latest sighting there."""

    what: str = "thing"
    where: str = ""
    when: str = ""
    items: tuple[tuple[Entity, Observation, int], ...] = ()  #: (entity, its latest observation, observations)
    more: int = 0  #: listed beyond these
    rank: str = ""  #: "most" or "fewest": ordered by how often each was seen, the answer first
    kinds: tuple[tuple[str, int], ...] = ()  #: of all of them, how many of each kind, the most first

    @property
    def typed(self) -> object:
        if self.rank:
            return None  # the answer's words (the first thing's description) pick the choice
        cameras = {o.camera for _, o, _ in self.items}
        return cameras.pop() if len(cameras) == 1 and not self.where else None  # seen on one camera: that one


SAME_MOMENT_S = 0.5  #: sightings closer than this are one moment (frames are sampled 2 a second)


@dataclass(frozen=True)
class Order(Finding):
    """The moments of two things (each its first sighting, or last for leaving) and which came first."""

    a: str = ""
    b: str = ""
    a_at: Observation | None = None
    b_at: Observation | None = None
    leaving: bool = False
    other_leaving: bool | None = None  #: the other side's own event, where it differs ("after the van left")
    asked: str = "first"  #: first, last, before, after, "before or after" (which it was), "together" (neither first)
    yes_no: bool = False
    more: tuple[tuple[str, Observation | None], ...] = ()  #: further things of "the van, the tv or the bowl"
    rank: bool = False  #: asked for them in order ("in what order did the cameras see someone?")
    overlap: Observation | None = None  #: "were they seen at the same time?": a sighting of one while the other was too
    #: leaving asked: the one (the other) was still in view when its camera's recording ended (it never left)
    a_stayed: bool = False
    b_stayed: bool = False
    #: the two sides are said of one kind with nothing to tell them apart ("the baby" and "the woman": any person)
    alike: bool = False

    def moment(self, o: Observation | None) -> float | None:
        if o is None:
            return None
        return o.t_end if self.leaving else o.t_start

    def ranked(self) -> list[tuple[str, float]]:
        """Every thing asked about that was seen, with its moment, earliest first."""
        named = [(self.a, self.a_at), (self.b, self.b_at), *self.more]
        seen = [(label, self.moment(o)) for label, o in named]
        return sorted(((label, t) for label, t in seen if t is not None), key=lambda x: x[1])

    @property
    def a_time(self) -> float | None:
        if self.a_at is None:
            return None
        return self.a_at.t_end if self.leaving else self.a_at.t_start

    @property
    def b_leaving(self) -> bool:
        return self.leaving if self.other_leaving is None else self.other_leaving

    @property
    def b_time(self) -> float | None:
        if self.b_at is None:
            return None
        return self.b_at.t_end if self.b_leaving else self.b_at.t_start

    @property
    def together(self) -> bool:
        """Both were first seen (or left) on the same sampled frame: neither came first."""
        return self.a_time is not None and self.b_time is not None and abs(self.a_time - self.b_time) < SAME_MOMENT_S

    @property
    def a_first(self) -> bool | None:
        a_stayed, b_stayed = self.leaving and self.a_stayed, self.b_leaving and self.b_stayed
        if a_stayed and b_stayed:  # neither left while recorded
            return None
        if (a_stayed or b_stayed) and self.a_time is not None and self.b_time is not None:
            return b_stayed  # the one that left came first
        if self.a_time is None or self.b_time is None:
            return None if self.a_time is None and self.b_time is None else self.b_time is None
        return self.a_time <= self.b_time

    @property
    def typed(self) -> object:
        if self.more or self.rank:  # several in order: earliest first (or latest first, asked for the last)
            ranked = [label for label, _ in self.ranked()]
            return Ranked(reversed(ranked) if self.asked in ("last", "after") else ranked) if ranked else None
        first = self.a_first
        if first is None:
            return None
        if self.asked == "before or after":  # (one never seen: neither)
            if self.a_time is None or self.b_time is None:
                return None
            return "together" if self.together else "before" if first else "after"
        if self.asked == "together":
            return self.together or self.overlap is not None
        if self.yes_no:
            return False if self.together else first if self.asked in ("before", "first") else not first
        if self.together:  # "which came first, the car or the van?" of two seen from the same moment: neither
            return "together"
        winner_is_a = first if self.asked in ("first", "before") else not first
        return self.a if winner_is_a else self.b


@dataclass(frozen=True)
class Same(Finding):
    """Whether the two sides of "is the person in the kitchen the same as the one at the desk?" are one entity in
    memory: the entity each side means (one both have, where there is one) and its sighting there."""

    a: Entity | None = None
    b: Entity | None = None
    a_at: Observation | None = None
    b_at: Observation | None = None
    a_of: int = 1  #: how many things this side may mean
    b_of: int = 1
    negated: bool = False
    possibly: float | None = None  #: held as two, but recorded as possibly the same, with this similarity

    @property
    def same(self) -> bool:
        return self.a is not None and self.b is not None and self.a.id == self.b.id

    @property
    def typed(self) -> object:
        return YesNo(self.same != self.negated, self.same)


@dataclass(frozen=True)
class Recorded(Finding):
    """What cameras recorded ("when did the street recording start?"): each camera's first start, last end and the
    seconds it recorded, and what was asked of them."""

    recordings: tuple[Recording, ...] = ()
    #: first (when it started), last (when it stopped), duration (how long), rank (the longest), shortest, count
    asked: str = "last"

    @property
    def typed(self) -> object:
        if not self.recordings:
            return None
        if self.asked == "first":
            return min(r.start for r in self.recordings)
        if self.asked == "last":
            return max(r.end for r in self.recordings)
        if self.asked == "duration":
            return Seconds(sum(r.seconds for r in self.recordings))
        if self.asked == "count":
            return len(self.recordings)
        if self.asked == "shortest":
            return min(self.recordings, key=lambda r: r.seconds).camera
        return max(self.recordings, key=lambda r: r.seconds).camera


@dataclass(frozen=True)
class Duration(Finding):
    """How long a thing was there (its stays joined), or, between two things, the time from one to the other."""

    entity: Entity | None = None
    seconds: float = 0.0  #: time seen there, or between the two
    start: float = 0.0
    end: float = 0.0
    stays: int = 1
    where: str = ""
    between: tuple[str, ...] = ()  #: the two things, when it is the time between them
    moments: tuple[str, ...] = ()  #: with ``between``: what each one's time is ("first seen", "left"), in that order
    unit: str = ""  #: the unit the question counted in
    against: float | None = None  #: "for more than a minute?": the length asked about (seconds)
    longer: bool = True  #: whether asked if it was longer than ``against`` (else shorter)
    what: str = ""  #: several things of a kind, together ("17 people"), when no one entity is asked about
    recorded: float | None = None  #: "the whole time?": how long its camera recorded (``against`` is that, near enough)
    #: the stay's end unseen (a worn camera looked elsewhere): its last sighting there, the least it stayed; ``end`` is
    #: then when it was next seen, at ``next_place``, the most
    seen_until: float | None = None
    next_place: str = ""
    bound: str = ""  #: between two things, one of whose leaving memory did not see: "At most" / "At least"

    @property
    def holds(self) -> bool | None:
        """Whether it was there longer (or shorter) than the length asked about; None when none was."""
        if self.against is None:
            return None
        return self.seconds > self.against if self.longer else self.seconds < self.against

    @property
    def typed(self) -> object:
        if self.holds is not None:
            return YesNo(self.holds, True)
        return Seconds(self.seconds, self.unit)


@dataclass(frozen=True)
class Summary(Finding):
    lines: tuple[str, ...] = ()  #: the episodes' texts, in time order
    where: str = ""
    when: str = ""


@dataclass(frozen=True)
class Habit(Finding):
    entity: Entity | None = None
    facts: tuple[str, ...] = field(default_factory=tuple)
    fallback: Summary | None = None
    owner_unknown: bool = False  #: asked whose it is, and memory has learnt no owner for it


@dataclass(frozen=True)
class Profile(Finding):
    """What memory holds of one thing ("tell me about the car"): how often, where and when it was seen, how it was
    described last, what memory learnt of it, and whether it was taken."""

    entity: Entity | None = None
    sightings: int = 0
    cameras: tuple[str, ...] = ()
    first: Observation | None = None
    last: Observation | None = None
    facts: tuple[str, ...] = ()
    taken: Taking | None = None

    @property
    def typed(self) -> object:
        return self.last.place or None if self.last is not None else None
