"""Type stub of the compiled core (private: import from edge_agent.native)."""

from typing import Any

import numpy as np
import numpy.typing as npt

__version__: str
kernel_isa: str

_F32 = npt.NDArray[np.float32]
_I64 = npt.NDArray[np.int64]
_I32 = npt.NDArray[np.int32]

class ByteTracker:
    def __init__(
        self,
        high_conf_det_threshold: float,
        low_conf_det_threshold: float,
        new_track_threshold: float,
        minimum_iou_threshold: float,
        lost_track_buffer: int,
        frame_rate: float,
        class_aware: bool,
        appearance_gate: float,
        appearance_threshold: float,
        observation_recovery: bool,
    ) -> None: ...
    def update(
        self,
        xyxy: _F32,
        scores: _F32,
        class_ids: _I32 | None,
        return_predicted: bool,
        warp: npt.NDArray[np.float64] | None = None,
        features: _F32 | None = None,
    ) -> tuple[_I64, _F32, _F32, _I32, _I64]:
        """Returns (track_id, xyxy, score, class_id, det_index)."""
    def reset(self) -> None: ...
    @property
    def frame_id(self) -> int: ...
    @property
    def num_tracked(self) -> int: ...
    @property
    def num_lost(self) -> int: ...

def iou_matrix(a: _F32, b: _F32) -> _F32: ...
def separation(
    frames_a: _I64,
    boxes_a: _F32,
    frames_b: _I64,
    boxes_b: _F32,
    iou_threshold: float,
    min_shared_frames: int,
    min_fraction: float,
) -> tuple[bool, int, float]: ...
def association_test(
    queries: _F32, refs: _F32, ref_owner: _I64, tau_low: float, tau_high: float
) -> tuple[_I64, npt.NDArray[np.bool_], _F32, _F32, _F32]:
    """Returns (owner, qualifies, min_sim, max_sim, mean_sim), per-owner arrays of shape (Q, U)."""

def cosine_topk(queries: _F32, base: _F32 | npt.NDArray[np.float16], k: int, threads: int) -> tuple[_I64, _F32]: ...
def linear_assignment(similarity: _F32, min_similarity: float) -> tuple[_I64, _I64]: ...
def csr_matvec(
    indptr: _I64, indices: _I32, data: npt.NDArray[np.float64], x: npt.NDArray[np.float64], threads: int
) -> npt.NDArray[np.float64]: ...
def row_stochastic(
    n_nodes: int, a: _I64, b: _I64, w: npt.NDArray[np.float64]
) -> tuple[_I64, _I32, npt.NDArray[np.float32], npt.NDArray[np.float64]]: ...
def row_stochastic_patch(
    indptr: _I64,
    indices: _I32,
    data: npt.NDArray[np.float32],
    degree: npt.NDArray[np.float64],
    base_starts: _I64,
    new_starts: _I64,
    a: _I64,
    b: _I64,
    w: npt.NDArray[np.float64],
) -> tuple[_I32, _I64, _I32, npt.NDArray[np.float32], npt.NDArray[np.float64]]: ...
def row_stochastic_flatten(
    indptr: _I64,
    indices: _I32,
    data: npt.NDArray[np.float32],
    degree: npt.NDArray[np.float64],
    patch: tuple[Any, ...],
) -> tuple[_I64, _I32, npt.NDArray[np.float32], npt.NDArray[np.float64]]: ...
def ppr_push(
    indptr: _I64,
    indices: _I32,
    data: npt.NDArray[np.float32],
    seed_nodes: _I32,
    seed_weights: npt.NDArray[np.float64],
    restart: float,
    epsilon: float,
    max_pushes: int,
    patch: tuple[Any, ...] | None = None,
) -> tuple[_I32, npt.NDArray[np.float64], int, float]: ...
