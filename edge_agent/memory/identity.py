"""This memory's install id: a short random name made once, kept in ``meta``, that tells two installs apart where
they meet (Home Assistant's MQTT discovery on one broker: node ids, unique ids, device identifiers, topics)."""

from __future__ import annotations

import secrets

from edge_agent.memory.db import Database, HasDatabase, database_of

__all__ = ["install_id"]

_KEY = "install_id"


def install_id(memory: Database | HasDatabase) -> str:
    """The install id (12 lower-case hex digits), made and stored on first use; a copy of the memory (a restored
    backup) keeps it, as it is the same memory."""
    db = database_of(memory)
    row = db.query_one("SELECT value FROM meta WHERE key = ?", (_KEY,))
    if row is not None:
        return str(row[0])
    with db.transaction():
        db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)", (_KEY, secrets.token_hex(6)))
        return str(db.value("SELECT value FROM meta WHERE key = ?", (_KEY,)))
