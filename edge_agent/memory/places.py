"""Places of a camera without zones (issue 18): observations whose surroundings look alike (the descriptor
of :mod:`edge_agent.perception.places`: the surface under a thing and what is behind it) are one place, kept per
camera as the mean of its descriptors. The user names a place once ("this is the sofa": ``edge-agent places
name``, the API, the dashboard); every observation of it, before and after, then has the name as its zone, the
typed field answers, facts and rules read. Places can be merged (one place seen two ways) and forgotten (their
observations keep no place). Runs inside the caller's transaction."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from edge_agent.config.places import SURROUNDINGS, PlacesConfig
from edge_agent.errors import InvalidInputError
from edge_agent.memory.db import Database, HasDatabase, database_of
from edge_agent.memory.records import NotFoundError

__all__ = [
    "SIMILARITY",
    "Place",
    "PlacedObservation",
    "assign",
    "forget",
    "merge",
    "name",
    "placed_observations",
    "places",
]

#: a model-free descriptor at least this similar (cosine) to a place's mean is of that place (``[places]`` sets it)
SIMILARITY = PlacesConfig().similarity


@dataclass(frozen=True)
class Place:
    id: int
    camera: str
    name: str | None
    observations: int
    first_seen: float | None
    last_seen: float | None
    example: int | None  #: an observation of it (its crop shows what stood there)
    likeness: float | None  #: how alike its observations' surroundings were to it when placed there (mean cosine)


def assign(
    db: Database, camera: str, vector: np.ndarray, *, space: str = SURROUNDINGS, similarity: float = SIMILARITY
) -> tuple[int, str | None, float]:
    """The place of a new observation of ``camera`` with surroundings ``vector`` (unit length, a descriptor in
    ``space``): the most similar place of the camera in that space when at least ``similarity``, its mean moved
    towards the vector; else a new place.
    Returns (place id, its name or None, how alike the vector is to the place: its cosine to the place's mean, 1
    for a new place)."""
    v = np.asarray(vector, np.float32).reshape(-1)
    best: tuple[float, int, np.ndarray, int, str | None] | None = None
    for place_id, blob, n, label in db.query(
        "SELECT id, vector, sightings, name FROM places WHERE camera = ? AND space = ?", (camera, space)
    ):
        mean = np.frombuffer(blob, np.float32)
        if mean.shape != v.shape:
            continue
        score = float(mean @ v) / max(float(np.linalg.norm(mean)), 1e-9)
        if best is None or score > best[0]:
            best = (score, int(place_id), mean, int(n), label)
    now = time.time()
    if best is not None and best[0] >= similarity:
        _, place_id, mean, n, label = best
        moved = (mean * n + v) / (n + 1)
        db.execute(
            "UPDATE places SET vector = ?, sightings = ?, updated_at = ? WHERE id = ?",
            (moved.astype(np.float32).tobytes(), n + 1, now, place_id),
        )
        return place_id, label, round(best[0], 4)
    place_id = db.insert(
        "INSERT INTO places (camera, space, vector, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
        (camera, space, v.tobytes(), now, now),
    )
    return place_id, None, 1.0


def _changes(db: Database) -> int:
    return int(db.value("SELECT changes()") or 0)


def _place(db: Database, place_id: int) -> tuple[str, str | None]:
    row = db.query_one("SELECT camera, name FROM places WHERE id = ?", (int(place_id),))
    if row is None:
        raise NotFoundError(f"no place {place_id} (see 'edge-agent places list')")
    return str(row[0]), row[1]


def name(memory: Database | HasDatabase, place_id: int, label: str) -> int:
    """Names a place; its observations (and those to come) are at ``label``. Returns how many were renamed."""
    db = database_of(memory)
    label = " ".join(str(label).split()).lower()
    if not label or len(label) > 100:
        raise InvalidInputError("a place's name must be 1 to 100 characters")
    _, old = _place(db, place_id)
    db.execute("UPDATE places SET name = ?, updated_at = ? WHERE id = ?", (label, time.time(), int(place_id)))
    db.execute(
        "UPDATE observations SET zone = ? WHERE place_id = ? AND (zone = '' OR zone = ?)",
        (label, int(place_id), old or ""),
    )
    return _changes(db)


def merge(memory: Database | HasDatabase, keep: int, absorb: int) -> int:
    """One place seen two ways: ``absorb``'s observations become ``keep``'s (with its name), its mean joins
    ``keep``'s, and it is deleted. Returns the observations moved."""
    db = database_of(memory)
    if int(keep) == int(absorb):
        raise InvalidInputError("a place cannot be merged into itself")
    camera, label = _place(db, keep)
    other_camera, other = _place(db, absorb)
    if camera != other_camera:
        raise InvalidInputError(f"places {keep} and {absorb} are of different cameras ({camera}, {other_camera})")
    rows = {
        int(i): (np.frombuffer(v, np.float32), int(k), str(s))
        for i, v, k, s in db.query(
            "SELECT id, vector, sightings, space FROM places WHERE id IN (?, ?)", (int(keep), int(absorb))
        )
    }
    (a, n, space), (b, m, other_space) = rows[int(keep)], rows[int(absorb)]
    if space != other_space:
        raise InvalidInputError(
            f"places {keep} and {absorb} are described in different spaces ({space}, {other_space}): "
            "their descriptors cannot be one mean"
        )
    mean = (a * n + b * m) / (n + m)
    db.execute(
        "UPDATE places SET vector = ?, sightings = ?, updated_at = ? WHERE id = ?",
        (mean.astype(np.float32).tobytes(), n + m, time.time(), int(keep)),
    )
    db.execute(
        "UPDATE observations SET place_id = ?, zone = CASE WHEN zone = '' OR zone = ? THEN ? ELSE zone END "
        "WHERE place_id = ?",
        (int(keep), other or "", label or "", int(absorb)),
    )
    moved = _changes(db)
    db.execute("DELETE FROM places WHERE id = ?", (int(absorb),))
    return moved


