"""The rows of procedural memory (ReflectWorld-MM): the user's rules, the resolver's per-rule state and its
watermark, the rule events (alerts) and the notification outbox their deliveries wait in. Memory keeps
the rows; edge_agent.rules keeps the logic (predicates, the resolver's decisions, the sinks' delivery).

Functions over a :class:`~edge_agent.memory.db.Database`. None opens a transaction: a write runs inside
the caller's (``store.write()``, or the dispatcher's own short ones), so that an event and its pending
deliveries commit together."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from edge_agent.memory.db import Database, HasDatabase, database_of

__all__ = [
    "RULE_COLUMNS",
    "DueNotification",
    "EventRow",
    "RuleRow",
    "RuleStateRow",
    "count_pending_notifications",
    "count_rules_in_force",
    "deliveries",
    "due_notifications",
    "enqueue_notifications",
    "fired_events",
    "fired_events_after",
    "has_due_notification",
    "insert_fired_event",
    "insert_rule",
    "last_fired_event_id",
    "mark_attempt_failed",
    "mark_sent",
    "mark_undeliverable",
    "next_attempt_time",
    "retire_rule",
    "rule_row",
    "rule_rows",
    "rule_states",
    "save_rule_state",
    "set_watermark",
    "watermark",
]


class RuleRow(NamedTuple):
    """A stored rule."""

    id: int
    text: str
    predicate: str  #: the predicate as JSON
    cooldown_s: float
    created_at: float
    after_clip: int  #: it looks at the clips committed after this one
    enabled: int
    removed_at: float | None


class RuleStateRow(NamedTuple):
    """The resolver's state of one rule for one subject."""

    rule_id: int
    subject: int
    state: str
    since: float | None
    frames: int
    last_true: float | None
    last_fired: float | None
    details: str  #: JSON


class EventRow(NamedTuple):
    """A fired rule event (an alert)."""

    id: int
    rule_id: int
    rule_text: str
    entity_id: int | None
    t: float
    details: str  #: JSON: camera, message, evidence, clip_id, detected_at


class DueNotification(NamedTuple):
    """A pending delivery of an alert to one sink."""

    id: int
    sink: str
    attempts: int
    payload: str  #: JSON


#: the columns of a rule row, in the order :func:`rule_row` and :func:`rule_rows` return them
RULE_COLUMNS = RuleRow._fields
_RULE_SELECT = ", ".join(RULE_COLUMNS)
_WATERMARK = "rules_watermark"  #: meta key: the last clip the resolver looked at
_EVENT_SELECT = (
    "SELECT e.id, e.rule_id, r.text, e.entity_id, e.t, e.details FROM rule_events e JOIN rules r ON r.id = e.rule_id "
)


# -- rules -------------------------------------------------------------------------------------------


def insert_rule(
    memory: Database | HasDatabase, text: str, predicate_json: str, cooldown_s: float, created_at: float
) -> int:
    """Stores an enabled rule that looks at the clips committed after the newest one now; returns its id."""
    db = database_of(memory)
    after = int(db.value("SELECT coalesce(max(id), 0) FROM clips"))
    return db.insert(
        "INSERT INTO rules (text, predicate, enabled, cooldown_s, created_at, after_clip) VALUES (?, ?, 1, ?, ?, ?)",
        (text, predicate_json, float(cooldown_s), created_at, after),
    )


def rule_row(memory: Database | HasDatabase, rule_id: int) -> RuleRow | None:
    """The rule's row, None for no such rule."""
    db = database_of(memory)
    row = db.query_one(f"SELECT {_RULE_SELECT} FROM rules WHERE id = ?", (int(rule_id),))
    return RuleRow(*row) if row is not None else None


def rule_rows(memory: Database | HasDatabase, *, removed: bool = False) -> list[RuleRow]:
    """The rows of the rules in force (and of the removed ones too if ``removed``), oldest first."""
    db = database_of(memory)
    rows = db.query(f"SELECT {_RULE_SELECT} FROM rules WHERE ? OR removed_at IS NULL ORDER BY id", (removed,))
    return [RuleRow(*row) for row in rows]


