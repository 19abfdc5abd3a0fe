"""MultiHop-EgoQA: open-ended questions whose answer needs several moments of a 3-minute egocentric clip,
each with its evidence spans: answers and grounding are scored.

MultiHop-EgoQA (Chen, Di, Xie, "Grounded Multi-Hop VideoQA in Long-Form
Egocentric Videos"; github.com/qirui-chen/MultiHop-EgoQA, annotation ``MultiHop-EgoQA.json`` from
the Hugging Face dataset ``SurplusDeficit/MultiHop-EgoQA``): a list of ``{sample_id, segment_id,
category, Q, A, T}``, ``T`` the evidence as ``[[s, e], ...]`` (or one ``[s, e]``) in integer seconds of
the 180-second clip ``<segment_id>.mp4``; answers may carry grounding tags ``<T1>..</T1>`` (removed;
a reference with an empty pair ``<T1></T1>`` is grounding-only and, as in the official
``evaluate_answering.py``, not scored for its answer). The training file's nested shape
``{segment_id, annotated_QA: [{Q, A, T, Evidence}]}`` is read too. Official scores: a GPT-4o grade
(1-10) plus caption metrics for answers; mIoU and IoU@0.3 for grounding (``evaluate_grounding.py``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from edge_agent.eval.benchmarks.base import (
    GROUNDING_ONLY,
    BenchmarkFormatError,
    BenchmarkItem,
    Prediction,
    Span,
    pick,
    read_questions,
    records,
    temporal_iou,
    text_field,
)

__all__ = ["NAME", "load_file", "score_grounding"]

NAME = "multihop-egoqa"


_GROUND_TAG = re.compile(r"</?T\d+>")
_EMPTY_GROUND = re.compile(r"<T\d+>\s*</T\d+>")


def _spans(value: Any) -> list[Span]:
    """``[s, e]`` or ``[[s, e], ...]`` -> spans; raises ValueError."""
    if not isinstance(value, list):
        raise ValueError(f"expected [s, e] or [[s, e], ...], found {type(value).__name__}")
    if len(value) == 2 and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        value = [value]
    out: list[Span] = []
    for v in value:
        if not (
            isinstance(v, (list, tuple))
            and len(v) == 2
            and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v)
        ):
            raise ValueError(f"not an interval [s, e]: {v!r}")
        s, e = float(v[0]), float(v[1])
        if e < s:
            raise ValueError(f"interval ends before it starts: {v!r}")
        out.append((s, e))
    return out


def _multihop_item(
    benchmark: str, path: Path, at: int | str, rec: Mapping[str, Any], segment: str | None, fallback_id: str
) -> BenchmarkItem:
    if segment is None:
        segment = text_field(pick(rec, ("segment_id", "video_id"), path, at), path, at, "segment_id")
    sid = rec.get("sample_id", rec.get("id"))
    qid = fallback_id if sid is None else text_field(sid, path, at, "sample_id")
    question = text_field(pick(rec, ("Q", "question"), path, at), path, at, "Q")
    raw_answer = text_field(pick(rec, ("A", "answer"), path, at), path, at, "A")
    try:
        evidence = tuple(_spans(pick(rec, ("T",), path, at)))
    except ValueError as e:
        raise BenchmarkFormatError(path, at, "T", str(e)) from e
    answer = re.sub(r"\s+", " ", _GROUND_TAG.sub("", raw_answer)).strip()
    category = rec.get("category", rec.get("type"))
    tags = ((str(category),) if category else ()) + ((GROUNDING_ONLY,) if _EMPTY_GROUND.search(raw_answer) else ())
    return BenchmarkItem(
        benchmark=benchmark,
        item_id=qid,
        video=f"{segment}.mp4",
        question=question,
        answer=answer,
        evidence=evidence,
        tags=tags,
        raw=rec,
    )


def load_file(benchmark: str, path: Path) -> list[BenchmarkItem]:
    """The items of a MultiHop-EgoQA annotation file (the flat test shape or the nested training one)."""
    items: list[BenchmarkItem] = []
    for i, rec in enumerate(records(path, read_questions(path))):
        if not isinstance(rec, dict):
            raise BenchmarkFormatError(path, i, "<item>", f"expected an object, found {type(rec).__name__}")
        if "annotated_QA" in rec:  # the training file's nested shape
            segment = text_field(pick(rec, ("segment_id",), path, i), path, i, "segment_id")
            if not isinstance(rec["annotated_QA"], list):
                raise BenchmarkFormatError(path, i, "annotated_QA", "expected a list")
            for j, qa in enumerate(rec["annotated_QA"]):
                at = f"{i} (segment {segment!r}, question {j})"
                if not isinstance(qa, dict):
                    raise BenchmarkFormatError(path, at, "<question>", "expected an object")
                items.append(_multihop_item(benchmark, path, at, qa, segment, f"{segment}_{j}"))
        else:
            items.append(_multihop_item(benchmark, path, i, rec, None, str(i)))
    return items


def score_grounding(items: Sequence[BenchmarkItem], predictions: Mapping[str, Prediction]) -> dict[str, Any]:
    """Grounding: the mean over all items of the IoU of predicted and annotated evidence in whole seconds (no
    spans scoring 0), the share above 0.3, and how many items had spans predicted."""
    total = len(items)
    ious = []
    grounded = 0
    for item in items:
        pred = predictions.get(item.item_id)
        spans = pred.spans if pred is not None else ()
        grounded += bool(spans)
        ious.append(temporal_iou(spans, item.evidence, inclusive=True) if spans else 0.0)
    return dict(
        grounded=grounded,
        temporal_iou=sum(ious) / total if total else 0.0,
        **{"iou_at_0.3": sum(v > 0.3 for v in ious) / total if total else 0.0},
    )
