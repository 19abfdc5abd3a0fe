"""Synthetic worlds with ground truth (EVAL.md section 2): a scenario file and a seed become a script of
days (people enter, pick things up, carry them, put them down, use them, leave; the dog moves), the
frames a fixed or a wearable camera records of it, per-frame true boxes with instance ids, an event
log, and question items with answers and evidence windows.

The scenario format is EVAL.md's; keys it does not list are this module's optional extensions, with
defaults (``sample_fps``, ``seed``, ``rooms``, ``day_hours``, ``outings``, ``question_kinds``, an animal's
``perch``). The recording is motion-triggered: each scripted episode is one recorded session (a MOT-format
sequence: img1/*.jpg, gt/gt.txt with instance ids, seqinfo.ini naming the classes), so the ground-truth detector
can replay the boxes while everything after detection is the real pipeline. A fixed camera sees the whole home and
knows its places as named zones; a wearable camera is worn by the acting person (who is never in view) and its view
follows them through the rooms (and, on its outings, out of the home)."""

from __future__ import annotations

import functools
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal, NamedTuple

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from edge_agent.clock import format_utc, parse_iso
from edge_agent.config import describe_validation_error
from edge_agent.errors import EdgeAgentError
from edge_agent.eval.scene import box_of, draw_order, size_of
from edge_agent.rules.parse import RuleParseError, detector_categories, parse_rule
from edge_agent.rules.predicate import Predicate, category_names

__all__ = [
    "Event",
    "Question",
    "Scenario",
    "ScenarioError",
    "Session",
    "World",
    "load_scenario",
    "place_in",
    "rule_predicates",
    "simulate",
]

ANIMALS = frozenset({"dog", "cat"})
#: The kinds of question a world asks (``Scenario.question_kinds``): the first five are EVAL.md's, asked by every
#: scenario that does not list its own; ``first`` (which of two things was seen first on a day), ``how_long`` (how
#: long a thing stayed where it was put), ``either_place`` (was it by this place or that one, at a moment).
QUESTION_KINDS = ("identity", "last_seen", "counting", "who", "order", "first", "how_long", "either_place")


