"""``edge-agent memory``: its size, retention, integrity, backups and putting one back."""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from edge_agent.cli.common import byte_size, emit, examples, fail, number, runtime, utc

__all__ = ["register"]


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    memory = commands.add_parser("memory", help="size, retention, integrity and backups of the memory")
    actions = memory.add_subparsers(dest="action", metavar="ACTION", required=True)
    stats = actions.add_parser(
        "stats",
        parents=[common],
        help="rows, bytes, schema and driver",
        description="Where the memory is, its rows per table, its bytes (database and pictures), its schema "
        "version and the SQLite driver and extensions it runs on.",
        epilog=examples("edge-agent memory stats", "edge-agent --home demo-home memory stats --json"),
    )
    check = actions.add_parser(
        "check",
        parents=[common],
        help="SQLite's integrity check and the memory's own invariants (exit 1 if damaged)",
        description="Reads the whole memory: SQLite's integrity and foreign-key checks, the memory's own invariants "
        "(every observation's vector and crop, every keyframe file, the full-text indexes) and the index files "
        "under <home>/index; says what is damaged and the cure. Exit status 1 when damaged or missing something.",
        epilog=examples(
            "edge-agent memory check",
            "# in a script: the exit status, and the report as JSON",
            "edge-agent --home demo-home memory check --json > check.json || echo damaged",
        ),
    )
    backup = actions.add_parser(
        "backup",
        parents=[common],
        help="copy the memory (a consistent snapshot, even while ingest runs) and its media",
        epilog=examples(
            "edge-agent memory backup /mnt/usb/edge-agent-2026-03-02",
            "# a dated folder in the configuration's [backup] folder, keeping its [backup] keep newest",
            "edge-agent memory backup --config edge-agent.toml",
        ),
    )
    backup.add_argument(
        "path",
        type=Path,
        nargs="?",
        metavar="PATH",
        help="a new folder for the backup (default: a dated folder in the configuration's [backup] folder)",
    )
    restore = actions.add_parser(
        "restore",
        parents=[common],
        help="put a backup back (the memory it replaces is moved aside, not deleted)",
        epilog=examples(
            "edge-agent memory restore /mnt/usb/edge-agent-2026-03-02",
            "# into another folder, to look at an old memory beside the current one",
            "edge-agent --home old-memory memory restore /mnt/usb/edge-agent-2026-03-02 --json",
        ),
    )
    restore.add_argument("path", type=Path, metavar="PATH", help="a folder made by `memory backup`")
    prune = actions.add_parser(
        "prune",
        parents=[common],
        help="enforce a cap in bytes and/or days, oldest first (media before records)",
        epilog=examples(
            "# what a 20 GB cap would delete, deleting nothing",
            "edge-agent memory prune --max-bytes 20G --dry-run",
            "edge-agent memory prune --max-bytes 20G --max-age-days 90",
        ),
    )
    prune.add_argument("--max-bytes", type=byte_size, help="cap on database + media, e.g. 500M or 20G")
    prune.add_argument(
        "--max-age-days", type=number(float, 0, 36525, above=True), help="delete clips older than this many days"
    )
    prune.add_argument(
        "--dry-run", action="store_true", help="show what would go (measured, then rolled back); delete nothing"
    )
    prune.add_argument(
        "--include-named",
        action="store_true",
        help="let named entities go too (by default the clips of their references and latest sighting stay)",
    )
    for sub, handler in ((stats, _stats), (check, _check), (backup, _backup), (restore, _restore), (prune, _prune)):
        sub.add_argument("--json", action="store_true", help="print JSON instead of text")
        sub.set_defaults(handler=handler)


def _stats(args: argparse.Namespace) -> int:
    from edge_agent.memory import retention

    with runtime(args).store(mode="read") as store:
        out: dict[str, Any] = {
            "home": str(store.home),
            "schema_version": store.schema_version,
            "driver": store.driver,
            "sqlite_vec": store.sqlite_vec_version,
            "candidate_index": store.config.index,
            "readonly": store.readonly,
            "bytes": retention.usage(store),
            "rows": store.counts(),
        }
    text = "\n".join(
        [f"{k}: {v}" for k, v in out.items() if k != "rows"] + [f"  {k}: {v}" for k, v in out["rows"].items()]
    )
    return emit(args, out, text)


