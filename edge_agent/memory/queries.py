"""Named reads of memory for the rest of the agent: the API's timeline and status, the resolver's view
of a clip (GEB's observations with their per-frame boxes), evaluation and benchmarks. Memory owns its
SQL: a module outside edge_agent/memory/ that needs rows asks here (or the Store) by name.

Functions over a :class:`~edge_agent.memory.db.Database` (a Store's is ``store.db``); each returns
plain tuples, dicts or sets, and the caller makes its own models of them."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, NamedTuple

from edge_agent.clock import after_recording
from edge_agent.memory.db import Database, HasDatabase, database_of
from edge_agent.memory.description import REGIONS

__all__ = [
    "ID_CHUNK",
    "LEFT_S",
    "CameraSeeing",
    "CameraSpan",
    "EntityLabel",
    "EntitySpan",
    "FactLine",
    "Latest",
    "SeenZone",
    "CameraSighting",
    "ClipBox",
    "ClipObservation",
    "ClipSpan",
    "EpisodeRow",
    "LoggedSpan",
    "TimelineClip",
    "Sighting",
    "cameras_seeing",
    "companions",
    "sightings_in",
    "at_place",
    "cameras",
    "cameras_between",
    "clip_boxes",
    "clip_keyframes",
    "clip_observations",
    "clip_timeline",
    "clips_after",
    "clips_per_camera",
    "cameras_of",
    "described_as",
    "described_share",
    "recorded_without",
    "clips_with_keyframes",
    "entities_of_categories",
    "entity_categories",
    "entities_of_kinds",
    "entity_count",
    "entity_label",
    "episode_ids",
    "fact_lines",
    "ingest_log",
    "last_clip_before",
    "last_clip_end",
    "last_clip_id",
    "last_observation_of",
    "last_seen",
    "latest_crops",
    "latest_observation",
    "logged_span_per_camera",
    "NamedSighting",
    "named_entities",
    "named_sightings",
    "observation_crop",
    "observation_entities",
    "observations_with_crops",
    "seen_with",
    "sightings_of",
    "stored_span_per_camera",
    "unnamed_people",
    "window_episodes",
    "zones",
]

ID_CHUNK = 500  #: ids per ``IN (...)`` list: below SQLite's variable limit on any build


class ClipSpan(NamedTuple):
    """A clip: its id, camera and span."""

    id: int
    camera: str
    t_start: float
    t_end: float


class LoggedSpan(NamedTuple):
    """A span the ingest log says was recorded (clips consolidation folded included)."""

    camera: str
    t_start: float
    t_end: float
    committed_at: float


class TimelineClip(NamedTuple):
    """A clip on a camera's timeline: keyframes as JSON, its observation count and caption."""

    id: int
    t_start: float
    t_end: float
    keyframes: str
    observations: int
    caption: str | None


class EpisodeRow(NamedTuple):
    """An episode (a clip, 10 minutes, an hour or a day of one camera) and its summary."""

    id: int
    scale: str
    camera: str
    t_start: float
    t_end: float
    text: str


class ClipObservation(NamedTuple):
    """An observation of a clip as rules read it: its entity (and the entity's name), where and what colour."""

    id: int
    entity_id: int
    kind: str
    category: str
    name: str | None
    t_end: float
    zone: str
    colour: str
    colour_second: str
    pattern: str = ""


class ClipBox(NamedTuple):
    """One box of an observation, in one frame (ms into the clip's time)."""

    observation_id: int
    frame_ms: int
    x1: float
    y1: float
    x2: float
    y2: float


class CameraSpan(NamedTuple):
    """What memory holds of a camera: how many clips, from the first start to the last end."""

    clips: int
    start: float
    end: float


class SeenZone(NamedTuple):
    """A named zone things were described at, and the camera it is on."""

    zone: str
    camera: str


class EntityLabel(NamedTuple):
    """An entity's category and the name the user gave it (None: unnamed)."""

    category: str
    name: str | None


class Latest(NamedTuple):
    """The latest-ending observation of some entities, and whose it is."""

    entity_id: int
    observation_id: int


class FactLine(NamedTuple):
    """A fact memory learnt: '<category>: <kind>', its value and importance."""

    label: str
    value: str
    importance: float


class EntitySpan(NamedTuple):
    """An entity and when it was first and last seen."""

    entity_id: int
    first_seen: float
    last_seen: float


class CameraSeeing(NamedTuple):
    """A camera that saw some entities: how many observations, the last one's end and id."""

    camera: str
    observations: int
    last_end: float
    observation_id: int


def _chunks(ids: Iterable[int]) -> Iterator[list[int]]:
    unique = sorted({int(i) for i in ids})
    for k in range(0, len(unique), ID_CHUNK):
        yield unique[k : k + ID_CHUNK]


def _marks(ids: Sequence[Any]) -> str:
    return ",".join("?" * len(ids))


# -- clips and cameras -------------------------------------------------------------------------------


def last_clip_id(db: Database) -> int:
    """The id of the newest clip (0 for an empty memory)."""
    return int(db.value("SELECT coalesce(max(id), 0) FROM clips"))


def last_clip_before(memory: Database | HasDatabase, t: float) -> int:
    """The id of the newest clip that starts before ``t`` (0 if none): replaying from a time starts after it."""
    db = database_of(memory)
    return int(db.value("SELECT coalesce(max(id), 0) FROM clips WHERE t_start < ?", (t,)))


