"""``edge-agent ingest`` / ``watch``: a recording or a live source through perception into memory, with the
rules' alerts and scheduled backups after each clip."""

from __future__ import annotations

import argparse
import os
import signal
import socket
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from edge_agent.cli.common import (
    after_each_clip,
    camera_name,
    count,
    emit,
    examples,
    fail,
    number,
    parse_time,
    runtime,
    show_warnings,
)
from edge_agent.config import COMMAND_LINE_DETECTORS

__all__ = ["register"]


#: What differs between ingest and watch: their help, what SOURCE is and when --drain waits; the rest is shared.
_WORDING = {
    "ingest": {
        "help": "run a recording (or a live source, until stopped) through perception into memory",
        "description": "Runs a recording (video file, image folder or MOT sequence) through perception into memory, "
        "clip by clip (10 s by default): detection, tracking, appearance, descriptions, and association with what "
        "memory already holds; the rules' alerts and any scheduled backup follow each clip. A run that stopped "
        "resumes after the last clip in memory. A camera or stream runs until Ctrl-C (watch is made for those).",
        "source": "a video file, image folder or MOT sequence folder; also a camera index (0) or stream URL, "
        "read until Ctrl-C",
        "drain": "with --publish, when the source ends (not after Ctrl-C): seconds to wait for the hub to confirm "
        "every clip (120); clips still unconfirmed stay in the outbox, sent when the node runs again",
        "examples": examples(
            "# a recording, its clock set by --start (default: the file's own time)",
            "edge-agent ingest front-door.mp4 --camera front-door --start 2026-03-02T07:00:00+01:00",
            "# the demo scene (edge-agent demo demo-scene), replaying its ground-truth boxes",
            "edge-agent --home demo-home ingest demo-scene/day1 --detector gt",
            "# a camera node: perception here, each clip published to the hub's memory",
            "edge-agent ingest hall.mp4 --camera hall --publish mqtt://127.0.0.1:1883",
        ),
    },
    "watch": {
        "help": "run a live source continuously; Ctrl-C or SIGTERM stop after the current clip",
        "description": "Runs a camera or stream into memory for as long as it is left running: each clip (10 s by "
        "default) is perceived and written as it ends, the rules' alerts raised, and the text index kept up to date "
        "for questions asked meanwhile. A stream that drops is opened again. Ctrl-C or SIGTERM stop after the "
        "current clip. A recording given to watch is ingested to its end.",
        "source": "a camera index (0 for the first USB/V4L2 camera) or a stream URL (rtsp://, http://, ...); "
        "a recording is ingested to its end",
        "drain": "with --publish, when the source ends by itself (a recording's last frame, a camera or stream "
        "given up after it could not be opened again): seconds to wait for the hub to confirm every clip (120); "
        "after Ctrl-C or SIGTERM there is no wait: clips still unconfirmed stay in the outbox, sent when the node "
        "runs again",
        "examples": examples(
            "# the first USB camera, until Ctrl-C",
            "edge-agent watch 0 --camera kitchen",
            "# a network camera as a node publishing to the memory hub (see edge-agent hub)",
            "edge-agent watch rtsp://192.168.1.20:554/stream1 --camera porch --publish mqtt://127.0.0.1:1883",
            "# a stream over HTTP into this machine's memory",
            "edge-agent watch http://127.0.0.1:8000/hall.mjpg --camera hall",
        ),
    },
}


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    for name, said in _WORDING.items():
        run_ = commands.add_parser(
            name, parents=[common], help=said["help"], description=said["description"], epilog=said["examples"]
        )
        run_.add_argument("source", help=said["source"])
        run_.add_argument("--camera", help="camera name in memory (default: from the source)")
        run_.add_argument(
            "--start",
            help="wall-clock time of a recording's first frame, ISO 8601 (default: from the file; a camera or stream "
            "is timed by this machine's clock)",
        )
        run_.add_argument(
            "--detector",
            choices=COMMAND_LINE_DETECTORS,
            help="detector backend (default: the configuration's, else auto: YOLOX if its file is there, else OpenCV)",
        )
        run_.add_argument("--speech", action="store_true", help="transcribe a recording's audio track (faster-whisper)")
        run_.add_argument(
            "--publish",
            metavar="URL",
            help="be a camera node: perception only, each clip published to the memory hub through this MQTT broker "
            "(mqtt://[USER[:PASSWORD]@]HOST[:PORT], mqtts:// for TLS; see `edge-agent hub`)",
        )
        run_.add_argument(
            "--outbox", type=Path, help="with --publish: the node's outbox file (default <home>/outbox-<camera>.db)"
        )
        run_.add_argument(
            "--node", help="with --publish: this node's name at the broker (default <host name>-<camera>)"
        )
        run_.add_argument(
            "--drain",
            type=number(float, 0),
            default=120.0,
            metavar="S",
            help=said["drain"],
        )
        run_.add_argument("--json", action="store_true", help="print the run report as JSON")
        run_.add_argument("--quiet", action="store_true", help="no progress bar (shown only on a terminal)")
        run_.set_defaults(handler=run)


