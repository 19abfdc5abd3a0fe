"""Backups of the memory and putting one back. A backup is a folder: ``memory.db`` copied with SQLite's
online backup (one consistent snapshot, taken while ingest goes on), the media files that snapshot refers
to, and ``backup.json`` saying what it holds. Restoring checks the backup first, copies it beside the memory,
then moves the memory it replaces into a new folder of its own (``<home>/replaced-<time>/``), never deleting
it; it refuses while another process has the memory open. Scheduled backups (``[backup]`` in the
configuration) keep the newest few."""

from __future__ import annotations

import calendar
import contextlib
import errno
import fcntl
import hashlib
import json
import os
import shutil
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from edge_agent.memory.db import (
    CorruptMemoryError,
    Database,
    DatabaseError,
    StorageFullError,
    free_bytes,
    human_bytes,
)
from edge_agent.memory.store import DATABASE_FILE, LOCK_FILE, Store

__all__ = ["BackupError", "BackupReport", "BackupSchedule", "RestoreReport", "backup", "restore", "scheduled"]

MANIFEST = "backup.json"
PREFIX = "memory-"  #: scheduled backups are folders memory-YYYYmmddTHHMMSS.ffffffZ (UTC)
REPLACED = "replaced-"  #: what a restore replaced: <home>/replaced-YYYYmmddTHHMMSS.ffffffZ[-n] (UTC)
STAGING = ".restoring-"  #: a backup being copied into the home, moved in only when whole


class BackupError(DatabaseError):
    """A backup cannot be made or put back; the message says why and what was left as it was."""


@dataclass(frozen=True)
class BackupReport:
    path: str
    created_at: float
    schema_version: int
    database_bytes: int
    database_sha256: str
    media_files: int
    media_bytes: int
    media_missing: int  #: files the snapshot named that were gone (deleted by retention meanwhile)
    counts: dict[str, int]


@dataclass(frozen=True)
class RestoreReport:
    home: str
    source: str
    replaced: str | None  #: where the memory it replaced was moved (None: there was none)
    media_files: int
    counts: dict[str, int]


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _private_dir(path: Path) -> None:
    path.mkdir(mode=0o700, parents=True, exist_ok=True)


def backup(store: Store, destination: str | Path) -> BackupReport:
    """Copies the memory into ``destination`` (a new or empty folder): the database as one snapshot,
    then the media files it names. The copy is integrity-checked before the report is returned."""
    dest = Path(destination)
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise BackupError(f"{dest} already exists and is not an empty folder: give a new folder for the backup")
    try:
        _private_dir(dest)
        database = dest / DATABASE_FILE
        store.db.backup_to(database)
        with Store(dest, check=False) as snapshot:
            problems = snapshot.db.integrity_check(5)
            if problems:
                raise BackupError(
                    f"the backup copy in {dest} fails its integrity check ({'; '.join(problems)}): "
                    "is the memory itself sound? (`edge-agent memory check`)"
                )
            schema = snapshot.db.user_version
            paths = snapshot.media_files()
            counts = {
                t: int(snapshot.db.value(f"SELECT count(*) FROM {t}")) for t in ("clips", "observations", "entities")
            }
            snapshot.db.checkpoint()
        copied = missing = media_bytes = 0
        for relative in paths:
            source, target = store.media_path(relative), dest / "media" / relative
            if not source.is_file():
                missing += 1
                continue
            _private_dir(target.parent)
            shutil.copy2(source, target)
            copied += 1
            media_bytes += target.stat().st_size
        for leftover in (dest / (DATABASE_FILE + "-wal"), dest / (DATABASE_FILE + "-shm"), dest / LOCK_FILE):
            leftover.unlink(missing_ok=True)
        report = BackupReport(
            str(dest),
            time.time(),
            schema,
            database.stat().st_size,
            _sha256(database),
            copied,
            media_bytes,
            missing,
            counts,
        )
        with os.fdopen(os.open(dest / MANIFEST, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600), "w") as manifest:
            manifest.write(json.dumps(asdict(report), indent=2) + "\n")
        return report
    except OSError as exc:
        shutil.rmtree(dest, ignore_errors=True)
        if exc.errno == 28:  # ENOSPC
            raise StorageFullError(
                f"no space left for the backup in {dest} ({human_bytes(free_bytes(dest))} free): "
                "nothing was kept there; the memory is unchanged"
            ) from None
        raise BackupError(
            f"cannot write the backup in {dest}: {exc.strerror or exc}; the memory is unchanged"
        ) from None
    except BaseException:
        shutil.rmtree(dest, ignore_errors=True)
        raise


