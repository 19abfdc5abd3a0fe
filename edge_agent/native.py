"""Public API of the native core: within-clip tracking (ByteTrack), box IoU and GEB's separation test,
and embedding similarity for conservative identity association (GEB section 3.3).

One rule for inputs (as in faiss's Python layer): arrays are float32 (boxes, scores, embeddings),
int64 (frames, owners) or int32 (class ids), C-contiguous. Other real dtypes and non-contiguous views
are converted where that is unambiguous; anything else raises ``TypeError``. Wrong shapes, NaN, inf and
impossible values raise ``ValueError`` naming the argument and the expected shape. Boxes are
``(x1, y1, x2, y2)`` in pixels. The C++ loops release the GIL.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from edge_agent import _native
from edge_agent.config.tracker import TrackerConfig

__all__ = [
    "AssociationResult",
    "ByteTracker",
    "Separation",
    "Tracks",
    "association_test",
    "cosine_topk",
    "csr_matvec",
    "iou_matrix",
    "kernel_isa",
    "linear_assignment",
    "Patch",
    "ppr_push",
    "row_stochastic",
    "row_stochastic_flatten",
    "row_stochastic_patch",
    "separation",
]

#: Instruction set of the similarity kernels chosen for this CPU ("avx+fma" or "baseline").
kernel_isa: str = _native.kernel_isa


def _real_array(name: str, value: Any) -> np.ndarray:
    arr = np.asarray(value)
    if arr.dtype.kind not in "fiu":
        raise TypeError(f"{name} must be a real-valued numeric array, got dtype {arr.dtype}")
    return arr


def _float32(name: str, value: Any) -> np.ndarray:
    arr = _real_array(name, value)
    if arr.dtype == np.float32 and arr.flags.c_contiguous:
        return arr
    return np.ascontiguousarray(arr, dtype=np.float32)


def _integers(name: str, value: Any, dtype: type[np.integer]) -> np.ndarray:
    arr = _real_array(name, value)
    if arr.dtype.kind == "f":
        raise TypeError(f"{name} must be an integer array, got dtype {arr.dtype}")
    if arr.dtype == dtype and arr.flags.c_contiguous:
        return arr
    converted = np.ascontiguousarray(arr, dtype=dtype)
    if not np.array_equal(converted, arr):
        raise ValueError(f"{name} has values that do not fit in {np.dtype(dtype).name}")
    return converted


@dataclass(frozen=True, slots=True)
class Tracks:
    """Tracks reported for one frame, as parallel arrays of length M.

    ``det_index`` is the row of the input detection that updated the track this frame, or -1 for a
    lost track reported with its predicted box (``update(..., return_predicted=True)``).
    """

    track_id: npt.NDArray[np.int64]
    xyxy: npt.NDArray[np.float32]
    score: npt.NDArray[np.float32]
    class_id: npt.NDArray[np.int32]
    det_index: npt.NDArray[np.int64]

    def __len__(self) -> int:
        return int(self.track_id.shape[0])

    def __repr__(self) -> str:
        ids = ", ".join(str(i) for i in self.track_id[:8].tolist())
        more = ", ..." if len(self) > 8 else ""
        predicted = int(np.count_nonzero(self.det_index < 0))
        return f"Tracks(n={len(self)}, track_id=[{ids}{more}], predicted={predicted})"


_TRACKER = TrackerConfig()  # the tracker's parameters are defined once, in the configuration


class ByteTracker:
    """ByteTrack multi-object tracker for one camera stream or clip. The defaults of the thresholds are the
    configuration's (:class:`edge_agent.config.TrackerConfig`, where each is defined).

    Args:
        high_conf_det_threshold: detections scoring at least this (0-1) take part in the first
            association pass and may start tracks.
        low_conf_det_threshold: detections scoring in [low, high) are used only to keep existing tracks
            alive in the second pass; lower scores are ignored.
        new_track_threshold: an unmatched high detection starts a new track only if it scores at least
            this.
        minimum_iou_threshold: first-pass matches need IoU x detection score (ByteTrack's score fusion)
            above this. The second pass needs plain IoU above 0.5, the pass for tracks seen only once
            IoU x score above 0.3, both fixed as in ByteTrack.
        lost_track_buffer: frames, counted at 30 fps, that a lost track waits to be found again before it
            is removed.
        frame_rate: frames per second of the stream; scales ``lost_track_buffer``. Default 30.
        class_aware: if true a track matches only detections of its own class id. Default False.
        appearance_gate: > 0: with ``features`` given to :meth:`update`, the tracks and confident detections
            that IoU left unmatched (in the first pass and the pass for new tracks) are matched by appearance: a
            detection centred within this many track sizes (its longer side) of the track's predicted centre,
            at least ``appearance_threshold`` similar to the track's appearance (cosine), at similarity
            max(IoU, cosine x (1 - distance / gate)) times its score. A detection a track overlaps is never taken
            from it by a look-alike. 0: IoU only (ByteTrack).
        appearance_threshold: the cosine similarity that gate asks for.
        observation_recovery: OC-SORT's recovery (tracks left unmatched try the detections left over from their
            last observed box, IoU above 0.3) and re-update (a track found again after frames without a
            detection is corrected along virtual observations between its last box and the new one).

    A new track is confirmed (gets a ``track_id``, 1, 2, ...) when it is matched again in the next frame
    (immediately on the first frame after construction or :meth:`reset`).
    """

    def __init__(
        self,
        high_conf_det_threshold: float = _TRACKER.high_conf_det_threshold,
        low_conf_det_threshold: float = _TRACKER.low_conf_det_threshold,
        new_track_threshold: float = _TRACKER.new_track_threshold,
        minimum_iou_threshold: float = _TRACKER.minimum_iou_threshold,
        lost_track_buffer: int = _TRACKER.lost_track_buffer,
        frame_rate: float = 30.0,
        class_aware: bool = False,
        appearance_gate: float = _TRACKER.appearance_gate,
        appearance_threshold: float = _TRACKER.appearance_threshold,
        observation_recovery: bool = _TRACKER.observation_recovery,
    ) -> None:
        self._tracker = _native.ByteTracker(
            float(high_conf_det_threshold),
            float(low_conf_det_threshold),
            float(new_track_threshold),
            float(minimum_iou_threshold),
            int(lost_track_buffer),
            float(frame_rate),
            bool(class_aware),
            float(appearance_gate),
            float(appearance_threshold),
            bool(observation_recovery),
        )

    def update(
        self,
        xyxy: npt.ArrayLike,
        scores: npt.ArrayLike,
        class_ids: npt.ArrayLike | None = None,
        *,
        return_predicted: bool = False,
        warp: npt.ArrayLike | None = None,
        features: npt.ArrayLike | None = None,
    ) -> Tracks:
        """Advance one frame with detections ``xyxy`` (N, 4), ``scores`` (N,) in [0, 1] and optional
        ``class_ids`` (N,). Returns the confirmed tracks updated this frame, with their Kalman-filtered
        boxes; with ``return_predicted`` also the lost tracks still waiting, at their predicted boxes.
        ``warp``: the camera's motion since the last frame, a (2, 3) affine transform of image points
        (:mod:`edge_agent.perception.motion`); every track's state moves with it before association.
        ``features``: (N, D) appearance vectors of the detections (compared by cosine; D the same every frame),
        used within ``appearance_gate``."""
        classes = None if class_ids is None else _integers("class_ids", class_ids, np.int32)
        motion = None if warp is None else np.ascontiguousarray(_real_array("warp", warp), dtype=np.float64)
        looks = None if features is None else _float32("features", features)
        track_id, boxes, score, class_id, det_index = self._tracker.update(
            _float32("xyxy", xyxy), _float32("scores", scores), classes, bool(return_predicted), motion, looks
        )
        return Tracks(track_id, boxes, score, class_id, det_index)

    def reset(self) -> None:
        """Forget every track and restart ids at 1."""
        self._tracker.reset()

    @property
    def frame_id(self) -> int:
        """Frames processed since construction or the last reset."""
        return int(self._tracker.frame_id)

    def __repr__(self) -> str:
        t = self._tracker
        return f"ByteTracker(frame_id={t.frame_id}, tracked={t.num_tracked}, lost={t.num_lost})"


def iou_matrix(a: npt.ArrayLike, b: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """IoU of every box in ``a`` (N, 4) with every box in ``b`` (M, 4), as float32 (N, M).
    Boxes without area have IoU 0 with everything."""
    return _native.iou_matrix(_float32("a", a), _float32("b", b))


class Separation(NamedTuple):
    """Result of :func:`separation`."""

    separated: bool  #: the two observations are proven to be different physical instances
    shared: int  #: number of frames both observations have a box on
    fraction: float  #: fraction of shared frames whose boxes have IoU below the threshold


def separation(
    frames_a: npt.ArrayLike,
    boxes_a: npt.ArrayLike,
    frames_b: npt.ArrayLike,
    boxes_b: npt.ArrayLike,
    iou_threshold: float = 0.3,
    min_shared_frames: int = 2,
    min_fraction: float = 0.5,
) -> Separation:
    """GEB's separation test: observation A (boxes on ``frames_a``, strictly increasing) and B are
    different instances if, on at least ``min_shared_frames`` frames they share, their boxes have
    IoU < ``iou_threshold`` in at least ``min_fraction`` of them. Such evidence vetoes an identity
    match whatever the embeddings say."""
    separated, shared, fraction = _native.separation(
        _integers("frames_a", frames_a, np.int64),
        _float32("boxes_a", boxes_a),
        _integers("frames_b", frames_b, np.int64),
        _float32("boxes_b", boxes_b),
        float(iou_threshold),
        int(min_shared_frames),
        float(min_fraction),
    )
    return Separation(bool(separated), int(shared), float(fraction))


@dataclass(frozen=True, slots=True)
class AssociationResult:
    """Per distinct owner (ascending ``owner``): whether the query qualifies under the two-threshold
    rule and its min / max / mean cosine similarity to the owner's references. For a single query the
    per-owner arrays have shape (U,); for a batch of Q queries, (Q, U)."""

    owner: npt.NDArray[np.int64]
    qualifies: npt.NDArray[np.bool_]
    min_sim: npt.NDArray[np.float32]
    max_sim: npt.NDArray[np.float32]
    mean_sim: npt.NDArray[np.float32]

    def __repr__(self) -> str:
        return f"AssociationResult(owners={self.owner.shape[0]}, qualifying={int(np.count_nonzero(self.qualifies))})"


def association_test(
    query: npt.ArrayLike,
    refs: npt.ArrayLike,
    ref_owner: npt.ArrayLike,
    tau_low: float,
    tau_high: float,
) -> AssociationResult:
    """GEB's two-threshold test. ``query`` (D,) or a batch (Q, D); ``refs`` (R, D) reference embeddings,
    ``ref_owner`` (R,) the entity each reference belongs to. An owner qualifies iff the cosine similarity
    to every one of its references is >= ``tau_low`` and to at least one is >= ``tau_high`` (compared
    in float32). Zero-norm rows raise ``ValueError``."""
    q = _float32("query", query)
    single = q.ndim == 1
    owner, qualifies, lo, hi, mean = _native.association_test(
        q.reshape(1, -1) if single else q,
        _float32("refs", refs),
        _integers("ref_owner", ref_owner, np.int64),
        float(tau_low),
        float(tau_high),
    )
    if single:
        qualifies, lo, hi, mean = qualifies[0], lo[0], hi[0], mean[0]
    return AssociationResult(owner, qualifies, lo, hi, mean)


def cosine_topk(
    queries: npt.ArrayLike, base: npt.ArrayLike, k: int, *, threads: int = 0
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
    """The ``k`` rows of ``base`` (N, D; float32, or float16 to halve memory) most cosine-similar to each
    of ``queries`` (Q, D; a single (D,) query is treated as Q = 1). Returns ``(indices, scores)`` of
    shape (Q, min(k, N)), best first, ties broken by lower index. Base rows are scanned in cache-sized
    blocks so a batch of queries becomes matrix products; a NaN, inf or zero-norm row raises.
    ``threads``: how many threads share a large scan (0: one per core when the scan is big enough)."""
    q = _float32("queries", queries)
    if q.ndim == 1:
        q = q.reshape(1, -1)
    b = _real_array("base", base)
    if not (b.dtype == np.float16 and b.flags.c_contiguous):
        b = _float32("base", b)
    return _native.cosine_topk(q, b, int(k), int(threads))


def linear_assignment(
    similarity: npt.ArrayLike, min_similarity: float
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Exact maximum-weight matching: pairs (row, col) with ``similarity > min_similarity`` that
    maximise the total of ``similarity - min_similarity`` (LAPJV with ByteTrack's cost limit). Returns
    ``(rows, cols)`` sorted by row. Solved per connected component of the allowed pairs."""
    return _native.linear_assignment(_float32("similarity", similarity), float(min_similarity))


