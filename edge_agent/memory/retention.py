"""Retention: the memory never grows without bound. A cap in days and/or bytes is enforced oldest clip first
(raw media first, then records), deleting only as many clips as the cap needs: bytes are the live pages a
VACUUM would keep, and vec0 tables are compacted as their rows leave.

Deleting records removes their vectors too, rebuilds the reference sets they were part of, deletes entities
left without observations, and finally sweeps any file or vector nothing refers to. Entities the user named
keep the clips of their reference observations and of their latest one unless ``include_named`` is given.
A cap below what an empty memory of the same schema and embedding spaces occupies is refused up front.

On a disk that is (nearly) full, deleting needs room too (the WAL holds what a delete changes): the WAL is
truncated first, the pictures of the clips going are deleted before their records (they are going anyway), records
go in small steps each handed back to the file system before the next, freed pages are not overwritten with zeros
(secure_delete FAST: a full-disk prune of a chunk would write its 2 MiB again), and a vector table's rebuild that
does not fit is left for a later run. Where the memory cannot even be opened for writing, :func:`free_pictures`
makes the first room."""

from __future__ import annotations

import logging
import math
import os
import re
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from edge_agent.errors import EdgeAgentError
from edge_agent.memory import episodes
from edge_agent.memory.db import Database, StorageFullError, free_bytes, human_bytes
from edge_agent.memory.footprint import database_bytes, empty_bytes, usage
from edge_agent.memory.housekeeping import note_vector_deletions
from edge_agent.memory.store import Store

__all__ = [
    "CapBelowMinimumError",
    "RetentionPolicy",
    "RetentionReport",
    "compact",
    "database_bytes",
    "empty_bytes",
    "enforce",
    "free_pictures",
    "usage",
]

_MAX_STEP = 500  # clips per step: a step is one transaction, so a crash loses at most one step's progress
_TIGHT_STEP = 16  # clips per step on a disk with less than _TIGHT_BYTES free: a step's WAL must fit what is free
_TIGHT_BYTES = 32 << 20
_VACUUM_PAGES = 128  # fewest pages handed back to the file system in one step

log = logging.getLogger(__name__)
_REBUILD_FRACTION = 0.25  # a vec0 table is rebuilt once packing it would free this share of its bytes (and a chunk's)
_MIN_CHUNK = 64  # smallest chunk a rebuild fits a table to: a table that grows again then does not pay in chunk count


class CapBelowMinimumError(EdgeAgentError, ValueError):
    """The byte cap is below what an empty memory of this schema and these embedding spaces occupies."""


@dataclass(frozen=True)
class RetentionPolicy:
    max_bytes: int | None = None  #: cap on database (live pages) + media bytes
    max_age_days: float | None = None  #: clips that ended longer ago than this are deleted

    def __post_init__(self) -> None:
        if self.max_bytes is not None and self.max_bytes <= 0:
            raise ValueError("max_bytes must be > 0")
        if self.max_age_days is not None and self.max_age_days <= 0:
            raise ValueError("max_age_days must be > 0")


@dataclass(frozen=True)
class RetentionReport:
    bytes_before: int
    bytes_after: int  #: measured; under dry_run, what the run would leave (measured inside a rolled-back transaction)
    media_files_deleted: int
    clips_deleted: int
    observations_deleted: int
    entities_deleted: int
    orphans_removed: int
    cap_reached: bool = True  #: False when the byte cap is still exceeded; ``reason`` says why
    reason: str = ""
    dry_run: bool = False  #: nothing was deleted: the counts are what a real run would delete
    empty_bytes: int = 0  #: what an empty memory of the same schema and embedding spaces occupies
    clips_protected: int = 0  #: clips kept for named entities
    media_bytes_deleted: int = 0
    deleted_from: float | None = None  #: start of the oldest and of the newest clip deleted (None: none)
    deleted_to: float | None = None


