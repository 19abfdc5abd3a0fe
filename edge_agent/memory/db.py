"""The memory database: one SQLite file opened through a driver that can load extensions, with
sqlite-vec loaded, WAL, foreign keys, a busy timeout, secure deletion and versioned migrations.

A memory is never silently damaged or lost: the file is checked (quick_check) when it is opened, and, opened to
write, its full-text indexes (rebuilt, with a warning, where damaged: they are made from memory's own text) and the
shape of its vector tables (refused where damaged: vectors are memory itself); the driver's errors for a damaged
file, a full disk and a read-only medium (sqlite-vec's included) become one-line errors that name the file and the
cure, and a memory that cannot be written can still be opened for reading. A transaction that fails on a full disk
gives its journal back (WAL checkpointed and truncated), as does one that leaves a large WAL. The file is
created 0600 in a 0700 folder: it is the user's record of their home.

Driver choice (Frigate's sqlitevecq pattern: one class, a clear message when a piece is missing): the
standard library's ``sqlite3`` where its build can load extensions, else ``apsw`` (a pinned dependency,
bundling a current SQLite). One driver per process: sqlite-vec loaded into two different SQLite
libraries in one process crashes at exit.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import shutil
import stat
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

from edge_agent.errors import EdgeAgentError
from edge_agent.memory.legacy import migrate_to_v3
from edge_agent.memory.schema import MIGRATIONS, SCHEMA_VERSION

log = logging.getLogger(__name__)

__all__ = [
    "CorruptMemoryError",
    "Database",
    "DatabaseError",
    "MissingDependencyError",
    "ReadOnlyMemoryError",
    "StorageFullError",
    "HasDatabase",
    "available_driver",
    "database_of",
    "disk_bytes",
    "human_bytes",
    "make_private",
    "out_of_memory",
]

MIN_SQLITE_VEC = (0, 1, 9)  # older versions never reclaim deleted rows

_process_driver: str | None = None
_driver_lock = threading.Lock()


class DatabaseError(EdgeAgentError, RuntimeError):
    """The memory database cannot be opened or used."""


class MissingDependencyError(DatabaseError):
    """A piece the memory needs (an SQLite driver that loads extensions, sqlite-vec) is missing."""


class CorruptMemoryError(DatabaseError):
    """The memory file is damaged (or is not a memory at all); nothing more is written to it.
    ``virtual_table``: the damage was found by a virtual table (FTS5) in its own data."""

    def __init__(self, path: str, detail: str, *, virtual_table: bool = False) -> None:
        super().__init__(
            f"the memory database {path} is damaged ({detail}): nothing was written to it; "
            "`edge-agent memory check` says what is wrong, `edge-agent memory restore BACKUP` puts a backup back"
        )
        self.path = path
        self.virtual_table = virtual_table


class StorageFullError(DatabaseError):
    """The disk holding the memory is full: what was being written was not stored."""


class ReadOnlyMemoryError(DatabaseError):
    """The memory cannot be written (a read-only medium or folder); reading still works."""


def human_bytes(n: float) -> str:
    """1536 -> '1.5 KiB'."""
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1024
    return f"{n:,.1f} TiB"  # pragma: no cover


def free_bytes(path: str | Path) -> int:
    """Bytes free on the file system holding ``path`` (its nearest existing folder)."""
    folder = Path(path)
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return shutil.disk_usage(folder).free


def disk_bytes(path: str | Path) -> int:
    """The size of the file system holding ``path`` (its nearest existing folder)."""
    folder = Path(path)
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return shutil.disk_usage(folder).total


# SQLite result codes (primary) of the faults that get their own error.
_CORRUPT, _NOTADB, _FULL, _READONLY, _CANTOPEN, _INTERRUPT, _NOMEM, _BUSY = 11, 26, 13, 8, 14, 9, 7, 5
_CORRUPT_VTAB = _CORRUPT | (1 << 8)  # a virtual table (FTS5) found its own data damaged
# sqlite-vec reports a disk that filled up while it allocated a chunk with its own message, and damage to its
# tables as sizes that do not match: the first is a full disk, the others a damaged file.
_VEC_FULL = ("Could not insert a new vector chunk",)
_VEC_DAMAGE = ("size mismatch", "Could not find latest chunk", "Could not find a row with rowid")
#: How long the check on opening may read (where SQLite pauses to let it stop): a year of memory is gigabytes.
OPEN_CHECK_S = 0.25
#: How long opening for writing may spend checking the full-text indexes against the text they index (FTS5's
#: integrity-check: 0.17 s at 100,000 observations, 1.4 s at a million; a larger index is checked when a write
#: meets its damage, see :meth:`Database.repair_text_indexes`).
INDEX_CHECK_S = 0.25
#: A WAL larger than this after a commit is checkpointed and truncated at once (SQLite's own checkpoint leaves the
#: file at its largest size: a clip that opens vector chunks left 9 MB beside a 3 MB memory.db on a small disk).
WAL_TRUNCATE_BYTES = 4 << 20
#: The same for a memory opened to read: its reads refuse a damaged page they meet anyway, so the check before the
#: first question is short (the whole 0.25 s was a quarter of a second added to every ``ask``).
READ_CHECK_S = 0.05
_OPEN_MARGIN = 1 << 20  # below this much free space a failure to open for writing is put down to a full disk
_APSW_CODES = {
    "BusyError": _BUSY,
    "NoMemError": _NOMEM,
    "CorruptError": _CORRUPT,
    "NotADBError": _NOTADB,
    "FullError": _FULL,
    "ReadOnlyError": _READONLY,
    "CantOpenError": _CANTOPEN,
    "InterruptError": _INTERRUPT,
}


def out_of_memory(exc: BaseException) -> bool:
    """SQLite said it ran out of memory: what FTS5 also says of some damage to its own structure (a size read from
    garbage that it tries to allocate)."""
    return _result_code(exc) == _NOMEM


def _result_code(exc: BaseException) -> int | None:
    """The SQLite result code of a driver exception (apsw or sqlite3), None for anything else."""
    code = _APSW_CODES.get(type(exc).__name__)
    if code is not None and type(exc).__module__ == "apsw":
        return code
    errorcode = getattr(exc, "sqlite_errorcode", None)
    if errorcode is not None:
        return int(errorcode) & 0xFF
    # An extension (sqlite-vec creating its shadow tables) may report the fault as a plain SQL error.
    text = str(exc)
    if "database or disk is full" in text or any(m in text for m in _VEC_FULL):
        return _FULL
    if "database disk image is malformed" in text or any(m in text for m in _VEC_DAMAGE):
        return _CORRUPT
    return None


def _extended_code(exc: BaseException) -> int | None:
    """The extended SQLite result code of a driver exception, where the driver gives it."""
    code = getattr(exc, "extendedresult", None) or getattr(exc, "sqlite_errorcode", None)
    return None if code is None else int(code)


def _bare_extension_error(exc: BaseException) -> bool:
    """A virtual table's (sqlite-vec's) failure with no cause of its own: SQLITE_ERROR with SQLite's bare text, or
    sqlite-vec's "Internal sqlite-vec error". On a disk with no room left its cause is the disk: sqlite-vec hands
    a write's SQLITE_FULL back as SQLITE_ERROR (a delete with secure_delete on fails as "SQL logic error")."""
    text = str(exc)
    return text in ("SQL logic error", "SQL logic error or missing database") or "sqlite-vec" in text