class ScenarioError(EdgeAgentError, ValueError):
    """A scenario file that cannot be used; the message names the key."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)  # unknown keys: later extensions, ignored


class CameraSpec(_Model):
    kind: Literal["fixed", "wearable"] = "fixed"
    width: int = Field(640, ge=160, le=1920)
    height: int = Field(360, ge=120, le=1080)
    fps: float = Field(10, gt=0)


class EntitySpec(_Model):
    id: str
    category: str
    color: str = "grey"
    pattern: Literal["plain", "stripes", "checked", "dots"] = "plain"
    # extensions for people (issue 20's people world)
    outfits: list[str] = Field(
        default_factory=list, description="a person: the colours worn on successive days (cycled); empty: `color`"
    )
    weight: float = Field(1.0, gt=0, description="a person: how often they are the one who comes, relatively")
    named: bool = Field(False, description="a person of the household, enrolled by name before the recording")
    # extension for animals (issue 43's house)
    perch: str | None = Field(
        None, description="an animal: the place it gets on and off (default: the sofa, else the last surface)"
    )

    def colour_on(self, day: int) -> str:
        """What it wears (its colour) on day ``day`` of the recording."""
        return self.outfits[day % len(self.outfits)] if self.outfits else self.color


class NoiseSpec(_Model):
    miss_rate: float = Field(0.0, ge=0, le=1)
    jitter_px: float = Field(0.0, ge=0)
    false_positive_rate: float = Field(0.0, ge=0, le=1)
    fragment_rate: float = Field(0.0, ge=0, le=1)


class ImagingSpec(_Model):
    """How the camera sees, beyond the day's brightness (issue 17's harder worlds; every default leaves the
    picture as before): the light's colour (per day, each channel's gain drawn within 1 +- ``light_colour``: a
    warmer or colder lamp, a white balance that moved), its direction (per session, a left-to-right ramp of
    brightness within 1 +- ``light_gradient``), motion blur (per frame, with probability ``blur``), JPEG
    compression (``jpeg_quality``) and hands (per frame and thing, with probability ``occlusion``, a hand over
    part of it). Surfaces: ``texture`` "photo" draws things and places with real texture
    (:mod:`edge_agent.eval.texture`), ``shadows`` casts each thing's shadow on its surface away from the light.
    Geometry: per session, the camera nearer or further (sizes within 1 +- ``scale``), and per session and thing
    a turn (within +- ``turn``: narrower, another side of its texture showing). People: ``people``."""

    light_colour: float = Field(0.0, ge=0, le=0.5)
    light_gradient: float = Field(0.0, ge=0, le=0.5)
    blur: float = Field(0.0, ge=0, le=1)
    jpeg_quality: int = Field(90, ge=10, le=100)
    occlusion: float = Field(0.0, ge=0, le=1)
    texture: Literal["flat", "photo"] = "flat"
    shadows: bool = False
    scale: float = Field(0.0, ge=0, le=0.4)
    turn: float = Field(0.0, ge=0, le=1)
    #: How people are drawn: "block", a head on a box (no detector sees a person in it: ground-truth boxes only);
    #: "figure", head and hair, neck, shoulders, arms and hands, legs and shoes, which YOLOX-nano finds as a person
    #: (0.87-0.89 at 120-200 px tall), for ``eval world --detector auto``.
    people: Literal["block", "figure"] = "block"


class RuleSpec(_Model):
    """A rule the user sets before the recording starts (EVAL.md section 2); its true alerts are derived
    from the script (:mod:`edge_agent.eval.alerts`)."""

    text: str = Field(..., min_length=1)
    cooldown_s: float = Field(600.0, ge=0, description="quiet time after an alert, per subject")


class Scenario(_Model):
    name: str
    days: int = Field(1, ge=1, le=60)
    start: str = "2026-03-02T07:00:00"
    camera: CameraSpec = Field(default_factory=CameraSpec)
    places: list[str] = Field(
        default_factory=lambda: ["counter", "sink", "dishwasher", "table", "sofa", "door"], min_length=2
    )
    entities: list[EntitySpec] = Field(..., min_length=1)
    episodes_per_day: int = Field(12, ge=1, le=200)
    episode_seconds: tuple[float, float] = (20.0, 90.0)
    noise: NoiseSpec = Field(default_factory=NoiseSpec)
    lighting_drift: float = Field(0.1, ge=0, le=0.5)
    imaging: ImagingSpec = Field(default_factory=ImagingSpec)
    questions_per_day: int = Field(10, ge=0, le=200)
    rules: list[RuleSpec] = Field(default_factory=list)
    away: dict[str, float] = Field(
        default_factory=dict,
        description="things that leave the home with a person (a thing's id -> a chance per session): one at home is "
        "taken out at the end of a session, and one away brought back at its start, with that chance each",
    )
    # extensions (optional)
    sample_fps: float = Field(2.0, gt=0, le=30, description="frames rendered per second (what perception samples)")
    rooms: list[list[str]] | None = Field(None, description="wearable: places grouped into rooms, in walking order")
    day_hours: tuple[float, float] = (7.0, 22.0)
    outings: float = Field(
        0.0,
        ge=0,
        le=1,
        description="a worn camera: the chance after each session that the wearer goes out and it records a session "
        "outside (nothing of the home in view); its own random stream: the rest of the script is the same without it",
    )
    question_kinds: list[str] = Field(
        default_factory=lambda: list(QUESTION_KINDS[:5]),
        min_length=1,
        description="the kinds of question asked, taken in turn (default: the first five of QUESTION_KINDS)",
    )
    faces: float = Field(
        0.0,
        ge=0,
        le=1,
        description="how often a person faces the camera, their face drawn (a per-person pattern the stand-in face "
        "embedder reads, edge_agent.eval.faces); 0: no faces drawn",
    )

    @model_validator(mode="after")
    def _away_things(self) -> Scenario:
        things = {e.id for e in self.things}
        for thing, chance in self.away.items():
            if thing not in things or not 0 <= chance <= 1:
                raise ValueError(f"away: {thing!r} must be a thing of the scenario with a chance in [0, 1]")
        unknown = [k for k in self.question_kinds if k not in QUESTION_KINDS]
        if unknown:
            raise ValueError(f"question_kinds: unknown {unknown}; known: {', '.join(QUESTION_KINDS)}")
        for e in self.entities:
            if e.perch is not None and (e.category not in ANIMALS or e.perch not in self.places or e.perch == "door"):
                raise ValueError(f"entities: {e.id!r}: perch is for an animal, and must be one of the places")
        if self.outings and self.camera.kind != "wearable":
            raise ValueError("outings: only a worn camera goes out with its wearer")
        return self

    @property
    def people(self) -> list[EntitySpec]:
        return [e for e in self.entities if e.category == "person"]

    @property
    def things(self) -> list[EntitySpec]:
        return [e for e in self.entities if e.category != "person"]


SCENARIOS = Path(__file__).parent / "scenarios"  #: the scenarios shipped with the package


def load_scenario(path: str | Path) -> Scenario:
    """A scenario file, or the name of a shipped one (``kitchen-lookalikes``, ``wearable-rooms``, ``living-room``)."""
    path = Path(path)
    if not path.exists() and (SCENARIOS / f"{path.name}.json").is_file():
        path = SCENARIOS / f"{path.name}.json"
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        shipped = ", ".join(sorted(p.stem for p in SCENARIOS.glob("*.json")))
        raise ScenarioError(f"scenario file not found: {path} (shipped scenarios: {shipped})") from None
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"{path}: not JSON: {exc}") from None
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError(f"{path}: {describe_validation_error(exc)}") from None
    ids = [e.id for e in scenario.entities]
    if len(set(ids)) != len(ids):
        raise ScenarioError(f"{path}: entity ids repeat: {sorted({i for i in ids if ids.count(i) > 1})}")
    if not scenario.people:
        raise ScenarioError(f"{path}: the script needs at least one entity with category 'person'")
    for e in scenario.things:
        if e.outfits or e.named or e.weight != 1.0:
            raise ScenarioError(f"{path}: {e.id!r}: outfits, weight and named are for people (category 'person')")
    if scenario.episode_seconds[0] <= 0 or scenario.episode_seconds[0] > scenario.episode_seconds[1]:
        raise ScenarioError(f"{path}: episode_seconds must be [min, max] with 0 < min <= max")
    try:
        rule_predicates(scenario)
    except ScenarioError as exc:
        raise ScenarioError(f"{path}: {exc}") from None
    return scenario


def rule_predicates(scenario: Scenario) -> list[Predicate]:
    """The scenario's rules read as the product reads them (the phrase reader, or JSON), with the
    scenario's places as the named places (a fixed camera's zones; a worn camera's places the wearer names, as the
    evaluation does: ``eval.worldeval.name_places``) and the scenario's categories beside the detector's (a world's
    keys are a category of their own). A world names no entities, so a rule about one named thing cannot be scored;
    ScenarioError names the rule."""
    places = scenario.places
    categories = {e.category.lower() for e in scenario.entities}
    out = []
    for k, rule in enumerate(scenario.rules):
        try:
            predicate = parse_rule(
                rule.text, places=places, categories=[*detector_categories(), *sorted(categories)], mode="auto"
            )
        except RuleParseError as exc:
            raise ScenarioError(f"rules[{k}]: {exc}") from None
        if predicate.subject_type == "entity" or predicate.object_type == "entity":
            raise ScenarioError(f"rules[{k}]: {rule.text!r} names an entity; a synthetic world's memory names none")
        if predicate.object_type == "category" and not category_names(predicate.object or "") & categories:
            raise ScenarioError(
                f"rules[{k}]: no place or thing {predicate.object!r} in the scenario (places: {', '.join(places)})"
            )
        out.append(predicate)
    return out


@dataclass(frozen=True)
class Event:
    t: float
    kind: str  #: enter, leave, pick_up, put_down, use, on, off
    actor: str | None  #: the person (None for the dog's own moves)
    subject: str  #: the instance acted on (the person themself for enter / leave)
    place: str | None


@dataclass(frozen=True)
class Question:
    id: str
    kind: str  #: one of QUESTION_KINDS: identity, last_seen, counting, who, order, first, how_long, either_place
    question: str
    choices: tuple[str, ...]
    answer_index: int
    as_of: float
    evidence: tuple[tuple[str, float, float], ...]  #: (instance, t_start, t_end)

    @property
    def answer(self) -> str:
        return self.choices[self.answer_index]


@dataclass
class Session:
    """One recorded episode: frames at ``fps`` from ``t_start``; per frame the visible instances' boxes
    (``boxes``: after the noise model's track fragmentation, what gt.txt holds and the ground-truth
    detector replays; ``true_boxes``: before it; both leave out instances hidden or out of view)."""

    index: int
    t_start: float
    fps: float
    frames: int
    day: int = 0  #: the day of the recording (0: the first)
    boxes: list[list[tuple[str, tuple[float, float, float, float]]]] = field(default_factory=list)
    positions: list[dict[str, tuple[float, float]]] = field(default_factory=list)  # canvas centres of every drawn thing
    view_x: list[float] = field(default_factory=list)
    light: float = 1.0
    tint: tuple[float, float, float] = (1.0, 1.0, 1.0)  #: the light's colour: gains of B, G, R
    gradient: float = 0.0  #: the light's direction: brightness from 1 - g at the left to 1 + g at the right
    scale: float = 1.0  #: the camera nearer (> 1) or further this session: every size scaled
    turns: dict[str, float] = field(default_factory=dict)  #: thing -> its turn in [-1, 1] this session
    true_boxes: list[list[tuple[str, tuple[float, float, float, float]]]] = field(default_factory=list)

    @property
    def t_end(self) -> float:
        return self.t_start + self.frames / self.fps

    def time(self, frame: int) -> float:
        return self.t_start + frame / self.fps

    def visible(self, instance: str) -> list[float]:
        return [self.time(f) for f, shown in enumerate(self.boxes) if any(i == instance for i, _ in shown)]


@dataclass
class World:
    scenario: Scenario
    seed: int
    sessions: list[Session]
    events: list[Event]
    questions: list[Question]
    zones: dict[str, tuple[float, float, float, float]]  #: fixed camera: place -> box in image pixels
    camera: str

    @functools.cached_property
    def layout(self) -> _Layout:
        return _Layout(self.scenario)

    @property
    def classes(self) -> list[str]:
        return sorted({e.category for e in self.scenario.entities})

    def write(self, folder: str | Path) -> list[Path]:
        """The world on disk: one MOT sequence per session, events.jsonl, questions.json, world.json
        (instance ids of gt.txt, zones, camera); returns the sequence folders."""
        from edge_agent.eval.draw import write_sequence

        root = Path(folder)
        root.mkdir(parents=True, exist_ok=True)
        ids = {e.id: k for k, e in enumerate(self.scenario.entities, start=1)}
        paths = [write_sequence(self, s, root / f"session{s.index:04d}", ids) for s in self.sessions]
        (root / "events.jsonl").write_text("".join(json.dumps(asdict(e)) + "\n" for e in self.events))
        (root / "questions.json").write_text(
            json.dumps([asdict(q) | {"answer": q.answer} for q in self.questions], indent=1)
        )
        (root / "world.json").write_text(
            json.dumps(
                {
                    "scenario": self.scenario.model_dump(),
                    "seed": self.seed,
                    "camera": self.camera,
                    "zones": self.zones,
                    "instances": {str(k): name for name, k in ids.items()},
                    "sessions": [
                        {"folder": p.name, "t_start": s.t_start, "fps": s.fps} for p, s in zip(paths, self.sessions)
                    ],
                },
                indent=1,
            )
        )
        return paths


# -- the script --------------------------------------------------------------------------------------


class _Layout:
    """Where places are on the canvas (a wide strip for the wearable camera), and their zones."""

    def __init__(self, scenario: Scenario) -> None:
        cam = scenario.camera
        self.width, self.height = cam.width, cam.height
        places = scenario.places
        if cam.kind == "wearable":
            rooms = scenario.rooms or [places[i : i + 3] for i in range(0, len(places), 3)]
            order = [p for room in rooms for p in room]
            missing = [p for p in places if p not in order]
            order += missing
            self.room_of = {p: r for r, room in enumerate(rooms) for p in room} | {p: len(rooms) for p in missing}
            step = cam.width * 0.45
        else:
            order = list(places)
            self.room_of = {p: 0 for p in places}
            step = cam.width / len(places)
        self.canvas_width = step * len(order) if cam.kind == "wearable" else cam.width
        #: where the view of a session outside the home starts (a worn camera's outings): a stretch of the canvas
        #: beyond the last place, half a view away from it, so nothing of the home is in view; None without outings
        self.outside_x: float | None = None
        if cam.kind == "wearable" and scenario.outings > 0:
            self.outside_x = self.canvas_width + cam.width / 2
            self.canvas_width = self.outside_x + cam.width
        self.slot_width = step
        self.x = {p: step * (i + 0.5) for i, p in enumerate(order)}
        self.floor = cam.height * 0.82

    def zone(self, place: str) -> tuple[float, float, float, float]:
        x = self.x[place]
        return (x - self.slot_width / 2, self.height * 0.35, x + self.slot_width / 2, self.height)


AWAY = "away"  #: where a thing taken out of the home is


def _things_at(place: str, where: dict[str, str], order: list[str]) -> list[str]:
    return [i for i in order if where.get(i) == place]


def _surfaces(scenario: Scenario) -> list[str]:
    """The places things are put on (every place but the door)."""
    return [p for p in scenario.places if p != "door"] or scenario.places


def perch_of(animal: EntitySpec, scenario: Scenario) -> str:
    """The place an animal gets on and off: its ``perch``, else the sofa, else the last surface."""
    surfaces = _surfaces(scenario)
    return animal.perch or ("sofa" if "sofa" in surfaces else surfaces[-1])


def simulate(scenario: Scenario, seed: int = 0) -> World:
    """The script, the sessions' boxes and the questions (no pixels: see :mod:`edge_agent.eval.draw`)."""
    rng = np.random.default_rng(seed)
    layout = _Layout(scenario)
    start = parse_iso(scenario.start, naive="utc")
    day0 = start - (start % 86400)
    fps = min(scenario.sample_fps, scenario.camera.fps)
    things = [e.id for e in scenario.things]
    people = [e.id for e in scenario.people]
    spec = {e.id: e for e in scenario.entities}
    surfaces = _surfaces(scenario)
    where: dict[str, str] = {}
    for k, thing in enumerate(things):
        if spec[thing].category in ANIMALS:
            where[thing] = next((p for p in surfaces if p != perch_of(spec[thing], scenario)), surfaces[0])
        else:
            where[thing] = surfaces[k % len(surfaces)]
    sessions: list[Session] = []
    events: list[Event] = []
    door = "door" if "door" in scenario.places else scenario.places[-1]
    imaging = scenario.imaging
    look = np.random.default_rng([seed, 7919])  # its own stream: the script is the same with or without it
    outside = np.random.default_rng([seed, 104729])  # things taken out and brought back
    going = np.random.default_rng([seed, 1299709])  # the wearer's outings
    for day in range(scenario.days):
        light = 1.0 + scenario.lighting_drift * float(rng.uniform(-1, 1))
        tint = (
            tuple(float(1.0 + imaging.light_colour * g) for g in look.uniform(-1, 1, 3))
            if imaging.light_colour
            else (1.0, 1.0, 1.0)
        )
        lo, hi = scenario.day_hours
        starts = np.sort(rng.uniform(lo * 3600, hi * 3600, scenario.episodes_per_day))
        if day == 0:
            starts = np.maximum(starts, (start - day0) % 86400)
        for t_day in starts:
            t0 = day0 + day * 86400 + float(t_day)
            if sessions and t0 < sessions[-1].t_end + 5:
                t0 = sessions[-1].t_end + 5
            duration = float(rng.uniform(*scenario.episode_seconds))
            actor = _actor(people, spec, rng)
            home = [t for t in things if where[t] != AWAY]
            plan = _plan(rng, scenario, where, home, spec, surfaces)
            if scenario.away:  # its own stream: the rest of the script is the same with or without it
                back = [t for t in things if where[t] == AWAY and outside.random() < scenario.away[t]]
                out = [t for t in scenario.away if where[t] != AWAY and outside.random() < scenario.away[t]][:1]
                plan = (
                    [("bring_back", t, str(surfaces[int(outside.integers(len(surfaces)))])) for t in back]
                    + [a for a in plan if a[1] not in out]
                    + [("take_out", t, door) for t in out]
                )
            session = _perform(
                len(sessions), t0, fps, duration, actor, plan, where, door, layout, scenario, spec, events, rng
            )
            session.day = day
            session.light = light
            session.tint = tint  # type: ignore[assignment]
            session.gradient = imaging.light_gradient * float(look.uniform(-1, 1)) if imaging.light_gradient else 0.0
            if imaging.scale:
                session.scale = 1.0 + imaging.scale * float(look.uniform(-1, 1))
            if imaging.turn:
                session.turns = {thing: imaging.turn * float(look.uniform(-1, 1)) for thing in things}
            _see(session, actor, layout, spec, scenario.camera.kind == "wearable")
            sessions.append(session)
            if layout.outside_x is not None and going.random() < scenario.outings:
                sessions.append(_outing(len(sessions), session, fps, layout, scenario, going))
    for s in sessions:
        s.true_boxes = [list(shown) for shown in s.boxes]
    _fragment(sessions, scenario.noise.fragment_rate, rng)
    world = World(
        scenario,
        seed,
        sessions,
        events,
        [],
        {p: layout.zone(p) for p in scenario.places} if scenario.camera.kind == "fixed" else {},
        "wearable" if scenario.camera.kind == "wearable" else scenario.name,
    )
    world.questions = _questions(world, rng)
    return world


