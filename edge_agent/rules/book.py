"""The rules the user set and the alerts they raised, as the agent works with them (Rule, Alert); their
rows (tables ``rules``, ``rule_events``, ``notifications``) are memory's, in edge_agent.memory.rulebook.
A removed rule stops firing but its alerts stay listed."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from edge_agent.errors import InvalidInputError
from edge_agent.memory import Store, queries, rulebook
from edge_agent.memory import places as memory_places
from edge_agent.memory.corrections import audit
from edge_agent.memory.records import NotFoundError
from edge_agent.rules.parse import detector_categories
from edge_agent.rules.predicate import Predicate

__all__ = [
    "Alert",
    "Rule",
    "Vocabulary",
    "add_rule",
    "alert_of",
    "alerts",
    "alerts_after",
    "get_rule",
    "last_alert_id",
    "remove_rule",
    "rules",
    "vocabulary",
]


@dataclass(frozen=True)
class Rule:
    id: int
    text: str
    predicate: Predicate
    cooldown_s: float
    created_at: float
    after_clip: int  #: the rule looks at clips committed after this one (not at the past)
    enabled: bool = True
    removed_at: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "text": self.text,
            "predicate": self.predicate.model_dump(exclude_defaults=True),
            "cooldown_s": self.cooldown_s,
            "created_at": self.created_at,
            "enabled": self.enabled,
            "removed_at": self.removed_at,
        }


@dataclass
class Alert:
    rule_id: int
    rule: str
    entity_id: int | None
    t: float  #: when the condition was met (for an absence: last seen + the span), Unix seconds
    camera: str | None
    message: str
    evidence: list[int] = field(default_factory=list)  #: observation ids
    clip_id: int | None = None
    detected_at: float | None = None  #: memory's clock when the resolver saw it (the clip's end)
    id: int | None = None
    deliveries: list[dict[str, Any]] = field(default_factory=list)

    def payload(self) -> dict[str, Any]:
        from edge_agent.clock import format_utc

        return {
            "rule_id": self.rule_id,
            "rule": self.rule,
            "event_id": self.id,
            "entity_id": self.entity_id,
            "t": self.t,
            "time": format_utc(self.t).replace(" ", "T") + "Z",
            "camera": self.camera,
            "message": self.message,
            "evidence": self.evidence,
        }


def _rule(row: rulebook.RuleRow) -> Rule:
    """A rule from its row."""
    return Rule(
        int(row.id),
        row.text,
        Predicate.model_validate_json(row.predicate),
        float(row.cooldown_s),
        float(row.created_at),
        int(row.after_clip),
        bool(row.enabled),
        row.removed_at,
    )


@dataclass(frozen=True)
class Vocabulary:
    """What a rule may name; anything else is refused (a rule about it could never fire)."""

    places: dict[str, list[str]]  #: the configuration's zone names -> the cameras each is drawn on
    names: dict[str, int]  #: the entities the user named: name -> id
    categories: list[str]  #: what things are detected as: the detector's classes and any category memory holds
    cameras: list[str] = field(default_factory=list)  #: the cameras (each is a place: "in the kitchen")


def vocabulary(store: Store, zones: Mapping[str, Mapping[str, Any]]) -> Vocabulary:
    """What a rule may name: the configuration's places, those the user named (``edge-agent places``) and the
    zones memory saw things in (a Frigate install's), the entities the user named, and the categories things are
    detected as (the detector's classes, and those of memory's entities, e.g. from another detector or a
    synthetic world)."""
    places: dict[str, list[str]] = {}
    for camera, named in sorted(zones.items()):
        for name in named:
            places.setdefault(name, []).append(camera)
    for place in memory_places.places(store):  # named by the user for a camera without zones
        if place.name and place.camera not in places.setdefault(place.name, []):
            places[place.name].append(place.camera)
    for zone, camera in queries.seen_zones(store):  # zones things were seen in (Frigate's, say)
        if camera not in places.setdefault(zone, []):
            places[zone].append(camera)
    categories = list(dict.fromkeys([*detector_categories(), *queries.entity_categories(store)]))
    cameras = sorted({*zones, *store.cameras()})
    return Vocabulary(dict(sorted(places.items())), queries.named_entities(store), categories, cameras)


def add_rule(store: Store, text: str, predicate: Predicate, *, cooldown_s: float = 600.0) -> Rule:
    """Stores a rule; it applies to clips committed from now on."""
    if not cooldown_s >= 0:
        raise InvalidInputError(f"cooldown_s must be >= 0, got {cooldown_s}")
    with store.write():
        rule_id = rulebook.insert_rule(
            store, text, predicate.model_dump_json(exclude_defaults=True), float(cooldown_s), time.time()
        )
    return get_rule(store, rule_id)


def get_rule(store: Store, rule_id: int) -> Rule:
    row = rulebook.rule_row(store, rule_id)
    if row is None:
        raise NotFoundError(f"no rule {rule_id}")
    return _rule(row)


def rules(store: Store, *, removed: bool = False) -> list[Rule]:
    """The rules in force (and the removed ones too if ``removed``), oldest first."""
    return [_rule(r) for r in rulebook.rule_rows(store, removed=removed)]


def remove_rule(store: Store, rule_id: int, *, caller: str | None = None) -> Rule:
    """The rule stops firing; alerts it raised stay. Its pending deliveries are dropped. The removal is
    written to the audit trail (the corrections table, action "remove_rule") with ``caller`` when given."""
    rule = get_rule(store, rule_id)
    if rule.removed_at is not None:
        raise NotFoundError(f"rule {rule_id} was already removed")
    with store.write():
        rulebook.retire_rule(store, rule.id, time.time())
        audit(store, "remove_rule", caller, rule_id=rule.id, text=rule.text)
    return get_rule(store, rule.id)


def alerts(store: Store, *, rule_id: int | None = None, limit: int = 100) -> list[Alert]:
    """Alerts raised, newest first, with the state of their deliveries."""
    return [
        alert_of(row, rulebook.deliveries(store, row.id))
        for row in rulebook.fired_events(store, rule_id=rule_id, limit=limit)
    ]


def alerts_after(store: Store, last_id: int, limit: int) -> list[Alert]:
    """Alerts with an id above ``last_id``, oldest first (at most ``limit``), without their deliveries."""
    return [alert_of(row) for row in rulebook.fired_events_after(store, last_id, limit)]


def last_alert_id(store: Store) -> int:
    """The id of the newest alert (0 for none)."""
    return rulebook.last_fired_event_id(store)


def alert_of(row: rulebook.EventRow, deliveries: list[dict[str, Any]] | None = None) -> Alert:
    """An alert from a rule-event row."""
    d = json.loads(row.details)
    return Alert(
        row.rule_id,
        row.rule_text,
        row.entity_id,
        row.t,
        d.get("camera"),
        d.get("message", ""),
        d.get("evidence", []),
        d.get("clip_id"),
        d.get("detected_at"),
        row.id,
        [] if deliveries is None else deliveries,
    )
