"""The notification outbox: when a rule fires, one ``pending`` notification per configured sink is written
in the same transaction as the rule event, so that a crash loses no alert; the dispatcher delivers them.
The rows are memory's (edge_agent.memory.rulebook); here the payload is made and the sinks named once."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from edge_agent.memory import rulebook
from edge_agent.memory.db import Database, HasDatabase

__all__ = ["enqueue"]


def _json_default(value: Any) -> Any:
    if hasattr(value, "item"):  # NumPy scalars
        return value.item()
    if hasattr(value, "tolist"):
        return value.tolist()
    return str(value)


def enqueue(
    memory: Database | HasDatabase, rule_event_id: int, payload: Mapping[str, Any], sinks: Sequence[str], now: float
) -> list[int]:
    """Inserts one pending notification per sink name (duplicates once) and returns their ids. Opens no
    transaction: the engine calls it inside the one that records the rule event."""
    text = json.dumps(dict(payload), ensure_ascii=False, default=_json_default)
    return rulebook.enqueue_notifications(memory, rule_event_id, text, list(dict.fromkeys(sinks)), now)