def _outing(
    index: int, after: Session, fps: float, layout: _Layout, scenario: Scenario, rng: np.random.Generator
) -> Session:
    """A session a worn camera records outside the home, a few minutes after ``after``: nothing of the home in view
    (the view on the canvas's outside stretch; nothing drawn there)."""
    t0 = after.t_end + float(rng.uniform(60.0, 900.0))
    frames = max(1, int(float(rng.uniform(*scenario.episode_seconds)) * fps))
    session = Session(index, t0, fps, frames, positions=[{} for _ in range(frames)])
    session.view_x = [float(layout.outside_x or 0.0)] * frames
    session.boxes = [[] for _ in range(frames)]
    session.day, session.light, session.tint = after.day, after.light, after.tint
    return session


def _actor(people: list[str], spec: dict[str, EntitySpec], rng: np.random.Generator) -> str:
    """Who comes: each person as often as their weight says (one draw, as before, when all weigh the same)."""
    weights = np.array([spec[p].weight for p in people], np.float64)
    if np.all(weights == weights[0]):
        return people[int(rng.integers(len(people)))]
    return people[int(rng.choice(len(people), p=weights / weights.sum()))]


def _plan(
    rng: np.random.Generator,
    scenario: Scenario,
    where: dict[str, str],
    things: list[str],
    spec: dict[str, EntitySpec],
    surfaces: list[str],
) -> list[tuple[str, str, str]]:
    """One or two actions: (kind, instance, destination place)."""
    objects = [t for t in things if spec[t].category not in ANIMALS]
    animals = [t for t in things if spec[t].category in ANIMALS]
    planned = dict(where)  # where things will be once the earlier actions are done
    actions: list[tuple[str, str, str]] = []
    for _ in range(int(rng.integers(1, 3))):
        roll = rng.random()
        if animals and roll < 0.25 and len(surfaces) > 1:
            animal = animals[int(rng.integers(len(animals)))]
            perch = perch_of(spec[animal], scenario)
            target = perch if planned[animal] != perch else next(p for p in rng.permutation(surfaces) if p != perch)
            actions.append(("animal", animal, str(target)))
            planned[animal] = str(target)
        elif objects and (roll < 0.45 or len(surfaces) < 2):
            obj = objects[int(rng.integers(len(objects)))]
            actions.append(("use", obj, planned[obj]))
        elif objects:
            obj = objects[int(rng.integers(len(objects)))]
            target = next(p for p in rng.permutation(surfaces) if p != planned[obj])
            actions.append(("move", obj, str(target)))
            planned[obj] = str(target)
    return actions


