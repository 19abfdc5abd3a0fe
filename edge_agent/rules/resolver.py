"""The deterministic resolver (ReflectWorld-MM's procedural memory, made exact): every clip memory
commits is checked against the rules in force, frame by frame, from the boxes of its observations.

Per rule and subject entity a small state machine runs: ``idle`` -> ``pending`` when the condition
first holds -> ``active`` once it has held on ``persist_frames`` sampled frames and for the rule's
minimum duration (one noisy frame never fires) -> back to ``idle`` when it has not held for
``release_s`` (``appearance_gap_s`` for appearances). A rule fires once per active episode and
subject (deduplication), and not again for that subject within its cooldown. Absence rules run on
memory's clock (the end of the latest clip) and fire at the exact time the subject had been unseen
for the span. "The n-th time this week" counts the subject's separate visits (or days) in a sliding
window.

State, alerts and their pending deliveries are written in one transaction with a watermark (the last
clip looked at), so a restart continues where it stopped: it neither fires twice nor drops an alert.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np

from edge_agent.clock import format_utc
from edge_agent.config.rules import RulesConfig
from edge_agent.memory import Store, queries, rulebook
from edge_agent.rules.book import Alert, Rule, rules
from edge_agent.rules.predicate import ANY_THING, Predicate, category_names, several

__all__ = ["Resolver", "ResolverSettings", "box_overlap", "holds", "in_window"]


_RULES = RulesConfig()  #: the defaults, defined once (edge_agent.config.rules)


@dataclass(frozen=True)
class ResolverSettings:
    """The resolver's part of ``[rules]`` (:class:`~edge_agent.config.rules.RulesConfig`, whose defaults these are)."""

    persist_frames: int = _RULES.persist_frames  #: sampled frames a condition must hold on before it fires
    release_s: float = _RULES.release_s  #: a condition false (or unseen) this long ends its episode
    appearance_gap_s: float = _RULES.appearance_gap_s  #: sightings further apart than this are separate visits
    overlap: float = _RULES.overlap  #: "on" / "in": this fraction of the subject's box inside the object's
    timezone: str = _RULES.timezone  #: for time-of-day windows and "distinct days"

    @classmethod
    def of(cls, rules: RulesConfig) -> ResolverSettings:
        """The settings ``rules`` (a configuration's ``[rules]``) give."""
        return cls(rules.persist_frames, rules.release_s, rules.appearance_gap_s, rules.overlap, rules.timezone)


@dataclass
class _State:
    state: str = "idle"
    since: float | None = None
    frames: int = 0
    last_true: float | None = None
    last_fired: float | None = None
    details: dict[str, Any] = field(default_factory=dict)
    dirty: bool = False


@dataclass
class _Observation:
    id: int
    entity_id: int
    kind: str
    category: str
    name: str | None
    t_end: float
    boxes: dict[int, np.ndarray]  # frame_ms -> xyxy
    zone: str = ""  #: the named place it was described at (a zone, or a place the user named)
    colours: tuple[str, ...] = ()  #: the describer's colours of it (main, second)
    pattern: str = ""  #: the describer's pattern of it (striped, checked, ...)


def box_overlap(subject: np.ndarray, region: np.ndarray) -> float:
    """Fraction of the subject's box (x1, y1, x2, y2) inside the region."""
    w = max(0.0, min(subject[2], region[2]) - max(subject[0], region[0]))
    h = max(0.0, min(subject[3], region[3]) - max(subject[1], region[1]))
    area = max((subject[2] - subject[0]) * (subject[3] - subject[1]), 1e-9)
    return float(w * h / area)