def _stdlib_can_load_extensions() -> bool:
    import sqlite3

    conn = sqlite3.connect(":memory:")
    try:
        return hasattr(conn, "enable_load_extension")
    finally:
        conn.close()


def available_driver() -> str:
    """The driver this process uses: "sqlite3" if the standard library can load extensions, else "apsw"."""
    if _stdlib_can_load_extensions():
        return "sqlite3"
    try:
        import apsw  # noqa: F401
    except ImportError as exc:
        raise MissingDependencyError(
            "this Python's sqlite3 cannot load extensions and apsw is not installed: "
            "pip install 'apsw==3.54.1.0' (or reinstall edge-agent, which depends on it)"
        ) from exc
    return "apsw"


def _sqlite_vec_path() -> str:
    try:
        import sqlite_vec
    except ImportError as exc:
        raise MissingDependencyError("sqlite-vec is not installed: pip install 'sqlite-vec>=0.1.9'") from exc
    return str(sqlite_vec.loadable_path())


def _findings(rows: list[tuple[Any, ...]]) -> list[str]:
    """What an integrity or quick check reported, one finding a line; [] for "ok"."""
    lines = [line.strip() for row in rows for line in str(row[0]).splitlines()]
    return [line for line in lines if line and line != "ok" and not line.startswith("*** in database")]


def _writable(path: Path) -> bool:
    """Whether the memory file (or, for a new one, the folder it goes in) can be written, with the
    folder beside it (WAL needs its -wal and -shm files there)."""
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not os.access(folder, os.W_OK | os.X_OK):
        return False
    return not path.exists() or os.access(path, os.W_OK)


