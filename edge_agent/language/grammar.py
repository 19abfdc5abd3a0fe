"""The grammar of what people ask and tell their home's camera memory (ReflectWorld-MM's QA agent and user
rules, GEB's typed read path): a question is a :class:`Query`, a rule a :class:`RuleReading`, both made of
the same slots. Readers fill them (the lexicon reader in :mod:`edge_agent.language.reader`, or an LLM under
a JSON schema); handlers answer from them. Nothing here reads English.

The slots of a question:

- ``intent`` (:class:`Intent`): what kind of answer is wanted.
- ``subject`` (:class:`Subject`): the thing asked about: kinds (detector classes), colours, pattern, size, a
  name or entity id, "anything" (generic), kinds left out ("other than people"), things it was with.
- ``place`` (:class:`Place`): where: cameras ("in the kitchen"), named zones or learned places ("by the
  sink"), image regions ("at the top left"), or next to a kind of thing ("on the sofa" where the sofa is a
  detected thing).
- ``time`` (:class:`Time`): a window ("after 3 pm", "yesterday", "in the last hour"), a bound ("before
  10:00": nothing later is used) and moments named ("the cup that was by the sink at 09:00").
- ``other`` (:class:`Side`): the second side of a comparison: "did the dog come before the cat?", "more
  people on the street than in the kitchen?"; it keeps the first side's slots where it names none.
- ``order`` (:class:`Order`), ``event`` (:class:`Event`), ``aggregate`` (:class:`Aggregate`): first or last,
  before or after; arriving, leaving or being moved; what a count counts.
- ``rank``: "which room had the most people?": cameras ranked by how many of the subject each saw.
- ``span_s``: "was the car there for more than a minute?": how long is held against the subject's time there.
- ``quantity``: the number a count is held against ("more than 3 people?", "on two cameras?"), by ``compare``.
- ``yes_no``, ``negated``, ``alternatives``: polarity ("was nobody there?") and "which of A or B".
- ``asks``: for an attribute question, the described field (colour, pattern, motion, size) or "direction" (the
  motion with its way: "which way was it going?"); for a when question, "ago" ("how long ago was it seen?").
- ``unknown`` and ``grounded``: words the reader could not ground in memory's vocabulary, and words it
  read as something by similarity ("sedan" as car): the answer says so.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from enum import Enum
from typing import Any

from edge_agent.errors import InvalidInputError

__all__ = [
    "FIELDS",
    "Aggregate",
    "Event",
    "Intent",
    "Order",
    "Place",
    "Query",
    "RuleReading",
    "Side",
    "Subject",
    "Time",
    "Trigger",
    "Unreadable",
]

#: The described fields an attribute question may ask about (observations' typed description fields).
FIELDS = ("colour", "pattern", "motion", "size")


class Intent(str, Enum):
    """What kind of answer a question wants. Each has one handler (:mod:`edge_agent.qa.handlers`)."""

    EXISTS = "exists"  #: yes or no: was there a dog, did anyone come
    WHERE = "where"  #: where it was (last, first, at a moment)
    WHEN = "when"  #: when it was seen (first or last, by ``order`` and ``event``)
    COUNT = "count"  #: how many (of what: ``aggregate``), or whether more here than there
    ATTRIBUTE = "attribute"  #: what colour, pattern, size or motion (``asks``)
    WHICH_CAMERA = "which_camera"  #: which camera saw it
    COMPANY = "with"  #: who or what was with it
    LIST = "list"  #: who or what was seen (in a place, a time window)
    ORDER = "order"  #: which of two came first, or whether one came before the other
    DURATION = "duration"  #: how long it was there
    SUMMARY = "what_happened"  #: what happened (in a place, a window, to a thing after a moment)
    HABIT = "habit"  #: what memory learnt of it: its usual place, owner, habits
    SAME = "same"  #: whether the two sides are one thing: "was the person in the kitchen the one at the desk?"


class Order(str, Enum):
    FIRST = "first"
    LAST = "last"
    BEFORE = "before"  #: the subject before the other side
    AFTER = "after"  #: the subject after the other side (or, with a moment, what came after it)


class Event(str, Enum):
    """What the subject did, when the question says: a time is then the time of that."""

    SEEN = "seen"
    APPEARS = "appears"  #: arrived, came, showed up, entered
    LEAVES = "leaves"  #: left, went, disappeared
    MOVED = "moved"  #: was moved, carried, taken, put somewhere
    ARRIVES_AT = "arrives_at"  #: came to the place the question names ("got on the sofa")
    RETURNS = "returns"  #: came back after it had gone ("did she come back later?")


class Aggregate(str, Enum):
    """What a count counts."""

    THINGS = "things"  #: distinct entities
    SIGHTINGS = "sightings"  #: observations ("how many times was it seen")
    CAMERAS = "cameras"  #: cameras that saw it
    PLACES = "places"  #: places it was seen at
    TIMES = "times"  #: times something happened (it came to a place, it was moved)
    DAYS = "days"  #: days it was seen on
    KINDS = "kinds"  #: things of each kind ("what did you see most of?")
    AT_ONCE = "at once"  #: the most seen at one moment ("how many people were on the street at the same time?")
    COLOURS = "colours"  #: the colours the things were, each thing by its likeliest ("how many colours did they wear?")


class Trigger(str, Enum):
    """What makes a rule fire."""

    APPEARS = "appears"
    LEAVES = "leaves"
    ENTERS = "enters"
    AT = "in"  #: is in / at a place
    ON = "on"
    NEAR = "near"
    ABSENT = "absent"  #: not seen for a span


@dataclass(frozen=True)
class Subject:
    kinds: tuple[str, ...] = ()  #: detector classes it may be (empty: none named)
    said: str = ""  #: the words that named it ("van")
    colours: tuple[str, ...] = ()
    pattern: str = ""
    size: str = ""
    name: str | None = None  #: a name the user gave an entity
    entity_id: int | None = None
    generic: bool = False  #: "anything", "something", "what did you see": any kind
    exclude: tuple[str, ...] = ()  #: kinds left out: "anything other than people"
    not_colours: tuple[str, ...] = ()  #: colours left out: "people, not counting the ones in black"
    near: tuple[str, ...] = ()  #: kinds or named places it was with or at ("the cup by the sink", "carrying a bag")
    many: bool = False  #: asked of all of them ("most people", "the cars")
    clause: tuple[str, ...] = ()  #: what a relative clause says of it that memory has no word for ("was cooking")
    motion: str = ""  #: how it was seen moving, when the question picks by it: "people walking", "parked cars"
    recording: bool = False  #: the recording itself, not a thing in it: "when did the street recording start?"
    seen_most: str = ""  #: "most" or "fewest": of those that fit, the one seen most (least) often ("the one seen most")
    not_ids: tuple[int, ...] = ()  #: entities left out: "who else?", of those a conversation already named
    #: (compare, n): how many times it was seen, held against n ("seen only once", "seen more than 5 times")
    sightings: tuple[str, int] | None = None

    @property
    def named(self) -> bool:
        """Whether it names something: a kind, an entity, or anything at all."""
        return bool(self.kinds) or self.entity_id is not None or self.generic or self.recording

    @property
    def described(self) -> bool:
        """Whether the question says which one beyond its kind: colours, a pattern, what it was with, a clause."""
        return bool(
            self.colours or self.pattern or self.near or self.clause or self.motion or self.seen_most or self.sightings
        )

    def words(self) -> str:
        """How to call it back to the user: the name, the words said, or the kind."""
        if self.recording:
            return "recording"
        if self.name:
            return self.name
        if self.said:
            return self.said
        if self.kinds:
            return self.kinds[0]
        return "thing" if self.generic else ""


@dataclass(frozen=True)
class Place:
    cameras: tuple[str, ...] = ()  #: only what these cameras saw
    zones: tuple[str, ...] = ()  #: named zones or learned places the subject was at
    regions: tuple[str, ...] = ()  #: parts of the image ("top left")
    near: tuple[str, ...] = ()  #: kinds of thing it was on / by / next to
    on: tuple[str, ...] = ()  #: of ``near``, the kinds it was on (its box mostly inside one's): "on the couch"
    anywhere: bool = False  #: said to be anywhere: the other side of a comparison keeps none of this side's place
    not_cameras: tuple[str, ...] = ()  #: every camera but these: "apart from the street one"

    @property
    def named(self) -> bool:
        return bool(self.cameras or self.zones or self.regions or self.near or self.anywhere or self.not_cameras)


@dataclass(frozen=True)
class Time:
    start: float | None = None  #: nothing earlier (Unix seconds): "after 3 pm", "since", "today"
    end: float | None = None  #: nothing later: "before 10:00", "until", a window's end, the question's as-of
    moments: tuple[float, ...] = ()  #: moments named ("at 09:00:00"): they pick which one, not what is used
    said: tuple[str, ...] = ()  #: the words that named them
    #: "in the first minute of the street video", "at the end of the recording": the first or last ``recording_s``
    #: seconds (0: a tenth) of what the place's cameras recorded, made a window once memory is read
    of_recording: str = ""
    recording_s: float = 0.0
    recording_part: float = 0.0  #: or that part of it: "in the first half of the street video" (0.5)
    to_second: bool = False  #: the moments were said to the second ("at 09:00:30"): what was seen then, not around

    @property
    def named(self) -> bool:
        return self.start is not None or self.end is not None or bool(self.moments) or bool(self.of_recording)

    def bounded(self, as_of: float | None) -> Time:
        """This time, nothing used after ``as_of`` either."""
        if as_of is None or (self.end is not None and self.end <= as_of):
            return self
        return replace(self, end=as_of)


def against(n: int, compare: str, k: int) -> bool:
    """Whether a count ``n`` holds against ``k`` as ``compare`` says: more, fewer, most, exactly; else at least."""
    return {"more": n > k, "fewer": n < k, "most": n <= k, "exactly": n == k}.get(compare, n >= k)


@dataclass(frozen=True)
class Side:
    """The second side of a comparison; a slot it leaves empty is the first side's."""

    subject: Subject = field(default_factory=Subject)
    place: Place = field(default_factory=Place)
    time: Time = field(default_factory=Time)
    event: Event | None = None  #: its own event where the two differ ("did anyone come after the van left?")


