"""Memory's housekeeping: what goes with records that are folded (consolidation), forgotten (corrections)
or pruned (retention). sqlite-vec's virtual tables do not cascade, so their vectors are deleted by hand;
media files (crops, keyframes) are listed here and removed only once the records naming them are gone.

Functions over a :class:`~edge_agent.memory.db.Database`, so that consolidation and episodes need no
Store; :class:`Housekeeping` gives the Store the same operations as methods."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from edge_agent.memory.db import Database

__all__ = [
    "Housekeeping",
    "delete_keyframe_vectors",
    "delete_observation_vectors",
    "delete_text_vectors",
    "deletions_key",
    "media_files",
    "media_of_clips",
    "note_vector_deletions",
    "text_vector_tables",
]


def text_vector_tables(db: Database) -> list[str]:
    """The text-index tables present (created by TextIndex on first use)."""
    return [
        r[0]
        for r in db.query(
            "SELECT name FROM sqlite_master WHERE name IN ('vec_text_observation', 'vec_text_episode') ORDER BY name"
        )
    ]


def delete_observation_vectors(db: Database, observations: Sequence[tuple[int, int]]) -> None:
    """Drops the appearance and text vectors of (observation id, space id) pairs about to be deleted
    (virtual tables do not cascade). Reference vectors go with Associator.clear_references."""
    for observation_id, space_id in observations:
        db.execute(f"DELETE FROM vec_obs_{int(space_id)} WHERE observation_id = ?", (int(observation_id),))
    delete_text_vectors(db, "observation", [o for o, _ in observations])


def delete_text_vectors(db: Database, kind: str, ids: Sequence[int]) -> None:
    """Drops the text vectors of deleted observations or episodes (virtual tables do not cascade)."""
    table = f"vec_text_{kind}"
    if ids and table in text_vector_tables(db):
        db.executemany(f"DELETE FROM {table} WHERE item_id = ?", [(int(i),) for i in ids])
        note_vector_deletions(db, table, len(ids))
        # SQLite may give a deleted top id to the next row: the index must look at it again.
        db.execute(
            "UPDATE meta SET value = min(CAST(value AS INTEGER), ?) WHERE key = ?",
            (min(int(i) for i in ids) - 1, f"text_indexed:{kind}"),
        )


def delete_keyframe_vectors(db: Database, clip_ids: Sequence[int]) -> None:
    """Drops the keyframe vectors of clips whose keyframes are gone (forget, retention)."""
    if clip_ids and db.query_one("SELECT 1 FROM sqlite_master WHERE name = 'vec_keyframe'"):
        db.executemany("DELETE FROM vec_keyframe WHERE item_id = ?", [(int(i),) for i in clip_ids])
        note_vector_deletions(db, "vec_keyframe", len(clip_ids))


def deletions_key(table: str) -> str:
    """The ``meta`` key counting deletions from a vector table."""
    return f"vectors_deleted:{table}"


def note_vector_deletions(db: Database, table: str, count: int) -> None:
    """Counts deletions from a vector table in ``meta``: the vector index (memory/vectorindex.py) looks for
    the rows it must leave out when the count moves."""
    if count:
        db.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = "
            "CAST(value AS INTEGER) + excluded.value",
            (deletions_key(table), int(count)),
        )


def media_of_clips(db: Database, clip_ids: Sequence[int]) -> list[str]:
    """The crops and keyframes of some clips, relative to the media folder."""
    if not clip_ids:
        return []
    marks = ",".join("?" * len(clip_ids))
    paths = [
        r[0]
        for r in db.query(
            f"SELECT crop_path FROM observations WHERE clip_id IN ({marks}) AND crop_path IS NOT NULL", tuple(clip_ids)
        )
    ]
    for (keyframes,) in db.query(f"SELECT keyframes FROM clips WHERE id IN ({marks})", tuple(clip_ids)):
        paths.extend(json.loads(keyframes))
    return paths


def media_files(db: Database) -> list[str]:
    """Every media path the memory refers to (crops and keyframes), relative to the media folder."""
    paths = [r[0] for r in db.query("SELECT crop_path FROM observations WHERE crop_path IS NOT NULL")]
    for (keyframes,) in db.query("SELECT keyframes FROM clips WHERE keyframes != '[]'"):
        paths.extend(json.loads(keyframes))
    return paths


class Housekeeping:
    """The Store's housekeeping methods (a mixin: the Store sets ``db`` and ``media_dir``)."""

    db: Database
    media_dir: Path

    def media_path(self, relative: str) -> Path:
        return self.media_dir / relative

    def text_vector_tables(self) -> list[str]:
        """The text-index tables present (created by TextIndex on first use)."""
        return text_vector_tables(self.db)

    def delete_observation_vectors(self, observations: Sequence[tuple[int, int]]) -> None:
        """See :func:`delete_observation_vectors`."""
        delete_observation_vectors(self.db, observations)

    def delete_text_vectors(self, kind: str, ids: Sequence[int]) -> None:
        """See :func:`delete_text_vectors`."""
        delete_text_vectors(self.db, kind, ids)

    def delete_keyframe_vectors(self, clip_ids: Sequence[int]) -> None:
        """See :func:`delete_keyframe_vectors`."""
        delete_keyframe_vectors(self.db, clip_ids)

    def media_of_clips(self, clip_ids: Sequence[int]) -> list[str]:
        """The crops and keyframes of some clips, relative to the media folder."""
        return media_of_clips(self.db, clip_ids)

    def media_files(self) -> list[str]:
        """Every media path the memory refers to (crops and keyframes), relative to the media folder."""
        return media_files(self.db)

    def delete_media(self, paths: Sequence[str]) -> int:
        """Removes media files (after the records that named them are committed); returns bytes freed."""
        freed = 0
        for relative in paths:
            path = self.media_path(relative)
            try:
                freed += path.stat().st_size
                path.unlink()
            except FileNotFoundError:
                continue
        return freed
