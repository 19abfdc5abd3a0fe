"""What the memory occupies: the database's live bytes (what a VACUUM would keep), the media its records name, and
what an empty memory of the same schema and embedding spaces takes. Retention caps these; the write path names them
when a disk is too full for a clip."""

from __future__ import annotations

import tempfile
from pathlib import Path

from edge_agent.memory.db import Database, HasDatabase, database_of

__all__ = ["database_bytes", "empty_bytes", "media_bytes", "usage"]


def database_bytes(db: Database) -> int:
    """Live bytes of the database: its pages less the free ones, what a VACUUM would about keep. The WAL is
    not added: PRAGMA page_count already sees what it holds."""
    page_size = int(db.value("PRAGMA page_size"))
    pages = int(db.value("PRAGMA page_count"))
    live = pages - int(db.value("PRAGMA freelist_count"))
    if int(db.value("PRAGMA auto_vacuum")):  # pointer-map pages: a file of fewer pages needs fewer of them
        live -= _pointer_map_pages(pages, page_size) - _pointer_map_pages(live, page_size)
    return live * page_size


def _pointer_map_pages(pages: int, page_size: int) -> int:
    """Pointer-map pages in an auto-vacuum database of ``pages`` pages: page 2, then one every
    page_size / 5 + 1 pages (each maps the page_size / 5 pages after it)."""
    return 0 if pages < 2 else (pages - 2) // (page_size // 5 + 1) + 1


def media_bytes(memory: Database | HasDatabase) -> int:
    """Bytes of the pictures (crops, keyframes) the memory's records name."""
    return int(
        database_of(memory).value(
            "SELECT (SELECT coalesce(sum(media_bytes), 0) FROM clips) + (SELECT coalesce(sum(media_bytes), 0) FROM "
            "observations)"
        )
    )


def usage(memory: Database | HasDatabase) -> int:
    """Bytes the memory occupies: the database's live pages and the media files it records."""
    return database_bytes(database_of(memory)) + media_bytes(memory)


def empty_bytes(memory: Database | HasDatabase) -> int:
    """What a memory with this one's schema, embedding spaces and text/keyframe indexes but no clips
    occupies, measured by building one in a temporary folder (an empty vec0 table holds no chunk)."""
    db = database_of(memory)
    vector_ddl = [
        r[0]
        for r in db.query(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%USING vec0%' ORDER "
            "BY name"
        )
    ]
    spaces = db.query("SELECT id, name, dims FROM embedding_spaces")
    meta = db.query("SELECT key, value FROM meta")
    with (
        tempfile.TemporaryDirectory(prefix="edge-agent-empty-") as folder,
        Database(Path(folder) / "memory.db", driver=db.driver) as empty,
    ):
        with empty.transaction():
            empty.executemany("INSERT INTO embedding_spaces (id, name, dims) VALUES (?, ?, ?)", spaces)
            empty.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", meta)
            for sql in vector_ddl:
                empty.execute(sql)
        return database_bytes(empty)
