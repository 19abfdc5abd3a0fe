"""The edge-agent command facing a damaged, full, read-only or missing memory, and bytes that are not
text: one line naming the file and the cure, exit 1, nothing lost; memory check | backup | restore."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from helpers.cli import run
from helpers.memory import damage, filled_memory
from helpers.mounts import tmpfs
from helpers.shared import data, model

from edge_agent.demo import write_demo_scene
from edge_agent.memory import Store


@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    return write_demo_scene(tmp_path_factory.mktemp("scene"), seconds=12, fps=4)


def _ingest(capsys, home, day, start="2026-03-02T08:00:00+00:00"):
    """(exit status, stdout, stderr) of ingesting a demo day with its ground-truth boxes."""
    return run(capsys, "--home", home, "ingest", day, "--detector", "gt", "--start", start, "--quiet")


def test_arguments_that_are_not_utf8_are_refused(tmp_path, capsys):
    code, out, err = run(capsys, "--home", tmp_path, "ask", "where is the m\udcffug?")
    assert code == 1 and not out
    assert err == "edge-agent: error: argument 4 (b'where is the m\\xffug?') is not valid UTF-8: give text in UTF-8\n"
    # through the installed command, with real bytes in argv
    done = subprocess.run(
        [
            os.path.join(os.path.dirname(sys.executable), "edge-agent"),
            "--home",
            str(tmp_path),
            "entities",
            "rename",
            "1",
            b"caf\xe9",
        ],
        capture_output=True,
    )
    assert done.returncode == 1 and done.stderr.count(b"\n") == 1 and b"not valid UTF-8" in done.stderr


def test_a_damaged_memory_is_refused_with_the_cure_and_restored(tmp_path, capsys, scene):
    home = filled_memory(tmp_path / "home", clips=12)
    code, out, _ = run(capsys, "--home", home, "memory", "backup", tmp_path / "backup", "--json")
    assert code == 0 and json.loads(out)["counts"]["clips"] == 12
    damage(home / "memory.db", fill=b"\x5a")
    damaged = (home / "memory.db").read_bytes()
    for argv in (
        ["entities", "list"],
        ["memory", "stats"],
        ["ask", "where is the cup?"],
        ["ingest", scene[0], "--detector", "gt", "--quiet"],
    ):
        code, _, err = run(capsys, "--home", home, *argv)
        assert code == 1 and err.count("\n") == 1, argv
        assert (
            err.startswith(f"edge-agent: error: the memory database {home / 'memory.db'} is damaged")
            and "memory restore" in err
        )
    assert (home / "memory.db").read_bytes() == damaged  # nothing was written into it
    code, out, _ = run(capsys, "--home", home, "memory", "check")
    assert code == 1 and "DAMAGED" in out and "memory restore BACKUP" in out
    code, out, _ = run(capsys, "--home", home, "memory", "restore", tmp_path / "backup")
    assert code == 0 and "the memory it replaced is in" in out
    code, out, _ = run(capsys, "--home", home, "memory", "check", "--json")
    assert code == 0 and json.loads(out)["ok"]
    assert len(json.loads(run(capsys, "--home", home, "entities", "list", "--json")[1])) == 3


def test_backup_into_the_configured_folder(tmp_path, capsys):
    home = filled_memory(tmp_path / "home", clips=2)
    config = tmp_path / "edge-agent.toml"
    config.write_text(f'[backup]\nfolder = "{tmp_path / "backups"}"\nkeep = 1\n')
    for _ in range(2):
        code, out, _ = run(capsys, "--home", home, "memory", "backup", "--config", config)
        assert code == 0 and "backed up" in out
    assert len(list((tmp_path / "backups").iterdir())) == 1
    code, _, err = run(capsys, "--home", home, "memory", "backup")
    assert code == 1 and "give a PATH" in err


@pytest.mark.parametrize("question", ["", "   ", "\t\n"])
def test_an_empty_question_is_one_line_and_status_1(tmp_path, capsys, question):
    code, out, err = run(capsys, "--home", tmp_path / "home", "ask", question)
    assert (code, out, err) == (1, "", "edge-agent: error: the question is empty\n")
    assert not (tmp_path / "home").exists()  # refused before memory is opened


def test_a_missing_database_is_named(tmp_path, capsys):
    home = filled_memory(tmp_path / "home", clips=2)
    (home / "memory.db").unlink()
    code, _, err = run(capsys, "--home", home, "entities", "list")
    assert code == 1 and "memory.db is missing" in err and "memory restore" in err


def test_output_into_a_closed_pipe_is_quiet(tmp_path):
    home = filled_memory(tmp_path / "home", clips=30, per_clip=30)
    command = f"{os.path.join(os.path.dirname(sys.executable), 'edge-agent')} --home {home} entities list | head -1"
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True)
    assert done.stdout.startswith("#") and done.stderr == ""


def test_ingest_on_a_full_disk_stores_nothing_and_leaves_no_files(tmp_path, capsys, scene):
    day1, day2 = scene
    with tmpfs(tmp_path / "disk", "24m") as disk:
        home = disk.path / "home"
        code, _, err = _ingest(capsys, home, day1, "2026-03-02T08:00:00+00:00")
        assert code == 0, err
        with Store(home) as store:
            counts, files = store.counts(), sorted(str(p) for p in store.media_dir.rglob("*") if p.is_file())
        filler = disk.fill(leave=64 * 1024)
        code, _, err = _ingest(capsys, home, day2, "2026-03-03T08:00:00+00:00")
        assert code == 1 and err.count("\n") == 1 and "needs about" in err and "nothing of it was stored" in err
        with Store(home, mode="read") as store:
            assert store.counts() == counts
            assert sorted(str(p) for p in store.media_dir.rglob("*") if p.is_file()) == files  # no orphans
        code, out, _ = run(capsys, "--home", home, "ask", "where was the red cup?")  # reading works on the full disk
        assert code == 0 and "cup" in out
        code, out, _ = run(capsys, "--home", home, "entities", "list", "--json")
        assert code == 0 and len(json.loads(out)) == 3
        filler.unlink()
        code, _, err = _ingest(capsys, home, day2, "2026-03-03T08:00:00+00:00")
        assert code == 0, err
        code, _, _ = run(capsys, "--home", home, "memory", "check")
        assert code == 0


def test_a_read_only_home_answers_and_refuses_to_record(tmp_path, capsys, scene):
    with tmpfs(tmp_path / "disk", "24m") as disk:
        home = disk.path / "home"
        code, _, err = _ingest(capsys, home, scene[0], "2026-03-02T08:00:00+00:00")
        assert code == 0, err
        (home / "memory.lock").unlink()
        disk.readonly()
        code, out, _ = run(capsys, "--home", home, "ask", "where was the red cup?")
        assert code == 0 and "cup" in out
        for argv in (["entities", "list"], ["rules", "list"], ["alerts", "list"], ["memory", "check"]):
            code, _, err = run(capsys, "--home", home, *argv)
            assert code == 0, (argv, err)
        for argv in (["entities", "rename", "1", "Mug"], ["ingest", scene[1], "--detector", "gt", "--quiet"]):
            code, _, err = run(capsys, "--home", home, *argv)
            assert code == 1 and err.count("\n") == 1 and "cannot be written" in err, argv


def test_a_3_mb_home_stops_ingest_in_one_line_and_the_prune_it_names_lets_it_resume(tmp_path, capsys):
    """The issue's small disk, a real recording through the real detector and embedders: on a 3 MB home ingest stops
    with one line saying how much the next clip needs and the prune that makes room; that prune works on the full
    disk, ingest resumes and goes on, and memory is sound. (A new space's vector chunks are 64 slots, so a first clip
    fits; an eighth of the disk at most is kept in reserve.)"""
    video, models = data("video/vtest.avi"), model("yolox_nano.onnx").parent
    with tmpfs(tmp_path / "disk", "3m") as disk:
        home = disk.path / "home"
        argv = ("--home", home, "--models", models, "ingest", video, "--camera", "street", "--quiet")
        code, _, err = run(capsys, *argv)
        assert code == 1 and err.count("\n") == 1 and "needs about" in err and "kept free" in err, err
        with Store(home, mode="read") as store:
            before = store.counts()["clips"]
        assert before >= 1  # the first clips fit
        cap = err.split("memory prune --max-bytes ")[1].split("`")[0]
        code, out, err = run(capsys, "--home", home, "memory", "prune", "--max-bytes", cap)
        assert code == 0, err
        code, _, err = run(capsys, *argv)
        with Store(home, mode="read") as store:
            assert store.counts()["clips"] > before, err  # it resumed and stored more
        code, out, _ = run(capsys, "--home", home, "memory", "check")
        assert code == 0, out


def test_prune_works_on_a_disk_full_to_the_last_byte(tmp_path, capsys):
    """Another program filled the disk: `memory prune` cannot even open the memory to write (WAL's shared memory needs
    a page), so it first deletes pictures it was going to delete anyway, then the records, in steps that fit; where
    even that is not room enough, it says so in one line."""
    with tmpfs(tmp_path / "disk", "16m") as disk:
        home = filled_memory(disk.path / "home", clips=8, picture_bytes=100_000)
        filler = disk.fill()
        code, out, err = run(capsys, "--home", home, "memory", "prune", "--max-age-days", "30", "--json")
        assert code == 0, err
        assert json.loads(out)["clips_deleted"] == 8
        code, out, _ = run(capsys, "--home", home, "memory", "check")
        assert code == 0, out
        filler.unlink()
        small = filled_memory(disk.path / "small", clips=2)  # pictures of 500 bytes: too little to start with
        disk.fill()
        code, _, err = run(capsys, "--home", small, "memory", "prune", "--max-age-days", "30")
        assert code == 1 and err.count("\n") == 1 and "free some space on that disk" in err, err
        assert "`edge-agent memory prune" not in err  # not the cure that does not work


def test_ingest_rebuilds_a_damaged_full_text_index_with_a_warning(tmp_path, capsys, caplog, scene):
    """The index `memory check` calls DAMAGED is made from memory's own text: ingest rebuilds it (one warning line)
    and records; the memory is then sound."""
    home = filled_memory(tmp_path / "home", clips=3)
    import apsw

    connection = apsw.Connection(str(home / "memory.db"))
    connection.execute("UPDATE observation_fts_data SET block = randomblob(length(block)) WHERE id > 10")
    connection.close()
    code, out, _ = run(capsys, "--home", home, "memory", "check")
    assert code == 1 and "DAMAGED" in out
    with caplog.at_level("WARNING"):
        code, _, err = _ingest(capsys, home, scene[0])
    assert code == 0, err
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1 and "observation_fts" in warnings[0] and "rebuilt" in warnings[0], warnings
    code, out, _ = run(capsys, "--home", home, "memory", "check")
    assert code == 0, out


def test_restore_twice_in_the_same_second_and_of_the_memory_itself(tmp_path, capsys, monkeypatch):
    import time

    home = filled_memory(tmp_path / "home", clips=3)
    for name, clips in (("one", 2), ("two", 1)):
        source = filled_memory(tmp_path / name, clips=clips)
        assert run(capsys, "--home", source, "memory", "backup", tmp_path / f"backup-{name}")[0] == 0
    code, out, err = run(capsys, "--home", home, "memory", "restore", home)
    assert code == 1 and not out and err.count("\n") == 1 and "is the memory itself" in err
    now, gmtime = time.time(), time.gmtime
    monkeypatch.setattr(time, "time", lambda: now)
    monkeypatch.setattr(time, "gmtime", lambda t=None: gmtime(now if t is None else t))
    for name in ("one", "two"):
        code, _, err = run(capsys, "--home", home, "memory", "restore", tmp_path / f"backup-{name}")
        assert code == 0, err
    monkeypatch.undo()
    replaced = sorted(home.glob("replaced-*"))
    assert len(replaced) == 2
    with Store(replaced[0], mode="read") as first, Store(replaced[1], mode="read") as second:
        assert (first.counts()["clips"], second.counts()["clips"]) == (3, 2)  # the original, then backup one
    with Store(home, mode="read") as store:
        assert store.counts()["clips"] == 1
