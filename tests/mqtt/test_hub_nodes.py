"""Three camera nodes and a memory hub over a real mosquitto on loopback, each a process of its own, ingesting
different real recordings while the broker is restarted and the hub is killed (SIGKILL) and started again:
afterwards the hub's memory holds exactly the clips a single box's ingest of the same recordings holds (the same
clip keys, the same observations in each), none twice."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from helpers.mosquitto import Mosquitto
from helpers.shared import data, model

from edge_agent.memory import Store

pytestmark = pytest.mark.slow

START = "2026-11-30T10:00:00Z"
CAMERAS = {"street": "video/vtest.avi", "hall": "video/1.mp4", "porch": "video/3.mp4"}


def clips_of(home: Path) -> dict[tuple[str, int], int]:
    """(camera, start ms) -> observations at ingest, of every clip the memory ever took in (its ingest log)."""
    with Store(home, mode="read") as store:
        rows = store.db.query("SELECT camera, clip_t_start, observations FROM ingest_log")
    keys = [(str(c), int(round(t * 1000))) for c, t, _ in rows]
    assert len(keys) == len(set(keys)), "a clip was stored twice"
    return {k: int(n) for k, (_, _, n) in zip(keys, rows)}


class Receipts:
    """Counts the hub's receipts (a plain subscriber that reconnects when the broker comes back)."""

    def __init__(self, port: int) -> None:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        self.count = 0
        self.lock = threading.Lock()
        self.client = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2)
        self.client.on_connect = lambda c, u, f, rc, p: c.subscribe("edge-agent/stored/+", qos=1)
        self.client.on_message = lambda c, u, m: self._count()
        self.client.reconnect_delay_set(0.2, 1)
        self.client.connect_async("127.0.0.1", port)
        self.client.loop_start()

    def _count(self) -> None:
        with self.lock:
            self.count += 1

    def wait(self, n: int, nodes: list[subprocess.Popen[str]], timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while self.count < n and any(p.poll() is None for p in nodes):
            assert time.monotonic() < deadline, f"only {self.count} receipts"
            time.sleep(0.05)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def test_three_nodes_and_a_hub_lose_nothing_and_store_nothing_twice(tmp_path):
    models = model("yolox_nano.onnx").parent
    videos = {camera: data(path) for camera, path in CAMERAS.items()}
    config = tmp_path / "edge-agent.toml"
    config.write_text("[capture]\nclip_seconds = 2\n\n[mqtt]\nresend_after_s = 2\n")
    exe = str(Path(sys.executable).with_name("edge-agent"))
    cli = [exe, "--config", str(config), "--models", str(models)]

    single = tmp_path / "single"
    for camera, video in videos.items():
        subprocess.run(
            [*cli, "ingest", str(video), "--camera", camera, "--home", str(single), "--start", START, "--quiet"],
            check=True,
            capture_output=True,
        )
    expected = clips_of(single)
    assert len(expected) >= 45  # 40 clips of the street, 5 of the hall, 3 or 4 of the porch

    broker = Mosquitto(tmp_path / "broker").start()
    hub_home = tmp_path / "hub"
    hub_log = (tmp_path / "hub.log").open("a")

    def start_hub() -> subprocess.Popen[str]:
        return subprocess.Popen(
            [*cli, "hub", "--home", str(hub_home), "--broker", broker.url], stdout=hub_log, stderr=hub_log, text=True
        )

    receipts = Receipts(broker.port)
    hub = start_hub()
    nodes: list[subprocess.Popen[str]] = []
    try:
        time.sleep(1.0)  # the hub's first session: from here on the broker keeps its clips while it is away
        for camera, video in videos.items():
            nodes.append(
                subprocess.Popen(
                    [*cli, "watch", str(video), "--camera", camera, "--home", str(tmp_path / f"node-{camera}")]
                    + ["--start", START, "--publish", broker.url, "--drain", "120", "--quiet", "--json"],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
            )
        receipts.wait(3, nodes)
        running_at_restart = sum(p.poll() is None for p in nodes)
        broker.restart()  # the broker goes away mid-run; it keeps the hub's session on disk
        receipts.wait(receipts.count + 10, nodes)
        running_at_kill = sum(p.poll() is None for p in nodes)
        hub.kill()  # SIGKILL: no goodbye, possibly mid-write
        hub.wait()
        time.sleep(1.0)
        hub = start_hub()
        reports = []
        for p in nodes:
            out, err = p.communicate(timeout=240)
            assert p.returncode == 0, err
            reports.append(json.loads(out))
        deadline = time.monotonic() + 30
        while len(clips_of(hub_home)) < len(expected) and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        for p in nodes:
            if p.poll() is None:
                p.kill()
        hub.terminate()
        try:
            hub.wait(15)
        except subprocess.TimeoutExpired:
            hub.kill()
        receipts.close()
        broker.stop()
        hub_log.close()

    assert running_at_restart and running_at_kill, "the outages came after the nodes had finished"
    assert all(r["waiting"] == 0 and r["refused"] == 0 for r in reports), reports
    assert sum(r["clips"] for r in reports) == len(expected)
    got = clips_of(hub_home)
    assert got == expected, (tmp_path / "hub.log").read_text()[-3000:]
