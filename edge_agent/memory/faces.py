"""Faces in memory (issue 20): an observation's best faces, and each person's faces to be recognised by.

A person's faces are kept bounded (``[faces] references``) and diverse: a face nearly the same as one kept adds
nothing; when there are too many, the one most like the others goes (enrolled faces, given by the user from a
picture, go last). What faces say about an observation (:func:`verdict`), GEB's two thresholds in face space: the
person one of whose faces it is like at ``same`` or more, none of whose faces it is unlike (below ``different``),
with no other person's within ``margin`` (a match, whatever the clothes); the people whose every face it is unlike
(someone else); nothing otherwise. Association (memory.associate) decides
with it; a face never leaves the device (no wire format, API or export carries face vectors)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from edge_agent.config.faces import FacesConfig
from edge_agent.memory.db import Database

__all__ = ["FaceVerdict", "keep_faces", "rebuild_faces", "verdict", "write_observation_faces"]

#: a face at least this like one a person keeps adds nothing new to them (the same picture, nearly)
NEAR_DUPLICATE = 0.985


@dataclass(frozen=True)
class FaceVerdict:
    """What an observation's faces say: ``similarity`` per person with faces in the same space (the best over the
    pairs), the ``match`` (a person it is, or None) and those it is ``not`` (faces too unlike theirs)."""

    similarity: dict[int, float] = field(default_factory=dict)
    match: int | None = None
    not_: frozenset[int] = frozenset()

    def of(self, entity_id: int) -> str | None:
        """ "same", "different" or None for one candidate person."""
        if entity_id == self.match:
            return "same"
        return "different" if entity_id in self.not_ else None


def _vectors(rows: Sequence[Sequence[Any]], column: int) -> np.ndarray:
    return np.stack([np.frombuffer(bytes(r[column]), dtype=np.float32) for r in rows])


def verdict(db: Database, config: FacesConfig, space: str, faces: np.ndarray) -> FaceVerdict:
    """What ``faces`` (F, D unit vectors in ``space``) say about who it is, against every person's kept faces."""
    rows = db.query("SELECT entity_id, embedding FROM face_refs WHERE space = ?", (space,))
    rows = [r for r in rows if len(r[1]) == faces.shape[1] * 4]
    if not rows:
        return FaceVerdict()
    best = (faces @ _vectors(rows, 1).T).max(axis=0)  # per kept face, the observation's face most like it
    similarity: dict[int, float] = {}
    least: dict[int, float] = {}
    for (entity_id, _), s in zip(rows, best.tolist()):
        similarity[int(entity_id)] = max(similarity.get(int(entity_id), -1.0), float(s))
        least[int(entity_id)] = min(least.get(int(entity_id), 1.0), float(s))
    t = config.thresholds(space)
    ranked = sorted(similarity.items(), key=lambda kv: (-kv[1], kv[0]))
    first, s1 = ranked[0]
    match = None
    if s1 >= t.same and least[first] >= t.different and (len(ranked) == 1 or ranked[1][1] < s1 - t.margin):
        match = first
    return FaceVerdict(similarity, match, frozenset(e for e, s in similarity.items() if s < t.different))


def write_observation_faces(db: Database, observation_id: int, space: str, faces: np.ndarray) -> None:
    db.executemany(
        "INSERT INTO observation_faces (observation_id, rank, space, embedding) VALUES (?, ?, ?, ?)",
        [(observation_id, k, space, np.ascontiguousarray(f, np.float32).tobytes()) for k, f in enumerate(faces)],
    )


def keep_faces(
    db: Database,
    config: FacesConfig,
    entity_id: int,
    space: str,
    faces: np.ndarray,
    *,
    observation_id: int | None = None,
    enrolled: bool = False,
) -> int:
    """Adds to the person's faces those that are new to them (bounded and diverse); returns how many were added."""
    added = 0
    for face in np.asarray(faces, np.float32):
        kept = db.query("SELECT embedding FROM face_refs WHERE entity_id = ? AND space = ?", (entity_id, space))
        if kept and float((_vectors(kept, 0) @ face).max()) >= NEAR_DUPLICATE:
            continue
        db.execute(
            "INSERT INTO face_refs (entity_id, observation_id, space, embedding, enrolled, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (entity_id, observation_id, space, np.ascontiguousarray(face).tobytes(), int(enrolled), time.time()),
        )
        added += 1
    _bound(db, config, entity_id, space)
    return added


def _bound(db: Database, config: FacesConfig, entity_id: int, space: str) -> None:
    """Drops the faces most like the others (observed before enrolled) until the person keeps ``references``."""
    while True:
        rows = db.query(
            "SELECT id, embedding, enrolled FROM face_refs WHERE entity_id = ? AND space = ? ORDER BY id",
            (entity_id, space),
        )
        if len(rows) <= config.references:
            return
        vectors = _vectors(rows, 1)
        similarity = vectors @ vectors.T
        np.fill_diagonal(similarity, -np.inf)
        redundancy = similarity.max(axis=1)
        observed = [k for k, r in enumerate(rows) if not r[2]]
        pool = observed or list(range(len(rows)))
        drop = max(pool, key=lambda k: (redundancy[k], -k))
        db.execute("DELETE FROM face_refs WHERE id = ?", (rows[drop][0],))


def rebuild_faces(db: Database, config: FacesConfig, entity_id: int) -> None:
    """After a merge or a split: the person's observed faces become those of its own observations (most recent
    first); enrolled ones stay."""
    db.execute("DELETE FROM face_refs WHERE entity_id = ? AND enrolled = 0", (entity_id,))
    rows = db.query(
        "SELECT f.observation_id, f.space, f.embedding FROM observation_faces f JOIN observations o "
        "ON o.id = f.observation_id WHERE o.entity_id = ? ORDER BY o.t_start DESC, o.id DESC, f.rank",
        (entity_id,),
    )
    for observation_id, space, blob in rows:
        keep_faces(
            db, config, entity_id, str(space), np.frombuffer(blob, np.float32)[None, :], observation_id=observation_id
        )