def _source_database(source: Path) -> Path:
    if source.is_file():
        return source
    if (source / DATABASE_FILE).is_file():
        return source / DATABASE_FILE
    raise BackupError(f"{source} holds no backup (no {DATABASE_FILE}): give the folder `edge-agent memory backup` made")


@contextlib.contextmanager
def _exclusive(home: Path):  # type: ignore[no-untyped-def]
    """The memory's lock, exclusively: no other process has it open while it is replaced."""
    _private_dir(home)
    handle = os.fdopen(os.open(home / LOCK_FILE, os.O_CREAT | os.O_WRONLY | os.O_APPEND, 0o600), "ab")
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BackupError(
                f"the memory in {home} is open in another edge-agent process (watch, serve, ingest): "
                "stop it, then restore"
            ) from None
        yield
    finally:
        handle.close()


def restore(home: str | Path, source: str | Path) -> RestoreReport:
    """Puts the backup in ``source`` back as the memory in ``home``. The backup is checked first, then copied
    into the home beside the memory; the memory it replaces (if any) is moved into a new folder of its own,
    ``<home>/replaced-<time>/``, and the copy moved in. A failure at any step leaves the home as it was."""
    home, source = Path(home), Path(source)
    if source.resolve() in (home.resolve(), (home / DATABASE_FILE).resolve()):
        raise BackupError(
            f"{source} is the memory itself in {home}, not a backup of it: give a folder `edge-agent memory backup` "
            "made; nothing was changed"
        )
    source_db = _source_database(source)
    try:
        with Database(source_db, mode="read", check=False) as candidate:
            problems = candidate.integrity_check(5)
    except CorruptMemoryError as exc:  # too damaged to open at all
        problems = [str(exc.__cause__ or exc).splitlines()[0]]
    if problems:
        raise BackupError(
            f"the backup {source_db} is damaged ({'; '.join(problems)}): not restored, the memory is unchanged"
        )
    source_media = source / "media" if source.is_dir() and (source / "media").is_dir() else None
    media = [p for p in source_media.rglob("*") if p.is_file()] if source_media is not None else []
    needed = source_db.stat().st_size + sum(p.stat().st_size for p in media)
    if free_bytes(home) < needed:
        raise StorageFullError(
            f"restoring needs {human_bytes(needed)} and the disk holding {home} has "
            f"{human_bytes(free_bytes(home))} free: nothing was changed"
        )
    try:
        with _exclusive(home):
            aside = _swap(home, source_db, source_media)
    except OSError as exc:
        if exc.errno == errno.ENOSPC:
            raise StorageFullError(
                f"no space left to restore into {home} ({human_bytes(free_bytes(home))} free): the memory is unchanged"
            ) from None
        if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            raise BackupError(
                f"cannot restore into {home}: the folder is read-only or not writable ({exc.strerror}); "
                "the memory is unchanged"
            ) from None
        raise BackupError(f"cannot restore into {home}: {exc.strerror or exc}; the memory is unchanged") from None
    with Store(home) as store:  # migrates an older backup, and proves it opens
        counts = {t: int(store.db.value(f"SELECT count(*) FROM {t}")) for t in ("clips", "observations", "entities")}
        files = len(store.media_files())
    return RestoreReport(str(home), str(source), None if aside is None else str(aside), files, counts)


