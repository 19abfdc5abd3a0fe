"""memory backup / restore: a consistent snapshot with its media, restored only when sound, the
replaced memory kept aside, refused while the memory is in use; scheduled backups keep the newest few."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers.memory import damage, filled_memory

from edge_agent.memory import Store, backup
from edge_agent.memory.backup import BackupError, BackupSchedule


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


def test_a_failed_restore_puts_the_memory_back(tmp_path, monkeypatch):
    home = filled_memory(tmp_path / "home", clips=3)
    with Store(home) as store:
        backup.backup(store, tmp_path / "backup")
    before = _entities(home)

    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(shutil, "copytree", broken)
    with pytest.raises(OSError):
        backup.restore(home, tmp_path / "backup")
    assert _entities(home) == before and not list(home.glob("replaced-*"))


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
