"""The user's corrections of identity: merge two entities, split one at an observation, name it,
state that two are not the same, or forget one entirely. Each runs in one transaction and is written
to the audit trail (the corrections table), with who asked for it when the caller says (``caller``: "cli (uid
1000)", "api 127.0.0.1 (token)"). A split stores a "not the same" constraint, which a later
merge must explicitly override, so that what the user separated is never joined back by itself."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

from edge_agent.errors import EdgeAgentError
from edge_agent.memory import episodes
from edge_agent.memory.records import Entity
from edge_agent.memory.store import Store

__all__ = ["CorrectionError", "ForgetReport", "audit", "forget", "merge", "not_same", "rename", "split", "unmerge"]

MAX_NAME = 100


class CorrectionError(EdgeAgentError, ValueError):
    """A correction that cannot be applied as asked."""


@dataclass(frozen=True)
class ForgetReport:
    entity_id: int
    observations: int
    files: int
    bytes_freed: int


def audit(store: Store, action: str, caller: str | None, **details: object) -> None:
    """Writes a change the user asked for to the audit trail (inside the caller's transaction)."""
    if caller is not None:
        details["caller"] = caller
    store.db.execute(
        "INSERT INTO corrections (action, details, at) VALUES (?, ?, ?)", (action, json.dumps(details), time.time())
    )


def _pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def _constrained(store: Store, a: int, b: int) -> bool:
    return (
        store.db.query_one(
            "SELECT 1 FROM entity_constraints WHERE entity_a = ? AND entity_b = ? AND relation = 'not_same'",
            _pair(a, b),
        )
        is not None
    )


def _refresh_span(store: Store, entity_id: int) -> None:
    store.db.execute(
        "UPDATE entities SET first_seen = (SELECT min(t_start) FROM observations WHERE entity_id = ?1), "
        "last_seen = (SELECT max(t_end) FROM observations WHERE entity_id = ?1) WHERE id = ?1",
        (entity_id,),
    )


def clean_name(name: str) -> str:
    """A name as kept: its words joined by single spaces, 1 to MAX_NAME characters (else CorrectionError)."""
    name = " ".join(str(name).split())
    if not name or len(name) > MAX_NAME:
        raise CorrectionError(f"a name must be 1 to {MAX_NAME} characters")
    return name


def rename(store: Store, entity_id: int, name: str | None, *, caller: str | None = None) -> Entity:
    """Gives the entity a name ("this is Alice"), or removes it with ``None``."""
    if name is not None:
        name = clean_name(name)
    with store.write():
        old = store.entity(entity_id).name
        store.db.execute("UPDATE entities SET name = ? WHERE id = ?", (name, entity_id))
        audit(store, "rename", caller, entity=entity_id, old=old, new=name)
    return store.entity(entity_id)


def not_same(store: Store, a: int, b: int, *, caller: str | None = None) -> None:
    """Records that entities ``a`` and ``b`` are different physical instances."""
    if a == b:
        raise CorrectionError("an entity cannot be different from itself")
    with store.write():
        store.entity(a), store.entity(b)
        store.db.execute(
            "INSERT OR IGNORE INTO entity_constraints (entity_a, entity_b, relation, created_at) VALUES (?, ?, "
            "'not_same', ?)",
            (*_pair(a, b), time.time()),
        )
        store.db.execute("DELETE FROM entity_relations WHERE entity_a = ? AND entity_b = ?", _pair(a, b))
        audit(store, "not_same", caller, entities=list(_pair(a, b)))


def merge(store: Store, keep: int, absorb: int, *, force: bool = False, caller: str | None = None) -> Entity:
    """Moves every observation of ``absorb`` into ``keep`` and deletes ``absorb``. Refused when the two
    are of different kinds, or when the user said they are not the same (unless ``force``)."""
    if keep == absorb:
        raise CorrectionError("cannot merge an entity with itself")
    with store.write():
        a, b = store.entity(keep), store.entity(absorb)
        if a.kind != b.kind:
            raise CorrectionError(f"cannot merge a {a.kind} (#{keep}) with a {b.kind} (#{absorb})")
        if _constrained(store, keep, absorb):
            if not force:
                raise CorrectionError(
                    f"#{keep} and #{absorb} were marked as not the same; merge with force to override"
                )
            store.db.execute("DELETE FROM entity_constraints WHERE entity_a = ? AND entity_b = ?", _pair(keep, absorb))
        moved = store.associator.merge_entities(keep, absorb)
        audit(
            store,
            "merge",
            caller,
            keep=keep,
            absorb=absorb,
            observations_moved=len(moved),
            observations=moved,
            absorbed_name=b.name,
            forced=force,
        )
    return store.entity(keep)


def unmerge(store: Store, correction_id: int, *, caller: str | None = None) -> tuple[Entity, Entity]:
    """Undoes a merge (``merge``, or association's ``join`` of two possibly-same entities): the observations it
    moved that still belong to the kept entity go to a new entity (with the absorbed one's name), and the two
    are marked not the same. Returns (the kept entity, the new one)."""
    row = store.db.query_one("SELECT action, details FROM corrections WHERE id = ?", (int(correction_id),))
    if row is None or row[0] not in ("merge", "join"):
        raise CorrectionError(f"correction {correction_id} is not a merge")
    details = json.loads(row[1])
    keep = int(details["keep"])
    with store.write():
        entity = store.entity(keep)
        ids = [int(i) for i in details.get("observations", [])]
        marks = ",".join("?" * len(ids)) or "NULL"
        moving = [
            r[0]
            for r in store.db.query(
                f"SELECT id FROM observations WHERE entity_id = ? AND id IN ({marks})", (keep, *ids)
            )
        ]
        if not moving:
            raise CorrectionError(f"correction {correction_id}: none of the observations it moved is still in #{keep}")
        if len(moving) == entity.observations:
            raise CorrectionError(f"correction {correction_id}: undoing it would leave #{keep} empty")
        marks = ",".join("?" * len(moving))
        new_id = store.db.insert(
            "INSERT INTO entities (kind, category, name, first_seen, last_seen, created_at) "
            "SELECT kind, category, ?, first_seen, last_seen, ? FROM entities WHERE id = ?",
            (details.get("absorbed_name"), time.time(), keep),
        )
        store.db.execute(f"UPDATE observations SET entity_id = ? WHERE id IN ({marks})", (new_id, *moving))
        store.db.execute(f"UPDATE traces SET entity_id = ? WHERE first_observation_id IN ({marks})", (new_id, *moving))
        for entity_id in (keep, new_id):
            store.associator.rebuild_references(entity_id)
            _refresh_span(store, entity_id)
        store.db.execute(
            "INSERT OR IGNORE INTO entity_constraints (entity_a, entity_b, relation, created_at) VALUES (?, ?, "
            "'not_same', ?)",
            (*_pair(keep, new_id), time.time()),
        )
        audit(
            store, "unmerge", caller, correction=int(correction_id), entity=keep, new_entity=new_id, moved=len(moving)
        )
    return store.entity(keep), store.entity(new_id)


def split(store: Store, entity_id: int, at_observation: int, *, caller: str | None = None) -> tuple[Entity, Entity]:
    """Moves the entity's observations from ``at_observation`` on (in time order) to a new entity, and
    records that the two are not the same. Returns (the original, the new one)."""
    with store.write():
        entity = store.entity(entity_id)
        observations = store.observations(entity_id)
        position = next((i for i, o in enumerate(observations) if o.id == at_observation), None)
        if position is None:
            raise CorrectionError(f"observation {at_observation} does not belong to entity #{entity_id}")
        if position == 0:
            raise CorrectionError("splitting at the first observation would leave the entity empty")
        moving = [o.id for o in observations[position:]]
        new_id = store.db.insert(
            "INSERT INTO entities (kind, category, first_seen, last_seen, created_at) VALUES (?, ?, ?, ?, ?)",
            (entity.kind, entity.category, observations[position].t_start, observations[-1].t_end, time.time()),
        )
        marks = ",".join("?" * len(moving))
        store.db.execute(f"UPDATE observations SET entity_id = ? WHERE id IN ({marks})", (new_id, *moving))
        store.db.execute(f"UPDATE traces SET entity_id = ? WHERE first_observation_id IN ({marks})", (new_id, *moving))
        store.associator.rebuild_references(entity_id)
        store.associator.rebuild_references(new_id)
        _refresh_span(store, entity_id)
        _refresh_span(store, new_id)
        store.db.execute(
            "INSERT OR IGNORE INTO entity_constraints (entity_a, entity_b, relation, created_at) VALUES (?, ?, "
            "'not_same', ?)",
            (*_pair(entity_id, new_id), time.time()),
        )
        audit(
            store,
            "split",
            caller,
            entity=entity_id,
            new_entity=new_id,
            at_observation=at_observation,
            moved=len(moving),
        )
    return store.entity(entity_id), store.entity(new_id)


def forget(store: Store, entity_id: int, *, caller: str | None = None) -> ForgetReport:
    """Erases the entity: its observations, boxes, vectors, crops, the keyframes and captions of the
    clips it was in (a caption or a keyframe may show or name it), its facts and rule events.
    Afterwards no search finds a trace of it. The audit keeps only the id, counts and the caller."""
    with store.write():
        store.entity(entity_id)
        observations = store.db.query(
            "SELECT id, space_id, crop_path, clip_id FROM observations WHERE entity_id = ?", (entity_id,)
        )
        files = [crop for _, _, crop, _ in observations if crop]
        clip_ids = sorted({clip for *_, clip in observations})
        for clip_id in clip_ids:
            files.extend(store.clip(clip_id).keyframes)
        store.associator.clear_references(entity_id)
        store.delete_observation_vectors([(o[0], o[1]) for o in observations])
        store.db.execute("DELETE FROM entities WHERE id = ?", (entity_id,))  # cascades to its rows
        if clip_ids:
            marks = ",".join("?" * len(clip_ids))
            store.db.execute(f"UPDATE clips SET keyframes = '[]', media_bytes = 0 WHERE id IN ({marks})", clip_ids)
            store.delete_keyframe_vectors(clip_ids)
            captions = [
                r[0]
                for r in store.db.query(
                    f"SELECT id FROM episodes WHERE scale = 'clip' AND clip_id IN ({marks})", clip_ids
                )
            ]
            store.delete_text_vectors("episode", captions)
            store.db.executemany("DELETE FROM episodes WHERE id = ?", [(i,) for i in captions])
            # Coarser summaries named it too: rewritten from what is left (removed where nothing is).
            episodes.refresh(
                store.db, store.db.query(f"SELECT camera, t_start, t_end FROM clips WHERE id IN ({marks})", clip_ids)
            )
        audit(store, "forget", caller, entity=entity_id, observations=len(observations), files=len(files))
    freed = store.delete_media(files)  # only once the records are gone for good
    return ForgetReport(entity_id, len(observations), len(files), freed)
