"""What every command shares: the global options (accepted before or after the subcommand), argument types (every
number checked: finite, in its range, an integer within SQLite's 64 bits), time parsing and printing, the runtime
built from the options, and one-line errors."""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from edge_agent.errors import InvalidInputError
from edge_agent.runtime import Runtime

N = TypeVar("N", int, float)

__all__ = [
    "GLOBAL",
    "INT64_MAX",
    "after_each_clip",
    "byte_size",
    "camera_name",
    "emit",
    "fail",
    "global_options",
    "keep_text_index_warm",
    "number",
    "parse_time",
    "port",
    "positive_float",
    "positive_int",
    "row_id",
    "runtime",
    "random_seed",
    "show_warnings",
    "utc",
]

#: The options every command takes, with their help.
GLOBAL = (
    (
        "--home",
        "memory folder (default: the configuration's home, else $EDGE_AGENT_HOME, else the per-user data folder)",
    ),
    ("--config", "configuration file, TOML (default: $EDGE_AGENT_CONFIG, else every default)"),
    ("--models", "models folder (default: $EDGE_AGENT_MODELS, else the configuration's models, else <home>/models)"),
)


def global_options(parser: argparse.ArgumentParser, *, top: bool) -> None:
    """Adds --home, --config and --models. Under a subcommand they default to nothing at all (SUPPRESS), so
    one given before the subcommand is not overwritten:
    ``edge-agent --home D ask Q`` = ``edge-agent ask --home D Q``."""
    for flag, text in GLOBAL:
        parser.add_argument(
            flag,
            type=Path,
            metavar="DIR" if flag != "--config" else "FILE",
            help=text,
            default=None if top else argparse.SUPPRESS,
        )


INT64_MAX = (1 << 63) - 1  #: SQLite's largest integer: ids, counts and sizes stay within it


def number(kind: type[N], low: N | None = None, high: N | None = None, *, above: bool = False) -> Callable[[str], N]:
    """An argparse type: a finite number of ``kind`` (int or float) from ``low`` (above it, with ``above``) to
    ``high``; a whole number always within SQLite's signed 64-bit integers. Anything else (``inf``, ``nan``,
    ``1e400``, an id of 22 digits) is refused with one line saying what is taken."""
    if kind is int:
        low = -INT64_MAX - 1 if low is None else low
        high = INT64_MAX if high is None else high
    noun = "a whole number" if kind is int else "a number"
    lowest, highest = (f"{x:g}" if isinstance(x, float) else str(x) for x in (low, high))
    if low is not None and high is not None:
        taken = f"{noun} {'above' if above else 'from'} {lowest} {'up ' if above else ''}to {highest}"
    elif low is not None:
        taken = f"{noun} {'>' if above else '>='} {lowest}"
    else:
        taken = f"{noun} <= {highest}" if high is not None else f"a finite {noun[2:]}"

    def parse(text: str) -> N:
        try:
            value = kind(text.strip())
        except (ValueError, OverflowError):
            raise argparse.ArgumentTypeError(f"must be {taken}, got {text!r}") from None
        if (
            not math.isfinite(value)
            or (low is not None and (value <= low if above else value < low))
            or (high is not None and value > high)
        ):
            raise argparse.ArgumentTypeError(f"must be {taken}, got {text!r}")
        return value

    parse.__name__ = kind.__name__  # argparse names the type in its own messages
    return parse


positive_int = number(int, 1)
positive_float = number(float, 0, above=True)
row_id = number(int, 1)  #: an id in memory (an entity, an observation, a rule, a place, a correction)
random_seed = number(int, 0)
port = number(int, 1, 65535)


