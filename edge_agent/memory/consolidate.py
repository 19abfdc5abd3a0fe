"""ReflectWorld-MM's entity / trace / schema levels and its semantic memory, as clips arrive.

**Traces.** An entity seen again and again in the same state (same camera, the same described place, motion,
colours, pattern and company, boxes that overlap, no gap longer than ``max_gap_s``) is one trace. The
observations of its first ``keep_first_s`` and its latest ones (the entity's reference set: identity keeps its
evidence) stay; those between are folded into the trace's span and count. A clip left with nothing of its own
inside a run of clips with the same caption goes too (its keyframe with it; its ingest-log row joins the
recorded span before it). A month of a fixed camera watching a quiet room grows memory with the things and the
changes, not with the frames.

**Facts.** Each new trace is evidence about its entity: where it usually is (``place``), where it is
now (``state``), who moves it (``owner``: the one person seen while an object changed place), and,
once a place recurs at the same part of the day on ``schema_days`` distinct days, a habit
(``habit:<part of day>``, the schema level: "the dog is on the sofa most evenings"). Confirming
evidence raises a fact's importance w <- w + (1 - w) * gamma; evidence for another value of the same
kind lowers it, w <- w * (1 - contradiction) (the current state is replaced outright), and a fact
whose w falls below ``min_importance`` is deleted. Habits are only reinforced: doing something else
one evening does not contradict "most evenings". Parts of the day are UTC hours.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from edge_agent.clock import format_utc
from edge_agent.config.consolidation import ConsolidationConfig
from edge_agent.memory.db import Database, HasDatabase, database_of
from edge_agent.memory.description import Description, label, place_phrase
from edge_agent.memory.housekeeping import (
    delete_keyframe_vectors,
    delete_observation_vectors,
    delete_text_vectors,
    media_of_clips,
)

__all__ = ["ConsolidationConfig", "Fact", "Sighting", "Trace", "consolidate_clip", "facts", "part_of_day", "traces"]


@dataclass(frozen=True)
class Sighting:
    """One new observation, as consolidation needs it."""

    observation_id: int
    entity_id: int
    kind: str
    t_start: float
    t_end: float
    description: Description
    box: np.ndarray  # (4,) median box
    category: str = ""


@dataclass(frozen=True)
class Trace:
    id: int
    entity_id: int
    camera: str
    place: str
    description: str
    t_start: float
    t_end: float
    sightings: int
    first_observation_id: int | None
    last_observation_id: int | None


@dataclass(frozen=True)
class Fact:
    id: int
    entity_id: int
    kind: str
    value: str
    text: str
    importance: float
    first_confirmed: float
    last_confirmed: float
    confirmations: int

    def line(self) -> str:
        """The fact as a reader sees it: 'red cup: usually by the counter (importance 0.58, 5 confirmations,
        last ...)'."""
        return (
            f"{self.text} (importance {self.importance:.2f}, {self.confirmations} confirmations, "
            f"last {format_utc(self.last_confirmed, zone=True)})"
        )


_TRACE_COLUMNS = (
    "id, entity_id, camera, place, description, t_start, t_end, sightings, first_observation_id, last_observation_id"
)
_FACT_COLUMNS = "id, entity_id, kind, value, text, importance, first_confirmed, last_confirmed, confirmations"
_PARTS = ((5, "morning"), (12, "afternoon"), (17, "evening"), (22, "night"))


def part_of_day(t: float) -> str:
    hour = dt.datetime.fromtimestamp(t, dt.timezone.utc).hour
    return next((name for start, name in reversed(_PARTS) if hour >= start), "night")


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = w * h
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return float(inter / union) if union > 0 else 0.0


def traces(
    memory: Database | HasDatabase, entity_id: int | None = None, *, observation_ids: Sequence[int] = ()
) -> list[Trace]:
    """An entity's traces in time order, or the traces that begin or end at some observations (of the
    memory's database, or of a Store)."""
    db = database_of(memory)
    if observation_ids:
        marks = ",".join("?" * len(observation_ids))
        rows = db.query(
            f"SELECT {_TRACE_COLUMNS} FROM traces WHERE first_observation_id IN ({marks}) "
            f"OR last_observation_id IN ({marks}) ORDER BY t_start",
            (*observation_ids, *observation_ids),
        )
    else:
        rows = db.query(
            f"SELECT {_TRACE_COLUMNS} FROM traces WHERE ? IS NULL OR entity_id = ? ORDER BY t_start",
            (entity_id, entity_id),
        )
    return [Trace(*r) for r in rows]


