"""``edge-agent rules`` and ``alerts``: rules read from a sentence (or JSON), shown back and stored once
confirmed; replayed over memory without sending; the alerts they raised with each sink's delivery."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from edge_agent.cli.common import (
    NEEDS_CONFIRMATION,
    count,
    emit,
    examples,
    number,
    parse_time,
    positive_int,
    row_id,
    runtime,
    unconfirmed,
    utc,
)
from edge_agent.runtime import Runtime

__all__ = ["register"]


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    rules = commands.add_parser("rules", help="rules that raise alerts: 'notify me when the dog is on the sofa'")
    actions = rules.add_subparsers(dest="action", metavar="ACTION", required=True)
    add = actions.add_parser(
        "add",
        parents=[common],
        help="read a rule (a sentence, or --json-predicate), show it back, store it once confirmed",
        epilog=examples(
            "# read, shown back, stored once you say y",
            'edge-agent rules add "notify me when the dog is on the sofa"',
            'edge-agent rules add "an unknown person appears for the third time this week" --yes --cooldown 3600',
            "edge-agent rules add porch --json-predicate "
            """'{"subject": "person", "relation": "in", "object_type": "zone", "zone": [0, 200, 320, 360], """
            """"camera": "porch"}' --yes""",
        ),
    )
    add.add_argument("text", help="the rule in words, or its predicate as a JSON object")
    add.add_argument(
        "--json-predicate",
        dest="predicate",
        metavar="JSON",
        help="the predicate as JSON (TEXT is then only the rule's name)",
    )
    add.add_argument(
        "--cooldown",
        type=number(float, 0),
        metavar="SECONDS",
        help="quiet time after an alert, per subject (default: [rules] cooldown_s)",
    )
    add.add_argument(
        "--parser", choices=["auto", "phrases", "llm"], help="how to read the sentence (default: [rules] parser)"
    )
    add.add_argument("--model", type=Path, help="GGUF chat model of the LLM parser")
    add.add_argument(
        "--yes",
        action="store_true",
        help="store it without asking. Without --yes a terminal asks; with none to ask on (a script, a pipe) the "
        f"rule is shown as read, not stored, and the exit status is {NEEDS_CONFIRMATION} (1: an error, 2: a usage "
        "error)",
    )
    listing = actions.add_parser(
        "list",
        parents=[common],
        help="the rules in force",
        epilog=examples("edge-agent rules list", "edge-agent rules list --all --json"),
    )
    listing.add_argument("--all", action="store_true", help="also the removed ones")
    remove = actions.add_parser(
        "remove",
        parents=[common],
        help="stop a rule (its alerts stay listed)",
        epilog=examples("edge-agent rules remove 2", "edge-agent rules remove 2 --json"),
    )
    remove.add_argument("rule", type=row_id, help="the rule's id, as `rules list` shows it")
    test = actions.add_parser(
        "test",
        parents=[common],
        help="replay a rule (an id, a sentence or JSON) over what memory holds; sends nothing",
        epilog=examples(
            "edge-agent rules test 2",
            "# a rule not stored yet, over the clips since a time",
            'edge-agent rules test "tell me when a person is on street" --since 2026-03-02T00:00:00Z --json',
        ),
    )
    test.add_argument("rule", help="a rule id, or a rule as for add")
    test.add_argument("--since", help="only clips from this time on (ISO 8601)")
    alerts = commands.add_parser("alerts", help="the alerts rules have raised")
    alert_actions = alerts.add_subparsers(dest="action", metavar="ACTION", required=True)
    alert_list = alert_actions.add_parser(
        "list",
        parents=[common],
        help="alerts, newest first, with their deliveries",
        epilog=examples("edge-agent alerts list", "edge-agent alerts list --rule 2 --limit 10 --json"),
    )
    alert_list.add_argument("--rule", type=row_id, help="only this rule's (its id)")
    alert_list.add_argument("--limit", type=positive_int, default=50, help="how many to list, newest first (50)")
    for sub in (add, listing, remove, test, alert_list):
        sub.add_argument("--json", action="store_true", help="print JSON instead of text")
        sub.set_defaults(handler=run)


def _alert_line(a: Any) -> str:
    sent = ", ".join(
        f"{d['sink']}: {d['status']}" + (f" ({d['error']})" if d["error"] and d["status"] != "sent" else "")
        for d in a.deliveries
    )
    return f"alert {a.id} rule {a.rule_id} {utc(a.t)} UTC  {a.message}" + (f"  [{sent}]" if sent else "")


