"""Hierarchical episodes (ReflectWorld-MM's episodic memory, GEB's multi-scale episodes): per camera,
clip captions roll up into 10-minute episodes, those into hours, hours into days (UTC), linked by
containment (``parent_id``), as clips arrive. A window is summarised once it is closed, when a clip of
its camera starts past its end, so its text (and the text vector retrieval keeps of it) is written
once; a clip that arrives late into a closed window rewrites that window's summary. Summaries are
extractive: the entities seen, with what they were described as and how often, and what moved; a
``summarize`` callable (an LLM) may write them instead. Forget and retention call :func:`refresh` so
that no summary keeps what memory no longer holds."""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from typing import NamedTuple

from edge_agent.chat import ChatModel
from edge_agent.clock import format_utc
from edge_agent.memory.db import Database
from edge_agent.memory.description import label
from edge_agent.memory.housekeeping import delete_text_vectors

__all__ = ["SCALES", "LLMSummarizer", "Seen", "Summarizer", "refresh", "roll_up", "summary"]

SCALES = (("10min", 600.0), ("hour", 3600.0), ("day", 86400.0))
_CHILD = {"10min": "clip", "hour": "10min", "day": "hour"}


class Seen(NamedTuple):
    """One sighting in a window, as a summary needs it: the entity, what it was ('striped red cup', from its
    described fields), whether it was moving."""

    entity_id: int | None
    label: str
    moving: bool


#: (scale, camera, t_start, t_end, [Seen, ...]) -> text
Summarizer = Callable[[str, str, float, float, Sequence[Seen]], str]


def summary(scale: str, camera: str, t_start: float, t_end: float, seen: Sequence[Seen], most: int = 8) -> str:
    """Extractive: '<camera>, <times>: <n> things seen: #5 person in blue (12 sightings, moving), ...' (the scale is
    the episode's field, not said: an answer quoting a 10-minute window that held 8 s of video says the 8 s)."""
    head = f"{camera}, {format_utc(t_start)} to {format_utc(t_end)[11:]} UTC"
    if not seen:
        return f"{head}: nothing seen"
    sightings: Counter[int | None] = Counter(s.entity_id for s in seen)
    described: dict[int | None, Counter[str]] = defaultdict(Counter)
    moving: set[int | None] = set()
    for s in seen:
        described[s.entity_id][s.label] += 1
        if s.moving:
            moving.add(s.entity_id)
    parts = []
    for entity, n in sightings.most_common(most):
        label = f"#{entity} " if entity is not None else ""
        parts.append(
            f"{label}{described[entity].most_common(1)[0][0]} "
            f"({n} sighting{'' if n == 1 else 's'}{', moving' if entity in moving else ''})"
        )
    rest = len(sightings) - min(most, len(sightings))
    things = f"{len(sightings)} thing{'' if len(sightings) == 1 else 's'}"
    return f"{head}: {things} seen: " + "; ".join(parts) + (f"; and {rest} more" if rest > 0 else "")


class LLMSummarizer:
    """Episode summaries written by a local chat model (llama-cpp-python's ``create_chat_completion``)
    from the extractive summary's facts, so it can only say what memory holds; the extractive text is
    kept when the model fails, says nothing, or names an entity the window did not see."""

    PROMPT = (
        "You summarise what a home camera saw in one time window, in at most two short sentences, using only "
        "the facts given (entity numbers, what they were, how often seen, whether moving). Do not invent anything."
    )

    def __init__(self, llm: ChatModel, *, max_tokens: int = 96) -> None:
        self.llm = llm
        self.max_tokens = max_tokens
        self.failures = 0

    def __call__(self, scale: str, camera: str, t_start: float, t_end: float, seen: Sequence[Seen]) -> str:
        facts = summary(scale, camera, t_start, t_end, seen)
        if not seen:
            return facts
        try:
            reply = self.llm.create_chat_completion(
                messages=[{"role": "system", "content": self.PROMPT}, {"role": "user", "content": facts}],
                max_tokens=self.max_tokens,
                temperature=0.0,
            )
            text = " ".join(str(reply["choices"][0]["message"]["content"] or "").split())
        except Exception:  # noqa: BLE001 - any model failure: the extractive text stands
            self.failures += 1
            return facts
        head = facts.split(": ", 1)[0]
        text = re.sub(
            r"^[^,]{1,80}, \d{4}-\d{2}-\d{2}[\d: to-]{0,40}(?:UTC)?(?: \([^)]{1,12}\))?:\s*", "", text
        )  # a copied heading: memory writes its own
        known = {str(s.entity_id) for s in seen if s.entity_id is not None}
        if not text or not set(re.findall(r"#(\d+)", text)) <= known:
            self.failures += 1  # an entity the window never saw: the model invented it
            return facts
        return f"{head}: {text}"


