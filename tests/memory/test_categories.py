"""The table of detector categories that may be one thing (edge_agent.memory.categories)."""

from __future__ import annotations

import itertools

import pytest

from edge_agent.memory.categories import CONFUSABLE, compatible, group_of
from edge_agent.perception.detect import COCO_CLASSES


def test_every_category_is_a_detector_class_in_one_group_at_most():
    listed = [c for group in CONFUSABLE for c in group]
    assert len(listed) == len(set(listed))  # no category in two groups (nor twice in one)
    assert set(listed) <= set(COCO_CLASSES)
    assert all(len(group) >= 2 for group in CONFUSABLE)


def test_compatibility_is_symmetric_and_reflexive():
    categories = (*COCO_CLASSES, "keys")
    assert all(compatible(a, a) for a in categories)
    assert [(a, b) for a, b in itertools.product(categories, repeat=2) if compatible(a, b) != compatible(b, a)] == []


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("car", "truck", True),
        ("bus", "truck", True),
        ("couch", "chair", True),
        ("cup", "bowl", True),
        ("cell phone", "remote", True),
        ("Cell Phone", "remote", True),
        ("couch", "cell phone", False),
        ("cup", "bottle", False),
        ("person", "dog", False),
        ("keys", "cell phone", False),  # a category outside the detector's is compatible with itself only
        ("keys", "keys", True),
    ],
)
def test_compatible(a, b, expected):
    assert compatible(a, b) is expected


def test_group_of():
    assert group_of("truck") == ("car", "truck", "bus")
    assert group_of("person") == ("person",)
