"""The rules the user set and the alerts they raised, as memory keeps them (tables ``rules``,
``rule_events``, ``notifications``). A removed rule stops firing but its alerts stay listed."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from edge_agent.memory import Store
from edge_agent.memory.corrections import audit
from edge_agent.rules.predicate import Predicate

__all__ = ["Alert", "Rule", "add_rule", "alerts", "get_rule", "remove_rule", "rules", "vocabulary"]


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
        return {"id": self.id, "text": self.text, "predicate": self.predicate.model_dump(exclude_defaults=True),
                "cooldown_s": self.cooldown_s, "created_at": self.created_at, "enabled": self.enabled,
                "removed_at": self.removed_at}


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

        return {"rule_id": self.rule_id, "rule": self.rule, "event_id": self.id, "entity_id": self.entity_id, "t": self.t,
                "time": format_utc(self.t).replace(" ", "T") + "Z", "camera": self.camera, "message": self.message,
                "evidence": self.evidence}


_RULE_COLUMNS = "id, text, predicate, cooldown_s, created_at, after_clip, enabled, removed_at"


def _rule(row: tuple[Any, ...]) -> Rule:
    return Rule(int(row[0]), row[1], Predicate.model_validate_json(row[2]), float(row[3]), float(row[4]), int(row[5]),
                bool(row[6]), row[7])


def vocabulary(store: Store, zones: Mapping[str, Mapping[str, Any]]) -> tuple[list[str], dict[str, int]]:
    """What a rule may name: the configuration's places (zone names of any camera) and the entities the
    user named (name -> id)."""
    places = sorted({name for camera in zones.values() for name in camera})
    return places, {name: int(i) for i, name in store.db.query("SELECT id, name FROM entities WHERE name IS NOT NULL")}


def add_rule(store: Store, text: str, predicate: Predicate, *, cooldown_s: float = 600.0) -> Rule:
    """Stores a rule; it applies to clips committed from now on."""
    if not cooldown_s >= 0:
        raise ValueError(f"cooldown_s must be >= 0, got {cooldown_s}")
    with store.write():
        after = int(store.db.query_one("SELECT coalesce(max(id), 0) FROM clips")[0])
        rule_id = store.db.insert("INSERT INTO rules (text, predicate, enabled, cooldown_s, created_at, after_clip) VALUES (?, ?, 1, ?, ?, ?)",
                                  (text, predicate.model_dump_json(exclude_defaults=True), float(cooldown_s), time.time(), after))
    return get_rule(store, rule_id)


def get_rule(store: Store, rule_id: int) -> Rule:
    row = store.db.query_one(f"SELECT {_RULE_COLUMNS} FROM rules WHERE id = ?", (int(rule_id),))
    if row is None:
        raise LookupError(f"no rule {rule_id}")
    return _rule(row)


def rules(store: Store, *, removed: bool = False) -> list[Rule]:
    """The rules in force (and the removed ones too if ``removed``), oldest first."""
    return [_rule(r) for r in store.db.query(f"SELECT {_RULE_COLUMNS} FROM rules WHERE ? OR removed_at IS NULL ORDER BY id", (removed,))]


def remove_rule(store: Store, rule_id: int, *, caller: str | None = None) -> Rule:
    """The rule stops firing; alerts it raised stay. Its pending deliveries are dropped. The removal is
    written to the audit trail (the corrections table, action "remove_rule") with ``caller`` when given."""
    rule = get_rule(store, rule_id)
    if rule.removed_at is not None:
        raise LookupError(f"rule {rule_id} was already removed")
    with store.write():
        store.db.execute("UPDATE rules SET enabled = 0, removed_at = ? WHERE id = ?", (time.time(), rule.id))
        store.db.execute("DELETE FROM rule_state WHERE rule_id = ?", (rule.id,))
        store.db.execute("UPDATE notifications SET status = 'failed', error = 'rule removed' WHERE status = 'pending' AND "
                         "rule_event_id IN (SELECT id FROM rule_events WHERE rule_id = ?)", (rule.id,))
        audit(store, "remove_rule", caller, rule_id=rule.id, text=rule.text)
    return get_rule(store, rule.id)


def alerts(store: Store, *, rule_id: int | None = None, limit: int = 100) -> list[Alert]:
    """Alerts raised, newest first, with the state of their deliveries."""
    rows = store.db.query(
        "SELECT e.id, e.rule_id, r.text, e.entity_id, e.t, e.details FROM rule_events e JOIN rules r ON r.id = e.rule_id "
        "WHERE e.state = 'fired' AND (? IS NULL OR e.rule_id = ?) ORDER BY e.t DESC, e.id DESC LIMIT ?", (rule_id, rule_id, int(limit)))
    out = []
    for event_id, rid, text, entity_id, t, details in rows:
        d = json.loads(details)
        deliveries = [{"sink": s, "status": st, "attempts": a, "error": err} for s, st, a, err in store.db.query(
            "SELECT sink, status, attempts, error FROM notifications WHERE rule_event_id = ? ORDER BY id", (event_id,))]
        out.append(Alert(rid, text, entity_id, t, d.get("camera"), d.get("message", ""), d.get("evidence", []), d.get("clip_id"),
                         d.get("detected_at"), event_id, deliveries))
    return out
