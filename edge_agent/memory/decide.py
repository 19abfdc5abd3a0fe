"""GEB section 3.3 as a pure decision: which entity one observation is, from values read beforehand.

:func:`decide` takes the observation, its candidates' reference vectors, the boxes of the references seen at the
same time on the same camera, what the faces say, the enrolled things' tests and where each candidate was last
seen (:class:`Evidence`), and returns a :class:`Decision`: join an entity or start a new one, with every
candidate's numbers and the rule that decided. It reads and writes nothing; memory.associate gathers the evidence
and applies the decision (the rule itself is described there)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, Protocol

import numpy as np

from edge_agent import native
from edge_agent.config.association import AssociationConfig, Thresholds
from edge_agent.memory.faces import FaceVerdict
from edge_agent.memory.records import CandidateScore, ObservationRecord

__all__ = ["Decision", "Evidence", "LastSeen", "Reason", "References", "decide", "likeness", "with_enrolled"]

#: (entity, qualifies, min, max, mean): one candidate's two-threshold test
ScoreRow = tuple[int, bool, float, float, float]


@dataclass
class References:
    """Reference rows of some entities: parallel arrays."""

    vectors: np.ndarray  # float32 (R, D)
    owners: np.ndarray  # int64 (R,)
    observation_ids: np.ndarray  # int64 (R,)
    approximate: bool = False  #: the vectors went through float16: a close call is scored again on exact ones

    @classmethod
    def empty(cls, dims: int = 1) -> References:
        return cls(np.empty((0, dims), np.float32), np.empty(0, np.int64), np.empty(0, np.int64))


@dataclass(frozen=True, eq=False)
class LastSeen:
    """Where a candidate entity was last seen: the camera of its latest observation and, when that is the
    observation's camera, the last box there ((1, 4) float32; (0, 4) without boxes)."""

    camera: str
    box: np.ndarray = field(default_factory=lambda: np.empty((0, 4), np.float32))