def _prune(args: argparse.Namespace) -> int:
    from edge_agent.memory import StorageFullError, retention
    from edge_agent.memory.db import free_bytes, human_bytes

    if args.max_bytes is None and args.max_age_days is None:
        return fail("give --max-bytes and/or --max-age-days")
    rt = runtime(args)
    policy = retention.RetentionPolicy(args.max_bytes, args.max_age_days)
    try:
        store = rt.store()
    except StorageFullError:
        if args.dry_run:
            raise
        with rt.store(mode="read") as reader:  # a disk full to the last byte: the pictures going anyway go first
            freed = retention.free_pictures(reader, policy, include_named=args.include_named)
        if not freed:
            raise
        store = rt.store()
    with store:
        try:
            report = retention.enforce(store, policy, dry_run=args.dry_run, include_named=args.include_named)
        except StorageFullError:
            waiting = max(0, store.growth_bytes())  # committed in the WAL, not yet in memory.db (an older version)
            first = f"memory.db must first take in {human_bytes(waiting)} waiting in its journal, " if waiting else ""
            raise StorageFullError(
                f"the disk holding {rt.home} is too full for `memory prune` to record what it deletes "
                f"({human_bytes(free_bytes(rt.home))} free once the pictures going were deleted; {first}each step's "
                "journal needs up to a few MiB): free some space on that disk, then run it again (what it deleted so "
                "far stays deleted)"
            ) from None
    verb = "would be deleted (dry run, nothing deleted)" if report.dry_run else "deleted"
    span = f"; clips from {utc(report.deleted_from)} to {utc(report.deleted_to)} UTC" if report.clips_deleted else ""
    text = (
        f"{report.bytes_before} -> {report.bytes_after} bytes: {report.media_files_deleted} media files "
        f"({report.media_bytes_deleted} bytes), {report.clips_deleted} clips, "
        f"{report.observations_deleted} observations, {report.entities_deleted} entities {verb}, "
        f"{report.orphans_removed} orphans swept{span}"
        + (f"; {report.clips_protected} clips kept for named entities" if report.clips_protected else "")
    )
    emit(args, asdict(report), text)
    if not report.cap_reached:
        print(f"edge-agent: error: the cap of {args.max_bytes} bytes was not reached: {report.reason}", file=sys.stderr)
        return 2
    return 0


def _restore(args: argparse.Namespace) -> int:
    from edge_agent.memory import backup

    home = runtime(args).home
    report = backup.restore(home, args.path)
    return emit(
        args,
        asdict(report),
        f"restored {args.path} into {home}: {report.counts['clips']} clips, {report.counts['observations']} "
        f"observations, {report.counts['entities']} entities, {report.media_files} media files"
        + (f"; the memory it replaced is in {report.replaced}" if report.replaced else ""),
    )


def _backup(args: argparse.Namespace) -> int:
    from edge_agent.memory import backup

    rt = runtime(args)
    if args.path is None and rt.config.backup.folder is None:
        return fail("give a PATH for the backup, or set [backup] folder in the configuration")
    with rt.store(mode="read", check=False) as store:
        if args.path is None:
            assert rt.config.backup.folder is not None
            made = backup.scheduled(store, rt.config.backup.folder, 0.0, rt.config.backup.keep)
            assert made is not None  # every_hours 0: always due
        else:
            made = backup.backup(store, args.path)
    return emit(
        args,
        asdict(made),
        f"backed up {rt.home} into {made.path}: {made.counts['clips']} clips, {made.counts['observations']} "
        f"observations, {made.media_files} media files ({made.media_missing} gone meanwhile), database "
        f"{made.database_bytes} bytes",
    )


def _check(args: argparse.Namespace) -> int:
    from edge_agent.memory import check

    with runtime(args).store(mode="read", check=False) as store:
        report = check.check(store)
    state = (
        "DAMAGED"
        if report.integrity
        else "incomplete"
        if report.problems
        else "index damaged"
        if report.index
        else "sound"
    )
    lines = [f"{report.path}: {state}"]
    lines += [f"  integrity: {p}" for p in report.integrity[:10]]
    lines += [f"  integrity: ... {len(report.integrity) - 10} more"] if len(report.integrity) > 10 else []
    lines += [f"  problem: {p}" for p in report.problems] + [f"  index: {p}" for p in report.index]
    lines += [f"  note: {p}" for p in report.notes] + [f"  {k}: {v}" for k, v in report.counts.items()]
    if report.integrity or report.problems:
        lines.append("  cure: `edge-agent memory restore BACKUP` puts a backup back (the damaged memory is kept aside)")
    elif report.index:
        lines.append("  cure: none needed: the next question sets the damaged index files aside and makes them again")
    emit(args, {**asdict(report), "ok": report.ok}, "\n".join(lines))
    return 0 if report.ok else 1