def _perform(
    index: int,
    t0: float,
    fps: float,
    duration: float,
    actor: str,
    plan: list[tuple[str, str, str]],
    where: dict[str, str],
    door: str,
    layout: _Layout,
    scenario: Scenario,
    spec: dict[str, EntitySpec],
    events: list[Event],
    rng: np.random.Generator,
) -> Session:
    """Walks the actor through the plan; records positions frame by frame, and the events."""
    speed = layout.width * 0.25  # canvas pixels per second
    x = layout.x[door]
    carried: str | None = None
    present = True
    frames: list[dict[str, tuple[float, float]]] = []
    actor_x: list[float] = []
    t = t0

    def snapshot() -> None:
        nonlocal t, present
        positions: dict[str, tuple[float, float]] = {}
        for place in scenario.places:
            here = _things_at(place, where, list(spec))
            widths = [size_of(spec[thing].category)[0] for thing in here]
            gap = (layout.slot_width - 8 - sum(widths)) / (
                len(here) + 1
            )  # side by side; overlapping when they do not fit
            left = layout.x[place] - layout.slot_width / 2 + 4 + max(gap, 0.0)
            step_gap = gap if gap > 0 else (layout.slot_width - 8 - sum(widths)) / max(1, len(here) - 1)
            for thing, w in zip(here, widths):
                h = size_of(spec[thing].category)[1]
                positions[thing] = (left + w / 2, layout.floor - h / 2)
                left += w + step_gap
        if present:
            positions[actor] = (x, layout.floor - size_of("person")[1] / 2 - 4)
        if carried is not None:  # held beside the body, in front of it (drawn last)
            positions[carried] = (
                x + size_of("person")[0] / 2 + size_of(spec[carried].category)[0] / 2 + 2,
                layout.floor - 120,
            )
        frames.append(positions)
        actor_x.append(x)
        t += 1.0 / fps

    def walk_to(target: float) -> None:
        nonlocal x
        steps = max(1, int(abs(target - x) / speed * fps))
        for s in range(steps):
            x = x + (target - x) / (steps - s)
            snapshot()

    def stay(seconds: float) -> None:
        for _ in range(max(1, int(seconds * fps))):
            snapshot()

    events.append(Event(t, "enter", actor, actor, door))
    stay(1.0)
    for kind, thing, target in plan:
        if kind == "bring_back":  # comes in in the hand, put down
            where[thing] = f"carried:{actor}"
            carried = thing
            walk_to(layout.x[target])
            where[thing] = target
            carried = None
            events.append(Event(t, "bring_back", actor, thing, target))
            stay(1.5)
            continue
        if kind == "take_out":  # picked up, and out of the door with them at the end
            walk_to(layout.x[where[thing]])
            events.append(Event(t, "take_out", actor, thing, where[thing]))
            where[thing] = f"carried:{actor}"
            carried = thing
            stay(1.0)
            continue
        if kind == "animal":
            events.append(Event(t, "on" if target == perch_of(spec[thing], scenario) else "off", None, thing, target))
            where[thing] = target
            stay(2.0)
            continue
        walk_to(layout.x[where[thing]])
        if kind == "use":
            events.append(Event(t, "use", actor, thing, where[thing]))
            stay(max(4.0, duration / 3))
            continue
        events.append(Event(t, "pick_up", actor, thing, where[thing]))
        where[thing] = f"carried:{actor}"
        carried = thing
        stay(1.0)
        walk_to(layout.x[target])
        where[thing] = target
        carried = None
        events.append(Event(t, "put_down", actor, thing, target))
        stay(1.5)
    remaining = duration - (t - t0) - abs(x - layout.x[door]) / speed
    if scenario.camera.kind == "wearable" and remaining > 0:
        stay(remaining)  # the wearer looks on where they are
    walk_to(layout.x[door])
    events.append(Event(t, "leave", actor, actor, door))
    if carried is not None:  # taken out
        where[carried] = AWAY
        carried = None
    if scenario.camera.kind == "fixed":
        present = False  # the recording runs on a while after they have gone
        stay(max(remaining, 2.0))
    session = Session(index, t0, fps, len(frames), positions=frames)
    for f in range(len(frames)):
        session.view_x.append(
            float(np.clip(actor_x[f] - layout.width / 2, 0, max(0.0, layout.canvas_width - layout.width)))
            if scenario.camera.kind == "wearable"
            else 0.0
        )
    return session


