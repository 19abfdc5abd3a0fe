"""Rules in a synthetic world (EVAL.md section 2): the alerts each of a scenario's rules should raise,
derived from the script, and the scoring of the alerts memory's resolver raised against them.

Ground truth runs the resolver's semantics (:mod:`edge_agent.rules.resolver`) on the truth instead of
on memory:

- **samples**: every frame the camera records (the frames perception is given), with the true boxes of
  the instances visible on it, *before* the noise model (no missed detections, jitter, false positives
  or track fragmentation) but *without* instances the world hides (covered by what is in front of them,
  or out of the view): a camera could not see those either, so a dog hidden behind a person is not
  "on the sofa" on that frame, and hidden keys are not "seen";
- **subjects** are instances (where the resolver has memory's entities): a category rule watches every
  instance of the category (all people are unknown people: a world's memory names no one);
- **on / in / enters / leaves**: at least ``overlap`` of the instance's box inside the place's zone (or
  the rule's zone, or another visible instance of the object category); **near**: the box grown by half
  its larger side touches the region; **appears**: visible;
- **episodes**: an instance's condition is pending from its first true sample and fires once it has
  held on ``persist_frames`` samples and for the rule's ``min_duration_s``; an episode ends when
  ``release_s`` (``appearance_gap_s`` for appearances) passes without a true sample (time between
  recordings counts). One alert per episode, none for the same instance within ``cooldown_s`` of its
  last one; ``leaves`` fires when a confirmed episode ends, at its first false sample; ``times`` counts
  confirmed episodes (or distinct days) in the sliding window and fires at exactly the n-th;
- **absent**: checked at every recorded frame; once an instance has been seen, it fires when a frame is
  recorded without it after the sessions since its last sighting add up to the span (recorded time: hours
  the camera was off do not count), with t = that moment, and re-arms when the instance is seen again. A
  gap in the recording, after which the instance is in view on the first frame, raises nothing. A rule about a
  category watches the category as a whole, as the resolver does ("the keys have not been seen": no keys at all;
  two sets of keys are one subject, seen when either is): its events carry the instance seen last before them,
  and its alerts are matched whichever instance their entity is (:func:`group_absence_rules`).

An event's ``t_start`` is when the alert should fire (the condition has persisted), ``t_end`` the last
true sample of its episode (``t_start`` for absences and leaving). Scoring matches each rule's alerts
to its events one to one: alerts in time order, each to the unmatched event with the nearest
``t_start`` among those with ``t_start - tol <= alert.t <= t_end + tol`` and, when the alert's entity is
labelled with an instance (the majority label of its observations), of that instance. ``tol`` is
``2 * release_s`` for state rules and ``clip_seconds + release_s`` for absences, whose times are compared on the
recorded clock (:func:`recorded_clock`: seconds the camera had recorded by then): the absence is counted in recorded
time on both sides, so they only differ by where the last sighting fell in its clip, and an alert due in the last
seconds of one recording and one due early in the next are seconds apart, not the hours the camera was off.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np

from edge_agent.clock import after_recording
from edge_agent.eval.world import World, place_in, rule_predicates
from edge_agent.rules.predicate import Predicate, category_names
from edge_agent.rules.resolver import ResolverSettings, holds, in_window

__all__ = [
    "RaisedAlert",
    "TrueAlert",
    "absences",
    "entity_labels",
    "episodes",
    "group_absence_rules",
    "match_alerts",
    "recorded_clock",
    "score_alerts",
    "summarize_alerts",
    "tolerances",
    "true_alerts",
]

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class TrueAlert:
    rule: int  #: index into the scenario's rules
    instance: str
    t_start: float  #: when the alert should fire
    t_end: float  #: the last true sample of the episode (t_start for absence and leaving)


@dataclass(frozen=True)
class RaisedAlert:
    rule: int  #: index into the scenario's rules
    label: str | None  #: the instance the alert's entity is (majority label of its observations), None if unlabelled
    t: float  #: when the resolver says the condition was met
    detected_at: float  #: the end of the clip at which it was raised


def episodes(
    samples: Iterable[tuple[float, bool]],
    p: Predicate,
    settings: ResolverSettings,
    cooldown_s: float,
    *,
    until: float | None = None,
) -> list[tuple[float, float]]:
    """One subject's true alerts (t_start, t_end) from its samples (time, condition holds), in time order:
    the frames it is visible on. Persistence, release, cooldown, ``leaves`` and ``times`` as the module says.
    ``until``: the end of the recording; an episode still under way then has not ended (no leaving) unless
    ``release_s`` had passed by then (None: the episode ends with the samples)."""
    tz = ZoneInfo(settings.timezone)
    release = settings.appearance_gap_s if p.relation == "appears" else settings.release_s
    out: list[list[float]] = []
    state, since, frames = "idle", 0.0, 0
    last_true: float | None = None
    last_fired: float | None = None
    first_false: float | None = None
    current: list[float] | None = None  # the event of the episode under way
    visits: list[float] = []

    def fire(t: float) -> list[float] | None:
        nonlocal last_fired
        if last_fired is not None and t - last_fired < cooldown_s:
            return None
        last_fired = t
        out.append([t, t])
        return out[-1]

    def close() -> None:
        nonlocal state, current, first_false
        if state == "active" and p.relation == "leaves":
            fire(first_false if first_false is not None else float(last_true or 0.0))
        state, current, first_false = "idle", None, None

    def counts(t: float) -> bool:
        nonlocal visits
        visits = [v for v in visits if v > t - float(p.within_s or 0)] + [t]
        if p.per == "day":
            day: Callable[[float], dt.date] = lambda v: dt.datetime.fromtimestamp(v, tz).date()  # noqa: E731
            return len({day(v) for v in visits}) == p.times and all(day(v) != day(t) for v in visits[:-1])
        return len(visits) == p.times

    for t, truth in samples:
        truth = truth and in_window(p, t, tz)
        if truth:
            if state != "idle" and last_true is not None and t - last_true > release:
                close()
            if state == "idle":
                state, since, frames, first_false = "pending", t, 0, None
            frames += 1
            last_true, first_false = t, None
            if current is not None:
                current[1] = t
            if state == "pending" and frames >= settings.persist_frames and t - since >= p.min_duration_s:
                state = "active"
                if p.relation != "leaves" and (p.times is None or counts(t)):
                    current = fire(t)
        elif state != "idle":
            first_false = t if first_false is None else first_false
            if last_true is not None and t - last_true > release:
                close()
    if until is None or (last_true is not None and until - last_true > release):
        close()
    return [(a, b) for a, b in out]


def absences(
    seen: Sequence[float],
    recorded: Sequence[float],
    span: float,
    cooldown_s: float,
    sessions: Sequence[tuple[float, float]],
) -> list[float]:
    """When one subject's absence alert should fire, checked at the ``recorded`` frame times (sorted); ``seen``: the
    times it is visible (a subset of them). The span counts recorded time: the moment the ``sessions`` (when the
    camera was on, sorted) after the last sighting add up to ``span``."""
    visible = set(seen)
    out: list[float] = []
    last_seen: float | None = None
    due: float | None = None  # when the absence since the last sighting is due, once the first frame without it asks
    armed = False
    last_fired: float | None = None
    for t in recorded:
        if t in visible:
            last_seen, due, armed = t, None, True
            continue
        if not armed or last_seen is None:
            continue
        if due is None:
            due = after_recording(sessions, last_seen, span)
            if due is None:  # the recording never adds up to the span
                armed = False
                continue
        if t >= due:
            armed = False
            if last_fired is None or due - last_fired >= cooldown_s:
                last_fired = due
                out.append(due)
    return out


def _regions(
    p: Predicate, zones: Mapping[str, Box], shown: Sequence[tuple[str, Box]], category: Mapping[str, str], subject: str
) -> list[Box]:
    if p.object_type == "place":
        box = {k.lower(): v for k, v in zones.items()}.get((p.object or "").lower())
        return [] if box is None else [box]
    if p.object_type == "zone":
        return [tuple(p.zone)] if p.zone is not None else []  # type: ignore[list-item]
    names = category_names(p.object or "")
    return [b for i, b in shown if i != subject and category[i].lower() in names]


def true_alerts(world: World, settings: ResolverSettings) -> list[TrueAlert]:
    """Every rule's true alerts in the world, by rule, instance and time."""
    category = {e.id: e.category for e in world.scenario.entities}
    frames = [(s.time(f), shown, s) for s in world.sessions for f, shown in enumerate(s.true_boxes or s.boxes)]
    out: list[TrueAlert] = []
    for k, (spec, p) in enumerate(zip(world.scenario.rules, rule_predicates(world.scenario))):
        if p.camera not in (None, world.camera):
            continue
        names = {"person"} if p.subject_type == "unknown_person" else category_names(p.subject)
        subjects = [
            e.id
            for e in world.scenario.entities
            if e.category.lower() in names and not (p.subject_type == "unknown_person" and e.named)
        ]  # the household's members are named: never unknown
        if p.relation == "absent":  # the category as a whole
            out.extend(_group_absences(k, p, spec.cooldown_s, set(subjects), frames, world))
            continue
        for instance in subjects:
            # A camera without zones (a worn one): a place is where the instance truly stands, as the wearer named it.
            by_place = p.object_type == "place" and not world.zones
            samples = [
                (
                    t,
                    place_in(world, session, instance, t) == (p.object or "").lower()
                    if by_place
                    else holds(p, box, _regions(p, world.zones, shown, category, instance), settings.overlap),
                )
                for t, shown, session in frames
                for i, box in shown
                if i == instance
            ]
            until = world.sessions[-1].t_end if world.sessions else None
            out.extend(
                TrueAlert(k, instance, a, b) for a, b in episodes(samples, p, settings, spec.cooldown_s, until=until)
            )
    return sorted(out, key=lambda e: (e.rule, e.t_start, e.instance))


