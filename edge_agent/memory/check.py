"""``memory check``: is the memory sound? SQLite's integrity_check and foreign-key check, then the
memory's own invariants: every observation has its appearance vector and its crop, every keyframe file
exists, the full-text indexes match what they index, and nothing (vector, reference, file) is left
pointing at what is gone. Then the files made from memory under ``<home>/index/``, each read whole against the size
and checksum its manifest keeps (memory/derived.py): a damaged one loses nothing, it is made again when next used."""

from __future__ import annotations

import json
import os
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from edge_agent.memory import derived
from edge_agent.memory.store import Store

__all__ = ["CheckReport", "check"]


@dataclass
class CheckReport:
    path: str
    integrity: list[str] = field(default_factory=list)  #: SQLite's findings ([] when the file is sound)
    problems: list[str] = field(default_factory=list)  #: broken invariants: memory is missing something
    notes: list[str] = field(default_factory=list)  #: harmless leftovers that retention sweeps
    counts: dict[str, int] = field(default_factory=dict)
    index: list[str] = field(default_factory=list)  #: damaged files under index/ (made again from memory when used)

    @property
    def ok(self) -> bool:
        return not self.integrity and not self.problems and not self.index


def _ids(store: Store, sql: str) -> list[int]:
    return [int(r[0]) for r in store.db.query(sql)]


def _sample(ids: list[int]) -> str:
    return ", ".join(map(str, ids[:5])) + (" ..." if len(ids) > 5 else "")


def check(store: Store) -> CheckReport:
    """Checks the open memory (open it with ``check=False`` so a damaged file can still be examined)."""
    report = CheckReport(store.db.path)
    report.index, report.notes = _derived(store.home / "index")
    report.integrity = store.db.integrity_check()
    report.integrity += store.db.vector_findings() if not report.integrity else []  # sqlite-vec checks none itself
    if report.integrity:  # the rest reads the damaged tables: say only what SQLite found
        return report
    db = store.db
    report.integrity += [
        f"foreign key: {table} row {rowid} points at a missing {parent}"
        for table, rowid, parent, _ in db.query("PRAGMA foreign_key_check")
    ][:20]
    report.counts = {
        t: int(db.value(f"SELECT count(*) FROM {t}")) for t in ("clips", "observations", "entities", "episodes")
    }

    for space_id, _ in store.vector_tables():
        missing = _ids(
            store,
            f"SELECT id FROM observations WHERE space_id = {space_id} "
            f"AND id NOT IN (SELECT observation_id FROM vec_obs_{space_id})",
        )
        if missing:
            report.problems.append(
                f"{len(missing)} observations have no appearance vector (space {space_id}): {_sample(missing)}"
            )
        stray = _ids(
            store,
            f"SELECT observation_id FROM vec_obs_{space_id} WHERE observation_id NOT IN (SELECT id FROM observations)",
        )
        if stray:
            report.notes.append(f"{len(stray)} appearance vectors of deleted observations (space {space_id})")
        refs = _ids(
            store,
            f"SELECT observation_id FROM vec_ref_{space_id} WHERE observation_id NOT IN "
            "(SELECT observation_id FROM entity_refs)",
        )
        if refs:
            report.notes.append(f"{len(refs)} reference vectors no entity uses (space {space_id})")
    no_ref_vector = [
        (o, s)
        for o, s in db.query(
            "SELECT r.observation_id, o.space_id FROM entity_refs r JOIN observations o ON o.id = r.observation_id"
        )
        if db.query_one(f"SELECT 1 FROM vec_ref_{int(s)} WHERE observation_id = ?", (o,)) is None
    ]
    if no_ref_vector:
        report.problems.append(
            f"{len(no_ref_vector)} entity references have no vector: {_sample([o for o, _ in no_ref_vector])}"
        )
    empty = _ids(
        store,
        "SELECT id FROM entities WHERE id NOT IN (SELECT entity_id FROM observations WHERE entity_id IS NOT NULL)",
    )
    if empty:
        report.notes.append(f"{len(empty)} entities without observations: {_sample(empty)}")

    for fts, table, column in (("observation_fts", "observations", "description"), ("episode_fts", "episodes", "text")):
        if not _fts_matches(store, fts, table, column):
            report.problems.append(f"the full-text index {fts} does not match {table}.{column}")
    for table, owner in (("vec_text_observation", "observations"), ("vec_text_episode", "episodes")):
        if table in store.text_vector_tables():
            stray = _ids(store, f"SELECT item_id FROM {table} WHERE item_id NOT IN (SELECT id FROM {owner})")
            if stray:
                report.notes.append(f"{len(stray)} text vectors of deleted {owner}")

    referenced = store.media_files()
    missing_files = [p for p in referenced if not store.media_path(p).is_file()]
    if missing_files:
        report.problems.append(
            f"{len(missing_files)} media files are missing from {store.media_dir}: "
            + ", ".join(missing_files[:3])
            + (" ..." if len(missing_files) > 3 else "")
        )
    gone = set(missing_files)
    damaged = [p for p in referenced if p not in gone and not _whole_jpeg(store.media_path(p))]
    if damaged:
        report.problems.append(
            f"{len(damaged)} media files are damaged (not a whole JPEG): "
            + ", ".join(damaged[:3])
            + (" ..." if len(damaged) > 3 else "")
        )
    known = set(referenced)
    unreferenced = sum(
        1
        for root, _, files in os.walk(store.media_dir)
        for name in files
        if os.path.relpath(os.path.join(root, name), store.media_dir) not in known
    )
    if unreferenced:
        report.notes.append(f"{unreferenced} media files nothing refers to (`memory prune` sweeps them)")
    bad_keyframes = [c for c, k in db.query("SELECT id, keyframes FROM clips") if not isinstance(json.loads(k), list)]
    if bad_keyframes:
        report.problems.append(f"{len(bad_keyframes)} clips have an unreadable keyframe list: {_sample(bad_keyframes)}")
    report.counts["media_files"] = len(referenced)
    return report


