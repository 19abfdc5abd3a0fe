"""`edge-agent watch` on a live MJPEG stream served over HTTP on loopback: clips are written as they
come, a dropped connection is reconnected, SIGTERM stops cleanly after the current clip, and a restart
carries on without duplicating anything."""

from __future__ import annotations

import http.server
import os
import signal
import socketserver
import subprocess
import sys
import threading
import time
from pathlib import Path

import cv2
import numpy as np

from edge_agent.memory import Store

FRAMES_PER_CONNECTION = 25  # at 10 fps: the server drops every connection after 2.5 s


class _Stream(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self.send_response(200)
        self.send_header("Content-Type", "multipart/x-mixed-replace; boundary=frame")
        self.end_headers()
        try:
            for i in range(FRAMES_PER_CONNECTION):
                image = np.full((120, 160, 3), (i * 9) % 255, np.uint8)
                jpeg = cv2.imencode(".jpg", image)[1].tobytes()
                self.wfile.write(
                    b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n" % len(jpeg) + jpeg + b"\r\n"
                )
                time.sleep(0.1)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, *args: object) -> None:
        pass


def _clips(home: Path) -> list[float]:
    """Start times of the 1-second clips recorded (the ingest log keeps spans: clips of an unchanging view
    are folded into the span before them), checking that no two spans overlap."""
    with Store(home) as store:
        spans = store.db.query(
            "SELECT clip_t_start, clip_t_end FROM ingest_log WHERE camera = 'loopback' ORDER BY clip_t_start"
        )
    assert all(b[0] >= a[1] - 1e-6 for a, b in zip(spans, spans[1:])), spans
    return [t0 + k for t0, t1 in spans for k in range(max(1, round(t1 - t0)))]


def test_watch_reconnects_and_stops_cleanly_on_sigterm(tmp_path):
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Stream)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/stream.mjpg"
    config = tmp_path / "edge-agent.toml"
    config.write_text('[capture]\nclip_seconds = 1.0\nsample_fps = 4\n\n[detector]\ntype = "opencv"\n')
    home = tmp_path / "home"
    script = Path(sys.executable).with_name("edge-agent")
    command = [
        str(script),
        "--home",
        str(home),
        "watch",
        url,
        "--camera",
        "loopback",
        "--config",
        str(config),
        "--quiet",
    ]
    try:
        for run in range(2):
            before = len(_clips(home)) if home.exists() else 0
            watcher = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
            deadline = time.time() + 40
            while time.time() < deadline and (not home.exists() or len(_clips(home)) < before + 4):
                time.sleep(0.5)
            if run == 0:
                time.sleep(1.5)  # let at least one connection drop and be reopened
            watcher.send_signal(signal.SIGTERM)
            out, err = watcher.communicate(timeout=30)
            assert watcher.returncode == 0, err
            assert "SIGTERM: stopping after the current clip" in err
            assert "loopback:" in out and "clips" in out
            if run == 0:
                assert "reconnecting" in err  # the server dropped the stream; the source came back
            times = _clips(home)
            assert len(times) >= before + 4 and len(times) == len(set(times))
            assert times == sorted(times)
    finally:
        server.shutdown()
        server.server_close()
    assert os.listdir(home / "media" / "keyframes" / "loopback")
