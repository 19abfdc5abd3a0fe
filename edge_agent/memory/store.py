"""The memory store: biographies of physical instances in SQLite + sqlite-vec, written one clip per
transaction. A clip and everything derived from it (observations, boxes, vectors, identity decisions)
commit together, keyed by (camera, clip start): writing the same clip again after a crash neither
duplicates nor loses, and the ingest log says where each camera resumes."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO

import numpy as np

from edge_agent.memory import consolidate, episodes
from edge_agent.memory.associate import AssociationConfig, Associator, score_from_json
from edge_agent.memory.db import Database, DatabaseError, StorageFullError, free_bytes, human_bytes
from edge_agent.memory.records import (
    KINDS,
    AssociationDecision,
    Biography,
    Clip,
    ClipRecord,
    Entity,
    Episode,
    IngestResult,
    InvalidRecordError,
    Observation,
    ObservationRecord,
)
from edge_agent.memory.schema import vector_table_ddl

__all__ = ["DATABASE_FILE", "MissingMemoryError", "NotFoundError", "Store", "default_home"]

_ENTITY_COLUMNS = "e.id, e.kind, e.category, e.name, e.first_seen, e.last_seen"
_OBSERVATION_COLUMNS = "id, clip_id, entity_id, track_id, camera, kind, category, t_start, t_end, description, crop_path"


_DECISION_COLUMNS = "a.observation_id, a.entity_id, a.created_entity, a.candidates, a.tau_low, a.tau_high"


def _decision(observation_id: int, entity_id: int, created: int, candidates: str, tau_low: float, tau_high: float) -> AssociationDecision:
    scores = tuple(score_from_json(c) for c in json.loads(candidates))
    return AssociationDecision(observation_id, entity_id, bool(created), scores, tau_low, tau_high)


class NotFoundError(LookupError):
    """No entity, observation or clip with that id."""


class MissingMemoryError(DatabaseError):
    """The memory database is gone while the pictures it described are still there."""


DATABASE_FILE = "memory.db"
LOCK_FILE = "memory.lock"


def _holds_files(folder: Path) -> bool:
    """Whether ``folder`` holds any file, at any depth (stops at the first)."""
    if not folder.is_dir():
        return False
    return any(files for _, _, files in os.walk(folder))


def _share_lock(home: Path) -> IO[bytes] | None:
    """A shared lock on ``<home>/memory.lock`` held while the store is open: ``memory restore`` takes it
    exclusively, so it never replaces a memory another process is using. None where the file cannot
    be made (a read-only home: nothing can be restored into it either)."""
    try:
        handle = os.fdopen(os.open(home / LOCK_FILE, os.O_CREAT | os.O_WRONLY | os.O_APPEND, 0o600), "ab")
    except OSError:
        return None
    try:
        fcntl.flock(handle, fcntl.LOCK_SH)
    except OSError:
        handle.close()
        return None
    return handle


def default_home() -> Path:
    """``$EDGE_AGENT_HOME``, else the per-user data folder (``$XDG_DATA_HOME/edge-agent``)."""
    if os.environ.get("EDGE_AGENT_HOME"):
        return Path(os.environ["EDGE_AGENT_HOME"]).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "edge-agent"


class Store:
    """The agent's memory under ``home``: ``memory.db`` and the ``media/`` folder of crops and keyframes.

    Use as a context manager or call :meth:`close`."""

    def __init__(self, home: str | Path | None = None, *, config: AssociationConfig | None = None, driver: str | None = None,
                 consolidation: consolidate.ConsolidationConfig | None = None, mode: str = "write", check: bool = True) -> None:
        self.home = Path(home) if home is not None else default_home()
        self.media_dir = self.home / "media"
        database = self.home / DATABASE_FILE
        if not database.exists() and _holds_files(self.media_dir):
            raise MissingMemoryError(
                f"the memory database {database} is missing but {self.media_dir} holds its pictures: "
                "`edge-agent memory restore BACKUP` puts a backup back (or move media/ away to start a new memory)")
        if not self.home.exists():
            with contextlib.suppress(OSError):  # a read-only parent: Database says so
                self.home.mkdir(mode=0o700, parents=True)
        self.db = Database(database, driver=driver, mode=mode, check=check)
        self._lock_file = _share_lock(self.home)
        if not self.db.readonly:
            self.media_dir.mkdir(mode=0o700, exist_ok=True)
        self.config = config or AssociationConfig()
        self.associator = Associator(self.db, self.config)
        self.consolidation = consolidation or consolidate.ConsolidationConfig()
        self.summarize: episodes.Summarizer | None = None  #: writes episode summaries (an LLM); None: extractive
        self._spaces: dict[str, tuple[int, int]] = {}
        self._load_spaces()
        self._seen_version = self.db.data_version()
        self.generation = 0  #: counts this connection's committed writes (caches key on it)

    @property
    def readonly(self) -> bool:
        """The memory was opened read-only (its medium or folder cannot be written)."""
        return self.db.readonly

    # -- lifecycle ---------------------------------------------------------------------------------

    def close(self) -> None:
        self.db.close()
        if self._lock_file is not None:
            self._lock_file.close()  # releases the shared lock
            self._lock_file = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def sync(self) -> None:
        """Reloads in-memory state if another process committed since we last looked."""
        version = self.db.data_version()
        if version != self._seen_version:
            self._load_spaces()
            self.associator.index.reload()
            self._seen_version = version

    @contextlib.contextmanager
    def write(self) -> Iterator[None]:
        """A write transaction. On rollback the in-memory mirrors (embedding spaces, the reference
        index) are reloaded from the database, so they never hold rows that were not committed."""
        self.sync()
        try:
            with self.db.transaction():
                yield
        except BaseException:
            self._load_spaces()
            self.associator.index.reload()
            raise
        finally:
            self.generation += 1

    def _load_spaces(self) -> None:
        self._spaces = {name: (int(i), int(d)) for i, name, d in self.db.query("SELECT id, name, dims FROM embedding_spaces")}

    def _space(self, name: str, dims: int) -> int:
        known = self._spaces.get(name)
        if known is not None:
            if known[1] != dims:
                raise InvalidRecordError(f"embedding space {name!r} has {known[1]} dimensions, got a vector of {dims}")
            return known[0]
        space_id = self.db.insert("INSERT INTO embedding_spaces (name, dims) VALUES (?, ?)", (name, dims))
        self.db.script(vector_table_ddl(space_id, dims))
        self._spaces[name] = (space_id, dims)
        return space_id

    def media_path(self, relative: str) -> Path:
        return self.media_dir / relative

    def _file_bytes(self, relative: str | None) -> int:
        if relative is None:
            return 0
        path = self.media_path(relative)
        return path.stat().st_size if path.is_file() else 0

    # -- write path --------------------------------------------------------------------------------

    def ingest_clip(self, clip: ClipRecord, observations: Iterable[ObservationRecord], *, caption: str | None = None,
                    speech: Sequence[tuple[float, float, str]] = ()) -> IngestResult:
        """Writes a clip, its observations and their identity decisions in one transaction (and the
        clip's caption as a clip-scale episode, and its timestamped speech). A clip already in memory
        (same camera and start) is left as it is and its decisions returned."""
        if caption is not None and (not isinstance(caption, str) or len(caption) > 4000):
            raise InvalidRecordError("caption must be text of at most 4000 characters")
        records = sorted(observations, key=lambda o: (o.t_start, o.track_id))
        tracks = [r.track_id for r in records]
        if len(set(tracks)) != len(tracks):
            raise InvalidRecordError(f"track ids repeat within the clip: {sorted(tracks)}")
        for r in records:
            if r.t_start < clip.t_start - 1e-3 or r.t_end > clip.t_end + 1e-3:
                raise InvalidRecordError(
                    f"observation of track {r.track_id} spans {r.t_start}..{r.t_end}, outside its clip {clip.t_start}..{clip.t_end}"
                )
        with self.write():
            existing = self.db.query_one(  # its row, or a span of folded clips it lies in
                "SELECT clip_id FROM ingest_log WHERE camera = ? AND (clip_t_start = ? OR (clip_t_start < ? AND clip_t_end > ?)) "
                "ORDER BY clip_t_start DESC LIMIT 1", (clip.camera, clip.t_start, clip.t_start, clip.t_start))
            if existing is not None:  # its clip may since have been folded into a trace, or pruned
                clip_id = int(existing[0]) if existing[0] is not None else 0
                return IngestResult(clip_id, False, tuple(self._clip_decisions(clip_id)))
            now = time.time()
            clip_id = self.db.insert(
                "INSERT INTO clips (camera, t_start, t_end, keyframes, media_bytes, ingested_at) VALUES (?, ?, ?, ?, ?, ?)",
                (clip.camera, clip.t_start, clip.t_end, json.dumps(list(clip.keyframes)),
                 sum(self._file_bytes(k) for k in clip.keyframes), now),
            )
            decisions = [self._write_observation(clip_id, clip.camera, r) for r in records]
            self.db.executemany(
                "INSERT INTO clip_speech (clip_id, t_start, t_end, text) VALUES (?, ?, ?, ?)",
                [(clip_id, float(a), float(b), str(text)) for a, b, text in speech],
            )
            if caption:
                self.db.execute(
                    "INSERT INTO episodes (scale, camera, t_start, t_end, clip_id, text) VALUES ('clip', ?, ?, ?, ?, ?)",
                    (clip.camera, clip.t_start, clip.t_end, clip_id, caption),
                )
            sightings = [consolidate.Sighting(d.observation_id, d.entity_id, r.kind, r.t_start, r.t_end, r.description,
                                              np.median(np.asarray(r.boxes, np.float64), axis=0)) for r, d in zip(records, decisions)]
            folded = consolidate.consolidate_clip(self, self.consolidation, clip_id, clip.camera, sightings)
            episodes.roll_up(self, clip.camera, before=clip.t_start, summarize=self.summarize)  # windows this clip is past are closed
            self.db.execute(
                "INSERT INTO ingest_log (camera, clip_t_start, clip_t_end, clip_id, observations, committed_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (clip.camera, clip.t_start, clip.t_end, clip_id, len(records), now),
            )
        self.delete_media(folded)
        return IngestResult(clip_id, True, tuple(decisions))

    def _write_observation(self, clip_id: int, camera: str, r: ObservationRecord) -> AssociationDecision:
        space_id = self._space(r.embedding_space, int(r.embedding.size))
        observation_id = self.db.insert(
            "INSERT INTO observations (clip_id, track_id, camera, kind, category, t_start, t_end, description, "
            "crop_path, media_bytes, space_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (clip_id, r.track_id, camera, r.kind, r.category, r.t_start, r.t_end, r.description,
             r.crop_path, self._file_bytes(r.crop_path), space_id),
        )
        frames = r.frame_ms.tolist()
        self.db.executemany(
            "INSERT INTO observation_boxes (observation_id, frame_ms, x1, y1, x2, y2, score) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(observation_id, f, *map(float, b), float(s)) for f, b, s in zip(frames, r.boxes, r.scores)],
        )
        self.db.execute(
            f"INSERT INTO vec_obs_{space_id} (observation_id, embedding, kind, camera, t) VALUES (?, ?, ?, ?, ?)",
            (observation_id, r.embedding.tobytes(), r.kind, camera, r.t_start),
        )
        return self.associator.associate(observation_id, r, camera, space_id)

    def close_episodes(self, camera: str | None = None) -> list[int]:
        """Summarises the windows still open (of one camera, or all): for a recording that will not
        go on. A clip arriving later in one of them rewrites its summary."""
        with self.write():
            cameras = [camera] if camera is not None else [r[0] for r in self.db.query("SELECT DISTINCT camera FROM clips")]
            return [e for c in cameras for e in episodes.roll_up(self, c, before=float("inf"), summarize=self.summarize)]

    def propose(self, kind: str, space: str, embedding: np.ndarray) -> Entity | None:
        """The entity this appearance most likely belongs to, without deciding anything (the decision
        is made at ingest, with the separation test)."""
        known = self._spaces.get(space)
        if known is None or kind not in KINDS:
            return None
        vector = np.ascontiguousarray(embedding, dtype=np.float32).reshape(-1)
        if vector.size != known[1]:
            return None
        self.sync()
        entity_id = self.associator.propose(kind, known[0], vector / max(float(np.linalg.norm(vector)), 1e-12))
        return None if entity_id is None else self.entity(entity_id)

    def resume_point(self, camera: str) -> float | None:
        """End time of the last clip of ``camera`` committed to memory; a source resumes after it."""
        row = self.db.query_one("SELECT max(clip_t_end) FROM ingest_log WHERE camera = ?", (camera,))
        return None if row is None or row[0] is None else float(row[0])

    # -- read path ---------------------------------------------------------------------------------

    def entities(self, kind: str | None = None) -> list[Entity]:
        """Every entity, most recently seen first."""
        if kind is not None and kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
        rows = self.db.query(
            f"SELECT {_ENTITY_COLUMNS}, count(o.id) FROM entities e LEFT JOIN observations o ON o.entity_id = e.id "
            "WHERE (? IS NULL OR e.kind = ?) GROUP BY e.id ORDER BY e.last_seen DESC, e.id DESC",
            (kind, kind),
        )
        return [Entity(*row) for row in rows]

    def entity(self, entity_id: int) -> Entity:
        row = self.db.query_one(
            f"SELECT {_ENTITY_COLUMNS}, count(o.id) FROM entities e LEFT JOIN observations o ON o.entity_id = e.id "
            "WHERE e.id = ? GROUP BY e.id",
            (int(entity_id),),
        )
        if row is None:
            raise NotFoundError(f"no entity {entity_id}")
        return Entity(*row)

    def observations(self, entity_id: int) -> list[Observation]:
        """The entity's observations in time order."""
        self.entity(entity_id)
        rows = self.db.query(
            f"SELECT {_OBSERVATION_COLUMNS} FROM observations WHERE entity_id = ? ORDER BY t_start, id", (int(entity_id),)
        )
        return [Observation(*row) for row in rows]

    def observation(self, observation_id: int) -> Observation:
        row = self.db.query_one(f"SELECT {_OBSERVATION_COLUMNS} FROM observations WHERE id = ?", (int(observation_id),))
        if row is None:
            raise NotFoundError(f"no observation {observation_id}")
        return Observation(*row)

    def biography(self, entity_id: int) -> Biography:
        return Biography(self.entity(entity_id), tuple(self.observations(entity_id)))

    def clip(self, clip_id: int) -> Clip:
        row = self.db.query_one("SELECT id, camera, t_start, t_end, keyframes FROM clips WHERE id = ?", (int(clip_id),))
        if row is None:
            raise NotFoundError(f"no clip {clip_id}")
        return Clip(row[0], row[1], row[2], row[3], tuple(json.loads(row[4])))

    def reference_ids(self, entity_id: int) -> list[int]:
        """The entity's current reference observations, oldest first."""
        return [r[0] for r in self.db.query("SELECT observation_id FROM entity_refs WHERE entity_id = ? ORDER BY seq", (int(entity_id),))]

    def decisions(self, *, entity_id: int | None = None, observation_id: int | None = None) -> list[AssociationDecision]:
        """Association decisions, oldest first, for an entity (as chosen at the time) or an observation."""
        rows = self.db.query(
            f"SELECT {_DECISION_COLUMNS} FROM association_log a JOIN observations o ON o.id = a.observation_id "
            "WHERE (? IS NULL OR a.entity_id = ?) AND (? IS NULL OR a.observation_id = ?) ORDER BY a.id",
            (entity_id, entity_id, observation_id, observation_id),
        )
        return [_decision(*row) for row in rows]

    def _clip_decisions(self, clip_id: int) -> list[AssociationDecision]:
        rows = self.db.query(
            f"SELECT {_DECISION_COLUMNS} FROM association_log a JOIN observations o ON o.id = a.observation_id "
            "WHERE o.clip_id = ? ORDER BY a.id",
            (clip_id,),
        )
        return [_decision(*row) for row in rows]

    def corrections(self) -> list[dict[str, object]]:
        """The audit trail of the user's corrections, oldest first."""
        return [
            {"id": i, "action": a, "details": json.loads(d), "at": t}
            for i, a, d, t in self.db.query("SELECT id, action, details, at FROM corrections ORDER BY id")
        ]

    def clip_captions(self, camera: str | None = None) -> list[tuple[int, float, str]]:
        """(clip id, start, caption) of clip-scale episodes, in time order."""
        return [
            (int(c), float(t), str(x)) for c, t, x in self.db.query(
                "SELECT clip_id, t_start, text FROM episodes WHERE scale = 'clip' AND (? IS NULL OR camera = ?) ORDER BY t_start",
                (camera, camera),
            )
        ]

    def speech(self, clip_id: int) -> list[tuple[float, float, str]]:
        """(start, end, text) of the speech transcribed in a clip, wall-clock seconds."""
        return [(float(a), float(b), str(t)) for a, b, t in
                self.db.query("SELECT t_start, t_end, text FROM clip_speech WHERE clip_id = ? ORDER BY t_start", (int(clip_id),))]

    def search_text(self, query: str, limit: int = 20) -> list[Observation]:
        """Observations whose description matches an FTS5 query (BM25 order)."""
        rows = self.db.query(
            f"SELECT {', '.join('o.' + c for c in _OBSERVATION_COLUMNS.split(', '))} FROM observation_fts f "
            "JOIN observations o ON o.id = f.rowid WHERE observation_fts MATCH ? ORDER BY bm25(observation_fts) LIMIT ?",
            (query, int(limit)),
        )
        return [Observation(*row) for row in rows]

    def nearest_observations(self, vector: np.ndarray, space: str, k: int = 10, *, kind: str | None = None,
                             camera: str | None = None, after: float | None = None,
                             before: float | None = None) -> list[tuple[int, float]]:
        """(observation id, cosine distance) of the k nearest stored embeddings in ``space`` (sqlite-vec
        KNN), optionally only of one kind (partition key), camera, or start time in [after, before)."""
        known = self._spaces.get(space)
        if known is None:
            return []
        vector = np.ascontiguousarray(vector, dtype=np.float32).reshape(-1)
        if vector.size != known[1]:
            raise ValueError(f"embedding space {space!r} has {known[1]} dimensions, got a vector of {vector.size}")
        sql = f"SELECT observation_id, distance FROM vec_obs_{known[0]} WHERE embedding MATCH ? AND k = ?"
        params: list[object] = [vector.tobytes(), int(k)]
        for column, op, value in (("kind", "=", kind), ("camera", "=", camera), ("t", ">=", after), ("t", "<", before)):
            if value is not None:
                sql += f" AND {column} {op} ?"
                params.append(float(value) if column == "t" else value)
        return [(int(i), float(d)) for i, d in self.db.query(sql + " ORDER BY distance", params)]

    def graph_rows(self, before: float | None = None) -> dict[str, np.ndarray]:
        """The memory graph's nodes and links as arrays, for retrieval (only what started before
        ``before``): observations (id, entity, clip, t_start), clips (id, t_start, camera order),
        episodes (id, clip, parent, t_start), and the pairs of adjacent clips and of adjacent coarser episodes."""
        obs = self.db.query(
            "SELECT id, coalesce(entity_id, -1), clip_id, t_start FROM observations WHERE (? IS NULL OR t_start < ?) ORDER BY id",
            (before, before),
        )
        clips = self.db.query(
            "SELECT id, t_start, camera FROM clips WHERE (? IS NULL OR t_start < ?) ORDER BY camera, t_start", (before, before)
        )
        episodes = self.db.query(
            "SELECT id, coalesce(clip_id, -1), coalesce(parent_id, -1), t_start FROM episodes WHERE (? IS NULL OR t_start < ?) ORDER BY id",
            (before, before),
        )
        # Consecutive clips of one camera are temporally adjacent, and so are its consecutive episodes of one scale.
        adjacent = [(a[0], b[0]) for a, b in zip(clips, clips[1:]) if a[2] == b[2]]
        episode_adjacent = self.db.query(
            "SELECT previous, id FROM (SELECT id, lag(id) OVER (PARTITION BY camera, scale ORDER BY t_start) AS previous FROM episodes "
            "WHERE scale != 'clip' AND (? IS NULL OR t_start < ?)) WHERE previous IS NOT NULL", (before, before))
        return {
            "observations": np.array([r[:3] for r in obs], dtype=np.int64).reshape(-1, 3),
            "observation_times": np.array([r[3] for r in obs], dtype=np.float64),
            "clips": np.array([r[0] for r in clips], dtype=np.int64),
            "clip_adjacency": np.array(adjacent, dtype=np.int64).reshape(-1, 2),
            "episodes": np.array([r[:3] for r in episodes], dtype=np.int64).reshape(-1, 3),
            "episode_adjacency": np.array(episode_adjacent, dtype=np.int64).reshape(-1, 2),
        }

    def counts(self) -> dict[str, int]:
        """Rows per table (vector tables summed), for audits and benchmarks."""
        tables = ["clips", "observations", "observation_boxes", "entities", "entity_refs", "association_log",
                  "entity_constraints", "corrections", "episodes", "traces", "facts", "rules", "rule_state", "rule_events", "notifications",
                  "ingest_log", "clip_speech"]
        out = {t: int(self.db.query_one(f"SELECT count(*) FROM {t}")[0]) for t in tables}
        out["vec_obs"] = sum(int(self.db.query_one(f"SELECT count(*) FROM vec_obs_{i}")[0]) for i, _ in self._spaces.values())
        out["vec_ref"] = sum(int(self.db.query_one(f"SELECT count(*) FROM vec_ref_{i}")[0]) for i, _ in self._spaces.values())
        return out

    def vector_tables(self) -> list[tuple[int, int]]:
        """(space id, dims) of every embedding space."""
        return sorted(self._spaces.values())

    def media_files(self) -> list[str]:
        """Every media path the memory refers to (crops and keyframes), relative to the media folder."""
        paths = [r[0] for r in self.db.query("SELECT crop_path FROM observations WHERE crop_path IS NOT NULL")]
        for (keyframes,) in self.db.query("SELECT keyframes FROM clips WHERE keyframes != '[]'"):
            paths.extend(json.loads(keyframes))
        return paths

    def observations_by_id(self, ids: Sequence[int]) -> list[Observation]:
        if not ids:
            return []
        marks = ",".join("?" * len(ids))
        rows = self.db.query(f"SELECT {_OBSERVATION_COLUMNS} FROM observations WHERE id IN ({marks}) ORDER BY t_start, id", tuple(ids))
        return [Observation(*row) for row in rows]

    def observation_boxes(self, camera: str | None = None) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        """Every observation's per-frame boxes (of one camera if given): id -> (frame_ms (N,) int64,
        xyxy (N, 4) float32), for scoring memory against ground truth."""
        rows = self.db.query(
            "SELECT b.observation_id, b.frame_ms, b.x1, b.y1, b.x2, b.y2 FROM observation_boxes b "
            "JOIN observations o ON o.id = b.observation_id WHERE ? IS NULL OR o.camera = ? ORDER BY b.observation_id, b.frame_ms",
            (camera, camera))
        grouped: dict[int, list[tuple]] = {}
        for row in rows:
            grouped.setdefault(int(row[0]), []).append(row[1:])
        return {i: (np.array([r[0] for r in rs], np.int64), np.array([r[1:] for r in rs], np.float32).reshape(-1, 4))
                for i, rs in grouped.items()}

    def items_between(self, t0: float, t1: float, *, before: float | None = None, limit: int = 200) -> tuple[list[int], list[int]]:
        """Ids of the observations and of the clip-scale episodes that overlap [t0, t1] and start
        before ``before`` if given (at most ``limit`` of each): what memory holds of a moment a
        question names."""
        bound = float("inf") if before is None else float(before)
        observations = [r[0] for r in self.db.query(
            "SELECT id FROM observations WHERE t_start <= ? AND t_end >= ? AND t_start < ? ORDER BY t_start LIMIT ?", (t1, t0, bound, limit))]
        # things that stayed through the moment in a trace whose sightings then were folded: its opening observation
        observations += [r[0] for r in self.db.query(
            "SELECT first_observation_id FROM traces WHERE t_start <= ? AND t_end >= ? AND t_start < ? "
            "AND first_observation_id IS NOT NULL ORDER BY t_start LIMIT ?", (t1, t0, bound, limit)) if r[0] not in observations]
        episodes = [r[0] for r in self.db.query(
            "SELECT id FROM episodes WHERE scale = 'clip' AND t_start <= ? AND t_end >= ? AND t_start < ? ORDER BY t_start LIMIT ?",
            (t1, t0, bound, limit))]
        return observations, episodes

    def observations_in_clip(self, clip_id: int) -> list[Observation]:
        rows = self.db.query(f"SELECT {_OBSERVATION_COLUMNS} FROM observations WHERE clip_id = ? ORDER BY t_start, id", (int(clip_id),))
        return [Observation(*row) for row in rows]

    def episodes_by_id(self, ids: Sequence[int]) -> list[Episode]:
        if not ids:
            return []
        marks = ",".join("?" * len(ids))
        rows = self.db.query(
            f"SELECT id, scale, camera, t_start, t_end, clip_id, text FROM episodes WHERE id IN ({marks}) ORDER BY t_start, id", tuple(ids))
        return [Episode(*row) for row in rows]

    def appearances(self, entity_id: int, *, before: float | None = None, excluding: Sequence[int] = ()) -> tuple[int, float | None, float | None, list[str]]:
        """(count, first start, last end, cameras) of the entity's observations before ``before``,
        leaving out ``excluding``: what a biography excerpt has not shown yet."""
        marks = ",".join("?" * len(excluding)) or "NULL"
        count, first, last, cameras = self.db.query_one(
            f"SELECT count(*), min(t_start), max(t_end), group_concat(DISTINCT camera) FROM observations "
            f"WHERE entity_id = ? AND (? IS NULL OR t_start < ?) AND id NOT IN ({marks})",
            (int(entity_id), before, before, *[int(i) for i in excluding]),
        )
        return int(count), first, last, sorted(cameras.split(",")) if cameras else []

    def separation_evidence(self, a: int, b: int) -> bool:
        """Whether memory holds proof that entities a and b are different instances: the user said so,
        or an association decision vetoed one for the other on shared frames."""
        if self.db.query_one("SELECT 1 FROM entity_constraints WHERE entity_a = ? AND entity_b = ?", (min(a, b), max(a, b))):
            return True
        for chosen, other in ((a, b), (b, a)):
            for (candidates,) in self.db.query("SELECT candidates FROM association_log WHERE entity_id = ?", (chosen,)):
                if any(c.get("entity") == other and c.get("vetoed_by") is not None for c in json.loads(candidates)):
                    return True
        return False

    def text_vector_tables(self) -> list[str]:
        """The text-index tables present (created by TextIndex on first use)."""
        return [r[0] for r in self.db.query(
            "SELECT name FROM sqlite_master WHERE name IN ('vec_text_observation', 'vec_text_episode') ORDER BY name")]

    def delete_observation_vectors(self, observations: Sequence[tuple[int, int]]) -> None:
        """Drops the appearance and text vectors of (observation id, space id) pairs about to be deleted
        (virtual tables do not cascade). Reference vectors go with Associator.clear_references."""
        for observation_id, space_id in observations:
            self.db.execute(f"DELETE FROM vec_obs_{int(space_id)} WHERE observation_id = ?", (int(observation_id),))
        self.delete_text_vectors("observation", [o for o, _ in observations])

    def delete_text_vectors(self, kind: str, ids: Sequence[int]) -> None:
        """Drops the text vectors of deleted observations or episodes (virtual tables do not cascade)."""
        table = f"vec_text_{kind}"
        if ids and table in self.text_vector_tables():
            self.db.executemany(f"DELETE FROM {table} WHERE item_id = ?", [(int(i),) for i in ids])
            # SQLite may give a deleted top id to the next row: the index must look at it again.
            self.db.execute("UPDATE meta SET value = min(CAST(value AS INTEGER), ?) WHERE key = ?",
                            (min(int(i) for i in ids) - 1, f"text_indexed:{kind}"))

    def delete_keyframe_vectors(self, clip_ids: Sequence[int]) -> None:
        """Drops the keyframe vectors of clips whose keyframes are gone (forget, retention)."""
        if clip_ids and self.db.query_one("SELECT 1 FROM sqlite_master WHERE name = 'vec_keyframe'"):
            self.db.executemany("DELETE FROM vec_keyframe WHERE item_id = ?", [(int(i),) for i in clip_ids])

    def media_of_clips(self, clip_ids: Sequence[int]) -> list[str]:
        """The crops and keyframes of some clips, relative to the media folder."""
        if not clip_ids:
            return []
        marks = ",".join("?" * len(clip_ids))
        paths = [r[0] for r in self.db.query(
            f"SELECT crop_path FROM observations WHERE clip_id IN ({marks}) AND crop_path IS NOT NULL", tuple(clip_ids))]
        for (keyframes,) in self.db.query(f"SELECT keyframes FROM clips WHERE id IN ({marks})", tuple(clip_ids)):
            paths.extend(json.loads(keyframes))
        return paths

    def save_media(self, files: dict[str, bytes], *, need: int | None = None, what: str = "this clip") -> list[str]:
        """Writes media files (relative path -> bytes) before the records that name them are committed,
        checking first that the disk has room for ``need`` bytes (the files and their records). Returns the
        files it created; on a failure it removes them again and raises (:class:`StorageFullError` for a
        full disk, saying how much was needed)."""
        need = sum(len(b) for b in files.values()) if need is None else need
        free = free_bytes(self.media_dir)
        if free < need:
            raise StorageFullError(
                f"the disk holding {self.home} is full: {what} needs about {human_bytes(need)} ({len(files)} pictures and "
                f"their records), {human_bytes(free)} are free; nothing of it was stored. Free some space, or lower the "
                "memory's cap (`edge-agent memory prune --max-bytes`)")
        created: list[str] = []
        try:
            for relative, data in files.items():
                path = self.media_path(relative)
                path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                fresh = not path.exists()
                with open(path, "wb") as f:
                    if fresh:
                        created.append(relative)
                    f.write(data)
        except OSError as exc:
            self.delete_media(created)
            if exc.errno == errno.ENOSPC:
                raise StorageFullError(
                    f"the disk holding {self.home} filled up while {what} was written (it needs about {human_bytes(need)}): "
                    "nothing of it was stored. Free some space, or lower the memory's cap (`edge-agent memory prune --max-bytes`)"
                ) from None
            raise
        return created

    def delete_media(self, paths: Sequence[str]) -> int:
        """Removes media files (after the records that named them are committed); returns bytes freed."""
        freed = 0
        for relative in paths:
            path = self.media_path(relative)
            try:
                freed += path.stat().st_size
                path.unlink()
            except FileNotFoundError:
                continue
        return freed
