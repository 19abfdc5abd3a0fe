"""memory check: SQLite's integrity check plus the memory's own invariants, each broken one named."""

from __future__ import annotations

from helpers.memory import damage, filled_memory

from edge_agent.memory import Store
from edge_agent.memory.check import check


def _check(home):
    with Store(home, check=False) as store:
        return check(store)


def test_a_sound_memory(tmp_path):
    report = _check(filled_memory(tmp_path / "home", clips=3))
    assert report.ok and not report.notes
    assert report.counts == {"clips": 3, "observations": 9, "entities": 3, "episodes": 3, "media_files": 12}


def test_a_missing_crop_is_named(tmp_path):
    home = filled_memory(tmp_path / "home", clips=3)
    (home / "media" / "crops" / "1" / "2.jpg").unlink()
    report = _check(home)
    assert not report.ok and report.problems == [f"1 media files are missing from {home / 'media'}: crops/1/2.jpg"]


def test_a_picture_cut_short_or_overwritten_is_named(tmp_path):
    """Issue 39: `memory check` reads every file memory relies on: a crop cut short, and a keyframe overwritten with
    other bytes, are named (their markers read, not the whole picture)."""
    home = filled_memory(tmp_path / "home", clips=3)
    crop = home / "media" / "crops" / "1" / "2.jpg"
    crop.write_bytes(crop.read_bytes()[:100])
    (home / "media" / "keyframes" / "k0.jpg").write_bytes(b"MZ" + bytes(200))
    report = _check(home)
    assert not report.ok and len(report.problems) == 1
    named = report.problems[0].removeprefix("2 media files are damaged (not a whole JPEG): ")
    assert sorted(named.split(", ")) == ["crops/1/2.jpg", "keyframes/k0.jpg"]


def test_a_missing_vector_and_a_stale_full_text_index_are_named(tmp_path):
    home = filled_memory(tmp_path / "home", clips=3)
    with Store(home) as store:
        store.db.execute("DELETE FROM vec_obs_1 WHERE observation_id = 4")
        store.db.execute(
            "INSERT INTO observation_fts (observation_fts, rowid, description) "
            "VALUES ('delete', 5, 'a red cup number 1')"
        )
    report = _check(home)
    assert any(p.startswith("1 observations have no appearance vector") and p.endswith(": 4") for p in report.problems)
    assert "the full-text index observation_fts does not match observations.description" in report.problems


def test_leftovers_are_notes_not_problems(tmp_path):
    home = filled_memory(tmp_path / "home", clips=2)
    (home / "media" / "stray.jpg").write_bytes(b"x")
    report = _check(home)
    assert report.ok and report.notes == ["1 media files nothing refers to (`memory prune` sweeps them)"]


def test_damage_is_reported_by_sqlite(tmp_path):
    home = filled_memory(tmp_path / "home", clips=12)
    damage(home / "memory.db", fill=b"\x5a")
    report = _check(home)
    assert not report.ok and report.integrity and not report.problems
