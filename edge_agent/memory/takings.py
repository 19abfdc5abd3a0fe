"""Things taken (issue 41; ReflectWorld-MM's object states, GEB's biographies): a thing seen on a fixed camera is
taken when its sighting ends while the camera records on without it and a person is within reach of it as it goes.
Decided once per clip as it is written (:func:`decide`, on the clip's records alone), kept as a typed row
(``takings``: the thing's sighting, when, the person's sighting) and read back by :func:`taking_of` only while it
is still true: a later sighting of the thing (it was put back, or was only hidden behind the person) ends it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from edge_agent import native
from edge_agent.memory.db import Database
from edge_agent.memory.records import ObservationRecord

__all__ = [
    "CARRIED",
    "RECORDED_ON_S",
    "REACH",
    "WINDOW_S",
    "Taking",
    "TakingRow",
    "decide",
    "taking_of",
    "takings_on",
    "write",
]

RECORDED_ON_S = 2.0  #: the camera must record this long after a thing's last frame for it to be gone, not cut off
WINDOW_S = 2.0  #: a person within reach this close in time to the thing's last frame took it
REACH = 0.5  #: within reach: the thing's box meets the person's box grown by this share of its size on every side
#: Carried: a thing at most this share of the person's height (and twice it of their width) as seen beside them.
CARRIED = 0.6


@dataclass(frozen=True)
class Taking:
    """A thing taken: its entity, its last sighting (``observation_id`` on ``camera``), when it went (``t``) and
    who was within reach then (``by_entity_id`` / ``by_observation_id``; None where that sighting is gone)."""

    entity_id: int
    observation_id: int
    camera: str
    t: float
    by_entity_id: int | None
    by_observation_id: int | None


def decide(
    records: Sequence[ObservationRecord],
    clip_end: float,
    *,
    recorded_on: float = RECORDED_ON_S,
    window: float = WINDOW_S,
    reach: float = REACH,
) -> list[tuple[int, int, float]]:
    """(thing's record index, person's record index, when) of the things of one fixed camera's clip that went while
    a person was within reach: a thing small enough to carry (:data:`CARRIED`), its last frame at least
    ``recorded_on`` before the clip ends, and a frame of the person within ``window`` seconds of it whose box, grown
    by ``reach`` of its size, meets the thing's last box. The nearest person in time (then in space) is the one."""
    people = [(k, r) for k, r in enumerate(records) if r.kind == "person" and len(r.frame_times)]
    found = []
    for i, thing in enumerate(records):
        if thing.kind != "object" or not len(thing.frame_times) or not people:
            continue
        t = float(thing.frame_times[-1])
        if clip_end - t < recorded_on:
            continue
        box = np.asarray(thing.boxes[-1], np.float64)
        if _seen_on(records, i, box, t, window):
            continue
        best: tuple[float, float, int] | None = None
        for k, person in people:
            near = np.flatnonzero(np.abs(np.asarray(person.frame_times, np.float64) - t) <= window)
            for j in near.tolist():
                p = np.asarray(person.boxes[j], np.float64)
                grow = reach * np.array([p[2] - p[0], p[3] - p[1]])
                if box[3] - box[1] > CARRIED * (p[3] - p[1]) or box[2] - box[0] > 2 * CARRIED * (p[2] - p[0]):
                    continue  # too big to carry off: a car or a van a person walks past goes by itself
                if (
                    box[0] <= p[2] + grow[0]
                    and box[2] >= p[0] - grow[0]
                    and box[1] <= p[3] + grow[1]
                    and (box[3] >= p[1] - grow[1])
                ):
                    gap = (
                        abs(float(person.frame_times[j]) - t),
                        float(np.hypot(*((box[:2] + box[2:]) - (p[:2] + p[2:])))),
                    )
                    if best is None or gap < best[:2]:
                        best = (*gap, k)
        if best is not None:
            found.append((i, best[2], t))
    return found


def _seen_on(records: Sequence[ObservationRecord], i: int, box: np.ndarray, t: float, window: float) -> bool:
    """Whether another thing's track goes on where record ``i`` ended (from ``t`` to ``window`` after, its box
    overlapping by IoU 0.3): the tracker lost it and found it again under another id or class."""
    for k, other in enumerate(records):
        if k == i or other.kind != "object":
            continue
        times = np.asarray(other.frame_times, np.float64)
        after = np.flatnonzero((times > t) & (times <= t + window))
        if after.size and native.iou_matrix(box[None], np.asarray(other.boxes)[after]).max() >= 0.3:
            return True
    return False


def write(db: Database, rows: Sequence[tuple[int, int, float]]) -> None:
    """Keeps (thing's observation, person's observation, when) rows; inside the clip's transaction."""
    db.executemany("INSERT INTO takings (observation_id, by_observation_id, t) VALUES (?, ?, ?)", rows)


class TakingRow(NamedTuple):
    """A taking kept: the thing's observation, when, and the person's observation (None: nobody within reach)."""

    observation_id: int
    t: float
    by_observation_id: int | None


def takings_on(db: Database, camera: str) -> list[TakingRow]:
    """Every taking kept of ``camera``'s things, in time order: (the thing's observation, when, the person's
    observation or None), whether or not a later sighting ended it (for scoring against a script)."""
    rows = db.query(
        "SELECT k.observation_id, k.t, k.by_observation_id FROM takings k "
        "JOIN observations o ON o.id = k.observation_id WHERE o.camera = ? ORDER BY k.t, k.observation_id",
        (camera,),
    )
    return [TakingRow(int(o), float(t), None if by is None else int(by)) for o, t, by in rows]


def taking_of(db: Database, entity_id: int, until: float | None = None) -> Taking | None:
    """The thing's latest taking by ``until`` (None: now) while still true: None when it was never taken, or was
    seen again after (put back, or only hidden)."""
    row = db.query_one(
        "SELECT k.observation_id, o.camera, k.t, p.entity_id, k.by_observation_id FROM takings k "
        "JOIN observations o ON o.id = k.observation_id LEFT JOIN observations p ON p.id = k.by_observation_id "
        "WHERE o.entity_id = ? AND (? IS NULL OR k.t <= ?) ORDER BY k.t DESC LIMIT 1",
        (int(entity_id), until, until),
    )
    if row is None:
        return None
    observation_id, camera, t, by_entity, by_observation = row
    again = db.value(
        "SELECT 1 FROM observations WHERE entity_id = ? AND t_end > ? AND id != ? AND (? IS NULL OR t_start <= ?) "
        "LIMIT 1",
        (int(entity_id), float(t), int(observation_id), until, until),
    )
    if again is not None:
        return None
    return Taking(
        int(entity_id),
        int(observation_id),
        str(camera),
        float(t),
        None if by_entity is None else int(by_entity),
        None if by_observation is None else int(by_observation),
    )