def clips_after(memory: Database | HasDatabase, clip_id: int) -> list[ClipSpan]:
    """(id, camera, t_start, t_end) of the clips committed after ``clip_id``, in commit order."""
    db = database_of(memory)
    rows = db.query("SELECT id, camera, t_start, t_end FROM clips WHERE id > ? ORDER BY id", (clip_id,))
    return [ClipSpan(*row) for row in rows]


def stored_span_per_camera(memory: Database | HasDatabase) -> dict[str, CameraSpan]:
    """camera -> (clips held, first start, last end) of the clips memory holds."""
    db = database_of(memory)
    return {
        c: CameraSpan(int(n), a, b)
        for c, n, a, b in db.query("SELECT camera, count(*), min(t_start), max(t_end) FROM clips GROUP BY camera")
    }


def logged_span_per_camera(memory: Database | HasDatabase) -> dict[str, tuple[float, float]]:
    """camera -> (first start, last end) of what the ingest log says was recorded (folded clips included)."""
    db = database_of(memory)
    return {
        c: (a, b)
        for c, a, b in db.query("SELECT camera, min(clip_t_start), max(clip_t_end) FROM ingest_log GROUP BY camera")
    }


def ingest_log(memory: Database | HasDatabase) -> list[LoggedSpan]:
    """(camera, start, end, committed at) of every ingest-log row: spans, as consolidation folds clips."""
    db = database_of(memory)
    rows = db.query("SELECT camera, clip_t_start, clip_t_end, committed_at FROM ingest_log")
    return [LoggedSpan(*row) for row in rows]


def clips_per_camera(memory: Database | HasDatabase) -> dict[str, int]:
    """camera -> clips memory holds."""
    db = database_of(memory)
    return {c: int(n) for c, n in db.query("SELECT camera, count(*) FROM clips GROUP BY camera")}


def cameras(memory: Database | HasDatabase) -> list[str]:
    """The cameras memory holds clips of, sorted."""
    db = database_of(memory)
    return [str(c) for c in _distinct(db, "clips", "camera")]


def _distinct(db: Database, table: str, expression: str) -> list[object]:
    """The distinct values of an indexed ``expression`` of ``table``, ascending, NULL left out: each found by one
    step of the index from the one before (a loose index scan), so the cost is the values', not the rows'."""
    return [
        r[0]
        for r in db.query(
            f"WITH RECURSIVE found(v) AS (SELECT min({expression}) FROM {table} UNION ALL "
            f"SELECT (SELECT min({expression}) FROM {table} WHERE {expression} > found.v) FROM found "
            "WHERE found.v IS NOT NULL) SELECT v FROM found WHERE v IS NOT NULL"
        )
    ]


def last_clip_end(memory: Database | HasDatabase, camera: str | None = None) -> float | None:
    """The end of the latest clip (of one camera), None for none."""
    db = database_of(memory)
    row = db.query_one("SELECT max(t_end) FROM clips WHERE ? IS NULL OR camera = ?", (camera, camera))
    return float(row[0]) if row and row[0] is not None else None


def cameras_between(memory: Database | HasDatabase, start: float, end: float) -> list[str]:
    """The cameras with a clip overlapping (start, end), by name."""
    db = database_of(memory)
    return [
        r[0]
        for r in db.query(
            "SELECT DISTINCT camera FROM clips WHERE t_start < ? AND t_end > ? ORDER BY camera", (end, start)
        )
    ]


def clip_timeline(
    memory: Database | HasDatabase, camera: str, start: float, end: float, limit: int
) -> list[TimelineClip]:
    """(id, t_start, t_end, keyframes JSON, observations, caption) of at most ``limit`` clips of ``camera``
    overlapping (start, end), in time order."""
    db = database_of(memory)
    rows = db.query(
        "SELECT c.id, c.t_start, c.t_end, c.keyframes, (SELECT count(*) FROM observations o WHERE o.clip_id = c.id), "
        "(SELECT text FROM episodes e WHERE e.clip_id = c.id AND e.scale = 'clip' ORDER BY e.id LIMIT 1) "
        "FROM clips c WHERE c.camera = ? AND c.t_start < ? AND c.t_end > ? ORDER BY c.t_start LIMIT ?",
        (camera, end, start, limit),
    )
    return [TimelineClip(*row) for row in rows]


def window_episodes(
    memory: Database | HasDatabase, camera: str, start: float, end: float, limit: int
) -> list[EpisodeRow]:
    """(id, scale, camera, t_start, t_end, text) of the coarser episodes (10 min, hour, day) of ``camera``
    overlapping (start, end): days first, then hours, then 10-minute windows, each in time order."""
    db = database_of(memory)
    rows = db.query(
        "SELECT id, scale, camera, t_start, t_end, text FROM episodes "
        "WHERE scale != 'clip' AND camera = ? AND t_start < ? AND t_end > ? "
        "ORDER BY CASE scale WHEN 'day' THEN 0 WHEN 'hour' THEN 1 ELSE 2 END, t_start LIMIT ?",
        (camera, end, start, limit),
    )
    return [EpisodeRow(*row) for row in rows]


def episode_ids(
    memory: Database | HasDatabase,
    scale: str,
    *,
    camera: str | None = None,
    start: float | None = None,
    end: float | None = None,
) -> list[int]:
    """Ids of the episodes of one scale ('clip', '10min', 'hour', 'day'), of a camera or all, overlapping
    (start, end), in time order."""
    db = database_of(memory)
    rows = db.query(
        "SELECT id FROM episodes WHERE scale = ? AND (? IS NULL OR camera = ?) AND (? IS NULL OR t_end >= ?) "
        "AND (? IS NULL OR t_start < ?) ORDER BY t_start, id",
        (scale, camera, camera, start, start, end, end),
    )
    return [int(r[0]) for r in rows]


