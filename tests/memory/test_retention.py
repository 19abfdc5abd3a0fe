"""Retention: caps in days and bytes, enforced oldest-first (media before records), deleting only what the cap
needs; vec0 chunks reclaimed; a cap below an empty memory refused; named entities kept; dry runs; no orphans."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import shutil

import numpy as np
import pytest
from helpers.memory import DAY, clip, near, observation

from edge_agent.bench.month import household
from edge_agent.memory import Store, corrections, retention
from edge_agent.memory.consolidate import ConsolidationConfig
from edge_agent.memory.retention import CapBelowMinimumError, RetentionPolicy
from edge_agent.memory.textindex import TextIndex


def _fill(store, red_mug, days, media_bytes=20_000):
    """One clip a day with a crop and a keyframe on disk, one mug seen throughout plus one object a day."""
    rng = np.random.default_rng(0)
    for d in range(days):
        crop, key = f"crops/{d}.jpg", f"keyframes/{d}.jpg"
        for rel in (crop, key):
            path = store.media_path(rel)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(rng.bytes(media_bytes))
        store.ingest_clip(
            clip(d * DAY, keyframes=[key]),
            [
                observation(
                    1, d * DAY, [0, 0, 40, 40], near(red_mug, 0.97, seed=d), crop_path=crop, description=f"mug day {d}"
                ),
                observation(
                    2, d * DAY, [300, 0, 340, 40], near(red_mug, 0.05, seed=1000 + d), description=f"thing {d}"
                ),
            ],
        )


def _assert_no_orphans(store):
    ids = {r[0] for r in store.db.query("SELECT id FROM observations")}
    for space_id, _ in store.vector_tables():
        assert {r[0] for r in store.db.query(f"SELECT observation_id FROM vec_obs_{space_id}")} <= ids
        assert {r[0] for r in store.db.query(f"SELECT observation_id FROM vec_ref_{space_id}")} <= ids
    assert store.db.query(
        "SELECT count(*) FROM entities e WHERE NOT EXISTS (SELECT 1 FROM observations o WHERE o.entity_id = e.id)"
    ) == [(0,)]
    on_disk = {
        os.path.relpath(os.path.join(r, f), store.media_dir) for r, _, fs in os.walk(store.media_dir) for f in fs
    }
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
    retention.enforce(
        store, RetentionPolicy(max_bytes=10**12)
    )  # packs the vec0 tables: what is left is media's to cover
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
    retention.enforce(store, RetentionPolicy(max_bytes=10**12))  # packs the vec0 tables
    full = retention.usage(store)
    empty = retention.empty_bytes(store)
    cap = empty + int((full - 60 * 2_000 - empty) * 0.3)  # past what media alone can cover
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
    store.db.execute(
        f"INSERT INTO vec_obs_{space_id} (observation_id, embedding, kind, camera, t) "
        "VALUES (9999, ?, 'object', 'x', 0.0)",
        (np.ones(32, np.float32).tobytes(),),
    )
    report = retention.enforce(store, RetentionPolicy(max_bytes=10**12))
    assert report.orphans_removed == 2 and report.clips_deleted == 0
    _assert_no_orphans(store)


def test_bad_policy():
    with pytest.raises(ValueError, match="max_bytes must be > 0"):
        RetentionPolicy(max_bytes=0)
    with pytest.raises(ValueError, match="max_age_days must be > 0"):
        RetentionPolicy(max_age_days=-1)


# -- a month of a scripted household ------------------------------------------------------------------


def _text_vectors(texts):
    """Deterministic stand-in text embeddings (48 dims), one direction per distinct text."""
    seeds = [int.from_bytes(hashlib.sha1(t.encode()).digest()[:8], "little") for t in texts]
    v = np.stack([np.random.default_rng(seed).normal(size=48) for seed in seeds]).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


@pytest.fixture(scope="module")
def month(tmp_path_factory):
    """30 days, 24 clips a day (720 clips, ~2,500 observations): appearance vectors in two spaces (people in
    their own), text vectors of descriptions and captions, a keyframe file per clip; every vec0 table spans
    several chunks or partitions."""
    home = tmp_path_factory.mktemp("month") / "home"
    with Store(home, consolidation=ConsolidationConfig(enabled=False)) as store:
        for i, (c, records, caption) in enumerate(
            household(30, clip_seconds=1800, hours=(8.0, 20.0), sample_fps=0.002)
        ):
            # people in a space of their own, as a face embedder would put them
            records = [
                dataclasses.replace(r, embedding_space="face", embedding=r.embedding[:24].copy())
                if r.kind == "person"
                else r
                for r in records
            ]
            key = f"keyframes/{i}.jpg"
            store.media_path(key).parent.mkdir(parents=True, exist_ok=True)
            store.media_path(key).write_bytes(bytes(3000))
            store.ingest_clip(dataclasses.replace(c, keyframes=(key,)), records, caption=caption)
        store.close_episodes()
        TextIndex(store, _text_vectors, "stand-in", 48).update()
    return home


def _copy(month, tmp_path, name="home"):
    shutil.copytree(month, tmp_path / name)
    return tmp_path / name


def _starts(store):
    return [r[0] for r in store.db.query("SELECT t_start FROM clips ORDER BY t_start, id")]


def _still_over_after(home, tmp_path, deleted, cap):
    """Whether deleting only the ``deleted`` oldest clips (and every clip's media) would leave the memory
    over ``cap``: measured on a copy."""
    scratch = tmp_path / "scratch"
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.copytree(home, scratch)
    with Store(scratch) as store:
        ids = [r[0] for r in store.db.query("SELECT id FROM clips ORDER BY t_start, id")]
        retention._drop_media(store, ids)  # the reference deletion
        if deleted:
            retention._drop_records(store, ids[:deleted])
        retention._compact_vectors(store)
        return retention.usage(store) > cap


def test_decreasing_caps_delete_only_the_oldest_clips_needed(month, tmp_path):
    home = _copy(month, tmp_path)
    with Store(home) as store:
        full = retention.usage(store)
        assert store.db.query_one("SELECT count(*) FROM vec_obs_1_chunks")[0] >= 2  # chunks matter
    all_starts = None
    for fraction in (0.8, 0.5, 0.3, 0.2, 0.15):
        cap = int(full * fraction)
        before = tmp_path / f"before-{fraction}"
        shutil.copytree(home, before)
        with Store(home) as store:
            all_starts = all_starts or _starts(store)
            n_before = len(_starts(store))
            report = retention.enforce(store, RetentionPolicy(max_bytes=cap))
            assert report.cap_reached and retention.usage(store) <= cap
            remaining = _starts(store)
        assert remaining == all_starts[len(all_starts) - len(remaining) :]  # exactly the newest clips are left
        deleted = n_before - len(remaining)
        assert deleted == report.clips_deleted
        if deleted:
            # Minimal within four clips: five fewer would not have reached the cap. Not closer: live bytes move by
            # whole pages and not always down (deleting a clip's rows writes FTS5 delete markers; one clip's
            # deletion was measured to add a page), and a clip's rows are about a page.
            assert _still_over_after(before, tmp_path, max(0, deleted - 5), cap)
        else:
            assert report.media_files_deleted > 0 and fraction == 0.8  # the first cap is met by media alone
        shutil.rmtree(before)
    assert 0 < len(remaining) < 720


def test_vec0_chunks_are_reclaimed(month, tmp_path):
    """Deleting rows never frees a partly used chunk in sqlite-vec 0.1.9: compaction packs the table (in
    chunks fitted to what is left) once that frees a quarter of its bytes."""
    with Store(_copy(month, tmp_path)) as store:
        ids = [r[0] for r in store.db.query("SELECT id FROM clips ORDER BY t_start, id")]
        retention._drop_records(store, ids[: len(ids) * 9 // 10])
        retention.compact(store)
        chunks = store.db.query_one("SELECT count(*), max(size) FROM vec_text_observation_chunks")
        rows = store.db.query_one("SELECT count(*) FROM vec_text_observation")[0]
        loose = retention.database_bytes(store.db)
        vectors = {t: store.db.query(f"SELECT * FROM {t} ORDER BY 1") for t in ("vec_obs_1", "vec_text_observation")}
        assert retention._compact_vectors(store) >= 1
        assert retention.database_bytes(store.db) < loose
        packed = store.db.query_one("SELECT count(*), max(size) FROM vec_text_observation_chunks")
        assert packed[1] < chunks[1] and packed[0] * packed[1] < 2 * rows + 64
        assert {t: store.db.query(f"SELECT * FROM {t} ORDER BY 1") for t in vectors} == vectors


def test_cap_below_an_empty_memory_is_refused_before_anything_goes(month, tmp_path):
    home = _copy(month, tmp_path)
    with Store(home) as store:
        empty = retention.empty_bytes(store)
        assert 100_000 < empty < retention.usage(store) // 4
        counts, files, used = store.counts(), sorted(store.media_files()), retention.usage(store)
        with pytest.raises(CapBelowMinimumError, match=rf"minimum of this memory: {empty} bytes \(\d+\.\d KiB\)"):
            retention.enforce(store, RetentionPolicy(max_bytes=empty - 1))
        assert store.counts() == counts and sorted(store.media_files()) == files and retention.usage(store) == used
        assert all(store.media_path(f).is_file() for f in files)
        # Just above it: every clip goes, but what is not clips (the ingest log, coarse episodes) stays: reported.
        report = retention.enforce(store, RetentionPolicy(max_bytes=empty + 1000))
        assert not report.cap_reached and "no clip left to delete" in report.reason and store.counts()["clips"] == 0


def test_named_entities_survive_unless_included(month, tmp_path):
    with Store(_copy(month, tmp_path)) as store:
        dog = next(e for e in store.entities() if e.category == "dog")
        corrections.rename(store, dog.id, "Rex")
        refs = store.reference_ids(dog.id)
        report = retention.enforce(store, RetentionPolicy(max_bytes=retention.empty_bytes(store) + 1000))
        assert not report.cap_reached and "kept for named entities" in report.reason
        assert 0 < report.clips_protected <= len(refs) + 1
        assert store.entity(dog.id).name == "Rex" and store.reference_ids(dog.id) == refs
        assert store.counts()["clips"] == report.clips_protected  # everything else went
        report_kept = report.clips_protected
        assert dog.id in [e.id for e in store.entities()]
        report = retention.enforce(
            store, RetentionPolicy(max_bytes=retention.empty_bytes(store) + 1000), include_named=True
        )
        assert report.clips_deleted == report_kept and store.counts()["clips"] == 0 and store.entities() == []


def test_dry_run_deletes_nothing_and_predicts_the_real_run(month, tmp_path):
    with Store(_copy(month, tmp_path)) as store:
        cap = retention.usage(store) // 3
        counts, files, used = store.counts(), sorted(store.media_files()), retention.usage(store)
        dry = retention.enforce(store, RetentionPolicy(max_bytes=cap), dry_run=True)
        assert dry.dry_run and dry.clips_deleted > 0 and dry.media_files_deleted > 0
        assert store.counts() == counts and sorted(store.media_files()) == files and retention.usage(store) == used
        assert all(store.media_path(f).is_file() for f in files)
        real = retention.enforce(store, RetentionPolicy(max_bytes=cap))
        same = (
            "clips_deleted",
            "observations_deleted",
            "entities_deleted",
            "media_files_deleted",
            "media_bytes_deleted",
            "deleted_from",
            "deleted_to",
            "cap_reached",
        )
        assert {k: getattr(dry, k) for k in same} == {k: getattr(real, k) for k in same}
        assert abs(dry.bytes_after - real.bytes_after) <= 4 * 4096


# What goes, decided on values (no SQLite): media just enough to cover the excess; records a step at a time.


@pytest.mark.parametrize(
    ("excess", "protected", "chosen"),
    [
        (0, set(), []),
        (50, set(), [1]),
        (100, set(), [1]),
        (101, set(), [1, 2]),
        (101, {2}, [1, 3]),  # a named entity's clip keeps its media
        (10_000, set(), [1, 2, 3]),  # all there is
    ],
)
def test_the_oldest_media_that_cover_the_excess_go(excess, protected, chosen):
    assert retention.media_to_forget([(1, 100), (2, 100), (3, 100)], excess, protected) == chosen


@pytest.mark.parametrize(
    ("excess", "step"),
    [
        (1, 1),
        (100, 1),
        (150, 2),  # the fewest that cover it
        (3_000, 29),  # 30 cover it: a sixteenth short of a large estimate
        (10**9, 31),  # more than all of them free: still a sixteenth short, the next round measures
    ],
)
def test_a_step_drops_the_fewest_oldest_clips_estimated_to_cover_the_excess(excess, step):
    freed = np.arange(33, dtype=np.float64) * 100.0  # 32 clips of 100 bytes each
    assert retention.clips_to_drop(freed, excess) == step


def test_a_step_of_few_clips_takes_them_all():
    assert retention.clips_to_drop(np.array([0.0, 100.0, 200.0]), 10**9) == 2
