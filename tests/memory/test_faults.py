"""A memory is never silently damaged or lost: a damaged file is refused at open (and never written), a
full disk or a read-only medium gives one clear error while reading keeps working, and a new memory is
private to its user."""

from __future__ import annotations

import os
import stat

import numpy as np
import pytest
from helpers.memory import clip, damage, filled_memory, observation, unit
from helpers.mounts import tmpfs

from edge_agent.memory import CorruptMemoryError, Database, ReadOnlyMemoryError, StorageFullError, Store
from edge_agent.memory.store import MissingMemoryError
from edge_agent.memory.textindex import TextIndex


def _embed(texts):
    rng = np.random.default_rng(abs(hash(tuple(texts))) % (1 << 32))
    v = rng.normal(size=(len(texts), 8)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_memory_is_private(tmp_path):
    home = tmp_path / "new" / "home"
    with Store(home) as store:
        store.ingest_clip(clip(0.0), [observation(1, 0.0, [0, 0, 10, 10], unit(np.ones(8)))])
        assert _mode(home) == 0o700 and _mode(home / "memory.db") == 0o600 and _mode(home / "media") == 0o700
        assert _mode(home / "memory.db-wal") == 0o600  # SQLite gives its WAL the database's mode


def test_a_damaged_file_is_refused_at_open_and_never_written(tmp_path):
    home = filled_memory(tmp_path / "home", clips=12)
    damage(home / "memory.db")
    before = (home / "memory.db").read_bytes()
    for mode in ("write", "read"):
        with pytest.raises(CorruptMemoryError) as caught:
            Store(home, mode=mode)
        message = str(caught.value)
        assert str(home / "memory.db") in message and "memory check" in message and "memory restore" in message
        assert "\n" not in message
    assert (home / "memory.db").read_bytes() == before
    with Database(home / "memory.db", check=False) as db:  # `memory check` can still look at it
        assert db.integrity_check()


def test_the_check_on_opening_reads_for_a_bounded_time(tmp_path):
    """Opening a year of memory must not read gigabytes: the check stops at its budget (what it read was sound);
    ``memory check`` and an unbounded quick check read everything and find the damage."""
    home = filled_memory(tmp_path / "home", clips=12)
    damage(home / "memory.db")
    with Database(home / "memory.db", check=False) as db:
        db.quick_check(budget_s=0.0)  # stopped before it met the damaged page
        with pytest.raises(CorruptMemoryError):
            db.quick_check()
        assert db.value("SELECT count(*) FROM clips") == 12  # the connection is usable after the interruption


def test_a_reader_checks_for_less_time_than_a_writer(tmp_path, monkeypatch):
    """A writer checks for up to OPEN_CHECK_S before it writes anything; a reader (``ask``, ``serve``) for
    READ_CHECK_S, its reads refusing a damaged page they meet anyway."""
    from edge_agent.memory import db as database

    filled_memory(tmp_path / "home", clips=2)
    budgets = []
    monkeypatch.setattr(Database, "quick_check", lambda self, limit=5, budget_s=None: budgets.append(budget_s))
    for mode in ("write", "read"):
        Store(tmp_path / "home", mode=mode).close()
    assert budgets == [database.OPEN_CHECK_S, database.READ_CHECK_S]
    assert database.READ_CHECK_S < database.OPEN_CHECK_S


def test_a_file_that_is_not_a_memory_is_named(tmp_path):
    home = filled_memory(tmp_path / "home", clips=2)
    damage(home / "memory.db", at=0.0, size=100)
    with pytest.raises(CorruptMemoryError, match="memory.db is damaged"):
        Store(home)


def test_damage_met_while_open_stops_writing(tmp_path, monkeypatch):
    home = filled_memory(tmp_path / "home", clips=2)
    with Store(home) as store:
        store.db.damaged = True  # as after a CorruptError from the driver
        with pytest.raises(CorruptMemoryError):
            store.ingest_clip(clip(1000.0), [observation(1, 1000.0, [0, 0, 10, 10], unit(np.ones(32)))])


def test_a_full_database_stores_nothing_of_the_clip(tmp_path):
    """SQLite's max_page_count makes the driver fail as on a full disk (SQLITE_FULL)."""
    home = filled_memory(tmp_path / "home", clips=2)
    with Store(home) as store:
        counts = store.counts()
        pages = store.db.query_one("PRAGMA page_count")[0]
        store.db.query(f"PRAGMA max_page_count = {pages}")
        big = [
            observation(
                t,
                500.0,
                [t * 50, 0, t * 50 + 40, 40],
                unit(np.random.default_rng(t).normal(size=32)),
                frames=20,
                step=0.25,
                description="x" * 3000,
            )
            for t in range(60)
        ]
        with pytest.raises(StorageFullError, match="is full"):
            store.ingest_clip(clip(500.0), big)
        assert store.counts() == counts
        store.db.query("PRAGMA max_page_count = 1073741823")
        assert store.ingest_clip(clip(500.0), big).created


def test_search_indexes_go_to_ram_when_the_disk_is_full(tmp_path):
    home = filled_memory(tmp_path / "home", clips=3)
    with Store(home) as store:
        pages = store.db.query_one("PRAGMA page_count")[0]
        store.db.query(f"PRAGMA max_page_count = {pages}")
        index = TextIndex(store, _embed, "fake", 8)
        assert index.update() > 0 and index.scratch
        assert index.search(_embed(["a red cup number 1"])[0], k=3)
        assert store.db.query_one("SELECT count(*) FROM main.sqlite_master WHERE name LIKE 'vec_text_%'")[0] == 0


def test_saving_media_refuses_what_does_not_fit_and_leaves_nothing(tmp_path, monkeypatch):
    with Store(tmp_path / "home") as store:
        monkeypatch.setattr("edge_agent.memory.store.free_bytes", lambda path: 1000)
        with pytest.raises(StorageFullError, match=r"needs about 2\.0 KiB \(2 pictures"):
            store.save_media({"crops/a.jpg": b"x" * 1000, "crops/b.jpg": b"y" * 1000})
        assert not list(store.media_dir.rglob("*.jpg"))


def test_a_missing_database_beside_its_media_is_named(tmp_path):
    home = filled_memory(tmp_path / "home", clips=2)
    (home / "memory.db").unlink()
    with pytest.raises(MissingMemoryError, match="memory restore"):
        Store(home)
    assert not (home / "memory.db").exists()


def test_full_disk_reading_works_and_writing_says_so(tmp_path):
    with tmpfs(tmp_path / "disk", "16m") as disk:
        home = filled_memory(disk.path / "home", clips=4)
        disk.fill()
        with Store(home, mode="read") as store:
            assert len(store.entities()) == 3
            index = TextIndex(store, _embed, "fake", 8)
            index.update()
            assert index.search(_embed(["cup"])[0], k=2)
        with pytest.raises(StorageFullError, match="full"):
            Store(home)


def test_a_read_only_home_can_be_read(tmp_path):
    with tmpfs(tmp_path / "disk", "16m") as disk:
        home = filled_memory(disk.path / "home", clips=4)
        os.unlink(home / "memory.lock")
        disk.readonly()
        with Store(home, mode="read") as store:
            assert store.readonly and len(store.entities()) == 3
            index = TextIndex(store, _embed, "fake", 8)
            index.update()
            assert index.scratch and index.search(_embed(["cup"])[0], k=2)
            with pytest.raises(ReadOnlyMemoryError):
                store.ingest_clip(clip(9000.0), [observation(1, 9000.0, [0, 0, 10, 10], unit(np.ones(32)))])
        with pytest.raises(ReadOnlyMemoryError, match="cannot be written"):
            Store(home)