# -- media -------------------------------------------------------------------------------------------


def clip_keyframes(memory: Database | HasDatabase, clip_id: int) -> str | None:
    """The clip's keyframes as stored (a JSON list of media paths), None for no such clip."""
    db = database_of(memory)
    row = db.query_one("SELECT keyframes FROM clips WHERE id = ?", (clip_id,))
    return row[0] if row else None


def observation_crop(memory: Database | HasDatabase, observation_id: int) -> str | None:
    """The observation's crop (a media path), None for none or no such observation."""
    db = database_of(memory)
    row = db.query_one("SELECT crop_path FROM observations WHERE id = ?", (observation_id,))
    return row[0] if row else None


def clips_with_keyframes(memory: Database | HasDatabase, clip_ids: Iterable[int]) -> set[int]:
    """The clips among these that still have a keyframe."""
    db = database_of(memory)
    out: set[int] = set()
    for chunk in _chunks(clip_ids):
        out |= {
            int(r[0])
            for r in db.query(f"SELECT id FROM clips WHERE id IN ({_marks(chunk)}) AND keyframes != '[]'", chunk)
        }
    return out


def observations_with_crops(memory: Database | HasDatabase, observation_ids: Iterable[int]) -> set[int]:
    """The observations among these that still have a crop."""
    db = database_of(memory)
    out: set[int] = set()
    for chunk in _chunks(observation_ids):
        out |= {
            int(r[0])
            for r in db.query(
                f"SELECT id FROM observations WHERE id IN ({_marks(chunk)}) AND crop_path IS NOT NULL", chunk
            )
        }
    return out


def latest_crops(memory: Database | HasDatabase, entity_ids: Iterable[int]) -> dict[int, int]:
    """Per entity, its latest observation that has a crop (its thumbnail)."""
    db = database_of(memory)
    out: dict[int, int] = {}
    for chunk in _chunks(entity_ids):
        out.update(
            {
                int(e): int(o)
                for e, o in db.query(
                    "SELECT e.id, (SELECT o.id FROM observations o WHERE o.entity_id = e.id AND o.crop_path IS NOT "
                    "NULL "
                    f"ORDER BY o.t_end DESC, o.id DESC LIMIT 1) FROM entities e WHERE e.id IN ({_marks(chunk)})",
                    chunk,
                )
                if o is not None
            }
        )
    return out


# -- entities and observations -----------------------------------------------------------------------


def entity_count(memory: Database | HasDatabase) -> int:
    db = database_of(memory)
    return int(db.value("SELECT count(*) FROM entities"))


def named_entities(memory: Database | HasDatabase) -> dict[str, int]:
    """name -> id of the entities the user named."""
    db = database_of(memory)
    return {name: int(i) for i, name in db.query("SELECT id, name FROM entities WHERE name IS NOT NULL")}


class NamedSighting(NamedTuple):
    """An entity the user named, with its latest observation (None for each field of that when it has none)."""

    entity_id: int
    name: str
    kind: str
    observation_id: int | None
    t: float | None  #: the observation's end, Unix seconds
    camera: str | None
    place: str | None  #: its zone, or the name the user gave its place; None for neither
    has_crop: bool


def named_sightings(memory: Database | HasDatabase) -> list[NamedSighting]:
    """Every named entity with its latest observation (by start), in id order: one index seek per entity."""
    db = database_of(memory)
    rows = db.query(
        "SELECT e.id, e.name, e.kind, o.id, o.t_end, o.camera, NULLIF(o.zone, ''), p.name, o.crop_path IS NOT NULL "
        "FROM entities e LEFT JOIN observations o ON o.id = (SELECT id FROM observations WHERE entity_id = e.id "
        "ORDER BY t_start DESC, id DESC LIMIT 1) LEFT JOIN places p ON p.id = o.place_id "
        "WHERE e.name IS NOT NULL ORDER BY e.id"
    )
    return [
        NamedSighting(
            int(i),
            str(name),
            str(kind),
            None if o is None else int(o),
            None if t is None else float(t),
            camera,
            zone or place,
            bool(crop),
        )
        for i, name, kind, o, t, camera, zone, place, crop in rows
    ]


def seen_zones(memory: Database | HasDatabase) -> list[SeenZone]:
    """(zone, camera) of every named zone things were described at (a camera's zones, or Frigate's)."""
    db = database_of(memory)
    return [
        SeenZone(str(z), str(c))
        for z, c in db.query(
            "SELECT DISTINCT o.zone, c.camera FROM observations o JOIN clips c ON c.id = o.clip_id "
            "WHERE o.zone != '' ORDER BY 1, 2"
        )
    ]


def entity_categories(memory: Database | HasDatabase) -> list[str]:
    """The categories memory's entities have (lower-cased, sorted)."""
    db = database_of(memory)
    return [str(c) for c in _distinct(db, "entities", "lower(category)")]


def entity_label(memory: Database | HasDatabase, entity_id: int) -> EntityLabel | None:
    """(category, name) of an entity, None for no such entity."""
    db = database_of(memory)
    row = db.query_one("SELECT category, name FROM entities WHERE id = ?", (entity_id,))
    return EntityLabel(row[0], row[1]) if row else None