def facts(
    memory: Database | HasDatabase,
    entity_ids: Sequence[int] | None = None,
    *,
    min_importance: float = 0.0,
    before: float | None = None,
) -> list[Fact]:
    """Facts (of some entities), most important first; with ``before``, only those whose every
    confirmation came earlier (what memory knew then). ``memory``: the database, or a Store."""
    db = database_of(memory)
    where, params = "importance >= ? AND (? IS NULL OR last_confirmed < ?)", [min_importance, before, before]
    if entity_ids is not None:
        if not entity_ids:
            return []
        where += f" AND entity_id IN ({','.join('?' * len(entity_ids))})"
        params += [int(e) for e in entity_ids]
    rows = db.query(
        f"SELECT {_FACT_COLUMNS} FROM facts WHERE status = 'active' AND {where} "
        "ORDER BY importance DESC, last_confirmed DESC",
        params,
    )
    return [Fact(*r) for r in rows]


def confirm(
    db: Database,
    config: ConsolidationConfig,
    entity_id: int,
    kind: str,
    value: str,
    text: str,
    t: float,
    *,
    exclusive: bool = True,
    replace: bool = False,
) -> None:
    """One piece of evidence that ``kind`` of the entity is ``value``: that fact is reinforced (or made),
    and, when the kind is ``exclusive``, its other values are lowered (``replace``: deleted)."""
    if exclusive:
        for fact_id, w in db.query(
            "SELECT id, importance FROM facts WHERE entity_id = ? AND kind = ? AND value != ?", (entity_id, kind, value)
        ):
            lowered = contradicted(w, config, replace=replace)
            if lowered is None:
                db.execute("DELETE FROM facts WHERE id = ?", (fact_id,))
            else:
                db.execute("UPDATE facts SET importance = ? WHERE id = ?", (lowered, fact_id))
    row = db.query_one(
        "SELECT id, importance FROM facts WHERE entity_id = ? AND kind = ? AND value = ?", (entity_id, kind, value)
    )
    if row is None:
        db.execute(
            "INSERT INTO facts (entity_id, kind, value, text, importance, first_confirmed, last_confirmed, "
            "confirmations) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, 1)",
            (entity_id, kind, value, text, reinforced(None, config, replace=replace), t, t),
        )
    else:
        db.execute(
            "UPDATE facts SET importance = ?, text = ?, last_confirmed = max(last_confirmed, ?), "
            "confirmations = confirmations + 1 WHERE id = ?",
            (reinforced(row[1], config, replace=replace), text, t, row[0]),
        )


def reinforced(w: float | None, config: ConsolidationConfig, *, replace: bool = False) -> float:
    """A fact's importance after confirming evidence: w <- w + (1 - w) * gamma, at most 1 (a new fact, ``w`` None:
    gamma); ``replace`` (the current state, replaced outright): 1."""
    if replace:
        return 1.0
    if w is None:
        return config.gamma
    return min(w + (1 - w) * config.gamma, 1.0)


def contradicted(w: float, config: ConsolidationConfig, *, replace: bool = False) -> float | None:
    """A fact's importance after evidence for another value of its kind: w <- w * (1 - contradiction) (``replace``:
    0); None when that falls below ``min_importance`` (the fact is deleted)."""
    lowered = 0.0 if replace else w * (1 - config.contradiction)
    return None if lowered < config.min_importance else lowered