@dataclass(frozen=True)
class Query:
    intent: Intent
    subject: Subject = field(default_factory=Subject)
    place: Place = field(default_factory=Place)
    time: Time = field(default_factory=Time)
    other: Side | None = None
    order: Order | None = None
    event: Event = Event.SEEN
    aggregate: Aggregate | None = None
    #: an attribute question's field (FIELDS) or "direction"; "person" for who was with it; a duration's unit; "ago"
    asks: str = ""
    yes_no: bool = False  #: a yes / no question
    negated: bool = False  #: the proposition asked is negative ("was nobody there?", "no dog?")
    alternatives: tuple[str, ...] = ()  #: "A or B": the values to choose between
    alternative_of: str = ""  #: what they are: kind, colour, pattern, motion, size, camera, region
    compare: str = (
        ""  #: "more" or "fewer": a count against the other side's; with ``quantity``: "least", "most", "exactly", "all"
    )
    #: "most" or "fewest": the camera that saw the most (or fewest) of it, or the thing seen most often; "next": of
    #: what came after the other side, only the first to come ("what came right after the bowl?"); "order": of
    #: several things, all of them in the order they came ("put these in order: the truck, the dog and the tv")
    rank: str = ""
    quantity: int | None = None  #: "more than 3 people?", "seen on two cameras?": the number the count is held against
    span_s: float | None = None  #: "there for more than a minute?": the span a duration is held against (``compare``)
    unknown: tuple[str, ...] = ()  #: words that name a thing memory has no word for
    unknown_places: tuple[str, ...] = ()  #: words where a place is named that name no camera, zone or place
    unknown_cameras: tuple[str, ...] = ()  #: of those, the ones said as a camera: "footage from the garage camera"
    unknown_verbs: tuple[str, ...] = ()  #: what the subject is asked to have done that no camera records ("watered")
    unrecorded: str = ""  #: a property asked that memory does not describe: "age" ("how old was she?"), "mood", ...
    grounded: tuple[tuple[str, str], ...] = ()  #: (word, what it was read as by similarity)
    method: str = "grammar"  #: how the intent was read: grammar, similarity, fragment (nothing said it), llm, follow-up
    refers: tuple[str, ...] = ()  #: slots a pronoun refers back to in a conversation: subject ("it"), place ("there")
    windows: tuple[Time, ...] = ()  #: "before or after 10:30?": each time choice's window (``alternative_of`` time)

    def as_dict(self) -> dict[str, Any]:
        """The whole reading as JSON-able values (enums by value, empty slots left out)."""

        def clean(value: Any) -> Any:
            if isinstance(value, Enum):
                return value.value
            if isinstance(value, dict):
                return {k: clean(v) for k, v in value.items() if v not in (None, (), [], "", False, {})}
            if isinstance(value, (list, tuple)):
                return [clean(v) for v in value]
            return value

        out: dict[str, Any] = clean(asdict(self))
        out["intent"] = self.intent.value
        return out

    def sides(self) -> tuple[Side, Side | None]:
        """(this side, the other filled in from this one) of a comparison."""
        mine = Side(self.subject, self.place, self.time)
        if self.other is None:
            return mine, None
        other = Side(
            self.other.subject if self.other.subject.named else self.subject,
            self.other.place if self.other.place.named else self.place,
            self.other.time if self.other.time.named else self.time,
            self.other.event,
        )
        return mine, other


