"""association_test and cosine_topk against the NumPy reference, with properties and bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from edge_agent import native_reference as ref
from edge_agent.native import AssociationResult, association_test, cosine_topk, kernel_isa

TOL = 2e-5


def unit_rows(rng, n, d):
    x = rng.normal(size=(n, d)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


@st.composite
def association_inputs(draw):
    d = draw(st.integers(1, 40))
    r = draw(st.integers(1, 30))
    q = draw(st.integers(1, 5))
    elements = st.one_of(st.floats(0.125, 1, width=32), st.floats(-1, -0.125, width=32))  # rows never zero
    queries = draw(hnp.arrays(np.float32, (q, d), elements=elements))
    refs = draw(hnp.arrays(np.float32, (r, d), elements=elements))
    owners = draw(hnp.arrays(np.int64, (r,), elements=st.integers(-3, 6)))
    tau_low = draw(st.floats(-1, 1))
    tau_high = draw(st.floats(tau_low, 1))
    return queries, refs, owners, tau_low, tau_high


@given(association_inputs())
@settings(max_examples=300, deadline=None)
def test_association_matches_reference(inputs):
    queries, refs, owners, tau_low, tau_high = inputs
    got = association_test(queries, refs, owners, tau_low, tau_high)
    want_owner, _, want_lo, want_hi, want_mean = ref.association_test(queries, refs, owners, tau_low, tau_high)
    np.testing.assert_array_equal(got.owner, want_owner)
    np.testing.assert_allclose(got.min_sim, want_lo, atol=TOL)
    np.testing.assert_allclose(got.max_sim, want_hi, atol=TOL)
    np.testing.assert_allclose(got.mean_sim, want_mean, atol=TOL)
    # The rule, on the values it reports: every reference >= tau_low, at least one >= tau_high.
    expected = (got.min_sim >= np.float32(tau_low)) & (got.max_sim >= np.float32(tau_high))
    np.testing.assert_array_equal(got.qualifies, expected)
    assert np.all(got.min_sim <= got.mean_sim + 1e-6) and np.all(got.mean_sim <= got.max_sim + 1e-6)


def test_association_single_and_batched_agree():
    rng = np.random.default_rng(0)
    refs = unit_rows(rng, 4000, 512)
    owners = np.repeat(np.arange(1000), 4)
    queries = unit_rows(rng, 3, 512)
    batch = association_test(queries, refs, owners, 0.0, 0.1)
    assert batch.qualifies.shape == (3, 1000) and batch.owner.shape == (1000,)
    for i in range(3):
        one = association_test(queries[i], refs, owners, 0.0, 0.1)
        assert one.qualifies.shape == (1000,)
        # One query takes a fused single-pass kernel; sums may differ in the last bits.
        np.testing.assert_allclose(one.min_sim, batch.min_sim[i], atol=1e-6)
        np.testing.assert_allclose(one.mean_sim, batch.mean_sim[i], atol=1e-6)
        clear = (np.abs(batch.min_sim[i]) > 1e-5) & (np.abs(batch.max_sim[i] - 0.1) > 1e-5)  # away from both taus
        np.testing.assert_array_equal(one.qualifies[clear], batch.qualifies[i][clear])
    assert "owners=1000" in repr(batch) and isinstance(batch, AssociationResult)


def test_association_one_contradicting_reference_refuses():
    # GEB: a match supported by one reference but contradicted by another (below tau_low) is refused.
    query = np.array([1, 0, 0], np.float32)
    refs = np.array([[1, 0.05, 0], [0, 1, 0], [0.95, 0.1, 0], [0.9, 0.2, 0]], np.float32)
    result = association_test(query, refs, [7, 7, 9, 9], tau_low=0.5, tau_high=0.95)
    assert result.owner.tolist() == [7, 9]
    assert result.qualifies.tolist() == [False, True]
    assert result.max_sim[0] > 0.95  # the supporting reference alone would have matched


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"query": np.zeros(3)}, ValueError, "query row 0 has zero norm"),
        ({"query": [np.nan, 1, 1]}, ValueError, "query row 0 contains NaN or inf"),
        ({"refs": [[1, 1, 1], [0, 0, 0]]}, ValueError, "refs row 1 has zero norm"),
        ({"refs": [[1, 1, 1], [np.inf, 0, 0]]}, ValueError, "refs row 1 contains NaN or inf"),
        ({"refs": [[1, 1], [1, 1]]}, ValueError, r"refs must have shape \(R, D\) with D matching query, got \(2, 2\)"),
        ({"ref_owner": [1]}, ValueError, r"ref_owner must have shape \(R,\) matching refs, got \(1,\)"),
        ({"ref_owner": [1.0, 2.0]}, TypeError, "ref_owner must be an integer array"),
        ({"tau_low": 0.9, "tau_high": 0.5}, ValueError, "tau_low must not exceed tau_high"),
        ({"tau_high": 2.0}, ValueError, r"tau_high must be in \[-1, 1\]"),
        ({"query": np.ones((2, 2, 3))}, ValueError, r"query must have shape \(Q, D\)"),
    ],
)
def test_association_bad_input(kwargs, error, match):
    args = {"query": [1, 0, 0], "refs": [[1, 1, 1], [1, 0, 0]], "ref_owner": [1, 2], "tau_low": 0.2, "tau_high": 0.5}
    args.update(kwargs)
    with pytest.raises(error, match=match):
        association_test(**args)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize(("n", "d", "q", "k"), [(1000, 512, 1, 10), (700, 37, 9, 5), (5, 8, 3, 10), (300, 3, 4, 300)])
def test_cosine_topk_matches_reference(dtype, n, d, q, k):
    rng = np.random.default_rng(n + d + q)
    base = rng.normal(size=(n, d)).astype(dtype)
    queries = rng.normal(size=(q, d)).astype(np.float32)
    idx, scores = cosine_topk(queries, base, k)
    want_idx, want_scores = ref.cosine_topk(queries, base.astype(np.float32), k)
    assert idx.shape == scores.shape == (q, min(k, n))
    assert idx.dtype == np.int64 and scores.dtype == np.float32
    np.testing.assert_allclose(scores, want_scores, atol=TOL)
    # Indices agree wherever the reference's neighbours are not within tolerance of a tie.
    gaps = np.abs(np.diff(want_scores, axis=1)) > 1e-4
    separable = np.concatenate([gaps, np.ones((q, 1), bool)], axis=1) & np.concatenate(
        [np.ones((q, 1), bool), gaps], axis=1
    )
    np.testing.assert_array_equal(idx[separable], want_idx[separable])
    assert np.all(np.diff(scores, axis=1) <= 0)


@given(st.integers(1, 200), st.integers(1, 20), st.integers(1, 12), st.integers(0, 2**31))
@settings(max_examples=60, deadline=None)
def test_cosine_topk_scores_are_true_cosines(n, d, k, seed):
    rng = np.random.default_rng(seed)
    base = rng.normal(size=(n, d)).astype(np.float32)
    assume(np.all(np.linalg.norm(base, axis=1) > 1e-3))
    query = rng.normal(size=d).astype(np.float32)
    idx, scores = cosine_topk(query, base, k)
    cos = ref._cosine(query[None], base)[0]
    np.testing.assert_allclose(scores[0], cos[idx[0]], atol=TOL)
    assert len(set(idx[0].tolist())) == idx.shape[1]
    assert scores[0, -1] >= np.sort(cos)[::-1][min(k, n) - 1] - TOL


def test_cosine_topk_ties_prefer_lower_index():
    base = np.tile(np.array([[1, 0]], np.float32), (6, 1))
    idx, _ = cosine_topk([[1, 0]], base, 3)
    assert idx.tolist() == [[0, 1, 2]]


@pytest.mark.parametrize(
    ("queries", "base", "k", "error", "match"),
    [
        ([[1, 0]], [[1, 0], [0, 0]], 1, ValueError, "base row 1 has zero norm"),
        ([[1, 0]], [[1, 0], [np.nan, 0]], 1, ValueError, "base row 1 contains NaN or inf"),
        ([[np.inf, 0]], [[1, 0]], 1, ValueError, "queries row 0 contains NaN or inf"),
        ([[0, 0]], [[1, 0]], 1, ValueError, "queries row 0 has zero norm"),
        ([[1, 0]], [[1, 0, 0]], 1, ValueError, r"base must have shape \(N, D\) with D matching queries, got \(1, 3\)"),
        ([[1, 0]], [[1, 0]], 0, ValueError, "k must be >= 1"),
        ([[1, 0]], [["a", "b"]], 1, TypeError, "base must be a real-valued numeric array"),
    ],
)
def test_cosine_topk_bad_input(queries, base, k, error, match):
    with pytest.raises(error, match=match):
        cosine_topk(queries, base, k)


def test_cosine_topk_empty_base_and_views():
    idx, scores = cosine_topk(np.ones((2, 4)), np.empty((0, 4)), 5)
    assert idx.shape == (2, 0) and scores.shape == (2, 0)
    wide = np.random.default_rng(1).normal(size=(50, 16))
    idx, _ = cosine_topk(wide[:3, ::2], wide[:, ::2], 1)  # non-contiguous float64 views are converted
    assert idx[:, 0].tolist() == [0, 1, 2]


def test_kernel_isa_is_reported():
    assert kernel_isa in {"avx+fma", "baseline"}


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_cosine_topk_threads_give_identical_results(threads):
    rng = np.random.default_rng(7)
    base = rng.normal(size=(5000, 64)).astype(np.float32)
    queries = rng.normal(size=(3, 64)).astype(np.float32)
    want = cosine_topk(queries, base, 7, threads=1)
    got = cosine_topk(queries, base, 7, threads=threads)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    base[4000, 3] = np.nan  # the error names the same row whichever thread meets it
    with pytest.raises(ValueError, match="base row 4000 contains NaN or inf"):
        cosine_topk(queries, base, 7, threads=threads)
    with pytest.raises(ValueError, match="threads must be >= 0"):
        cosine_topk(queries, base, 7, threads=-1)
