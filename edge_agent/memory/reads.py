"""The Store's read path: entities, observations, clips, episodes and the association log as records,
the memory graph's rows for retrieval (GEB section 3.4), KNN over appearance vectors (sqlite-vec), and the
counts audits and benchmarks use. A mixin: :class:`~edge_agent.memory.store.Store` is the one entry."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

import numpy as np

from edge_agent.memory import queries
from edge_agent.memory.associate import score_from_json
from edge_agent.memory.db import Database
from edge_agent.memory.description import label
from edge_agent.memory.records import (
    KINDS,
    AssociationDecision,
    Biography,
    Caption,
    Clip,
    Entity,
    EntityOverview,
    Episode,
    NotFoundError,
    Observation,
    PossiblySame,
    Recording,
    SpaceTable,
    Utterance,
)
from edge_agent.memory.takings import Taking, TakingRow, taking_of, takings_on

__all__ = ["Reads"]

_ENTITY_COLUMNS = "e.id, e.kind, e.category, e.name, e.first_seen, e.last_seen"
_OBSERVATION_COLUMNS = (
    "id, clip_id, entity_id, track_id, camera, kind, category, t_start, t_end, description, crop_path, "
    "colour, colour_second, rgb, pattern, size, zone, region, motion, place_id, place_score"
)
_DECISION_COLUMNS = "a.observation_id, a.entity_id, a.created_entity, a.candidates, a.tau_low, a.tau_high"


def _decision(
    observation_id: int, entity_id: int, created: int, candidates: str, tau_low: float, tau_high: float
) -> AssociationDecision:
    scores = tuple(score_from_json(c) for c in json.loads(candidates))
    return AssociationDecision(observation_id, entity_id, bool(created), scores, tau_low, tau_high)


class Reads:
    """Read methods of the Store (a mixin: the Store sets ``db`` and ``_spaces``, the embedding spaces by
    name -> (space id, dims))."""

    db: Database
    _spaces: dict[str, tuple[int, int]]

    def resume_point(self, camera: str) -> float | None:
        """End time of the last clip of ``camera`` committed to memory; a source resumes after it."""
        row = self.db.query_one("SELECT max(clip_t_end) FROM ingest_log WHERE camera = ?", (camera,))
        return None if row is None or row[0] is None else float(row[0])

    def ingested(self, camera: str, t_start: float) -> int | None:
        """The clip id of ``camera``'s clip starting at ``t_start`` when memory already took it in (0 where it has
        since been folded into a trace or pruned: its row, or a span of folded clips it lies in), else None."""
        row = self.db.query_one(
            "SELECT clip_id FROM ingest_log WHERE camera = ? AND (clip_t_start = ? OR (clip_t_start < ? AND "
            "clip_t_end > ?)) ORDER BY clip_t_start DESC LIMIT 1",
            (camera, t_start, t_start, t_start),
        )
        return None if row is None else int(row[0]) if row[0] is not None else 0

    def recordings(
        self, cameras: Sequence[str] = (), start: float | None = None, end: float | None = None
    ) -> list[Recording]:
        """What each camera (of ``cameras``, all if empty) recorded overlapping [start, end), from the ingest log (which
        keeps what was recorded when empty clips are folded away), clipped to the window; by camera name."""
        rows = self.db.query(
            "SELECT camera, clip_t_start, clip_t_end FROM ingest_log WHERE (? IS NULL OR clip_t_end > ?) "
            "AND (? IS NULL OR clip_t_start < ?) ORDER BY camera, clip_t_start",
            (start, start, end, end),
        )
        spans: dict[str, list[tuple[float, float]]] = {}
        for camera, a, b in rows:
            if not cameras or camera in cameras:
                lo, hi = max(float(a), start if start is not None else -math.inf), float(b)
                spans.setdefault(str(camera), []).append((lo, min(hi, end if end is not None else math.inf)))
        out = []
        for camera, parts in spans.items():
            seconds, reach = 0.0, -math.inf
            for a, b in parts:  # by start: overlaps counted once
                seconds += max(0.0, b - max(a, reach))
                reach = max(reach, b)
            out.append(Recording(camera, parts[0][0], max(b for _, b in parts), seconds, len(parts)))
        return out

    def cameras(self) -> list[str]:
        """The cameras memory holds clips of, sorted."""
        return queries.cameras(self.db)

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

    def entity_overviews(self, kind: str | None = None) -> list[EntityOverview]:
        """Every entity as :meth:`entities` lists them, each with what it looks like, its cameras and where it was
        last (:class:`EntityOverview`): four queries over all of memory, none per entity."""
        found = self.entities(kind)
        cameras: dict[int, list[tuple[float, str]]] = {}
        for entity_id, camera, t in self.db.query(  # traces too: a sighting folded into one keeps its camera there
            "SELECT entity_id, camera, max(t_end) FROM (SELECT entity_id, camera, t_end FROM observations "
            "WHERE entity_id IS NOT NULL UNION ALL SELECT entity_id, camera, t_end FROM traces) "
            "GROUP BY entity_id, camera"
        ):
            cameras.setdefault(int(entity_id), []).append((float(t), str(camera)))
        # SQLite takes the bare columns of an aggregate query from the row max() chose: the latest sighting
        last = {
            int(row[0]): row[1:5]
            for row in self.db.query(
                "SELECT entity_id, camera, zone, place_id, region, max(t_start) FROM observations "
                "WHERE entity_id IS NOT NULL GROUP BY entity_id"
            )
        }
        looks: dict[int, tuple[int, bool, tuple[str, ...], str]] = {}
        for entity_id, first, second, pattern, n in self.db.query(
            "SELECT entity_id, colour, colour_second, pattern, count(*) FROM observations "
            "WHERE entity_id IS NOT NULL GROUP BY entity_id, colour, colour_second, pattern"
        ):
            described = (int(n), bool(first or pattern), tuple(c for c in (first, second) if c), str(pattern or ""))
            if described[:2] > looks.get(int(entity_id), (0, False))[:2]:  # the most usual; a described one on a tie
                looks[int(entity_id)] = described
        overviews = []
        for e in found:
            _, _, colours, pattern = looks.get(e.id, (0, False, (), ""))
            camera, zone, place_id, region = last.get(e.id, ("", "", None, ""))
            seen_on = tuple(c for _, c in sorted(cameras.get(e.id, []), reverse=True))
            overviews.append(
                EntityOverview(
                    **asdict(e),
                    label=label(e.category, colours, pattern),
                    colours=colours,
                    pattern=pattern,
                    cameras=seen_on,
                    last_camera=str(camera or (seen_on[0] if seen_on else "")),
                    last_zone=str(zone or ""),
                    last_place_id=None if place_id is None else int(place_id),
                    last_region=str(region or ""),
                )
            )
        return overviews

    def entities_named(self, name: str) -> list[int]:
        """The ids of the entities the user gave ``name`` (any case), oldest first."""
        rows = self.db.query(
            "SELECT id FROM entities WHERE name = ? COLLATE NOCASE ORDER BY id", (" ".join(name.split()),)
        )
        return [int(r[0]) for r in rows]

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
            f"SELECT {_OBSERVATION_COLUMNS} FROM observations WHERE entity_id = ? ORDER BY t_start, id",
            (int(entity_id),),
        )
        return [Observation(*row) for row in rows]

    def observation(self, observation_id: int) -> Observation:
        row = self.db.query_one(f"SELECT {_OBSERVATION_COLUMNS} FROM observations WHERE id = ?", (int(observation_id),))
        if row is None:
            raise NotFoundError(f"no observation {observation_id}")
        return Observation(*row)

    def taken(self, entity_id: int, until: float | None = None) -> Taking | None:
        """The thing's taking by ``until`` (None: now) while still true (:func:`edge_agent.memory.takings.taking_of`):
        when it went from a fixed camera's view with a person within reach, and who."""
        return taking_of(self.db, entity_id, until)

    def takings(self, camera: str) -> list[TakingRow]:
        """Every taking kept of ``camera``'s things (:func:`edge_agent.memory.takings.takings_on`)."""
        return takings_on(self.db, camera)

    def biography(self, entity_id: int) -> Biography:
        return Biography(self.entity(entity_id), tuple(self.observations(entity_id)))

    def clip(self, clip_id: int) -> Clip:
        row = self.db.query_one("SELECT id, camera, t_start, t_end, keyframes FROM clips WHERE id = ?", (int(clip_id),))
        if row is None:
            raise NotFoundError(f"no clip {clip_id}")
        return Clip(row[0], row[1], row[2], row[3], tuple(json.loads(row[4])))

    def reference_ids(self, entity_id: int) -> list[int]:
        """The entity's current reference observations, oldest first."""
        return [
            r[0]
            for r in self.db.query(
                "SELECT observation_id FROM entity_refs WHERE entity_id = ? ORDER BY seq", (int(entity_id),)
            )
        ]

    def decisions(
        self, *, entity_id: int | None = None, observation_id: int | None = None
    ) -> list[AssociationDecision]:
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

    def clip_captions(self, camera: str | None = None) -> list[Caption]:
        """The captions of clip-scale episodes, in time order."""
        return [
            Caption(int(c), float(t), str(x))
            for c, t, x in self.db.query(
                "SELECT clip_id, t_start, text FROM episodes WHERE scale = 'clip' AND (? IS NULL OR camera = ?) ORDER "
                "BY t_start",
                (camera, camera),
            )
        ]

    def speech(self, clip_id: int) -> list[Utterance]:
        """The speech transcribed in a clip, in time order."""
        return [
            Utterance(float(a), float(b), str(t))
            for a, b, t in self.db.query(
                "SELECT t_start, t_end, text FROM clip_speech WHERE clip_id = ? ORDER BY t_start", (int(clip_id),)
            )
        ]

    def search_text(self, query: str, limit: int = 20) -> list[Observation]:
        """Observations whose description matches an FTS5 query (BM25 order)."""
        rows = self.db.query(
            f"SELECT {', '.join('o.' + c for c in _OBSERVATION_COLUMNS.split(', '))} FROM observation_fts f "
            "JOIN observations o ON o.id = f.rowid WHERE observation_fts MATCH ? ORDER BY bm25(observation_fts) LIMIT "
            "?",
            (query, int(limit)),
        )
        return [Observation(*row) for row in rows]

    def nearest_observations(
        self,
        vector: np.ndarray,
        space: str,
        k: int = 10,
        *,
        kind: str | None = None,
        camera: str | None = None,
        after: float | None = None,
        before: float | None = None,
    ) -> list[tuple[int, float]]:
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

    def graph_revision(self) -> int:
        """Moves whenever the memory graph's nodes or links change (schema triggers): a graph saved at
        this revision is current."""
        return int(self.db.value("SELECT value FROM revisions WHERE name = 'graph'"))

    def graph_rows(self, changed: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
        """The memory graph's nodes and links as arrays in id order, for retrieval: observations (id, entity, clip)
        and their start times; clips (id) with start time and camera; episodes (id, clip, parent) with start time,
        camera ("" for none) and scale; the entities possibly the same (a, b, similarity), always all of them.
        ``changed`` (from :meth:`graph_changes`): only the rows of those ids per table that still exist."""

        def read(table: str, columns: str) -> list[tuple[Any, ...]]:
            if changed is None:
                return self.db.query(f"SELECT {columns} FROM {table} ORDER BY id")
            ids = changed[table]
            if not len(ids):
                return []
            return self.db.query(
                f"SELECT {columns} FROM {table} WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id",
                (json.dumps([int(i) for i in ids]),),
            )

        obs = read("observations", "id, coalesce(entity_id, -1), clip_id, t_start")
        clips = read("clips", "id, t_start, camera")
        episodes = read(
            "episodes", "id, coalesce(clip_id, -1), coalesce(parent_id, -1), t_start, coalesce(camera, ''), scale"
        )
        related = self.db.query(
            "SELECT entity_a, entity_b, score FROM entity_relations WHERE relation = 'possibly_same' ORDER BY 1, 2"
        )
        return {
            "observations": np.array([r[:3] for r in obs], dtype=np.int64).reshape(-1, 3),
            "observation_times": np.array([r[3] for r in obs], dtype=np.float64),
            "clips": np.array([r[0] for r in clips], dtype=np.int64),
            "clip_times": np.array([r[1] for r in clips], dtype=np.float64),
            "clip_cameras": np.array([r[2] for r in clips], dtype=object),
            "episodes": np.array([r[:3] for r in episodes], dtype=np.int64).reshape(-1, 3),
            "episode_times": np.array([r[3] for r in episodes], dtype=np.float64),
            "episode_cameras": np.array([r[4] for r in episodes], dtype=object),
            "episode_scales": np.array([r[5] for r in episodes], dtype=object),
            "entity_relations": np.array(related, dtype=np.float64).reshape(-1, 3),
        }

    def graph_changes(self, since: int, until: int) -> dict[str, np.ndarray] | None:
        """The ids of the graph's rows that changed after revision ``since`` up to ``until``, per table (each
        revision records one row); None when memory no longer holds every one of them (they were let go once a
        later graph was saved, or the revisions predate the record)."""
        rows = self.db.query(
            "SELECT tbl, row_id FROM graph_changes WHERE revision > ? AND revision <= ?", (int(since), int(until))
        )
        if len(rows) != until - since:
            return None
        changes = np.array(rows, dtype=np.int64).reshape(-1, 2)
        return {
            table: np.unique(changes[changes[:, 0] == code, 1])
            for code, table in enumerate(("observations", "clips", "episodes", "entity_relations"))
        }

    def counts(self) -> dict[str, int]:
        """Rows per table (vector tables summed), for audits and benchmarks."""
        tables = [
            "clips",
            "observations",
            "observation_boxes",
            "entities",
            "entity_refs",
            "association_log",
            "entity_constraints",
            "entity_relations",
            "corrections",
            "episodes",
            "traces",
            "facts",
            "rules",
            "rule_state",
            "rule_events",
            "notifications",
            "ingest_log",
            "clip_speech",
            "observation_faces",
            "face_refs",
        ]
        out = {t: int(self.db.value(f"SELECT count(*) FROM {t}")) for t in tables}
        out["vec_obs"] = sum(int(self.db.value(f"SELECT count(*) FROM vec_obs_{i}")) for i, _ in self._spaces.values())
        out["vec_ref"] = sum(int(self.db.value(f"SELECT count(*) FROM vec_ref_{i}")) for i, _ in self._spaces.values())
        return out

    def vector_tables(self) -> list[SpaceTable]:
        """Every embedding space's id and dimensions."""
        return [SpaceTable(*space) for space in sorted(self._spaces.values())]

    def observations_by_id(self, ids: Sequence[int]) -> list[Observation]:
        if not ids:
            return []
        marks = ",".join("?" * len(ids))
        rows = self.db.query(
            f"SELECT {_OBSERVATION_COLUMNS} FROM observations WHERE id IN ({marks}) ORDER BY t_start, id", tuple(ids)
        )
        return [Observation(*row) for row in rows]

    def observation_boxes(self, camera: str | None = None) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        """Every observation's per-frame boxes (of one camera if given): id -> (frame_ms (N,) int64,
        xyxy (N, 4) float32), for scoring memory against ground truth."""
        rows = self.db.query(
            "SELECT b.observation_id, b.frame_ms, b.x1, b.y1, b.x2, b.y2 FROM observation_boxes b "
            "JOIN observations o ON o.id = b.observation_id WHERE ? IS NULL OR o.camera = ? ORDER BY "
            "b.observation_id, b.frame_ms",
            (camera, camera),
        )
        grouped: dict[int, list[tuple[Any, ...]]] = {}
        for row in rows:
            grouped.setdefault(int(row[0]), []).append(row[1:])
        return {
            i: (np.array([r[0] for r in rs], np.int64), np.array([r[1:] for r in rs], np.float32).reshape(-1, 4))
            for i, rs in grouped.items()
        }

    def items_between(
        self, t0: float, t1: float, *, before: float | None = None, limit: int = 200
    ) -> tuple[list[int], list[int]]:
        """Ids of the observations and of the clip-scale episodes that overlap [t0, t1] and start
        before ``before`` if given (at most ``limit`` of each): what memory holds of a moment a
        question names."""
        bound = float("inf") if before is None else float(before)
        since, since_params = queries.started_since_sql(self.db, "t_start", t0)
        observations = [
            r[0]
            for r in self.db.query(
                "SELECT id FROM observations WHERE t_start <= ? AND t_end >= ? AND t_start < ? "
                + (f"AND {since} " if since else "")
                + "ORDER BY t_start LIMIT ?",
                (t1, t0, bound, *since_params, limit),
            )
        ]
        # things that stayed through the moment in a trace whose sightings then were folded: its opening observation
        observations += [
            r[0]
            for r in self.db.query(
                "SELECT first_observation_id FROM traces WHERE t_start <= ? AND t_end >= ? AND t_start < ? "
                "AND first_observation_id IS NOT NULL ORDER BY t_start LIMIT ?",
                (t1, t0, bound, limit),
            )
            if r[0] not in observations
        ]
        episodes = [
            r[0]
            for r in self.db.query(
                "SELECT id FROM episodes WHERE scale = 'clip' AND t_start <= ? AND t_end >= ? AND t_start < ? ORDER "
                "BY t_start LIMIT ?",
                (t1, t0, bound, limit),
            )
        ]
        return observations, episodes

    def observations_in_clip(self, clip_id: int) -> list[Observation]:
        rows = self.db.query(
            f"SELECT {_OBSERVATION_COLUMNS} FROM observations WHERE clip_id = ? ORDER BY t_start, id", (int(clip_id),)
        )
        return [Observation(*row) for row in rows]

    def episodes_by_id(self, ids: Sequence[int]) -> list[Episode]:
        if not ids:
            return []
        marks = ",".join("?" * len(ids))
        rows = self.db.query(
            f"SELECT id, scale, camera, t_start, t_end, clip_id, text FROM episodes WHERE id IN ({marks}) ORDER BY "
            "t_start, id",
            tuple(ids),
        )
        return [Episode(*row) for row in rows]

    def appearances(
        self, entity_id: int, *, before: float | None = None, excluding: Sequence[int] = ()
    ) -> tuple[int, float | None, float | None, list[str]]:
        """(count, first start, last end, cameras) of the entity's observations before ``before``,
        leaving out ``excluding``: what a biography excerpt has not shown yet."""
        marks = ",".join("?" * len(excluding)) or "NULL"
        row = self.db.query_one(
            f"SELECT count(*), min(t_start), max(t_end), group_concat(DISTINCT camera) FROM observations "
            f"WHERE entity_id = ? AND (? IS NULL OR t_start < ?) AND id NOT IN ({marks})",
            (int(entity_id), before, before, *[int(i) for i in excluding]),
        )
        assert row is not None  # an aggregate always gives one row
        count, first, last, cameras = row
        return int(count), first, last, sorted(cameras.split(",")) if cameras else []

    def possibly_same(self, entity_ids: Sequence[int] | None = None) -> list[PossiblySame]:
        """The pairs of entities recorded as possibly the same instance (of some entities, or all)."""
        rows = self.db.query(
            "SELECT entity_a, entity_b, score FROM entity_relations WHERE relation = 'possibly_same' ORDER BY 1, 2"
        )
        wanted = None if entity_ids is None else set(entity_ids)
        return [
            PossiblySame(int(a), int(b), float(w)) for a, b, w in rows if wanted is None or a in wanted or b in wanted
        ]

    def separation_evidence(self, a: int, b: int) -> bool:
        """Whether memory holds proof that entities a and b are different instances: the user said so,
        or an association decision vetoed one for the other on shared frames."""
        if self.db.query_one(
            "SELECT 1 FROM entity_constraints WHERE entity_a = ? AND entity_b = ?", (min(a, b), max(a, b))
        ):
            return True
        for chosen, other in ((a, b), (b, a)):
            for (candidates,) in self.db.query("SELECT candidates FROM association_log WHERE entity_id = ?", (chosen,)):
                if any(c.get("entity") == other and c.get("vetoed_by") is not None for c in json.loads(candidates)):
                    return True
        return False
