"""Frame sources and the clipper, on files the tests make."""

from __future__ import annotations

import itertools
import time

import cv2
import numpy as np
import pytest

from edge_agent.capture import (
    CaptureError,
    ImageFolderSource,
    LiveSource,
    MOTSequenceSource,
    VideoFileSource,
    clips,
    open_source,
)
from edge_agent.capture.frames import Frame
from edge_agent.demo import write_demo_scene


def _video(path, frames=50, fps=10.0, size=(64, 48)):
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, size)
    for i in range(frames):
        image = np.full((size[1], size[0], 3), i * 4 % 255, np.uint8)
        writer.write(image)
    writer.release()
    return path


def test_video_file_is_sampled_with_wall_clock_times(tmp_path):
    source = VideoFileSource(_video(tmp_path / "v.avi"), sample_fps=2.0, start=1000.0)
    frames = list(source.frames())
    assert [f.index for f in frames] == [0, 5, 10, 15, 20, 25, 30, 35, 40, 45]
    assert [f.t for f in frames] == pytest.approx([1000.0 + 0.5 * k for k in range(10)])
    assert frames[0].image.shape == (48, 64, 3) and frames[0].size == (64, 48)
    source.close()


def test_video_start_defaults_to_modification_time_minus_duration(tmp_path):
    path = _video(tmp_path / "v.avi", frames=20)
    import os

    os.utime(path, (5000.0, 5000.0))
    source = VideoFileSource(path, sample_fps=1.0)
    assert source.start == pytest.approx(5000.0 - 2.0)


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda p: p / "missing.mp4", "video file not found"),
        (lambda p: (p / "x.mp4").write_bytes(b"not a video at all" * 100) and p / "x.mp4", "cannot read .* as video"),
    ],
)
def test_bad_video_files(tmp_path, make, match):
    with pytest.raises(CaptureError, match=match):
        VideoFileSource(make(tmp_path))


def test_truncated_video_says_so_after_what_it_could_read(tmp_path):
    path = _video(tmp_path / "v.avi", frames=200)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 3])
    source = VideoFileSource(path, sample_fps=10.0, start=0.0)
    read = []
    with pytest.raises(CaptureError, match="truncated"):
        for frame in source.frames():
            read.append(frame)
    assert 0 < len(read) < 200


def test_image_folder_and_mot_sequence(tmp_path):
    folder = tmp_path / "images"
    folder.mkdir()
    for i in range(6):
        cv2.imwrite(str(folder / f"{i:03d}.png"), np.zeros((8, 8, 3), np.uint8))
    (folder / "notes.txt").write_text("ignored")
    frames = list(ImageFolderSource(folder, fps=2.0, sample_fps=1.0, start=10.0).frames())
    assert [(f.index, f.t) for f in frames] == [(0, 10.0), (2, 11.0), (4, 12.0)]
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(CaptureError, match="no images"):
        ImageFolderSource(empty)
    with pytest.raises(CaptureError, match="image folder not found"):
        ImageFolderSource(tmp_path / "missing")

    day1, _ = write_demo_scene(tmp_path / "scene", seconds=3, fps=4)
    mot = MOTSequenceSource(day1, sample_fps=2.0, start=100.0)
    frames = list(mot.frames())
    assert [f.index for f in frames] == [1, 3, 5, 7, 9, 11]  # MOT frame numbers
    assert frames[1].t == pytest.approx(100.5)


def test_open_source_dispatch(tmp_path):
    day1, _ = write_demo_scene(tmp_path / "scene", seconds=1, fps=4)
    assert isinstance(open_source(str(day1)), MOTSequenceSource)
    assert isinstance(open_source(str(day1 / "img1"), start=0.0), ImageFolderSource)
    assert isinstance(open_source(str(_video(tmp_path / "v.avi"))), VideoFileSource)
    assert isinstance(open_source("0"), LiveSource) and open_source("0").name == "camera 0"
    assert isinstance(open_source("rtsp://cam.local/stream"), LiveSource)
    with pytest.raises(CaptureError, match="no such source"):
        open_source(str(tmp_path / "nothing.mp4"))


def _frame(t: float) -> Frame:
    return Frame(int(t * 10), t, np.zeros((2, 2, 3), np.uint8))


def test_clipper_windows_and_gaps():
    times = [0.0, 4.0, 9.9, 10.0, 19.5, 45.0, 47.0]
    out = list(clips([_frame(t) for t in times], clip_seconds=10.0))
    assert [(c.t_start, c.t_end, len(c.frames)) for c in out] == [(0.0, 10.0, 3), (10.0, 20.0, 2), (40.0, 47.0, 2)]
    with pytest.raises(ValueError, match="clip_seconds must be > 0"):
        list(clips([], clip_seconds=0))


class _FakeCapture:
    def __init__(self, script):
        self.script = script

    def isOpened(self):  # noqa: N802 - OpenCV's name
        return self.script is not None

    def read(self):
        if not self.script:
            return False, None
        return True, self.script.pop(0)

    def release(self):
        pass


def test_live_source_reconnects_with_backoff():
    image = np.zeros((4, 4, 3), np.uint8)
    opens = itertools.chain([None, None, [image, image], None, [image, image, image]], itertools.repeat(None))
    sleeps = []
    clock = itertools.count(0.0, 0.25)
    source = LiveSource(
        "rtsp://x",
        sample_fps=2.0,
        initial_backoff_s=0.5,
        open_capture=lambda _: _FakeCapture(next(opens)),
        sleep=sleeps.append,
        clock=lambda: next(clock),
    )
    frames = []
    for frame in source.frames():
        frames.append(frame)
        if len(frames) == 3:
            source.close()
    # the reader thread may have read on before the source was closed: what it did first is what counts
    assert sleeps[:3] == [0.5, 1.0, 0.5]  # two failed opens, doubled; then one after the drop
    assert source.reconnects >= 1 and len(frames) == 3
    assert all(b.t > a.t for a, b in zip(frames, frames[1:]))


def test_live_source_gives_up_after_max_failures():
    source = LiveSource(3, max_failures=2, open_capture=lambda _: _FakeCapture(None), sleep=lambda s: None)
    with pytest.raises(CaptureError, match="cannot open after 2 attempts"):
        next(source.frames())


def test_a_live_source_drops_its_oldest_frames_rather_than_fall_behind():
    image = np.zeros((4, 4, 3), np.uint8)

    class Endless(_FakeCapture):
        def read(self):
            return True, image

    source = LiveSource(
        "rtsp://x",
        sample_fps=2.0,
        buffer_s=2.0,
        open_capture=lambda _: Endless([]),
        clock=itertools.count(0.0, 0.1).__next__,
    )
    frames = source.frames()
    first = next(frames)
    before = source.dropped
    deadline = time.monotonic() + 5
    while source.dropped < before + 10 and time.monotonic() < deadline:  # perception busy elsewhere
        time.sleep(0.01)
    later = next(frames)
    source.close()
    assert source.dropped >= before + 10
    assert later.t - first.t >= 10 * 0.5  # what comes next is recent, not the frame after the first