def _seen(db: Database, camera: str, t_start: float, t_end: float) -> list[Seen]:
    """What was seen in the window: its observations, and the things that stayed through it in a trace
    whose observations were folded away (as their trace's latest observation was described)."""
    seen = [
        Seen(e, label(c, (c1, c2), p), m.startswith("moving"))
        for e, c, c1, c2, p, m in db.query(
            "SELECT entity_id, category, colour, colour_second, pattern, motion FROM observations "
            "WHERE camera = ? AND t_start >= ? AND t_start < ? ORDER BY t_start",
            (camera, t_start, t_end),
        )
    ]
    present = {s.entity_id for s in seen}
    seen += [
        Seen(e, label(c, (c1 or "", c2 or ""), p or ""), (m or "").startswith("moving"))
        for e, c, c1, c2, p, m in db.query(
            "SELECT t.entity_id, e.category, o.colour, o.colour_second, o.pattern, o.motion FROM traces t "
            "JOIN entities e ON e.id = t.entity_id "
            "LEFT JOIN observations o ON o.id = coalesce(t.last_observation_id, t.first_observation_id) "
            "WHERE t.camera = ? AND t.t_start < ? AND t.t_end >= ? ORDER BY t.t_start",
            (camera, t_end, t_start),
        )
        if e not in present
    ]
    return seen


def roll_up(db: Database, camera: str, before: float, summarize: Summarizer | None = None) -> list[int]:
    """Closes the windows of ``camera`` that end at or before ``before``: per scale, the unlinked
    children in a closed window join that window's episode (made now, or rewritten if it exists).
    Returns the episodes written. Call inside the write transaction."""
    written: list[int] = []
    for scale, length in SCALES:
        rows = db.query(
            "SELECT id, t_start, t_end FROM episodes WHERE camera = ? AND scale = ? AND parent_id IS NULL "
            "AND t_start < ? ORDER BY t_start",
            (camera, _CHILD[scale], before),
        )
        windows: dict[int, list[tuple[int, float, float]]] = defaultdict(list)
        for child_id, t0, t1 in rows:
            window = math.floor(t0 / length)
            if (window + 1) * length <= before:
                windows[window].append((child_id, t0, t1))
        for window, children in sorted(windows.items()):
            w0, w1 = window * length, (window + 1) * length
            existing = db.query_one(
                "SELECT id, t_start, t_end FROM episodes WHERE camera = ? AND scale = ? AND t_start >= ? AND t_start "
                "< ?",
                (camera, scale, w0, w1),
            )
            t0 = min([c[1] for c in children] + ([existing[1]] if existing else []))
            t1 = max([c[2] for c in children] + ([existing[2]] if existing else []))
            text = (summarize or summary)(scale, camera, t0, t1, _seen(db, camera, t0, t1))
            if existing is None:
                episode_id = db.insert(
                    "INSERT INTO episodes (scale, camera, t_start, t_end, text) VALUES (?, ?, ?, ?, ?)",
                    (scale, camera, t0, t1, text),
                )
            else:  # a late clip: the window's summary is rewritten, and its text vector goes with the old text
                episode_id = int(existing[0])
                db.execute(
                    "UPDATE episodes SET t_start = ?, t_end = ?, text = ? WHERE id = ?", (t0, t1, text, episode_id)
                )
                delete_text_vectors(db, "episode", [episode_id])
            db.executemany("UPDATE episodes SET parent_id = ? WHERE id = ?", [(episode_id, c[0]) for c in children])
            written.append(episode_id)
    return written


def refresh(
    db: Database, camera_windows: Sequence[tuple[str, float, float]], summarize: Summarizer | None = None
) -> None:
    """Rewrites the summaries of the coarser episodes over these (camera, t_start, t_end) spans from
    what memory still holds, and deletes those left with no child. Call inside the write transaction
    after deleting records (forget, retention)."""
    for scale, _ in SCALES:  # finest first: a parent's children are settled before it is looked at
        for camera, t0, t1 in camera_windows:
            for episode_id, e0, e1 in db.query(
                "SELECT id, t_start, t_end FROM episodes WHERE camera = ? AND scale = ? "
                "AND t_start <= ? AND t_end >= ?",
                (camera, scale, t1, t0),
            ):
                if db.query_one("SELECT 1 FROM episodes WHERE parent_id = ?", (episode_id,)) is None:
                    delete_text_vectors(db, "episode", [episode_id])
                    db.execute("DELETE FROM episodes WHERE id = ?", (episode_id,))
                    continue
                text = (summarize or summary)(scale, camera, e0, e1, _seen(db, camera, e0, e1))
                db.execute("UPDATE episodes SET text = ? WHERE id = ?", (text, episode_id))
                delete_text_vectors(db, "episode", [episode_id])