@dataclass(frozen=True)
class RuleReading:
    """A rule in the grammar's slots: the subject, the trigger, the place or thing it is about, for how long,
    how many times, and when in the day."""

    subject: Subject
    trigger: Trigger
    place: Place = field(default_factory=Place)
    unknown_person: bool = False  #: "a stranger", "someone I don't know"
    min_duration_s: float = 0.0
    absent_for_s: float | None = None
    times: int | None = None
    within_s: float | None = None
    per: str = "episode"
    at_once: int | None = None  #: that many of the subject there at the same moment ("more than 3 people": 4)
    window: tuple[str, str] | None = None  #: time of day, "HH:MM" to "HH:MM"
    days: tuple[str, ...] = ()  #: days of the week it holds on ('mon' ... 'sun'); () every day
    target_entity: int | None = None  #: the entity named as the place ("near the white van")
    target_colours: tuple[str, ...] = ()  #: the colours said of a kind of thing as the place ("near the grey car")
    camera: str | None = None  #: "on camera X", besides the place
    at: str | None = None  #: a moment of the day to check at, "HH:MM" ("are not by the door at 11 pm")
    negated: bool = False  #: "is not on / in / near": the place or thing is where the subject should not be missing


class Unreadable(InvalidInputError):
    """A sentence that cannot be read into the grammar: the message says why; ``words`` are the words that name
    nothing memory knows, ``missing`` the slot no word filled (relation, subject, span)."""

    def __init__(self, message: str, *, words: tuple[str, ...] = (), missing: str = "", place: bool = False) -> None:
        super().__init__(message)
        self.words = words
        self.missing = missing
        self.place = place  #: the words were where a place is named
