"""M3-Bench: open-ended questions on long robot and web videos (the m3-agent benchmark).

M3-Bench (github.com/ByteDance-Seed/m3-agent, ``data/annotations/{robot,web}.json``):
``{video_key: {video_path, mem_path, video_url (web), qa_list: [{question, answer, question_id,
reasoning, timestamp "MM:SS" (robot), type: [...], before_clip (robot)}]}}``. ``before_clip`` is the
last complete 30-second clip before the question (timestamp // 30 - 1 in every robot item).
Open-ended, judged by GPT-4o in the benchmark.
"""

from __future__ import annotations

from pathlib import Path

from edge_agent.eval.benchmarks.base import (
    BenchmarkFormatError,
    BenchmarkItem,
    parse_clock,
    pick,
    read_questions,
    text_field,
)

__all__ = ["NAME", "load_file"]

NAME = "m3-bench"


def load_file(benchmark: str, path: Path) -> list[BenchmarkItem]:
    """The items of one M3-Bench annotation file (robot.json or web.json)."""
    data = read_questions(path)
    if not isinstance(data, dict):
        raise BenchmarkFormatError(
            path, None, "<videos>", f"expected an object video_key -> video, found {type(data).__name__}"
        )
    items: list[BenchmarkItem] = []
    n = 0
    for key, video in data.items():
        where = f"{key!r}"
        if not isinstance(video, dict):
            raise BenchmarkFormatError(path, where, "<video>", "expected an object")
        video_path = text_field(pick(video, ("video_path",), path, where), path, where, "video_path")
        qa_list = pick(video, ("qa_list",), path, where)
        if not isinstance(qa_list, list):
            raise BenchmarkFormatError(path, where, "qa_list", "expected a list")
        rel = video_path[len("data/videos/") :] if video_path.startswith("data/videos/") else video_path
        meta = {k: v for k, v in video.items() if k != "qa_list"}
        for j, qa in enumerate(qa_list):
            at = f"{n} (video {key!r}, question {j})"
            n += 1
            if not isinstance(qa, dict):
                raise BenchmarkFormatError(path, at, "<question>", "expected an object")
            qid = text_field(pick(qa, ("question_id",), path, at), path, at, "question_id")
            question = text_field(pick(qa, ("question",), path, at), path, at, "question")
            answer = text_field(pick(qa, ("answer",), path, at), path, at, "answer")
            query_time = None
            if qa.get("timestamp") is not None:
                try:
                    query_time = parse_clock(qa["timestamp"])
                except ValueError as e:
                    raise BenchmarkFormatError(path, at, "timestamp", str(e)) from e
            kinds = qa.get("type", [])
            if isinstance(kinds, str):
                kinds = [kinds]
            if not isinstance(kinds, list) or not all(isinstance(k, str) for k in kinds):
                raise BenchmarkFormatError(path, at, "type", "expected a list of type names")
            items.append(
                BenchmarkItem(
                    benchmark=benchmark,
                    item_id=qid,
                    video=rel,
                    question=question,
                    answer=answer,
                    query_time=query_time,
                    tags=tuple(kinds),
                    raw={**qa, "video_key": key, "video": meta},
                )
            )
    return items