def csr_matvec(matrix: Any, x: npt.ArrayLike, *, threads: int = 1) -> npt.NDArray[np.float64]:
    """y = A x for a SciPy CSR matrix ``matrix`` (float64 values), rows split over ``threads``. Measured
    against SciPy's own product for Personalized PageRank (``edge-agent bench retrieval``): the same PPR
    on the 100k-observation graph took 12-14 ms with SciPy and 22-24 ms with this on one thread, so
    retrieval keeps SciPy."""
    indptr = np.ascontiguousarray(matrix.indptr, dtype=np.int64)
    indices = _integers("indices", matrix.indices, np.int32)
    data = np.ascontiguousarray(matrix.data, dtype=np.float64)
    vector = np.ascontiguousarray(_real_array("x", x), dtype=np.float64)
    if threads < 1:
        raise ValueError("threads must be >= 1")
    return _native.csr_matvec(indptr, indices, data, vector, int(threads))


@dataclass(frozen=True, slots=True)
class PushResult:
    """Personalized PageRank by local push: the nodes reached with their estimates (parallel arrays, in no order),
    the pushes it took, and the mass not yet placed (an upper bound of the estimates' total error)."""

    nodes: npt.NDArray[np.int32]
    values: npt.NDArray[np.float64]
    pushes: int
    residual: float