def holds(
    p: Predicate, box: Sequence[float] | np.ndarray, regions: Sequence[Sequence[float] | np.ndarray], overlap: float
) -> bool:
    """The relation on one frame: "on" / "in" / "enters" / "leaves": at least ``overlap`` of the subject's
    box inside a region; "near": within half the subject's size of one; "appears": seen at all."""
    if p.relation == "appears" or (p.relation in ("enters", "leaves") and p.object_type is None):
        return True  # seen at all (entering or leaving the camera's view)
    b = np.asarray(box, np.float64)
    if p.relation == "near":
        pad = 0.5 * max(b[2] - b[0], b[3] - b[1])
        return any(box_overlap(b, np.asarray(r, np.float64) + np.array([-pad, -pad, pad, pad])) > 0 for r in regions)
    return any(box_overlap(b, np.asarray(r, np.float64)) >= overlap for r in regions)


def in_window(p: Predicate, t: float, tz: ZoneInfo) -> bool:
    """Whether time ``t`` falls on the rule's days of the week and in its time-of-day window (which may wrap past
    midnight: "after 11pm on Fridays" holds on Friday night until the window ends)."""
    local = dt.datetime.fromtimestamp(t, tz)
    early = p.window is not None and p.window[1] < p.window[0] and local.strftime("%H:%M") < p.window[1]
    if p.days and _WEEKDAYS[local.weekday() - early] not in p.days:  # after midnight: the night before's day
        return False
    if p.window is None:
        return True
    minute = local.hour * 60 + local.minute
    start, end = (int(x[:2]) * 60 + int(x[3:]) for x in p.window)
    return start <= minute < end if start <= end else (minute >= start or minute < end)


_WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


