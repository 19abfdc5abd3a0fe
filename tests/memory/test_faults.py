"""A memory is never silently damaged or lost: a damaged file is refused at open (and never written), a
full disk or a read-only medium gives one clear error while reading keeps working, and a new memory is
private to its user."""

from __future__ import annotations

import os
import shutil
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


# -- a full disk: the reserve, the journal, sqlite-vec's errors (issue 39) -------------------------------------


def _wide_clip(t0: float, seed: int = 0) -> tuple:
    """A clip of a person and a cup with 512-d appearance vectors: its first write opens four vec0 chunks
    (observations and references, per kind), as the real embedders' first clip does."""
    rng = np.random.default_rng(seed)
    records = [
        observation(1, t0, [0, 0, 40, 80], unit(rng.normal(size=512)), kind="person", category="person"),
        observation(2, t0, [100, 0, 140, 40], unit(rng.normal(size=512)), description="a red cup"),
    ]
    return clip(t0), records


def _journal_bytes(home) -> int:
    wal = home / "memory.db-wal"
    return wal.stat().st_size if wal.exists() else 0


def test_the_journal_is_truncated_after_a_large_clip(tmp_path):
    """A clip that opens vector chunks writes ~9 MB into the WAL: it goes back to the file system at once, not at
    some later checkpoint (on a small disk the WAL beside memory.db was what filled it)."""
    with Store(tmp_path / "home") as store:
        store.ingest_clip(*_wide_clip(0.0))
        assert _journal_bytes(tmp_path / "home") < 1 << 20
        assert store.counts()["clips"] == 1


def test_a_clip_the_disk_cannot_hold_is_refused_in_one_line(tmp_path):
    """A 1 MB disk cannot hold the first clip (its vector chunks, twice): one line saying how much it needs, what is
    free and the cure that works (this memory has nothing to prune); nothing stored, no journal left behind."""
    with tmpfs(tmp_path / "disk", "1m") as disk:
        home = disk.path / "home"
        with Store(home) as store:
            counts, free = store.counts(), shutil.disk_usage(disk.path).free
            with pytest.raises(StorageFullError) as caught:
                store.ingest_clip(*_wide_clip(0.0))
            message = str(caught.value)
            assert "\n" not in message and "needs about" in message and "free" in message
            assert "memory prune" not in message and "larger disk" in message  # nothing to prune in this memory
            assert store.counts() == counts
        assert _journal_bytes(home) < 64 << 10
        assert shutil.disk_usage(disk.path).free >= free - (64 << 10)


def test_a_clip_failing_half_way_on_a_full_disk_leaves_no_journal(tmp_path, monkeypatch):
    """Where the check before the clip is fooled (another writer took the space meanwhile), the driver's own error
    (sqlite-vec's "Could not insert a new vector chunk") is the same one-line full-disk error, and the WAL the failed
    transaction wrote is truncated."""
    with tmpfs(tmp_path / "disk", "1m") as disk:
        home = disk.path / "home"
        with Store(home, reserve_bytes=0) as store:
            free = shutil.disk_usage(disk.path).free
            monkeypatch.setattr("edge_agent.memory.store.free_bytes", lambda path: 1 << 40)
            with pytest.raises(StorageFullError) as caught:
                store.ingest_clip(*_wide_clip(0.0))
            assert "\n" not in str(caught.value) and "is full" in str(caught.value)
            assert store.counts()["clips"] == 0
        assert _journal_bytes(home) < 64 << 10
        assert shutil.disk_usage(disk.path).free >= free - (64 << 10)


def test_sqlite_vec_failing_on_a_full_disk_is_a_full_disk(tmp_path):
    """sqlite-vec reports a disk that filled up as "Could not insert a new vector chunk" (insert) or a bare "SQL logic
    error" (delete, secure_delete on): both are the one-line full-disk error."""
    with tmpfs(tmp_path / "disk", "8m") as disk:
        with Database(disk.path / "memory.db") as db:
            db.execute(
                "CREATE VIRTUAL TABLE v USING vec0 (id INTEGER PRIMARY KEY, e float[512], kind TEXT PARTITION KEY)"
            )
            db.execute("INSERT INTO v VALUES (1, ?, 'a')", (unit(np.ones(512)).tobytes(),))
            db.checkpoint()
            disk.fill(leave=64 << 10)
            with pytest.raises(StorageFullError, match="is full"):
                db.execute("INSERT INTO v VALUES (2, ?, 'b')", (unit(np.ones(512)).tobytes(),))
            disk.fill()
            with pytest.raises(StorageFullError, match="is full"):
                db.execute("DELETE FROM v WHERE id = 1")