def _group_absences(
    rule: int,
    p: Predicate,
    cooldown_s: float,
    members: set[str],
    frames: Sequence[tuple[float, Sequence[tuple[str, Box]], Any]],
    world: World,
) -> list[TrueAlert]:
    """An absence rule's events for its subjects watched together: seen on a frame where any of them is; each event
    carries the member seen last before it."""
    last_of: dict[float, str] = {}
    for t, shown, _ in frames:
        visible = sorted(i for i, _ in shown if i in members)
        if visible:
            last_of[t] = visible[0]
    seen = sorted(last_of)
    on = [(session.t_start, session.t_end) for session in world.sessions]
    out = []
    for due in absences(seen, [t for t, _, _ in frames], float(p.absent_for_s or 0), cooldown_s, on):
        before = [t for t in seen if t < due]
        out.append(TrueAlert(rule, last_of[before[-1]] if before else sorted(members)[0], due, due))
    return out


def group_absence_rules(world: World) -> set[int]:
    """The scenario's rules whose subject is watched as a whole: absences of a category (a world's rules name no
    entity); their alerts are matched whichever instance the alert's entity is."""
    return {k for k, p in enumerate(rule_predicates(world.scenario)) if p.relation == "absent"}


def tolerances(world: World, settings: ResolverSettings, clip_seconds: float) -> dict[int, float]:
    """Per rule, how far outside its event an alert may fall and still match it (see the module)."""
    return {
        k: clip_seconds + settings.release_s if p.relation == "absent" else 2 * settings.release_s
        for k, p in enumerate(rule_predicates(world.scenario))
    }