def consolidate_clip(
    db: Database, config: ConsolidationConfig, clip_id: int, camera: str, sightings: Sequence[Sighting]
) -> list[str]:
    """Extends or starts traces for a new clip's observations, folds what became redundant and
    updates facts. Call inside the clip's write transaction; returns media files to delete after it
    commits."""
    if not config.enabled:
        return []
    media: list[str] = []
    emptied: set[int] = set()
    for s in sorted(sightings, key=lambda s: (s.t_start, s.observation_id)):
        place = s.description.place
        last = db.query_one(
            f"SELECT {_TRACE_COLUMNS}, x1, y1, x2, y2 FROM traces WHERE entity_id = ? AND camera = ? "
            "ORDER BY t_end DESC LIMIT 1",
            (s.entity_id, camera),
        )
        previous = Trace(*last[:10]) if last else None
        if (
            last is not None
            and previous is not None
            and s.t_start - previous.t_end <= config.max_gap_s
            and s.description.state() == _state(db, previous)
            and _iou(np.asarray(last[10:], np.float64), s.box) >= config.min_iou
        ):
            db.execute(
                "UPDATE traces SET t_end = max(t_end, ?), sightings = sightings + 1, last_observation_id = ? WHERE id "
                "= ?",
                (s.t_end, s.observation_id, previous.id),
            )
            # between the first and the latest, what no longer serves identity (out of the reference set) is folded
            for (middle,) in db.query(
                "SELECT id FROM observations WHERE entity_id = ? AND camera = ? AND t_start > ? AND t_start < ? AND "
                "clip_id != ? "
                "AND id NOT IN (SELECT observation_id FROM entity_refs WHERE entity_id = ?)",
                (s.entity_id, camera, previous.t_start + config.keep_first_s, s.t_start, clip_id, s.entity_id),
            ):
                folded = _fold(db, int(middle))
                if folded is not None:
                    media += folded[1]
                    emptied.add(folded[0])
            continue
        db.execute(
            "INSERT INTO traces (entity_id, camera, place, description, t_start, t_end, first_observation_id, "
            "last_observation_id, x1, y1, x2, y2) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                s.entity_id,
                camera,
                place,
                s.description.text,
                s.t_start,
                s.t_end,
                s.observation_id,
                s.observation_id,
                *map(float, s.box),
            ),
        )
        _learn(db, config, s, camera, place, previous)
    media += _fold_clips(db, clip_id, camera, emptied)
    return media


def _state(db: Database, trace: Trace) -> tuple[object, ...] | None:
    """The described state of a trace: that of the latest observation it holds (None when that is gone)."""
    if trace.last_observation_id is None:
        return None
    row = db.query_one(
        "SELECT description, colour, colour_second, pattern, zone, region, motion FROM observations WHERE id = ?",
        (trace.last_observation_id,),
    )
    if row is None:
        return None
    company = db.query(
        "SELECT category, n FROM observation_company WHERE observation_id = ? ORDER BY category",
        (trace.last_observation_id,),
    )
    text, colour, second, pattern, zone, region, motion = row
    return Description(
        text,
        tuple(c for c in (colour, second) if c),
        pattern=pattern,
        zone=zone,
        region=region,
        motion=motion,
        company=tuple((c, int(n)) for c, n in company),
    ).state()


def _fold(db: Database, observation_id: int) -> tuple[int, list[str]] | None:
    """Deletes an observation folded into its trace; returns (its clip, its crop)."""
    row = db.query_one("SELECT clip_id, space_id, crop_path FROM observations WHERE id = ?", (observation_id,))
    if row is None:
        return None
    delete_observation_vectors(db, [(observation_id, int(row[1]))])
    db.execute("DELETE FROM observations WHERE id = ?", (observation_id,))
    return int(row[0]), [row[2]] if row[2] else []


def _caption(db: Database, clip_id: int) -> str | None:
    row = db.query_one("SELECT text FROM episodes WHERE scale = 'clip' AND clip_id = ?", (clip_id,))
    return row[0] if row else None


