"""linear_assignment against SciPy's exact solver."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from edge_agent import native_reference as ref
from edge_agent.native import linear_assignment


def total_gain(sim, rows, cols, threshold):
    return float(np.sum(sim[rows, cols].astype(np.float64) - threshold))


@given(
    hnp.arrays(np.float32, st.tuples(st.integers(0, 12), st.integers(0, 12)), elements=st.floats(0, 1, width=32)),
    st.floats(0, 0.9),
)
@settings(max_examples=300, deadline=None)
def test_optimal_like_scipy(sim, threshold):
    rows, cols = linear_assignment(sim, threshold)
    want_rows, want_cols = ref.linear_assignment(sim, threshold)
    assert rows.dtype == np.int64 and cols.dtype == np.int64
    assert np.all(sim[rows, cols].astype(np.float64) > threshold)  # compared in float64
    assert len(set(rows.tolist())) == len(rows) and len(set(cols.tolist())) == len(cols)
    assert list(rows) == sorted(rows)
    assert total_gain(sim, rows, cols, threshold) == pytest.approx(
        total_gain(sim, want_rows, want_cols, threshold), abs=1e-9
    )


def test_prefers_the_global_optimum_over_greedy():
    sim = np.array([[0.9, 0.8], [0.85, 0.1]], np.float32)
    rows, cols = linear_assignment(sim, 0.0)
    assert list(zip(rows.tolist(), cols.tolist())) == [(0, 1), (1, 0)]


def test_sparse_blocks_are_solved_independently():
    rng = np.random.default_rng(4)
    sim = np.zeros((200, 220), np.float32)
    for b in range(20):  # 20 disjoint 10 x 11 blocks
        sim[b * 10 : (b + 1) * 10, b * 11 : (b + 1) * 11] = rng.uniform(0.1, 1, (10, 11))
    rows, cols = linear_assignment(sim, 0.05)
    want_rows, want_cols = ref.linear_assignment(sim, 0.05)
    assert rows.tolist() == want_rows.tolist() and cols.tolist() == want_cols.tolist()


@pytest.mark.parametrize(
    ("sim", "threshold", "match"),
    [
        (np.zeros(3), 0.1, r"similarity must have shape \(N, M\)"),
        ([[np.nan]], 0.1, "similarity contains NaN or inf"),
        ([[0.5]], float("nan"), "min_similarity must be finite"),
    ],
)
def test_bad_input(sim, threshold, match):
    with pytest.raises(ValueError, match=match):
        linear_assignment(sim, threshold)


@pytest.mark.parametrize("threads", [1, 2])
def test_csr_matvec_matches_scipy(threads):
    import scipy.sparse as sp

    from edge_agent.native import csr_matvec

    rng = np.random.default_rng(threads)
    n, m = 9000, 40000
    a = sp.csr_matrix((rng.random(m), (rng.integers(0, n, m), rng.integers(0, n, m))), shape=(n, n))
    x = rng.random(n)
    np.testing.assert_allclose(csr_matvec(a, x, threads=threads), a @ x, rtol=1e-12)
    with pytest.raises(ValueError, match="indices must be in"):
        csr_matvec(a, x[:10])
