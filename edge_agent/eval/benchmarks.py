"""Readers for the question files of public long-video QA benchmarks, with each benchmark's scoring, so
that a user who has the videos can run them end to end (EVAL.md section 3).

Formats, as published (field names read from the sources named; aliases noted where accepted):

- ``egolifeqa``: EgoLifeQA (EgoLife, Yang et al., CVPR 2025), ``EgoLifeQA/EgoLifeQA_A1_JAKE.json`` ... in
  the Hugging Face dataset ``lmms-lab/EgoLife``; item shape from the EgoRAG README of
  github.com/EvolvingLMMs-Lab/EgoLife ("Question Preparation"): a list of ``{ID, query_time {date
  "DAY1", time "11210217"}, type, need_audio, need_name, last_time, trigger, question, choice_a ..
  choice_d, answer "B", target_time {date, time}, keywords, reason, identity "A1_JAKE"}`` (plus
  ``*_chinese`` twins). Times are ``HHMMSSFF``, FF a frame at 20 fps (Ego-R1's tool descriptions).
  Videos: ``A1_JAKE/DAY1/DAY1_A1_JAKE_HHMMSSFF.mp4``, 30-second pieces per wearer.
- ``ego-r1-bench``: Ego-R1-Bench (github.com/egolife-ai/Ego-R1, ``cott_gen/postprocess.py`` and
  ``cott_gen/utils.py``): one file per wearer (``A1_JAKE.json`` ...) with the EgoLifeQA item shape;
  ``query_time`` is sometimes a one-element list, ``last_time`` sometimes "N/A", choices sometimes
  numbers; ``target_time`` comes as ``{date, time}``, ``time`` "HHMMSSFF-HHMMSSFF", several times with
  ``DAYn`` tokens, or ``{date, time_list: [...]}`` (variants also handled by third-party loaders of
  both files). The released ``test.parquet`` (prompt-wrapped question, ``golden_answer``) is not read:
  the JSON files are.
- ``m3-bench``: M3-Bench (github.com/ByteDance-Seed/m3-agent, ``data/annotations/{robot,web}.json``):
  ``{video_key: {video_path, mem_path, video_url (web), qa_list: [{question, answer, question_id,
  reasoning, timestamp "MM:SS" (robot), type: [...], before_clip (robot)}]}}``. ``before_clip`` is the
  last complete 30-second clip before the question (timestamp // 30 - 1 in every robot item).
  Open-ended, judged by GPT-4o in the benchmark.
- ``multihop-egoqa``: MultiHop-EgoQA (Chen, Di, Xie, "Grounded Multi-Hop VideoQA in Long-Form
  Egocentric Videos"; github.com/qirui-chen/MultiHop-EgoQA, annotation ``MultiHop-EgoQA.json`` from
  the Hugging Face dataset ``SurplusDeficit/MultiHop-EgoQA``): a list of ``{sample_id, segment_id,
  category, Q, A, T}``, ``T`` the evidence as ``[[s, e], ...]`` (or one ``[s, e]``) in integer seconds of
  the 180-second clip ``<segment_id>.mp4``; answers may carry grounding tags ``<T1>..</T1>`` (removed;
  a reference with an empty pair ``<T1></T1>`` is grounding-only and, as in the official
  ``evaluate_answering.py``, not scored for its answer). The training file's nested shape
  ``{segment_id, annotated_QA: [{Q, A, T, Evidence}]}`` is read too. Official scores: a GPT-4o grade
  (1-10) plus caption metrics for answers; mIoU and IoU@0.3 for grounding (``evaluate_grounding.py``).

Anything else fails with a :class:`BenchmarkFormatError` naming the file, the item and the field.
"""

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

