"""The database layer: driver, sqlite-vec, pragmas, migrations and older schemas."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import apsw
import pytest

from edge_agent.memory import Database, DatabaseError, Store, consolidate, corrections
from edge_agent.memory.db import available_driver
from edge_agent.memory.schema import MIGRATIONS, SCHEMA_VERSION

FIXTURES = Path(__file__).with_name("fixtures")


def test_opens_with_wal_foreign_keys_and_sqlite_vec(tmp_path):
    with Database(tmp_path / "m" / "memory.db") as db:
        assert db.query_one("PRAGMA journal_mode")[0] == "wal"
        assert db.query_one("PRAGMA foreign_keys")[0] == 1
        assert db.query_one("PRAGMA busy_timeout")[0] == 10_000
        assert db.query_one("PRAGMA auto_vacuum")[0] == 2  # incremental
        assert db.user_version == SCHEMA_VERSION
        assert tuple(int(p) for p in db.sqlite_vec_version.lstrip("v").split(".")) >= (0, 1, 9)
        assert db.driver == available_driver()


def test_transactions_are_all_or_nothing(tmp_path):
    with Database(tmp_path / "memory.db") as db:
        with pytest.raises(RuntimeError):
            with db.transaction():
                db.execute("INSERT INTO meta (key, value) VALUES ('a', '1')")
                raise RuntimeError("crash in the middle")
        assert db.query("SELECT * FROM meta") == []
        with db.transaction():
            db.execute("INSERT INTO meta (key, value) VALUES ('a', '1')")
            with db.transaction():  # nested: joins the outer one
                db.execute("INSERT INTO meta (key, value) VALUES ('b', '2')")
        assert db.query("SELECT key FROM meta ORDER BY key") == [("a",), ("b",)]


def test_newer_schema_is_refused_without_touching_it(tmp_path):
    path = tmp_path / "memory.db"
    with Database(path) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(DatabaseError, match="newer than this edge-agent understands"):
        Database(path)


def test_a_second_driver_in_one_process_is_refused(tmp_path):
    with Database(tmp_path / "first.db") as first:  # fixes this process's driver
        other = "apsw" if first.driver != "apsw" else "sqlite3"
        with pytest.raises(DatabaseError, match="already uses the"):
            Database(tmp_path / "x.db", driver=other)


@pytest.mark.parametrize("version", sorted(MIGRATIONS))
def test_every_released_schema_opens_without_loss(tmp_path, version):
    fixture = FIXTURES / f"schema_v{version}.db"
    if not fixture.exists():
        pytest.fail(
            f"missing fixture {fixture.name}: run tests/memory/fixtures/make_fixture.py when releasing a schema"
        )
    home = tmp_path / "home"
    home.mkdir()
    shutil.copyfile(fixture, home / "memory.db")
    with Store(home) as store:
        assert store.db.user_version == SCHEMA_VERSION
        entities = {e.name: e for e in store.entities()}
        assert entities["coffee mug"].observations == 2 and len(entities) == (3 if version >= 7 else 2)
        sink = "mug in the sink" if version < 3 else "a red cup by the sink, staying in place"
        assert [o.description for o in store.search_text("sink")] == [sink]
        assert store.counts()["vec_obs"] == 3 and store.counts()["observation_boxes"] == 12
        assert [c["action"] for c in store.corrections()] == (["rename", "enroll"] if version >= 7 else ["rename"])
        if version >= 2:  # rules, their state and alerts, traces and facts
            from edge_agent.rules import book

            assert [a.message for a in book.alerts(store)] == [
                "'coffee mug' (#2) has not been seen for 12 h (since 1970-01-02 00:00:01 UTC)"
            ]
            assert store.counts()["rule_state"] == 1 and store.counts()["traces"] == 3 and store.counts()["facts"] == 4
        if version >= 3:  # what the descriptions say, as fields
            first, second = store.observations_by_id([1, 2])
            assert (first.colours, first.pattern, first.zone, first.motion) == (("red",), "striped", "counter", "still")
            assert (second.place, second.moving) == ("top right", True)
            assert store.db.query("SELECT observation_id, category, n FROM observation_company") == [(1, "person", 1)]
        if version >= 5:  # places of a camera without zones
            from edge_agent.memory import places

            (shelf,) = places.places(store.db)
            assert (shelf.name, shelf.observations, store.observation(1).place_id) == ("shelf", 1, shelf.id)
            assert store.observation(1).zone == "counter"  # a zone the describer gave is kept
            # how sure memory is of the place: unknown before version 6
            assert (store.observation(1).place_score, shelf.likeness) == ((1.0, 1.0) if version >= 6 else (None, None))
        if version >= 7:  # people known by face
            from edge_agent.memory import people

            (alice,) = people.named_people(store)
            assert (alice.entity.name, alice.entity.observations, alice.faces, alice.enrolled) == ("Alice", 0, 1, 1)
        corrections.rename(store, entities["coffee mug"].id, "Alice's mug")  # and it is writable


def test_a_v2_memory_gets_its_fields_from_the_template_sentences(tmp_path):
    """v2 kept what the template describer saw only in its sentences: migrating reads them into the fields,
    leaves a sentence of another shape with empty fields, and keeps every sentence as it was."""
    home = tmp_path / "home"
    home.mkdir()
    shutil.copyfile(FIXTURES / "schema_v2.db", home / "memory.db")
    sentences = {
        1: "a striped dark grey cell phone at the top left, moving right; with 2 people, a cup",
        2: "a person in blue plain clothes in the centre, seen briefly",
        3: "mug in the sink",
    }
    raw = apsw.Connection(str(home / "memory.db"))
    for observation_id, text in sentences.items():
        category = "person" if observation_id == 2 else "cell phone" if observation_id == 1 else "cup"
        raw.execute(
            "UPDATE observations SET description = ?, category = ? WHERE id = ?", (text, category, observation_id)
        )
    raw.execute("UPDATE traces SET place = 'by the sink'")
    raw.execute("UPDATE facts SET value = 'at the bottom right' WHERE kind = 'place'")
    raw.close()
    with Store(home) as store:
        phone, person, mug = store.observations_by_id([1, 2, 3])
        assert [o.description for o in (phone, person, mug)] == list(sentences.values())
        assert (phone.colours, phone.pattern, phone.region, phone.motion) == (
            ("dark grey",),
            "striped",
            "top left",
            "moving right",
        )
        assert store.db.query("SELECT category, n FROM observation_company WHERE observation_id = 1 ORDER BY 1") == [
            ("cup", 1),
            ("person", 2),
        ]
        assert (person.colours, person.pattern, person.place, person.motion) == (("blue",), "plain", "centre", "brief")
        assert (mug.colours, mug.place, mug.motion) == ((), "", "")
        assert {t.place for t in consolidate.traces(store)} == {"sink"}
        assert {f.value for f in consolidate.facts(store) if f.kind == "place"} == {"bottom right"}


@pytest.mark.skipif(importlib.util.find_spec("pysqlite3") is None, reason="pysqlite3-binary is not installed")
def test_sqlite3_module_driver_path(tmp_path):
    """The path taken where the standard library's sqlite3 can load extensions, exercised with the
    API-identical pysqlite3 in a separate process (one SQLite library per process)."""
    script = textwrap.dedent(f"""
        import numpy as np
        from edge_agent.memory import Store, ClipRecord, ObservationRecord
        with Store({str(tmp_path / "home")!r}, driver="pysqlite3") as s:
            assert s.db.driver == "pysqlite3"
            e = np.r_[np.ones(4), np.zeros(12)].astype(np.float32)
            obs = lambda tid, box: ObservationRecord(tid, "object", "cup", [0.0, 0.5], [box, box], [0.9, 0.9], e, "s")
            r = s.ingest_clip(ClipRecord("cam", 0.0, 10.0), [obs(1, [0, 0, 40, 40]), obs(2, [200, 0, 240, 40])])
            assert [d.created_entity for d in r.decisions] == [True, True]
            assert r.decisions[1].candidates[0].vetoed_by == r.decisions[0].observation_id
            assert not s.ingest_clip(ClipRecord("cam", 0.0, 10.0), []).created
            print("ok", s.db.user_version)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["ok", str(SCHEMA_VERSION)]


