"""Wall-clock times as memory keeps, shows and reads them: Unix seconds inside; UTC text for people and
models; ISO 8601 text in."""

from __future__ import annotations

import datetime as dt
from typing import Literal

__all__ = ["format_utc", "parse_iso"]


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
