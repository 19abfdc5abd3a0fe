"""``edge-agent ingest`` on what a user's disk holds: a folder with a few unreadable images among good ones, and
paths that are not recordings at all (a device, a pipe, an empty file)."""

from __future__ import annotations

import json
import os

import cv2
import numpy as np
import pytest

from edge_agent.cli import main
from edge_agent.demo import write_demo_scene

START = "2026-03-02T08:00:00+00:00"


def _bad_images(folder):
    (folder / "002-empty.jpg").write_bytes(b"")
    (folder / "004-text.png").write_text("not an image")
    (folder / "006-random.jpg").write_bytes(np.random.default_rng(0).integers(0, 256, 4096, np.uint8).tobytes())
    return ["002-empty.jpg", "004-text.png", "006-random.jpg"]


def _ingest(capsys, home, source, *extra):
    code = main(["--home", str(home), "ingest", str(source), "--start", START, "--quiet", *extra])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_an_image_folder_with_unreadable_images_is_ingested_past_them(tmp_path, capsys):
    folder = tmp_path / "photos"
    folder.mkdir()
    for i in (1, 3, 5, 7, 8, 9):
        cv2.imwrite(str(folder / f"{i:03d}.jpg"), np.full((48, 64, 3), 20 * i, np.uint8))
    bad = _bad_images(folder)
    argv = ("--detector", "opencv", "--models", str(tmp_path / "no-models"))
    code, out, err = _ingest(capsys, tmp_path / "home", folder, *argv, "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["frames"] == 6 and report["unreadable"] == 3
    assert [s.split(" ")[0] for s in report["unreadable_first"]] == bad
    # run again: it resumes after what is in memory and still goes past them
    code, out, err = _ingest(capsys, tmp_path / "home", folder, *argv)
    assert code == 0, err
    assert "3 unreadable images skipped: 002-empty.jpg (empty file), 004-text.png" in out


def test_a_mot_sequence_with_unreadable_images_is_ingested_past_them(tmp_path, capsys):
    day1, _ = write_demo_scene(tmp_path / "scene", seconds=12, fps=4)
    for number in (3, 4):  # 3 is a sample (2 of the 4 frames a second), 4 takes its place, then 5
        (day1 / "img1" / f"{number:06d}.jpg").write_bytes(b"")
    code, out, err = _ingest(capsys, tmp_path / "home", day1, "--detector", "gt", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["clips"] == 2 and report["unreadable"] == 2 and report["observations"] > 0


def _file(path, data):
    path.write_bytes(data)
    return path


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: "/dev/null", "/dev/null is a character device, not a video file, image folder or URL"),
        (lambda p: os.mkfifo(p / "pipe") or p / "pipe", "pipe is a named pipe (FIFO), not a video file"),
        (lambda p: _file(p / "e.mp4", b""), "e.mp4 is empty (0 bytes), not a video"),
        (lambda p: _file(p / "x.mp4", b"not a video" * 100), "x.mp4 as video (unknown format or damaged file)"),
    ],
    ids=["character device", "fifo", "empty", "undecodable"],
)
def test_what_is_not_a_recording_is_named_in_one_line(tmp_path, capsys, make, message):
    code, out, err = _ingest(capsys, tmp_path / "home", make(tmp_path))
    assert code == 1 and message in err and "not found" not in err
    assert err.count("\n") == 1