@dataclass(frozen=True, slots=True)
class Patch:
    """The rows of a row-stochastic matrix that differ from a base's (:func:`row_stochastic_patch`): the nodes are in
    consecutive blocks, block k at ``base_starts[k]`` in the base and at ``starts[k]`` now (its base rows first, in
    order, then the added ones), so a base row's columns are renumbered by their block's shift; ``nodes`` (increasing,
    in the new numbering) are the rows given here, row i being ``indices`` / ``data[indptr[i]:indptr[i + 1]]`` (new
    numbering) with weight sum ``degree[i]``. The base's own arrays stay as they are (memory-mapped from disk)."""

    base_starts: npt.NDArray[np.int64]
    starts: npt.NDArray[np.int64]
    nodes: npt.NDArray[np.int32]
    indptr: npt.NDArray[np.int64]
    indices: npt.NDArray[np.int32]
    data: npt.NDArray[np.float32]
    degree: npt.NDArray[np.float64]

    @property
    def n(self) -> int:
        """Nodes of the patched matrix."""
        return int(self.starts[-1])

    def arrays(self) -> tuple[np.ndarray, ...]:
        """As the native core takes them (exact dtypes, C-contiguous)."""
        return (
            _integers("base_starts", self.base_starts, np.int64).reshape(-1),
            _integers("starts", self.starts, np.int64).reshape(-1),
            _integers("nodes", self.nodes, np.int32).reshape(-1),
            _integers("indptr", self.indptr, np.int64).reshape(-1),
            _integers("indices", self.indices, np.int32).reshape(-1),
            np.ascontiguousarray(self.data, dtype=np.float32).reshape(-1),
            np.ascontiguousarray(self.degree, dtype=np.float64).reshape(-1),
        )


