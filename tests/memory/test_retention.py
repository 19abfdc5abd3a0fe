"""Retention: caps in days and bytes, enforced oldest-first (media before records), no orphans."""

from __future__ import annotations

import os

import numpy as np
import pytest
from helpers.memory import DAY, clip, near, observation

from edge_agent.memory import retention
from edge_agent.memory.retention import RetentionPolicy


def _fill(store, red_mug, days, media_bytes=20_000):
    """One clip a day with a crop and a keyframe on disk, one mug seen throughout plus one object a day."""
    rng = np.random.default_rng(0)
    for d in range(days):
        crop, key = f"crops/{d}.jpg", f"keyframes/{d}.jpg"
        for rel in (crop, key):
            path = store.media_path(rel)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(rng.bytes(media_bytes))
        store.ingest_clip(clip(d * DAY, keyframes=[key]), [
            observation(1, d * DAY, [0, 0, 40, 40], near(red_mug, 0.97, seed=d), crop_path=crop, description=f"mug day {d}"),
            observation(2, d * DAY, [300, 0, 340, 40], near(red_mug, 0.05, seed=1000 + d), description=f"thing {d}"),
        ])


def _assert_no_orphans(store):
    ids = {r[0] for r in store.db.query("SELECT id FROM observations")}
    for space_id, _ in store.vector_tables():
        assert {r[0] for r in store.db.query(f"SELECT observation_id FROM vec_obs_{space_id}")} <= ids
        assert {r[0] for r in store.db.query(f"SELECT observation_id FROM vec_ref_{space_id}")} <= ids
    assert store.db.query("SELECT count(*) FROM entities e WHERE NOT EXISTS (SELECT 1 FROM observations o WHERE o.entity_id = e.id)") == [(0,)]
    on_disk = {os.path.relpath(os.path.join(r, f), store.media_dir) for r, _, fs in os.walk(store.media_dir) for f in fs}
    assert on_disk == set(store.media_files())


def test_age_cap_deletes_old_clips_and_empty_entities(store, red_mug):
    _fill(store, red_mug, 10)
    report = retention.enforce(store, RetentionPolicy(max_age_days=3.5), now=10 * DAY)  # cutoff: day 6.5
    assert report.clips_deleted == 7 and report.observations_deleted == 14
    assert store.counts()["clips"] == 3
    mug = max(store.entities(), key=lambda e: e.observations)
    assert mug.observations == 3 and mug.first_seen == 7 * DAY
    assert len(store.reference_ids(mug.id)) == 3
    assert report.entities_deleted == 7  # the daily things of the deleted days
    _assert_no_orphans(store)


def test_byte_cap_takes_media_first(store, red_mug):
    _fill(store, red_mug, 12)
    before = retention.usage(store)
    media = 12 * 2 * 20_000
    cap = before - media // 2  # reachable by deleting about half of the media
    report = retention.enforce(store, RetentionPolicy(max_bytes=cap))
    assert report.clips_deleted == 0 and report.media_files_deleted > 0
    assert retention.usage(store) <= cap
    assert store.counts()["observations"] == 24
    kept = sorted(int(p.split("/")[1].split(".")[0]) for p in store.media_files() if p.startswith("crops/"))
    assert kept and kept == list(range(12 - len(kept), 12))  # the newest media survive
    _assert_no_orphans(store)


def test_byte_cap_then_records_measured_after_vacuum(store, red_mug):
    _fill(store, red_mug, 30, media_bytes=2_000)
    store.db.execute("VACUUM")
    store.db.checkpoint()
    full = retention.usage(store)
    cap = int(full * 0.6)
    report = retention.enforce(store, RetentionPolicy(max_bytes=cap))
    assert report.media_files_deleted == 60 and report.clips_deleted > 0
    store.db.execute("VACUUM")
    store.db.checkpoint()
    assert retention.usage(store) <= cap
    remaining = [r[0] for r in store.db.query("SELECT t_start FROM clips ORDER BY t_start")]
    assert remaining == [d * DAY for d in range(30 - len(remaining), 30)]  # oldest went first
    _assert_no_orphans(store)


def test_stray_files_and_vectors_are_swept(store, red_mug):
    _fill(store, red_mug, 2)
    (store.media_dir / "stray.jpg").write_bytes(b"x")
    space_id = store.vector_tables()[0][0]
    store.db.execute(f"INSERT INTO vec_obs_{space_id} (observation_id, embedding, kind, camera, t) VALUES (9999, ?, 'object', 'x', 0.0)",
                     (np.ones(32, np.float32).tobytes(),))
    report = retention.enforce(store, RetentionPolicy(max_bytes=10**12))
    assert report.orphans_removed == 2 and report.clips_deleted == 0
    _assert_no_orphans(store)


def test_bad_policy():
    with pytest.raises(ValueError, match="max_bytes must be > 0"):
        RetentionPolicy(max_bytes=0)
    with pytest.raises(ValueError, match="max_age_days must be > 0"):
        RetentionPolicy(max_age_days=-1)