def retire_rule(memory: Database | HasDatabase, rule_id: int, at: float) -> None:
    """Disables the rule and marks it removed at ``at``; its state goes, its pending deliveries fail
    ("rule removed"); its events stay."""
    db = database_of(memory)
    db.execute("UPDATE rules SET enabled = 0, removed_at = ? WHERE id = ?", (at, rule_id))
    db.execute("DELETE FROM rule_state WHERE rule_id = ?", (rule_id,))
    db.execute(
        "UPDATE notifications SET status = 'failed', error = 'rule removed' WHERE status = 'pending' AND "
        "rule_event_id IN (SELECT id FROM rule_events WHERE rule_id = ?)",
        (rule_id,),
    )


def count_rules_in_force(memory: Database | HasDatabase) -> int:
    db = database_of(memory)
    return int(db.value("SELECT count(*) FROM rules WHERE removed_at IS NULL"))


# -- the resolver's state ----------------------------------------------------------------------------


def watermark(memory: Database | HasDatabase) -> int:
    """The last clip the resolver looked at (0 before its first)."""
    db = database_of(memory)
    row = db.query_one("SELECT value FROM meta WHERE key = ?", (_WATERMARK,))
    return int(row[0]) if row else 0


def set_watermark(memory: Database | HasDatabase, clip_id: int) -> None:
    db = database_of(memory)
    db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (_WATERMARK, str(clip_id)))


def rule_states(memory: Database | HasDatabase, rule_ids: Sequence[int]) -> list[RuleStateRow]:
    """The resolver's states of these rules, one per rule and subject."""
    db = database_of(memory)
    if not rule_ids:
        return []
    marks = ",".join("?" * len(rule_ids))
    rows = db.query(
        f"SELECT rule_id, subject, state, since, frames, last_true, last_fired, details FROM rule_state "
        f"WHERE rule_id IN ({marks})",
        tuple(rule_ids),
    )
    return [RuleStateRow(*row) for row in rows]


def save_rule_state(
    memory: Database | HasDatabase,
    rule_id: int,
    subject: int,
    state: str,
    since: float | None,
    frames: int,
    last_true: float | None,
    last_fired: float | None,
    details_json: str,
) -> None:
    """Writes (or replaces) the state of one rule for one subject."""
    db = database_of(memory)
    db.execute(
        "INSERT OR REPLACE INTO rule_state (rule_id, subject, state, since, frames, last_true, last_fired, details) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (rule_id, subject, state, since, frames, last_true, last_fired, details_json),
    )


# -- events (alerts) ---------------------------------------------------------------------------------


def insert_fired_event(
    memory: Database | HasDatabase, rule_id: int, entity_id: int | None, t: float, details_json: str
) -> int:
    """Records that a rule fired; returns the event's id."""
    db = database_of(memory)
    return db.insert(
        "INSERT INTO rule_events (rule_id, entity_id, t, state, details) VALUES (?, ?, ?, 'fired', ?)",
        (rule_id, entity_id, t, details_json),
    )


def fired_events(memory: Database | HasDatabase, *, rule_id: int | None = None, limit: int = 100) -> list[EventRow]:
    """The fired events (of one rule), newest first."""
    db = database_of(memory)
    rows = db.query(
        _EVENT_SELECT + "WHERE e.state = 'fired' AND (? IS NULL OR e.rule_id = ?) ORDER BY e.t DESC, e.id DESC LIMIT ?",
        (rule_id, rule_id, int(limit)),
    )
    return [EventRow(*row) for row in rows]


def fired_events_after(memory: Database | HasDatabase, last_id: int, limit: int) -> list[EventRow]:
    """As :func:`fired_events`, for the events with an id above ``last_id``, oldest first (at most ``limit``)."""
    db = database_of(memory)
    rows = db.query(_EVENT_SELECT + "WHERE e.state = 'fired' AND e.id > ? ORDER BY e.id LIMIT ?", (last_id, limit))
    return [EventRow(*row) for row in rows]