def test_a_clip_that_would_take_the_reserve_is_refused_with_a_cure_that_works(tmp_path, monkeypatch):
    """The write path leaves ``reserve_bytes`` free for `memory prune`: a clip that would go below is refused before
    it is written, with how much it needs and a --max-bytes that frees enough; that prune then lets it in."""
    from edge_agent.memory import retention

    home = filled_memory(tmp_path / "home", clips=12)
    reserve = 4 << 20
    with Store(home, reserve_bytes=reserve) as store:
        counts = store.counts()
        usage = retention.usage(store)
        new = (clip(9000.0), [observation(1, 9000.0, [0, 0, 10, 10], unit(np.ones(32)), description="a blue cup")])
        free = {"bytes": reserve + store.room_needed(new[1])[0] - (20 << 10)}  # 20 KiB short
        monkeypatch.setattr("edge_agent.memory.store.free_bytes", lambda path: free["bytes"])
        with pytest.raises(StorageFullError) as caught:
            store.ingest_clip(*new)
        message = str(caught.value)
        assert "\n" not in message and "needs about" in message and "kept free" in message
        cap = int(message.split("memory prune --max-bytes ")[1].split("`")[0])
        assert 0 < cap < usage
        assert store.counts() == counts
        report = retention.enforce(store, retention.RetentionPolicy(max_bytes=cap))
        assert report.cap_reached
        free["bytes"] += usage - report.bytes_after  # what the prune gave back to the disk
        assert store.ingest_clip(*new).created


# -- damaged full-text and vector indexes (issue 39) -----------------------------------------------------------

_FTS_DAMAGE = {
    "garbage in a leaf": "UPDATE observation_fts_data SET block = randomblob(length(block)) WHERE id > 10",
    "a leaf deleted": "DELETE FROM observation_fts_data WHERE id = "
    "(SELECT min(id) FROM observation_fts_data WHERE id > 10)",
    "garbage in the structure": "UPDATE observation_fts_data SET block = randomblob(length(block)) WHERE id = 10",
}


def _raw(home, sql: str) -> None:
    import apsw

    connection = apsw.Connection(str(home / "memory.db"))
    connection.execute(sql)
    connection.close()


def _memory_rows(home) -> list:
    """Every row of memory's own tables (not the full-text index's)."""
    import apsw

    connection = apsw.Connection(str(home / "memory.db"), flags=apsw.SQLITE_OPEN_READONLY)
    tables = [
        r[0]
        for r in connection.execute(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE '%fts%' "
            "AND sql NOT LIKE 'CREATE VIRTUAL%'"
        )
    ]
    rows = [(t, sorted(map(repr, connection.execute(f'SELECT * FROM "{t}"')))) for t in sorted(tables)]
    connection.close()
    return rows


@pytest.mark.parametrize("damage_sql", list(_FTS_DAMAGE.values()), ids=list(_FTS_DAMAGE))
def test_a_damaged_full_text_index_is_rebuilt_before_anything_is_written(tmp_path, caplog, damage_sql):
    """The full-text index is made from the descriptions: opening to write finds it damaged (as `memory check` does),
    rebuilds it with a one-line warning, and nothing else of memory changes; the clip is then written."""
    from edge_agent.memory.check import check

    home = filled_memory(tmp_path / "home", clips=6)
    _raw(home, damage_sql)
    with Store(home, mode="read", check=False) as store:
        assert not check(store).ok
    rows = _memory_rows(home)
    with caplog.at_level("WARNING", logger="edge_agent.memory.db"), Store(home) as store:
        assert _memory_rows(home) == rows
        assert store.ingest_clip(clip(9000.0), [observation(1, 9000.0, [0, 0, 10, 10], unit(np.ones(32)))]).created
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1 and "observation_fts" in warnings[0] and "rebuilt" in warnings[0]
    assert "\n" not in warnings[0]
    with Store(home, check=False) as store:
        assert check(store).ok


def test_damage_the_bounded_check_did_not_reach_is_rebuilt_when_a_write_meets_it(tmp_path, caplog, monkeypatch):
    """On a memory too large to check its full-text index within the opening's budget, a write that meets the damage
    rebuilds the index and is written (not refused with a cure that would lose memory since the last backup)."""
    from edge_agent.memory import db as database
    from edge_agent.memory.check import check

    home = filled_memory(tmp_path / "home", clips=6)
    _raw(home, _FTS_DAMAGE["garbage in the structure"])
    monkeypatch.setattr(database, "INDEX_CHECK_S", 0.0)
    with caplog.at_level("WARNING", logger="edge_agent.memory.db"), Store(home) as store:
        assert store.ingest_clip(
            clip(9000.0), [observation(1, 9000.0, [0, 0, 10, 10], unit(np.ones(32)), description="a blue cup")]
        ).created
    assert any("observation_fts" in r.getMessage() and "rebuilt" in r.getMessage() for r in caplog.records)
    with Store(home, check=False) as store:
        assert check(store).ok and store.counts()["clips"] == 7


def test_a_damaged_vector_table_is_refused_for_writing(tmp_path):
    """Vectors are memory itself (an appearance cannot be made again without its pictures): a vec0 table whose chunks
    are damaged is refused for writing as a damaged file is, in one line; `memory check` reports it; reading works."""
    from edge_agent.memory.check import check

    home = filled_memory(tmp_path / "home", clips=3)
    _raw(home, "UPDATE vec_obs_1_chunks SET validity = zeroblob(7)")
    before = (home / "memory.db").read_bytes()
    with pytest.raises(CorruptMemoryError) as caught:
        Store(home)
    assert "vec_obs_1" in str(caught.value) and "\n" not in str(caught.value)
    assert (home / "memory.db").read_bytes() == before
    with Store(home, mode="read") as store:
        assert len(store.entities()) == 3
    with Store(home, mode="read", check=False) as store:
        report = check(store)
        assert not report.ok and any("vec_obs_1" in p for p in report.integrity)
