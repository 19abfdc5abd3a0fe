"""Frame sources and the clipper, on files the tests make."""

from __future__ import annotations

import itertools
import os
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
    expected_clips,
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


def test_truncated_video_is_read_as_far_as_it_goes_and_says_so(tmp_path):
    """What a truncated file holds is ingested (its last clip too) and the frames it lacks are counted: raising at
    its end lost the last partial clip, and every run to resume stopped there again."""
    path = _video(tmp_path / "v.avi", frames=200)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 3])
    source = VideoFileSource(path, sample_fps=10.0, start=0.0)
    read = list(source.frames())
    assert 0 < len(read) < 200 and len(read) + source.unreadable.count == 200
    assert "truncated" in source.unreadable.first[-1]


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


def _bad_images(folder):
    """The three kinds of unreadable image a folder meets: an empty file, text, random bytes."""
    (folder / "002-empty.jpg").write_bytes(b"")
    (folder / "004-text.png").write_text("not an image, a note someone saved with the wrong name")
    (folder / "006-random.jpg").write_bytes(np.random.default_rng(0).integers(0, 256, 4096, np.uint8).tobytes())
    return ["002-empty.jpg", "004-text.png", "006-random.jpg"]


def test_unreadable_images_are_skipped_and_counted(tmp_path):
    folder = tmp_path / "images"
    folder.mkdir()
    for i in (1, 3, 5, 7):
        cv2.imwrite(str(folder / f"{i:03d}.png"), np.full((8, 8, 3), 30 * i, np.uint8))
    bad = _bad_images(folder)
    source = ImageFolderSource(folder, fps=1.0, sample_fps=1.0, start=0.0)
    frames = list(source.frames())
    assert [f.index for f in frames] == [0, 2, 4, 6]  # the readable ones, at their places in the folder
    assert [int(f.image[0, 0, 0]) for f in frames] == [30, 90, 150, 210]
    assert source.unreadable.count == 3 and [s.split(" ")[0] for s in source.unreadable.first] == bad


def test_an_unreadable_sampled_image_gives_its_place_to_the_next(tmp_path):
    folder = tmp_path / "images"
    folder.mkdir()
    for i in (1, 3, 5):
        cv2.imwrite(str(folder / f"{i:03d}.png"), np.zeros((8, 8, 3), np.uint8))
    (folder / "000.png").write_bytes(b"")
    frames = list(ImageFolderSource(folder, fps=2.0, sample_fps=1.0, start=0.0).frames())
    assert [f.index for f in frames] == [1, 3]  # 000 could not be read: 001 is the first sample


def test_a_folder_of_nothing_readable_is_refused(tmp_path):
    folder = tmp_path / "images"
    folder.mkdir()
    _bad_images(folder)
    with pytest.raises(CaptureError, match=r"none of the 3 images in .* could be read"):
        list(ImageFolderSource(folder, start=0.0).frames())


def test_a_mot_sequence_skips_unreadable_images_and_names_that_are_not_frame_numbers(tmp_path):
    day1, _ = write_demo_scene(tmp_path / "scene", seconds=3, fps=4)
    images = day1 / "img1"
    (images / "000003.jpg").write_bytes(b"")
    (images / "000006.jpg").write_text("text")
    (images / "thumbs.jpg").write_bytes(b"\xff\xd8 not really")
    mot = MOTSequenceSource(day1, sample_fps=2.0, start=100.0)
    frames = list(mot.frames())
    assert [f.index for f in frames] == [1, 4, 7, 9, 11]  # 3 and 6 unreadable: the frame after each is sampled
    assert mot.unreadable.count == 3
    assert [s.split(" ")[0] for s in mot.unreadable.first] == ["thumbs.jpg", "000003.jpg", "000006.jpg"]


def _noisy_mp4(path, frames=100, fps=10.0):
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, (64, 48))
    rng = np.random.default_rng(0)
    for _ in range(frames):
        writer.write(rng.integers(0, 256, (48, 64, 3), dtype=np.uint8))
    writer.release()
    return path