def test_missing_pieces_are_named(tmp_path):
    script = textwrap.dedent(f"""
        import sys
        sys.modules["sqlite_vec"] = None  # as if not installed
        from edge_agent.memory import Database, MissingDependencyError
        try:
            Database({str(tmp_path / "x.db")!r})
        except MissingDependencyError as exc:
            print(exc)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert "sqlite-vec is not installed" in out.stdout, out.stderr


def test_processes_opening_a_new_memory_at_once_migrate_it_once(tmp_path):
    """A `watch` and a `serve` (here: four connections) opening a memory that does not exist yet: each migration runs
    once, inside its write lock, the others find it done (it used to fail: "table revisions already exists")."""
    import threading

    from edge_agent.memory.schema import SCHEMA_VERSION

    def open_it(path: Path, start: threading.Barrier, opened: list[int], errors: list[Exception]) -> None:
        start.wait()
        try:
            with Database(path) as db:
                opened.append(db.user_version)
        except Exception as exc:  # noqa: BLE001 - what the test reports
            errors.append(exc)

    for attempt in range(5):
        path = tmp_path / f"home{attempt}" / "memory.db"
        path.parent.mkdir()
        start, opened, errors = threading.Barrier(4), [], []
        threads = [threading.Thread(target=open_it, args=(path, start, opened, errors)) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors and opened == [SCHEMA_VERSION] * 4
