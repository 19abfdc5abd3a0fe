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
    "INGEST_FIRST",
    "INT64_MAX",
    "SHOWS_MEMORY",
    "CommandRuntime",
    "HelpFormatter",
    "after_each_clip",
    "byte_size",
    "camera_name",
    "confirm_help",
    "count",
    "emit",
    "empty_memory",
    "examples",
    "fail",
    "finish_help",
    "global_options",
    "holds_clips",
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
    "unconfirmed",
    "utc",
]

_WHERE_HOME = (
    "(default: the configuration's home, else $EDGE_AGENT_HOME, else the per-user data folder: "
    "$XDG_DATA_HOME/edge-agent, ~/.local/share/edge-agent)"
)

#: The options every command takes, with their help.
GLOBAL = (
    ("--home", f"the memory folder {_WHERE_HOME}"),
    ("--config", "configuration file, TOML (default: $EDGE_AGENT_CONFIG, else every default)"),
    ("--models", "models folder (default: $EDGE_AGENT_MODELS, else the configuration's models, else <home>/models)"),
)

#: --home for the commands that keep no memory (models, eval, calibrate, bench): there it only places <home>/models.
TOOL_HOME = f"a memory folder: this command keeps nothing there, it only looks for <home>/models {_WHERE_HOME}"


def global_options(parser: argparse.ArgumentParser, *, top: bool, memory: bool = True) -> None:
    """Adds --home, --config and --models (``memory=False``: for a command that keeps no memory, whose --home
    only places the models folder). Under a subcommand they default to nothing at all (SUPPRESS), so one given
    before the subcommand is not overwritten: ``edge-agent --home D ask Q`` = ``edge-agent ask --home D Q``."""
    for flag, text in GLOBAL:
        parser.add_argument(
            flag,
            type=Path,
            metavar="DIR" if flag != "--config" else "FILE",
            help=text if memory or flag != "--home" else TOOL_HOME,
            default=None if top else argparse.SUPPRESS,
        )


class HelpFormatter(argparse.HelpFormatter):
    """The formatter of every command's help: in a description or an epilog, a line that begins with a space (an
    example) is kept as written; any other line is wrapped to the terminal as argparse does."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        wrap = super()._fill_text
        return "\n".join(
            indent + line if line.startswith(" ") or not line.strip() else wrap(line, width, indent)
            for line in text.splitlines()
        )


def examples(*lines: str) -> str:
    """A command's epilog: its examples, each ``edge-agent ...`` line kept as written (a ``# ...`` line above one
    says what it does). tests/test_cli_help.py parses every one with the real parser."""
    return "examples:\n" + "\n".join(f"  {line}" for line in lines)


def finish_help(parser: argparse.ArgumentParser) -> None:
    """Every parser under ``parser`` formats with :class:`HelpFormatter`, and a subcommand without a description
    takes its one-line help as one (``edge-agent entities list -h`` says what the command does)."""
    parser.formatter_class = HelpFormatter
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            said = {choice.dest: choice.help for choice in action._choices_actions}
            for name, sub in action.choices.items():
                text = said.get(name)
                if sub.description is None and text:
                    sub.description = text[0].upper() + text[1:] + "."
                finish_help(sub)


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


#: The commands that show what the cameras recorded: the first time one opens a memory that is new (made now) or
#: holds no clip, it says where that memory is, in one line on stderr (a new user's first question made an empty
#: memory in the per-user folder without a word). ``ask`` says so in its answer, ingest and watch in their report;
#: hub and frigate name their memory anyway; rules and people are set up before any clip.
SHOWS_MEMORY = frozenset({"chat", "entities", "places", "alerts", "memory", "serve", "mcp"})
INGEST_FIRST = "ingest a recording first (edge-agent ingest VIDEO --camera NAME)"


def empty_memory(home: Path, *, new: bool) -> str:
    """'memory at HOME is new and empty: ingest a recording first (...)', or '... holds no clips yet: ...'."""
    return f"memory at {home} {'is new and empty' if new else 'holds no clips yet'}: {INGEST_FIRST}"


def holds_clips(store: Any) -> bool:
    from edge_agent.memory import queries

    return queries.last_clip_end(store) is not None


class CommandRuntime(Runtime):
    """The runtime of one command: as :class:`Runtime`, and a command of :data:`SHOWS_MEMORY` opening a new or
    empty memory names its folder (once, however often it opens memory)."""

    command: str | None = None
    _said = False

    def memory_is_new(self) -> bool:
        """No memory is in the home yet: the next opening makes one."""
        from edge_agent.memory.store import DATABASE_FILE

        return not (self.home / DATABASE_FILE).exists()

    def store(self, *, mode: str = "write", check: bool = True) -> Any:
        new = self.memory_is_new()
        store = super().store(mode=mode, check=check)
        if self.command in SHOWS_MEMORY and not self._said:
            self._said = True
            try:
                empty = new or not holds_clips(store)
            except BaseException:
                store.close()
                raise
            if empty:
                print(f"edge-agent: {empty_memory(self.home, new=new)}", file=sys.stderr)
        return store


def runtime(args: argparse.Namespace, **overrides: object) -> CommandRuntime:
    """The runtime of the options given (``overrides`` replace areas of the configuration)."""
    rt = CommandRuntime.load(home=args.home, config=args.config, models=args.models, **overrides)
    assert isinstance(rt, CommandRuntime)
    rt.command = getattr(args, "command", None)
    return rt


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


#: The exit status of a command that needs --yes and was not given it where no terminal can ask (a rule read and
#: shown back, an erasure described): nothing was changed, and nothing went wrong. 1 stays an error, 2 a usage error.
NEEDS_CONFIRMATION = 3


def confirm_help(what: str) -> str:
    """The help of a --yes option, with the exit status it saves a script from reading as a failure."""
    return (
        f"confirm: {what}. Without it nothing is changed: what would be done is shown and the exit status is "
        f"{NEEDS_CONFIRMATION} (1 is an error, 2 a usage error)"
    )


def unconfirmed(text: str) -> int:
    """Says what would be done and that --yes does it, on stdout (it is no error): :data:`NEEDS_CONFIRMATION`."""
    print(text)
    return NEEDS_CONFIRMATION


def count(n: int, noun: str, plural: str | None = None) -> str:
    """'1 observation', '2 observations', '0 entities' (with ``plural`` given)."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


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
