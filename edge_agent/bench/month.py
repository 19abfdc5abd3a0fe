"""``edge-agent bench month``: rows and bytes of memory after a simulated month of one fixed home camera,
with trace consolidation (the default) and without it (the baseline, measured in the same run over
the first ``baseline_days`` and extrapolated linearly, which its growth is: every clip adds the same).

The household is scripted, not rendered: the perception write path's output is generated directly
(observations with per-frame boxes, appearance vectors near each thing's prototype, template-style
descriptions and captions), so the figures are memory's alone. A red cup moves between counter, sink
and table on a daily routine, the keys leave with their owner on weekdays, the dog lies on the sofa in
the evening and elsewhere otherwise, a remote never moves, a person passes through a few times a day.
The camera records from ``hours[0]`` to ``hours[1]`` every day, one clip per ``clip_seconds``.
Media are not written: the JPEG files memory would keep are counted, and their bytes estimated from
``keyframe_kb`` / ``crop_kb`` (typical of the pipeline's 640-px keyframes and crops)."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from edge_agent.memory import ClipRecord, ObservationRecord, Store, queries
from edge_agent.memory.consolidate import ConsolidationConfig
from edge_agent.memory.description import Description, label, place_phrase
from edge_agent.memory.records import Kind

__all__ = ["format_table", "household", "run"]

SPACE = "bench-month"
T0 = 1_772_409_600.0  # 2026-03-02 00:00 UTC, a Monday
PLACES = {
    "counter": (60, 160, 100, 200),
    "sink": (200, 150, 240, 190),
    "table": (380, 220, 430, 260),
    "sofa": (480, 250, 600, 330),
    "door": (20, 60, 50, 90),
    "rug": (300, 300, 380, 350),
}
THINGS: dict[str, tuple[Kind, str, str, tuple[int, int]]] = {  # id: (kind, category, colour, box size)
    "cup": ("object", "cup", "red", (24, 28)),
    "keys": ("object", "keys", "grey", (20, 12)),
    "remote": ("object", "remote", "black", (30, 12)),
    "dog": ("animal", "dog", "brown", (70, 45)),
    "alice": ("person", "person", "blue", (50, 140)),
}


def _cup(hour: float) -> str:
    return (
        "counter"
        if hour < 8
        else "sink"
        if hour < 12
        else "table"
        if hour < 13.5
        else "counter"
        if hour < 19
        else "sink"
    )


def _state(thing: str, day: int, hour: float, rng: np.random.Generator) -> tuple[str, bool] | None:
    """(place, moving) of a thing at an hour of a day, or None when it is out of view."""
    weekday = day % 7 < 5
    if thing == "cup":
        return _cup(hour), False
    if thing == "keys":
        return None if weekday and 8.5 <= hour < 18 else ("door", False)
    if thing == "remote":
        return "table", False
    if thing == "dog":
        if 18 <= hour < 22:
            return "sofa", False
        return ("rug" if int(hour) % 4 < 2 else "door"), False
    visits = ((7.0, 7.3), (12.0, 12.5), (18.0, 18.7))
    return ("rug", True) if any(a <= hour < b for a, b in visits) else None


def household(
    days: int,
    clip_seconds: float = 10.0,
    hours: tuple[float, float] = (7.0, 23.0),
    sample_fps: float = 2.0,
    seed: int = 0,
) -> Iterator[tuple[ClipRecord, list[ObservationRecord], str]]:
    """The camera's clips in time order: (clip, its observations, its caption)."""
    rng = np.random.default_rng(seed)
    dims = 64
    prototypes = {
        t: v / np.linalg.norm(v) for t, v in zip(THINGS, rng.normal(size=(len(THINGS), dims)).astype(np.float32))
    }
    frames = max(2, int(round(clip_seconds * sample_fps)))
    for day in range(days):
        t = T0 + day * 86400 + hours[0] * 3600
        end = T0 + day * 86400 + hours[1] * 3600
        while t < end:
            hour = (t - T0) % 86400 / 3600
            records, said = [], []
            for track, thing in enumerate(THINGS):
                state = _state(thing, day, hour, rng)
                if state is None:
                    continue
                place, moving = state
                kind, category, colour, (w, h) = THINGS[thing]
                x, y = PLACES[place][0], PLACES[place][1]
                times = t + np.arange(frames) / sample_fps
                drift = np.linspace(0, 40 if moving else 0, frames)[:, None]
                boxes = (
                    np.array([x, y, x + w, y + h], np.float32)
                    + drift * np.array([1, 0, 1, 0])
                    + rng.normal(0, 0.7, (frames, 4))
                )
                vector = prototypes[thing] + rng.normal(0, 0.01, dims).astype(np.float32)
                described = Description(
                    colours=(colour,), pattern="plain", zone=place, motion="moving right" if moving else "still"
                )
                described = replace(described, text=described.sentence(category))
                records.append(
                    ObservationRecord(
                        track,
                        kind,
                        category,
                        times,
                        boxes.astype(np.float32),
                        np.full(frames, 0.9, np.float32),
                        vector,
                        SPACE,
                        description=described,
                    )
                )
                said.append(f"{label(category, described.colours, 'plain')} {place_phrase(place)}")
            caption = "living: " + (", ".join(said) if said else "nothing detected")
            yield ClipRecord("living", t, t + clip_seconds), records, caption
            t += clip_seconds