def byte_size(text: str) -> int:
    """Bytes, with an optional K, M, G or T suffix (powers of 1024): 500M, 2G."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    size = text.strip().upper().removesuffix("B")
    try:
        value = float(size[:-1]) * units[size[-1]] if size and size[-1] in units else float(size)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a size such as 500M or 2G, got {text!r}") from None
    if not (math.isfinite(value) and 1 <= value <= INT64_MAX):
        raise argparse.ArgumentTypeError(f"must be a size from 1 byte to 8388607T, got {text!r}")
    return int(value)


def runtime(args: argparse.Namespace, **overrides: object) -> Runtime:
    """The runtime of the options given (``overrides`` replace areas of the configuration)."""
    return Runtime.load(home=args.home, config=args.config, models=args.models, **overrides)


def after_each_clip(rt: Runtime, store: Any, alerting: Any, *, warm: bool = False) -> Any:
    """What runs after each clip written to memory: the rules (alerts), then a scheduled backup when one is due (a
    failed backup never stops recording: it is said); with ``warm`` (a long-running writer: watch, hub, frigate),
    then :func:`keep_text_index_warm`'s step."""
    from edge_agent.errors import EdgeAgentError

    schedule = rt.backup_schedule()
    warmer = keep_text_index_warm(rt, store) if warm else None

    def after_clip() -> None:
        alerting.after_clip()
        if schedule is not None:
            try:
                schedule(store)
            except (EdgeAgentError, OSError) as exc:
                print(f"edge-agent: warning: scheduled backup failed: {exc}", file=sys.stderr)
        if warmer is not None:
            warmer()

    return after_clip


def keep_text_index_warm(rt: Runtime, store: Any) -> Any:
    """A step for a process that keeps writing memory: at most every ``[api] warm_every_s`` (0: never), what
    memory gained is embedded and the text vector index brought up to date (full tails sealed into segments and
    saved), so the next question (of a ``serve`` or an ``ask`` sharing the memory) does not pay for a day of
    records at once. The graph is left to the process that answers: rebuilding it takes seconds at a million
    observations, and each new clip changes it. Without the text model nothing is done (said once)."""
    import logging
    import time

    from edge_agent.errors import EdgeAgentError

    every = rt.config.api.warm_every_s
    index: Any = None
    last = time.monotonic()
    failed = False

    def step() -> None:
        nonlocal index, last, failed
        if failed or every <= 0 or time.monotonic() - last < every:
            return
        last = time.monotonic()
        try:
            if index is None:
                from edge_agent.memory.textindex import TextIndex

                embedder = rt.text_embedder()
                index = TextIndex(store, embedder.embed, embedder.space, embedder.dims, rt.config.retrieval.vectors)
            index.update()
            index.sync()
        except (EdgeAgentError, OSError) as exc:
            logging.getLogger(__name__).warning("the text index is not kept up to date here: %s", exc)
            failed = True  # said once; the next question embeds what it needs

    return step


def show_warnings() -> None:
    """For the long-running commands (a node, the hub, the Frigate follower): their modules' warnings and errors
    (a lost broker, a refused clip) printed as one line each."""
    import logging

    logging.basicConfig(level=logging.WARNING, format="edge-agent: %(levelname)s: %(message)s")


def fail(message: str) -> int:
    print(f"edge-agent: error: {message}", file=sys.stderr)
    return 1


def emit(args: argparse.Namespace, data: Any, text: str) -> int:
    """Prints ``data`` as JSON with --json, else ``text``; exit status 0."""
    print(json.dumps(data, indent=2, default=str) if getattr(args, "json", False) else text)
    return 0


def utc(t: float | None) -> str:
    from edge_agent.clock import format_utc

    return format_utc(t)


def parse_time(text: str | None, option: str = "--start") -> float | None:
    """An ISO 8601 time (or None); :class:`InvalidInputError` names the option."""
    if text is None:
        return None
    from edge_agent.clock import parse_iso

    try:
        return parse_iso(text)
    except ValueError:
        raise InvalidInputError(
            f"{option} must be an ISO 8601 time such as 2026-03-02T07:00:00+01:00, got {text!r}"
        ) from None


def camera_name(source: str) -> str:
    if source.isdigit():
        return f"camera{source}"
    if "://" in source:
        return source.split("://", 1)[1].split("/", 1)[0].split("@")[-1] or "stream"
    return Path(source).expanduser().resolve().stem or "camera"
