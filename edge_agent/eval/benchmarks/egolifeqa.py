"""EgoLifeQA: multiple-choice questions about a week of six wearers' egocentric video, and the reader of
its item shape, which Ego-R1-Bench shares (:mod:`.ego_r1_bench`).

EgoLifeQA (EgoLife, Yang et al., CVPR 2025), ``EgoLifeQA/EgoLifeQA_A1_JAKE.json`` ... in
the Hugging Face dataset ``lmms-lab/EgoLife``; item shape from the EgoRAG README of
github.com/EvolvingLMMs-Lab/EgoLife ("Question Preparation"): a list of ``{ID, query_time {date
"DAY1", time "11210217"}, type, need_audio, need_name, last_time, trigger, question, choice_a ..
choice_d, answer "B", target_time {date, time}, keywords, reason, identity "A1_JAKE"}`` (plus
``*_chinese`` twins). Times are ``HHMMSSFF``, FF a frame at 20 fps (Ego-R1's tool descriptions).
Videos: ``A1_JAKE/DAY1/DAY1_A1_JAKE_HHMMSSFF.mp4``, 30-second pieces per wearer.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from edge_agent.eval.benchmarks.base import (
    DAY_SECONDS,
    LETTERS,
    BenchmarkFormatError,
    BenchmarkItem,
    Span,
    choice_from_text,
    pick,
    read_questions,
    records,
    text_field,
)

__all__ = ["EGOLIFE_FPS", "NAME", "load_file", "parse_egolife_time"]

NAME = "egolifeqa"
EGOLIFE_FPS = 20  #: frames per second behind the FF of EgoLife's HHMMSSFF times
_IDENTITY = re.compile(r"(A\d+_[A-Z]+)")


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


def _choices(rec: Mapping[str, Any], path: Path, index: int | str) -> tuple[str, ...]:
    keyed = [k for k in (f"choice_{c}" for c in "abcdefgh") if k in rec and rec[k] is not None]
    if keyed:
        expected = [f"choice_{c}" for c in "abcdefgh"[: len(keyed)]]
        if keyed != expected:
            missing = next(e for e in expected if e not in keyed)
            raise BenchmarkFormatError(path, index, missing, "missing (choices must run choice_a, choice_b, ...)")
        return tuple(text_field(rec[k], path, index, k) for k in keyed)
    listed = pick(rec, ("choices", "options", "candidates"), path, index, required=False)
    if listed is None:
        raise BenchmarkFormatError(path, index, "choice_a", "missing (also no 'choices'/'options' list)")
    if isinstance(listed, dict):
        letters = [k for k in LETTERS if k in listed]
        if not letters or letters != list(LETTERS[: len(letters)]):
            raise BenchmarkFormatError(path, index, "choices", "expected keys 'A', 'B', ...")
        return tuple(text_field(listed[k], path, index, f"choices.{k}") for k in letters)
    if not isinstance(listed, list) or len(listed) < 2:
        raise BenchmarkFormatError(path, index, "choices", "expected a list of at least two choices")
    out = []
    for i, c in enumerate(listed):
        t = text_field(c, path, index, f"choices[{i}]")
        m = re.match(rf"^\(?{LETTERS[i]}\)?[.):]\s*", t)  # "A. text" as Video-MME-style files letter them
        out.append(t[m.end() :] if m else t)
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


def load_file(benchmark: str, path: Path) -> list[BenchmarkItem]:
    """The items of one file of the EgoLife item shape (EgoLifeQA or Ego-R1-Bench, as ``benchmark``)."""
    items: list[BenchmarkItem] = []
    file_identity = _IDENTITY.search(path.stem)
    for i, rec in enumerate(records(path, read_questions(path))):
        if not isinstance(rec, dict):
            raise BenchmarkFormatError(path, i, "<item>", f"expected an object, found {type(rec).__name__}")
        qid = text_field(pick(rec, ("ID", "id", "question_id", "qid"), path, i), path, i, "ID")
        question = text_field(pick(rec, ("question",), path, i), path, i, "question")
        choices = _choices(rec, path, i)
        answer = _answer_index(
            pick(rec, ("answer", "correct_answer", "golden_answer", "ground_truth"), path, i), choices, path, i
        )
        qt = pick(rec, ("query_time",), path, i)
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
        identity = text_field(identity, path, i, "identity")
        kind = rec.get("type")
        items.append(
            BenchmarkItem(
                benchmark=benchmark,
                item_id=f"{identity}-{qid}",
                video=identity,
                question=question,
                choices=choices,
                answer_index=answer,
                answer=choices[answer],
                query_time=query_time,
                evidence=evidence,
                tags=(str(kind),) if kind else (),
                raw=rec,
            )
        )
    return items