def _ingest(
    home: Path,
    days: int,
    consolidate: bool,
    clip_seconds: float,
    hours: tuple[float, float],
    keyframe_kb: float,
    crop_kb: float,
) -> dict[str, Any]:
    started = time.perf_counter()
    clips = 0
    with Store(home, consolidation=ConsolidationConfig(enabled=consolidate)) as store:
        for clip, records, caption in household(days, clip_seconds, hours):
            store.ingest_clip(clip, records, caption=caption)
            clips += 1
        store.close_episodes()
        seconds = time.perf_counter() - started
        store.checkpoint()
        counts = store.counts()
        db_bytes = store.file_bytes()
        facts = [(f, v, round(w, 3)) for f, v, w in queries.fact_lines(store, 12)]
    media_files = counts["clips"] + counts["observations"]  # a keyframe per clip kept, a crop per observation kept
    media_bytes = int(counts["clips"] * keyframe_kb * 1024 + counts["observations"] * crop_kb * 1024)
    return {
        "days": days,
        "clips_ingested": clips,
        "rows": counts,
        "rows_total": sum(counts.values()),
        "db_bytes": db_bytes,
        "media_files": media_files,
        "media_bytes_estimate": media_bytes,
        "ingest_seconds": round(seconds, 1),
        "ms_per_clip": round(1000 * seconds / max(clips, 1), 2),
        "facts": facts,
    }


def run(
    days: int = 30,
    baseline_days: int = 1,
    clip_seconds: float = 10.0,
    hours: tuple[float, float] = (7.0, 23.0),
    keyframe_kb: float = 25.0,
    crop_kb: float = 4.0,
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="edge-agent-month-") as tmp:
        consolidated = _ingest(Path(tmp) / "traces", days, True, clip_seconds, hours, keyframe_kb, crop_kb)
        baseline = _ingest(Path(tmp) / "baseline", baseline_days, False, clip_seconds, hours, keyframe_kb, crop_kb)
    scale = days / baseline_days
    extrapolated = {
        "rows_total": int(baseline["rows_total"] * scale),
        "db_bytes": int(baseline["db_bytes"] * scale),
        "observation_boxes": int(baseline["rows"]["observation_boxes"] * scale),
        "media_files": int(baseline["media_files"] * scale),
        "media_bytes_estimate": int(baseline["media_bytes_estimate"] * scale),
    }
    total = consolidated["db_bytes"] + consolidated["media_bytes_estimate"]
    base_total = extrapolated["db_bytes"] + extrapolated["media_bytes_estimate"]
    return {
        "days": days,
        "clip_seconds": clip_seconds,
        "hours": list(hours),
        "consolidated": consolidated,
        "baseline_measured": baseline,
        "baseline_extrapolated": extrapolated,
        "ratio_rows": round(extrapolated["rows_total"] / max(consolidated["rows_total"], 1), 1),
        "ratio_bytes": round(base_total / max(total, 1), 1),
    }


def _mb(n: float) -> str:
    return f"{n / 1e6:,.1f} MB"


def format_table(r: dict[str, Any]) -> str:
    c, b, x = r["consolidated"], r["baseline_measured"], r["baseline_extrapolated"]
    lines = [
        f"a fixed camera, {r['days']} days, {r['hours'][0]:g}:00-{r['hours'][1]:g}:00, "
        f"one clip per {r['clip_seconds']:g} s "
        f"({c['clips_ingested']:,} clips; {c['ms_per_clip']} ms a clip)",
        f"{'':<26}{'rows':>12}{'boxes':>12}{'database':>14}{'media files':>13}{'media (est.)':>14}",
        f"{'traces (default)':<26}{c['rows_total']:>12,}{c['rows']['observation_boxes']:>12,}{_mb(c['db_bytes']):>14}"
        f"{c['media_files']:>13,}{_mb(c['media_bytes_estimate']):>14}",
        f"{'no traces, ' + str(b['days']) + ' day(s)':<26}{b['rows_total']:>12,}{b['rows']['observation_boxes']:>12,}"
        f"{_mb(b['db_bytes']):>14}{b['media_files']:>13,}{_mb(b['media_bytes_estimate']):>14}",
        f"{'no traces, x' + format(r['days'] / b['days'], 'g') + ' (linear)':<26}"
        f"{x['rows_total']:>12,}{x['observation_boxes']:>12,}"
        f"{_mb(x['db_bytes']):>14}{x['media_files']:>13,}{_mb(x['media_bytes_estimate']):>14}",
        f"baseline / traces: {r['ratio_rows']}x the rows, {r['ratio_bytes']}x the bytes",
        "rows by table (traces): " + ", ".join(f"{k} {v:,}" for k, v in c["rows"].items() if v),
        "facts learnt: " + "; ".join(f"{k} = {v} (w {w})" for k, v, w in c["facts"]),
    ]
    return "\n".join(lines)
