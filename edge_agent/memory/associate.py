"""GEB section 3.3: conservative cross-clip identity association, decided once at write time.

Observations arrive in time order. Candidate entities are the top ``candidate_entities`` by KNN over
the entities' reference embeddings (same embedding space and kind). Each entity keeps a bounded FIFO of
its most recent references (``reference_set_size``; an object seen moving, in someone's hands, is none:
:func:`handled`). A candidate qualifies iff the observation's cosine
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
Every decision goes to association_log with its numbers, vetoed candidates with the reason. The rule is a pure
function of values (:func:`edge_agent.memory.decide.decide`); :meth:`Associator.evidence` reads what it needs and
:meth:`Associator.apply` writes what it decided.

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
from typing import Any, Protocol

import numpy as np

from edge_agent import native
from edge_agent.config.association import DEFAULT_SPACE_THRESHOLDS, DEFAULT_THRESHOLDS, AssociationConfig, Thresholds
from edge_agent.config.faces import FacesConfig
from edge_agent.memory.categories import compatible
from edge_agent.memory.db import Database, HasDatabase, database_of
from edge_agent.memory.decide import Decision, Evidence, LastSeen, References, decide, likeness, with_enrolled
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
    "rivals_first",
    "strength",
    "with_enrolled",
]


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


def _in_view_together(records: Sequence[ObservationRecord]) -> list[int]:
    """The records (indexes) whose span overlaps another's of the same kind: the only ones that may be rivals."""
    return [
        i
        for i, r in enumerate(records)
        if any(
            j != i and o.kind == r.kind and o.t_start <= r.t_end and r.t_start <= o.t_end for j, o in enumerate(records)
        )
    ]


def rivals_first(records: Sequence[ObservationRecord], first: Sequence[Decision | None]) -> list[int]:
    """The order to decide a clip's records in (indexes): time order, but among rivals (records whose first decision
    joins the same entity and whose spans overlap, directly or through one another) the clearly likest
    (:func:`strength`, by :data:`RIVAL_MARGIN` or more) takes the first of their places. A record without a first
    decision (None: in view with no other of its kind) is no rival."""
    order = list(range(len(records)))
    by_entity: dict[int, list[int]] = {}
    for i, d in enumerate(first):
        if d is not None and d.entity_id is not None:
            by_entity.setdefault(d.entity_id, []).append(i)
    for members in by_entity.values():
        members.sort(key=lambda i: records[i].t_start)
        groups: list[list[int]] = []
        end = -np.inf
        for i in members:
            if groups and records[i].t_start <= end:
                groups[-1].append(i)
            else:
                groups.append([i])
            end = max(end, records[i].t_end) if len(groups[-1]) > 1 else records[i].t_end
        for group in (g for g in groups if len(g) > 1):
            score = {k: strength(d) for k in group if (d := first[k]) is not None}
            ranked = sorted(group, key=lambda k: -score[k])
            if score[ranked[0]] - score[ranked[1]] < RIVAL_MARGIN:
                continue  # no evidence which: the first in view goes first
            places = sorted(group)
            for place, rival in zip(places, [ranked[0], *(k for k in places if k != ranked[0])]):
                order[place] = rival
    return order


#: How much likelier (:func:`likeness`, the sum of two similarities) than every other rival one must be to go first:
#: one thing's likeness to its own references moves by about this from one sighting to the next (two identical phones
#: side by side: 1.9915 and 1.9911), so a smaller lead is no evidence.
RIVAL_MARGIN = 0.005