def zones(memory: Database | HasDatabase) -> list[str]:
    """The named places things were seen at, sorted: the places of traces (every sighting extends or starts one;
    image regions left out) and the places the user named (whose older traces keep the place they had)."""
    db = database_of(memory)
    rows = db.query(
        f"SELECT place FROM traces WHERE place != '' AND place NOT IN ({_marks(REGIONS)}) "
        "UNION SELECT name FROM places WHERE name IS NOT NULL ORDER BY 1",
        REGIONS,
    )
    return [str(r[0]) for r in rows]


def unnamed_people(memory: Database | HasDatabase) -> list[int]:
    """The ids of the people the user has not named."""
    db = database_of(memory)
    return [
        int(r[0]) for r in db.query("SELECT id FROM entities WHERE kind = 'person' AND (name IS NULL OR name = '')")
    ]


def entities_of_categories(memory: Database | HasDatabase, categories: Sequence[str]) -> list[int]:
    """The ids of the entities whose category, lower-cased, is one of ``categories``."""
    db = database_of(memory)
    return [
        int(r[0])
        for r in db.query(f"SELECT id FROM entities WHERE lower(category) IN ({_marks(categories)})", list(categories))
    ]


def observation_entities(memory: Database | HasDatabase) -> dict[int, int]:
    """observation id -> entity id of every observation that has one (memory's identity, to score)."""
    db = database_of(memory)
    return {int(o): int(e) for o, e in db.query("SELECT id, entity_id FROM observations") if e is not None}


def clip_observations(memory: Database | HasDatabase, clip_id: int) -> list[ClipObservation]:
    """(id, entity id, kind, category, entity name, t_end, zone, colour, second colour, pattern) of a clip's
    observations that have an entity, in time order."""
    db = database_of(memory)
    rows = db.query(
        "SELECT o.id, o.entity_id, o.kind, o.category, e.name, o.t_end, o.zone, o.colour, o.colour_second, o.pattern "
        "FROM observations o "
        "LEFT JOIN entities e ON e.id = o.entity_id "
        "WHERE o.clip_id = ? AND o.entity_id IS NOT NULL ORDER BY o.t_start, o.id",
        (clip_id,),
    )
    return [ClipObservation(*row) for row in rows]


def clip_boxes(memory: Database | HasDatabase, clip_id: int) -> list[ClipBox]:
    """(observation id, frame_ms, x1, y1, x2, y2) of every box of a clip's observations."""
    db = database_of(memory)
    rows = db.query(
        "SELECT b.observation_id, b.frame_ms, b.x1, b.y1, b.x2, b.y2 FROM observation_boxes b JOIN observations o "
        "ON o.id = b.observation_id WHERE o.clip_id = ?",
        (clip_id,),
    )
    return [ClipBox(*row) for row in rows]


def last_seen(
    memory: Database | HasDatabase, entity_ids: Sequence[int], up_to_clip: int, camera: str | None = None
) -> float | None:
    """The latest end of an observation of these entities in the clips up to ``up_to_clip`` (of ``camera`` only, when
    given), None if none."""
    db = database_of(memory)
    row = db.query_one(
        f"SELECT max(t_end) FROM observations WHERE entity_id IN ({_marks(entity_ids)}) AND clip_id <= ? "
        "AND (? IS NULL OR camera = ?)",
        (*entity_ids, up_to_clip, camera, camera),
    )
    return None if row is None or row[0] is None else float(row[0])


def recorded_since(
    memory: Database | HasDatabase, since: float, span: float, until: float, camera: str | None = None
) -> float | None:
    """When the recording (what was ingested before ``until``, of ``camera`` or of every camera, overlaps counted
    once) had run ``span`` seconds after ``since``; None if it has not yet: time the camera was off does not count.
    Read from the ingest log, which keeps what was recorded when empty clips are folded away."""
    db = database_of(memory)
    rows = db.query(
        "SELECT clip_t_start, clip_t_end FROM ingest_log WHERE clip_t_end > ? AND clip_t_start < ? "
        "AND (? IS NULL OR camera = ?) ORDER BY clip_t_start",
        (since, until, camera, camera),
    )
    return after_recording(((float(a), float(b)) for a, b in rows), since, span)


def recorded_between(
    memory: Database | HasDatabase, start: float | None, end: float | None, cameras: Sequence[str] = ()
) -> bool:
    """Whether any of ``cameras`` (every camera if none) recorded at some time in [start, end) (None: unbounded), by
    the ingest log, which keeps what was recorded when empty clips are folded away."""
    db = database_of(memory)
    lo = -math.inf if start is None else start
    hi = math.inf if end is None else end
    where = f" AND camera IN ({_marks(cameras)})" if cameras else ""
    row = db.query_one(
        f"SELECT 1 FROM ingest_log WHERE clip_t_end > ? AND clip_t_start < ?{where} LIMIT 1", (lo, hi, *cameras)
    )
    return row is not None


def latest_observation(
    memory: Database | HasDatabase, entity_ids: Sequence[int], up_to_clip: int, camera: str | None = None
) -> Latest | None:
    """(entity id, observation id) of the latest-ending observation of these entities in the clips up to
    ``up_to_clip`` (of ``camera`` only, when given), None if none."""
    db = database_of(memory)
    row = db.query_one(
        f"SELECT entity_id, id FROM observations WHERE entity_id IN ({_marks(entity_ids)}) AND clip_id <= ? "
        "AND (? IS NULL OR camera = ?) ORDER BY t_end DESC LIMIT 1",
        (*entity_ids, up_to_clip, camera, camera),
    )
    return Latest(int(row[0]), int(row[1])) if row else None


