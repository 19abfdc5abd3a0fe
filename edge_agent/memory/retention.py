"""Retention: the memory never grows without bound. A cap in bytes (database plus media) and/or in
days is enforced oldest clip first: raw media (crops, keyframes) goes first, then records. Deleting
records removes their vectors too, rebuilds the reference sets they were part of, deletes entities left
without observations, and finally sweeps any file or vector nothing refers to."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

from edge_agent.memory import episodes
from edge_agent.memory.store import Store

__all__ = ["RetentionPolicy", "RetentionReport", "compact", "enforce", "usage"]

_MAX_STEP = 500  # clips per step: a step is one transaction, so a crash loses at most one step's progress


@dataclass(frozen=True)
class RetentionPolicy:
    max_bytes: int | None = None  #: cap on database + media bytes
    max_age_days: float | None = None  #: clips that ended longer ago than this are deleted

    def __post_init__(self) -> None:
        if self.max_bytes is not None and self.max_bytes <= 0:
            raise ValueError("max_bytes must be > 0")
        if self.max_age_days is not None and self.max_age_days <= 0:
            raise ValueError("max_age_days must be > 0")


@dataclass(frozen=True)
class RetentionReport:
    bytes_before: int
    bytes_after: int
    media_files_deleted: int
    clips_deleted: int
    observations_deleted: int
    entities_deleted: int
    orphans_removed: int


def usage(store: Store) -> int:
    """Bytes the memory occupies: the database (with its WAL) and the media files it records."""
    media = store.db.query_one(
        "SELECT (SELECT coalesce(sum(media_bytes), 0) FROM clips) + (SELECT coalesce(sum(media_bytes), 0) FROM observations)"
    )[0]
    return store.db.file_bytes() + int(media)


def compact(store: Store) -> None:
    """Hands freed pages back to the file system (incremental auto-vacuum, WAL truncated)."""
    store.db.checkpoint()
    store.db.query("PRAGMA incremental_vacuum")
    store.db.checkpoint()


def _drop_media(store: Store, clip_ids: list[int]) -> int:
    marks = ",".join("?" * len(clip_ids))
    files = store.media_of_clips(clip_ids)
    with store.write():
        store.db.execute(f"UPDATE observations SET crop_path = NULL, media_bytes = 0 WHERE clip_id IN ({marks})", clip_ids)
        store.db.execute(f"UPDATE clips SET keyframes = '[]', media_bytes = 0 WHERE id IN ({marks})", clip_ids)
        store.delete_keyframe_vectors(clip_ids)
    store.delete_media(files)
    return len(files)


def _drop_records(store: Store, clip_ids: list[int]) -> tuple[int, int]:
    marks = ",".join("?" * len(clip_ids))
    files = store.media_of_clips(clip_ids)
    with store.write():
        observations = store.db.query(f"SELECT id, space_id, entity_id FROM observations WHERE clip_id IN ({marks})", clip_ids)
        touched = {e for _, _, e in observations if e is not None}
        for entity_id in touched:
            store.associator.clear_references(entity_id)
        store.delete_observation_vectors([(o[0], o[1]) for o in observations])
        store.delete_text_vectors("episode", [r[0] for r in store.db.query(f"SELECT id FROM episodes WHERE clip_id IN ({marks})", clip_ids)])
        store.delete_keyframe_vectors(clip_ids)
        spans = store.db.query(f"SELECT camera, t_start, t_end FROM clips WHERE id IN ({marks})", clip_ids)
        store.db.execute(f"DELETE FROM clips WHERE id IN ({marks})", clip_ids)  # cascades to observations, boxes, logs
        episodes.refresh(store, spans)  # summaries over them: rewritten from what is left, or removed
        emptied = [
            e for e in touched
            if store.db.query_one("SELECT 1 FROM observations WHERE entity_id = ? LIMIT 1", (e,)) is None
        ]
        for entity_id in emptied:
            store.db.execute("DELETE FROM entities WHERE id = ?", (entity_id,))
        for entity_id in touched.difference(emptied):
            store.associator.rebuild_references(entity_id)
            store.db.execute(
                "UPDATE entities SET first_seen = (SELECT min(t_start) FROM observations WHERE entity_id = ?1) WHERE id = ?1",
                (entity_id,),
            )
    store.delete_media(files)
    return len(observations), len(emptied)


def _sweep_orphans(store: Store) -> int:
    removed = 0
    with store.write():
        for space_id, _ in store.vector_tables():
            for table in (f"vec_obs_{space_id}", f"vec_ref_{space_id}"):
                orphans = [
                    r[0] for r in store.db.query(
                        f"SELECT observation_id FROM {table} WHERE observation_id NOT IN (SELECT id FROM observations)"
                    )
                ]
                for observation_id in orphans:
                    store.db.execute(f"DELETE FROM {table} WHERE observation_id = ?", (observation_id,))
                removed += len(orphans)
        if store.db.query_one("SELECT 1 FROM sqlite_master WHERE name = 'vec_keyframe'"):
            gone = [r[0] for r in store.db.query(
                "SELECT item_id FROM vec_keyframe WHERE item_id NOT IN (SELECT id FROM clips WHERE keyframes != '[]')")]
            store.delete_keyframe_vectors(gone)
            removed += len(gone)
        for table, owner in (("vec_text_observation", "observations"), ("vec_text_episode", "episodes")):
            if table in store.text_vector_tables():
                orphans = [r[0] for r in store.db.query(f"SELECT item_id FROM {table} WHERE item_id NOT IN (SELECT id FROM {owner})")]
                store.db.executemany(f"DELETE FROM {table} WHERE item_id = ?", [(i,) for i in orphans])
                removed += len(orphans)
    referenced = set(store.media_files())
    for root, _, files in os.walk(store.media_dir):
        for name in files:
            relative = os.path.relpath(os.path.join(root, name), store.media_dir)
            if relative not in referenced:
                os.unlink(os.path.join(root, name))
                removed += 1
    return removed


def enforce(store: Store, policy: RetentionPolicy, *, now: float | None = None) -> RetentionReport:
    """Applies ``policy``: clips past the age cap go; then, while over the byte cap, the oldest clips'
    media and then their records."""
    now = time.time() if now is None else now
    before = usage(store)
    media_files = clips = observations = entities = 0

    if policy.max_age_days is not None:
        cutoff = now - policy.max_age_days * 86400.0
        while old := [r[0] for r in store.db.query("SELECT id FROM clips WHERE t_end < ? ORDER BY t_start LIMIT ?", (cutoff, _MAX_STEP))]:
            n_obs, n_ent = _drop_records(store, old)
            clips, observations, entities = clips + len(old), observations + n_obs, entities + n_ent

    if policy.max_bytes is not None:
        while (excess := usage(store) - policy.max_bytes) > 0:
            # Oldest clips' media, just enough of it to cover the excess.
            chosen, covered = [], 0
            for clip_id, media in store.db.query(
                "SELECT c.id, c.media_bytes + (SELECT coalesce(sum(o.media_bytes), 0) FROM observations o WHERE o.clip_id = c.id) AS m "
                "FROM clips c WHERE m > 0 ORDER BY c.t_start LIMIT ?",
                (_MAX_STEP,),
            ):
                chosen.append(clip_id)
                covered += media
                if covered >= excess:
                    break
            if not chosen:
                break
            media_files += _drop_media(store, chosen)
        compact(store)
        while (excess := usage(store) - policy.max_bytes) > 0:
            # Then records, oldest clips first, in steps sized by the average bytes of a clip.
            n_clips = store.db.query_one("SELECT count(*) FROM clips")[0]
            if n_clips == 0:
                break
            step = min(_MAX_STEP, max(1, -(-excess * n_clips // max(1, store.db.file_bytes()))))
            oldest = [r[0] for r in store.db.query("SELECT id FROM clips ORDER BY t_start LIMIT ?", (step,))]
            n_obs, n_ent = _drop_records(store, oldest)
            clips, observations, entities = clips + len(oldest), observations + n_obs, entities + n_ent
            compact(store)

    orphans = _sweep_orphans(store)
    compact(store)
    return RetentionReport(before, usage(store), media_files, clips, observations, entities, orphans)
