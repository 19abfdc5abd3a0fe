"""What every benchmark reader shares (EVAL.md section 3): the item and prediction records, the format error
that names file, item and field, reading question files, and the scores: multiple-choice accuracy, the
open-ended answer scores (SQuAD-style normalisation, token F1, an offline judge) and temporal IoU."""

from __future__ import annotations

import json
import os
import re
import string
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from edge_agent.errors import EdgeAgentError

__all__ = [
    "DAY_SECONDS",
    "GROUNDING_ONLY",
    "LETTERS",
    "BenchmarkFormatError",
    "BenchmarkItem",
    "Judge",
    "Prediction",
    "Span",
    "by_type",
    "choice_from_text",
    "normalize_answer",
    "offline_judge",
    "parse_clock",
    "pick",
    "question_files",
    "read_questions",
    "records",
    "score_answers",
    "score_choices",
    "temporal_iou",
    "text_field",
    "token_f1",
]

LETTERS = "ABCDEFGH"
DAY_SECONDS = 86400.0
GROUNDING_ONLY = "grounding-only"  #: tag of MultiHop items whose reference answer is a time, not text

Span = tuple[float, float]
Judge = Callable[[str, str, str], bool]  #: (question, reference, prediction) -> correct


class BenchmarkFormatError(EdgeAgentError, ValueError):
    """A question file that does not have a benchmark's published shape."""

    def __init__(
        self, path: str | os.PathLike[str], index: int | str | None, field_name: str, problem: str = "missing"
    ) -> None:
        self.path = str(path)
        self.index = index
        self.field = field_name
        where = f"item {index}" if index is not None else "top level"
        super().__init__(f"{self.path}: {where}: field {field_name!r}: {problem}")


@dataclass(frozen=True)
class BenchmarkItem:
    """One question. ``query_time``: seconds from the start of the recording (EgoLife: since DAY1 00:00)
    before which video may be used, None for the whole video. ``evidence``: annotated (t0, t1) spans on the
    same clock (EgoLife's target times are points, t0 == t1)."""

    benchmark: str
    item_id: str
    video: str  #: key or relative path under the user's videos folder (EgoLife: the wearer's folder)
    question: str
    choices: tuple[str, ...] = ()  #: empty for open-ended questions
    answer_index: int | None = None  #: index into choices for multiple choice
    answer: str = ""  #: reference answer text (the right choice's text for multiple choice)
    query_time: float | None = None
    evidence: tuple[Span, ...] = ()
    tags: tuple[str, ...] = ()  #: question type(s) as the benchmark names them
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False, repr=False)

    @property
    def answer_letter(self) -> str | None:
        return LETTERS[self.answer_index] if self.answer_index is not None else None


@dataclass(frozen=True)
class Prediction:
    """A system's answer to one item: a choice (multiple choice), text (open-ended, or a letter to parse
    when ``choice_index`` is None) and predicted evidence spans in seconds."""

    choice_index: int | None = None
    text: str = ""
    spans: tuple[Span, ...] = ()


# ---------------------------------------------------------------------------------------------- files


def question_files(path: Path) -> list[Path]:
    """The question files at ``path``: the file itself, or every .json/.jsonl file in the folder."""
    if path.is_dir():
        found = sorted(p for p in path.iterdir() if p.is_file() and p.suffix.lower() in (".json", ".jsonl"))
        if not found:
            raise FileNotFoundError(f"{path}: no .json or .jsonl question files in this folder")
        return found
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such question file")
    return [path]


def read_questions(path: Path) -> Any:
    """A question file's content: JSON, or JSON Lines as a list (BenchmarkFormatError naming the line)."""
    text = path.read_text(encoding="utf-8-sig")
    if path.suffix.lower() == ".jsonl":
        rows = []
        for n, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as e:
                    raise BenchmarkFormatError(path, f"line {n}", "<json>", f"not JSON ({e.msg})") from e
        return rows
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise BenchmarkFormatError(path, None, "<json>", f"not JSON ({e.msg} at line {e.lineno})") from e


