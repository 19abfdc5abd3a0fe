"""Identity and evidence scores on hand-counted cases."""

from __future__ import annotations

import pytest

from edge_agent.eval.metrics import evidence_covered, identity_scores


def test_perfect_and_all_merged():
    truth = {1: "a", 2: "a", 3: "b", 4: "c"}
    perfect = identity_scores({1: 10, 2: 10, 3: 11, 4: 12}, truth)
    assert perfect["pairwise_f1"] == perfect["bcubed_f1"] == 1.0 and perfect["false_merge_rate"] == 0.0
    merged = identity_scores({1: 0, 2: 0, 3: 0, 4: 0}, truth)
    # 6 pairs in one entity, 1 of them truly the same instance
    assert merged["pairwise_precision"] == pytest.approx(1 / 6) and merged["false_merge_rate"] == pytest.approx(5 / 6)
    assert merged["pairwise_recall"] == 1.0
    # B-cubed precision: a-items 2/4 each, b and c 1/4 each -> (0.5 + 0.5 + 0.25 + 0.25) / 4
    assert merged["bcubed_precision"] == pytest.approx(0.375) and merged["bcubed_recall"] == 1.0


def test_split_instance():
    truth = {1: "a", 2: "a", 3: "a", 4: "b"}
    split = identity_scores({1: 0, 2: 0, 3: 1, 4: 2}, truth)
    assert split["pairwise_precision"] == 1.0 and split["pairwise_recall"] == pytest.approx(1 / 3)
    # B-cubed recall: items 1, 2 see 2/3, item 3 sees 1/3, item 4 sees 1 -> (2/3 + 2/3 + 1/3 + 1) / 4
    assert split["bcubed_recall"] == pytest.approx((2 / 3 + 2 / 3 + 1 / 3 + 1) / 4)
    assert split["items"] == 4


def test_unlabelled_items_are_left_out():
    assert identity_scores({1: 0, 2: 0, 9: 0}, {1: "a", 2: "a"})["items"] == 2
    assert identity_scores({}, {1: "a"})["items"] == 0


def test_evidence_covered():
    records = [("mug", 10.0, 20.0), ("dog", 50.0, 60.0)]
    assert evidence_covered([("mug", 15.0, 30.0), ("dog", 40.0, 50.0)], records)
    assert not evidence_covered([("mug", 15.0, 30.0), ("dog", 61.0, 70.0)], records)
    assert not evidence_covered([("keys", 10.0, 20.0)], records)
    assert evidence_covered([], records)