def forget(memory: Database | HasDatabase, place_id: int) -> int:
    """Deletes a place: its observations keep no place (nor its name as their zone). Returns how many."""
    db = database_of(memory)
    _, label = _place(db, place_id)
    db.execute(
        "UPDATE observations SET place_id = NULL, place_score = NULL, zone = CASE WHEN zone = ? THEN '' ELSE zone END "
        "WHERE place_id = ?",
        (label or "", int(place_id)),
    )
    changed = _changes(db)
    db.execute("DELETE FROM places WHERE id = ?", (int(place_id),))
    return changed


def places(memory: Database | HasDatabase, camera: str | None = None) -> list[Place]:
    """The places (of one camera, or all), most observed first."""
    db = database_of(memory)
    rows = db.query(
        "SELECT p.id, p.camera, p.name, count(o.id), min(o.t_start), max(o.t_end), max(o.id), avg(o.place_score) "
        "FROM places p "
        "LEFT JOIN observations o ON o.place_id = p.id WHERE (? IS NULL OR p.camera = ?) GROUP BY p.id "
        "ORDER BY count(o.id) DESC, p.id",
        (camera, camera),
    )
    return [
        Place(int(i), str(c), n, int(k), a, b, None if e is None else int(e), None if s is None else round(float(s), 3))
        for i, c, n, k, a, b, e, s in rows
    ]


class PlacedObservation(NamedTuple):
    """An observation and the learned place it was at."""

    observation_id: int
    place_id: int
    t_start: float
    t_end: float


def placed_observations(memory: Database | HasDatabase) -> list[PlacedObservation]:
    """Every observation with a place, by id."""
    db = database_of(memory)
    rows = db.query("SELECT id, place_id, t_start, t_end FROM observations WHERE place_id IS NOT NULL ORDER BY id")
    return [PlacedObservation(int(i), int(p), float(a), float(b)) for i, p, a, b in rows]
