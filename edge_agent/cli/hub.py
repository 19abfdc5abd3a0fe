"""``edge-agent hub``: the memory hub, writing the clips camera nodes publish (``watch SOURCE --publish URL``)
into this memory, with the rules' alerts and scheduled backups after each clip, and the API and dashboard with
--serve; ``edge-agent frigate``: the same memory fed by an existing Frigate install's events."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from edge_agent.cli import serve
from edge_agent.cli.common import (
    after_each_clip,
    emit,
    examples,
    parse_time,
    positive_int,
    runtime,
    show_warnings,
    utc,
)
from edge_agent.errors import InvalidInputError

__all__ = ["register"]


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    hub = commands.add_parser(
        "hub",
        parents=[common],
        help="the memory hub: write the clips camera nodes publish over MQTT (watch SOURCE --publish URL)",
        description="The memory hub: writes into memory the clips that camera nodes (watch or ingest with "
        "--publish) send through an MQTT broker, with association, episodes, rules and alerts, until Ctrl-C. "
        "`hub rejected` lists the messages it could not store.",
        epilog=examples(
            "# the memory of every node publishing to this broker, with the dashboard",
            "edge-agent hub --broker mqtt://127.0.0.1:1883 --serve",
            "# what the hub refused to store, and why",
            "edge-agent hub rejected --limit 5",
        ),
    )
    hub.add_argument(
        "action",
        nargs="?",
        choices=["rejected"],
        help="rejected: list the messages the hub could not store (dead letters), newest first, with why",
    )
    hub.add_argument("--broker", metavar="URL", help="the MQTT broker: mqtt://[USER[:PASSWORD]@]HOST[:PORT]")
    hub.add_argument(
        "--limit", type=positive_int, default=20, metavar="N", help="hub rejected: how many to list (20, at most 1000)"
    )
    hub.add_argument("--serve", action="store_true", help="also serve the HTTP API and the dashboard")
    serve.add_options(hub, condition="with --serve: ")
    hub.add_argument(
        "--json", action="store_true", help="print JSON: the run's figures when it stops (hub rejected: the list)"
    )
    hub.set_defaults(handler=run_hub)

    frigate = commands.add_parser(
        "frigate",
        parents=[common],
        help="follow an existing Frigate install: its tracked objects into this memory (identity, questions, rules)",
        description="Follows an existing Frigate install until Ctrl-C: each object Frigate tracks (its MQTT events, "
        "its snapshots over the HTTP API) goes into this memory, where identity across clips, questions, rules and "
        "alerts work on it.",
        epilog=examples(
            "edge-agent frigate --broker mqtt://127.0.0.1:1883 --api http://127.0.0.1:5000",
            "# also what Frigate tracked since a time, with the dashboard",
            "edge-agent frigate --broker mqtt://frigate.lan:1883 --api http://frigate.lan:5000 "
            "--since 2026-03-01T00:00:00Z --serve",
        ),
    )
    frigate.add_argument(
        "--broker", required=True, metavar="URL", help="Frigate's MQTT broker: mqtt://[USER[:PASSWORD]@]HOST[:PORT]"
    )
    frigate.add_argument(
        "--api", required=True, metavar="URL", help="Frigate's HTTP API, e.g. http://frigate.local:5000"
    )
    frigate.add_argument(
        "--client-id", default="edge-agent-frigate", help="the follower's MQTT client id (edge-agent-frigate)"
    )
    frigate.add_argument(
        "--since",
        metavar="TIME",
        help="on a first start, also bring in what Frigate tracked since this time (ISO 8601; its snapshots must "
        "still be kept); later starts go on from memory's last clip of each camera",
    )
    frigate.add_argument("--serve", action="store_true", help="also serve the HTTP API and the dashboard")
    serve.add_options(frigate, condition="with --serve: ")
    frigate.add_argument("--json", action="store_true", help="print the run's figures as JSON when it stops")
    frigate.set_defaults(handler=run_frigate)


@contextmanager
def _memory(args: argparse.Namespace) -> Iterator[tuple[Any, Any, Callable[[], None]]]:
    """The runtime, the memory open for writing, and what runs after each new clip (alerts, backups); with
    --serve, the API and dashboard in a thread beside it."""
    rt = runtime(args)
    server = None
    with rt.store() as store, rt.alerting(store) as alerting:
        store.summarize = rt.summarizer()
        after_clip = after_each_clip(rt, store, alerting, warm=True)
        if getattr(args, "serve", False):
            import uvicorn

            server = uvicorn.Server(uvicorn.Config(serve.build_app(rt, args), **serve.server_options(args)))
            threading.Thread(target=server.run, name="edge-agent-api", daemon=True).start()
        try:
            yield rt, store, after_clip
        finally:
            if server is not None:
                server.should_exit = True


def _until_signal() -> tuple[threading.Event, Callable[[], None]]:
    """An event set by SIGINT or SIGTERM, and what puts the previous handlers back."""
    stop = threading.Event()

    def handler(signum: int, _frame: object) -> None:
        print(f"\nedge-agent: {signal.Signals(signum).name}: stopping", file=sys.stderr)
        stop.set()

    previous = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}

    def restore() -> None:
        for s, h in previous.items():
            signal.signal(s, h)

    return stop, restore


def run_hub(args: argparse.Namespace) -> int:
    from edge_agent.mqtt.broker import Broker
    from edge_agent.mqtt.hub import Hub

    if args.action == "rejected":
        return _rejected(args)
    if not args.broker:
        raise InvalidInputError("hub needs --broker URL (mqtt://[USER[:PASSWORD]@]HOST[:PORT]), or `hub rejected`")
    show_warnings()
    with _memory(args) as (rt, store, after_clip):
        broker = Broker.parse(args.broker, rt.config.mqtt)
        hub = Hub(store, broker, after_clip=after_clip)
        stop, restore = _until_signal()
        print(f"edge-agent: hub on {broker.where}, memory {rt.home}", file=sys.stderr)
        try:
            stats = hub.run(stop)
        finally:
            restore()
    summary = {
        "broker": broker.where,
        "clips": stats.clips,
        "repeats": stats.repeats,
        "refused": stats.refused,
        "observations": stats.observations,
    }
    text = (
        f"hub: {stats.clips} clips written ({stats.observations} observations), {stats.repeats} sent again and "
        f"already in memory, {stats.refused} refused"
    )
    return emit(args, summary, text)


def _rejected(args: argparse.Namespace) -> int:
    from edge_agent.memory.deadletters import DeadLetters

    if not 1 <= args.limit <= 1000:
        raise InvalidInputError(f"--limit must be 1-1000, got {args.limit}")
    dead = DeadLetters(runtime(args).home)
    try:
        letters = dead.newest(args.limit)
    finally:
        dead.close()
    rows = [
        {
            "id": r.id,
            "received_at": utc(r.received_at),
            "topic": r.topic,
            "node": r.node,
            "camera": r.camera,
            "start": None if r.start_ms is None else utc(r.start_ms / 1000),
            "reason": r.reason,
            "attempts": r.attempts,
            "bytes": r.size,
        }
        for r in letters
    ]
    lines = [
        f"#{r['id']} {r['received_at']} on {r['topic']}"
        + (f" ({r['camera']} clip at {r['start']})" if r["camera"] else "")
        + f", {r['bytes']} bytes: {r['reason']}"
        for r in rows
    ]
    return emit(args, rows, "\n".join(lines) if lines else "hub: no message was refused")


def run_frigate(args: argparse.Namespace) -> int:
    from edge_agent.ingest import MemoryWriter
    from edge_agent.mqtt.broker import Broker
    from edge_agent.mqtt.frigate import FrigateAPI, FrigateFollower

    show_warnings()
    with _memory(args) as (rt, store, after_clip):
        broker = Broker.parse(args.broker, rt.config.mqtt)
        api = FrigateAPI(args.api, rt.config.frigate.timeout_s)
        follower = FrigateFollower(
            MemoryWriter(store, after_clip),
            rt.backends(),
            rt.config,
            api,
            state=rt.home / "frigate.json",
            since=parse_time(args.since, "--since"),
        )
        client = broker.client(args.client_id, persistent=True)
        follower.subscribe(client)
        broker.start(client)
        stop, restore = _until_signal()
        print(f"edge-agent: following Frigate at {api.base} through {broker.where}, memory {rt.home}", file=sys.stderr)
        try:
            follower.run(stop)
        finally:
            restore()
            client.disconnect()
            client.loop_stop()
    summary = {
        "broker": broker.where,
        "api": api.base,
        "clips": follower.clips,
        "observations": follower.observations,
        "events": follower.events,
    }
    text = (
        f"frigate: {follower.clips} clips written ({follower.observations} observations) from "
        f"{follower.events} ended tracked objects"
    )
    return emit(args, summary, text)