def last_fired_event_id(memory: Database | HasDatabase) -> int:
    db = database_of(memory)
    return int(db.value("SELECT coalesce(max(id), 0) FROM rule_events WHERE state = 'fired'"))


# -- the notification outbox -------------------------------------------------------------------------


def enqueue_notifications(
    memory: Database | HasDatabase, rule_event_id: int, payload_json: str, sinks: Sequence[str], now: float
) -> list[int]:
    """One pending notification per sink name, due now; returns their ids."""
    db = database_of(memory)
    return [
        db.insert(
            "INSERT INTO notifications (rule_event_id, sink, status, attempts, payload, created_at, next_attempt)"
            " VALUES (?, ?, 'pending', 0, ?, ?, ?)",
            (int(rule_event_id), name, payload_json, float(now), float(now)),
        )
        for name in sinks
    ]


def deliveries(memory: Database | HasDatabase, rule_event_id: int) -> list[dict[str, Any]]:
    """The deliveries of one event: {sink, status, attempts, error}, in the order they were queued."""
    db = database_of(memory)
    rows = db.query(
        "SELECT sink, status, attempts, error FROM notifications WHERE rule_event_id = ? ORDER BY id", (rule_event_id,)
    )
    return [{"sink": s, "status": st, "attempts": a, "error": err} for s, st, a, err in rows]


def due_notifications(memory: Database | HasDatabase, now: float) -> list[DueNotification]:
    """The pending notifications due at ``now``, oldest first."""
    db = database_of(memory)
    rows = db.query(
        "SELECT id, sink, attempts, payload FROM notifications WHERE status = 'pending' AND next_attempt <= ? "
        "ORDER BY created_at, id",
        (now,),
    )
    return [DueNotification(*row) for row in rows]


def has_due_notification(memory: Database | HasDatabase, now: float) -> bool:
    db = database_of(memory)
    return (
        db.query_one("SELECT 1 FROM notifications WHERE status = 'pending' AND next_attempt <= ? LIMIT 1", (now,))
        is not None
    )


def next_attempt_time(memory: Database | HasDatabase) -> float | None:
    """When the next pending notification is due, None when none is pending."""
    db = database_of(memory)
    row = db.query_one("SELECT min(next_attempt) FROM notifications WHERE status = 'pending'")
    return None if row is None or row[0] is None else float(row[0])


def count_pending_notifications(memory: Database | HasDatabase) -> int:
    db = database_of(memory)
    return int(db.value("SELECT count(*) FROM notifications WHERE status = 'pending'"))


def mark_undeliverable(memory: Database | HasDatabase, notification_id: int, error: str) -> None:
    """A pending notification that can never go out (no such sink, a broken payload) fails at once."""
    db = database_of(memory)
    db.execute(
        "UPDATE notifications SET status = 'failed', error = ? WHERE id = ? AND status = 'pending'",
        (error, notification_id),
    )


def mark_sent(memory: Database | HasDatabase, notification_id: int, at: float, attempts: int) -> None:
    db = database_of(memory)
    db.execute(
        "UPDATE notifications SET status = 'sent', sent_at = ?, attempts = ?, error = NULL WHERE id = ?",
        (at, attempts, notification_id),
    )


def mark_attempt_failed(
    memory: Database | HasDatabase,
    notification_id: int,
    *,
    failed: bool,
    attempts: int,
    error: str,
    next_attempt: float,
) -> None:
    """An attempt failed: the notification waits until ``next_attempt``, or is ``failed`` for good."""
    db = database_of(memory)
    db.execute(
        "UPDATE notifications SET status = ?, attempts = ?, error = ?, next_attempt = ? WHERE id = ?",
        ("failed" if failed else "pending", attempts, error, next_attempt, notification_id),
    )