def test_a_damaged_stretch_of_a_video_is_gone_past(tmp_path):
    """A damaged stretch in the middle of a recording (the demuxer refuses its packets): the frames after it are
    read and the damaged ones counted, rather than the recording ending there (every run stopping at it)."""
    path = _noisy_mp4(tmp_path / "v.mp4")
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    data[middle : middle + 5000] = np.random.default_rng(3).integers(0, 256, 5000, np.uint8).tobytes()
    path.write_bytes(bytes(data))
    source = VideoFileSource(path, sample_fps=10.0, start=0.0)
    frames = list(source.frames())
    indices = [f.index for f in frames]
    assert indices == sorted(indices) and indices[-1] >= 90  # read on to the end
    assert 0 < source.unreadable.count < 40 and len(frames) + source.unreadable.count == 100
    assert source.unreadable.first[0].startswith("frame")


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda p: p / "missing.mp4", "video file not found"),
        (lambda p: "/dev/null", "/dev/null is a character device, not a video file, image folder or URL"),
        (lambda p: os.mkfifo(p / "pipe") or p / "pipe", "pipe is a named pipe .FIFO., not a video file"),
        (lambda p: _socket(p / "sock"), "sock is a socket, not a video file"),
        (lambda p: (p / "e.mp4").write_bytes(b"") or p / "e.mp4", r"e.mp4 is empty \(0 bytes\), not a video"),
    ],
    ids=["missing", "character device", "fifo", "socket", "empty"],
)
def test_what_is_not_a_video_file_is_named(tmp_path, make, match):
    path = make(tmp_path)
    for open_it in (VideoFileSource, lambda p: open_source(str(p))):
        with pytest.raises(CaptureError, match=match if "missing" not in str(path) else "not found|no such source"):
            open_it(path)


def _socket(path):
    import socket

    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.close()  # the file stays
    return path


def test_a_video_that_cannot_be_read_for_its_permissions_says_so(tmp_path, monkeypatch):
    path = _video(tmp_path / "v.avi")
    monkeypatch.setattr(os, "access", lambda p, mode: False)  # another user's file (root may read any)
    with pytest.raises(CaptureError, match="cannot read .*v.avi: permission denied"):
        VideoFileSource(path)


def test_without_a_frame_count_a_damaged_stretch_is_gone_past_and_the_end_found(tmp_path, monkeypatch):
    """A stream that reports no frame count: refused frames are taken for damage while good ones follow, and for
    the end after DAMAGED_STRETCH_S of them."""
    from edge_agent.capture import video

    grabs = iter([True] * 5 + [False] * 3 + [True] * 5)

    class Capture:
        def __init__(self, _path):
            self.calls = 0

        def isOpened(self):  # noqa: N802 - OpenCV's name
            return True

        def get(self, prop):
            return 10.0 if prop == cv2.CAP_PROP_FPS else 0.0

        def grab(self):
            self.calls += 1
            assert self.calls < 1000, "never gave up on the end"
            return next(grabs, False)

        def retrieve(self):
            return True, np.zeros((4, 4, 3), np.uint8)

        def release(self):
            pass

    monkeypatch.setattr(video.cv2, "VideoCapture", Capture)
    source = VideoFileSource(_video(tmp_path / "v.avi"), sample_fps=10.0, start=0.0)
    assert [f.index for f in source.frames()] == [0, 1, 2, 3, 4, 8, 9, 10, 11, 12]
    assert (source.unreadable.count, source.unreadable.first) == (3, ["frames 5-7 (damaged)"])


@pytest.mark.parametrize(
    ("frames", "fps", "sample_fps", "clip_seconds"),
    [(50, 10.0, 2.0, 1.0), (50, 10.0, 2.0, 2.0), (50, 10.0, 2.0, 10.0), (95, 10.0, 2.0, 3.0), (61, 30.0, 2.0, 1.0)],
)
def test_a_recording_says_how_many_clips_it_makes(tmp_path, frames, fps, sample_fps, clip_seconds):
    """ingest's progress bar has a total: the clips a recording's length makes, known before it is read."""
    source = VideoFileSource(_video(tmp_path / "v.avi", frames=frames, fps=fps), sample_fps=sample_fps, start=0.0)
    total = expected_clips(source.span, clip_seconds)
    assert total == len(list(clips(source.frames(), clip_seconds)))
    source.close()


def test_image_folders_and_mot_sequences_say_how_many_clips_they_make(tmp_path):
    folder = tmp_path / "images"
    folder.mkdir()
    for i in range(7):
        cv2.imwrite(str(folder / f"{i:03d}.png"), np.zeros((8, 8, 3), np.uint8))
    images = ImageFolderSource(folder, fps=2.0, sample_fps=1.0, start=0.0)
    assert expected_clips(images.span, 1.0) == len(list(clips(images.frames(), 1.0))) == 4
    day1, _ = write_demo_scene(tmp_path / "scene", seconds=12, fps=4)
    (day1 / "img1" / "thumbnail.jpg").write_bytes(b"")  # not a frame: no part of the length
    mot = MOTSequenceSource(day1, sample_fps=2.0)
    assert expected_clips(mot.span, 5.0) == len(list(clips(mot.frames(), 5.0))) == 3


@pytest.mark.parametrize("span", [None, -1.0, float("nan"), float("inf")])
def test_an_unknown_length_makes_no_total(span):
    assert expected_clips(span, 10.0) is None
    assert expected_clips(0.0, 10.0) == 1  # one frame: one clip
