"""GEB section 3.3: conservative cross-clip identity association, decided once at write time.

Observations arrive in time order. Candidate entities are the top ``candidate_entities`` by KNN over
the entities' reference embeddings (same embedding space and kind). Each entity keeps a bounded FIFO of
its most recent references (``reference_set_size``). A candidate qualifies iff the observation's cosine
similarity is >= ``tau_low`` to every reference and >= ``tau_high`` to at least one, and no reference
shows separation evidence against it: on frames both have (same camera), boxes with IoU below
``separation_iou_threshold`` in at least ``separation_min_fraction`` of at least
``separation_min_shared_frames`` shared frames prove two physical instances, whatever the embeddings
say. Nor does a candidate whose category is not compatible with the observation's (the same, or one
group of detector classes confused on one thing: edge_agent.memory.categories): a couch never absorbs a
cell phone. The qualifying candidate most like the observation wins (:func:`likeness`: the mean plus the
greatest similarity to its references); none qualifies -> a new entity, unless the observation is an object first
seen on a fixed camera where a candidate was last seen (``still_iou``) and still like it (mean >= ``tau_low``,
greatest >= ``still_tau_high``): things stay where they were put while the light on them changes.
Every decision goes to association_log with its numbers, vetoed candidates with the reason.

Unresolved identity (GEB keeps one instance under several identifiers while the evidence is unresolved): a
candidate of a compatible category that did not win but is similar to the observation on average (mean >=
``tau_low``) and has no separation evidence against it is recorded as *possibly the same* as the entity the
observation went to (``entity_relations``, with the similarity); retrieval links the two with a weaker edge and
the context says so. An observation that later matches two entities recorded as possibly the same strongly (every
reference of both at ``join_similarity`` or more), when the two were most often described alike and no decision
ever saw them apart, joins them: the newer is merged into the older, recorded in ``corrections`` with the
observations it moved (undone by ``corrections.unmerge``) and visible in the decision's log row. A pair the user
marked not the same is never related nor joined.

Faces (issue 20): a person's observation may carry face vectors (memory.faces). A match to a person's kept faces
(GEB's two thresholds in face space) makes that person a candidate that wins whatever the body appearance says,
the separation veto still applying; a face unlike every face of a candidate vetoes it (never possibly the same);
no face, or an ambiguous one, leaves the body rule to decide, a person's body compared with their references of
the same day where there are any (clothes change), and not with older ones when memory knows their face.

Things named from pictures (issue 41, memory.things): an object entity's enrolled vectors (``thing_refs``) are a
second reference set beside its FIFO. An object observation in the same space that passes GEB's two thresholds
against a thing's enrolled vectors alone makes that thing a candidate that qualifies (:func:`with_enrolled`), seen
or not yet; its category must be compatible, a thing enrolled as plain "object" being compatible with any until its
first sighting gives it that sighting's category.

Candidate search: an in-memory matrix of reference vectors kept in step with the vec_ref tables and
scanned with the native ``cosine_topk`` (default), or sqlite-vec KNN over those tables. ``edge-agent
bench memory`` measures both; the matrix is the faster (see the README).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np

from edge_agent import native
from edge_agent.config.association import DEFAULT_SPACE_THRESHOLDS, DEFAULT_THRESHOLDS, AssociationConfig, Thresholds
from edge_agent.config.faces import FacesConfig
from edge_agent.memory.categories import compatible
from edge_agent.memory.db import Database
from edge_agent.memory.faces import FaceVerdict, keep_faces, rebuild_faces, verdict
from edge_agent.memory.records import AssociationDecision, CandidateScore, ObservationRecord

__all__ = [
    "DEFAULT_SPACE_THRESHOLDS",
    "DEFAULT_THRESHOLDS",
    "AssociationConfig",
    "Associator",
    "MatrixIndex",
    "ReferenceIndex",
    "Thresholds",
    "VecTableIndex",
    "likeness",
    "with_enrolled",
]


@dataclass
class References:
    """Reference rows of some entities: parallel arrays."""

    vectors: np.ndarray  # float32 (R, D)
    owners: np.ndarray  # int64 (R,)
    observation_ids: np.ndarray  # int64 (R,)
    approximate: bool = False  #: the vectors went through float16: a close call is scored again on exact ones


class ReferenceIndex(Protocol):
    """Where association finds candidate entities. The vec_ref tables are the truth; an index may
    mirror them and is told of every change (and reloads after a rollback or another writer)."""

    def candidates(self, space_id: int, kind: str, vector: np.ndarray, m: int) -> list[int]: ...
    def references(self, space_id: int, kind: str, entity_ids: Sequence[int]) -> References: ...
    def exact_references(self, space_id: int, kind: str, entity_ids: Sequence[int]) -> References: ...
    def add(self, space_id: int, kind: str, entity_id: int, observation_id: int, vector: np.ndarray) -> None: ...
    def remove(self, space_id: int, kind: str, observation_id: int) -> None: ...
    def reload(self) -> None: ...


class _Matrix:
    """Reference vectors of one (space, kind), with swap-remove and amortised growth."""

    def __init__(self, dims: int, dtype: type[np.floating[Any]] = np.float32) -> None:
        self.vectors = np.empty((16, dims), dtype=dtype)
        self.owners = np.empty(16, dtype=np.int64)
        self.observation_ids = np.empty(16, dtype=np.int64)
        self.size = 0
        self.row_of: dict[int, int] = {}
        self.rows_of_entity: dict[int, set[int]] = {}  # entity -> observation ids

    def add(self, entity_id: int, observation_id: int, vector: np.ndarray) -> None:
        if observation_id in self.row_of:
            return
        if self.size == len(self.owners):
            grow = max(16, self.size)
            self.vectors = np.concatenate([self.vectors, np.empty((grow, self.vectors.shape[1]), self.vectors.dtype)])
            self.owners = np.concatenate([self.owners, np.empty(grow, np.int64)])
            self.observation_ids = np.concatenate([self.observation_ids, np.empty(grow, np.int64)])
        row = self.size
        self.vectors[row] = vector
        self.owners[row] = entity_id
        self.observation_ids[row] = observation_id
        self.row_of[observation_id] = row
        self.rows_of_entity.setdefault(entity_id, set()).add(observation_id)
        self.size += 1

    def remove(self, observation_id: int) -> None:
        row = self.row_of.pop(observation_id, None)
        if row is None:
            return
        owner = int(self.owners[row])
        refs = self.rows_of_entity.get(owner)
        if refs is not None:
            refs.discard(observation_id)
            if not refs:
                del self.rows_of_entity[owner]
        last = self.size - 1
        if row != last:
            self.vectors[row] = self.vectors[last]
            self.owners[row] = self.owners[last]
            self.observation_ids[row] = self.observation_ids[last]
            self.row_of[int(self.observation_ids[row])] = row
        self.size = last


class MatrixIndex:
    """In-memory reference matrices searched with the native blocked cosine top-k; float16 as configured (half
    the RAM), the vec_ref tables' float32 vectors read back for a close call (:meth:`exact_references`)."""

    def __init__(self, db: Database, reference_set_size: int, precision: str = "float32") -> None:
        self._db = db
        self._reference_set_size = reference_set_size
        self._dtype: type[np.floating[Any]] = np.float16 if precision == "float16" else np.float32
        self._matrices: dict[tuple[int, str], _Matrix] = {}
        self.reload()

    def reload(self) -> None:
        self._matrices = {}
        for space_id, dims in self._db.query("SELECT id, dims FROM embedding_spaces"):
            if not _table_exists(self._db, f"vec_ref_{space_id}"):
                continue
            for observation_id, kind, entity_id, blob in self._db.query(
                f"SELECT observation_id, kind, entity_id, embedding FROM vec_ref_{int(space_id)}"
            ):
                self._matrix(space_id, kind, dims).add(entity_id, observation_id, np.frombuffer(blob, dtype=np.float32))

    def _matrix(self, space_id: int, kind: str, dims: int) -> _Matrix:
        key = (space_id, kind)
        if key not in self._matrices:
            self._matrices[key] = _Matrix(dims, self._dtype)
        return self._matrices[key]

    def candidates(self, space_id: int, kind: str, vector: np.ndarray, m: int) -> list[int]:
        matrix = self._matrices.get((space_id, kind))
        if matrix is None or matrix.size == 0:
            return []
        k = min(matrix.size, m * self._reference_set_size)
        rows, _ = native.cosine_topk(vector, matrix.vectors[: matrix.size], k)  # large scans use every core
        return _first_distinct(matrix.owners[rows[0]].tolist(), m)

    def references(self, space_id: int, kind: str, entity_ids: Sequence[int]) -> References:
        matrix = self._matrices.get((space_id, kind))
        rows = (
            []
            if matrix is None
            else [matrix.row_of[o] for e in entity_ids for o in sorted(matrix.rows_of_entity.get(e, ()))]
        )
        if matrix is None or not rows:
            return References(np.empty((0, 1), np.float32), np.empty(0, np.int64), np.empty(0, np.int64))
        index = np.asarray(rows, dtype=np.int64)
        return References(
            matrix.vectors[index].astype(np.float32),
            matrix.owners[index],
            matrix.observation_ids[index],
            approximate=self._dtype != np.float32,
        )

    def exact_references(self, space_id: int, kind: str, entity_ids: Sequence[int]) -> References:
        """The same references with memory's float32 vectors (by primary key from the vec_ref table)."""
        refs = self.references(space_id, kind, entity_ids)
        if not refs.approximate or not refs.owners.size:
            return refs
        ids = refs.observation_ids.tolist()
        rows = dict(
            self._db.rows_by_key(f"vec_ref_{int(space_id)}", "observation_id", ids, "observation_id, embedding")
        )
        vectors = np.stack([np.frombuffer(rows[i], dtype=np.float32) for i in ids])
        return References(vectors, refs.owners, refs.observation_ids)

    def add(self, space_id: int, kind: str, entity_id: int, observation_id: int, vector: np.ndarray) -> None:
        self._matrix(space_id, kind, vector.shape[0]).add(entity_id, observation_id, vector)

    def remove(self, space_id: int, kind: str, observation_id: int) -> None:
        matrix = self._matrices.get((space_id, kind))
        if matrix is not None:
            matrix.remove(observation_id)


