"""Personalized PageRank over the memory graph (GEB section 3.4): relevance flows from the seeds along
identity, context, provenance, adjacency and containment links. Two ways: SciPy sparse power iteration (one
sparse matrix-vector product per step, O(edges): the exact reference, checked against a dense NumPy one), and
local forward push in the native core (Andersen-Chung-Lang: mass moves only where it is, so the cost depends on
the seeds' neighbourhood, not on how much memory holds)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # SciPy is imported where a matrix is made: a process answering from saved arrays skips it
    import scipy.sparse as sp

__all__ = ["local_push", "personalized_pagerank", "push_from", "transition_matrix"]


def transition_matrix(n: int, rows: np.ndarray, cols: np.ndarray, weights: np.ndarray) -> sp.csr_matrix:
    """Column-stochastic transitions of an undirected weighted graph with ``n`` nodes (edges given
    once). A node without edges keeps its mass (self-loop), so no relevance leaks away. The SciPy reference: the
    memory graph makes its transpose with the native :func:`edge_agent.native.row_stochastic`, tested against this."""
    import scipy.sparse as sp

    r = np.concatenate([rows, cols])
    c = np.concatenate([cols, rows])
    w = np.concatenate([weights, weights]).astype(np.float64)
    adjacency = sp.csr_matrix((w, (r, c)), shape=(n, n))
    degree = np.asarray(adjacency.sum(axis=0)).ravel()
    isolated = degree == 0
    adjacency = adjacency + sp.diags(isolated.astype(np.float64))
    degree[isolated] = 1.0
    return (adjacency @ sp.diags(1.0 / degree)).tocsr()


def personalized_pagerank(
    transitions: sp.csr_matrix,
    seeds: np.ndarray,
    *,
    restart: float = 0.25,
    tol: float = 1e-3,
    max_iter: int = 20,
    matvec: Callable[[np.ndarray], np.ndarray] | None = None,
) -> np.ndarray:
    """p = restart * s + (1 - restart) * T p, with s the normalised seed weights; stops when a step
    changes p by less than ``tol`` in L1, or after ``max_iter`` steps. A ranking needs no more: the error
    shrinks by (1 - restart) a step (0.3% after 20), and on the 100k-observation graph 12 steps already
    gave the same top 24 observations as full convergence in every trial."""
    s: np.ndarray = np.asarray(seeds, dtype=np.float64)
    total = s.sum()
    if total <= 0:
        return np.zeros_like(s)
    s = s / total
    p: np.ndarray = s.copy()
    product: Callable[[np.ndarray], np.ndarray] = matvec or transitions.dot
    for _ in range(max_iter):
        nxt: np.ndarray = restart * s + (1.0 - restart) * product(p)
        if np.abs(nxt - p).sum() < tol:
            return nxt
        p = nxt
    return p


def local_push(
    passes: Any, seeds: np.ndarray, *, restart: float = 0.25, epsilon: float = 1e-5
) -> tuple[np.ndarray, np.ndarray]:
    """PPR of ``seeds`` (dense weights) by local push over ``passes`` (row-stochastic: the transitions' transpose; a
    CSR with ``indptr``, ``indices`` and ``data``, SciPy's or the graph's own); (nodes, scores) of the nodes reached,
    the same fixed point as :func:`personalized_pagerank` up to ``epsilon``."""
    nodes = np.flatnonzero(seeds)
    return push_from(passes, nodes, seeds[nodes], restart=restart, epsilon=epsilon)


def push_from(
    passes: Any,
    nodes: np.ndarray,
    weights: np.ndarray,
    *,
    restart: float = 0.25,
    epsilon: float = 1e-5,
    patch: Any = None,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`local_push` from seeds given sparsely (node indices and their weights): nothing the size of the
    graph is made (a dense seed vector of a million-observation graph cost 10 ms to make and scan). ``patch``: the
    rows that differ from ``passes``'s (:class:`edge_agent.native.Patch`), where ``passes`` is a grown graph's base."""
    from edge_agent import native

    result = native.ppr_push(passes, nodes, weights, restart=restart, epsilon=epsilon, patch=patch)
    return result.nodes.astype(np.int64), result.values