def _fold_clips(db: Database, clip_id: int, camera: str, emptied: set[int]) -> list[str]:
    """A clip goes when it holds nothing of its own any more (no observation, no speech) and sits
    inside a run: the clips on either side of it say the same. Looked at: the clips emptied by
    folding, and the one just before this clip (a run of empty views)."""
    previous = db.query_one(
        "SELECT id FROM clips WHERE camera = ? AND t_start < (SELECT t_start FROM clips WHERE id = ?) "
        "ORDER BY t_start DESC LIMIT 1",
        (camera, clip_id),
    )
    media: list[str] = []
    for candidate in sorted(emptied | ({int(previous[0])} if previous else set())):
        if db.query_one("SELECT 1 FROM observations WHERE clip_id = ? LIMIT 1", (candidate,)) or db.query_one(
            "SELECT 1 FROM clip_speech WHERE clip_id = ? LIMIT 1", (candidate,)
        ):
            continue
        start = db.value("SELECT t_start FROM clips WHERE id = ?", (candidate,))
        neighbours = [
            db.query_one(
                f"SELECT id FROM clips WHERE camera = ? AND t_start {op} ? ORDER BY t_start {order} LIMIT 1",
                (camera, start),
            )
            for op, order in (("<", "DESC"), (">", "ASC"))
        ]
        before, after = neighbours
        if (
            before is None
            or after is None
            or not (_caption(db, int(before[0])) == _caption(db, candidate) == _caption(db, int(after[0])))
        ):
            continue
        media += media_of_clips(db, [candidate])
        delete_text_vectors(
            db, "episode", [r[0] for r in db.query("SELECT id FROM episodes WHERE clip_id = ?", (candidate,))]
        )
        delete_keyframe_vectors(db, [candidate])
        db.execute("DELETE FROM clips WHERE id = ?", (candidate,))
        _join_log(db, camera, float(start))
    return media


def _join_log(db: Database, camera: str, start: float) -> None:
    """The ingest log of a folded clip joins the span before it when the recording was continuous: the
    log keeps what was recorded (for resuming and for not writing a clip twice) in spans, not rows."""
    row = db.query_one(
        "SELECT id, clip_t_end, observations FROM ingest_log WHERE camera = ? AND clip_t_start = ?", (camera, start)
    )
    before = db.query_one(
        "SELECT id, clip_t_end FROM ingest_log WHERE camera = ? AND clip_t_start < ? "
        "ORDER BY clip_t_start DESC LIMIT 1",
        (camera, start),
    )
    if row is not None and before is not None and abs(float(before[1]) - start) < 1e-3:
        db.execute("DELETE FROM ingest_log WHERE id = ?", (row[0],))
        db.execute(
            "UPDATE ingest_log SET clip_t_end = ?, observations = observations + ? WHERE id = ?",
            (row[1], row[2], before[0]),
        )


def _learn(
    db: Database, config: ConsolidationConfig, s: Sighting, camera: str, place: str, previous: Trace | None
) -> None:
    """Facts from a new trace: the entity's usual place, its current state, who moved it, habits."""
    if not place:
        return
    t = s.t_start
    subject = label(s.category, s.description.colours, s.description.pattern) if s.category else "it"
    where = place_phrase(place)
    confirm(
        db,
        config,
        s.entity_id,
        "state",
        place,
        f"{subject}: {where} since {format_utc(t)} UTC (camera {camera})",
        t,
        replace=True,
    )
    if not s.description.moving:  # where it rests, not where it passes
        confirm(db, config, s.entity_id, "place", place, f"{subject}: usually {where}", t)
    if s.kind == "object" and previous is not None and previous.place and previous.place != place:
        people = {
            int(r[0])
            for r in db.query(
                "SELECT DISTINCT entity_id FROM observations WHERE camera = ? AND kind = 'person' AND entity_id IS "
                "NOT NULL "
                "AND t_end >= ? AND t_start <= ?",
                (camera, previous.t_end - 5.0, s.t_end + 5.0),
            )
        }
        if len(people) == 1:  # one person around while it changed place: they moved it
            person = people.pop()
            row = db.query_one("SELECT coalesce(name, category) FROM entities WHERE id = ?", (person,))
            confirm(
                db,
                config,
                s.entity_id,
                "owner",
                str(person),
                f"{subject}: moved by #{person} ({row[0] if row else 'person'})",
                t,
            )
    part = part_of_day(t)
    days = {
        math.floor(t0 / 86400)
        for (t0,) in db.query("SELECT t_start FROM traces WHERE entity_id = ? AND place = ?", (s.entity_id, place))
        if part_of_day(t0) == part
    }
    if len(days) >= config.schema_days:
        kind = f"habit:{part}"
        row = db.query_one(
            "SELECT last_confirmed FROM facts WHERE entity_id = ? AND kind = ? AND value = ?",
            (s.entity_id, kind, place),
        )
        if row is None or math.floor(row[0] / 86400) != math.floor(t / 86400):  # once a day
            confirm(
                db,
                config,
                s.entity_id,
                kind,
                place,
                f"{subject}: {where} most {part}s ({len(days)} days so far)",
                t,
                exclusive=False,
            )