def _see(session: Session, actor: str, layout: _Layout, spec: dict[str, EntitySpec], wearable: bool) -> None:
    """The session's boxes, frame by frame: what is in view and not hidden, at the session's scale and turns."""
    for f, positions in enumerate(session.positions):
        shown = []
        order = draw_order(positions, spec, layout.floor)
        drawn = {i: _box(session, i, spec[i].category, f) for i in order if not (wearable and i == actor)}
        for rank, instance in enumerate(order):
            if instance not in drawn:
                continue  # the wearer is behind the camera
            box = drawn[instance]
            w, h = box[2] - box[0], box[3] - box[1]
            clipped = (
                max(0.0, box[0]),
                max(0.0, box[1]),
                min(float(layout.width), box[2]),
                min(float(layout.height), box[3]),
            )
            if clipped[2] - clipped[0] < 0.6 * w or clipped[3] - clipped[1] < 0.6 * h:
                continue  # mostly out of view
            if sum(_covered(clipped, drawn[i]) for i in order[rank + 1 :] if i in drawn) > 0.3:
                continue  # hidden behind what is drawn in front of it: no detector would see it
            shown.append((instance, clipped))
        session.boxes.append(shown)


def _box(session: Session, instance: str, category: str, frame: int) -> tuple[float, float, float, float]:
    """Where ``instance`` is in the image at ``frame`` of ``session`` (the camera's view subtracted)."""
    x0, y0, x1, y1 = box_of(
        session.positions[frame][instance], category, session.scale, session.turns.get(instance, 0.0)
    )
    view = session.view_x[frame]
    return (x0 - view, y0, x1 - view, y1)


