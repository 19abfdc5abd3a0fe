"""The scores of EVAL.md: identity (pairwise and B-cubed, over observations labelled with their true
instance) and evidence recall (the questions whose evidence windows all reach the answering context)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import TypeVar

__all__ = ["IDENTITY_KEYS", "evidence_covered", "identity_scores"]

IDENTITY_KEYS = (
    "pairwise_precision",
    "pairwise_recall",
    "pairwise_f1",
    "false_merge_rate",
    "bcubed_precision",
    "bcubed_recall",
    "bcubed_f1",
)

_Item = TypeVar("_Item", bound=Hashable)


def _f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


def identity_scores(predicted: Mapping[_Item, Hashable], truth: Mapping[_Item, Hashable]) -> dict[str, float]:
    """Entities (``predicted``: item -> entity) against instances (``truth``: item -> instance), over
    the items both label. Pairwise: over item pairs, "same entity" against "same instance"; the
    false-merge rate is the share of pairs put in one entity that are different instances (1 - pairwise
    precision; 0 when nothing was merged). B-cubed: per item, the share of its entity that is its
    instance (precision) and of its instance that is in its entity (recall), averaged over items."""
    items = [i for i in predicted if i in truth]
    if not items:
        return {k: 0.0 for k in IDENTITY_KEYS} | {"items": 0}
    both = Counter((predicted[i], truth[i]) for i in items)
    entity_size = Counter(predicted[i] for i in items)
    instance_size = Counter(truth[i] for i in items)
    pairs: Callable[[int], int] = lambda n: n * (n - 1) // 2  # noqa: E731
    same_both = sum(pairs(n) for n in both.values())
    same_entity = sum(pairs(n) for n in entity_size.values())
    same_instance = sum(pairs(n) for n in instance_size.values())
    precision = same_both / same_entity if same_entity else 1.0
    recall = same_both / same_instance if same_instance else 1.0
    # B-cubed: each item of cell (e, g) sees |e and g| / |e| and |e and g| / |g|.
    b_precision = sum(n * n / entity_size[e] for (e, _), n in both.items()) / len(items)
    b_recall = sum(n * n / instance_size[g] for (_, g), n in both.items()) / len(items)
    return {
        "pairwise_precision": precision,
        "pairwise_recall": recall,
        "pairwise_f1": _f1(precision, recall),
        "false_merge_rate": 1.0 - precision,
        "bcubed_precision": b_precision,
        "bcubed_recall": b_recall,
        "bcubed_f1": _f1(b_precision, b_recall),
        "items": len(items),
    }


def evidence_covered(
    windows: Sequence[tuple[Hashable, float, float]], records: Iterable[tuple[Hashable, float, float]]
) -> bool:
    """True when every evidence window (instance, t0, t1) overlaps in time some record of the same
    instance in the context (records: (instance, t_start, t_end))."""
    by_instance: dict[Hashable, list[tuple[float, float]]] = {}
    for instance, a, b in records:
        by_instance.setdefault(instance, []).append((a, b))
    return all(any(a <= t1 and b >= t0 for a, b in by_instance.get(instance, ())) for instance, t0, t1 in windows)