class VecTableIndex:
    """sqlite-vec KNN over the vec_ref tables themselves (partitioned by kind)."""

    def __init__(self, db: Database, reference_set_size: int) -> None:
        self._db = db
        self._reference_set_size = reference_set_size

    def reload(self) -> None:
        pass

    def candidates(self, space_id: int, kind: str, vector: np.ndarray, m: int) -> list[int]:
        rows = self._db.query(
            f"SELECT entity_id FROM vec_ref_{int(space_id)} WHERE embedding MATCH ? AND k = ? AND kind = ? "
            "ORDER BY distance",
            (np.ascontiguousarray(vector, np.float32).tobytes(), m * self._reference_set_size, kind),
        )
        return _first_distinct([r[0] for r in rows], m)

    def references(self, space_id: int, kind: str, entity_ids: Sequence[int]) -> References:
        if not entity_ids:
            return References(np.empty((0, 1), np.float32), np.empty(0, np.int64), np.empty(0, np.int64))
        marks = ",".join("?" * len(entity_ids))
        ids = [
            r[0]
            for r in self._db.query(
                f"SELECT observation_id FROM entity_refs WHERE entity_id IN ({marks})", tuple(entity_ids)
            )
        ]
        if not ids:
            return References(np.empty((0, 1), np.float32), np.empty(0, np.int64), np.empty(0, np.int64))
        rows = sorted(  # by primary key: a vec0 metadata filter without MATCH would scan the table
            self._db.rows_by_key(
                f"vec_ref_{int(space_id)}", "observation_id", ids, "observation_id, entity_id, embedding"
            ),
            key=lambda r: (r[1], r[0]),
        )
        if not rows:
            return References(np.empty((0, 1), np.float32), np.empty(0, np.int64), np.empty(0, np.int64))
        return References(
            np.stack([np.frombuffer(r[2], dtype=np.float32) for r in rows]),
            np.array([r[1] for r in rows], dtype=np.int64),
            np.array([r[0] for r in rows], dtype=np.int64),
        )

    def exact_references(self, space_id: int, kind: str, entity_ids: Sequence[int]) -> References:
        return self.references(space_id, kind, entity_ids)

    def add(self, space_id: int, kind: str, entity_id: int, observation_id: int, vector: np.ndarray) -> None:
        pass

    def remove(self, space_id: int, kind: str, observation_id: int) -> None:
        pass