def ppr_push(
    passes: Any,
    seed_nodes: npt.ArrayLike,
    seed_weights: npt.ArrayLike,
    *,
    restart: float,
    epsilon: float,
    max_pushes: int = 10_000_000,
    patch: Patch | None = None,
) -> PushResult:
    """Andersen-Chung-Lang forward push: p = restart * s + (1 - restart) P^T p, with ``passes`` = P a row-stochastic
    SciPy CSR matrix (row u: where u passes its mass; an empty row keeps it), with ``patch``'s rows where given
    (``passes`` is then its base), and s the seed weights normalised to sum 1. A node is pushed while its residual
    exceeds ``epsilon`` times its row's entries, so the work depends on the seeds' neighbourhood, not on the graph (at
    most ``max_pushes`` pushes). ``passes``'s arrays are used as they are when already int64 / int32 / float32
    (convert a graph once, not per query; float32 shares: a million-observation graph's 52 MB of float64 shares were
    half its resident size)."""
    indptr = np.ascontiguousarray(passes.indptr, dtype=np.int64)
    indices = np.ascontiguousarray(passes.indices, dtype=np.int32)
    data = np.ascontiguousarray(passes.data, dtype=np.float32)
    nodes = _integers("seed_nodes", seed_nodes, np.int32).reshape(-1)
    weights = np.ascontiguousarray(_real_array("seed_weights", seed_weights), dtype=np.float64).reshape(-1)
    total = float(weights.sum()) if weights.size else 0.0
    if total <= 0:
        return PushResult(np.empty(0, np.int32), np.empty(0, np.float64), 0, 0.0)
    found, values, pushes, residual = _native.ppr_push(
        indptr,
        indices,
        data,
        nodes,
        weights / total,
        float(restart),
        float(epsilon),
        int(max_pushes),
        patch.arrays() if patch is not None else None,
    )
    return PushResult(found, values, int(pushes), float(residual))