class Resolver:
    """``zones``: the configuration's named places, {camera: {name: (x1, y1, x2, y2)}}. ``sinks``: the
    names of the sinks each alert is queued for. ``dry_run``: keeps state in memory and writes nothing
    (``rules test``)."""

    def __init__(
        self,
        store: Store,
        *,
        zones: Mapping[str, Mapping[str, Sequence[float]]] | None = None,
        settings: ResolverSettings | None = None,
        sinks: Sequence[str] = (),
        dry_run: bool = False,
        on_alert: Callable[[Alert], None] | None = None,
    ) -> None:
        self.store = store
        self.settings = settings or ResolverSettings()
        self.zones = {
            cam: {n.lower(): np.asarray(b, np.float64) for n, b in places.items()}
            for cam, places in (zones or {}).items()
        }
        self.sinks = list(sinks)
        self.dry_run = dry_run
        self.on_alert = on_alert
        self._tz = ZoneInfo(self.settings.timezone)
        self._states: dict[tuple[int, int], _State] = {}
        self._watermark = 0
        self._stored = 0  #: the watermark as committed

    # -- driving -----------------------------------------------------------------------------------

    def process(self, *, rule_set: Sequence[Rule] | None = None, since_clip: int | None = None) -> list[Alert]:
        """Checks every clip committed after the watermark (or ``since_clip``), in commit order; one
        transaction per clip. Returns the alerts raised."""
        active = [r for r in (rule_set if rule_set is not None else rules(self.store)) if r.enabled]
        if not self.dry_run:
            self._watermark = self._stored = rulebook.watermark(self.store)
            self._load_states([r.id for r in active])
        if since_clip is not None:
            self._watermark = since_clip
        clips = queries.clips_after(self.store, self._watermark)
        raised: list[Alert] = []
        for clip in clips:
            applicable = [r for r in active if r.after_clip < clip.id and (r.predicate.camera in (None, clip.camera))]
            alerts = self._clip(clip.id, clip.camera, clip.t_start, clip.t_end, applicable) if applicable else []
            if alerts or any(s.dirty for s in self._states.values()):
                self._commit(clip.id, alerts)
            else:
                self._watermark = clip.id  # nothing changed: no transaction; the next commit moves the mark past it
            raised.extend(alerts)
        if clips and not self.dry_run and self._watermark != self._stored:
            self._commit(self._watermark, [])
        return raised

    def unconfirmed(self) -> list[tuple[int, int, int]]:
        """(rule, entity, sampled frames) of each subject whose condition held, but on fewer frames than a rule needs
        (``persist_frames``) before memory ended: why ``rules test`` raised nothing for a thing seen only briefly."""
        return [
            (rule_id, entity_id, s.frames)
            for (rule_id, entity_id), s in self._states.items()
            if s.state == "pending" and 0 < s.frames < self.settings.persist_frames
        ]

    def _load_states(self, rule_ids: Sequence[int]) -> None:
        self._states = {}
        for r in rulebook.rule_states(self.store, rule_ids):
            self._states[(int(r.rule_id), int(r.subject))] = _State(
                r.state, r.since, int(r.frames), r.last_true, r.last_fired, json.loads(r.details)
            )

    def _commit(self, clip_id: int, alerts: list[Alert]) -> None:
        self._watermark = clip_id
        if self.dry_run:
            for alert in alerts:
                if self.on_alert is not None:
                    self.on_alert(alert)
            return
        from edge_agent.rules.sinks.outbox import enqueue

        db = self.store
        with self.store.write():
            for (rule_id, subject), s in self._states.items():
                if s.dirty:
                    rulebook.save_rule_state(
                        db,
                        rule_id,
                        subject,
                        s.state,
                        s.since,
                        s.frames,
                        s.last_true,
                        s.last_fired,
                        json.dumps(s.details),
                    )
                    s.dirty = False
            for alert in alerts:
                details = {
                    "camera": alert.camera,
                    "message": alert.message,
                    "evidence": alert.evidence,
                    "clip_id": alert.clip_id,
                    "detected_at": alert.detected_at,
                }
                alert.id = rulebook.insert_fired_event(db, alert.rule_id, alert.entity_id, alert.t, json.dumps(details))
                enqueue(db, alert.id, alert.payload(), self.sinks, time.time())
            rulebook.set_watermark(db, clip_id)
        self._stored = clip_id
        for alert in alerts:
            if self.on_alert is not None:
                self.on_alert(alert)

    # -- one clip ----------------------------------------------------------------------------------

    def _observations(self, clip_id: int) -> list[_Observation]:
        rows = queries.clip_observations(self.store, clip_id)
        boxes: dict[int, dict[int, np.ndarray]] = defaultdict(dict)
        for b in queries.clip_boxes(self.store, clip_id):
            boxes[b.observation_id][b.frame_ms] = np.array([b.x1, b.y1, b.x2, b.y2], np.float64)
        return [
            _Observation(
                o.id,
                o.entity_id,
                o.kind,
                o.category,
                o.name,
                o.t_end,
                boxes.get(o.id, {}),
                o.zone,
                (o.colour or "", o.colour_second or ""),
                o.pattern or "",
            )
            for o in rows
        ]

    def _subject(self, p: Predicate, o: _Observation) -> bool:
        if p.subject_type == "entity":
            return o.entity_id == p.entity_id
        if p.subject_type == "unknown_person":
            return o.kind == "person" and not o.name
        # "the grey car leaves": a car described grey (its main colour, as questions read colours: a grey car with
        # white trim is not "a white van")
        if p.colours and (o.colours[0] if o.colours else "") not in p.colours:
            return False
        if p.pattern and o.pattern != p.pattern:  # "a person in stripes": described striped
            return False
        if p.subject == ANY_THING:  # "if anything is put on the couch": a thing of any kind, not a person
            return o.kind != "person"
        return o.category.lower() in category_names(p.subject)

    def _regions(
        self, p: Predicate, camera: str, frame_ms: int, observations: Sequence[_Observation], subject: int
    ) -> list[np.ndarray]:
        if p.object_type == "place":
            place = (p.object or "").lower()
            box = self.zones.get(camera, {}).get(place)
            if box is not None:
                return [box]
            # a camera without that zone (a worn one): the place the user named that the thing was seen at
            own = next((o for o in observations if o.entity_id == subject and frame_ms in o.boxes), None)
            return [own.boxes[frame_ms]] if own is not None and own.zone.lower() == place else []
        if p.object_type == "zone":
            return [np.asarray(p.zone, np.float64)]
        if p.object_type == "entity":
            return [
                o.boxes[frame_ms] for o in observations if o.entity_id == p.object_entity_id and frame_ms in o.boxes
            ]
        names = category_names(p.object or "")
        return [
            o.boxes[frame_ms]
            for o in observations
            if o.entity_id != subject
            and o.category.lower() in names
            and frame_ms in o.boxes
            and (not p.object_colours or (o.colours[0] if o.colours else "") in p.object_colours)  # "the grey car"
        ]

    def _clip(self, clip_id: int, camera: str, t0: float, t1: float, applicable: Sequence[Rule]) -> list[Alert]:
        observations = self._observations(clip_id)
        raised: list[Alert] = []
        for rule in applicable:
            p = rule.predicate
            if p.relation == "absent":
                raised.extend(self._absence(rule, clip_id, camera, t1, observations))
                continue
            if p.at is not None:
                raised.extend(self._check_at(rule, clip_id, t0, t1))
                continue
            if p.at_once is not None:
                raised.extend(self._together(rule, clip_id, camera, t1, observations))
                continue
            per_entity: dict[int, list[_Observation]] = defaultdict(list)
            for o in observations:
                if self._subject(p, o):
                    per_entity[o.entity_id].append(o)
            for entity_id, own in per_entity.items():
                frames = sorted({f for o in own for f in o.boxes})
                for frame_ms in frames:
                    t = frame_ms / 1000.0
                    box = next(o.boxes[frame_ms] for o in own if frame_ms in o.boxes)
                    truth = in_window(p, t, self._tz) and holds(
                        p, box, self._regions(p, camera, frame_ms, observations, entity_id), self.settings.overlap
                    )
                    alert = self._step(rule, entity_id, t, truth, camera, clip_id, [o.id for o in own], t1)
                    if alert is not None:
                        raised.append(alert)
            ended: dict[str, float | None] = {}  # each camera's end of recording, read once for this clip
            for (rule_id, entity_id), state in list(self._states.items()):  # time passes for subjects not seen here
                if rule_id != rule.id or entity_id in per_entity:
                    continue
                # ... on the camera they were last seen on: a car still in view when the street camera stopped has
                # not left when only the bedroom records; one the street recorded on without for a while has
                if state.details.get("camera") not in (None, camera) and not self._recorded_without(state, ended):
                    continue
                alert = self._step(rule, entity_id, t1, None, camera, clip_id, [], t1)
                if alert is not None:
                    raised.append(alert)
        return raised

    def _together(
        self, rule: Rule, clip_id: int, camera: str, clock: float, observations: Sequence[_Observation]
    ) -> list[Alert]:
        """ "More than 3 people in the living room": on each sampled frame, how many of the subject hold the relation
        there at once; the rule's one state (subject 0) is true while at least ``at_once`` do."""
        p = rule.predicate
        own = [o for o in observations if self._subject(p, o)]
        raised: list[Alert] = []
        for frame_ms in sorted({f for o in own for f in o.boxes}):
            t = frame_ms / 1000.0
            there = {
                o.entity_id
                for o in own
                if frame_ms in o.boxes
                and holds(
                    p,
                    o.boxes[frame_ms],
                    self._regions(p, camera, frame_ms, observations, o.entity_id),
                    self.settings.overlap,
                )
            }
            truth = in_window(p, t, self._tz) and len(there) >= (p.at_once or 0)
            state = self._states.setdefault((rule.id, 0), _State())
            if truth:
                state.details["count"] = len(there)  # how many the alert says
            evidence = [o.id for o in own if o.entity_id in there]
            alert = self._step(rule, 0, t, truth, camera, clip_id, evidence, clock)
            if alert is not None:
                raised.append(alert)
        if not own and (rule.id, 0) in self._states:  # none of them here: time passes
            alert = self._step(rule, 0, clock, None, camera, clip_id, [], clock)
            raised.extend([alert] if alert is not None else [])
        return raised

    def _recorded_without(self, state: _State, ended: dict[str, float | None]) -> bool:
        """Whether the camera a subject was last seen on recorded on for ``queries.LEFT_S`` or more after it (it went
        out of view there), rather than stopping with it still in view; ``ended``: cameras' recording ends read so
        far."""
        camera, last = state.details.get("camera"), state.last_true
        if camera is None or last is None:
            return True
        if str(camera) not in ended:
            ended[str(camera)] = queries.recorded_until(self.store, str(camera))
        until = ended[str(camera)]
        return until is not None and until - last >= queries.LEFT_S

    def _release(self, p: Predicate) -> float:
        return self.settings.appearance_gap_s if p.relation == "appears" else self.settings.release_s

    def _step(
        self,
        rule: Rule,
        entity_id: int,
        t: float,
        truth: bool | None,
        camera: str,
        clip_id: int,
        evidence: list[int],
        clock: float,
    ) -> Alert | None:
        """One sampled frame for one subject: truth True / False, or None when it was not seen (time passes)."""
        p = rule.predicate
        s = self._states.setdefault((rule.id, entity_id), _State())
        if truth:
            ended = None
            if s.state == "idle" or (s.last_true is not None and t - s.last_true > self._release(p)):
                ended = self._end(rule, entity_id, s, t, camera, clip_id, clock) if s.state == "active" else None
                s.state, s.since, s.frames = "pending", t, 0
            s.frames += 1
            s.last_true = t
            s.details["camera"] = camera  # where it was: a thing leaving is reported on the camera it left
            s.details.pop("first_false", None)
            s.dirty = True
            if (
                s.state == "pending"
                and s.frames >= self.settings.persist_frames
                and t - (s.since or t) >= p.min_duration_s
            ):
                s.state = "active"
                if p.relation == "leaves":
                    return ended  # inside, confirmed: fires when it leaves
                if p.times is not None and not self._counts(rule, s, t):
                    return ended
                return self._fire(rule, entity_id, s, t, camera, clip_id, evidence, clock)
            return ended
        if s.state == "idle":
            return None
        if truth is False and "first_false" not in s.details:
            s.details["first_false"] = t
            s.dirty = True
        if s.last_true is not None and t - s.last_true > self._release(p):
            return self._end(rule, entity_id, s, t, camera, clip_id, clock)
        return None

    def _end(
        self, rule: Rule, entity_id: int, s: _State, t: float, camera: str, clip_id: int, clock: float
    ) -> Alert | None:
        was_active = s.state == "active"
        left_at = float(s.details.pop("first_false", s.last_true or t))
        s.state, s.since, s.frames = "idle", None, 0
        s.dirty = True
        if was_active and rule.predicate.relation == "leaves":
            return self._fire(rule, entity_id, s, left_at, s.details.get("camera", camera), clip_id, [], clock)
        return None

    def _counts(self, rule: Rule, s: _State, t: float) -> bool:
        """Records a visit; whether this is exactly the n-th within the window."""
        p = rule.predicate
        visits = [v for v in s.details.get("visits", []) if v > t - float(p.within_s or 0)] + [t]
        s.details["visits"] = visits
        if p.per == "day":
            days = {dt.datetime.fromtimestamp(v, self._tz).date() for v in visits}
            today = dt.datetime.fromtimestamp(t, self._tz).date()
            first_today = all(dt.datetime.fromtimestamp(v, self._tz).date() != today for v in visits[:-1])
            return len(days) == p.times and first_today
        return len(visits) == p.times

    def _fire(
        self,
        rule: Rule,
        entity_id: int,
        s: _State,
        t: float,
        camera: str | None,
        clip_id: int,
        evidence: list[int],
        clock: float,
    ) -> Alert | None:
        s.dirty = True
        if s.last_fired is not None and t - s.last_fired < rule.cooldown_s:
            return None  # within the cooldown: this episode stays quiet
        s.last_fired = t
        return Alert(
            rule.id,
            rule.text,
            None if rule.predicate.at_once is not None else entity_id,  # several at once: no one entity
            t,
            camera,
            self._message(rule, entity_id, t, camera, s.last_true),
            evidence,
            clip_id,
            clock,
        )

    def _message(self, rule: Rule, entity_id: int, t: float, camera: str | None, last_seen: float | None = None) -> str:
        p = rule.predicate
        row = queries.entity_label(self.store, entity_id)
        who = f"{row[1]!r} (#{entity_id})" if row and row[1] else f"{row[0] if row else p.subject} #{entity_id}"
        where = f" on camera {camera}" if camera else ""
        if p.relation == "absent":
            span = float(p.absent_for_s or 0)
            return (
                f"{who} has not been seen for {f'{span / 3600:g} h' if span >= 3600 else f'{span / 60:g} min'} "
                f"(since {format_utc(last_seen if last_seen is not None else t - span)} UTC)"
            )
        if p.at is not None:
            if p.relation == "appears":
                what = f"on camera {p.camera}"
            else:
                what = (
                    {"on": "on", "in": "in", "near": "near"}[p.relation]
                    + " "
                    + (p.object or f"zone {list(p.zone or ())}")
                )
            seen = f"last seen {format_utc(last_seen)} UTC" if last_seen is not None else "never seen"
            who = who if entity_id else repr(p.subject)
            local = dt.datetime.fromtimestamp(t, self._tz).strftime("%H:%M")
            return f"{who} was {'not ' if p.negated else ''}{what} at {local} ({seen})"
        if p.at_once is not None:
            count = int(self._states.get((rule.id, 0), _State()).details.get("count", p.at_once))
            target = "" if p.relation == "appears" else f" {p.relation} {p.object or 'the zone'}"
            return f"{count} {several(p)} (at least {p.at_once}) together{target} at {format_utc(t)} UTC{where}"
        if p.times is not None:
            return (
                f"{who} appeared for the {p.times}. time within {float(p.within_s or 0) / 86400:g} days, "
                f"at {format_utc(t)} UTC{where}"
            )
        verb = {
            "on": "is on",
            "in": "is in",
            "near": "is near",
            "enters": "entered",
            "leaves": "left",
            "appears": "appeared",
        }[p.relation]
        if p.relation == "appears" or p.object_type is None:
            target = "" if p.relation != "leaves" else " the view"
        else:
            target = " " + (p.object or f"zone {list(p.zone or ())}")
        return f"{who} {verb}{target} at {format_utc(t)} UTC{where}"

    def _groups(self, p: Predicate) -> dict[int, list[int]]:
        """The subject's entities, watched together: one named entity on its own (its id -> itself); a category (or
        "an unknown person") as a whole (0 -> its members): "the keys have not been seen" means no keys at all, and an
        identity split must not make a stale twin "absent"."""
        if p.subject_type == "entity":
            return {p.entity_id: [p.entity_id]} if p.entity_id is not None else {}
        if p.subject_type == "unknown_person":
            members = queries.unnamed_people(self.store)
        else:
            members = queries.entities_of_categories(self.store, sorted(category_names(p.subject)))
        return {0: members} if members else {}

    def _due(self, at: str, clock: float) -> float:
        """The latest moment at or before ``clock`` whose local time of day is ``at`` ('HH:MM')."""
        local = dt.datetime.fromtimestamp(clock, self._tz)
        moment = local.replace(hour=int(at[:2]), minute=int(at[3:]), second=0, microsecond=0)
        if moment > local:
            moment = (moment - dt.timedelta(days=1)).replace(hour=int(at[:2]), minute=int(at[3:]))
        return moment.timestamp()

    def _check_at(self, rule: Rule, clip_id: int, start: float, clock: float) -> list[Alert]:
        """A check once a day at ``at``: where each of the subject's entities was last seen by then (its last frame,
        against the place or the things around it in that frame); fires when one is there, or (``negated``) when
        none is, or none was seen at all. A clip ending past the moment makes the check; checks the clips skipped
        over (days without a clip) are not made up, nor those before the first clip the rule looks at (``start``)."""
        p = rule.predicate
        assert p.at is not None
        s = self._states.setdefault((rule.id, 0), _State())
        if s.since is None:
            s.since, s.dirty = self._due(p.at, start), True
        due = self._due(p.at, clock)
        if due <= s.since:
            return []
        s.since, s.dirty = due, True
        members = [e for group in self._groups(p).values() for e in group]
        there: list[tuple[int, int]] = []  # (entity, observation) of the ones there
        latest: tuple[float, int, int] | None = None  # (time, entity, observation) of the last seen of them
        for entity_id in members:
            observation_id = queries.last_observation_of(self.store, entity_id, due)
            if observation_id is None:
                continue
            o = self.store.observation(observation_id)
            there_now = p.camera is None or o.camera == p.camera
            if there_now and p.relation != "appears":
                around = self._observations(o.clip_id)
                boxes = next((x.boxes for x in around if x.id == observation_id), {})
                last = max(boxes, default=None)
                there_now = last is not None and holds(
                    p, boxes[last], self._regions(p, o.camera, last, around, entity_id), self.settings.overlap
                )
            if there_now:
                there.append((entity_id, observation_id))
            if latest is None or o.t_end > latest[0]:
                latest = (o.t_end, entity_id, observation_id)
        if bool(there) == p.negated:
            return []
        entity_id, evidence = (
            (there[0][0], [there[0][1]])
            if there
            else ((latest[1], [latest[2]]) if latest is not None else (p.entity_id or 0, []))
        )
        s.last_true = latest[0] if latest is not None else None
        alert = self._fire(rule, entity_id, s, due, p.camera, clip_id, evidence, clock)
        return [alert] if alert is not None else []

    def _absence(
        self, rule: Rule, clip_id: int, camera: str, clock: float, observations: Sequence[_Observation]
    ) -> list[Alert]:
        p = rule.predicate
        span = float(p.absent_for_s or 0)
        groups = self._groups(p)
        raised = []
        for entity_id, members in groups.items():
            s = self._states.setdefault((rule.id, entity_id), _State())
            seen_here = [o.t_end for o in observations if o.entity_id in members]
            if seen_here:
                s.last_true = max(seen_here + [s.last_true or -math.inf])
                s.state = "active"
                s.dirty = True
            elif s.last_true is None:
                seen = queries.last_seen(self.store, members, clip_id, p.camera)
                if seen is None:
                    continue  # never seen: nothing to miss yet
                s.last_true, s.state, s.dirty = seen, "active", True
            if s.state != "active":
                continue  # reported; seeing it again re-arms the rule
            # "unseen for 4 hours" counts recorded time: hours the camera was off (a worn camera taken off) do not
            due = queries.recorded_since(self.store, float(s.last_true), span, clock, p.camera)
            if due is not None and clock >= due and in_window(p, clock, self._tz):
                # with a time of day ("between 9 and 5"), an absence is told in it: when it began, or else now
                at = due if in_window(p, due, self._tz) else clock
                s.state = "idle"  # this absence is reported once; seeing it again re-arms the rule
                last = queries.latest_observation(self.store, members, clip_id, p.camera)
                alert = self._fire(
                    rule, last[0] if last else entity_id, s, at, None, clip_id, [last[1]] if last else [], clock
                )
                if alert is not None:
                    raised.append(alert)
        return raised