def _create_private(path: Path) -> None:
    """A new memory file is made 0600 (SQLite gives its -wal and -shm files the same mode) in a 0700 folder."""
    if path.exists():
        return
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))


def make_private(path: Path, mode: int) -> None:
    """Takes from ``path`` the permissions ``mode`` does not give (0o600 for a file of memory, 0o700 for a folder)
    where it is ours and looser: a memory made before modes were set, or copied in under a looser umask. Never
    fails: a file of another user, or a file system that keeps no modes, is left as it is."""
    try:
        status = os.stat(path)
    except OSError:
        return  # not there (no WAL yet): nothing to tighten
    current = stat.S_IMODE(status.st_mode)
    if status.st_uid != os.geteuid() or not current & ~mode:
        return
    try:
        os.chmod(path, current & mode)
    except OSError as exc:
        log.info("%s could not be made private (%s): it stays %o", path, exc.strerror or exc, current)


class Database:
    """A connection to the memory database. Use as a context manager or call :meth:`close`.

    Args:
        path: the database file (created 0600, with its folder 0700, if missing), or ":memory:".
        busy_timeout_ms: how long a writer waits for another one before failing.
        driver: "sqlite3" or "apsw"; default: :func:`available_driver`. A process uses one driver only.
        mode: "write" (default): the memory must be writable (:class:`ReadOnlyMemoryError` if not);
            "read": opened read-only where it cannot be written (``readonly`` says so; writes then fail).
        check: run SQLite's quick_check on open (for up to :data:`OPEN_CHECK_S`, :data:`READ_CHECK_S` to read)
            and refuse a damaged file (:class:`CorruptMemoryError`); ``memory check``, ``backup`` and ``restore``
            open without it.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        busy_timeout_ms: int = 10_000,
        driver: str | None = None,
        mode: str = "write",
        check: bool = True,
    ) -> None:
        global _process_driver
        if mode not in ("write", "read"):
            raise ValueError(f"mode must be 'write' or 'read', got {mode!r}")
        self.path = str(path)
        with _driver_lock:
            chosen = driver or _process_driver or available_driver()
            if _process_driver is not None and chosen != _process_driver:
                raise DatabaseError(
                    f"this process already uses the {_process_driver} driver; sqlite-vec cannot be loaded "
                    f"into a second SQLite library ({chosen}) in the same process"
                )
            _process_driver = chosen
        self.driver = chosen
        self.busy_timeout_s = busy_timeout_ms / 1000  #: how long a statement waits for another process's lock
        self._lock = threading.RLock()
        self._depth = 0
        self._conn: Any = None
        self.damaged = False  #: a damaged page was met: nothing more is written
        self.readonly = self.path != ":memory:" and not _writable(Path(self.path))
        if self.readonly and mode == "write":
            raise ReadOnlyMemoryError(
                f"the memory at {self.path} cannot be written (read-only file, folder or disk): "
                "reading commands still work; give a writable --home to record"
            )
        if self.path != ":memory:" and not self.readonly:
            _create_private(Path(self.path))
            if mode == "write":
                for suffix in ("", "-wal", "-shm"):
                    make_private(Path(self.path + suffix), 0o600)
        if self.readonly and not Path(self.path).exists():
            raise ReadOnlyMemoryError(
                f"there is no memory at {self.path}, and its folder cannot be written to make one"
            )
        try:
            try:
                self._conn = self._connect(chosen, busy_timeout_ms)
            except (CorruptMemoryError, MissingDependencyError):
                raise
            except DatabaseError:
                # A full disk cannot even hold WAL's shared-memory file: readers still open the file read-only.
                if self.readonly or self.path == ":memory:":
                    raise
                if mode == "read":
                    self.readonly = True
                    self._conn = self._connect(chosen, busy_timeout_ms)
                elif free_bytes(self.path) < _OPEN_MARGIN:
                    raise StorageFullError(
                        f"the disk holding the memory {self.path} is full ({human_bytes(free_bytes(self.path))} free): "
                        "it cannot be opened for writing; free some space (reading commands still work)"
                    ) from None
                else:
                    raise
            self.execute("PRAGMA foreign_keys = ON")
            self.execute("PRAGMA secure_delete = ON")  # a forgotten entity leaves no bytes behind
            self.execute("PRAGMA temp_store = MEMORY")  # scratch tables need no disk (a full or read-only one)
            if check:
                self.quick_check(budget_s=READ_CHECK_S if mode == "read" else OPEN_CHECK_S)
            if not self.readonly:
                self._prepare()
            version = self.value("SELECT vec_version()")
        except BaseException:
            self.close()
            raise
        if tuple(int(p) for p in str(version).lstrip("v").split(".")[:3]) < MIN_SQLITE_VEC:
            self.close()
            raise MissingDependencyError(f"sqlite-vec {version} is too old: need >= 0.1.9 (pip install -U sqlite-vec)")
        self.sqlite_vec_version = str(version)
        try:
            self._migrate()
            if check and mode == "write" and not self.readonly:
                self._check_indexes()
        except BaseException:
            self.close()
            raise

    def _prepare(self) -> None:
        """Settings of a writable file: incremental auto-vacuum for a new one, WAL, synchronous NORMAL."""
        if self.value("SELECT count(*) FROM sqlite_master") == 0:
            # A new file, before anything (WAL included) initialises it: incremental auto-vacuum lets
            # retention hand freed pages back to the file system.
            self.execute("PRAGMA auto_vacuum = INCREMENTAL")
        if self.path != ":memory:":
            mode = self._to_wal()
            if mode is None or str(mode[0]).lower() != "wal":
                raise DatabaseError(f"cannot switch {self.path} to WAL journaling (got {mode})")
            self.execute("PRAGMA synchronous = NORMAL")

    def _to_wal(self) -> tuple[Any, ...] | None:
        """``PRAGMA journal_mode = WAL``, waiting while another process sets up the same new file: SQLite answers a
        change of journal mode with "database is locked" at once, without waiting as other statements do."""
        deadline = time.monotonic() + self.busy_timeout_s
        while True:
            try:
                return self.query_one("PRAGMA journal_mode = WAL")
            except Exception as exc:
                if _result_code(exc) != _BUSY or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    def quick_check(self, limit: int = 5, budget_s: float | None = None) -> None:
        """SQLite's quick_check (b-trees and free list, without index-content checks); raises
        :class:`CorruptMemoryError` with its first findings where the file is damaged. ``budget_s``: stop
        after this long, what was read found sound (opening checks what it can in :data:`OPEN_CHECK_S`;
        ``memory check`` reads everything, and a damaged page met later is refused when it is read)."""
        deadline = None if budget_s is None else time.monotonic() + budget_s
        try:
            with self._deadline(budget_s):
                if deadline is None:
                    problems = _findings(self.query(f"PRAGMA quick_check({int(limit)})"))
                else:
                    # Table by table, memory's own tables first (the full-text indexes are checked on their own
                    # when opening to write: :meth:`repair_text_indexes`).
                    problems = []
                    for table in self._tables_to_check():
                        quoted = table.replace('"', '""')
                        problems += _findings(self.query(f'PRAGMA quick_check("{quoted}")'))
                        if len(problems) >= limit or time.monotonic() > deadline:
                            break
        except Exception as exc:
            if deadline is not None and _result_code(exc) == _INTERRUPT:
                log.debug("the quick check of %s stopped after %.2f s: no damage in what it read", self.path, budget_s)
                return
            raise
        if problems:
            found = "; ".join(problems[:2]) + (f"; {len(problems) - 2} more" if len(problems) > 2 else "")
            raise CorruptMemoryError(self.path, found)

    @contextlib.contextmanager
    def _deadline(self, budget_s: float | None) -> Iterator[None]:
        """Statements run inside stop (SQLITE_INTERRUPT) once ``budget_s`` has passed; None: no limit."""
        if budget_s is None:
            yield
            return
        deadline = time.monotonic() + budget_s
        self._conn.set_progress_handler(lambda: time.monotonic() > deadline, 1000)
        try:
            yield
        finally:
            if self.driver == "apsw":
                self._conn.set_progress_handler(None)
            else:
                self._conn.set_progress_handler(None, 0)

    def _check_indexes(self) -> None:
        """Before anything is written: vector tables of a sound shape (refused if not), full-text indexes matching
        what they index (rebuilt if not, within :data:`INDEX_CHECK_S`)."""
        damaged = self.vector_findings()
        if damaged:
            raise CorruptMemoryError(
                self.path, "; ".join(damaged[:2]) + (f"; {len(damaged) - 2} more" if len(damaged) > 2 else "")
            )
        self.repair_text_indexes(INDEX_CHECK_S)

    def text_indexes(self) -> list[tuple[str, str, str]]:
        """(full-text table, the table it indexes, its column) of each FTS5 index over memory's text."""
        found = []
        for name, sql in self.query("SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND sql LIKE '%fts5%'"):
            content = re.search(r"content\s*=\s*'?(\w+)'?", str(sql))
            column = re.search(r"fts5\s*\(\s*(\w+)", str(sql))
            if content and column and str(sql).upper().startswith("CREATE VIRTUAL TABLE"):
                found.append((str(name), content.group(1), column.group(1)))
        return found

    def repair_text_indexes(self, budget_s: float | None = None) -> list[str]:
        """Checks each full-text index against the text it indexes (FTS5's integrity-check) and rebuilds one that is
        damaged or does not match, with a one-line warning: the index is made from memory's own text, so a rebuild
        loses nothing (refusing would stop recording for it). ``budget_s``: stop checking after this long, what was
        checked found sound. Returns the indexes rebuilt; a rebuild that fails (a full disk) raises its error."""
        rebuilt: list[str] = []
        deadline = None if budget_s is None else time.monotonic() + budget_s
        for fts, table, column in self.text_indexes():
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                break
            problem = self._text_index_problem(fts, left)
            if problem is None:
                continue
            with self.transaction():
                self._conn.execute(f"INSERT INTO {fts} ({fts}) VALUES ('rebuild')")
            log.warning(
                "the full-text index %s of %s was damaged (%s): rebuilt from %s.%s, nothing is lost",
                fts,
                self.path,
                problem,
                table,
                column,
            )
            rebuilt.append(fts)
        return rebuilt

    def _text_index_problem(self, fts: str, budget_s: float | None) -> str | None:
        """What FTS5's integrity-check (against the content table) found in ``fts``; None where it found nothing or
        ran out of time."""
        try:
            with self._lock, self._deadline(budget_s):
                self._conn.execute(f"INSERT INTO {fts} ({fts}, rank) VALUES ('integrity-check', 1)")
        except Exception as exc:
            code = _result_code(exc)
            if code == _INTERRUPT:
                log.debug("the check of the full-text index %s stopped after %.2f s", fts, budget_s)
                return None
            if code in (_CORRUPT, _NOTADB, _NOMEM) or "fts5" in str(exc):  # NOMEM: a size read from garbage
                return str(exc)
            raise
        return None

    def recover_from_index_damage(self) -> bool:
        """After a write failed on damage a virtual table found in its own data: checks the full-text indexes
        without a time limit and rebuilds the damaged ones. True (and writing allowed again) where one was rebuilt;
        False where the damage is elsewhere (nothing more is written)."""
        self.damaged = False  # to let the rebuild write
        rebuilt = False
        try:
            rebuilt = bool(self.repair_text_indexes(None))
        finally:
            self.damaged = not rebuilt
        return rebuilt

    def vector_findings(self) -> list[str]:
        """Damage in the shape of sqlite-vec's tables, read from their chunk table (one row per 1,024 vectors, so
        cheap): each chunk's validity, row-id and vector blobs of the sizes its slot count needs. [] where sound."""
        found = []
        rows = self.query(
            "SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%USING vec0%'"
        )
        for name, sql in rows:
            dims = re.search(r"float\[(\d+)\]", str(sql))
            have = {str(r[0]) for r in self.query("SELECT name FROM sqlite_schema WHERE name GLOB ?", (f"{name}_*",))}
            if dims is None or not {f"{name}_chunks", f"{name}_vector_chunks00"} <= have:
                continue
            vectors = dict(self.query(f"SELECT rowid, length(vectors) FROM {name}_vector_chunks00"))
            for chunk, size, validity, rowids in self.query(
                f"SELECT chunk_id, size, length(validity), length(rowids) FROM {name}_chunks"
            ):
                expected = (-(-int(size) // 8), int(size) * 8, int(size) * int(dims.group(1)) * 4)
                actual = (validity, rowids, vectors.get(chunk))
                if actual != expected:
                    found.append(
                        f"vector table {name}: chunk {chunk} has validity, row-id and vector blobs of {actual} bytes, "
                        f"expected {expected}"
                    )
        return found

    def _tables_to_check(self) -> list[str]:
        """The file's ordinary tables, memory's own first, then those holding a virtual table's data (FTS5's,
        sqlite-vec's): a budgeted check reads what matters most before its time is up."""
        rows = self.query("SELECT name, sql FROM sqlite_schema WHERE type = 'table' ORDER BY rootpage")
        virtual = [str(n) for n, sql in rows if str(sql or "").upper().startswith("CREATE VIRTUAL TABLE")]
        tables = [str(n) for n, sql in rows if not str(sql or "").upper().startswith("CREATE VIRTUAL TABLE")]

        def shadow(name: str) -> bool:
            return any(name.startswith(v + "_") for v in virtual)

        return [t for t in tables if not shadow(t)] + [t for t in tables if shadow(t)]

    def integrity_check(self, limit: int = 100) -> list[str]:
        """SQLite's full integrity_check: [] when the file is sound, else what it found (at most ``limit``)."""
        try:
            return _findings(self.query(f"PRAGMA integrity_check({int(limit)})"))
        except CorruptMemoryError as exc:  # a page so damaged that SQLite's own check stops on it: that is the finding
            return [f"SQLite stopped checking: {exc.__cause__ or exc}"]
        except Exception as exc:
            if not out_of_memory(exc):
                raise
            return [  # FTS5 reading a size from garbage in its own structure
                "SQLite ran out of memory checking it: a full-text index's structure is damaged (opening the memory "
                "to write rebuilds it from memory's text)"
            ]

    def _connect(self, driver: str, busy_timeout_ms: int) -> Any:
        """A connection with sqlite-vec loaded and the busy timeout set before its first read (another
        process opening or checkpointing the same file makes it wait, not fail); read-only (``mode=ro``, else
        ``immutable=1`` where SQLite cannot make the WAL's shared-memory file beside it) when the memory
        cannot be written."""
        extension = _sqlite_vec_path()
        targets = [self.path]
        if self.readonly:
            uri = "file:" + urllib.parse.quote(os.path.abspath(self.path))
            targets = [f"{uri}?mode=ro", f"{uri}?immutable=1"]
        last: BaseException | None = None
        for target in targets:
            try:
                conn = self._open(driver, target)
            except DatabaseError:
                raise
            except Exception as exc:
                fault = self._fault(exc)
                if isinstance(fault, CorruptMemoryError):
                    raise fault from exc
                last = exc
                continue
            try:
                conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
                conn.enable_load_extension(True)
                conn.load_extension(extension)
                conn.enable_load_extension(False)
                conn.execute(
                    "SELECT count(*) FROM sqlite_master"
                ).fetchall()  # reads the header: a damaged one fails here
            except Exception as exc:
                conn.close()
                fault = self._fault(exc)
                if isinstance(fault, CorruptMemoryError):
                    raise fault from exc
                last = exc
                continue
            return conn
        raise DatabaseError(f"cannot open the memory database {self.path}: {last}") from last

    def _open(self, driver: str, target: str) -> Any:
        if driver == "apsw":
            try:
                import apsw
            except ImportError as exc:
                raise MissingDependencyError("apsw is not installed: pip install 'apsw==3.54.1.0'") from exc
            if target.startswith("file:"):
                return apsw.Connection(target, flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
            return apsw.Connection(target)
        if driver in ("sqlite3", "pysqlite3"):
            module: Any
            if driver == "sqlite3":
                import sqlite3

                module = sqlite3
            else:
                try:
                    import pysqlite3.dbapi2

                    module = pysqlite3.dbapi2
                except ImportError as exc:
                    raise MissingDependencyError("pysqlite3 is not installed: pip install pysqlite3-binary") from exc
            conn = module.connect(target, isolation_level=None, check_same_thread=False, uri=target.startswith("file:"))
            if not hasattr(conn, "enable_load_extension"):
                conn.close()
                raise MissingDependencyError(f"this Python's {driver} cannot load extensions; install apsw")
            return conn
        raise DatabaseError(f"unknown SQLite driver {driver!r}: expected 'sqlite3' or 'apsw'")

    def _fault(self, exc: BaseException) -> DatabaseError | None:
        """The product's error for a driver exception that means a damaged file, a full disk or a
        read-only medium; None for any other (a bug, a constraint: raised as it is)."""
        code = _result_code(exc)
        if code is None and _bare_extension_error(exc) and self.path != ":memory:":
            code = _FULL if free_bytes(self.path) < _OPEN_MARGIN else None
        if code in (_CORRUPT, _NOTADB):
            return CorruptMemoryError(self.path, str(exc), virtual_table=_extended_code(exc) == _CORRUPT_VTAB)
        if code == _FULL:
            return StorageFullError(
                f"the disk holding the memory {self.path} is full ({human_bytes(free_bytes(self.path))} free): "
                "nothing of "
                "this write was stored; free some space, or lower the memory's cap (`edge-agent memory prune "
                "--max-bytes`)"
            )
        if code == _READONLY:
            return ReadOnlyMemoryError(
                f"the memory at {self.path} is read-only ({exc}): reading works, writing does not"
            )
        return None

    @contextlib.contextmanager
    def _faults(self) -> Iterator[None]:
        try:
            yield
        except DatabaseError:
            raise
        except Exception as exc:
            fault = self._fault(exc)
            if fault is None:
                raise
            if isinstance(fault, CorruptMemoryError):
                self.damaged = True
            raise fault from exc

    # -- statements --------------------------------------------------------------------------------

    def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> None:
        """Runs one statement."""
        with self._lock, self._faults():
            self._conn.execute(sql, params)

    def insert(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> int:
        """Runs one INSERT and returns the new row's rowid."""
        with self._lock, self._faults():
            cursor = self._conn.execute(sql, params)
            return int(self._conn.last_insert_rowid() if self.driver == "apsw" else cursor.lastrowid)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        with self._lock, self._faults():
            if rows:
                self._conn.executemany(sql, rows)

    def query(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock, self._faults():
            return [tuple(row) for row in self._conn.execute(sql, params).fetchall()]

    def query_one(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> tuple[Any, ...] | None:
        rows = self.query(sql, params)
        return rows[0] if rows else None

    def rows_by_key(self, table: str, key: str, ids: Sequence[int], columns: str) -> list[tuple[Any, ...]]:
        """``columns`` of a vec0 table's rows whose primary key ``key`` is in ``ids``, one lookup each: vec0 answers
        ``key = ?`` from its rowid index (0.2 ms at a million rows) but scans every row for ``key IN (...)``
        (460 ms there)."""
        out: list[tuple[Any, ...]] = []
        sql = f"SELECT {columns} FROM {table} WHERE {key} = ?"
        with self._lock, self._faults():
            for i in ids:
                out += self._conn.execute(sql, (int(i),)).fetchall()
        return out

    def value(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> Any:
        """The first column of the first row (a count, an aggregate, a PRAGMA); None when there is no row."""
        row = self.query_one(sql, params)
        return None if row is None else row[0]

    def script(self, sql: str) -> None:
        """Runs several statements (migrations) inside the current transaction, if any. The sqlite3
        module's executescript would commit first, so statements are run one by one there."""
        with self._lock, self._faults():
            if self.driver == "apsw":
                self._conn.execute(sql)
                return
            import sqlite3

            statement = ""
            for line in sql.splitlines(keepends=True):
                statement += line
                if sqlite3.complete_statement(statement):
                    self._conn.execute(statement)
                    statement = ""
            if statement.strip():
                raise DatabaseError(f"incomplete SQL statement in script: {statement.strip()[:80]}")

    @contextlib.contextmanager
    def transaction(self, before_commit: Callable[[], None] | None = None) -> Iterator[Database]:
        """A write transaction (BEGIN IMMEDIATE): all or nothing. Nested use joins the outer one. A
        connection that has met a damaged page writes nothing more. ``before_commit`` (of the outermost one) may
        raise to roll it back (the Store's check that the disk has room for it). One that fails on a full disk gives
        back the WAL it wrote; one that leaves the WAL above :data:`WAL_TRUNCATE_BYTES` truncates it."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield self
                finally:
                    self._depth -= 1
                return
            if self.damaged:
                raise CorruptMemoryError(self.path, "damage was found while it was in use")
            with self._faults():
                self._conn.execute("BEGIN IMMEDIATE")
            self._depth = 1
            try:
                yield self
                if before_commit is not None:
                    before_commit()
                with self._faults():
                    self._conn.execute("COMMIT")
            except BaseException as exc:
                self._depth = 0
                with contextlib.suppress(Exception):  # a failed COMMIT (disk full) leaves the transaction open
                    self._conn.execute("ROLLBACK")
                if isinstance(exc, StorageFullError):
                    self.truncate_wal()  # the frames it wrote are of no use: their room goes back to the disk
                raise
            self._depth = 0
            if self.wal_bytes() > WAL_TRUNCATE_BYTES:
                self.truncate_wal()

    @property
    def in_transaction(self) -> bool:
        return self._depth > 0

    def data_version(self) -> int:
        """Changes when another connection commits (PRAGMA data_version)."""
        return int(self.value("PRAGMA data_version"))

    # -- schema ------------------------------------------------------------------------------------

    @property
    def user_version(self) -> int:
        return int(self.value("PRAGMA user_version"))

    def _migrate(self) -> None:
        current = self.user_version
        if current > SCHEMA_VERSION:
            raise DatabaseError(
                f"{self.path} has schema version {current}, newer than this edge-agent understands "
                f"({SCHEMA_VERSION}); upgrade edge-agent"
            )
        if current < SCHEMA_VERSION and self.readonly:
            raise ReadOnlyMemoryError(
                f"{self.path} has schema version {current} and needs migrating to {SCHEMA_VERSION}, "
                "which needs write access: open it once where it can be written"
            )
        for version in range(current + 1, SCHEMA_VERSION + 1):
            with self.transaction():
                if self.user_version >= version:  # another process (a watch beside a serve) migrated it meanwhile
                    continue
                self.script(MIGRATIONS[version])
                if version == 3:
                    migrate_to_v3(self)  # what v2 kept only in its sentences, into v3's fields
                self.execute(f"PRAGMA user_version = {version}")

    def file_bytes(self) -> int:
        """Bytes of the database file and its WAL."""
        if self.path == ":memory:":
            page_count, page_size = self.value("PRAGMA page_count"), self.value("PRAGMA page_size")
            return int(page_count) * int(page_size)
        total = 0
        for suffix in ("", "-wal"):
            p = Path(self.path + suffix)
            if p.exists():
                total += p.stat().st_size
        return total

    def checkpoint(self) -> None:
        """Moves the WAL into the database file and truncates it."""
        self.query("PRAGMA wal_checkpoint(TRUNCATE)")

    def settle_wal(self) -> None:
        """Copies what is committed in the WAL into the database file, without waiting for readers (a PASSIVE
        checkpoint): a transaction that then fails on a full disk can give all its WAL back (:meth:`truncate_wal`
        needs no room once nothing committed is left in it)."""
        if self.path == ":memory:" or self._depth or self.wal_bytes() == 0:
            return
        with contextlib.suppress(Exception), self._lock:  # a full disk: the failure path truncates what it can
            self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()

    def truncate_wal(self) -> bool:
        """:meth:`checkpoint` where it can be done: not inside a transaction, and not where the disk has no room for
        it or a reader holds the WAL (it is done at a later commit). Returns whether the WAL is now empty."""
        if self.path == ":memory:" or self._depth or self._conn is None:
            return False
        try:
            with self._lock:
                busy = self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        except Exception as exc:  # noqa: BLE001 - a full disk, a damaged file: the WAL stays as it is
            log.debug("cannot checkpoint the WAL of %s: %s", self.path, exc)
            return False
        return bool(busy) and not busy[0][0]

    def wal_bytes(self) -> int:
        """Bytes of the WAL file (0 where there is none)."""
        try:
            return os.stat(self.path + "-wal").st_size if self.path != ":memory:" else 0
        except OSError:
            return 0

    def growth_bytes(self) -> int:
        """Bytes the database file grows by when what is committed, and what the open transaction wrote, is
        checkpointed into it: its size in pages less its size on disk. The page cache is first written out to the
        WAL where the driver can (apsw), so that the WAL on disk holds what a commit would write."""
        if self.path == ":memory:":
            return 0
        with self._lock, self._faults():
            if hasattr(self._conn, "cache_flush"):
                self._conn.cache_flush()
            pages = int(self._conn.execute("PRAGMA page_count").fetchall()[0][0])
            size = int(self._conn.execute("PRAGMA page_size").fetchall()[0][0])
        try:
            on_disk = os.stat(self.path).st_size
        except OSError:
            on_disk = 0
        return pages * size - on_disk

    def unwritten_bytes(self) -> int:
        """At most how much a commit still writes to the WAL after :meth:`growth_bytes`: nothing where the driver
        wrote the page cache out (apsw), else the page cache's size."""
        if hasattr(self._conn, "cache_flush"):
            return 0
        pages = int(self.value("PRAGMA cache_size"))
        return -pages * 1024 if pages < 0 else pages * int(self.value("PRAGMA page_size"))

    def backup_to(self, path: str | Path) -> None:
        """Copies the database into a new file (0600) with SQLite's online backup, in one step: one
        consistent snapshot, while other connections go on writing (WAL)."""
        target = Path(path)
        _create_private(target)
        with self._lock, self._faults():
            if self.driver == "apsw":
                import apsw

                destination = apsw.Connection(str(target))
                try:
                    with destination.backup("main", self._conn, "main") as step:
                        step.step(-1)
                finally:
                    destination.close()
                return
            import sqlite3

            copy = sqlite3.connect(str(target))
            try:
                self._conn.backup(copy)
            finally:
                copy.close()

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class HasDatabase(Protocol):
    """Anything that holds an open memory database (the Store)."""

    db: Database


def database_of(memory: Database | HasDatabase) -> Database:
    """The database itself, given it or a holder of it: readers such as ``consolidate.facts`` take either, so
    that callers with a Store pass it as they always have while memory's own modules need no Store."""
    return memory if isinstance(memory, Database) else memory.db