#: A row-stochastic matrix in CSR arrays (indptr, indices, data) with each row's sum of weights (0: no edges).
Stochastic = tuple[npt.NDArray[np.int64], npt.NDArray[np.int32], npt.NDArray[np.float32], npt.NDArray[np.float64]]


def row_stochastic(n_nodes: int, a: npt.ArrayLike, b: npt.ArrayLike, weights: npt.ArrayLike) -> Stochastic:
    """Where each node of an undirected weighted graph passes its relevance, as CSR arrays (indptr, indices, data)
    for :func:`ppr_push`, and each row's sum of weights: row u holds u's neighbours in increasing order, each with its
    edge's share of u's weights (edges (a[k], b[k]) given once; repeated ones summed; weights <= 0 left out); a node
    without edges keeps its mass (a self-loop of 1, weight sum 0). The same matrix as SciPy's normalised adjacency
    (``transition_matrix(...).T``), in O(edges)."""
    ends = [_integers(name, value, np.int64).reshape(-1) for name, value in (("a", a), ("b", b))]
    w = np.ascontiguousarray(_real_array("weights", weights), dtype=np.float64).reshape(-1)
    if int(n_nodes) < 0:
        raise ValueError(f"n_nodes must be >= 0, got {n_nodes}")
    return _native.row_stochastic(int(n_nodes), ends[0], ends[1], w)


def _stochastic(earlier: Stochastic) -> Stochastic:
    indptr, indices, data, degree = earlier
    return (
        np.ascontiguousarray(indptr, dtype=np.int64),
        np.ascontiguousarray(indices, dtype=np.int32),
        np.ascontiguousarray(data, dtype=np.float32),
        np.ascontiguousarray(degree, dtype=np.float64),
    )


def row_stochastic_patch(
    base: Stochastic,
    base_starts: npt.ArrayLike,
    new_starts: npt.ArrayLike,
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    weights: npt.ArrayLike,
) -> Patch:
    """The rows :func:`row_stochastic` of a graph grown by nodes and edges would give that differ from ``base``'s (its
    arrays and weight sums): the nodes are in consecutive blocks, block k at ``base_starts[k]`` before and
    ``new_starts[k]`` after (its earlier nodes first, in order, then the added ones); (a, b, weights) are the added
    edges in the new numbering. Every added node's row and every earlier row an added edge touches (its entries times
    its weight sum merged with the added ones); the cost of the added edges and the rows they touch, nothing the size
    of the graph."""
    starts = [
        _integers(name, value, np.int64).reshape(-1)
        for name, value in (("base_starts", base_starts), ("new_starts", new_starts))
    ]
    ends = [_integers(name, value, np.int64).reshape(-1) for name, value in (("a", a), ("b", b))]
    w = np.ascontiguousarray(_real_array("weights", weights), dtype=np.float64).reshape(-1)
    nodes, indptr, indices, data, degree = _native.row_stochastic_patch(
        *_stochastic(base), starts[0], starts[1], ends[0], ends[1], w
    )
    return Patch(starts[0], starts[1], nodes, indptr, indices, data, degree)


def row_stochastic_flatten(base: Stochastic, patch: Patch) -> Stochastic:
    """``base`` (arrays and weight sums) with ``patch``'s rows, as one matrix in the new numbering: one pass copying
    every row the patch does not replace, its columns renumbered."""
    return _native.row_stochastic_flatten(*_stochastic(base), patch.arrays())