def _stopper(pipeline: Any, source: Any) -> Any:
    def stop(signum: int, _frame: object) -> None:
        print(f"\nedge-agent: {signal.Signals(signum).name}: stopping after the current clip", file=sys.stderr)
        pipeline.stop.set()
        if source.live:
            source.close()  # ends the frame stream; the partial clip is still written

    return stop


def publish(args: argparse.Namespace, rt: Any, broker: Any, source: Any, backends: Any, camera: str) -> int:
    """A camera node: perception into the outbox, the outbox to the hub (edge_agent.mqtt.node)."""
    from edge_agent.memory.outbox import Outbox
    from edge_agent.mqtt.node import Node
    from edge_agent.mqtt.topics import level

    show_warnings()
    config = rt.config.mqtt
    path = args.outbox or rt.home / f"outbox-{level(camera)}.db"
    outbox = Outbox(path, config.outbox_max_mb << 20)
    node_id = args.node or f"{socket.gethostname()}-{camera}"
    with Node(broker, outbox, [camera], node_id) as node:
        pipeline = rt.pipeline(None, backends, destination=node)
        previous = {s: signal.signal(s, _stopper(pipeline, source)) for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            report = pipeline.run(source, camera)
        finally:
            for s, handler in previous.items():
                signal.signal(s, handler)
        waiting = node.drain(args.drain) if not pipeline.stop.is_set() else node.outbox.waiting()
        refused = node.outbox.refused()
        sent, confirmed, not_queued = node.sent, node.confirmed, node.not_queued
    outbox.close()
    summary = {
        **asdict(report),
        "x_realtime": report.x_realtime,
        "broker": broker.where,
        "node": node_id,
        "outbox": str(path),
        "sent": sent,
        "confirmed": confirmed,
        "waiting": waiting,
        "refused": len(refused),
        "not_queued": not_queued,
    }
    text = (
        f"{camera}: {count(report.clips, 'clip')} ({report.clips_skipped} sent before), "
        f"{count(report.frames, 'frame')}, {count(report.observations, 'observation')} "
        f"({report.x_realtime:.1f}x real time); published to {broker.where}: "
        f"{confirmed} confirmed by the hub, {waiting} waiting in {path}"
        + (" (sent when this node runs again)" if waiting else "")
        + (f", {len(refused)} refused by the hub (kept in the outbox)" if refused else "")
        + (f", {not_queued} not queued: the outbox was full ([mqtt] outbox_max_mb)" if not_queued else "")
        + _dropped(report)
        + _unreadable(report, source)
    )
    return emit(args, summary, text)


def _dropped(report: Any) -> str:
    n = report.dropped_frames
    return f"; {n} sampled frames dropped: perception fell behind the camera" if n else ""


def _unreadable(report: Any, source: Any) -> str:
    """A line naming what of a recording could not be read and was gone past (the first few of them)."""
    from edge_agent.capture import ImageFolderSource, Unreadable

    n = report.unreadable
    if not n:
        return ""
    what = "images" if isinstance(source, ImageFolderSource) else "frames"
    named = report.unreadable_first
    first = ":" if len(named) < Unreadable.KEEP else ", the first:"  # all named, or maybe not
    return f"\n{n} unreadable {what} skipped{first} {', '.join(named)}"


def run(args: argparse.Namespace) -> int:
    from edge_agent.capture import expected_clips, open_source
    from edge_agent.errors import EdgeAgentError

    overrides: dict[str, Any] = {}
    if args.detector:
        overrides["detector"] = {"type": args.detector}
    if args.speech:
        overrides["speech"] = {"type": "whisper"}
    rt = runtime(args, **overrides)
    broker = None
    if args.publish:  # a bad address is said before the models load
        from edge_agent.mqtt.broker import Broker

        broker = Broker.parse(args.publish, rt.config.mqtt)
    start = parse_time(args.start)
    camera = args.camera or camera_name(args.source)
    config = rt.config
    # FFmpeg's own lines on a damaged file (dozens for one bad stretch) quietened: what could not be read is said
    # once, in the report. Read when the first file is opened; a user's own OPENCV_FFMPEG_LOGLEVEL is kept.
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")
    source = open_source(
        args.source, sample_fps=config.capture.sample_fps, start=start, image_fps=config.capture.image_fps
    )
    backends = rt.backends(source)
    if args.command == "watch" and not source.live:
        print(f"edge-agent: {source.name} is a recording: it is ingested to its end", file=sys.stderr)
    if broker is not None:
        return publish(args, rt, broker, source, backends, camera)
    summarize = rt.summarizer()
    new = rt.memory_is_new()  # said in the report: where a first run's memory was made
    with rt.store() as store, rt.alerting(store) as alerting:
        store.summarize = summarize
        pipeline = rt.pipeline(
            store, backends, after_clip=after_each_clip(rt, store, alerting, warm=args.command == "watch")
        )
        previous = {s: signal.signal(s, _stopper(pipeline, source)) for s in (signal.SIGINT, signal.SIGTERM)}
        bar = None
        if not args.quiet and sys.stderr.isatty():
            from tqdm import tqdm

            # A recording's length gives the bar a total and the time left; a camera or stream only counts.
            total = None if source.live else expected_clips(getattr(source, "span", None), config.capture.clip_seconds)
            counter = "{desc}: {n_fmt} clips [{elapsed}, {rate_fmt}{postfix}]"  # no total: "3 clips", not "3clip"
            bar = tqdm(total=total, unit="clip", file=sys.stderr, desc=camera, bar_format=None if total else counter)
        entities_before = len(store.entities())

        def progress(report: Any) -> None:
            if bar is not None:
                done = report.clips + report.clips_skipped
                if bar.total is not None and done > bar.total:  # the file said less than it held
                    bar.total = done
                bar.set_postfix(
                    fps=f"{report.frames / max(report.wall_seconds, 1e-9):.1f}",
                    obs=report.observations,
                    entities=entities_before + report.new_entities,
                    x_rt=f"{report.x_realtime:.1f}",
                    refresh=False,  # drawn once, by the update
                )
                bar.update(done - bar.n)

        try:
            report = pipeline.run(source, camera, progress)
        except EdgeAgentError as exc:
            return fail(f"{exc} (clips already written stay in memory; run again to resume)")
        finally:
            if bar is not None:
                if bar.total is not None and not pipeline.stop.is_set():
                    bar.total = bar.n  # a gap or a damaged stretch made fewer clips: the recording is done all the same
                    bar.refresh()
                bar.close()
            for s, handler in previous.items():
                signal.signal(s, handler)
        if not source.live and not pipeline.stop.is_set():
            store.close_episodes(
                camera
            )  # a recording ends here: its last windows are summarised (a later file rewrites them)
        entities = len(store.entities())
        raised = len(alerting.raised)
    summary = {
        **asdict(report),
        "x_realtime": report.x_realtime,
        "entities_in_memory": entities,
        "home": str(rt.home),
        "memory_new": new,
        "alerts": raised,
    }
    text = (
        f"{camera}: {count(report.clips, 'clip')} ({report.clips_skipped} already in memory), "
        f"{count(report.frames, 'frame')}, {count(report.observations, 'observation')}, "
        f"{count(report.new_entities, 'new entity', 'new entities')}; {count(entities, 'entity', 'entities')} in "
        f"{f'the new memory at {rt.home}' if new else 'memory'} "
        f"({report.x_realtime:.1f}x real time); {count(raised, 'alert')}"
        f"{_dropped(report)}{_unreadable(report, source)}\n"
        "backends: " + "; ".join(f"{k} = {v}" for k, v in report.backends.items())
    )
    return emit(args, summary, text)