def fact_lines(memory: Database | HasDatabase, limit: int, *, leave_out: str = "state") -> list[FactLine]:
    """('<category>: <kind>', value, importance) of the most important facts, facts of kind ``leave_out``
    left out (the current state changes with every move: not what a reader of the month wants)."""
    db = database_of(memory)
    rows = db.query(
        "SELECT e.category || ': ' || f.kind, f.value, f.importance FROM facts f JOIN entities e ON e.id = f.entity_id "
        "WHERE f.kind != ? ORDER BY f.importance DESC LIMIT ?",
        (leave_out, limit),
    )
    return [FactLine(*row) for row in rows]


def entities_of_kinds(db: Database, categories: Sequence[str], *, entity_id: int | None = None) -> list[EntitySpan]:
    """(entity id, first seen, last seen) of every entity of ``categories`` (or the one entity), most recently
    seen first: the entities table alone, for a question with no time, camera or count to narrow it."""
    if entity_id is not None:
        rows = db.query("SELECT id, first_seen, last_seen FROM entities WHERE id = ?", (int(entity_id),))
    else:
        rows = db.query(
            f"SELECT id, first_seen, last_seen FROM entities WHERE category IN ({_marks(categories)}) "
            "ORDER BY last_seen DESC, id DESC",
            tuple(categories),
        )
    return [EntitySpan(int(i), float(a), float(b)) for i, a, b in rows]


def last_observation_of(memory: Database | HasDatabase, entity_id: int, before: float | None = None) -> int | None:
    """The id of the entity's latest-ending observation that started before ``before``; None if none."""
    db = database_of(memory)
    found = db.value(
        "SELECT id FROM observations WHERE entity_id = ? AND (? IS NULL OR t_start < ?) ORDER BY t_end DESC, id DESC "
        "LIMIT 1",
        (int(entity_id), before, before),
    )
    return None if found is None else int(found)


def cameras_of(
    db: Database, categories: Sequence[str], *, entity_id: int | None = None, before: float | None = None
) -> list[CameraSeeing]:
    """(camera, observations, last end, the last observation's id) of the entities of ``categories`` (or the one
    entity), counting observations that started before ``before``: which cameras saw a kind of thing. Entity by
    entity through their index, so a kind seen a few times in a big memory costs a few rows."""
    ids = [entity_id] if entity_id is not None else [e[0] for e in entities_of_kinds(db, categories)]
    per_camera: dict[str, list[Any]] = {}
    for chunk in _chunks(ids):
        rows = db.query(
            "SELECT camera, t_end, id FROM ("
            f"SELECT camera, t_end, id, row_number() OVER (PARTITION BY camera ORDER BY t_end DESC, id DESC) AS r "
            f"FROM observations WHERE entity_id IN ({_marks(chunk)}) AND (? IS NULL OR t_start < ?)) WHERE r = 1",
            [*chunk, before, before],
        )
        counts = dict(
            db.query(
                f"SELECT camera, count(*) FROM observations WHERE entity_id IN ({_marks(chunk)}) "
                "AND (? IS NULL OR t_start < ?) GROUP BY camera",
                [*chunk, before, before],
            )
        )
        for camera, last, observation_id in rows:
            known = per_camera.setdefault(str(camera), [0, float("-inf"), 0])
            known[0] += int(counts.get(camera, 0))
            if float(last) > known[1]:
                known[1], known[2] = float(last), int(observation_id)
    return [CameraSeeing(camera, n, last, observation_id) for camera, (n, last, observation_id) in per_camera.items()]


def sightings_of(
    db: Database,
    categories: Sequence[str],
    *,
    entity_id: int | None = None,
    before: float | None = None,
    camera: str | None = None,
    days: Sequence[tuple[float, float]] = (),
) -> list[tuple[int, float, float, int, list[str]]]:
    """(entity id, first start, last end, observations, cameras) of every entity of ``categories`` (or the one
    entity), counting its observations that started before ``before``, on ``camera``, within ``days``; most
    recently seen first. What a question about a kind of thing ("was there a dog?") is answered from."""
    where = ["(? IS NULL OR o.t_start < ?)", "(? IS NULL OR o.camera = ?)"]
    params: list[Any] = [before, before, camera, camera]
    if entity_id is not None:
        where.append("e.id = ?")
        params.append(int(entity_id))
    else:
        where.append(f"e.category IN ({_marks(categories)})")
        params.extend(categories)
    if days:
        where.append("(" + " OR ".join("(o.t_start >= ? AND o.t_start < ?)" for _ in days) + ")")
        params.extend(v for span in days for v in span)
    rows = db.query(
        "SELECT e.id, min(o.t_start), max(o.t_end), count(o.id), group_concat(DISTINCT o.camera) FROM entities e "
        f"JOIN observations o ON o.entity_id = e.id WHERE {' AND '.join(where)} "
        "GROUP BY e.id ORDER BY max(o.t_end) DESC",
        params,
    )
    return [(int(i), float(a), float(b), int(n), sorted(str(c).split(","))) for i, a, b, n, c in rows]


def _entities_where(
    db: Database, entity_ids: Sequence[int], query: Callable[[list[int]], tuple[str, list[Any]]]
) -> set[int]:
    """The entity ids ``query`` (the SQL and its parameters for a chunk of ``entity_ids``) selects, chunk by chunk."""
    found: set[int] = set()
    for chunk in _chunks(entity_ids):
        sql, params = query(chunk)
        found.update(int(r[0]) for r in db.query(sql, params))
    return found


