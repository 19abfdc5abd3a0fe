"""memory backup / restore: a consistent snapshot with its media, restored only when sound, the
replaced memory kept aside, refused while the memory is in use; scheduled backups keep the newest few."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from helpers.memory import damage, filled_memory
from helpers.mounts import tmpfs

from edge_agent.memory import Store, backup
from edge_agent.memory.backup import BackupError, BackupSchedule
from edge_agent.memory.db import StorageFullError


def _entities(home):
    with Store(home, mode="read") as store:
        return [(e.id, e.category, e.observations) for e in store.entities()], sorted(store.media_files())


def test_backup_and_restore_round_trip(tmp_path):
    home = filled_memory(tmp_path / "home", clips=5)
    with Store(home) as store:
        report = backup.backup(store, tmp_path / "backup")
    assert report.counts == {"clips": 5, "observations": 15, "entities": 3} and report.media_files == 5 * 4
    assert report.media_missing == 0
    manifest = json.loads((tmp_path / "backup" / "backup.json").read_text())
    assert manifest["database_sha256"] == report.database_sha256 and manifest["schema_version"] == report.schema_version
    assert not (tmp_path / "backup" / "memory.db-wal").exists()

    other = filled_memory(tmp_path / "other", clips=2)
    replaced_before = _entities(other)
    with Store(other) as store:  # the replaced memory's saved graph must not be taken for the restored one's
        from edge_agent.config.retrieval import RelationWeights
        from edge_agent.retrieval.graph import load_graph

        load_graph(store, RelationWeights())
    assert (other / "index" / "graph" / "current.json").exists()
    restored = backup.restore(other, tmp_path / "backup")
    assert restored.counts == report.counts and restored.media_files == 20
    assert _entities(other) == _entities(home)
    aside = other / restored.replaced.rsplit("/", 1)[-1]
    assert _entities(aside) == replaced_before  # nothing lost: the replaced memory is whole, aside
    assert (aside / "index" / "graph" / "current.json").exists() and not (other / "index").exists()
    with Store(other) as store:
        assert all(store.media_path(p).is_file() for p in store.media_files())


def test_backup_refuses_a_folder_in_use(tmp_path):
    home = filled_memory(tmp_path / "home", clips=1)
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "x").write_text("mine")
    with Store(home) as store, pytest.raises(BackupError, match="not an empty folder"):
        backup.backup(store, tmp_path / "taken")
    assert (tmp_path / "taken" / "x").read_text() == "mine"


def test_a_damaged_backup_is_not_restored(tmp_path):
    home = filled_memory(tmp_path / "home", clips=8)
    with Store(home) as store:
        backup.backup(store, tmp_path / "backup")
    damage(tmp_path / "backup" / "memory.db", fill=b"\xa5")
    before = _entities(home)
    with pytest.raises(BackupError, match="is damaged"):
        backup.restore(home, tmp_path / "backup")
    assert _entities(home) == before and not list(home.glob("replaced-*"))


def test_restore_refuses_while_the_memory_is_open(tmp_path):
    home = filled_memory(tmp_path / "home", clips=2)
    with Store(home) as store:
        backup.backup(store, tmp_path / "backup")
        with pytest.raises(BackupError, match="open in another edge-agent process"):
            backup.restore(home, tmp_path / "backup")


def _files(home):
    """Every file under ``home`` (but the lock) with its bytes: the home exactly as it is."""
    return {str(p.relative_to(home)): p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file()} | {
        "(folders)": sorted(str(p.relative_to(home)) for p in home.rglob("*") if p.is_dir())
    }


def test_a_failed_restore_puts_the_memory_back(tmp_path, monkeypatch):
    home = filled_memory(tmp_path / "home", clips=3)
    with Store(home) as store:
        backup.backup(store, tmp_path / "backup")
    before = _files(home)

    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(shutil, "copytree", broken)
    with pytest.raises(StorageFullError, match="the memory is unchanged"):
        backup.restore(home, tmp_path / "backup")
    assert _files(home) == before and not list(home.glob("replaced-*"))


@pytest.mark.parametrize("failing", range(1, 6))
def test_a_restore_failing_at_any_rename_leaves_the_home_exactly_as_before(tmp_path, monkeypatch, failing):
    """The memory is moved aside and the backup moved in by renames: whichever of them fails (the
    first, the fourth, ...), the home is left file for file as it was."""
    home = filled_memory(tmp_path / "home", clips=3)
    with Store(home) as store:
        from edge_agent.config.retrieval import RelationWeights
        from edge_agent.retrieval.graph import load_graph

        load_graph(store, RelationWeights())  # an index/ folder beside the database: it is moved too
    filled_memory(tmp_path / "other", clips=2)
    with Store(tmp_path / "other") as store:
        backup.backup(store, tmp_path / "backup")
    before = _files(home)
    real, calls = os.replace, []

    def replace(source, target):
        calls.append(source)
        if len(calls) == failing:
            raise OSError(5, "Input/output error")
        real(source, target)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(BackupError, match="Input/output error.*the memory is unchanged"):
        backup.restore(home, tmp_path / "backup")
    monkeypatch.undo()
    assert _files(home) == before and not list(home.glob("replaced-*"))


def test_two_restores_in_the_same_second_keep_both_memories_they_replace(tmp_path, monkeypatch):
    home = filled_memory(tmp_path / "home", clips=4)
    for name, clips in (("one", 3), ("two", 2)):
        with Store(filled_memory(tmp_path / name, clips=clips)) as store:
            backup.backup(store, tmp_path / f"backup-{name}")
    original = _entities(home)
    now, gmtime = time.time(), time.gmtime
    monkeypatch.setattr(time, "time", lambda: now)  # both restores in the same second, the same microsecond
    monkeypatch.setattr(time, "gmtime", lambda t=None: gmtime(now if t is None else t))
    first = backup.restore(home, tmp_path / "backup-one")
    second = backup.restore(home, tmp_path / "backup-two")
    monkeypatch.undo()
    assert first.replaced != second.replaced and len(list(home.glob("replaced-*"))) == 2
    assert _entities(Path(first.replaced)) == original  # nothing lost: each replaced memory whole, in its own folder
    assert _entities(Path(second.replaced)) == _entities(tmp_path / "one")
    assert _entities(home) == _entities(tmp_path / "two")
    again = backup.restore(home, tmp_path / "backup-two")  # the same backup again: the same memory, nothing lost
    assert _entities(home) == _entities(tmp_path / "two") == _entities(Path(again.replaced))


@pytest.mark.parametrize("source", ["home", "home/memory.db", "link"])
def test_restore_refuses_the_memory_itself(tmp_path, source):
    home = filled_memory(tmp_path / "home", clips=2)
    (tmp_path / "link").symlink_to(home)
    before = _files(home)
    with pytest.raises(BackupError, match="is the memory itself"):
        backup.restore(home, tmp_path / source)
    assert _files(home) == before and not list(home.glob("replaced-*"))


def test_restore_into_a_read_only_home_is_refused(tmp_path):
    filled_memory(tmp_path / "other", clips=2)
    with Store(tmp_path / "other") as store:
        backup.backup(store, tmp_path / "backup")
    with tmpfs(tmp_path / "disk", "16m") as disk:
        home = filled_memory(disk.path / "home", clips=2)
        before = _files(home)
        disk.readonly()
        with pytest.raises(BackupError, match=f"cannot restore into {home}: .*read-only.*the memory is unchanged"):
            backup.restore(home, tmp_path / "backup")
        assert _files(home) == before


def test_backup_is_one_snapshot_while_another_process_writes(tmp_path):
    """A writer commits clips of 3 observations each, as fast as it can, while the backup is taken: the
    copy holds whole clips only (every clip with its 3 observations) and passes its integrity check."""
    home = filled_memory(tmp_path / "home", clips=40)
    helpers = Path(__file__).resolve().parents[1]
    writer = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(helpers)!r})
        import numpy as np
        from helpers.memory import clip, observation, unit
        from edge_agent.memory import Store
        with Store({str(home)!r}) as store:
            print("ready", flush=True)
            for c in range(1000, 1400):
                store.ingest_clip(clip(c * 60.0), [observation(t, c * 60.0, [t * 50, 0, t * 50 + 40, 40],
                                  unit(np.eye(3, 32)[t] + 0.05)) for t in range(3)])
    """)
    # run outside the checkout: the installed package (with its native module) is under test, not the source tree
    with subprocess.Popen([sys.executable, "-c", writer], stdout=subprocess.PIPE, text=True, cwd=tmp_path) as process:
        assert process.stdout.readline().strip() == "ready"
        with Store(home) as store:
            report = backup.backup(store, tmp_path / "backup")
        process.wait(timeout=120)
    assert process.returncode == 0
    with Store(tmp_path / "backup", mode="read") as copy:
        per_clip = copy.db.query(
            "SELECT c.id, count(o.id) FROM clips c LEFT JOIN observations o ON o.clip_id = c.id GROUP BY c.id"
        )
        assert all(n == 3 for _, n in per_clip) and len(per_clip) == report.counts["clips"] >= 40
        assert not copy.db.integrity_check()


def test_scheduled_backups_keep_the_newest(tmp_path):
    home = filled_memory(tmp_path / "home", clips=2)
    schedule = BackupSchedule(tmp_path / "backups", every_hours=1.0, keep=2)
    t = 1_800_000_000.0
    with Store(home) as store:
        assert schedule(store, now=t) is not None
        assert schedule(store, now=t + 1800) is None  # not due yet
        assert schedule(store, now=t + 3600) is not None
        assert schedule(store, now=t + 7300) is not None
    made = sorted(p.name for p in (tmp_path / "backups").iterdir())
    assert made == ["memory-20270115T090000.000000Z", "memory-20270115T100140.000000Z"]
