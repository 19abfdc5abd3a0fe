"""People the household names (issue 20): enrolling a person from pictures of their face, listing them, and
forgetting a person's name and face. A named person is an entity with a name; their faces (memory.faces) make a
later observation theirs on any day, in any clothes. Naming an entity (``entities rename``, the dashboard) makes a
named person of it too, with the faces its observations showed. Every change is audited with its caller."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

import numpy as np

from edge_agent.memory.corrections import CorrectionError, audit, clean_name
from edge_agent.memory.faces import keep_faces, verdict
from edge_agent.memory.records import Entity
from edge_agent.memory.store import Store

__all__ = ["Enrolled", "Forgotten", "Person", "enroll", "forget", "named_people"]


@dataclass(frozen=True)
class Person:
    entity: Entity
    faces: int  #: face references kept
    enrolled: int  #: of them, given from pictures


@dataclass(frozen=True)
class Enrolled:
    entity: Entity
    added: int  #: faces added (a face nearly the same as one kept adds nothing)
    how: str  #: "new" person, an "existing" named one, or an unnamed one "recognised" by face and named


@dataclass(frozen=True)
class Forgotten:
    name: str
    entities: tuple[int, ...]
    faces: int  #: face vectors removed (kept references and observations' faces)
    pictures: int  #: crops removed (they show the face)
    freed: int  #: bytes


def _named(store: Store, name: str) -> list[int]:
    return [
        int(r[0])
        for r in store.db.query(
            "SELECT id FROM entities WHERE kind = 'person' AND name = ? COLLATE NOCASE ORDER BY id", (name,)
        )
    ]


def enroll(store: Store, name: str, space: str, faces: np.ndarray, *, caller: str | None = None) -> Enrolled:
    """Keeps ``faces`` (F, D unit vectors in ``space``, one per picture) as the named person's. The person is the one
    already of that name; else the one unnamed person memory already knows whose faces these match (named now);
    else a new person."""
    name = clean_name(name)
    faces = np.asarray(faces, np.float32).reshape(len(faces), -1)
    config = store.associator.faces
    if config is None:
        raise CorrectionError("face processing is off ([faces] enabled = false): nothing can be enrolled")
    t = config.thresholds(space)
    similarity = faces @ faces.T
    if len(faces) > 1 and float(similarity.min()) < t.different:
        a, b = np.unravel_index(int(np.argmin(similarity)), similarity.shape)
        raise CorrectionError(f"pictures {a + 1} and {b + 1} show different people: enroll one person at a time")
    with store.write():
        existing = _named(store, name)
        for face in faces:
            other = verdict(store.db, config, space, face[None, :]).match
            if other is not None and other not in existing:
                theirs = store.entity(other).name
                if theirs is not None:
                    raise CorrectionError(f"that face is {theirs!r}'s (entity #{other}), not {name!r}'s")
        how = "existing"
        if existing:
            entity_id = existing[0]
        else:
            matches = {verdict(store.db, config, space, face[None, :]).match for face in faces}
            unnamed = [
                e
                for e in matches
                if e is not None
                and store.db.query_one("SELECT 1 FROM entities WHERE id = ? AND name IS NULL", (e,)) is not None
            ]
            if len(matches) == 1 and len(unnamed) == 1:
                entity_id, how = unnamed[0], "recognised"
                store.db.execute("UPDATE entities SET name = ? WHERE id = ?", (name, entity_id))
            else:
                now = time.time()
                entity_id = store.db.insert(
                    "INSERT INTO entities (kind, category, name, first_seen, last_seen, created_at) "
                    "VALUES ('person', 'person', ?, ?, ?, ?)",
                    (name, now, now, now),
                )
                how = "new"
        added = keep_faces(store.db, config, entity_id, space, faces, enrolled=True)
        audit(store, "enroll", caller, entity=entity_id, faces=added, how=how)
    return Enrolled(store.entity(entity_id), added, how)


def named_people(store: Store) -> list[Person]:
    """Every named person, with how many faces they are known by."""
    out = []
    for entity_id, kept, enrolled in store.db.query(
        "SELECT e.id, count(f.id), coalesce(sum(f.enrolled), 0) FROM entities e LEFT JOIN face_refs f "
        "ON f.entity_id = e.id WHERE e.kind = 'person' AND e.name IS NOT NULL GROUP BY e.id ORDER BY e.name, e.id"
    ):
        out.append(Person(store.entity(int(entity_id)), int(kept), int(enrolled)))
    return out


def forget(store: Store, name: str, *, caller: str | None = None) -> Forgotten:
    """Forgets who a person is: their name, every face vector memory holds of them and their crops (pictures that
    show the face); the name is also taken out of what was written about their observations. What was seen stays,
    as an unnamed person's (``entities forget`` erases every trace). The audit keeps ids and counts, not the name."""
    name = clean_name(name)
    with store.write():
        entities = _named(store, name)
        if not entities:
            raise CorrectionError(f"no person named {name!r} (`edge-agent people list` shows who is named)")
        marks = ",".join("?" * len(entities))
        observations = store.db.query(
            f"SELECT id, crop_path, description FROM observations WHERE entity_id IN ({marks})", entities
        )
        ids = [int(o[0]) for o in observations]
        faces = int(store.db.value(f"SELECT count(*) FROM face_refs WHERE entity_id IN ({marks})", entities) or 0)
        store.db.execute(f"DELETE FROM face_refs WHERE entity_id IN ({marks})", entities)
        files = [str(o[1]) for o in observations if o[1]]
        for chunk in range(0, len(ids), 500):
            part = ids[chunk : chunk + 500]
            inner = ",".join("?" * len(part))
            faces += int(
                store.db.value(f"SELECT count(*) FROM observation_faces WHERE observation_id IN ({inner})", part) or 0
            )
            store.db.execute(f"DELETE FROM observation_faces WHERE observation_id IN ({inner})", part)
            store.db.execute(f"UPDATE observations SET crop_path = NULL, media_bytes = 0 WHERE id IN ({inner})", part)
        # a describer told the name may have written it: out of their descriptions, the captions and facts
        said = [(int(o[0]), str(o[2])) for o in observations if name.lower() in str(o[2]).lower()]
        _rewrite(store, "observations", "description", said, name)
        store.delete_text_vectors("observation", [i for i, _ in said])  # embedded again, without it
        captions = [
            (int(i), str(t))
            for i, t in store.db.query("SELECT id, text FROM episodes WHERE instr(lower(text), ?)", (name.lower(),))
        ]
        _rewrite(store, "episodes", "text", captions, name)
        store.delete_text_vectors("episode", [i for i, _ in captions])
        facts = [
            (int(i), str(t))
            for i, t in store.db.query(f"SELECT id, text FROM facts WHERE entity_id IN ({marks})", entities)
            if name.lower() in str(t).lower()
        ]
        _rewrite(store, "facts", "text", facts, name)
        store.db.execute(f"UPDATE entities SET name = NULL WHERE id IN ({marks})", entities)
        audit(store, "people forget", caller, entities=entities, faces=faces, pictures=len(files))
    freed = store.delete_media(files)
    return Forgotten(name, tuple(entities), faces, len(files), freed)


def _rewrite(store: Store, table: str, column: str, rows: list[tuple[int, str]], name: str) -> None:
    """Every mention of ``name`` (any case) in those rows' text becomes "a person"."""
    pattern = re.compile(re.escape(name), re.IGNORECASE)
    store.db.executemany(
        f"UPDATE {table} SET {column} = ? WHERE id = ?", [(pattern.sub("a person", text), i) for i, text in rows]
    )