def _covered(box: tuple[float, float, float, float], cover: tuple[float, float, float, float]) -> float:
    """The fraction of ``box`` that ``cover`` hides."""
    w = max(0.0, min(box[2], cover[2]) - max(box[0], cover[0]))
    h = max(0.0, min(box[3], cover[3]) - max(box[1], cover[1]))
    return w * h / max(1e-6, (box[2] - box[0]) * (box[3] - box[1]))


def _fragment(sessions: list[Session], rate: float, rng: np.random.Generator) -> None:
    """Track fragmentation: an instance drops out of view for a run of frames mid-session."""
    if rate <= 0:
        return
    for s in sessions:
        for instance in sorted({i for shown in s.boxes for i, _ in shown}):  # sorted: set order varies per process
            if rng.random() < rate and s.frames > 8:
                a = int(rng.integers(2, s.frames - 6))
                for f in range(a, a + 4):
                    s.boxes[f] = [(i, b) for i, b in s.boxes[f] if i != instance]


# -- questions ---------------------------------------------------------------------------------------


def _clock(t: float) -> str:
    return format_utc(t, zone=True)


def _sightings(world: World, instance: str) -> list[tuple[float, float, Session]]:
    """(first, last) visible time per session, for one instance."""
    out = []
    for s in world.sessions:
        times = s.visible(instance)
        if times:
            out.append((times[0], times[-1] + 1.0 / s.fps, s))
    return out


def _seen_at(world: World, instance: str, t: float) -> tuple[str, float, float]:
    """The evidence of an instance at a moment: its visible span in the recorded session holding the
    moment. Out of view throughout that session (a worn camera looking elsewhere when the dog got on the bed): its
    next sighting, where a camera could first know of it; never seen again, the whole session (e.g. hidden behind
    the person moving it)."""
    session = next((s for s in world.sessions if s.t_start <= t <= s.t_end), None)
    if session is None:
        return (instance, t - 2.0, t + 2.0)
    times = session.visible(instance)
    if not times and world.scenario.camera.kind == "wearable":
        later = next((x for x in _sightings(world, instance) if x[0] > t), None)
        if later is not None:
            return (instance, later[0], later[1])
    if not times:
        return (instance, session.t_start, session.t_end)
    return (instance, times[0], times[-1] + 1.0 / session.fps)


def place_in(world: World, session: Session, instance: str, at: float) -> str | None:
    """The place an instance stands at (by the canvas position) at a time in a session."""
    layout = world.layout
    frame = int(np.clip((at - session.t_start) * session.fps, 0, session.frames - 1))
    position = session.positions[frame].get(instance)
    if position is None:
        return None
    return min(world.scenario.places, key=lambda p: abs(layout.x[p] - position[0]))


#: colours people name alike: two such things are look-alikes in a question, told apart only by memory
_SAID = {"crimson": "red", "navy": "blue"}


def _said(colour: str) -> str:
    return _SAID.get(colour, colour)


def _alike(a: EntitySpec, b: EntitySpec) -> bool:
    """Look-alikes: the same category and the same colour word (a question cannot tell them apart)."""
    return a.category == b.category and _said(a.color) == _said(b.color)


def _noun(spec: EntitySpec) -> str:
    colour = _said(spec.color)
    return f"the {colour} {spec.category}" if spec.category != "person" else f"the person in {colour}"


class _Day(NamedTuple):
    """What every question maker reads: the world, the day, its sessions, the things by id, the places, which things
    have a look-alike, and the random stream."""

    world: World
    day: int
    sessions: list[Session]
    spec: dict[str, EntitySpec]
    places: list[str]
    lookalike: dict[str, bool]
    rng: np.random.Generator