def not_on(
    memory: Database | HasDatabase, entity_ids: Sequence[int], kinds: Sequence[str], overlap: float, before: float
) -> set[int]:
    """Those of the entities seen in the same frames as a thing of one of ``kinds`` on their camera, but never with
    ``overlap`` or more of their box inside its box: seen beside it, not on it ("the baby was on the floor by the
    couch"). An entity whose frames no such box shares is not among them (nothing tells)."""
    db = database_of(memory)
    if not entity_ids or not kinds:
        return set()
    ids, marks = [int(e) for e in entity_ids], ",".join("?" * len(kinds))
    rows = db.query(
        f"SELECT a.entity_id, ba.x1, ba.y1, ba.x2, ba.y2, bb.x1, bb.y1, bb.x2, bb.y2 FROM observations a "
        f"JOIN observation_boxes ba ON ba.observation_id = a.id "
        f"JOIN observations b ON b.camera = a.camera AND b.category IN ({marks}) AND b.t_start <= a.t_end "
        f"AND b.t_end >= a.t_start AND b.id != a.id "
        f"JOIN observation_boxes bb ON bb.observation_id = b.id AND bb.frame_ms BETWEEN ba.frame_ms - 1 AND "
        f"ba.frame_ms + 1 WHERE a.entity_id IN ({_marks(ids)}) AND a.t_start < ?",
        [*kinds, *ids, before],
    )
    shared: set[int] = set()
    on: set[int] = set()
    for entity, ax1, ay1, ax2, ay2, bx1, by1, bx2, by2 in rows:
        shared.add(int(entity))
        area = max(ax2 - ax1, 0.0) * max(ay2 - ay1, 0.0)
        inside = max(min(ax2, bx2) - max(ax1, bx1), 0.0) * max(min(ay2, by2) - max(ay1, by1), 0.0)
        if area > 0 and inside / area >= overlap:
            on.add(int(entity))
    return shared - on


def at_place(
    memory: Database | HasDatabase, entity_ids: Sequence[int], places: Sequence[str], start: float, end: float
) -> set[int]:
    """Those of the entities seen at one of ``places`` (a named zone) between ``start`` and ``end``: an observation
    described there, or a trace (folded sightings) there that spans part of the time. "The cup that was by the
    dishwasher at nine" is one of these."""
    db = database_of(memory)
    if not places:
        return set()
    return _entities_where(
        db,
        entity_ids,
        lambda chunk: (
            f"SELECT entity_id FROM observations WHERE entity_id IN ({_marks(chunk)}) AND zone IN "
            f"({_marks(places)}) AND t_end >= ? AND t_start <= ? UNION SELECT entity_id FROM traces WHERE "
            f"entity_id IN ({_marks(chunk)}) AND place IN ({_marks(places)}) AND t_end >= ? AND t_start <= ?",
            [*chunk, *places, start, end, *chunk, *places, start, end],
        ),
    )


def seen_with(
    memory: Database | HasDatabase, entity_ids: Sequence[int], places: Sequence[str], before: float | None = None
) -> set[int]:
    """Those of the entities seen with a thing of one of ``places`` in view (a detector class: "was anyone carrying
    a bag?") or at one (a named zone, :func:`at_place`: "is anyone on the sofa?"), before ``before``."""
    db = database_of(memory)
    if not places:
        return set()
    until = before if before is not None else math.inf
    company = _entities_where(
        db,
        entity_ids,
        lambda chunk: (
            f"SELECT o.entity_id FROM observations o JOIN observation_company c ON c.observation_id = o.id "
            f"WHERE o.entity_id IN ({_marks(chunk)}) AND c.category IN ({_marks(places)}) AND o.t_start < ?",
            [*chunk, *places, until],
        ),
    )
    return company | at_place(db, entity_ids, places, -math.inf, until)


#: The described fields a question may ask about, by name (observations' columns).
FIELDS = ("colour", "pattern", "motion", "size", "zone", "region")


def described_as(
    memory: Database | HasDatabase,
    entity_ids: Sequence[int],
    field: str,
    *,
    before: float | None = None,
    camera: str | None = None,
    cameras: Sequence[str] = (),
    after: float | None = None,
) -> list[tuple[str, int, int, float]]:
    """(value, observations, the latest one's id, its end) of one described field (``FIELDS``) over the
    observations of some entities (on ``camera`` or ``cameras``, overlapping [after, before)), most observations
    first: what colour they were, whether they moved."""
    db = database_of(memory)
    if field not in FIELDS:
        raise ValueError(f"field must be one of {', '.join(FIELDS)}, got {field!r}")
    totals: dict[str, list[Any]] = {}
    where, params = _scope_sql(db, [*cameras, *([camera] if camera else [])], after, before, (), ())
    for chunk in _chunks(entity_ids):
        condition = " AND ".join([f"o.entity_id IN ({_marks(chunk)})", f"o.{field} != ''", *where])
        for value, n, last, end in db.query(
            f"SELECT o.{field}, count(*), o.id, max(o.t_end) FROM observations o WHERE {condition} GROUP BY o.{field}",
            [*chunk, *params],
        ):
            seen = totals.setdefault(str(value), [0, int(last), float(end)])
            seen[0] += int(n)
            if float(end) > seen[2]:
                seen[1:] = [int(last), float(end)]
    return sorted(((v, n, i, t) for v, (n, i, t) in totals.items()), key=lambda r: (-r[1], -r[3]))