def compact(store: Store) -> None:
    """Hands freed pages back to the file system (incremental auto-vacuum, WAL truncated). Not inside a
    transaction (a dry run): live bytes are measured without it."""
    if store.db.in_transaction:
        return
    store.db.truncate_wal()
    # In steps that fit half the free space (at least _VACUUM_PAGES): the pages a step moves go through the WAL,
    # which each step gives back; with room to spare, one step.
    page_size = int(store.db.value("PRAGMA page_size"))
    free_pages = int(store.db.value("PRAGMA freelist_count"))
    while free_pages > 0:
        step = max(_VACUUM_PAGES, free_bytes(store.db.path) // (2 * page_size))
        try:
            store.db.query(f"PRAGMA incremental_vacuum({step})")
        except StorageFullError as exc:  # no room even for that: the pages stay free inside memory.db for now
            log.debug("cannot hand freed pages back yet: %s", exc)
            break
        store.db.truncate_wal()
        left = int(store.db.value("PRAGMA freelist_count"))
        if left >= free_pages:
            break
        free_pages = left


# -- vec0 tables -------------------------------------------------------------------------------------
#
# sqlite-vec 0.1.9 stores each vec0 table's vectors in chunks of ``chunk_size`` (1024) slots per partition
# key value, allocated whole when the first row lands in them (a 64-dim float vector: 256 KiB a chunk).
# Deleting a row only clears its slot; the chunk is freed once its last row is deleted, and new rows go to
# the newest chunk of their partition, never into older holes. Oldest-first deletion therefore frees
# chunks by itself; scattered deletions (reference sets, forget) leave holes that only a rebuild packs.


@dataclass(frozen=True)
class _VectorTable:
    name: str
    chunk_size: int
    chunk_bytes: int  #: bytes one chunk occupies (its vectors, validity, rowids and metadata blobs, on pages)
    chunk_of_row: dict[int, int]  #: rowid -> chunk id
    partition_of_chunk: dict[int, tuple[Any, ...]]  #: chunk id -> partition key values
    columns: tuple[str, ...]  #: columns to copy on a rebuild (the primary key first, or rowid)


def _blob_bytes(length: int, page_size: int) -> int:
    # A blob larger than a page's share spills onto overflow pages of page_size - 4 usable bytes.
    return length if length < page_size // 4 else math.ceil(length / (page_size - 4)) * page_size


def _vector_tables(db: Database) -> list[_VectorTable]:
    names = [
        r[0]
        for r in db.query(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%USING vec0%' "
            "ORDER BY name"
        )
    ]
    page_size = int(db.value("PRAGMA page_size"))
    tables = []
    for name in names:
        shadow = [
            r[0]
            for r in db.query(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND (name = ? OR name GLOB ? OR name GLOB ?)",
                (f"{name}_chunks", f"{name}_vector_chunks[0-9][0-9]", f"{name}_metadatachunks[0-9][0-9]"),
            )
        ]
        chunk_bytes = 0
        for table in shadow:
            row = db.query_one(f"SELECT * FROM {table} LIMIT 1")
            chunk_bytes += sum(_blob_bytes(len(v), page_size) for v in (row or ()) if isinstance(v, bytes)) + 16
        partition_columns = [
            r[1] for r in db.query(f"PRAGMA table_info({name}_chunks)") if str(r[1]).startswith("partition")
        ]
        chunks = db.query(f"SELECT chunk_id, size{''.join(', ' + c for c in partition_columns)} FROM {name}_chunks")
        info = db.query(f"PRAGMA table_info({name})")
        keys = [r[1] for r in info if r[5]]
        columns = tuple(keys or ["rowid"]) + tuple(r[1] for r in info if not r[5])
        tables.append(
            _VectorTable(
                name=name,
                chunk_size=int(chunks[0][1]) if chunks else 1024,
                chunk_bytes=chunk_bytes,
                chunk_of_row=dict(db.query(f"SELECT rowid, chunk_id FROM {name}_rowids")),
                partition_of_chunk={int(c[0]): tuple(c[2:]) for c in chunks},
                columns=columns,
            )
        )
    return tables


def _fitted_chunk_size(chunk_size: int, rows: int) -> int:
    """The chunk size a rebuild gives a table: its own, or for a table whose partitions hold fewer rows, the
    power of two that fits the largest (at least _MIN_CHUNK): a small memory then does not pay for 1024 slots
    a partition, which otherwise go only with the partition's last row."""
    return min(chunk_size, max(_MIN_CHUNK, 1 << max(0, rows - 1).bit_length()))


def _packed_bytes(rows_by_partition: Sequence[int], chunk_size: int, chunk_bytes: int) -> tuple[int, float]:
    """(chunk size, bytes) of a table rebuilt with these rows per partition."""
    size = _fitted_chunk_size(chunk_size, max(rows_by_partition, default=0))
    return size, sum(-(-n // size) for n in rows_by_partition if n > 0) * chunk_bytes * size / chunk_size


def _worth_rebuilding(now: float, packed: float, packed_chunk_bytes: float) -> bool:
    return now - packed >= max(packed_chunk_bytes, _REBUILD_FRACTION * now)


def _compact_vectors(store: Store) -> int:
    """Rebuilds the vec0 tables where packing their rows (in chunks fitted to them) frees enough, in one
    transaction each: rows copied aside, the table dropped and created again (with its new chunk size),
    rows put back. Returns the tables rebuilt."""
    rebuilt = 0
    for table in _vector_tables(store.db):
        rows: dict[tuple[Any, ...], int] = {}
        for chunk in table.chunk_of_row.values():
            key = table.partition_of_chunk.get(chunk, ())
            rows[key] = rows.get(key, 0) + 1
        size, packed = _packed_bytes(list(rows.values()), table.chunk_size, table.chunk_bytes)
        now = len(table.partition_of_chunk) * table.chunk_bytes
        if not _worth_rebuilding(now, packed, table.chunk_bytes * size / table.chunk_size):
            continue
        ddl = store.db.value("SELECT sql FROM sqlite_master WHERE name = ?", (table.name,))
        ddl = re.sub(r",\s*chunk_size\s*=\s*\d+", "", ddl.rstrip().rstrip(";")).rstrip()
        ddl = ddl[:-1].rstrip() + f",\n    chunk_size={size}\n)" if size != 1024 else ddl
        columns = ", ".join(table.columns)
        with store.write():
            store.db.execute("DROP TABLE IF EXISTS temp.retention_rebuild")
            store.db.execute(f"CREATE TEMP TABLE retention_rebuild AS SELECT {columns} FROM {table.name}")
            store.db.execute(f"DROP TABLE {table.name}")
            store.db.execute(ddl)
            store.db.execute(
                f"INSERT INTO {table.name} ({columns}) SELECT {columns} FROM temp.retention_rebuild ORDER BY 1"
            )
            store.db.execute("DROP TABLE temp.retention_rebuild")
        rebuilt += 1
    return rebuilt


# -- what deleting the oldest clips frees ----------------------------------------------------------------


def _owners(store: Store, table: str, clip_rank: dict[int, int]) -> dict[int, int]:
    """rowid -> rank (in deletion order) of the clip whose deletion removes that vector; rows no candidate
    clip removes are left out."""
    db = store.db
    if re.fullmatch(r"vec_(obs|ref)_\d+|vec_text_observation", table):
        return {o: clip_rank[c] for o, c in db.query("SELECT id, clip_id FROM observations") if c in clip_rank}
    if table == "vec_keyframe":
        return dict(clip_rank)
    if table == "vec_text_episode":
        owners = {
            e: clip_rank[c]
            for e, c in db.query("SELECT id, clip_id FROM episodes WHERE clip_id IS NOT NULL")
            if c in clip_rank
        }
        # A coarser episode's summary (and vector) is rewritten as soon as one clip of its window goes.
        clips = sorted(
            (t, cam, clip_rank[i]) for i, cam, t in db.query("SELECT id, camera, t_start FROM clips") if i in clip_rank
        )
        starts = [c[0] for c in clips]
        for e, camera, t0, t1 in db.query("SELECT id, camera, t_start, t_end FROM episodes WHERE clip_id IS NULL"):
            lo, hi = np.searchsorted(starts, t0, "left"), np.searchsorted(starts, t1, "right")
            ranks = [r for _, cam, r in clips[lo:hi] if camera is None or cam == camera]
            if ranks:
                owners[e] = min(ranks)
        return owners
    return {}


def _freed_estimate(store: Store, candidates: Sequence[int], tables: list[_VectorTable], empty: int) -> np.ndarray:
    """Estimated bytes freed by deleting the first i candidate clips (i = 0..n), then compacting:

    - their media, exactly;
    - the vec0 chunks left without a row (exact: which rows each chunk holds is known), or the chunks a
      rebuild would free once enough are;
    - their share of the rest of the database (live bytes less the empty memory and the chunks), by the
      size of their rows. An overestimate (part of that rest is not the clips'), so steps fall short of the
      need rather than past it, and the loop measures and goes on."""
    db = store.db
    n = len(candidates)
    rank = {c: i for i, c in enumerate(candidates)}
    rows = {
        r[0]: r[1:]
        for r in db.query(
            "SELECT c.id, c.media_bytes + coalesce(o.media, 0), coalesce(o.n, 0), coalesce(o.chars, 0), coalesce(b.n, "
            "0), "
            "coalesce(e.chars, 0), coalesce(s.chars, 0) FROM clips c "
            "LEFT JOIN (SELECT clip_id, count(*) AS n, sum(media_bytes) AS media, sum(length(description)) AS chars "
            "FROM observations GROUP BY clip_id) o ON o.clip_id = c.id "
            "LEFT JOIN (SELECT o.clip_id, count(*) AS n FROM observation_boxes x JOIN observations o ON o.id = "
            "x.observation_id "
            "GROUP BY o.clip_id) b ON b.clip_id = c.id "
            "LEFT JOIN (SELECT clip_id, sum(length(text) + 150) AS chars FROM episodes GROUP BY clip_id) e ON "
            "e.clip_id = c.id "
            "LEFT JOIN (SELECT clip_id, sum(length(text) + 60) AS chars FROM clip_speech GROUP BY clip_id) s ON "
            "s.clip_id = c.id"
        )
    }
    # Rough bytes of a clip's rows (a clip and its log line, an observation with its decision, index and
    # full-text entries, a box): only their proportions matter, the total is scaled to what is measured.
    weight = {c: 250 + 700 * r[1] + 3 * r[2] + 45 * r[3] + 2 * r[4] + r[5] for c, r in rows.items()}
    chunk_total = sum(t.chunk_bytes * len(t.partition_of_chunk) for t in tables)
    rest = max(0, database_bytes(db) - empty - chunk_total)
    scale = rest / max(1, sum(weight.values()))
    per_clip = np.array([rows[c][0] + scale * weight[c] for c in candidates], dtype=np.float64)
    freed = np.concatenate([[0.0], np.cumsum(per_clip)])

    never = n + 1  # a rank past every candidate: a chunk or row no deletion here removes
    for table in tables:
        if not table.partition_of_chunk:
            continue
        owners = _owners(store, table.name, rank)
        last = {c: -1 for c in table.partition_of_chunk}  # chunk -> rank of the last deletion that empties it
        partition_rows: dict[tuple[Any, ...], np.ndarray] = {}
        for row, chunk in table.chunk_of_row.items():
            r = owners.get(row, never)
            last[chunk] = max(last.get(chunk, -1), r)
            key = table.partition_of_chunk.get(chunk, ())
            partition_rows.setdefault(key, np.zeros(n + 2, np.int64))[min(r, never)] += 1
        if not partition_rows:
            continue
        chunks_now = len(table.partition_of_chunk)
        empties = np.bincount(np.minimum(np.array(list(last.values()), np.int64) + 1, never), minlength=n + 2)
        natural = (chunks_now - np.cumsum(empties)[: n + 1]) * float(table.chunk_bytes)  # bytes left after i deletions
        left = np.array(
            [counts.sum() - np.concatenate([[0], np.cumsum(counts)[:n]]) for counts in partition_rows.values()]
        )
        fitted = [_packed_bytes(left[:, i].tolist(), table.chunk_size, table.chunk_bytes) for i in range(n + 1)]
        packed = np.array([b for _, b in fitted])
        packed_chunk = np.array([table.chunk_bytes * c / table.chunk_size for c, _ in fitted])
        rebuild = natural - packed >= np.maximum(packed_chunk, _REBUILD_FRACTION * natural)
        freed += chunks_now * float(table.chunk_bytes) - np.where(rebuild, packed, natural)
    return freed


# -- what to delete: decisions on values, the deleting below -------------------------------------------


def media_to_forget(with_media: Sequence[tuple[int, int]], excess: int, protected: Collection[int]) -> list[int]:
    """The clips whose media go: of (clip, media bytes) oldest first, just enough to cover ``excess`` bytes (media
    bytes are exact), the ``protected`` ones left."""
    chosen: list[int] = []
    for clip_id, media in with_media:
        if excess <= 0:
            break
        if clip_id not in protected:
            chosen.append(clip_id)
            excess -= media
    return chosen


def clips_to_drop(freed: np.ndarray, excess: int) -> int:
    """How many of the oldest clips go in one step: the fewest estimated to cover ``excess`` (``freed[i]``: the bytes
    estimated freed by the first i), a sixteenth short of a large estimate (the next round measures what is left),
    at least one and at most all of them."""
    need = int(np.searchsorted(freed, excess, "left"))
    return min(len(freed) - 1, max(1, need - need // 16 if need > 2 else need))


def _stuck(excess: int, kept: int) -> str:
    """Why the cap is not reached when no clip is left to delete (``kept``: clips kept for named entities)."""
    return (
        f"{human_bytes(excess)} over the cap with no clip left to delete: "
        + (f"{kept} clips are kept for named entities (--include-named lets them go), " if kept else "")
        + "and what is not clips (entities, facts, rules, the ingest log) stays"
    )


# -- deleting ------------------------------------------------------------------------------------------


def _drop_media(store: Store, clip_ids: list[int]) -> list[str]:
    """Forgets the media of some clips (and their keyframe vectors); returns the files to delete once committed."""
    marks = ",".join("?" * len(clip_ids))
    files = store.media_of_clips(clip_ids)
    with store.write():
        store.db.execute(
            f"UPDATE observations SET crop_path = NULL, media_bytes = 0 WHERE clip_id IN ({marks})", clip_ids
        )
        store.db.execute(f"UPDATE clips SET keyframes = '[]', media_bytes = 0 WHERE id IN ({marks})", clip_ids)
        store.delete_keyframe_vectors(clip_ids)
    return files


def _drop_records(store: Store, clip_ids: list[int]) -> tuple[int, int, list[str]]:
    """Deletes clips and what derives from them; returns (observations, entities) deleted and the files to
    delete once committed."""
    marks = ",".join("?" * len(clip_ids))
    files = store.media_of_clips(clip_ids)
    with store.write():
        observations = store.db.query(
            f"SELECT id, space_id, entity_id FROM observations WHERE clip_id IN ({marks})", clip_ids
        )
        touched = {e for _, _, e in observations if e is not None}
        for entity_id in touched:
            store.associator.clear_references(entity_id)
        store.delete_observation_vectors([(o[0], o[1]) for o in observations])
        store.delete_text_vectors(
            "episode", [r[0] for r in store.db.query(f"SELECT id FROM episodes WHERE clip_id IN ({marks})", clip_ids)]
        )
        store.delete_keyframe_vectors(clip_ids)
        spans = store.db.query(f"SELECT camera, t_start, t_end FROM clips WHERE id IN ({marks})", clip_ids)
        store.db.execute(f"DELETE FROM clips WHERE id IN ({marks})", clip_ids)  # cascades to observations, boxes, logs
        episodes.refresh(store.db, spans)  # summaries over them: rewritten from what is left, or removed
        emptied = [  # a person enrolled from pictures stays, their name and faces with them (people forget removes)
            e
            for e in touched
            if store.db.query_one("SELECT 1 FROM observations WHERE entity_id = ? LIMIT 1", (e,)) is None
            and store.db.query_one("SELECT 1 FROM face_refs WHERE entity_id = ? AND enrolled = 1", (e,)) is None
            and store.db.query_one("SELECT 1 FROM thing_refs WHERE entity_id = ?", (e,)) is None
        ]
        for entity_id in emptied:
            store.db.execute("DELETE FROM entities WHERE id = ?", (entity_id,))
        for entity_id in touched.difference(emptied):
            if store.db.query_one("SELECT 1 FROM observations WHERE entity_id = ? LIMIT 1", (entity_id,)) is None:
                continue  # an enrolled person with nothing seen left: kept as enrolled
            store.associator.rebuild_references(entity_id)
            store.db.execute(
                "UPDATE entities SET first_seen = (SELECT min(t_start) FROM observations WHERE entity_id = ?1) WHERE "
                "id = ?1",
                (entity_id,),
            )
    return len(observations), len(emptied), files


def _sweep_orphans(store: Store, pending: set[str], dry_run: bool) -> int:
    """Vectors and files nothing refers to. Files in ``pending`` (named by records this run deleted) are
    not counted: they are deleted anyway, or, in a dry run, would be."""
    removed = 0
    with store.write():
        for space_id, _ in store.vector_tables():
            for table in (f"vec_obs_{space_id}", f"vec_ref_{space_id}"):
                orphans = [
                    r[0]
                    for r in store.db.query(
                        f"SELECT observation_id FROM {table} WHERE observation_id NOT IN (SELECT id FROM observations)"
                    )
                ]
                for observation_id in orphans:
                    store.db.execute(f"DELETE FROM {table} WHERE observation_id = ?", (observation_id,))
                removed += len(orphans)
        if store.db.query_one("SELECT 1 FROM sqlite_master WHERE name = 'vec_keyframe'"):
            gone = [
                r[0]
                for r in store.db.query(
                    "SELECT item_id FROM vec_keyframe WHERE item_id NOT IN (SELECT id FROM clips WHERE keyframes != "
                    "'[]')"
                )
            ]
            store.delete_keyframe_vectors(gone)
            removed += len(gone)
        for table, owner in (("vec_text_observation", "observations"), ("vec_text_episode", "episodes")):
            if table in store.text_vector_tables():
                orphans = [
                    r[0]
                    for r in store.db.query(
                        f"SELECT item_id FROM {table} WHERE item_id NOT IN (SELECT id FROM {owner})"
                    )
                ]
                store.db.executemany(f"DELETE FROM {table} WHERE item_id = ?", [(i,) for i in orphans])
                note_vector_deletions(store.db, table, len(orphans))
                removed += len(orphans)
    referenced = set(store.media_files())
    for root, _, files in os.walk(store.media_dir):
        for name in files:
            relative = os.path.relpath(os.path.join(root, name), store.media_dir)
            if relative not in referenced and relative not in pending:
                if not dry_run:
                    os.unlink(os.path.join(root, name))
                removed += 1
    return removed


def _protected_clips(store: Store) -> set[int]:
    """Clips a named entity needs to stay what it is: those of its reference observations and of its latest
    observation (at most reference_set_size + 1 per entity)."""
    return {
        int(r[0])
        for r in store.db.query(
            "SELECT o.clip_id FROM entity_refs r JOIN entities e ON e.id = r.entity_id "
            "JOIN observations o ON o.id = r.observation_id "
            "WHERE e.name IS NOT NULL "
            "UNION SELECT (SELECT o.clip_id FROM observations o WHERE o.entity_id = e.id ORDER BY o.t_end DESC, o.id "
            "DESC LIMIT 1) "
            "FROM entities e WHERE e.name IS NOT NULL"
        )
        if r[0] is not None
    }


def free_pictures(
    store: Store, policy: RetentionPolicy, *, now: float | None = None, include_named: bool = False
) -> int:
    """Deletes the pictures :func:`enforce` deletes first (of the clips past the age cap; the oldest clips' media
    that covers the excess over the byte cap), leaving their records: for a disk too full to open the memory for
    writing (WAL's shared-memory file needs a page), which ``store`` was opened to read. The records naming them go
    when :func:`enforce` runs next (at once). Returns the bytes freed."""
    now = time.time() if now is None else now
    protected = set() if include_named else _protected_clips(store)
    chosen: list[int] = []
    if policy.max_age_days is not None:
        rows = store.db.query("SELECT id FROM clips WHERE t_end < ?", (now - policy.max_age_days * 86400.0,))
        chosen += [int(r[0]) for r in rows if r[0] not in protected]
    if policy.max_bytes is not None:
        excess = usage(store) - policy.max_bytes
        for clip_id, media in store.db.query(
            "SELECT c.id, c.media_bytes + "
            "(SELECT coalesce(sum(o.media_bytes), 0) FROM observations o WHERE o.clip_id = c.id) AS m "
            "FROM clips c WHERE m > 0 ORDER BY c.t_start, c.id"
        ):
            if excess <= 0:
                break
            if clip_id not in protected:
                chosen.append(int(clip_id))
                excess -= int(media)
    return store.delete_media(store.media_of_clips(sorted(set(chosen))))


class _Rollback(Exception):
    def __init__(self, report: RetentionReport) -> None:
        super().__init__("dry run")
        self.report = report


def enforce(
    store: Store,
    policy: RetentionPolicy,
    *,
    now: float | None = None,
    dry_run: bool = False,
    include_named: bool = False,
) -> RetentionReport:
    """Applies ``policy``: clips past the age cap go; then, while over the byte cap, the oldest clips' media
    and then their records, in steps sized to what is still over.

    Args:
        now: the time the age cap counts back from (default: now).
        dry_run: do everything inside one transaction, measure, and roll it back; no file is deleted.
        include_named: let named entities' clips go too.

    Raises:
        CapBelowMinimumError: the byte cap is below :func:`empty_bytes` (nothing is deleted)."""
    empty = empty_bytes(store)
    if policy.max_bytes is not None and policy.max_bytes < empty:
        raise CapBelowMinimumError(
            f"--max-bytes {policy.max_bytes} ({human_bytes(policy.max_bytes)}) is below the minimum of this memory: "
            f"{empty} bytes ({human_bytes(empty)}), what its schema and embedding spaces occupy with no clip in it"
        )
    if not dry_run:
        store.db.truncate_wal()  # a WAL left large (an older version, a crash) is the first room a full disk gets
        tight = free_bytes(store.db.path) < _TIGHT_BYTES
        if tight:
            store.db.execute("PRAGMA secure_delete = FAST")
        try:
            return _enforce(
                store, policy, time.time() if now is None else now, empty, include_named, dry_run=False, tight=tight
            )
        finally:
            if tight:
                store.db.execute("PRAGMA secure_delete = ON")
    try:
        with store.write():
            raise _Rollback(
                _enforce(store, policy, time.time() if now is None else now, empty, include_named, dry_run=True)
            )
    except _Rollback as done:
        return done.report


def _enforce(
    store: Store,
    policy: RetentionPolicy,
    now: float,
    empty: int,
    include_named: bool,
    *,
    dry_run: bool,
    tight: bool = False,
) -> RetentionReport:
    db = store.db
    before = usage(store)
    protected = set() if include_named else _protected_clips(store)
    files: set[str] = set()
    clips = observations = entities = media_bytes = 0
    spans: list[float] = []

    def delete_files(paths: list[str]) -> None:
        nonlocal media_bytes
        files.update(paths)
        if dry_run:
            media_bytes += sum(store.media_path(p).stat().st_size for p in paths if store.media_path(p).is_file())
        else:
            media_bytes += store.delete_media(paths)

    steps = _TIGHT_STEP if tight else _MAX_STEP

    def drop(clip_ids: list[int]) -> None:
        nonlocal clips, observations, entities
        for start in range(0, len(clip_ids), steps):
            step = clip_ids[start : start + steps]
            marks = ",".join("?" * len(step))
            spans.extend(r[0] for r in db.query(f"SELECT t_start FROM clips WHERE id IN ({marks})", step))
            if tight:  # their pictures first: the room their records' deletion needs
                delete_files(store.media_of_clips(step))
            n_obs, n_ent, paths = _drop_records(store, step)
            delete_files(paths)
            clips, observations, entities = clips + len(step), observations + n_obs, entities + n_ent
            if tight:
                compact(store)

    def compact_vectors() -> None:
        try:
            _compact_vectors(store)
        except StorageFullError as exc:
            if not tight:
                raise
            log.info("a vector table is left to be packed on a later run: %s", exc)

    def oldest(where: str = "1", params: tuple[Any, ...] = ()) -> list[int]:
        rows = db.query(f"SELECT id FROM clips WHERE {where} ORDER BY t_start, id", params)
        return [r[0] for r in rows if r[0] not in protected]

    if policy.max_age_days is not None:
        drop(oldest("t_end < ?", (now - policy.max_age_days * 86400.0,)))

    reached, reason = True, ""
    if policy.max_bytes is not None:
        cap = policy.max_bytes
        compact_vectors()  # holes left by earlier deletions cost no clip
        if usage(store) > cap:
            # Oldest clips' media first, just enough of it to cover the excess (media bytes are exact).
            with_media = db.query(
                "SELECT c.id, c.media_bytes + "
                "(SELECT coalesce(sum(o.media_bytes), 0) FROM observations o WHERE o.clip_id = c.id) AS m "
                "FROM clips c WHERE m > 0 ORDER BY c.t_start, c.id"
            )
            chosen = media_to_forget(with_media, usage(store) - cap, protected)
            for start in range(0, len(chosen), steps):
                if tight:
                    delete_files(store.media_of_clips(chosen[start : start + steps]))
                delete_files(_drop_media(store, chosen[start : start + steps]))
            compact_vectors()
            compact(store)
        while (excess := usage(store) - cap) > 0:
            candidates = oldest()
            if not candidates:
                reached = False
                reason = _stuck(excess, len(protected & {r[0] for r in db.query("SELECT id FROM clips")}))
                break
            drop(candidates[: clips_to_drop(_freed_estimate(store, candidates, _vector_tables(db), empty), excess)])
            compact_vectors()
            compact(store)

    orphans = _sweep_orphans(store, files, dry_run)
    compact(store)
    after = usage(store)
    if policy.max_bytes is not None and reached and after > policy.max_bytes:
        reached, reason = False, f"{human_bytes(after - policy.max_bytes)} over the cap after sweeping"
    return RetentionReport(
        before,
        after,
        len(files),
        clips,
        observations,
        entities,
        orphans,
        reached,
        reason,
        dry_run,
        empty,
        len(protected),
        media_bytes,
        min(spans) if spans else None,
        max(spans) if spans else None,
    )
