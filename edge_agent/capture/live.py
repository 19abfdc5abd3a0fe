"""Live sources: a V4L2/USB camera by index, or an RTSP / HTTP stream URL. A reader thread reads frames at the
device's rate (so no stale buffer builds up however slow perception is) and samples them; timestamps are the wall
clock at capture. Sampled frames wait for perception in a bounded buffer (``buffer_s`` seconds of them): where
perception falls that far behind, the oldest are dropped and counted (``dropped``), so memory stays live rather
than running ever later. A stream that drops is reopened with exponential backoff; a camera that disappears is
retried the same way, and the source says so on its log."""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator

import cv2

from edge_agent.capture.frames import CaptureError, Frame

__all__ = ["LiveSource"]

log = logging.getLogger(__name__)


class LiveSource:
    live = True

    def __init__(
        self,
        target: int | str,
        *,
        sample_fps: float = 2.0,
        initial_backoff_s: float = 0.5,
        max_backoff_s: float = 30.0,
        max_failures: int | None = None,
        clock: Callable[[], float] = time.time,
        open_capture: Callable[[int | str], cv2.VideoCapture] | None = None,
        sleep: Callable[[float], None] | None = None,
        buffer_s: float = 30.0,
        stop_timeout_s: float = 10.0,
    ) -> None:
        if sample_fps <= 0:
            raise CaptureError(f"sample_fps must be > 0, got {sample_fps}")
        self.target = target
        self.name = f"camera {target}" if isinstance(target, int) else str(target)
        self.sample_fps = sample_fps
        self.initial_backoff_s = initial_backoff_s
        self.max_backoff_s = max_backoff_s
        self.max_failures = max_failures
        self._clock = clock
        self._open = open_capture or (lambda t: cv2.VideoCapture(t))
        self._stop = threading.Event()
        self._sleep = sleep or self._stop.wait  # by default a stop cuts a backoff short
        self._cap: cv2.VideoCapture | None = None
        self.reconnects = 0
        self.buffer_s = buffer_s
        self.stop_timeout_s = stop_timeout_s  #: how long the end of the frames waits for the reader to stop
        self.dropped = 0  #: sampled frames dropped because perception was ``buffer_s`` behind
        #: CPU time the reader thread spent reading and decoding frames (its waits for the device are not counted)
        self.read_ms = 0.0

    def _connect(self) -> cv2.VideoCapture:
        """Opens the device or stream, retrying with backoff while it is unavailable."""
        backoff = self.initial_backoff_s
        failures = 0
        while not self._stop.is_set():
            cap = self._open(self.target)
            if cap is not None and cap.isOpened():
                return cap
            failures += 1
            if self.max_failures is not None and failures >= self.max_failures:
                raise CaptureError(f"{self.name}: cannot open after {failures} attempts")
            log.warning("%s: cannot open; retrying in %.1f s", self.name, backoff)
            self._sleep(backoff)
            backoff = min(self.max_backoff_s, backoff * 2)
        raise CaptureError(f"{self.name}: stopped")

    def frames(self) -> Iterator[Frame]:
        """The sampled frames, read by a thread of their own; a capture error is raised here."""
        buffer: deque[Frame] = deque(maxlen=max(1, math.ceil(self.buffer_s * self.sample_fps)))
        ready = threading.Condition()
        failed: list[BaseException] = []
        done = threading.Event()

        def read() -> None:
            try:
                for frame in self._sampled():
                    with ready:
                        if len(buffer) == buffer.maxlen:
                            self.dropped += 1
                        buffer.append(frame)
                        ready.notify()
            except BaseException as exc:  # given to the consumer
                failed.append(exc)
            finally:
                if self._cap is not None:
                    self._cap.release()
                    self._cap = None
                with ready:
                    done.set()
                    ready.notify()

        reader = threading.Thread(target=read, name=f"capture {self.name}", daemon=True)
        reader.start()
        try:
            while True:
                with ready:
                    while not buffer and not done.is_set():
                        ready.wait(0.5)
                    frame = buffer.popleft() if buffer else None
                if frame is None or self._stop.is_set():
                    if failed and not self._stop.is_set():
                        raise failed[0]
                    return
                yield frame
        finally:
            # The reader is waited for (it stops at its next frame): a process that exits while it is inside
            # OpenCV's read or open is aborted by the C++ runtime ("exception not rethrown") when that thread
            # comes back to a finalizing interpreter. Never from inside the lock the reader needs.
            self._stop.set()
            reader.join(self.stop_timeout_s)

    def _sampled(self) -> Iterator[Frame]:
        step = 1.0 / self.sample_fps
        next_sample = 0.0
        index = 0
        while not self._stop.is_set():
            if self._cap is None:
                try:
                    self._cap = self._connect()
                except CaptureError:
                    if self._stop.is_set():
                        return
                    raise
            t = time.thread_time()
            ok, image = self._cap.read()
            self.read_ms += (time.thread_time() - t) * 1000
            if not ok or image is None:
                log.warning("%s: read failed (connection lost?); reconnecting", self.name)
                self._cap.release()
                self._cap = None
                self.reconnects += 1
                continue
            now = self._clock()
            if now >= next_sample:
                next_sample = max(next_sample + step, now - step / 2)
                yield Frame(index, now, image)
            index += 1

    def close(self) -> None:
        """Stops reading (the reader releases the device) and ends the frames."""
        self._stop.set()