def records(path: Path, data: Any) -> list[Any]:
    """The list of question records of a list-shaped file (also under a ``data``/``questions``/``annotations`` key)."""
    if isinstance(data, dict):
        for key in ("data", "questions", "annotations"):
            if isinstance(data.get(key), list):
                return list(data[key])
        raise BenchmarkFormatError(
            path, None, "<list>", "expected a list of questions (or one under 'data', 'questions' or 'annotations')"
        )
    if not isinstance(data, list):
        raise BenchmarkFormatError(path, None, "<list>", f"expected a list of questions, found {type(data).__name__}")
    return data


def pick(rec: Mapping[str, Any], names: Sequence[str], path: Path, index: int | str, required: bool = True) -> Any:
    """The first of ``names`` (a field and its accepted aliases) that the record has and is not null."""
    for name in names:
        if name in rec and rec[name] is not None:
            return rec[name]
    if required:
        also = f" (also read as {', '.join(repr(n) for n in names[1:])})" if len(names) > 1 else ""
        raise BenchmarkFormatError(path, index, names[0], "missing" + also)
    return None


def text_field(value: Any, path: Path, index: int | str, name: str) -> str:
    """A text field's value, stripped (numbers are read as text; anything else is a format error)."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise BenchmarkFormatError(path, index, name, f"expected text, found {type(value).__name__}")
    return str(value).strip()


# ------------------------------------------------------------------------------------------- times

_CLOCK = re.compile(r"^\s*(\d+):(\d{1,2})(?::(\d{1,2}(?:\.\d+)?))?\s*$")


def parse_clock(value: str) -> float:
    """ "MM:SS" or "HH:MM:SS" (seconds may carry a fraction) -> seconds. Raises ValueError."""
    m = _CLOCK.match(value) if isinstance(value, str) else None
    if m is None:
        raise ValueError(f"not MM:SS or HH:MM:SS: {value!r}")
    a, b, c = m.group(1), m.group(2), m.group(3)
    if c is None:  # MM:SS (minutes may exceed 59 in long videos)
        if int(b) > 59:
            raise ValueError(f"seconds out of range: {value!r}")
        return int(a) * 60 + float(b)
    if int(b) > 59 or float(c) >= 60:
        raise ValueError(f"minutes or seconds out of range: {value!r}")
    return int(a) * 3600 + int(b) * 60 + float(c)


# ------------------------------------------------------------------------------------------- answers

_ANSWER_TAG = re.compile(r"(?i:<answer>)\s*\(?([A-H])\)?")
_LEADING_LETTER = re.compile(r"^\s*\(?([A-H])\)?(?:[.):,]|\s|$)")
_ANSWER_IS = re.compile(r"\b(?i:answer|option|choice)\s*(?i:is|:)?\s*\(?([A-H])\)?(?:[.):,]|\s|$)")


def choice_from_text(text: str, choices: Sequence[str]) -> int | None:
    """The choice a free-text reply names: "<answer>B</answer>", "B", "(B) ...", "Answer: B", or exactly a
    choice's text; None when it names none."""
    if not text or not text.strip():
        return None
    for pattern in (_ANSWER_TAG, _LEADING_LETTER, _ANSWER_IS):
        m = pattern.search(text)
        if m is not None:
            index = LETTERS.index(m.group(1).upper())
            if index < len(choices):
                return index
    wanted = normalize_answer(text)
    matches = [i for i, c in enumerate(choices) if normalize_answer(c) == wanted]
    return matches[0] if len(matches) == 1 else None


_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = re.compile(f"[{re.escape(string.punctuation)}\u3000-\u303f\uff00-\uffef]")


def normalize_answer(text: str) -> str:
    """Lower case, punctuation and the articles a/an/the removed, whitespace collapsed (SQuAD's normalisation)."""
    text = _PUNCT.sub(" ", text.lower())
    return " ".join(_ARTICLES.sub(" ", text).split())


def token_f1(prediction: str, reference: str) -> float:
    """Token-level F1 of two answers after :func:`normalize_answer` (1.0 when both are empty)."""
    p, r = normalize_answer(prediction).split(), normalize_answer(reference).split()
    if not p or not r:
        return 1.0 if p == r else 0.0
    counts: dict[str, int] = defaultdict(int)
    for t in r:
        counts[t] += 1
    common = 0
    for t in p:
        if counts[t] > 0:
            counts[t] -= 1
            common += 1
    if common == 0:
        return 0.0
    precision, recall = common / len(p), common / len(r)
    return 2 * precision * recall / (precision + recall)