class _Similarities(Protocol):
    @property
    def mean_sim(self) -> Any: ...
    @property
    def max_sim(self) -> Any: ...


def likeness(candidate: _Similarities) -> Any:
    """How like an observation a candidate entity is, to choose among those that qualify: the mean similarity to
    its references plus the greatest. The mean alone let a look-alike whose references are all fairly like the
    observation beat the thing itself, whose references span several lights (one near-identical, one far): on
    the kitchen-harder world's recordings the two black phones swapped biographies (false merges 3.0%, 0.3% with
    the sum; kitchen-lookalikes 0.26% -> 0.18%, B-cubed 0.945 -> 0.965)."""
    return np.asarray(candidate.mean_sim) + np.asarray(candidate.max_sim)


def _first_distinct(owners: Sequence[int], m: int) -> list[int]:
    seen: list[int] = []
    for owner in owners:
        if owner not in seen:
            seen.append(int(owner))
            if len(seen) == m:
                break
    return seen


def _table_exists(db: Database, name: str) -> bool:
    return db.query_one("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)) is not None


class Associator:
    """Decides the entity of each new observation and maintains the entities' reference sets."""

    def __init__(self, db: Database, config: AssociationConfig, faces: FacesConfig | None = None) -> None:
        self.db = db
        self.config = config
        self.faces = faces  #: None: face processing is off (faces neither kept nor asked)
        size = config.reference_set_size
        self.index: ReferenceIndex = (
            MatrixIndex(db, size, config.matrix_precision) if config.index == "matrix" else VecTableIndex(db, size)
        )
        self._space_names: dict[int, str] = {}

    def _space_name(self, space_id: int) -> str:
        """The embedding space's name (its thresholds are looked up by it)."""
        if space_id not in self._space_names:
            row = self.db.query_one("SELECT name FROM embedding_spaces WHERE id = ?", (int(space_id),))
            self._space_names[space_id] = str(row[0]) if row else ""
        return self._space_names[space_id]

    def associate(
        self, observation_id: int, record: ObservationRecord, camera: str, space_id: int, *, moving: bool = False
    ) -> AssociationDecision:
        """GEB's rule for one observation already written (without entity); writes its entity,
        the reference FIFO update and the log row. Call inside the ingest transaction. ``moving``: the camera's
        view moved (where things are in its frames says nothing of where they are)."""
        cfg = self.config
        thresholds = cfg.thresholds_for(record.kind, record.embedding_space)
        scores: list[CandidateScore] = []
        faces = self._face_verdict(record)
        candidates, incompatible = self._candidates(space_id, record.kind, record.category, record.embedding)
        if faces.match is not None and faces.match not in candidates:
            candidates.append(faces.match)  # the person the faces say it is, whatever the clothes
        enrolled = self._enrolled_things(record, thresholds)
        candidates.extend(e for e in sorted(enrolled) if e not in candidates and e not in incompatible)
        refs = References(
            np.empty((0, record.embedding.size), np.float32), np.empty(0, np.int64), np.empty(0, np.int64)
        )
        if candidates or incompatible:
            refs = self._same_day(record, self.index.references(space_id, record.kind, [*candidates, *incompatible]))
            rows: list[tuple[int, bool, float, float, float]] = []
            if refs.owners.size:
                test = native.association_test(
                    record.embedding, refs.vectors, refs.owners, thresholds.tau_low, thresholds.tau_high
                )
                if refs.approximate and self._close_call(
                    test, thresholds, cfg.refine_margin
                ):  # a close call on float16 vectors (a threshold, or which of two is liker): on memory's float32 ones
                    refs = self._same_day(
                        record, self.index.exact_references(space_id, record.kind, [*candidates, *incompatible])
                    )
                    test = native.association_test(
                        record.embedding, refs.vectors, refs.owners, thresholds.tau_low, thresholds.tau_high
                    )
                rows = list(
                    zip(
                        test.owner.tolist(),
                        test.qualifies.tolist(),
                        test.min_sim.tolist(),
                        test.max_sim.tolist(),
                        test.mean_sim.tolist(),
                    )
                )
            if faces.match is not None and all(row[0] != faces.match for row in rows):
                rows.append((faces.match, False, 0.0, 0.0, 0.0))  # a person known by face alone (enrolled)
            rows = with_enrolled(rows, {e: r for e, r in enrolled.items() if e not in incompatible})
            for owner, qualifies, lo, hi, mean in rows:
                said = faces.of(int(owner))
                # Like the separation veto, the category veto is recorded only where it decides: on a
                # candidate the similarities (or the faces) alone would have let in.
                veto = None
                admitted = bool(qualifies) or said == "same"
                category = incompatible.get(int(owner)) if admitted else None
                if admitted and cfg.use_separation and category is None and said != "different":
                    veto = self._separation_veto(record, camera, refs.observation_ids[refs.owners == owner].tolist())
                scores.append(
                    CandidateScore(
                        int(owner),
                        lo,
                        hi,
                        mean,
                        bool(qualifies),
                        None if veto is None else veto[0],
                        None if veto is None else veto[1],
                        category,
                        faces.similarity.get(int(owner)),
                        said,
                    )
                )
        qualified = [
            s
            for s in scores
            if (s.qualifies or s.face_verdict == "same")
            and s.vetoed_by is None
            and s.incompatible_category is None
            and s.face_verdict != "different"
        ]
        if not qualified and record.kind == "object" and cfg.still_iou > 0 and not moving:
            spot = self._in_place(
                record, camera, [s for s in scores if s.entity_id not in incompatible], thresholds, refs
            )
            if spot is not None:
                scores = [spot if s.entity_id == spot.entity_id else s for s in scores]
                qualified = [spot]
        now = time.time()
        joined: set[int] = set()  # entities merged into another by this observation
        if qualified:  # a face match decides; else the body appearance most like it
            winner = max(qualified, key=lambda s: (s.face_verdict == "same", likeness(s), -s.entity_id))
            entity_id, created = winner.entity_id, False
            bar = max(self.config.join_similarity, thresholds.tau_high)
            if self.config.possibly_same and winner.min_sim >= bar:
                # this observation resolves what was unresolved: every reference of both is strongly like it
                strong = {s.entity_id for s in qualified if s.min_sim >= bar}
                for other in sorted(strong - {entity_id}):
                    if (
                        self._possibly_same(entity_id, other)
                        and self._described_alike(entity_id, other)
                        and not self._ever_apart(entity_id, other)
                    ):
                        keep, absorb = min(entity_id, other), max(entity_id, other)
                        moved = self.merge_entities(keep, absorb)
                        self._audit_join(keep, absorb, moved, observation_id, now)
                        joined.add(absorb)
                        entity_id = keep
            if (winner.face_verdict == "same" or winner.entity_id in enrolled) and not self.db.value(
                "SELECT count(*) FROM observations WHERE entity_id = ? AND id != ?", (entity_id, observation_id)
            ):  # a person or thing enrolled from pictures, seen for the first time
                self.db.execute(
                    "UPDATE entities SET first_seen = ?, last_seen = ? WHERE id = ?",
                    (record.t_start, record.t_end, entity_id),
                )
                if winner.entity_id in enrolled:  # a thing enrolled as plain "object" is what it was first seen as
                    self.db.execute(
                        "UPDATE entities SET category = ? WHERE id = ? AND category = 'object'",
                        (record.category, entity_id),
                    )
            self.extend_entity(entity_id, last_seen=record.t_end, first_seen=record.t_start)
        else:
            entity_id = self.new_entity(record, now)
            created = True
        self.assign_entity(observation_id, entity_id)
        self.add_reference(entity_id, observation_id, record.kind, space_id, record.embedding)
        if record.faces is not None and self.faces is not None:
            keep_faces(self.db, self.faces, entity_id, record.face_space, record.faces, observation_id=observation_id)
        if self.config.possibly_same and scores:
            others = [s for s in scores if s.entity_id not in joined]
            self._relate(record, camera, observation_id, entity_id, others, thresholds, refs, incompatible, now)
        scores.sort(key=lambda s: -likeness(s))
        self.db.execute(
            "INSERT INTO association_log (observation_id, entity_id, created_entity, candidates, tau_low, tau_high, "
            "decided_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                observation_id,
                entity_id,
                int(created),
                json.dumps([_score_json(s) for s in scores]),
                thresholds.tau_low,
                thresholds.tau_high,
                now,
            ),
        )
        return AssociationDecision(
            observation_id, entity_id, created, tuple(scores), thresholds.tau_low, thresholds.tau_high
        )

    def _in_place(
        self,
        record: ObservationRecord,
        camera: str,
        scores: Sequence[CandidateScore],
        thresholds: Thresholds,
        refs: References,
    ) -> CandidateScore | None:
        """Where GEB's rule let none of the candidates of a compatible category (``scores``) in: the one an object
        is, when it was first seen where that candidate was last seen (``still_iou``), is still like it and was never
        seen apart from it; else None. Things stay where they were put while the light on them changes: a grey thing
        under a warm lamp is another colour, and its biography split at every change of light."""
        cfg = self.config
        first = np.asarray(record.boxes[:1], np.float32)
        found = []
        for s in scores:
            if s.mean_sim < thresholds.tau_low or s.max_sim < cfg.still_tau_high or not len(first):
                continue
            latest = self.db.query_one(
                "SELECT id, camera FROM observations WHERE entity_id = ? ORDER BY t_start DESC LIMIT 1", (s.entity_id,)
            )
            if latest is None or latest[1] != camera:
                continue
            _, boxes = self.boxes(int(latest[0]))
            overlap = float(native.iou_matrix(first, boxes[-1:])[0, 0]) if len(boxes) else 0.0
            if overlap < cfg.still_iou:
                continue
            veto = (
                self._separation_veto(record, camera, refs.observation_ids[refs.owners == s.entity_id].tolist())
                if cfg.use_separation
                else None
            )
            if veto is None:
                found.append(replace(s, in_place=overlap))
        return max(found, key=lambda s: (likeness(s), -s.entity_id)) if found else None

    def _enrolled_things(
        self, record: ObservationRecord, thresholds: Thresholds
    ) -> dict[int, tuple[bool, float, float, float]]:
        """Things enrolled from pictures in the record's space and of a compatible category (plain "object": any)
        that the record passes GEB's two thresholds against: entity -> (qualifies, min, max, mean) over their
        enrolled vectors alone."""
        if record.kind != "object":
            return {}
        found = self.db.query(
            "SELECT t.entity_id, e.category, t.embedding FROM thing_refs t JOIN entities e ON e.id = t.entity_id "
            "WHERE t.space = ? ORDER BY t.entity_id, t.id",
            (record.embedding_space,),
        )
        rows = [
            (int(e), np.frombuffer(blob, dtype=np.float32))
            for e, category, blob in found
            if str(category).lower() == "object" or compatible(str(category), record.category)
        ]
        rows = [(e, v) for e, v in rows if v.size == record.embedding.size]
        if not rows:
            return {}
        test = native.association_test(
            record.embedding,
            np.stack([v for _, v in rows]),
            np.array([e for e, _ in rows], np.int64),
            thresholds.tau_low,
            thresholds.tau_high,
        )
        return {
            int(o): (True, float(lo), float(hi), float(mean))
            for o, q, lo, hi, mean in zip(
                test.owner.tolist(),
                test.qualifies.tolist(),
                test.min_sim.tolist(),
                test.max_sim.tolist(),
                test.mean_sim.tolist(),
            )
            if q
        }

    def _face_verdict(self, record: ObservationRecord) -> FaceVerdict:
        """What the observation's faces say (nothing without faces, or with face processing off)."""
        if record.faces is None or self.faces is None:
            return FaceVerdict()
        return verdict(self.db, self.faces, record.face_space, record.faces)

    def _same_day(self, record: ObservationRecord, refs: References) -> References:
        """A person's body appearance counts within a day (clothes change; faces carry who it is across days): of
        each candidate person, the references seen within ``[faces] body_within_s`` before the observation. A person
        with none that recent is compared on all of them, as without faces, unless memory knows their face: then
        their body is no evidence today."""
        window = self.faces.body_within_s if self.faces is not None else 0.0
        if record.kind != "person" or window <= 0 or refs.owners.size == 0:
            return refs
        ids = refs.observation_ids.tolist()
        seen = dict(
            self.db.query(f"SELECT id, t_end FROM observations WHERE id IN ({','.join('?' * len(ids))})", tuple(ids))
        )
        recent = np.array([seen.get(o, -np.inf) >= record.t_start - window for o in ids])
        owners = sorted(set(refs.owners.tolist()))
        known = {
            int(r[0])
            for r in self.db.query(
                f"SELECT DISTINCT entity_id FROM face_refs WHERE entity_id IN ({','.join('?' * len(owners))})",
                tuple(owners),
            )
        }
        keep = np.ones(len(ids), dtype=bool)
        for owner in owners:
            mine = refs.owners == owner
            if recent[mine].any() or owner in known:
                keep[mine] = recent[mine]
        if keep.all():
            return refs
        return References(refs.vectors[keep], refs.owners[keep], refs.observation_ids[keep], refs.approximate)

    @staticmethod
    def _close_call(test: Any, thresholds: Thresholds, margin: float) -> bool:
        """Whether a decision on float16 vectors was within ``margin`` of going the other way: a candidate's least
        or greatest similarity near tau_low / tau_high, or the two likest candidates near each other."""
        if np.any(np.abs(test.min_sim - thresholds.tau_low) < margin) or np.any(
            np.abs(test.max_sim - thresholds.tau_high) < margin
        ):
            return True
        scores = np.sort(likeness(test))[::-1]
        return bool(len(scores) > 1 and scores[0] - scores[1] < margin)

    def _possibly_same(self, a: int, b: int) -> bool:
        return (
            self.db.query_one(
                "SELECT 1 FROM entity_relations WHERE entity_a = ? AND entity_b = ? AND relation = 'possibly_same'",
                (min(a, b), max(a, b)),
            )
            is not None
        )

    def _described_alike(self, a: int, b: int) -> bool:
        """Whether the two entities were most often described with the same colour and pattern: look-alikes a
        describer tells apart (a striped and a plain red mug) are not joined on similarity alone."""
        said = [
            self.db.query_one(
                "SELECT colour, pattern FROM observations WHERE entity_id = ? GROUP BY colour, pattern "
                "ORDER BY count(*) DESC, colour, pattern LIMIT 1",
                (entity,),
            )
            for entity in (a, b)
        ]
        return said[0] == said[1]

    def _ever_apart(self, a: int, b: int) -> bool:
        """Whether a decision ever vetoed one of the two for an observation of the other (seen apart)."""
        for chosen, other in ((a, b), (b, a)):
            for (candidates,) in self.db.query(
                "SELECT candidates FROM association_log WHERE entity_id = ? AND candidates GLOB ?",
                (chosen, '*"vetoed_by": [0-9]*'),
            ):
                if any(c.get("entity") == other and c.get("vetoed_by") is not None for c in json.loads(candidates)):
                    return True
        return False

    def _relate(
        self,
        record: ObservationRecord,
        camera: str,
        observation_id: int,
        entity_id: int,
        scores: Sequence[CandidateScore],
        thresholds: Thresholds,
        refs: References,
        incompatible: Mapping[int, str],
        now: float,
    ) -> None:
        """Records 'possibly the same' between the observation's entity and each candidate that did not win
        but is similar on average, of a compatible category, with no separation evidence and no 'not the same'.
        A candidate of another category is never related, whether or not it would have qualified (its score
        names the category only where that decided)."""
        for s in scores:
            if (
                s.entity_id == entity_id
                or s.entity_id in incompatible
                or s.vetoed_by is not None
                or s.face_verdict == "different"
            ):
                continue
            if s.mean_sim < thresholds.tau_low:
                continue
            if (
                not self.config.use_separation
                or self._separation_veto(record, camera, refs.observation_ids[refs.owners == s.entity_id].tolist())
                is not None
            ):
                continue
            a, b = min(entity_id, s.entity_id), max(entity_id, s.entity_id)
            if self.db.query_one("SELECT 1 FROM entity_constraints WHERE entity_a = ? AND entity_b = ?", (a, b)):
                continue
            self.db.execute(
                "INSERT INTO entity_relations (entity_a, entity_b, relation, score, observation_id, updated_at) "
                "VALUES (?, ?, 'possibly_same', ?, ?, ?) ON CONFLICT (entity_a, entity_b, relation) DO UPDATE SET "
                "score = max(score, excluded.score), observation_id = CASE WHEN excluded.score > score "
                "THEN excluded.observation_id ELSE observation_id END, updated_at = excluded.updated_at",
                (a, b, float(s.mean_sim), observation_id, now),
            )

    def _audit_join(self, keep: int, absorb: int, moved: Sequence[int], observation_id: int, now: float) -> None:
        self.db.execute(
            "INSERT INTO corrections (action, details, at) VALUES ('join', ?, ?)",
            (
                json.dumps(
                    {
                        "keep": keep,
                        "absorb": absorb,
                        "observations_moved": len(moved),
                        "observations": list(moved),
                        "by_observation": observation_id,
                        "caller": "association",
                    }
                ),
                now,
            ),
        )

    def merge_entities(self, keep: int, absorb: int) -> list[int]:
        """Moves everything of ``absorb`` into ``keep`` and deletes ``absorb``; returns the observations moved.
        Inside the caller's transaction (a correction, or association joining two possibly-same entities)."""
        moved = [int(r[0]) for r in self.db.query("SELECT id FROM observations WHERE entity_id = ?", (absorb,))]
        for table in ("observations", "facts", "traces", "rule_events"):
            self.db.execute(f"UPDATE {table} SET entity_id = ? WHERE entity_id = ?", (keep, absorb))
        for table, relation in (("entity_constraints", "not_same"), ("entity_relations", "possibly_same")):
            extra = ", score, observation_id, updated_at" if table == "entity_relations" else ", created_at"
            for row in self.db.query(
                f"SELECT entity_a, entity_b{extra} FROM {table} WHERE entity_a = ?1 OR entity_b = ?1", (absorb,)
            ):
                other = row[1] if row[0] == absorb else row[0]
                if other != keep:
                    self.db.execute(
                        f"INSERT OR IGNORE INTO {table} (entity_a, entity_b, relation{extra}) "
                        f"VALUES (?, ?, '{relation}'{', ?' * (len(row) - 2)})",
                        (min(keep, other), max(keep, other), *row[2:]),
                    )
        self.db.execute("UPDATE face_refs SET entity_id = ? WHERE entity_id = ? AND enrolled = 1", (keep, absorb))
        self.db.execute("UPDATE thing_refs SET entity_id = ? WHERE entity_id = ?", (keep, absorb))
        name = self.db.value("SELECT name FROM entities WHERE id = ?", (absorb,))
        if name is not None:
            self.db.execute("UPDATE entities SET name = coalesce(name, ?) WHERE id = ?", (name, keep))
        self.clear_references(absorb)
        self.db.execute("DELETE FROM entities WHERE id = ?", (absorb,))
        self.rebuild_references(keep)
        self.db.execute(
            "UPDATE entities SET first_seen = (SELECT min(t_start) FROM observations WHERE entity_id = ?1), "
            "last_seen = (SELECT max(t_end) FROM observations WHERE entity_id = ?1) WHERE id = ?1",
            (keep,),
        )
        return moved

    # The entity rows an association writes, named so that another association (an ablation, a baseline)
    # writes them the same way.

    def new_entity(self, record: ObservationRecord, now: float) -> int:
        """A new entity of the record's kind and category, seen over the record's span; returns its id."""
        return self.db.insert(
            "INSERT INTO entities (kind, category, first_seen, last_seen, created_at) VALUES (?, ?, ?, ?, ?)",
            (record.kind, record.category, record.t_start, record.t_end, now),
        )

    def extend_entity(self, entity_id: int, *, last_seen: float, first_seen: float | None = None) -> None:
        """Widens when the entity was seen: to ``last_seen`` (and back to ``first_seen`` when given)."""
        if first_seen is None:
            self.db.execute("UPDATE entities SET last_seen = max(last_seen, ?) WHERE id = ?", (last_seen, entity_id))
        else:
            self.db.execute(
                "UPDATE entities SET first_seen = min(first_seen, ?), last_seen = max(last_seen, ?) WHERE id = ?",
                (first_seen, last_seen, entity_id),
            )

    def assign_entity(self, observation_id: int, entity_id: int) -> None:
        """The observation belongs to the entity."""
        self.db.execute("UPDATE observations SET entity_id = ? WHERE id = ?", (entity_id, observation_id))

    def propose(self, kind: str, space_id: int, embedding: np.ndarray, category: str | None = None) -> int | None:
        """The entity an embedding would most likely join (the two-threshold test only, and the category
        test when ``category`` is given; nothing written): the context that ReflectWorld-MM's
        context-enhanced perception gives the describer before the decision is made at ingest."""
        thresholds = self.config.thresholds_for(kind, self._space_name(space_id))
        candidates = (
            self.index.candidates(space_id, kind, embedding, self.config.candidate_entities)
            if category is None
            else self._candidates(space_id, kind, category, embedding)[0]
        )
        if not candidates:
            return None
        refs = self.index.references(space_id, kind, candidates)
        test = native.association_test(embedding, refs.vectors, refs.owners, thresholds.tau_low, thresholds.tau_high)
        qualified = [
            (float(m), int(o)) for o, q, m in zip(test.owner.tolist(), test.qualifies.tolist(), likeness(test)) if q
        ]
        return max(qualified)[1] if qualified else None

    def _candidates(
        self, space_id: int, kind: str, category: str, embedding: np.ndarray
    ) -> tuple[list[int], dict[int, str]]:
        """The candidate entities, nearest first: the first ``candidate_entities`` of a category compatible
        with ``category``, and (entity -> its category) of the incompatible ones ranked among them, which are
        scored and logged (with their category where they would have qualified) but never chosen. Twice as
        many are searched so that nearby entities of other categories do not crowd out the compatible ones;
        when all are compatible the candidates are the same as without the category test."""
        m = self.config.candidate_entities
        found = self.index.candidates(space_id, kind, embedding, 2 * m)
        if not found:
            return [], {}
        marks = ",".join("?" * len(found))
        category_of = dict(self.db.query(f"SELECT id, category FROM entities WHERE id IN ({marks})", tuple(found)))
        kept: list[int] = []
        incompatible: dict[int, str] = {}
        for entity_id in found:
            theirs = str(category_of.get(entity_id, category))
            if compatible(theirs, category):
                kept.append(entity_id)
                if len(kept) == m:
                    break
            else:
                incompatible[entity_id] = theirs
        return kept, incompatible

    def _separation_veto(
        self, record: ObservationRecord, camera: str, reference_ids: Sequence[int]
    ) -> tuple[int, float] | None:
        if not reference_ids:
            return None
        marks = ",".join("?" * len(reference_ids))
        overlapping = [
            row[0]
            for row in self.db.query(
                f"SELECT id FROM observations WHERE id IN ({marks}) AND camera = ? AND t_start <= ? AND t_end >= ? "
                "ORDER BY id",
                (*reference_ids, camera, record.t_end, record.t_start),
            )
        ]
        frames = record.frame_ms
        for ref_id in overlapping:
            ref_frames, ref_boxes = self.boxes(ref_id)
            result = native.separation(
                frames,
                record.boxes,
                ref_frames,
                ref_boxes,
                self.config.separation_iou_threshold,
                self.config.separation_min_shared_frames,
                self.config.separation_min_fraction,
            )
            if result.separated:
                return ref_id, result.fraction
        return None

    def boxes(self, observation_id: int) -> tuple[np.ndarray, np.ndarray]:
        rows = self.db.query(
            "SELECT frame_ms, x1, y1, x2, y2 FROM observation_boxes WHERE observation_id = ? ORDER BY frame_ms",
            (observation_id,),
        )
        frames = np.array([r[0] for r in rows], dtype=np.int64)
        boxes = np.array([r[1:] for r in rows], dtype=np.float32).reshape(-1, 4)
        return frames, boxes

    def add_reference(self, entity_id: int, observation_id: int, kind: str, space_id: int, vector: np.ndarray) -> None:
        """Appends to the entity's FIFO and evicts the oldest beyond ``reference_set_size``."""
        seq = self.db.value("SELECT coalesce(max(seq), 0) + 1 FROM entity_refs WHERE entity_id = ?", (entity_id,))
        self.db.execute(
            "INSERT INTO entity_refs (entity_id, observation_id, seq) VALUES (?, ?, ?)",
            (entity_id, observation_id, seq),
        )
        self.db.execute(
            f"INSERT INTO vec_ref_{int(space_id)} (observation_id, embedding, kind, entity_id) VALUES (?, ?, ?, ?)",
            (observation_id, np.ascontiguousarray(vector, np.float32).tobytes(), kind, entity_id),
        )
        self.index.add(space_id, kind, entity_id, observation_id, vector)
        evicted = self.db.query(
            "SELECT r.observation_id, o.space_id FROM entity_refs r JOIN observations o ON o.id = r.observation_id "
            "WHERE r.entity_id = ? ORDER BY r.seq DESC LIMIT -1 OFFSET ?",
            (entity_id, self.config.reference_set_size),
        )
        for old_id, old_space in evicted:
            self.remove_reference(old_id, old_space, kind)

    def remove_reference(self, observation_id: int, space_id: int, kind: str) -> None:
        self.db.execute("DELETE FROM entity_refs WHERE observation_id = ?", (observation_id,))
        self.db.execute(f"DELETE FROM vec_ref_{int(space_id)} WHERE observation_id = ?", (observation_id,))
        self.index.remove(space_id, kind, observation_id)

    def clear_references(self, entity_id: int) -> None:
        """Removes every reference of the entity (rows, vectors and the index mirror)."""
        for observation_id, space_id, kind in self.db.query(
            "SELECT r.observation_id, o.space_id, o.kind FROM entity_refs r JOIN observations o ON o.id = "
            "r.observation_id "
            "WHERE r.entity_id = ?",
            (entity_id,),
        ):
            self.remove_reference(observation_id, space_id, kind)

    def rebuild_references(self, entity_id: int) -> None:
        """After a merge or split: the entity's references become its most recent observations (and its faces
        theirs, beside those the user enrolled)."""
        if self.faces is not None:
            rebuild_faces(self.db, self.faces, entity_id)
        self.clear_references(entity_id)
        recent = self.db.query(
            "SELECT id, space_id, kind FROM observations WHERE entity_id = ? ORDER BY t_start DESC, id DESC LIMIT ?",
            (entity_id, self.config.reference_set_size),
        )
        for observation_id, space_id, kind in reversed(recent):
            blob = self.db.query_one(
                f"SELECT embedding FROM vec_obs_{int(space_id)} WHERE observation_id = ?", (observation_id,)
            )
            if blob is not None:
                self.add_reference(
                    entity_id, observation_id, kind, space_id, np.frombuffer(blob[0], dtype=np.float32).copy()
                )


