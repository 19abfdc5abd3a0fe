"""A camera node's outbox: each finished clip's message waits here, in order, until the hub says it stored it,
so that clips survive a broker or hub outage (and a node restart) and are sent in order when they return. One
SQLite file beside the node's other state (the standard library's driver: no extension is needed here).

A row is ``pending`` until its receipt comes (then deleted) or the hub refuses it (``refused``, kept with the
reason, never sent again). The outbox also remembers how far each camera's clips went, so a recording run again
resumes after its last clip instead of sending it all twice."""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path

from edge_agent.memory.db import DatabaseError

__all__ = ["Outbox", "OutboxFullError", "Queued"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS outbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    camera TEXT NOT NULL,
    start_ms INTEGER NOT NULL,
    t_end REAL NOT NULL,
    payload BLOB NOT NULL,
    sent_at REAL,
    sends INTEGER NOT NULL DEFAULT 0,
    refused TEXT,
    UNIQUE (camera, start_ms)
);
CREATE TABLE IF NOT EXISTS progress (camera TEXT PRIMARY KEY, t_end REAL NOT NULL);
"""


class OutboxFullError(DatabaseError):
    """The outbox holds as much as it may; the clip was not queued."""


@dataclass(frozen=True)
class Queued:
    seq: int
    camera: str
    start_ms: int
    payload: bytes


class Outbox:
    """The queue at ``path`` (made 0600), bounded to ``max_bytes`` of messages. Safe to share between the
    perception thread and the sender."""

    def __init__(self, path: str | Path, max_bytes: int) -> None:
        self.path = Path(path)
        self.max_bytes = max_bytes
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            self.path.touch(mode=0o600, exist_ok=True)
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=10)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")  # a queued clip is on disk before perception goes on
            self._db.executescript(_SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise DatabaseError(f"cannot open the outbox {self.path}: {exc}") from None
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def put(self, camera: str, start_ms: int, t_end: float, payload: bytes) -> bool:
        """Queues a clip's message; False where that clip is already queued. :class:`OutboxFullError` where the
        outbox is at its bound (nothing queued is ever dropped to make room)."""
        with self._lock:
            held = self._db.execute("SELECT coalesce(sum(length(payload)), 0) FROM outbox").fetchone()[0]
            if held + len(payload) > self.max_bytes:
                raise OutboxFullError(
                    f"the outbox {self.path} holds {held // (1 << 20)} MiB of clips the hub has not stored, its bound "
                    f"([mqtt] outbox_max_mb): the {camera} clip at {start_ms / 1000:.3f} was not queued. Is the hub "
                    "running and the broker reachable?"
                )
            with self._db:
                cur = self._db.execute(
                    "INSERT OR IGNORE INTO outbox (camera, start_ms, t_end, payload) VALUES (?, ?, ?, ?)",
                    (camera, start_ms, t_end, payload),
                )
                self._db.execute(
                    "INSERT INTO progress (camera, t_end) VALUES (?, ?) "
                    "ON CONFLICT (camera) DO UPDATE SET t_end = max(t_end, excluded.t_end)",
                    (camera, t_end),
                )
            return cur.rowcount == 1

    def resume_point(self, camera: str) -> float | None:
        """The end of the last clip of ``camera`` ever queued here."""
        with self._lock:
            row = self._db.execute("SELECT t_end FROM progress WHERE camera = ?", (camera,)).fetchone()
        return None if row is None else float(row[0])

    def due(self, now: float, resend_after: float, window: int) -> list[Queued]:
        """In queue order, of the first ``window`` clips waiting for a receipt, those never sent or sent at least
        ``resend_after`` seconds ago."""
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, camera, start_ms, payload, sent_at FROM outbox WHERE refused IS NULL ORDER BY seq LIMIT ?",
                (window,),
            ).fetchall()
        return [Queued(r[0], r[1], r[2], bytes(r[3])) for r in rows if r[4] is None or r[4] <= now - resend_after]

    def sent(self, seq: int, now: float) -> None:
        with self._lock, self._db:
            self._db.execute("UPDATE outbox SET sent_at = ?, sends = sends + 1 WHERE seq = ?", (now, seq))

    def send_again(self) -> None:
        """Every clip waiting for a receipt is due again (a hub came online)."""
        with self._lock, self._db:
            self._db.execute("UPDATE outbox SET sent_at = NULL WHERE refused IS NULL")

    def stored(self, camera: str, start_ms: int) -> bool:
        """The hub stored the clip: it leaves the outbox. False where it was not (or no longer) here."""
        with self._lock, self._db:
            cur = self._db.execute("DELETE FROM outbox WHERE camera = ? AND start_ms = ?", (camera, start_ms))
        return cur.rowcount == 1

    def refuse(self, camera: str, start_ms: int, reason: str) -> None:
        """The hub cannot store the clip (a bad message): it stays here with the reason, never sent again."""
        with self._lock, self._db:
            self._db.execute(
                "UPDATE outbox SET refused = ? WHERE camera = ? AND start_ms = ?", (reason[:2000], camera, start_ms)
            )

    def waiting(self) -> int:
        """Clips waiting for the hub (refused ones not counted)."""
        with self._lock:
            return int(self._db.execute("SELECT count(*) FROM outbox WHERE refused IS NULL").fetchone()[0])

    def refused(self) -> list[tuple[str, int, str]]:
        with self._lock:
            return self._db.execute(
                "SELECT camera, start_ms, refused FROM outbox WHERE refused IS NOT NULL ORDER BY seq"
            ).fetchall()