def strength(decision: Decision) -> float:
    """How surely an observation joins an entity, to order a clip's decisions: a face match first, then the winner's
    :func:`likeness`; an observation that starts a new entity last."""
    winner = decision.winner
    if winner is None or decision.entity_id is None:
        return -np.inf
    if winner.face_verdict == "same":
        return np.inf
    return float(likeness(winner))


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

    def __init__(
        self, memory: Database | HasDatabase, config: AssociationConfig, faces: FacesConfig | None = None
    ) -> None:
        self.db = database_of(memory)
        self.config = config
        self.faces = faces  #: None: face processing is off (faces neither kept nor asked)
        size = config.reference_set_size
        self.index: ReferenceIndex = (
            MatrixIndex(self.db, size, config.matrix_precision)
            if config.index == "matrix"
            else VecTableIndex(self.db, size)
        )
        self._space_names: dict[int, str] = {}

    def _space_name(self, space_id: int) -> str:
        """The embedding space's name (its thresholds are looked up by it)."""
        if space_id not in self._space_names:
            row = self.db.query_one("SELECT name FROM embedding_spaces WHERE id = ?", (int(space_id),))
            self._space_names[space_id] = str(row[0]) if row else ""
        return self._space_names[space_id]

    def associate_clip(
        self, written: Sequence[tuple[int, ObservationRecord, int]], camera: str, *, moving: bool = False
    ) -> list[AssociationDecision]:
        """Decides a clip's observations already written, each (observation id, record, space id), in time order but
        for rivals: observations in view at the same time whose likest candidate (scored against what memory held
        before the clip) is the same entity. Only one of them can be that entity (the separation veto keeps the others
        from it once one has joined), and where one is clearly likest it should be that one, not the first in view
        (:func:`rivals_first`): decided in time order, a look-alike (0.912) took the entity of the person it resembled,
        who came into view with it (0.915), was vetoed and became a new entity (MOT17-05 cut in clips of 2 to 4 frames).
        Others keep time order, so a thing's later track in the clip is decided with its earlier one's reference; all
        decided likest first, two identical phones side by side (1.9915 against 1.9911) swapped biographies on a
        kitchen-lookalikes world. Each is decided again at its turn, as one decided before may change its candidates."""
        records = [r for _, r, _ in written]
        first: list[Decision | None] = [None] * len(written)
        for i in _in_view_together(records):  # only they can be rivals: the others are scored once, at their turn
            _, record, space_id = written[i]
            thresholds = self.config.thresholds_for(record.kind, record.embedding_space)
            evidence = self.evidence(record, camera, space_id, thresholds, moving=moving)
            first[i] = decide(record, evidence, self.config, thresholds, camera=camera, moving=moving)
        decided: dict[int, AssociationDecision] = {}
        for turn, i in enumerate(rivals_first(records, first)):
            observation_id, record, space_id = written[i]
            made = first[i]
            if turn == 0 and made is not None:  # nothing decided before it: its first decision stands
                decided[i] = self.apply(observation_id, record, space_id, made)
            else:
                decided[i] = self.associate(observation_id, record, camera, space_id, moving=moving)
        return [decided[i] for i in range(len(written))]

    def associate(
        self, observation_id: int, record: ObservationRecord, camera: str, space_id: int, *, moving: bool = False
    ) -> AssociationDecision:
        """GEB's rule for one observation already written (without entity): reads what memory knows of its
        candidates (:meth:`evidence`), decides (:func:`edge_agent.memory.decide.decide`, which reads nothing) and
        writes the decision (:meth:`apply`). Call inside the ingest transaction. ``moving``: the camera's view moved
        (where things are in its frames says nothing of where they are)."""
        thresholds = self.config.thresholds_for(record.kind, record.embedding_space)
        evidence = self.evidence(record, camera, space_id, thresholds, moving=moving)
        decision = decide(record, evidence, self.config, thresholds, camera=camera, moving=moving)
        return self.apply(observation_id, record, space_id, decision)

    def evidence(
        self, record: ObservationRecord, camera: str, space_id: int, thresholds: Thresholds, *, moving: bool = False
    ) -> Evidence:
        """What :func:`decide` needs to know about the observation's candidates, read from memory (nothing
        written): the candidates (the nearest of a compatible category, the person its faces name, the things
        enrolled from pictures it passes), their references, the boxes of those seen at the same time on the same
        camera, and where each was last seen when the still-in-place rule can apply."""
        cfg = self.config
        faces = self._face_verdict(record)
        candidates, incompatible = self._candidates(space_id, record.kind, record.category, record.embedding)
        if faces.match is not None and faces.match not in candidates:
            candidates.append(faces.match)  # the person the faces say it is, whatever the clothes
        enrolled = self._enrolled_things(record, thresholds)
        candidates.extend(e for e in sorted(enrolled) if e not in candidates and e not in incompatible)
        refs = References.empty(record.embedding.size)
        if candidates or incompatible:
            refs = self._references(record, space_id, [*candidates, *incompatible], thresholds)
        overlapping = self._overlapping(record, camera, refs.observation_ids.tolist()) if cfg.use_separation else {}
        still = record.kind == "object" and cfg.still_iou > 0 and not moving
        last_seen = self._last_seen(camera, [c for c in candidates if c not in incompatible]) if still else {}
        return Evidence(refs, incompatible, overlapping, faces, enrolled, last_seen)

    def apply(
        self, observation_id: int, record: ObservationRecord, space_id: int, decision: Decision
    ) -> AssociationDecision:
        """Writes a decision: the observation's entity (joining the entities it resolves as one, or a new one), the
        reference FIFO, its faces, the 'possibly the same' relations and the association_log row with its numbers."""
        now = time.time()
        joined: set[int] = set()  # entities merged into another by this observation
        if decision.entity_id is None:
            entity_id = self.new_entity(record, now)
        else:
            entity_id = self._join(decision.entity_id, decision.joinable, observation_id, joined, now)
            self._first_sighting(decision, observation_id, record, entity_id)
            self.extend_entity(entity_id, last_seen=record.t_end, first_seen=record.t_start)
        self.assign_entity(observation_id, entity_id)
        if decision.entity_id is None or not handled(record.kind, record.description.motion):
            self.add_reference(entity_id, observation_id, record.kind, space_id, record.embedding)
        if record.faces is not None and self.faces is not None:
            keep_faces(self.db, self.faces, entity_id, record.face_space, record.faces, observation_id=observation_id)
        self._relate(observation_id, entity_id, [r for r in decision.possibly_same if r[0] not in joined], now)
        self.db.execute(
            "INSERT INTO association_log (observation_id, entity_id, created_entity, candidates, tau_low, tau_high, "
            "decided_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                observation_id,
                entity_id,
                int(decision.created),
                json.dumps([_score_json(s) for s in decision.scores]),
                decision.tau_low,
                decision.tau_high,
                now,
            ),
        )
        return AssociationDecision(
            observation_id, entity_id, decision.created, decision.scores, decision.tau_low, decision.tau_high
        )

    def _join(self, entity_id: int, joinable: Sequence[int], observation_id: int, joined: set[int], now: float) -> int:
        """Joins into one the observation's entity and each ``joinable`` one memory recorded as possibly the same,
        described alike and never seen apart (the newer into the older, audited in corrections); returns the entity
        the observation goes to and adds the absorbed ones to ``joined``."""
        for other in joinable:
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
        return entity_id

    def _first_sighting(
        self, decision: Decision, observation_id: int, record: ObservationRecord, entity_id: int
    ) -> None:
        """A person or thing enrolled from pictures, seen for the first time: seen over this observation's span, and
        a thing enrolled as plain "object" is what it was first seen as."""
        winner = decision.winner
        if winner is None or not (winner.face_verdict == "same" or decision.enrolled):
            return
        if self.db.value(
            "SELECT count(*) FROM observations WHERE entity_id = ? AND id != ?", (entity_id, observation_id)
        ):
            return
        self.db.execute(
            "UPDATE entities SET first_seen = ?, last_seen = ? WHERE id = ?", (record.t_start, record.t_end, entity_id)
        )
        if decision.enrolled:
            self.db.execute(
                "UPDATE entities SET category = ? WHERE id = ? AND category = 'object'", (record.category, entity_id)
            )

    def _references(
        self, record: ObservationRecord, space_id: int, entity_ids: Sequence[int], thresholds: Thresholds
    ) -> References:
        """The entities' references (a person's of the day: :meth:`_same_day`); a close call on float16 vectors (a
        threshold, or which of two is liker) is read again with memory's float32 ones."""
        refs = self._same_day(record, self.index.references(space_id, record.kind, entity_ids))
        if refs.approximate and refs.owners.size:
            test = native.association_test(
                record.embedding, refs.vectors, refs.owners, thresholds.tau_low, thresholds.tau_high
            )
            if self._close_call(test, thresholds, self.config.refine_margin):
                refs = self._same_day(record, self.index.exact_references(space_id, record.kind, entity_ids))
        return refs

    def _overlapping(
        self, record: ObservationRecord, camera: str, reference_ids: Sequence[int]
    ) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        """Frames and boxes of the references seen on the observation's camera during its span: the only ones the
        separation test can find apart from it."""
        if not reference_ids:
            return {}
        marks = ",".join("?" * len(reference_ids))
        rows = self.db.query(
            f"SELECT id FROM observations WHERE id IN ({marks}) AND camera = ? AND t_start <= ? AND t_end >= ? "
            "ORDER BY id",
            (*reference_ids, camera, record.t_end, record.t_start),
        )
        return {int(row[0]): self.boxes(int(row[0])) for row in rows}

    def _last_seen(self, camera: str, entity_ids: Sequence[int]) -> dict[int, LastSeen]:
        """Where each entity was last seen (its latest observation's camera and, on ``camera``, its last box)."""
        out: dict[int, LastSeen] = {}
        for entity_id in entity_ids:
            latest = self.db.query_one(
                "SELECT id, camera FROM observations WHERE entity_id = ? ORDER BY t_start DESC LIMIT 1", (entity_id,)
            )
            if latest is None:
                continue
            if latest[1] != camera:
                out[entity_id] = LastSeen(str(latest[1]))
                continue
            _, boxes = self.boxes(int(latest[0]))
            out[entity_id] = LastSeen(str(latest[1]), boxes[-1:])
        return out

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

    def _relate(self, observation_id: int, entity_id: int, related: Sequence[tuple[int, float]], now: float) -> None:
        """Records 'possibly the same' between the observation's entity and each of ``related`` (entity, mean
        similarity: :func:`edge_agent.memory.decide.possibly_same`) but a pair the user marked not the same."""
        for other, score in related:
            if other == entity_id:
                continue
            a, b = min(entity_id, other), max(entity_id, other)
            if self.db.query_one("SELECT 1 FROM entity_constraints WHERE entity_a = ? AND entity_b = ?", (a, b)):
                continue
            self.db.execute(
                "INSERT INTO entity_relations (entity_a, entity_b, relation, score, observation_id, updated_at) "
                "VALUES (?, ?, 'possibly_same', ?, ?, ?) ON CONFLICT (entity_a, entity_b, relation) DO UPDATE SET "
                "score = max(score, excluded.score), observation_id = CASE WHEN excluded.score > score "
                "THEN excluded.observation_id ELSE observation_id END, updated_at = excluded.updated_at",
                (a, b, score, observation_id, now),
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
            "SELECT id, space_id, kind FROM observations WHERE entity_id = ? AND NOT (kind = 'object' AND motion LIKE "
            "'moving%') ORDER BY t_start DESC, id DESC LIMIT ?",
            (entity_id, self.config.reference_set_size),
        ) or self.db.query(  # seen only in someone's hands
            "SELECT id, space_id, kind FROM observations WHERE entity_id = ? ORDER BY t_start DESC, id DESC LIMIT 1",
            (entity_id,),
        )
        for observation_id, space_id, kind in reversed(recent):
            blob = self.db.query_one(
                f"SELECT embedding FROM vec_obs_{int(space_id)} WHERE observation_id = ?", (observation_id,)
            )
            if blob is not None:
                self.add_reference(
                    entity_id, observation_id, kind, space_id, np.frombuffer(blob[0], dtype=np.float32).copy()
                )


def handled(kind: str, motion: str) -> bool:
    """An object seen moving was in someone's hands: how it looks then (turned, half hidden; on a worn camera the room
    passing behind it) is no reference of how it looks where it stands. Its observation joins an entity all the same,
    and begins one with itself as the reference."""
    return kind == "object" and motion.startswith("moving")


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