def likeliest(
    memory: Database | HasDatabase,
    entity_ids: Sequence[int],
    field: str,
    *,
    before: float | None = None,
    cameras: Sequence[str] = (),
    after: float | None = None,
) -> dict[int, str]:
    """Each entity's value of one described field (``FIELDS``) its observations (on ``cameras``, overlapping [after,
    before)) say most often (ties: the later said); entities none of whose observations say one are left out."""
    db = database_of(memory)
    if field not in FIELDS:
        raise ValueError(f"field must be one of {', '.join(FIELDS)}, got {field!r}")
    best: dict[int, tuple[int, float, str]] = {}
    where, params = _scope_sql(db, cameras, after, before, (), ())
    for chunk in _chunks(entity_ids):
        condition = " AND ".join([f"o.entity_id IN ({_marks(chunk)})", f"o.{field} != ''", *where])
        for entity, value, n, end in db.query(
            f"SELECT o.entity_id, o.{field}, count(*), max(o.t_end) FROM observations o WHERE {condition} "
            f"GROUP BY o.entity_id, o.{field}",
            [*chunk, *params],
        ):
            said = (int(n), float(end), str(value))
            if said > best.get(int(entity), (0, -math.inf, "")):
                best[int(entity)] = said
    return {entity: value for entity, (_, _, value) in best.items()}


def described_share(
    memory: Database | HasDatabase,
    entity_ids: Sequence[int],
    field: str,
    values: Sequence[str],
    *,
    before: float | None = None,
) -> dict[int, float]:
    """Per entity (of those given, with a described ``field``), the share of its observations whose ``field``
    is one of ``values``: how much of the time the person was described in red."""
    db = database_of(memory)
    if field not in FIELDS:
        raise ValueError(f"field must be one of {', '.join(FIELDS)}, got {field!r}")
    shares: dict[int, float] = {}
    for chunk in _chunks(entity_ids):
        for entity, hits, n in db.query(
            f"SELECT entity_id, sum({field} IN ({_marks(values)})), count(*) FROM observations "
            f"WHERE entity_id IN ({_marks(chunk)}) AND {field} != '' AND (? IS NULL OR t_start < ?) GROUP BY entity_id",
            [*values, *chunk, before, before],
        ):
            shares[int(entity)] = int(hits) / int(n)
    return shares


#: A camera that recorded on this long after a thing's last sighting saw it go (it left), rather than stopping with it
#: still in view: how questions ("did the van leave?") and rules ("when the van leaves") read leaving.
LEFT_S = 5.0


def recorded_until(memory: Database | HasDatabase, camera: str, before: float | None = None) -> float | None:
    """When ``camera``'s recording ended, of what was ingested starting before ``before`` (None: all of it), from
    the ingest log (which keeps the clips memory folded away); None when it recorded nothing."""
    db = database_of(memory)
    found = db.value(
        "SELECT max(clip_t_end) FROM ingest_log WHERE camera = ? AND (? IS NULL OR clip_t_start < ?)",
        (camera, before, before),
    )
    return None if found is None else float(found)


def recorded_without(
    memory: Database | HasDatabase, camera: str, entity_id: int, after: float, before: float, *, clips: int = 1
) -> bool:
    """Whether ``camera`` recorded at least ``clips`` clips wholly between ``after`` and ``before`` in which the
    entity was not seen (no observation of it, and no trace of it overlapping the clip, whose folded sightings
    would have been there)."""
    db = database_of(memory)
    found = db.value(
        "SELECT count(*) FROM (SELECT 1 FROM clips c WHERE c.camera = ?1 AND c.t_start > ?3 AND c.t_end < ?4 "
        "AND NOT EXISTS (SELECT 1 FROM observations o WHERE o.clip_id = c.id AND o.entity_id = ?2) "
        "AND NOT EXISTS (SELECT 1 FROM traces t WHERE t.entity_id = ?2 AND t.camera = ?1 "
        "AND t.t_start < c.t_end AND t.t_end > c.t_start) LIMIT ?5)",
        (camera, int(entity_id), float(after), float(before), int(clips)),
    )
    return int(found or 0) >= clips


# -- questions under a scope (edge_agent.qa.scope): a camera set, a time window, places ---------------------------


class Sighting(NamedTuple):
    """An entity as seen under a scope: its first start and last end there, how many observations, on which cameras."""

    entity_id: int
    category: str
    first: float
    last: float
    observations: int
    cameras: tuple[str, ...]


class CameraSighting(NamedTuple):
    camera: str
    observations: int
    last: float  #: the latest end
    last_observation: int  #: the id of the observation that ended last
    first: float = float("inf")  #: the earliest start


def observation_extent(memory: Database | HasDatabase) -> float | None:
    """How long memory's longest observation lasted (at least; None where memory predates the record): one that ends
    after a moment started at most this long before it."""
    row = database_of(memory).query_one("SELECT seconds FROM extents WHERE name = 'observation'")
    return float(row[0]) if row else None


def started_since_sql(memory: Database | HasDatabase, column: str, t: float) -> tuple[str, list[Any]]:
    """A condition on an observation's start ``column`` that every observation ending at or after ``t`` meets: what
    lets the time index read from shortly before ``t`` rather than from memory's first day ("" where none is known)."""
    extent = observation_extent(memory)
    return ("", []) if extent is None else (f"{column} >= ?", [float(t) - extent])