def _questions(world: World, rng: np.random.Generator) -> list[Question]:
    scenario = world.scenario
    spec = {e.id: e for e in scenario.entities}
    places = [p for p in scenario.places]
    lookalike = {e.id: any(o.id != e.id and _alike(o, e) for o in scenario.entities) for e in scenario.entities}
    out: list[Question] = []
    makers = [_MAKERS[kind] for kind in scenario.question_kinds]
    for day in range(scenario.days):
        day_sessions = [
            s
            for s in world.sessions
            if int((s.t_start - world.sessions[0].t_start + _day_offset(world)) // 86400) == day
        ]
        if not day_sessions:
            continue
        for k in range(scenario.questions_per_day):
            maker = makers[(day * scenario.questions_per_day + k) % len(makers)]
            for _ in range(6):  # a few tries to find a subject the question fits
                q = maker(_Day(world, day, day_sessions, spec, places, lookalike, rng), f"d{day + 1}q{k + 1}")
                if q is not None and all(q.question != other.question for other in out):
                    out.append(q)
                    break
    return out


def _day_offset(world: World) -> float:
    return world.sessions[0].t_start % 86400


def _choices(correct: str, pool: list[str], rng: np.random.Generator, n: int = 4) -> tuple[tuple[str, ...], int]:
    others = [p for p in dict.fromkeys(pool) if p != correct]
    picked = [others[i] for i in rng.permutation(len(others))[: n - 1]]
    options = picked + [correct]
    order = rng.permutation(len(options))
    options = [options[i] for i in order]
    return tuple(options), options.index(correct)


def _as_of_after(sessions: list[Session], t: float, rng: np.random.Generator) -> float:
    later = [s for s in sessions if s.t_start > t]
    end = (
        later[int(rng.integers(len(later)))].t_start - 1.0
        if later and rng.random() < 0.5
        else sessions[-1].t_end + 60.0
    )
    return max(end, t + 1.0)


def _identity_question(d: _Day, qid: str) -> Question | None:
    """The look-alike trap: the thing is named by where it was at one moment; the answer is where that
    same instance was last seen, while its look-alike is elsewhere."""
    world, _, sessions, spec, places, lookalike, rng = d
    candidates = [i for i in spec if lookalike[i] and spec[i].category != "person"]  # people walk through places
    if not candidates:
        return None
    instance = candidates[int(rng.integers(len(candidates)))]
    seen = _sightings(world, instance)
    firsts = [x for x in seen if x[2] in sessions]
    if len(seen) < 2 or not firsts:
        return None
    a, b, session = firsts[int(rng.integers(len(firsts)))]
    place = place_in(world, session, instance, a)
    twins = [i for i in spec if i != instance and _alike(spec[i], spec[instance])]
    if any(place_in(world, session, twin, a) == place for twin in twins):
        return None  # "the red cup by the table" must name one of the look-alikes
    as_of = _as_of_after(world.sessions, b, rng)
    last = [x for x in seen if x[1] <= as_of][-1]
    if last[2] is session or place is None:
        return None
    final = place_in(world, last[2], instance, last[1] - 0.01)
    if final is None:
        return None
    noun = _noun(spec[instance])
    text = f"{noun.capitalize()} that was by the {place} at {_clock(a)}: where was it last seen before {_clock(as_of)}?"
    choices, answer = _choices(f"by the {final}", [f"by the {p}" for p in places], rng)
    return Question(qid, "identity", text, choices, answer, as_of, ((instance, a, b), (instance, last[0], last[1])))


def _one_sighting(
    world: World,
    sessions: list[Session],
    spec: dict[str, EntitySpec],
    lookalike: dict[str, bool],
    rng: np.random.Generator,
) -> tuple[str, tuple[float, float, Session]] | None:
    """A thing with no look-alike (not a person), drawn at random, and one of its sightings in ``sessions``
    (start, end, session): (instance, sighting), or None when there is none."""
    candidates = [i for i in spec if not lookalike[i] and spec[i].category != "person"]
    if not candidates:
        return None
    instance = candidates[int(rng.integers(len(candidates)))]
    seen = [x for x in _sightings(world, instance) if x[2] in sessions]
    if not seen:
        return None
    return instance, seen[int(rng.integers(len(seen)))]


def _last_seen_question(d: _Day, qid: str) -> Question | None:
    world, _, sessions, spec, places, lookalike, rng = d
    picked = _one_sighting(world, sessions, spec, lookalike, rng)
    if picked is None:
        return None
    instance, (a, b, session) = picked
    as_of = _as_of_after(world.sessions, b, rng)
    a, b, session = [x for x in _sightings(world, instance) if x[1] <= as_of][-1]
    place = place_in(world, session, instance, b - 0.01)
    if place is None:
        return None
    text = f"Where was {_noun(spec[instance])} last seen before {_clock(as_of)}?"
    choices, answer = _choices(f"by the {place}", [f"by the {p}" for p in places], rng)
    return Question(qid, "last_seen", text, choices, answer, as_of, ((instance, a, b),))


def _counting_question(d: _Day, qid: str) -> Question | None:
    world, _, sessions, spec, _, lookalike, rng = d
    window = (sessions[0].t_start, sessions[-1].t_end)
    moved = [
        e
        for e in world.events
        if e.kind in ("put_down", "on") and window[0] <= e.t <= window[1] and not lookalike[e.subject]
    ]
    if not moved:
        return None
    instance = moved[int(rng.integers(len(moved)))].subject
    mine = [e for e in moved if e.subject == instance]
    count = len(mine)
    if spec[instance].category in ANIMALS:
        mine = [e for e in mine if e.kind == "on"]
        count = len(mine)
        perch = perch_of(spec[instance], world.scenario)
        text = f"How many times did {_noun(spec[instance])} get on the {perch} on {_clock(window[0])[:10]}?"
    else:
        text = f"How many times was {_noun(spec[instance])} moved to another place on {_clock(window[0])[:10]}?"
    if not count:
        return None
    choices, answer = _choices(str(count), [str(max(0, count + d)) for d in (-2, -1, 1, 2, 3)], rng)
    evidence = tuple(_seen_at(world, instance, e.t) for e in mine)
    return Question(qid, "counting", text, choices, answer, window[1] + 60.0, evidence)


def _who_question(d: _Day, qid: str) -> Question | None:
    world, day, sessions, spec, _, _, rng = d
    window = (sessions[0].t_start, sessions[-1].t_end)
    moves = [e for e in world.events if e.kind == "put_down" and window[0] <= e.t <= window[1]]
    people = [e for e in world.scenario.people]
    if not moves or len(people) < 2 or world.scenario.camera.kind == "wearable":
        return None
    e = moves[int(rng.integers(len(moves)))]
    assert e.actor is not None  # a put_down is always a person's (the dog's own moves are on / off)
    text = f"Who moved {_noun(spec[e.subject])} to the {e.place} at {_clock(e.t)}?"
    names = [f"the person in {p.colour_on(day)} {p.pattern} clothes" for p in people]
    correct = names[[p.id for p in people].index(e.actor)]
    choices, answer = _choices(correct, names, rng, n=len(names))
    return Question(
        qid,
        "who",
        text,
        choices,
        answer,
        window[1] + 60.0,
        (_seen_at(world, e.subject, e.t), _seen_at(world, e.actor, e.t)),
    )


def _order_question(d: _Day, qid: str) -> Question | None:
    world, _, sessions, spec, places, lookalike, rng = d
    window = (sessions[0].t_start, sessions[-1].t_end)
    puts = [
        e for e in world.events if e.kind == "put_down" and window[0] <= e.t <= window[1] and not lookalike[e.subject]
    ]
    rng.shuffle(puts)
    for e in puts:
        after = [n for n in world.events if n.kind == "put_down" and n.subject == e.subject and n.t > e.t]
        if not after:
            continue
        n = after[0]
        text = f"What happened to {_noun(spec[e.subject])} after it was put by the {e.place} at {_clock(e.t)}?"
        choices, answer = _choices(
            f"it was moved to the {n.place}", [f"it was moved to the {p}" for p in places if p != e.place], rng
        )
        return Question(
            qid,
            "order",
            text,
            choices,
            answer,
            n.t + 60.0,
            (_seen_at(world, e.subject, e.t), _seen_at(world, n.subject, n.t)),
        )
    return None


def _first_question(d: _Day, qid: str) -> Question | None:
    """The order of two things: which of them was seen first on a day (each told apart from the rest by its words)."""
    world, _, sessions, spec, _, lookalike, rng = d
    firsts = {}
    for instance in spec:
        if lookalike[instance] or spec[instance].category == "person":
            continue
        seen = [x for x in _sightings(world, instance) if x[2] in sessions]
        if seen:
            firsts[instance] = seen[0]
    if len(firsts) < 2:
        return None
    a, b = (list(firsts)[k] for k in rng.permutation(len(firsts))[:2])
    (a0, a1, a_session), (b0, b1, b_session) = firsts[a], firsts[b]
    if a_session is b_session:
        return None  # seen in the same session: seconds apart
    text = f"Which came first on {_clock(sessions[0].t_start)[:10]}: {_noun(spec[a])} or {_noun(spec[b])}?"
    return Question(
        qid,
        "first",
        text,
        (_noun(spec[a]), _noun(spec[b])),
        0 if a0 < b0 else 1,
        sessions[-1].t_end + 60.0,
        ((a, a0, a1), (b, b0, b1)),
    )


def _span_said(seconds: float) -> str:
    """A length of time as a person says it: about so many minutes (to five), or hours (to a half)."""
    if seconds < 5400:
        return f"about {max(5, int(round(seconds / 300)) * 5)} minutes"
    hours = round(seconds / 1800) / 2
    return f"about {hours:g} hours"


def _how_long_question(d: _Day, qid: str) -> Question | None:
    """How long a thing stayed where it was put: from its putting down to its next picking up (or taking out)."""
    world, _, sessions, spec, _, lookalike, rng = d
    window = (sessions[0].t_start, sessions[-1].t_end)
    puts = [
        e
        for e in world.events
        if e.kind in ("put_down", "bring_back") and window[0] <= e.t <= window[1] and not lookalike[e.subject]
    ]
    for k in rng.permutation(len(puts)):
        e = puts[int(k)]
        taken = next(
            (n for n in world.events if n.subject == e.subject and n.t > e.t and n.kind in ("pick_up", "take_out")),
            None,
        )
        if taken is None or taken.t - e.t < 600:
            continue  # still there at the end, or minutes: no "about" tells those apart
        stayed = taken.t - e.t
        correct = _span_said(stayed)
        choices, answer = _choices(correct, [_span_said(stayed * f) for f in (0.15, 0.35, 2.5, 5.0)], rng)
        text = f"How long was {_noun(spec[e.subject])} by the {e.place} after it was put there at {_clock(e.t)}?"
        evidence = (_seen_at(world, e.subject, e.t), _seen_at(world, e.subject, taken.t))
        return Question(qid, "how_long", text, choices, answer, taken.t + 60.0, evidence)
    return None


def _either_place_question(d: _Day, qid: str) -> Question | None:
    """A or B: was a thing by this place or by that one at a moment it was seen (standing still there)."""
    world, _, sessions, spec, places, lookalike, rng = d
    picked = _one_sighting(world, sessions, spec, lookalike, rng)
    if picked is None:
        return None
    instance, (a, b, session) = picked
    place = place_in(world, session, instance, a)
    if place is None or place != place_in(world, session, instance, b - 0.01):
        return None  # carried during the sighting
    others = [p for p in places if p not in (place, "door")]
    other = others[int(rng.integers(len(others)))]
    moment = (a + b) / 2
    options = [f"by the {place}", f"by the {other}"]
    if rng.random() < 0.5:
        options.reverse()
    text = f"Was {_noun(spec[instance])} {options[0]} or {options[1]} at {_clock(moment)}?"
    return Question(
        qid,
        "either_place",
        text,
        tuple(options),
        options.index(f"by the {place}"),
        _as_of_after(world.sessions, b, rng),
        ((instance, a, b),),
    )


_MAKERS = {
    "identity": _identity_question,
    "last_seen": _last_seen_question,
    "counting": _counting_question,
    "who": _who_question,
    "order": _order_question,
    "first": _first_question,
    "how_long": _how_long_question,
    "either_place": _either_place_question,
}


def question_dicts(world: World) -> list[dict[str, Any]]:
    return [asdict(q) | {"answer": q.answer} for q in world.questions]