def recorded_clock(sessions: Sequence[tuple[float, float]]) -> Callable[[float], float]:
    """t -> the seconds the camera had recorded by t (``sessions``: (start, end) when it was on, sorted, apart)."""
    starts = np.array([a for a, _ in sessions], np.float64)
    ends = np.array([b for _, b in sessions], np.float64)
    before = np.concatenate([[0.0], np.cumsum(ends - starts)])

    def clock(t: float) -> float:
        k = int(np.searchsorted(starts, t, side="right"))  # sessions begun by t
        return 0.0 if k == 0 else float(before[k - 1] + min(t, ends[k - 1]) - starts[k - 1])

    return clock


def entity_labels(observation_entity: Mapping[int, int], observation_label: Mapping[int, str]) -> dict[int, str]:
    """entity -> the instance most of its labelled observations saw."""
    votes: dict[int, Counter[str]] = {}
    for o, e in observation_entity.items():
        if o in observation_label:
            votes.setdefault(e, Counter())[observation_label[o]] += 1
    return {e: c.most_common(1)[0][0] for e, c in votes.items()}


def match_alerts(
    alerts: Sequence[RaisedAlert], events: Sequence[TrueAlert], tolerance: Mapping[int, float]
) -> list[tuple[int, int]]:
    """One-to-one (alert index, event index) pairs of the same rule: alerts in time order, each to the
    eligible unmatched event with the nearest t_start (ties: the earlier)."""
    taken: set[int] = set()
    pairs = []
    for a in sorted(range(len(alerts)), key=lambda i: (alerts[i].t, i)):
        alert = alerts[a]
        tol = tolerance.get(alert.rule, 0.0)
        eligible = [
            e
            for e, ev in enumerate(events)
            if e not in taken
            and ev.rule == alert.rule
            and ev.t_start - tol <= alert.t <= ev.t_end + tol
            and alert.label in (None, ev.instance)
        ]
        if eligible:
            best = min(eligible, key=lambda e: (abs(alert.t - events[e].t_start), events[e].t_start))
            taken.add(best)
            pairs.append((a, best))
    return pairs