def _scope_sql(
    memory: Database | HasDatabase,
    cameras: Sequence[str],
    start: float | None,
    end: float | None,
    zones: Sequence[str],
    regions: Sequence[str],
) -> tuple[list[str], list[Any]]:
    """The conditions on observations ``o`` of a scope: on these cameras, overlapping [start, end), at these places."""
    where: list[str] = []
    params: list[Any] = []
    if cameras:
        where.append(f"o.camera IN ({_marks(cameras)})")
        params.extend(cameras)
    if start is not None:
        where.append("o.t_end >= ?")
        params.append(float(start))
        since, bound = started_since_sql(memory, "o.t_start", start)
        if since:
            where.append(since)
            params.extend(bound)
    if end is not None:
        where.append("o.t_start < ?")
        params.append(float(end))
    at = [(column, values) for column, values in (("o.zone", zones), ("o.region", regions)) if values]
    if at:  # at a zone or in a part of the view ("on the left"): only those asked (an empty list is no condition)
        where.append("(" + " OR ".join(f"{column} IN ({_marks(values)})" for column, values in at) + ")")
        params.extend(v for _, values in at for v in values)
    return where, params


def sightings_in(
    memory: Database | HasDatabase,
    categories: Sequence[str] | None,
    *,
    entity_id: int | None = None,
    exclude: Sequence[str] = (),
    cameras: Sequence[str] = (),
    start: float | None = None,
    end: float | None = None,
    zones: Sequence[str] = (),
    regions: Sequence[str] = (),
    limit: int | None = None,
    detail: bool = True,
) -> list[Sighting]:
    """Every entity of ``categories`` (None: of any; less ``exclude``), or the one entity, with its observations on
    ``cameras`` overlapping [start, end) at ``zones`` or ``regions``; most recently seen first, at most ``limit``. With
    no camera, time or place to narrow by, the entities table alone answers (a kind seen thousands of times costs no
    scan), and without ``detail`` its rows leave out how many observations and on which cameras (0 and ())."""
    db = database_of(memory)
    where, params = _scope_sql(db, cameras, start, end, zones, regions)
    who: list[str] = []
    if entity_id is not None:
        who.append("e.id = ?")
        params_who: list[Any] = [int(entity_id)]
    else:
        params_who = []
        if categories is not None:
            who.append(f"e.category IN ({_marks(categories or [''])})")
            params_who.extend(categories or [""])
        if exclude:
            who.append(f"e.category NOT IN ({_marks(exclude)})")
            params_who.extend(exclude)
    bound = f" LIMIT {int(limit)}" if limit is not None else ""
    if not where:
        counted = (
            "(SELECT count(*) FROM observations o WHERE o.entity_id = e.id), (SELECT group_concat(DISTINCT c.camera) "
            "FROM (SELECT camera FROM observations o WHERE o.entity_id = e.id) c)"
            if detail
            else "0, NULL"
        )
        rows = db.query(
            f"SELECT e.id, e.category, e.first_seen, e.last_seen, {counted} FROM entities e"
            + (f" WHERE {' AND '.join(who)}" if who else "")
            + f" ORDER BY e.last_seen DESC, e.id DESC{bound}",
            params_who,
        )
    else:
        rows = db.query(
            "SELECT e.id, e.category, min(o.t_start), max(o.t_end), count(o.id), group_concat(DISTINCT o.camera) "
            f"FROM observations o JOIN entities e ON e.id = o.entity_id WHERE {' AND '.join(where + who)} "
            f"GROUP BY e.id ORDER BY max(o.t_end) DESC, e.id DESC{bound}",
            params + params_who,
        )
    return [
        Sighting(int(i), str(c), float(a), float(b), int(n), tuple(sorted(str(m).split(",")) if m else ()))
        for i, c, a, b, n, m in rows
    ]


def cameras_seeing(
    memory: Database | HasDatabase, entity_ids: Sequence[int], *, start: float | None = None, end: float | None = None
) -> list[CameraSighting]:
    """Per camera, how many observations of the entities overlap [start, end), the latest one, and the first start."""
    db = database_of(memory)
    per_camera: dict[str, list[Any]] = {}
    where, params = _scope_sql(db, (), start, end, (), ())
    for chunk in _chunks(entity_ids):
        condition = " AND ".join([f"o.entity_id IN ({_marks(chunk)})", *where])
        # SQLite's bare column beside a single max(): the id is that of the row with the latest end
        for camera, n, last, observation_id, first in db.query(
            f"SELECT o.camera, count(*), max(o.t_end), o.id, min(o.t_start) FROM observations o WHERE {condition} "
            "GROUP BY o.camera",
            [*chunk, *params],
        ):
            known = per_camera.setdefault(str(camera), [0, float("-inf"), 0, float("inf")])
            known[0] += int(n)
            if float(last) > known[1]:
                known[1], known[2] = float(last), int(observation_id)
            known[3] = min(known[3], float(first))
    return [CameraSighting(c, n, last, i, first) for c, (n, last, i, first) in per_camera.items()]


def companions(db: Database, clip_ids: Sequence[int], leave_out: Sequence[int]) -> list[tuple[int, int, str]]:
    """(clip, entity, category) of every entity seen in these clips but those left out: what was with a thing."""
    found: list[tuple[int, int, str]] = []
    for chunk in _chunks(clip_ids):
        found.extend(
            (int(c), int(e), str(k))
            for c, e, k in db.query(
                f"SELECT o.clip_id, o.entity_id, e.category FROM observations o JOIN entities e ON e.id = o.entity_id "
                f"WHERE o.clip_id IN ({_marks(chunk)}) AND o.entity_id NOT IN ({_marks(leave_out or [-1])})",
                [*chunk, *(leave_out or [-1])],
            )
        )
    return found
