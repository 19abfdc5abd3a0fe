"""``edge-agent bench node --streams N VIDEO...``: what one machine sustains as a camera node. Each recording is
served as a live 720p MJPEG stream over local HTTP (pre-encoded JPEGs, at the recording's rate up to 15 fps, looped
and paced by the clock, dropping frames a slow reader misses, as a camera does); N node processes (``edge-agent
watch URL --publish``, YOLOX-nano on one thread each, 2 fps sampling) read them for ``seconds`` and publish to a
memory hub process through a mosquitto broker on loopback. Reported:

- per stream (after ``warmup_s`` for the nodes to load their models): CPU (the node process's user + system time
  over wall time), clips, the share of the due samples (2 a second of what it read) it
  took (a reader that cannot keep up with the stream samples less often), sampled frames dropped because perception
  fell behind (``buffer_s`` of them wait), and whether it kept up (nothing dropped, at least 95% sampled);
- the end-to-end latency from a clip's end to its commit in the hub's memory (p50 / p95, from the hub's ingest log;
  one clock on loopback);
- where a node's time goes per clip: decode, detect, track, embed, describe, publish (encode + outbox);
- the hub's ingest throughput (clips/s, observations/s): every clip message of the run published again, as fast as
  the broker takes them, to a fresh hub (in this process) with an empty memory, timed to the last receipt.

Linux only (CPU is read from /proc); needs mosquitto (Debian's package) unless --broker names one."""

from __future__ import annotations

import http.server
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from edge_agent import __version__
from edge_agent.config import Config, YOLOXDetectorConfig
from edge_agent.errors import EdgeAgentError
from edge_agent.memory import Store, queries
from edge_agent.mqtt import topics
from edge_agent.mqtt.broker import Broker
from edge_agent.mqtt.hub import Hub
from edge_agent.mqtt.wire import key_of
from edge_agent.perception.registry import model_file

__all__ = ["BenchError", "format_table", "run"]

STAGES = ("decode", "detect", "track", "embed", "describe", "write")


class BenchError(EdgeAgentError, RuntimeError):
    """The benchmark cannot run here (no mosquitto, a video that cannot be read, not Linux)."""


