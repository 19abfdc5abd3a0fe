"""A memory is private to its user even where it was made before modes were set (or copied in with a looser
umask): opening it to write tightens the home, the database and its WAL files, media/ and index/; opening it to
read changes nothing, and a mode that cannot be changed never stops the memory from opening."""

from __future__ import annotations

import os
import stat

import numpy as np
import pytest
from helpers.memory import clip, filled_memory, observation, unit

from edge_agent.memory import Store


def _mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _loosen(home):
    """What an older version (or a copy with umask 022) left: everything readable by all."""
    (home / "index").mkdir(exist_ok=True)
    (home / "index" / "graph").mkdir(exist_ok=True)
    loose = {home: 0o755, home / "memory.db": 0o644, home / "media": 0o755, home / "index": 0o755}
    for suffix in ("-wal", "-shm"):
        if (home / f"memory.db{suffix}").exists():
            loose[home / f"memory.db{suffix}"] = 0o644
    for path, mode in loose.items():
        path.chmod(mode)
    return loose


def test_opening_a_memory_to_write_makes_it_private(tmp_path):
    home = filled_memory(tmp_path / "home", clips=2)
    (home / "memory.db-wal").touch()  # as a crashed writer leaves them
    (home / "memory.db-shm").touch()
    _loosen(home)
    with Store(home) as store:
        store.ingest_clip(clip(1000.0), [observation(1, 1000.0, [0, 0, 10, 10], unit(np.ones(32)))])
        assert {p.name: _mode(p) for p in (home, home / "media", home / "index")} == {
            "home": 0o700,
            "media": 0o700,
            "index": 0o700,
        }
        for name in ("memory.db", "memory.db-wal", "memory.db-shm"):  # SQLite keeps the modes it finds
            assert _mode(home / name) == 0o600, name
    assert _mode(home / "index" / "graph") == 0o755  # the folders under a private home are not walked


def test_opening_a_memory_to_read_changes_no_mode(tmp_path):
    home = filled_memory(tmp_path / "home", clips=1)
    loose = _loosen(home)
    with Store(home, mode="read") as store:
        assert store.entities()
    assert {path: _mode(path) for path in loose} == loose


def test_a_mode_that_cannot_be_changed_does_not_stop_the_memory_opening(tmp_path, monkeypatch):
    home = filled_memory(tmp_path / "home", clips=1)
    loose = _loosen(home)

    def refuse(*args, **kwargs):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "chmod", refuse)
    with Store(home) as store:
        store.ingest_clip(clip(1000.0), [observation(1, 1000.0, [0, 0, 10, 10], unit(np.ones(32)))])
    monkeypatch.undo()
    assert {path: _mode(path) for path in loose} == loose


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user")
def test_files_of_another_user_are_left_as_they_are(tmp_path):
    home = filled_memory(tmp_path / "home", clips=1)
    _loosen(home)
    os.chown(home / "memory.db", 4242, -1)
    with Store(home):
        pass
    assert _mode(home / "memory.db") == 0o644 and _mode(home) == 0o700
