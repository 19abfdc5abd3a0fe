"""Readers for the question files of public long-video QA benchmarks, with each benchmark's scoring, so
that a user who has the videos can run them end to end (EVAL.md section 3): EgoLifeQA, Ego-R1-Bench,
M3-Bench and MultiHop-EgoQA, one module each, on a shared base (records, file reading, scores).
Anything that is not a benchmark's published shape fails with a :class:`BenchmarkFormatError` naming the
file, the item and the field."""

from edge_agent.eval.benchmarks.base import (
    DAY_SECONDS,
    GROUNDING_ONLY,
    LETTERS,
    BenchmarkFormatError,
    BenchmarkItem,
    Judge,
    Prediction,
    choice_from_text,
    normalize_answer,
    offline_judge,
    parse_clock,
    temporal_iou,
    token_f1,
)
from edge_agent.eval.benchmarks.catalog import BENCHMARKS, load, score, video_for
from edge_agent.eval.benchmarks.egolifeqa import EGOLIFE_FPS, parse_egolife_time

__all__ = [
    "BENCHMARKS",
    "DAY_SECONDS",
    "EGOLIFE_FPS",
    "GROUNDING_ONLY",
    "LETTERS",
    "BenchmarkFormatError",
    "BenchmarkItem",
    "Judge",
    "Prediction",
    "choice_from_text",
    "load",
    "normalize_answer",
    "offline_judge",
    "parse_clock",
    "parse_egolife_time",
    "score",
    "temporal_iou",
    "token_f1",
    "video_for",
]