def with_enrolled(
    rows: Sequence[tuple[int, bool, float, float, float]], enrolled: Mapping[int, tuple[bool, float, float, float]]
) -> list[tuple[int, bool, float, float, float]]:
    """Candidate rows (entity, qualifies, min, max, mean) with enrolled things' tests: a thing whose observed
    references do not qualify (or that has none) but whose enrolled vectors do is scored by its enrolled ones."""
    out = [(o, q, lo, hi, m) if q or o not in enrolled else (o, *enrolled[o]) for o, q, lo, hi, m in rows]
    seen = {row[0] for row in out}
    out.extend((e, *enrolled[e]) for e in sorted(enrolled) if e not in seen)
    return out


def _score_json(s: CandidateScore) -> dict[str, object]:
    out: dict[str, object] = {
        "entity": s.entity_id,
        "min": s.min_sim,
        "max": s.max_sim,
        "mean": s.mean_sim,
        "qualifies": s.qualifies,
        "vetoed_by": s.vetoed_by,
        "separation_fraction": s.separation_fraction,
    }
    if s.incompatible_category is not None:  # only when vetoed: other rows stay as they were written before
        out["incompatible_category"] = s.incompatible_category
    if s.face is not None:  # only where faces were compared
        out["face"] = s.face
        out["face_verdict"] = s.face_verdict
    if s.in_place is not None:  # only where it let the candidate in
        out["in_place"] = s.in_place
    return out


def score_from_json(d: Mapping[str, Any]) -> CandidateScore:
    return CandidateScore(
        int(d["entity"]),
        float(d["min"]),
        float(d["max"]),
        float(d["mean"]),
        bool(d["qualifies"]),
        None if d.get("vetoed_by") is None else int(d["vetoed_by"]),
        None if d.get("separation_fraction") is None else float(d["separation_fraction"]),
        None if d.get("incompatible_category") is None else str(d["incompatible_category"]),
        None if d.get("face") is None else float(d["face"]),
        None if d.get("face_verdict") is None else str(d["face_verdict"]),
        None if d.get("in_place") is None else float(d["in_place"]),
    )
