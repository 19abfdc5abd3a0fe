"""The public long-video QA benchmarks by name: read a benchmark's questions (:func:`load`), find an item's
video (:func:`video_for`) and score predictions the benchmark's way (:func:`score`). One module per
benchmark holds its reader (:mod:`.egolifeqa`, :mod:`.ego_r1_bench`, :mod:`.m3_bench`, :mod:`.multihop_egoqa`)."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from edge_agent.errors import EdgeAgentError
from edge_agent.eval.benchmarks import ego_r1_bench, egolifeqa, m3_bench, multihop_egoqa
from edge_agent.eval.benchmarks.base import (
    GROUNDING_ONLY,
    BenchmarkFormatError,
    BenchmarkItem,
    Judge,
    Prediction,
    by_type,
    question_files,
    score_answers,
    score_choices,
)
from edge_agent.eval.benchmarks.multihop_egoqa import score_grounding

__all__ = ["BENCHMARKS", "load", "score", "video_for"]


class VideoNotFoundError(EdgeAgentError, FileNotFoundError):
    """A video a benchmark question needs is not in the videos folder (the message says where it was expected)."""


_LOADERS: dict[str, Callable[[str, Path], list[BenchmarkItem]]] = {
    module.NAME: module.load_file for module in (egolifeqa, ego_r1_bench, m3_bench, multihop_egoqa)
}
BENCHMARKS: tuple[str, ...] = tuple(_LOADERS)


def _check_name(name: str) -> str:
    key = name.strip().lower()
    if key not in _LOADERS:
        raise ValueError(f"unknown benchmark {name!r}; known: {', '.join(BENCHMARKS)}")
    return key


def load(name: str, path: str | os.PathLike[str]) -> list[BenchmarkItem]:
    """The questions of benchmark ``name`` (one of :data:`BENCHMARKS`) from a question file, or from every
    .json/.jsonl file in a folder (e.g. the six EgoLifeQA wearers, or M3-Bench's robot.json and web.json).
    Raises BenchmarkFormatError on a file of another shape (also on repeated item ids)."""
    key = _check_name(name)
    items: list[BenchmarkItem] = []
    seen: dict[str, Path] = {}
    for file in question_files(Path(path)):
        for index, item in enumerate(_LOADERS[key](key, file)):
            if item.item_id in seen:
                raise BenchmarkFormatError(
                    file, index, "ID", f"id {item.item_id!r} repeats one in {seen[item.item_id]}"
                )
            seen[item.item_id] = file
            items.append(item)
    return items


def video_for(item: BenchmarkItem, videos_dir: str | os.PathLike[str]) -> Path:
    """The item's video (EgoLife: the wearer's folder of DAYn pieces) under the user's videos folder.
    Tried in order: ``videos_dir/item.video``, then its file name alone; raises FileNotFoundError naming
    the path expected."""
    root = Path(videos_dir)
    rel = Path(item.video)
    candidates = [root / rel]
    if rel.name != str(rel):
        candidates.append(root / rel.name)
    for c in candidates:
        if c.exists():
            return c
    hint = ""
    meta = item.raw.get("video")
    if item.benchmark == "m3-bench" and isinstance(meta, Mapping) and meta.get("video_url"):
        hint = f" (download from {meta['video_url']})"
    elif item.benchmark in ("egolifeqa", "ego-r1-bench"):
        hint = f" (a folder {item.video}/DAYn/DAYn_{item.video}_HHMMSSFF.mp4 from lmms-lab/EgoLife)"
    raise VideoNotFoundError(
        f"video for {item.benchmark} item {item.item_id!r} not found: expected {candidates[0]}{hint}"
    )


def score(
    name: str, items: Sequence[BenchmarkItem], predictions: Mapping[str, Prediction], judge: Judge | None = None
) -> dict[str, Any]:
    """Scores ``predictions`` (item_id -> Prediction) on ``items`` the way the benchmark does; a missing
    prediction counts as wrong. Keys: ``accuracy``, ``answered``, ``total``, ``by_type``; multiple choice
    (EgoLifeQA, Ego-R1-Bench): accuracy of the chosen letter (``choice_index``, else a letter parsed from
    ``text``). Open-ended (M3-Bench, MultiHop-EgoQA): ``accuracy`` by ``judge`` (question, reference,
    prediction) -> bool, by default :func:`offline_judge` (a stand-in, not the official GPT-4o score),
    and ``token_f1`` (mean). MultiHop-EgoQA also: ``temporal_iou`` (mean over all items of the IoU of
    predicted and annotated evidence in whole seconds, no spans scoring 0), ``iou_at_0.3`` and
    ``answer_total`` (the items with a text reference, over which the answer scores run)."""
    key = _check_name(name)
    wrong = sorted({i.benchmark for i in items} - {key})
    if wrong:
        raise ValueError(f"items of {', '.join(wrong)} scored as {key}")
    ids = {i.item_id for i in items}
    unknown = [k for k in predictions if k not in ids]
    if unknown:
        raise ValueError(f"{len(unknown)} predictions for items not given, e.g. {unknown[:5]}")
    total = len(items)
    correct: dict[str, bool] = {}
    out: dict[str, Any] = {"total": total}

    if key in (egolifeqa.NAME, ego_r1_bench.NAME):
        out.update(score_choices(items, predictions, correct))
    else:
        out.update(score_answers(items, predictions, judge, correct))
        if key == multihop_egoqa.NAME:
            answer_total = sum(GROUNDING_ONLY not in i.tags for i in items)
            out.update(answer_total=answer_total, **score_grounding(items, predictions))
    out["by_type"] = by_type(items, correct)
    return out