def offline_judge(question: str, reference: str, prediction: str) -> bool:
    """Correct when the normalised answers are equal or their token F1 is >= 0.5. A stand-in that needs no
    LLM for the GPT-4o judge of M3-Bench and MultiHop-EgoQA: not the official score."""
    del question
    norm = normalize_answer(prediction)
    return bool(norm) and (norm == normalize_answer(reference) or token_f1(prediction, reference) >= 0.5)


def _union(spans: Iterable[Span]) -> list[Span]:
    merged: list[list[float]] = []
    for s, e in sorted((float(a), float(b)) for a, b in spans):
        if e < s:
            raise ValueError(f"span ends before it starts: ({s}, {e})")
        if merged and s <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    return [(a, b) for a, b in merged]


def temporal_iou(pred_spans: Iterable[Span], gold_spans: Iterable[Span], inclusive: bool = False) -> float:
    """Length of the intersection over the length of the union of the two span sets, each first merged
    into its union; 0.0 when the union is empty. ``inclusive``: spans are whole seconds [s, e] covering
    e - s + 1 seconds, the counting of MultiHop-EgoQA's ``evaluate_grounding.py``."""
    pad = 1.0 if inclusive else 0.0
    p = _union((s, e + pad) for s, e in pred_spans)
    g = _union((s, e + pad) for s, e in gold_spans)
    inter, i, j = 0.0, 0, 0
    while i < len(p) and j < len(g):
        lo, hi = max(p[i][0], g[j][0]), min(p[i][1], g[j][1])
        inter += max(0.0, hi - lo)
        if p[i][1] < g[j][1]:
            i += 1
        else:
            j += 1
    union = sum(e - s for s, e in p) + sum(e - s for s, e in g) - inter
    return inter / union if union > 0 else 0.0


def by_type(items: Sequence[BenchmarkItem], correct: Mapping[str, bool]) -> dict[str, float]:
    """Accuracy per question type (the items' tags), grounding-only items left out."""
    hits: dict[str, list[bool]] = defaultdict(list)
    for item in items:
        for tag in item.tags:
            if tag != GROUNDING_ONLY and item.item_id in correct:
                hits[tag].append(correct[item.item_id])
    return {tag: sum(v) / len(v) for tag, v in sorted(hits.items())}


def score_choices(
    items: Sequence[BenchmarkItem], predictions: Mapping[str, Prediction], correct: dict[str, bool]
) -> dict[str, Any]:
    """Multiple choice: accuracy of the chosen letter (``choice_index``, else a letter parsed from ``text``)
    and how many were answered; fills ``correct`` (item id -> right)."""
    total = len(items)
    answered = 0
    for item in items:
        pred = predictions.get(item.item_id)
        choice = None
        if pred is not None:
            choice = pred.choice_index if pred.choice_index is not None else choice_from_text(pred.text, item.choices)
        answered += choice is not None
        correct[item.item_id] = choice is not None and choice == item.answer_index
    return {"accuracy": sum(correct.values()) / total if total else 0.0, "answered": answered}


def score_answers(
    items: Sequence[BenchmarkItem], predictions: Mapping[str, Prediction], judge: Judge | None, correct: dict[str, bool]
) -> dict[str, Any]:
    """Open-ended: ``accuracy`` by ``judge`` (default :func:`offline_judge`), ``token_f1`` (mean), over the
    items with a text reference (not :data:`GROUNDING_ONLY`); fills ``correct`` (item id -> right)."""
    judge_fn = judge or offline_judge
    scored = [i for i in items if GROUNDING_ONLY not in i.tags]
    f1s: list[float] = []
    answered = 0
    for item in scored:
        pred = predictions.get(item.item_id)
        text = pred.text.strip() if pred is not None else ""
        answered += bool(text)
        f1s.append(token_f1(text, item.answer) if text else 0.0)
        correct[item.item_id] = bool(text) and bool(judge_fn(item.question, item.answer, text))
    return dict(
        accuracy=sum(correct.values()) / len(scored) if scored else 0.0,
        answered=answered,
        token_f1=sum(f1s) / len(f1s) if f1s else 0.0,
        judge="offline (token F1 >= 0.5, not the official GPT-4o judge)"
        if judge is None
        else getattr(judge, "__name__", type(judge).__name__),
    )