def _derived(index: Path) -> tuple[list[str], list[str]]:
    """(damaged files, notes) under ``index``: each file a manifest there names (the graph's ``current.json``, a
    vector table's ``manifest.json``, its tail's record) against its record, read whole; each ``.npz`` read whole
    (its members' CRC-32s)."""
    if not index.is_dir():
        return [], []
    cure = "it is made again from memory when next used (nothing is lost)"
    damaged, notes = [], []
    for manifest in sorted(index.glob("*/*.json")):
        if manifest.parent.name.startswith(derived.DAMAGED) or manifest.name == derived.VERIFIED:
            continue
        try:
            files = json.loads(manifest.read_text()).get("files")
        except (OSError, ValueError, AttributeError) as exc:
            damaged.append(f"{manifest} is unreadable ({exc}): {cure}")
            continue
        if not isinstance(files, dict):
            notes.append(
                f"{manifest} keeps no checksums (written by an earlier version): they are added when next used"
            )
            continue
        damaged += [
            f"{d}: {cure}"
            for name in files
            if (d := derived.damage(manifest.parent, {name: files[name]}, sealed=False))
        ]
    for archive in sorted(index.glob("*.npz")):
        try:
            with open(archive, "rb") as f, np.load(f, allow_pickle=False) as members:  # closed even when damaged
                for name in members.files:
                    members[name]
        except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
            damaged.append(f"{archive} is not what was written ({str(exc).split('. ')[0]}): {cure}")
    aside = sorted(p.name for p in index.glob(f"{derived.DAMAGED}*"))
    if aside:
        notes.append(f"damaged index files were set aside in {index} ({', '.join(aside)}): delete them once looked at")
    return damaged, notes


def _whole_jpeg(path: Path) -> bool:
    """Whether a picture memory wrote is still a whole JPEG: its start and end markers (two reads of two bytes: a
    year's million crops are checked in seconds; a picture changed within is found only by decoding it)."""
    try:
        with open(path, "rb") as f:
            head = f.read(2)
            f.seek(-2, os.SEEK_END)
            return head == b"\xff\xd8" and f.read(2) == b"\xff\xd9"
    except OSError:
        return False


def _fts_matches(store: Store, fts: str, table: str, column: str) -> bool:
    """FTS5's own integrity-check (index against its content table); where the memory cannot be written
    (the check is issued as an INSERT), a comparison of row counts."""
    if not store.readonly:
        try:
            store.db.execute(f"INSERT INTO {fts} ({fts}, rank) VALUES ('integrity-check', 1)")
            return True
        except Exception:  # noqa: BLE001 - the driver's CorruptError / SQLError: the index does not match
            return False
    indexed = int(store.db.value(f"SELECT count(*) FROM {fts}"))
    return indexed == int(store.db.value(f"SELECT count(*) FROM {table}"))