def _stats(values: Sequence[float]) -> dict[str, float] | None:
    return (
        {"median": float(np.median(values)), "mean": float(np.mean(values)), "max": float(np.max(values))}
        if values
        else None
    )


def _block(
    alerts: Sequence[RaisedAlert], events: Sequence[TrueAlert], pairs: Sequence[tuple[int, int]]
) -> dict[str, Any]:
    return {
        "alerts": len(alerts),
        "events": len(events),
        "matched": len(pairs),
        "precision": len(pairs) / len(alerts) if alerts else None,  # None: nothing to be right or wrong about
        "recall": len(pairs) / len(events) if events else None,
        "delay_s": _stats([alerts[a].detected_at - events[e].t_start for a, e in pairs]),
        "condition_delay_s": float(np.median([alerts[a].t - events[e].t_start for a, e in pairs])) if pairs else None,
    }


def score_alerts(
    rules: Sequence[str], alerts: Sequence[RaisedAlert], events: Sequence[TrueAlert], tolerance: Mapping[int, float]
) -> dict[str, Any]:
    """Precision (matched / alerts), recall (matched / events), the delay from when the alert should have
    fired to the end of the clip that raised it (``delay_s``: median, mean, max) and the median error of
    the alert's own time (``condition_delay_s``), overall and per rule; None where undefined."""
    pairs = match_alerts(alerts, events, tolerance)
    per_rule = []
    for k, text in enumerate(rules):
        mine_a = [a for a in range(len(alerts)) if alerts[a].rule == k]
        mine_e = [e for e in range(len(events)) if events[e].rule == k]
        index_a, index_e = {a: n for n, a in enumerate(mine_a)}, {e: n for n, e in enumerate(mine_e)}
        own = [(index_a[a], index_e[e]) for a, e in pairs if a in index_a]
        per_rule.append(
            {"rule": text, "tolerance_s": tolerance.get(k, 0.0)}
            | _block([alerts[a] for a in mine_a], [events[e] for e in mine_e], own)
        )
    return {"overall": _block(alerts, events, pairs), "rules": per_rule}


def _mean(values: Sequence[Any]) -> Any:
    """The mean of the defined values (numbers, or dicts of numbers key by key); None if none is."""
    defined = [v for v in values if v is not None]
    if not defined:
        return None
    if isinstance(defined[0], dict):
        return {k: float(np.mean([v[k] for v in defined])) for k in defined[0]}
    return float(np.mean(defined))


def summarize_alerts(blocks: Sequence[dict[str, Any] | None]) -> dict[str, Any] | None:
    """Seeds averaged: every figure (counts too) is the mean over the seeds where it is defined."""
    runs = [b for b in blocks if b is not None]
    if not runs:
        return None
    keys = ("alerts", "events", "matched", "precision", "recall", "delay_s", "condition_delay_s")

    def mean_block(items: Sequence[dict[str, Any]]) -> dict[str, Any]:
        return {k: _mean([i[k] for i in items]) for k in keys}

    overall = mean_block([r["overall"] for r in runs])
    overall |= {
        "precision_by_seed": [r["overall"]["precision"] for r in runs],
        "recall_by_seed": [r["overall"]["recall"] for r in runs],
    }
    rules = [
        {"rule": rs[0]["rule"], "tolerance_s": rs[0]["tolerance_s"]} | mean_block(rs)
        for rs in zip(*(r["rules"] for r in runs))
    ]
    return {"overall": overall, "rules": rules}