__all__ = [
    "BENCHMARKS",
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

BENCHMARKS: tuple[str, ...] = ("egolifeqa", "ego-r1-bench", "m3-bench", "multihop-egoqa")

LETTERS = "ABCDEFGH"
EGOLIFE_FPS = 20  #: frames per second behind the FF of EgoLife's HHMMSSFF times
DAY_SECONDS = 86400.0

Span = tuple[float, float]
Judge = Callable[[str, str, str], bool]  #: (question, reference, prediction) -> correct


class BenchmarkFormatError(ValueError):
    """A question file that does not have a benchmark's published shape."""

    def __init__(self, path: str | os.PathLike[str], index: int | str | None, field_name: str,
                 problem: str = "missing") -> None:
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

def _files(path: Path) -> list[Path]:
    if path.is_dir():
        found = sorted(p for p in path.iterdir() if p.is_file() and p.suffix.lower() in (".json", ".jsonl"))
        if not found:
            raise FileNotFoundError(f"{path}: no .json or .jsonl question files in this folder")
        return found
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such question file")
    return [path]


def _read(path: Path) -> Any:
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


def _records(path: Path, data: Any) -> list[Any]:
    """The list of question records of a list-shaped file (also under a ``data``/``questions``/``annotations`` key)."""
    if isinstance(data, dict):
        for key in ("data", "questions", "annotations"):
            if isinstance(data.get(key), list):
                return list(data[key])
        raise BenchmarkFormatError(path, None, "<list>",
                                   "expected a list of questions (or one under 'data', 'questions' or 'annotations')")
    if not isinstance(data, list):
        raise BenchmarkFormatError(path, None, "<list>", f"expected a list of questions, found {type(data).__name__}")
    return data


def _pick(rec: Mapping[str, Any], names: Sequence[str], path: Path, index: int | str, required: bool = True) -> Any:
    for name in names:
        if name in rec and rec[name] is not None:
            return rec[name]
    if required:
        also = f" (also read as {', '.join(repr(n) for n in names[1:])})" if len(names) > 1 else ""
        raise BenchmarkFormatError(path, index, names[0], "missing" + also)
    return None


def _text(value: Any, path: Path, index: int | str, name: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise BenchmarkFormatError(path, index, name, f"expected text, found {type(value).__name__}")
    return str(value).strip()


# ------------------------------------------------------------------------------------------- times

_CLOCK = re.compile(r"^\s*(\d+):(\d{1,2})(?::(\d{1,2}(?:\.\d+)?))?\s*$")


def parse_clock(value: str) -> float:
    """"MM:SS" or "HH:MM:SS" (seconds may carry a fraction) -> seconds. Raises ValueError."""
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


_DAY = re.compile(r"^\s*day\s*_?(\d+)\s*$", re.I)


def _day(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        day = value
    else:
        m = _DAY.match(str(value))
        if m is None:
            raise ValueError(f"not a day like 'DAY1': {value!r}")
        day = int(m.group(1))
    if day < 1:
        raise ValueError(f"days count from DAY1: {value!r}")
    return day


def _hhmmssff(value: Any) -> float:
    """EgoLife's ``HHMMSSFF`` (or ``HHMMSS``; integers that lost a leading zero are padded) -> seconds of day."""
    s = str(value).strip().replace(":", "")
    if not s.isdigit() or len(s) not in (5, 6, 7, 8):
        raise ValueError(f"not HHMMSSFF: {value!r}")
    if len(s) % 2:
        s = "0" + s
    hh, mm, ss = int(s[0:2]), int(s[2:4]), int(s[4:6])
    ff = int(s[6:8]) if len(s) == 8 else 0
    if hh > 23 or mm > 59 or ss > 59:
        raise ValueError(f"time out of range: {value!r}")
    frac = ff / EGOLIFE_FPS if ff < EGOLIFE_FPS else 0.0  # Ego-R1's video lookup reads FF >= 20 as 00
    return hh * 3600 + mm * 60 + ss + frac


def parse_egolife_time(date: Any, time: Any) -> float:
    """A (``"DAYn"``, ``"HHMMSSFF"``) pair -> seconds since DAY1 00:00. Raises ValueError."""
    return (_day(date) - 1) * DAY_SECONDS + _hhmmssff(time)


_TOKENS = re.compile(r"DAY\s*_?(\d+)|(\d{5,8})|(-)", re.I)


def _time_tokens(text: str, day: int | None) -> list[Span]:
    """Points and ranges in a target-time string: "11152408", "11152408-11160000", "11152408 DAY2 09000000"."""
    spans: list[Span] = []
    pending_range = False
    for m in _TOKENS.finditer(text):
        if m.group(1) is not None:
            day = int(m.group(1))
        elif m.group(3) is not None:
            pending_range = bool(spans)
        else:
            if day is None:
                raise ValueError(f"no day for {m.group(2)!r}")
            t = (day - 1) * DAY_SECONDS + _hhmmssff(m.group(2))
            if pending_range:
                t0 = spans[-1][0]
                spans[-1] = (min(t0, t), max(t0, t))
                pending_range = False
            else:
                spans.append((t, t))
    return spans


def _target_spans(value: Any) -> list[Span]:
    """EgoLife/Ego-R1 ``target_time`` in its published variants -> evidence spans."""
    if value is None or (isinstance(value, str) and value.strip().upper() in ("", "N/A", "NA", "NONE")):
        return []
    if isinstance(value, list):
        return [s for v in value for s in _target_spans(v)]
    if isinstance(value, str):
        spans = _time_tokens(value, None)
        if not spans:
            raise ValueError(f"no time in {value!r}")
        return spans
    if isinstance(value, dict):
        day = _day(value["date"]) if value.get("date") is not None else None
        times = value.get("time_list", value.get("time"))
        if times is None:
            raise ValueError("neither 'time' nor 'time_list'")
        parts = times if isinstance(times, list) else [times]
        spans = [s for p in parts for s in _time_tokens(str(p), day)]
        if not spans:
            raise ValueError(f"no time in {times!r}")
        return spans
    raise ValueError(f"unexpected {type(value).__name__}")


# ------------------------------------------------------------------------------- multiple choice

_IDENTITY = re.compile(r"(A\d+_[A-Z]+)")
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


def _choices(rec: Mapping[str, Any], path: Path, index: int | str) -> tuple[str, ...]:
    keyed = [k for k in (f"choice_{c}" for c in "abcdefgh") if k in rec and rec[k] is not None]
    if keyed:
        expected = [f"choice_{c}" for c in "abcdefgh"[: len(keyed)]]
        if keyed != expected:
            missing = next(e for e in expected if e not in keyed)
            raise BenchmarkFormatError(path, index, missing, "missing (choices must run choice_a, choice_b, ...)")
        return tuple(_text(rec[k], path, index, k) for k in keyed)
    listed = _pick(rec, ("choices", "options", "candidates"), path, index, required=False)
    if listed is None:
        raise BenchmarkFormatError(path, index, "choice_a", "missing (also no 'choices'/'options' list)")
    if isinstance(listed, dict):
        letters = [k for k in LETTERS if k in listed]
        if not letters or letters != list(LETTERS[: len(letters)]):
            raise BenchmarkFormatError(path, index, "choices", "expected keys 'A', 'B', ...")
        return tuple(_text(listed[k], path, index, f"choices.{k}") for k in letters)
    if not isinstance(listed, list) or len(listed) < 2:
        raise BenchmarkFormatError(path, index, "choices", "expected a list of at least two choices")
    out = []
    for i, c in enumerate(listed):
        t = _text(c, path, index, f"choices[{i}]")
        m = re.match(rf"^\(?{LETTERS[i]}\)?[.):]\s*", t)  # "A. text" as Video-MME-style files letter them
        out.append(t[m.end():] if m else t)
    return tuple(out)


def _answer_index(value: Any, choices: Sequence[str], path: Path, index: int | str) -> int:
    if isinstance(value, list) and len(value) == 1:  # Ego-R1's golden_answer: ["B"]
        value = value[0]
    if isinstance(value, int) and not isinstance(value, bool):
        found: int | None = value
    elif isinstance(value, str):
        found = choice_from_text(value, choices)
    else:
        found = None
    if found is None or not 0 <= found < len(choices):
        raise BenchmarkFormatError(path, index, "answer", f"not one of the {len(choices)} choices: {value!r}")
    return found


def _load_mc(benchmark: str, path: Path) -> list[BenchmarkItem]:
    items: list[BenchmarkItem] = []
    file_identity = _IDENTITY.search(path.stem)
    for i, rec in enumerate(_records(path, _read(path))):
        if not isinstance(rec, dict):
            raise BenchmarkFormatError(path, i, "<item>", f"expected an object, found {type(rec).__name__}")
        qid = _text(_pick(rec, ("ID", "id", "question_id", "qid"), path, i), path, i, "ID")
        question = _text(_pick(rec, ("question",), path, i), path, i, "question")
        choices = _choices(rec, path, i)
        answer = _answer_index(_pick(rec, ("answer", "correct_answer", "golden_answer", "ground_truth"), path, i),
                               choices, path, i)
        qt = _pick(rec, ("query_time",), path, i)
        if isinstance(qt, list) and len(qt) >= 1:  # Ego-R1 files: a one-element list
            qt = qt[0]
        try:
            if isinstance(qt, dict):
                if "date" not in qt or "time" not in qt:
                    raise BenchmarkFormatError(path, i, "query_time.date" if "date" not in qt else "query_time.time")
                query_time = parse_egolife_time(qt["date"], qt["time"])
            elif isinstance(qt, str) and "_" in qt:  # "DAY1_11210217"
                date, _, time = qt.partition("_")
                query_time = parse_egolife_time(date, time)
            else:
                raise ValueError(f"expected {{date, time}} or 'DAYn_HHMMSSFF', found {qt!r}")
        except ValueError as e:
            if isinstance(e, BenchmarkFormatError):
                raise
            raise BenchmarkFormatError(path, i, "query_time", str(e)) from e
        try:
            evidence = tuple(_target_spans(rec.get("target_time")))
        except (ValueError, KeyError) as e:
            raise BenchmarkFormatError(path, i, "target_time", f"unreadable ({e})") from e
        identity = rec.get("identity")
        if identity is None and file_identity is not None:
            identity = file_identity.group(1)
        if identity is None:
            raise BenchmarkFormatError(path, i, "identity", "missing (and the file name names no wearer like A1_JAKE)")
        identity = _text(identity, path, i, "identity")
        kind = rec.get("type")
        items.append(BenchmarkItem(
            benchmark=benchmark, item_id=f"{identity}-{qid}", video=identity, question=question,
            choices=choices, answer_index=answer, answer=choices[answer], query_time=query_time,
            evidence=evidence, tags=(str(kind),) if kind else (), raw=rec))
    return items


# ------------------------------------------------------------------------------------------ M3-Bench

def _load_m3(benchmark: str, path: Path) -> list[BenchmarkItem]:
    data = _read(path)
    if not isinstance(data, dict):
        raise BenchmarkFormatError(path, None, "<videos>",
                                   f"expected an object video_key -> video, found {type(data).__name__}")
    items: list[BenchmarkItem] = []
    n = 0
    for key, video in data.items():
        where = f"{key!r}"
        if not isinstance(video, dict):
            raise BenchmarkFormatError(path, where, "<video>", "expected an object")
        video_path = _text(_pick(video, ("video_path",), path, where), path, where, "video_path")
        qa_list = _pick(video, ("qa_list",), path, where)
        if not isinstance(qa_list, list):
            raise BenchmarkFormatError(path, where, "qa_list", "expected a list")
        rel = video_path[len("data/videos/"):] if video_path.startswith("data/videos/") else video_path
        meta = {k: v for k, v in video.items() if k != "qa_list"}
        for j, qa in enumerate(qa_list):
            at = f"{n} (video {key!r}, question {j})"
            n += 1
            if not isinstance(qa, dict):
                raise BenchmarkFormatError(path, at, "<question>", "expected an object")
            qid = _text(_pick(qa, ("question_id",), path, at), path, at, "question_id")
            question = _text(_pick(qa, ("question",), path, at), path, at, "question")
            answer = _text(_pick(qa, ("answer",), path, at), path, at, "answer")
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
            items.append(BenchmarkItem(
                benchmark=benchmark, item_id=qid, video=rel, question=question, answer=answer,
                query_time=query_time, tags=tuple(kinds), raw={**qa, "video_key": key, "video": meta}))
    return items


# ------------------------------------------------------------------------------------ MultiHop-EgoQA

_GROUND_TAG = re.compile(r"</?T\d+>")
_EMPTY_GROUND = re.compile(r"<T\d+>\s*</T\d+>")
GROUNDING_ONLY = "grounding-only"  #: tag of MultiHop items whose reference answer is a time, not text


def _spans(value: Any) -> list[Span]:
    """``[s, e]`` or ``[[s, e], ...]`` -> spans; raises ValueError."""
    if not isinstance(value, list):
        raise ValueError(f"expected [s, e] or [[s, e], ...], found {type(value).__name__}")
    if len(value) == 2 and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        value = [value]
    out: list[Span] = []
    for v in value:
        if not (isinstance(v, (list, tuple)) and len(v) == 2
                and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v)):
            raise ValueError(f"not an interval [s, e]: {v!r}")
        s, e = float(v[0]), float(v[1])
        if e < s:
            raise ValueError(f"interval ends before it starts: {v!r}")
        out.append((s, e))
    return out


def _multihop_item(benchmark: str, path: Path, at: int | str, rec: Mapping[str, Any], segment: str | None,
                   fallback_id: str) -> BenchmarkItem:
    if segment is None:
        segment = _text(_pick(rec, ("segment_id", "video_id"), path, at), path, at, "segment_id")
    sid = rec.get("sample_id", rec.get("id"))
    qid = fallback_id if sid is None else _text(sid, path, at, "sample_id")
    question = _text(_pick(rec, ("Q", "question"), path, at), path, at, "Q")
    raw_answer = _text(_pick(rec, ("A", "answer"), path, at), path, at, "A")
    try:
        evidence = tuple(_spans(_pick(rec, ("T",), path, at)))
    except ValueError as e:
        raise BenchmarkFormatError(path, at, "T", str(e)) from e
    answer = re.sub(r"\s+", " ", _GROUND_TAG.sub("", raw_answer)).strip()
    category = rec.get("category", rec.get("type"))
    tags = ((str(category),) if category else ()) + ((GROUNDING_ONLY,) if _EMPTY_GROUND.search(raw_answer) else ())
    return BenchmarkItem(benchmark=benchmark, item_id=qid, video=f"{segment}.mp4", question=question,
                         answer=answer, evidence=evidence, tags=tags, raw=rec)


def _load_multihop(benchmark: str, path: Path) -> list[BenchmarkItem]:
    items: list[BenchmarkItem] = []
    for i, rec in enumerate(_records(path, _read(path))):
        if not isinstance(rec, dict):
            raise BenchmarkFormatError(path, i, "<item>", f"expected an object, found {type(rec).__name__}")
        if "annotated_QA" in rec:  # the training file's nested shape
            segment = _text(_pick(rec, ("segment_id",), path, i), path, i, "segment_id")
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


# ------------------------------------------------------------------------------------------- loading

_LOADERS: dict[str, Callable[[str, Path], list[BenchmarkItem]]] = {
    "egolifeqa": _load_mc,
    "ego-r1-bench": _load_mc,
    "m3-bench": _load_m3,
    "multihop-egoqa": _load_multihop,
}


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
    for file in _files(Path(path)):
        for index, item in enumerate(_LOADERS[key](key, file)):
            if item.item_id in seen:
                raise BenchmarkFormatError(file, index, "ID", f"id {item.item_id!r} repeats one in {seen[item.item_id]}")
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
    raise FileNotFoundError(f"video for {item.benchmark} item {item.item_id!r} not found: expected {candidates[0]}{hint}")


# ------------------------------------------------------------------------------------------- scoring

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


def _by_type(items: Sequence[BenchmarkItem], correct: Mapping[str, bool]) -> dict[str, float]:
    hits: dict[str, list[bool]] = defaultdict(list)
    for item in items:
        for tag in item.tags:
            if tag != GROUNDING_ONLY and item.item_id in correct:
                hits[tag].append(correct[item.item_id])
    return {tag: sum(v) / len(v) for tag, v in sorted(hits.items())}


def score(name: str, items: Sequence[BenchmarkItem], predictions: Mapping[str, Prediction],
          judge: Judge | None = None) -> dict[str, Any]:
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

    if key in ("egolifeqa", "ego-r1-bench"):
        answered = 0
        for item in items:
            pred = predictions.get(item.item_id)
            choice = None
            if pred is not None:
                choice = pred.choice_index if pred.choice_index is not None else choice_from_text(pred.text, item.choices)
            answered += choice is not None
            correct[item.item_id] = choice is not None and choice == item.answer_index
        out.update(accuracy=sum(correct.values()) / total if total else 0.0, answered=answered)
    else:
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
        out.update(accuracy=sum(correct.values()) / len(scored) if scored else 0.0, answered=answered,
                   token_f1=sum(f1s) / len(f1s) if f1s else 0.0,
                   judge="offline (token F1 >= 0.5, not the official GPT-4o judge)" if judge is None
                   else getattr(judge, "__name__", type(judge).__name__))
        if key == "multihop-egoqa":
            ious = []
            grounded = 0
            for item in items:
                pred = predictions.get(item.item_id)
                spans = pred.spans if pred is not None else ()
                grounded += bool(spans)
                ious.append(temporal_iou(spans, item.evidence, inclusive=True) if spans else 0.0)
            out.update(answer_total=len(scored), grounded=grounded,
                       temporal_iou=sum(ious) / total if total else 0.0,
                       **{"iou_at_0.3": sum(v > 0.3 for v in ious) / total if total else 0.0})
    out["by_type"] = _by_type(items, correct)
    return out