class Streams:
    """Recordings served as live MJPEG streams at ``/stream/<k>.mjpg`` on a local port."""

    def __init__(
        self, videos: list[Path], *, width: int = 1280, height: int = 720, max_fps: float = 15.0, loop_s: float = 30.0
    ) -> None:
        self.streams: list[tuple[list[bytes], float]] = []
        for video in videos:
            cap = cv2.VideoCapture(str(video))
            if not cap.isOpened():
                raise BenchError(f"cannot read {video}")
            fps = cap.get(cv2.CAP_PROP_FPS) or 10.0
            step = max(1, round(fps / max_fps))
            frames: list[bytes] = []
            k = 0
            while len(frames) < loop_s * fps / step:
                ok, image = cap.read()
                if not ok:
                    break
                if k % step == 0:
                    image = cv2.resize(image, (width, height), interpolation=cv2.INTER_LINEAR)
                    frames.append(cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])[1].tobytes())
                k += 1
            cap.release()
            if not frames:
                raise BenchError(f"{video} has no frames")
            self.streams.append((frames, fps / step))
        streams = self.streams

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
                try:
                    frames, fps = streams[int(self.path.split("/")[-1].split(".")[0])]
                except (ValueError, IndexError):
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "multipart/x-mixed-replace; boundary=frame")
                self.end_headers()
                start, sent = time.monotonic(), 0
                try:
                    while True:  # the frame of now: a reader that falls behind misses frames, as from a camera
                        now = time.monotonic()
                        data = frames[int((now - start) * fps) % len(frames)]
                        head = b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n" % len(data)
                        self.wfile.write(head + data + b"\r\n")
                        sent += 1
                        time.sleep(max(0.0, start + sent / fps - time.monotonic()))
                except (BrokenPipeError, ConnectionResetError):
                    return

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, k: int) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/stream/{k % len(self.streams)}.mjpg"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a running process (/proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _mosquitto(folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    exe = shutil.which("mosquitto") or ("/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").exists() else None)
    if exe is None:
        raise BenchError(
            "bench node needs an MQTT broker: install mosquitto (apt-get install mosquitto) or give --broker"
        )
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    conf = folder / "mosquitto.conf"
    conf.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
    proc = subprocess.Popen([exe, "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return proc, f"mqtt://127.0.0.1:{port}"
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise BenchError("mosquitto did not start") from None
            time.sleep(0.05)


def _recorder(broker: Broker, prefix: str) -> tuple[Any, dict[str, bytes]]:
    """A subscriber keeping every clip message of the run (for the hub's throughput afterwards)."""
    kept: dict[str, bytes] = {}
    client = broker.client(f"edge-agent-bench-{os.getpid()}", persistent=False)
    client.on_connect = lambda c, u, f, rc, p: c.subscribe(topics.clips(prefix), qos=1)
    client.on_message = lambda c, u, m: kept.setdefault(str(key_of(m.payload)), bytes(m.payload))
    broker.start(client)
    return client, kept


def _hub_throughput(messages: list[bytes], broker: Broker, folder: Path) -> dict[str, Any]:
    """Every message published again to a fresh hub with an empty memory: clips/s and observations/s."""
    config = broker.config.model_copy(update={"hub_client_id": f"edge-agent-bench-hub-{os.getpid()}"})
    replay = Broker(broker.host, broker.port, broker.tls, broker.username, broker.password, config)
    with Store(folder / "throughput") as store:
        hub = Hub(store, replay)
        stop = threading.Event()
        thread = threading.Thread(target=hub.run, args=(stop,), daemon=True)
        thread.start()
        if not hub.connected.wait(10):
            raise BenchError("the hub could not connect to the broker")
        time.sleep(0.3)
        sender = replay.client(f"edge-agent-bench-send-{os.getpid()}", persistent=False)
        broker.start(sender)
        time.sleep(0.3)
        started = time.perf_counter()
        for payload in messages:
            sender.publish(topics.clips(config.topic_prefix, "replay"), payload, qos=1)
        deadline = time.monotonic() + 300
        while hub.stats.clips + hub.stats.repeats + hub.stats.refused < len(messages) and time.monotonic() < deadline:
            time.sleep(0.01)
        seconds = time.perf_counter() - started
        stop.set()
        thread.join(10)
        sender.disconnect()
        sender.loop_stop()
    return {
        "messages": len(messages),
        "clips": hub.stats.clips,
        "observations": hub.stats.observations,
        "seconds": seconds,
        "clips_per_s": hub.stats.clips / seconds if seconds > 0 else 0.0,
        "observations_per_s": hub.stats.observations / seconds if seconds > 0 else 0.0,
    }


def run(
    videos: list[Path],
    config: Config,
    models: Path,
    *,
    streams: int = 4,
    seconds: float = 60.0,
    broker_url: str | None = None,
    warmup_s: float = 8.0,
) -> dict[str, Any]:
    if not Path("/proc/self/stat").exists():
        raise BenchError("bench node reads CPU time from /proc: Linux only")
    models = models.resolve()
    model = model_file(getattr(config.detector, "model", None) or YOLOXDetectorConfig(type="yolox").model, models)
    if not model.is_file():
        raise BenchError(f"bench node runs YOLOX-nano: {model} is missing (--models)")
    clip_seconds, sample_fps = config.capture.clip_seconds, config.capture.sample_fps
    with tempfile.TemporaryDirectory(prefix="edge-agent-bench-node-") as tmp:
        folder = Path(tmp)
        settings = folder / "edge-agent.toml"
        settings.write_text(
            f"[capture]\nclip_seconds = {clip_seconds}\nsample_fps = {sample_fps}\n\n"
            f'[detector]\ntype = "yolox"\nmodel = {json.dumps(str(model))}\nthreads = 1\n'
        )
        broker_proc = None
        if broker_url is None:
            broker_proc, broker_url = _mosquitto(folder)
        try:
            return _measure(
                videos, config, models, folder, settings, broker_url, streams, seconds, warmup_s, clip_seconds
            )
        finally:
            if broker_proc is not None:
                broker_proc.terminate()
                broker_proc.wait(10)


def _measure(
    videos: list[Path],
    config: Config,
    models: Path,
    folder: Path,
    settings: Path,
    broker_url: str,
    streams: int,
    seconds: float,
    warmup_s: float,
    clip_seconds: float,
) -> dict[str, Any]:
    sample_fps = config.capture.sample_fps
    broker = Broker.parse(broker_url, config.mqtt)
    served = Streams(videos)
    command = [sys.executable, "-m", "edge_agent", "--config", str(settings), "--models", str(models)]
    recorder, kept = _recorder(broker, config.mqtt.topic_prefix)
    hub_log = (folder / "hub.log").open("wb")
    hub = subprocess.Popen(
        [*command, "hub", "--home", str(folder / "hub"), "--broker", broker_url],
        stdout=subprocess.DEVNULL,
        stderr=hub_log,
        cwd=folder,  # `python -m edge_agent` is the installed package, not a source tree where the bench was started
    )
    nodes: list[subprocess.Popen[str]] = []
    try:
        time.sleep(2.0)  # the hub's session first
        for k in range(streams):
            nodes.append(
                subprocess.Popen(
                    [*command, "watch", served.url(k), "--camera", f"stream{k}", "--home", str(folder / f"node{k}")]
                    + ["--publish", broker_url, "--json", "--quiet"],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                    cwd=folder,
                )
            )
        time.sleep(warmup_s)  # the nodes load their models and open their streams: not what is measured
        started = time.monotonic()
        cpu0 = [_cpu_seconds(p.pid) for p in nodes]
        hub_cpu0 = _cpu_seconds(hub.pid)
        time.sleep(seconds)
        wall = time.monotonic() - started
        cpu = [_cpu_seconds(p.pid) - c for p, c in zip(nodes, cpu0)]
        hub_cpu = _cpu_seconds(hub.pid) - hub_cpu0
        for p in nodes:
            p.send_signal(signal.SIGTERM)
        reports = []
        for p in nodes:
            out, err = p.communicate(timeout=120)
            if p.returncode != 0:
                raise BenchError(f"a node failed: {err.strip().splitlines()[-1] if err.strip() else p.returncode}")
            reports.append(json.loads(out))
        time.sleep(2.0)  # the last clips reach the hub
    finally:
        for p in nodes:
            if p.poll() is None:
                p.kill()
                p.communicate()
        hub.send_signal(signal.SIGTERM)
        try:
            hub.wait(30)
        except subprocess.TimeoutExpired:
            hub.kill()
            hub.wait()
        hub_log.close()
        recorder.disconnect()
        recorder.loop_stop()
        served.close()
    with Store(folder / "hub", mode="read") as store:
        log = queries.ingest_log(store)
    latencies = np.array([float(c) - float(e) for _, _, e, c in log]) if log else np.zeros(0)
    throughput = _hub_throughput(list(kept.values()), broker, folder)
    per_clip = {s: sum(r["stage_ms"][s] for r in reports) / max(1, sum(r["clips"] for r in reports)) for s in STAGES}
    stream_rows = []
    for r, c in zip(reports, cpu):
        due = max(1.0, r["video_seconds"] * sample_fps)  # the samples of the span it read, where it kept up
        stream_rows.append(
            {
                "camera": r["camera"],
                "cpu": c / wall,
                "clips": r["clips"],
                "frames": r["frames"],
                "sampled": r["frames"] / due,
                "dropped_frames": r["dropped_frames"],
                "confirmed": r["confirmed"],
                "real_time": r["dropped_frames"] == 0 and r["frames"] >= 0.95 * due,
            }
        )
    return {
        "benchmark": "node",
        "version": __version__,
        "streams": streams,
        "seconds": wall,
        "cores": os.cpu_count(),
        "sample_fps": sample_fps,
        "clip_seconds": clip_seconds,
        "resolution": "1280x720",
        "per_stream": stream_rows,
        "cpu_per_stream": float(np.mean([r["cpu"] for r in stream_rows])),
        "hub_cpu": hub_cpu / wall,
        "sustained": all(r["real_time"] for r in stream_rows),
        "clips_in_hub": len(log),
        "latency_p50_s": float(np.percentile(latencies, 50)) if latencies.size else None,
        "latency_p95_s": float(np.percentile(latencies, 95)) if latencies.size else None,
        "node_ms_per_clip": per_clip,
        "hub": throughput,
    }


def format_table(result: dict[str, Any]) -> str:
    lines = [
        f"edge-agent {result['version']} bench node: {result['streams']} streams of {result['resolution']} sampled at "
        f"{result['sample_fps']:g} fps, {result['clip_seconds']:g} s clips, {result['seconds']:.0f} s on "
        f"{result['cores']} cores",
        f"{'stream':10} {'CPU':>6} {'clips':>6} {'frames':>7} {'sampled':>8} {'dropped':>8} {'real time':>10}",
    ]
    for r in result["per_stream"]:
        lines.append(
            f"{r['camera']:10} {r['cpu']:6.2f} {r['clips']:6d} {r['frames']:7d} {r['sampled']:8.0%} "
            f"{r['dropped_frames']:8d} {'yes' if r['real_time'] else 'no':>10}"
        )
    p50, p95 = result["latency_p50_s"], result["latency_p95_s"]
    lines += [
        f"CPU per stream {result['cpu_per_stream']:.2f} cores (hub {result['hub_cpu']:.2f}); "
        f"{'all streams kept up' if result['sustained'] else 'NOT all streams kept up'}",
        f"clip end -> hub memory: p50 {p50:.2f} s, p95 {p95:.2f} s ({result['clips_in_hub']} clips)"
        if p50 is not None
        else "no clip reached the hub",
        "node ms per clip: "
        + ", ".join(f"{s if s != 'write' else 'publish'} {v:.0f}" for s, v in result["node_ms_per_clip"].items()),
        f"hub ingest: {result['hub']['clips_per_s']:.1f} clips/s, {result['hub']['observations_per_s']:.0f} "
        f"observations/s ({result['hub']['clips']} clips replayed in {result['hub']['seconds']:.2f} s)",
    ]
    return "\n".join(lines)
