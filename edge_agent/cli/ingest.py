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
    emit,
    fail,
    number,
    parse_time,
    runtime,
    show_warnings,
)

__all__ = ["register"]


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    for name, text in (
        ("ingest", "run a recording (or a live source, until stopped) through perception into memory"),
        ("watch", "run a live source continuously; Ctrl-C or SIGTERM stop after the current clip"),
    ):
        run_ = commands.add_parser(name, parents=[common], help=text)
        run_.add_argument(
            "source", help="video file, image folder, MOT sequence folder, camera index (0) or stream URL"
        )
        run_.add_argument("--camera", help="camera name in memory (default: from the source)")
        run_.add_argument(
            "--start", help="wall-clock time of the recording's first frame, ISO 8601 (default: file metadata)"
        )
        run_.add_argument(
            "--detector",
            choices=["auto", "yolox", "tensorrt", "opencv", "gt"],
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
            help="with --publish, at the end of a recording: seconds to wait for the hub to confirm every clip (120)",
        )
        run_.add_argument("--json", action="store_true", help="print the run report as JSON")
        run_.add_argument("--quiet", action="store_true", help="no progress bar")
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
        f"{camera}: {report.clips} clips ({report.clips_skipped} sent before), {report.frames} frames, "
        f"{report.observations} observations ({report.x_realtime:.1f}x real time); published to {broker.where}: "
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
    from edge_agent.capture import open_source
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
    with rt.store() as store, rt.alerting(store) as alerting:
        store.summarize = summarize
        pipeline = rt.pipeline(
            store, backends, after_clip=after_each_clip(rt, store, alerting, warm=args.command == "watch")
        )
        previous = {s: signal.signal(s, _stopper(pipeline, source)) for s in (signal.SIGINT, signal.SIGTERM)}
        bar = None
        if not args.quiet and sys.stderr.isatty():
            from tqdm import tqdm

            bar = tqdm(total=None, unit="clip", file=sys.stderr, desc=camera)
        entities_before = len(store.entities())

        def progress(report: Any) -> None:
            if bar is not None:
                bar.update(report.clips + report.clips_skipped - bar.n)
                bar.set_postfix(
                    fps=f"{report.frames / max(report.wall_seconds, 1e-9):.1f}",
                    obs=report.observations,
                    entities=entities_before + report.new_entities,
                    x_rt=f"{report.x_realtime:.1f}",
                )

        try:
            report = pipeline.run(source, camera, progress)
        except EdgeAgentError as exc:
            return fail(f"{exc} (clips already written stay in memory; run again to resume)")
        finally:
            if bar is not None:
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
        "alerts": raised,
    }
    text = (
        f"{camera}: {report.clips} clips ({report.clips_skipped} already in memory), {report.frames} frames, "
        f"{report.observations} observations, {report.new_entities} new entities; {entities} entities in memory "
        f"({report.x_realtime:.1f}x real time); {raised} alerts{_dropped(report)}{_unreadable(report, source)}\n"
        "backends: " + "; ".join(f"{k} = {v}" for k, v in report.backends.items())
    )
    return emit(args, summary, text)
