"""The hub's dead letters: the messages it could not store, kept with why. A message the hub cannot read, or
whose write failed every time it was tried, is acknowledged so the broker stops sending it, and kept here
instead of being lost or delivered again forever. One SQLite file beside the memory (``<home>/rejected.db``,
0600; the standard library's driver, as the node's outbox): memory.db holds no byte of a refused message.
``edge-agent hub rejected`` lists them."""

from __future__ import annotations

import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from edge_agent.memory.db import DatabaseError

__all__ = ["FILE", "KEEP", "DeadLetters", "Rejected"]

FILE = "rejected.db"
KEEP = 1000  #: the newest dead letters kept; older ones are deleted as new ones come

_SCHEMA = """
CREATE TABLE IF NOT EXISTS rejected (
    id INTEGER PRIMARY KEY,
    received_at REAL NOT NULL,
    topic TEXT NOT NULL,
    node TEXT,
    camera TEXT,
    start_ms INTEGER,
    reason TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    bytes INTEGER NOT NULL,
    payload BLOB NOT NULL
);
"""


@dataclass(frozen=True)
class Rejected:
    id: int
    received_at: float
    topic: str
    node: str | None
    camera: str | None
    start_ms: int | None
    reason: str
    attempts: int  #: how many times its write was tried (1: it could not be read)
    size: int  #: the whole message's size in bytes (``payload`` holds at most the hub's message bound of it)
    payload: bytes


class DeadLetters:
    """The dead letters of the memory in ``home``. Opened on first use; a file that cannot be made or written is
    a :class:`DatabaseError` (the hub says so and goes on)."""

    def __init__(self, home: str | Path) -> None:
        self.path = Path(home) / FILE
        self._db: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    def _open(self) -> sqlite3.Connection:
        if self._db is None:
            self.path.touch(mode=0o600, exist_ok=True)
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=10)
            self._db.executescript(_SCHEMA)
        return self._db

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def keep(
        self,
        *,
        topic: str,
        payload: bytes,
        reason: str,
        limit: int,
        node: str | None = None,
        camera: str | None = None,
        start_ms: int | None = None,
        attempts: int = 1,
        now: float | None = None,
    ) -> int:
        """Keeps one dead letter (its payload cut to ``limit`` bytes), and only the newest :data:`KEEP`; its id."""
        row = (
            time.time() if now is None else now,
            topic[:500],
            node,
            camera,
            start_ms,
            reason[:2000],
            attempts,
            len(payload),
            payload[: max(0, limit)],
        )
        try:
            with self._lock:
                db = self._open()
                with db:
                    cur = db.execute(
                        "INSERT INTO rejected (received_at, topic, node, camera, start_ms, reason, attempts, bytes, "
                        "payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        row,
                    )
                    kept = int(cur.lastrowid or 0)
                    db.execute("DELETE FROM rejected WHERE id <= ?", (kept - KEEP,))
        except (OSError, sqlite3.Error) as exc:
            raise DatabaseError(f"cannot keep a refused message in {self.path}: {exc}") from None
        return kept

    def newest(self, limit: int = 100) -> list[Rejected]:
        """The newest ``limit`` dead letters, newest first (none where the hub never refused one)."""
        if not self.path.is_file():
            return []
        try:
            with self._lock:
                rows = (
                    self._open()
                    .execute(
                        "SELECT id, received_at, topic, node, camera, start_ms, reason, attempts, bytes, payload "
                        "FROM rejected ORDER BY id DESC LIMIT ?",
                        (limit,),
                    )
                    .fetchall()
                )
        except sqlite3.Error as exc:
            raise DatabaseError(f"cannot read the refused messages in {self.path}: {exc}") from None
        return [
            Rejected(int(r[0]), float(r[1]), str(r[2]), r[3], r[4], r[5], str(r[6]), int(r[7]), int(r[8]), bytes(r[9]))
            for r in rows
        ]