def _reader(rt: Runtime, known: Any) -> Any:
    """Reads rules that may name only what ``known`` (a :class:`edge_agent.rules.book.Vocabulary`) holds."""
    from edge_agent.perception.detect import ModelError
    from edge_agent.rules.parse import RuleParseError, parse_rule

    places, names, categories, cameras = known.places, known.names, known.categories, known.cameras

    def read(text: str, predicate: str | None = None, parser: str | None = None, model: Path | None = None) -> Any:
        """JSON as given; else the reader, then the LLM (loaded only when needed, and only where the reader found no
        relation or subject: a word memory does not know is refused with the reader's reason)."""
        if predicate is not None:
            return parse_rule(predicate, places=places, names=names, categories=categories, mode="json")
        mode = parser or rt.config.rules.parser
        unread: RuleParseError | None = None
        if mode != "llm":
            try:
                return parse_rule(
                    text,
                    places=places,
                    names=names,
                    categories=categories,
                    cameras=cameras,
                    mode="auto" if mode == "auto" else "phrases",
                )
            except RuleParseError as exc:
                if mode == "phrases" or text.lstrip().startswith("{") or exc.final:
                    raise
                unread = exc
        try:
            llm = rt.llm(model or rt.config.rules.model, n_ctx=1024)
        except ModelError as exc:
            if unread is not None:
                raise unread from None
            raise RuleParseError(
                f"the LLM parser is unavailable: {exc}; give the predicate with --json-predicate"
            ) from None
        try:
            return parse_rule(
                text, places=places, names=names, categories=categories, cameras=cameras, llm=llm, mode="llm"
            )
        except RuleParseError:
            if unread is not None:
                raise unread from None  # the reader's reason, never the model's validation errors
            raise

    return read


def _shown(text: str, predicate: Any) -> str:
    """A rule read back: the text, the reading (saying a person word it read as any person), the predicate."""
    from edge_agent.language.rules import read_as_any_person
    from edge_agent.rules.predicate import describe

    anyone = read_as_any_person(text) if predicate.subject == "person" else ()
    said = ", ".join(repr(w) for w in anyone)
    note = f"\n(reading {said} as any person: memory does not tell sex or age)" if anyone else ""
    return (
        f"rule: {text}\nreads as: {describe(predicate)}{note}\n"
        f"predicate: {predicate.model_dump_json(exclude_defaults=True)}"
    )


def run(args: argparse.Namespace) -> int:
    """rules add | list | remove | test, alerts list."""
    from edge_agent.memory import queries
    from edge_agent.rules import book
    from edge_agent.rules.alerting import settings_of
    from edge_agent.rules.predicate import describe
    from edge_agent.rules.resolver import Resolver

    rt = runtime(args)
    config = rt.config
    reading = args.command == "alerts" or args.action == "list"
    with rt.store(mode="read" if reading else "write") as store:
        if args.command == "alerts":
            found = book.alerts(store, rule_id=args.rule, limit=args.limit)
            return emit(args, [asdict(a) for a in found], "\n".join(map(_alert_line, found)) or "no alerts yet")
        if args.action == "list":
            rules = book.rules(store, removed=args.all)
            return emit(
                args,
                [r.as_dict() for r in rules],
                "\n".join(
                    f"rule {r.id}{' (removed)' if r.removed_at else ''}: {r.text}\n  {describe(r.predicate)}; "
                    f"cooldown {r.cooldown_s:g} s"
                    for r in rules
                )
                or "no rules",
            )
        if args.action == "remove":
            rule = book.remove_rule(store, args.rule, caller=f"cli (uid {os.getuid()})")
            return emit(args, rule.as_dict(), f"removed rule {rule.id}: {rule.text} (its alerts stay listed)")
        read = _reader(rt, book.vocabulary(store, config.zones))
        if args.action == "add":
            predicate = read(args.text, args.predicate, args.parser, args.model)
            shown = _shown(args.text, predicate)
            if not args.yes:
                if not sys.stdin.isatty():  # a script: the reading is its answer, and no error
                    if args.json:
                        unstored = {"stored": False, "text": args.text, "reads_as": describe(predicate)}
                        emit(args, {**unstored, "predicate": predicate.model_dump(exclude_defaults=True)}, "")
                        return NEEDS_CONFIRMATION
                    return unconfirmed(f"{shown}\nNot stored yet (no terminal to ask on): add --yes to store it.")
                print(shown)
                if input("store this rule? [y/N] ").strip().lower() not in ("y", "yes"):
                    print("not stored")
                    return 1
            cooldown = args.cooldown if args.cooldown is not None else config.rules.cooldown_s
            rule = book.add_rule(store, args.text, predicate, cooldown_s=cooldown)
            return emit(args, rule.as_dict(), f"{shown}\nstored as rule {rule.id}")
        # test: a stored rule replayed over all of memory (not only what came after it), or one not stored
        rule = (
            replace(book.get_rule(store, int(args.rule)), after_clip=0)
            if args.rule.isdigit()
            else book.Rule(0, args.rule, read(args.rule), config.rules.cooldown_s, 0.0, 0)
        )
        since = parse_time(args.since, "--since")
        first = 0 if since is None else queries.last_clip_before(store, since)
        resolver = Resolver(store, zones=config.zones, settings=settings_of(config), dry_run=True)
        found = resolver.process(rule_set=[rule], since_clip=first)
        brief = [
            f"  not raised: {store.entity(entity_id).category} #{entity_id} was seen on "
            f"{count(frames, 'sampled frame')}; a rule fires once its condition holds on "
            f"{resolver.settings.persist_frames} ([rules] persist_frames)"
            for _, entity_id, frames in resolver.unconfirmed()[:5]
        ]
        return emit(
            args,
            [asdict(a) for a in found],
            "\n".join(
                [f"{describe(rule.predicate)}: {count(len(found), 'alert')} over memory"]
                + [f"  {utc(a.t)} UTC  {a.message}" for a in found]
                + brief
            ),
        )
