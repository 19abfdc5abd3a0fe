"""Every command's help (issue 40): each argument described, each command with a description and examples, and
every example parsed by the real parser, so that an example cannot go stale when an option changes. Shared options
say what is true of the command they are under."""

from __future__ import annotations

import argparse
import shlex

import pytest

from edge_agent.cli import build_parser
from edge_agent.cli.common import HelpFormatter, examples

SHELL = {"<", ">", "|", "||", "&&", ";", "2>"}  # an example may read a file, write one or go on in the shell


def _parsers(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """(command words, parser) of the top parser and every subcommand under it."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, (*path, name))


def _leaf(parser: argparse.ArgumentParser) -> bool:
    return not any(isinstance(a, argparse._SubParsersAction) for a in parser._actions)


PARSERS = list(_parsers(build_parser()))
COMMANDS = [(path, parser) for path, parser in PARSERS if path and _leaf(parser)]
IDS = [" ".join(path) or "edge-agent" for path, _ in PARSERS]


def _examples(parser: argparse.ArgumentParser) -> list[str]:
    return [line.strip() for line in (parser.epilog or "").splitlines() if line.strip().startswith("edge-agent ")]


EXAMPLES = [(path, line) for path, parser in PARSERS for line in _examples(parser)]


@pytest.mark.parametrize(("path", "parser"), PARSERS, ids=IDS)
def test_every_argument_is_described(path, parser):
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        if isinstance(action, argparse._SubParsersAction):  # its commands are listed, each with its line
            undescribed = [c.dest for c in action._choices_actions if not (c.help or "").strip()]
            assert not undescribed, f"{' '.join(path)}: commands without help: {undescribed}"
            continue
        name = "/".join(action.option_strings) or action.dest
        assert (action.help or "").strip(), f"{' '.join(path) or 'edge-agent'} {name} has no help"


@pytest.mark.parametrize(("path", "parser"), COMMANDS, ids=[" ".join(p) for p, _ in COMMANDS])
def test_every_command_has_a_description_and_examples(path, parser):
    assert (parser.description or "").strip(), f"{' '.join(path)} has no description"
    lines = _examples(parser)
    assert len(lines) >= 2, f"{' '.join(path)} has {len(lines)} examples"
    own = [line for line in lines if _parse(line)[: len(path)] == path]
    assert own, f"{' '.join(path)}: no example of the command itself (others may show what follows it)"
    assert parser.formatter_class is HelpFormatter
    text = parser.format_help()
    assert all(line in text for line in lines)  # kept as written, not wrapped


def _parse(line: str) -> tuple[str, ...]:
    """The command words an example line runs (what follows a shell operator left out); SystemExit where the
    parser refuses it."""
    words = shlex.split(line, comments=True)[1:]
    for i, word in enumerate(words):
        if word in SHELL:
            words = words[:i]
            break
    args = build_parser().parse_args(words)
    assert hasattr(args, "handler"), line
    return tuple(w for w in (args.command, getattr(args, "target", None) or getattr(args, "action", None)) if w)


@pytest.mark.parametrize(("path", "line"), EXAMPLES, ids=[line for _, line in EXAMPLES])
def test_every_example_is_taken_by_the_parser(path, line, capsys):
    try:
        _parse(line)
    except SystemExit:
        pytest.fail(f"{line}: {capsys.readouterr().err.strip()}")


def _help(*path: str) -> dict[str, str]:
    """Each option's (or positional's) help under one command."""
    parser = dict(PARSERS)[path]
    return {("/".join(a.option_strings) or a.dest): a.help or "" for a in parser._actions}


def test_shared_options_say_what_is_true_of_each_command():
    ingest, watch = _help("ingest"), _help("watch")
    assert "recording" not in watch["--drain"].split(";")[0] or "by itself" in watch["--drain"]
    assert "Ctrl-C" in watch["--drain"] and ingest["--drain"] != watch["--drain"]
    assert watch["source"] != ingest["source"] and "camera index" in watch["source"]
    assert "keeps nothing there" in _help("models", "list")["--home"]
    assert "keeps nothing there" in _help("bench", "ingest")["--home"]
    assert "keeps nothing" not in _help("ask")["--home"] and "memory folder" in _help("ask")["--home"]
    assert _help("hub")["--port"].startswith("with --serve") and not _help("serve")["--port"].startswith("with")


def test_the_formatter_keeps_examples_and_wraps_the_rest():
    parser = argparse.ArgumentParser(
        prog="x",
        description="word " * 40,
        epilog=examples("# what it does", "edge-agent x --a-long-option-name VALUE --another-long-option VALUE " * 2),
        formatter_class=HelpFormatter,
    )
    text = parser.format_help()
    assert "  edge-agent x --a-long-option-name VALUE --another-long-option VALUE edge-agent" in text
    assert max(len(line) for line in text.split("examples:")[0].splitlines()) <= 80
