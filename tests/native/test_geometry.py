"""iou_matrix and GEB's separation test against the NumPy reference, with properties and bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from edge_agent import native_reference as ref
from edge_agent.native import Separation, iou_matrix, separation

coord = st.floats(0, 2000, allow_nan=False, width=32)
size = st.floats(0, 300, allow_nan=False, width=32)


@st.composite
def boxes(draw, min_size=0, max_size=12):
    n = draw(st.integers(min_size, max_size))
    xy = draw(hnp.arrays(np.float32, (n, 2), elements=coord))
    wh = draw(hnp.arrays(np.float32, (n, 2), elements=size))
    return np.hstack([xy, xy + wh]).astype(np.float32)


@given(boxes(), boxes())
@settings(max_examples=200, deadline=None)
def test_iou_matches_reference_and_is_bounded(a, b):
    got = iou_matrix(a, b)
    assert got.dtype == np.float32 and got.shape == (len(a), len(b))
    np.testing.assert_allclose(got, ref.iou_matrix(a, b), atol=1e-6, rtol=0)
    assert np.all((got >= 0) & (got <= 1))


@given(boxes(min_size=1))
@settings(max_examples=100, deadline=None)
def test_iou_symmetric_and_self_is_one(a):
    m = iou_matrix(a, a)
    np.testing.assert_array_equal(m, m.T)
    has_area = (a[:, 2] > a[:, 0]) & (a[:, 3] > a[:, 1])
    np.testing.assert_allclose(np.diag(m)[has_area], 1.0, atol=1e-6)
    assert np.all(np.diag(m)[~has_area] == 0)  # a box without area overlaps nothing


def test_iou_known_values_and_empty():
    a = np.array([[0, 0, 10, 10]], np.float32)
    b = np.array([[5, 0, 15, 10], [10, 10, 20, 20], [0, 0, 10, 10]], np.float32)
    np.testing.assert_allclose(iou_matrix(a, b), [[50 / 150, 0.0, 1.0]], rtol=1e-6)
    assert iou_matrix(np.empty((0, 4)), b).shape == (0, 3)
    assert iou_matrix(a, np.empty((0, 4))).shape == (1, 0)


@pytest.mark.parametrize(
    ("a", "error", "match"),
    [
        (np.zeros((2, 3)), ValueError, r"a must have shape \(N, 4\) as x1, y1, x2, y2, got \(2, 3\)"),
        (np.zeros(4), ValueError, r"got \(4,\)"),
        ([[0, 0, np.nan, 1]], ValueError, "a contains NaN or inf"),
        ([[0, 0, -np.inf, 1]], ValueError, "a contains NaN or inf"),
        ([[5, 5, 1, 1]], ValueError, "a row 0 has x2 < x1 or y2 < y1"),
        (np.array([[1 + 1j, 0, 2, 2]]), TypeError, "a must be a real-valued numeric array"),
        (np.array([["x", "y", "z", "w"]]), TypeError, "a must be a real-valued numeric array"),
    ],
)
def test_iou_bad_input(a, error, match):
    with pytest.raises(error, match=match):
        iou_matrix(a, np.zeros((1, 4)))


def test_iou_converts_float64_and_views():
    wide = np.zeros((3, 8))
    wide[:, ::2] = [[0, 0, 10, 10], [5, 0, 15, 10], [0, 0, 4, 4]]
    view = wide[:, ::2]
    assert not view.flags.c_contiguous
    np.testing.assert_allclose(iou_matrix(view, view), ref.iou_matrix(view, view), atol=1e-6)


@st.composite
def observations(draw):
    frames = np.array(sorted(draw(st.sets(st.integers(0, 40), max_size=25))), dtype=np.int64)
    xy = draw(hnp.arrays(np.float32, (len(frames), 2), elements=st.floats(0, 200, width=32)))
    wh = draw(hnp.arrays(np.float32, (len(frames), 2), elements=st.floats(1, 80, width=32)))
    return frames, np.hstack([xy, xy + wh]).astype(np.float32)


@given(observations(), observations(), st.floats(0.05, 0.9), st.integers(1, 6), st.floats(0, 1))
@settings(max_examples=300, deadline=None)
def test_separation_matches_reference(a, b, iou_threshold, min_shared, min_fraction):
    got = separation(*a, *b, iou_threshold, min_shared, min_fraction)
    want = ref.separation(*a, *b, iou_threshold, min_shared, min_fraction)
    assert isinstance(got, Separation)
    assert got.shared == want[1]
    assert got.fraction == pytest.approx(want[2], abs=1e-12)
    assert got.separated == want[0]
    if got.separated:
        assert got.shared >= min_shared and got.fraction >= min_fraction


@given(observations())
@settings(max_examples=100, deadline=None)
def test_an_observation_is_never_separated_from_itself(a):
    assert not separation(*a, *a, 0.5, 1, 0.01).separated


def test_separation_side_by_side_vs_same_place():
    frames = np.arange(10)
    left = np.tile([[0, 0, 50, 50]], (10, 1))
    right = np.tile([[200, 0, 250, 50]], (10, 1))
    assert separation(frames, left, frames, right) == Separation(True, 10, 1.0)
    assert separation(frames, left, frames, left + 1).separated is False
    # Shared frames below the minimum: no evidence either way.
    assert separation(frames[:1], left[:1], frames[:1], right[:1], min_shared_frames=2) == Separation(False, 1, 1.0)
    assert separation(frames[:5], left[:5], frames[5:], right[5:]) == Separation(False, 0, 0.0)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"frames_a": [2, 1]}, ValueError, "frames_a must be strictly increasing"),
        ({"frames_b": [1, 1]}, ValueError, "frames_b must be strictly increasing"),
        ({"frames_a": [1.0, 2.0]}, TypeError, "frames_a must be an integer array"),
        (
            {"boxes_a": np.zeros((3, 4))},
            ValueError,
            r"boxes_a must have shape \(K, 4\) matching frames_a, got \(3, 4\)",
        ),
        ({"boxes_b": [[0, 0, np.nan, 1], [0, 0, 1, 1]]}, ValueError, "boxes_b contains NaN or inf"),
        ({"iou_threshold": 1.5}, ValueError, r"iou_threshold must be in \[0, 1\]"),
        ({"min_shared_frames": 0}, ValueError, "min_shared_frames must be >= 1"),
        ({"min_fraction": -0.1}, ValueError, r"min_fraction must be in \[0, 1\]"),
    ],
)
def test_separation_bad_input(kwargs, error, match):
    args = {
        "frames_a": [1, 2],
        "boxes_a": [[0, 0, 1, 1], [0, 0, 1, 1]],
        "frames_b": [1, 2],
        "boxes_b": [[0, 0, 1, 1], [0, 0, 1, 1]],
    }
    args.update(kwargs)
    with pytest.raises(error, match=match):
        separation(**args)