@dataclass(frozen=True, eq=False)
class Evidence:
    """What memory knows about one observation's candidates, read before deciding.

    ``references``: the reference rows of the candidates (the nearest entities, the person the faces name, the
    things whose enrolled vectors the observation passes; for a person, the references of the day where memory has
    some). ``incompatible``: entity -> category of the nearby entities of another category (scored and logged,
    never chosen). ``overlapping``: reference observation id -> (frame_ms, boxes) of those
    references seen on the observation's camera during its span (the separation test's evidence).
    ``faces``: what the observation's faces say. ``enrolled``: thing -> its two-threshold test against its enrolled
    vectors, for those that pass. ``last_seen``: candidate -> where it was last seen, for the still-in-place rule
    (empty when the rule does not apply)."""

    references: References = field(default_factory=References.empty)
    incompatible: Mapping[int, str] = field(default_factory=dict)
    overlapping: Mapping[int, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    faces: FaceVerdict = field(default_factory=FaceVerdict)
    enrolled: Mapping[int, tuple[bool, float, float, float]] = field(default_factory=dict)
    last_seen: Mapping[int, LastSeen] = field(default_factory=dict)


class Reason(str, Enum):
    """The rule that decided: for a join, what let the winner in; for a new entity, what kept the likest
    candidate out."""

    FACE = "face match"  #: the faces say who it is, whatever the body appearance
    QUALIFIED = "qualified"  #: every reference >= tau_low, one >= tau_high (or a thing's enrolled vectors), no veto
    IN_PLACE = "still in place"  #: an object first seen where the candidate was last seen, still like it
    NO_CANDIDATE = "no candidate"
    BELOW_TAU_LOW = "a reference below tau_low"
    BELOW_TAU_HIGH = "no reference at tau_high"
    SEPARATED = "separation veto"  #: seen apart from one of its references on shared frames
    OTHER_CATEGORY = "category veto"
    OTHER_FACE = "face veto"  #: a face unlike every face of the candidate


@dataclass(frozen=True)
class Decision:
    """Join ``entity_id`` (None: start a new entity), with every candidate's numbers, likest first.

    ``joinable``: other qualifying entities every reference of which is as like the observation as the winner's
    (``join_similarity``): joined with it where memory recorded them possibly the same, they were described alike
    and never seen apart. ``possibly_same``: (entity, mean similarity) of the losing candidates to record as
    possibly the same as the observation's entity."""

    entity_id: int | None
    reason: Reason
    scores: tuple[CandidateScore, ...]
    tau_low: float
    tau_high: float
    winner: CandidateScore | None = None
    enrolled: bool = False  #: the winner is a thing that qualified on its enrolled vectors
    joinable: tuple[int, ...] = ()
    possibly_same: tuple[tuple[int, float], ...] = ()

    @property
    def created(self) -> bool:
        return self.entity_id is None


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


def with_enrolled(rows: Sequence[ScoreRow], enrolled: Mapping[int, tuple[bool, float, float, float]]) -> list[ScoreRow]:
    """Candidate rows (entity, qualifies, min, max, mean) with enrolled things' tests: a thing whose observed
    references do not qualify (or that has none) but whose enrolled vectors do is scored by its enrolled ones."""
    out = [(o, q, lo, hi, m) if q or o not in enrolled else (o, *enrolled[o]) for o, q, lo, hi, m in rows]
    seen = {row[0] for row in out}
    out.extend((e, *enrolled[e]) for e in sorted(enrolled) if e not in seen)
    return out


def two_threshold_rows(embedding: np.ndarray, references: References, thresholds: Thresholds) -> list[ScoreRow]:
    """GEB's two-threshold test of each owner of ``references`` (native.association_test) as rows."""
    if not references.owners.size:
        return []
    test = native.association_test(
        embedding, references.vectors, references.owners, thresholds.tau_low, thresholds.tau_high
    )
    return list(
        zip(
            test.owner.tolist(),
            test.qualifies.tolist(),
            test.min_sim.tolist(),
            test.max_sim.tolist(),
            test.mean_sim.tolist(),
        )
    )


def separation_veto(
    record: ObservationRecord,
    reference_ids: Sequence[int],
    overlapping: Mapping[int, tuple[np.ndarray, np.ndarray]],
    config: AssociationConfig,
) -> tuple[int, float] | None:
    """The first reference (by id) seen apart from the observation on shared frames, with the fraction of them
    where the boxes were apart; None when no reference shows separation evidence."""
    for ref_id in sorted(int(r) for r in reference_ids if int(r) in overlapping):
        ref_frames, ref_boxes = overlapping[ref_id]
        result = native.separation(
            record.frame_ms,
            record.boxes,
            ref_frames,
            ref_boxes,
            config.separation_iou_threshold,
            config.separation_min_shared_frames,
            config.separation_min_fraction,
        )
        if result.separated:
            return ref_id, result.fraction
    return None


def _references_of(evidence: Evidence, entity_id: int) -> list[int]:
    refs = evidence.references
    ids: list[int] = refs.observation_ids[refs.owners == entity_id].tolist()
    return ids


def _admitted(s: CandidateScore) -> bool:
    """Whether a scored candidate may win: qualified (or named by the faces) and vetoed by nothing."""
    return (
        (s.qualifies or s.face_verdict == "same")
        and s.vetoed_by is None
        and s.incompatible_category is None
        and s.face_verdict != "different"
    )


def score_candidates(
    record: ObservationRecord, evidence: Evidence, config: AssociationConfig, thresholds: Thresholds
) -> list[CandidateScore]:
    """Every candidate's similarities and vetoes, in the order the test found them."""
    faces = evidence.faces
    rows = two_threshold_rows(record.embedding, evidence.references, thresholds)
    if faces.match is not None and all(row[0] != faces.match for row in rows):
        rows.append((faces.match, False, 0.0, 0.0, 0.0))  # a person known by face alone (enrolled)
    rows = with_enrolled(rows, {e: r for e, r in evidence.enrolled.items() if e not in evidence.incompatible})
    scores = []
    for owner, qualifies, lo, hi, mean in rows:
        said = faces.of(int(owner))
        # Like the separation veto, the category veto is recorded only where it decides: on a candidate the
        # similarities (or the faces) alone would have let in.
        veto = None
        admitted = bool(qualifies) or said == "same"
        category = evidence.incompatible.get(int(owner)) if admitted else None
        if admitted and config.use_separation and category is None and said != "different":
            veto = separation_veto(record, _references_of(evidence, int(owner)), evidence.overlapping, config)
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
    return scores


def in_place(
    record: ObservationRecord,
    camera: str,
    scores: Sequence[CandidateScore],
    evidence: Evidence,
    config: AssociationConfig,
    thresholds: Thresholds,
) -> CandidateScore | None:
    """Where GEB's rule let none of the candidates of a compatible category (``scores``) in: the one an object
    is, when it was first seen where that candidate was last seen (``still_iou``), is still like it and was never
    seen apart from it; else None. Things stay where they were put while the light on them changes: a grey thing
    under a warm lamp is another colour, and its biography split at every change of light."""
    first = np.asarray(record.boxes[:1], np.float32)
    found = []
    for s in scores:
        if s.mean_sim < thresholds.tau_low or s.max_sim < config.still_tau_high or not len(first):
            continue
        seen = evidence.last_seen.get(s.entity_id)
        if seen is None or seen.camera != camera:
            continue
        overlap = float(native.iou_matrix(first, seen.box[-1:])[0, 0]) if len(seen.box) else 0.0
        if overlap < config.still_iou:
            continue
        veto = (
            separation_veto(record, _references_of(evidence, s.entity_id), evidence.overlapping, config)
            if config.use_separation
            else None
        )
        if veto is None:
            found.append(replace(s, in_place=overlap))
    return max(found, key=lambda s: (likeness(s), -s.entity_id)) if found else None


def possibly_same(
    record: ObservationRecord,
    winner: int | None,
    scores: Sequence[CandidateScore],
    evidence: Evidence,
    config: AssociationConfig,
    thresholds: Thresholds,
) -> tuple[tuple[int, float], ...]:
    """The candidates that did not win but are similar on average, of a compatible category, not told apart by
    faces and with no separation evidence: (entity, mean similarity), possibly the same as the winner. A candidate
    of another category is never related, whether or not it would have qualified. Nothing without the separation
    test (no evidence either way)."""
    if not config.possibly_same or not config.use_separation:
        return ()
    out = []
    for s in scores:
        if (
            s.entity_id == winner
            or s.entity_id in evidence.incompatible
            or s.vetoed_by is not None
            or s.face_verdict == "different"
            or s.mean_sim < thresholds.tau_low
        ):
            continue
        if separation_veto(record, _references_of(evidence, s.entity_id), evidence.overlapping, config) is None:
            out.append((s.entity_id, float(s.mean_sim)))
    return tuple(out)


def _why_not(scores: Sequence[CandidateScore], thresholds: Thresholds) -> Reason:
    """Why none of the candidates won: the veto of the likest one a veto kept out, else the threshold the likest
    one missed."""
    if not scores:
        return Reason.NO_CANDIDATE
    likest = sorted(scores, key=lambda s: -likeness(s))
    for s in likest:
        if s.incompatible_category is not None:
            return Reason.OTHER_CATEGORY
        if s.qualifies and s.face_verdict == "different":
            return Reason.OTHER_FACE
        if s.vetoed_by is not None:
            return Reason.SEPARATED
    return Reason.BELOW_TAU_LOW if likest[0].min_sim < thresholds.tau_low else Reason.BELOW_TAU_HIGH


def decide(
    record: ObservationRecord,
    evidence: Evidence,
    config: AssociationConfig,
    thresholds: Thresholds,
    *,
    camera: str = "",
    moving: bool = False,
) -> Decision:
    """GEB's rule for one observation on ``camera`` (``moving``: the camera's view moved, so where things are in
    its frames says nothing of where they are). A face match wins whatever the body appearance says; else the
    qualifying candidate most like the observation (:func:`likeness`; the lower id on a tie); else, for an object
    on a fixed camera, the candidate still in place; else a new entity."""
    scores = score_candidates(record, evidence, config, thresholds)
    qualified = [s for s in scores if _admitted(s)]
    if not qualified and record.kind == "object" and config.still_iou > 0 and not moving:
        compatible = [s for s in scores if s.entity_id not in evidence.incompatible]
        spot = in_place(record, camera, compatible, evidence, config, thresholds)
        if spot is not None:
            scores = [spot if s.entity_id == spot.entity_id else s for s in scores]
            qualified = [spot]
    winner = max(qualified, key=lambda s: (s.face_verdict == "same", likeness(s), -s.entity_id)) if qualified else None
    joinable: tuple[int, ...] = ()
    if winner is None:
        reason = _why_not(scores, thresholds)
    elif winner.face_verdict == "same":
        reason = Reason.FACE
    elif winner.in_place is not None:
        reason = Reason.IN_PLACE
    else:
        reason = Reason.QUALIFIED
    bar = max(config.join_similarity, thresholds.tau_high)
    if winner is not None and config.possibly_same and winner.min_sim >= bar:
        # this observation may resolve what was unresolved: every reference of both is strongly like it
        joinable = tuple(sorted({s.entity_id for s in qualified if s.min_sim >= bar} - {winner.entity_id}))
    related = possibly_same(record, None if winner is None else winner.entity_id, scores, evidence, config, thresholds)
    return Decision(
        entity_id=None if winner is None else winner.entity_id,
        reason=reason,
        scores=tuple(sorted(scores, key=lambda s: -likeness(s))),
        tau_low=thresholds.tau_low,
        tau_high=thresholds.tau_high,
        winner=winner,
        enrolled=winner is not None and winner.entity_id in evidence.enrolled,
        joinable=joinable,
        possibly_same=related,
    )
