"""Things the household names from pictures (issue 41): enrolling a thing (keys, a bag) from photos of it, listing
named things and forgetting a name. A named thing is an object entity with a name and enrolled appearance vectors
(``thing_refs``); association (memory.associate) makes a later object observation that passes GEB's two thresholds
against them that thing, seen before or not. Every change is audited with its caller."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from edge_agent.memory.corrections import CorrectionError, audit, clean_name
from edge_agent.memory.records import Entity
from edge_agent.memory.store import Store

__all__ = ["Thing", "ThingEnrolled", "ThingForgotten", "enroll", "forget", "named_things"]


@dataclass(frozen=True)
class Thing:
    entity: Entity
    references: int  #: enrolled vectors
    seen: int  #: observations of it
    last_camera: str | None  #: where it was last seen (None: not seen yet)


@dataclass(frozen=True)
class ThingEnrolled:
    entity: Entity
    added: int  #: vectors added
    how: str  #: "new" thing, or an "existing" named one


@dataclass(frozen=True)
class ThingForgotten:
    name: str
    entities: tuple[int, ...]
    references: int  #: enrolled vectors removed
    removed: int  #: entities removed with them (enrolled, never seen)


def _named(store: Store, name: str) -> list[int]:
    return [
        int(r[0])
        for r in store.db.query(
            "SELECT id FROM entities WHERE kind = 'object' AND name = ? COLLATE NOCASE ORDER BY id", (name,)
        )
    ]


def enroll(
    store: Store, name: str, space: str, vectors: np.ndarray, category: str = "object", *, caller: str | None = None
) -> ThingEnrolled:
    """Keeps ``vectors`` (N, D unit vectors in ``space``, the object embedder's) as the named thing's: the object
    entity already of that name, else a new one of ``category``. A name a person or animal has is refused."""
    name = clean_name(name)
    vectors = np.asarray(vectors, np.float32).reshape(len(vectors), -1)
    if not len(vectors) or not np.isfinite(vectors).all():
        raise CorrectionError("no usable picture of the thing")
    with store.write():
        other = store.db.query_one(
            "SELECT id, kind FROM entities WHERE kind != 'object' AND name = ? COLLATE NOCASE", (name,)
        )
        if other is not None:
            raise CorrectionError(f"{name!r} already names a {other[1]} (entity #{other[0]}): choose another name")
        existing = _named(store, name)
        now = time.time()
        if existing:
            entity_id, how = existing[0], "existing"
        else:
            entity_id, how = (
                store.db.insert(
                    "INSERT INTO entities (kind, category, name, first_seen, last_seen, created_at) "
                    "VALUES ('object', ?, ?, ?, ?, ?)",
                    (category, name, now, now, now),
                ),
                "new",
            )
        store.db.executemany(
            "INSERT INTO thing_refs (entity_id, space, embedding, created_at) VALUES (?, ?, ?, ?)",
            [(entity_id, space, np.ascontiguousarray(v, np.float32).tobytes(), now) for v in vectors],
        )
        audit(store, "things enroll", caller, entity=entity_id, references=len(vectors), how=how)
    return ThingEnrolled(store.entity(entity_id), len(vectors), how)


def named_things(store: Store) -> list[Thing]:
    """Every named object, with its enrolled vectors, how often it was seen and where last."""
    out = []
    for entity_id, references in store.db.query(
        "SELECT e.id, (SELECT count(*) FROM thing_refs t WHERE t.entity_id = e.id) FROM entities e "
        "WHERE e.kind = 'object' AND e.name IS NOT NULL ORDER BY e.name, e.id"
    ):
        seen = int(store.db.value("SELECT count(*) FROM observations WHERE entity_id = ?", (entity_id,)) or 0)
        last = store.db.query_one(
            "SELECT camera FROM observations WHERE entity_id = ? ORDER BY t_end DESC LIMIT 1", (entity_id,)
        )
        out.append(Thing(store.entity(int(entity_id)), int(references), seen, None if last is None else str(last[0])))
    return out


def forget(store: Store, name: str, *, caller: str | None = None) -> ThingForgotten:
    """Forgets a thing's name and its enrolled vectors; what was seen of it stays, as an unnamed thing's (an
    enrolled thing never seen goes altogether). The audit keeps ids and counts, not the name."""
    name = clean_name(name)
    with store.write():
        entities = _named(store, name)
        if not entities:
            raise CorrectionError(f"no thing named {name!r} (`edge-agent things list` shows what is named)")
        marks = ",".join("?" * len(entities))
        references = int(store.db.value(f"SELECT count(*) FROM thing_refs WHERE entity_id IN ({marks})", entities))
        store.db.execute(f"DELETE FROM thing_refs WHERE entity_id IN ({marks})", entities)
        store.db.execute(f"UPDATE entities SET name = NULL WHERE id IN ({marks})", entities)
        unseen = [
            e for e in entities if store.db.query_one("SELECT 1 FROM observations WHERE entity_id = ?", (e,)) is None
        ]
        for entity_id in unseen:
            store.db.execute("DELETE FROM entities WHERE id = ?", (entity_id,))
        audit(store, "things forget", caller, entities=entities, references=references, removed=len(unseen))
    return ThingForgotten(name, tuple(entities), references, len(unseen))