def _swap(home: Path, source_db: Path, source_media: Path | None) -> Path | None:
    """Under the exclusive lock: the backup copied into a staging folder in the home, the memory moved into
    a new ``replaced-`` folder, the copy moved in, by renames on one disk; any failure undoes the renames made.
    Returns the folder holding the replaced memory (None: there was none)."""
    for stale in home.glob(STAGING + "*"):  # left by a restore that was killed: copies of a backup, nothing else
        shutil.rmtree(stale, ignore_errors=True)
    staging = Path(tempfile.mkdtemp(prefix=STAGING, dir=home))
    try:
        shutil.copyfile(source_db, staging / DATABASE_FILE)
        wal = source_db.with_name(source_db.name + "-wal")
        if wal.is_file():  # a memory folder kept aside by a restore may hold committed pages there
            shutil.copyfile(wal, staging / (DATABASE_FILE + "-wal"))
        if source_media is not None:
            shutil.copytree(source_media, staging / "media")
        incoming = sorted(p.name for p in staging.iterdir())
        # the indexes beside the database (index/) were made from the memory being replaced: they go with it
        names = (DATABASE_FILE, DATABASE_FILE + "-wal", DATABASE_FILE + "-shm", "media", "index")
        current = [n for n in names if (home / n).exists() or (home / n).is_symlink()]
        aside = _new_folder(home, REPLACED) if current else None
        moves = [(home / n, aside / n) for n in current] if aside is not None else []
        moves += [(staging / n, home / n) for n in incoming]
        done: list[tuple[Path, Path]] = []
        try:
            for before, after in moves:
                os.replace(before, after)
                done.append((before, after))
        except BaseException as exc:
            try:
                for before, after in reversed(done):
                    os.replace(after, before)
                if aside is not None:
                    aside.rmdir()
            except OSError as undo:
                raise BackupError(
                    f"restoring into {home} failed ({exc}) and putting the memory back failed too ({undo}): "
                    f"it is whole in {aside}; move its files back into {home}"
                ) from None
            raise
        return aside
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _new_folder(home: Path, prefix: str) -> Path:
    """A new folder ``<prefix><time>`` in ``home``, never one that exists: two restores in the same microsecond
    get ``-2``, ``-3``, ..."""
    stamp = _stamp(time.time(), prefix)
    folder, n = home / stamp, 1
    while True:
        try:
            folder.mkdir(mode=0o700)
            return folder
        except FileExistsError:
            n += 1
            folder = home / f"{stamp}-{n}"


def _made(folder: Path) -> list[Path]:
    """The complete scheduled backups in ``folder``, oldest first."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_dir() and p.name.startswith(PREFIX) and (p / MANIFEST).is_file())


def _stamp(t: float, prefix: str = PREFIX) -> str:
    """memory-20270115T090000.250000Z: sortable, and two backups a second apart still get their own folder."""
    return f"{prefix}{time.strftime('%Y%m%dT%H%M%S', time.gmtime(t))}.{int(t % 1 * 1e6):06d}Z"


def _made_at(backup_folder: Path) -> float:
    seconds, _, fraction = backup_folder.name[len(PREFIX) :].rstrip("Z").partition(".")
    return calendar.timegm(time.strptime(seconds, "%Y%m%dT%H%M%S")) + float(f"0.{fraction or 0}")


def scheduled(
    store: Store, folder: Path, every_hours: float, keep: int, *, now: float | None = None
) -> BackupReport | None:
    """A backup into ``folder/memory-<time>`` when the newest there is ``every_hours`` old or more; then
    only the newest ``keep`` are kept. None when none was due."""
    now = time.time() if now is None else now
    made = _made(folder)
    if made and now - _made_at(made[-1]) < every_hours * 3600.0:
        return None
    _private_dir(folder)
    report = backup(store, folder / _stamp(now))
    for old in _made(folder)[:-keep]:
        shutil.rmtree(old, ignore_errors=True)
    return report


class BackupSchedule:
    """Scheduled backups during a long ingest (``[backup]``): called after each clip, it looks at the
    backup folder only when the next backup is due."""

    def __init__(self, folder: Path, every_hours: float, keep: int) -> None:
        self.folder, self.every_hours, self.keep = folder, every_hours, keep
        self._due: float | None = None

    def __call__(self, store: Store, *, now: float | None = None) -> BackupReport | None:
        now = time.time() if now is None else now
        if self._due is not None and now < self._due:
            return None
        report = scheduled(store, self.folder, self.every_hours, self.keep, now=now)
        made = _made(self.folder)
        self._due = (_made_at(made[-1]) if made else now) + self.every_hours * 3600.0
        return report
