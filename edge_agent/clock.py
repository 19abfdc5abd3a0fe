"""Wall-clock times as memory keeps, shows and reads them: Unix seconds inside; UTC text for people and
models; ISO 8601 text in."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

__all__ = ["TimeMention", "after_recording", "find_days", "find_times", "format_utc", "parse_iso"]

_MENTION = re.compile(
    r"(?P<before>\b(?:before|by|until|as of)\s+)?"
    r"(?P<time>\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)\s*(?P<zone>UTC|GMT|Z|[+-]\d{2}:?\d{2})?",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class TimeMention:
    t: float  #: Unix seconds
    bound: bool  #: "before / by / until / as of <time>": a limit on what may be used, not a moment asked about


def format_utc(t: float | None, *, zone: bool = False) -> str:
    """'2026-03-02 08:00:05' (with ' UTC' if ``zone``); '-' for no time."""
    if t is None:
        return "-"
    text = dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
    return text + " UTC" if zone else text


def parse_iso(text: str, *, naive: Literal["local", "utc"] = "local") -> float:
    """Unix seconds of an ISO 8601 time ('Z' accepted). A time without a zone is read as local time (what
    a person types) or as UTC (what a model copies from memory's text). Raises ValueError."""
    moment = dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.astimezone() if naive == "local" else moment.replace(tzinfo=dt.timezone.utc)
    return moment.timestamp()


def find_times(text: str) -> list[TimeMention]:
    """The wall-clock times written in a question ('2026-03-02 17:56:32 UTC', '2026-03-02T08:00+01:00'; a
    time without a zone is local), each marked as a bound when it follows 'before', 'by', 'until' or
    'as of'."""
    found = []
    for m in _MENTION.finditer(text):
        zone = (m.group("zone") or "").upper()
        offset = "+00:00" if zone in ("UTC", "GMT", "Z") else zone
        try:
            t = parse_iso(m.group("time").replace(" ", "T") + offset)
        except ValueError:
            continue
        found.append(TimeMention(t, m.group("before") is not None))
    return found


_DAY = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b(?![T ]\d{2}:\d{2})")


def find_days(text: str) -> list[tuple[float, float]]:
    """The whole days (UTC) a question names by date alone ('on 2026-03-03'): [start, end) each."""
    days = []
    for m in _DAY.finditer(text):
        try:
            start = parse_iso(m.group(1) + "T00:00:00+00:00")
        except ValueError:
            continue
        days.append((start, start + 86400.0))
    return days


def after_recording(intervals: Iterable[tuple[float, float]], since: float, span: float) -> float | None:
    """When the recording (``intervals``: (start, end) when the camera was on, by start; overlaps count once) had run
    ``span`` seconds after ``since``; None if it has not yet. Time the camera was off does not count."""
    left, reached = span, since
    for t0, t1 in intervals:
        start = max(t0, reached)
        if t1 <= start:
            continue
        if t1 - start >= left:
            return start + left
        left -= t1 - start
        reached = t1
    return None
