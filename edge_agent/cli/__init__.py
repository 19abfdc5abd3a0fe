"""The ``edge-agent`` command: argparse (standard library: subcommands and typed options are all it needs, and it
adds no dependency to an embedded install), one module per command group, each a thin layer over the runtime
(as sqlite-utils' commands are over its database layer). Global options (--home, --config, --models) go before or
after the subcommand. The product's named errors (edge_agent.errors.EdgeAgentError) are caught here, once, and
printed as one line with exit status 1."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from types import ModuleType

from edge_agent import __version__
from edge_agent.cli.common import GLOBAL, examples, fail, finish_help, global_options

__all__ = ["COMMANDS", "build_parser", "main"]

#: The command group modules (edge_agent.cli.<name>), in the order of the help.
_GROUPS = (
    "entities",
    "people",
    "things",
    "places",
    "ingest",
    "hub",
    "ask",
    "serve",
    "mcp",
    "demo",
    "memory",
    "models",
    "rules",
    "evaluate",
    "calibrate",
    "bench",
)
#: The groups that keep no memory: their --home only places the models folder.
_TOOLS = ("models", "evaluate", "calibrate", "bench")
#: Each command -> the group module that registers it (a test holds it to the parser): a command runs with its own
#: group alone imported (importing all sixteen cost each question 0.05 to 0.09 s).
COMMANDS = {
    "entities": "entities",
    "people": "people",
    "things": "things",
    "places": "places",
    "ingest": "ingest",
    "watch": "ingest",
    "hub": "hub",
    "frigate": "hub",
    "ask": "ask",
    "chat": "ask",
    "serve": "serve",
    "mcp": "mcp",
    "demo": "demo",
    "memory": "memory",
    "models": "models",
    "rules": "rules",
    "alerts": "rules",
    "eval": "evaluate",
    "calibrate": "calibrate",
    "bench": "bench",
}


def _group(name: str) -> ModuleType:
    return importlib.import_module(f"edge_agent.cli.{name}")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; ``only``: with that group's commands alone (a group module's name)."""
    parser = argparse.ArgumentParser(
        prog="edge-agent",
        description="On-device agent that remembers the physical things a camera sees. Each command has its own "
        "help and examples: edge-agent COMMAND -h.",
        epilog=examples(
            "# a first memory from the generated demo scene (no camera or model needed)",
            "edge-agent demo /tmp/demo-scene",
            "edge-agent --home /tmp/demo-home ingest /tmp/demo-scene/day1 --detector gt --start 2026-03-02T08:00:00Z",
            'edge-agent --home /tmp/demo-home ask "where was the red cup last seen?"',
        ),
    )
    parser.add_argument("--version", action="version", version=f"edge-agent {__version__}")
    global_options(parser, top=True)
    common = argparse.ArgumentParser(add_help=False)
    global_options(common, top=False)
    tools = argparse.ArgumentParser(add_help=False)
    global_options(tools, top=False, memory=False)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _GROUPS if only is None else (only,):
        _group(name).register(commands, tools if name in _TOOLS else common)
    finish_help(parser)
    return parser


def _undecodable(argv: Sequence[str]) -> str | None:
    """The first argument that is not valid UTF-8 (Python hands such bytes over as lone surrogates), shown escaped."""
    for position, arg in enumerate(argv, 1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            raw = arg.encode("utf-8", "surrogateescape")
            return f"argument {position} ({raw!r}) is not valid UTF-8"
    return None


def _command_group(argv: Sequence[str]) -> str | None:
    """The group module of the command ``argv`` runs, read past the global options before it; None where that is
    not plain (help, the version, an option or a command it does not know): the whole parser reads it then."""
    values = [flag for flag, _ in GLOBAL]
    arguments = iter(argv)
    for arg in arguments:
        flag = arg.split("=", 1)[0]
        if not (flag.startswith("--") and len(flag) > 2 and any(v.startswith(flag) for v in values)):
            return COMMANDS.get(arg)
        if "=" not in arg:
            next(arguments, None)  # its value
    return None


def main(argv: Sequence[str] | None = None) -> int:
    from edge_agent.errors import EdgeAgentError

    argv = sys.argv[1:] if argv is None else list(argv)
    bad = _undecodable(argv)
    if bad is not None:
        return fail(f"{bad}: give text in UTF-8")
    parser = build_parser(_command_group(argv))
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        return int(args.handler(args))
    except EdgeAgentError as exc:  # a named failure: one line, what was wrong and the cure
        return fail(str(exc))
    except BrokenPipeError:  # output piped into `head`: the reader left; Python's advice is to point stdout at devnull
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
