"""The memory database: one SQLite file opened through a driver that can load extensions, with
sqlite-vec loaded, WAL, foreign keys, a busy timeout, secure deletion and versioned migrations.

Driver choice (Frigate's sqlitevecq pattern: one class, a clear message when a piece is missing): the
standard library's ``sqlite3`` where its build can load extensions, else ``apsw`` (a pinned dependency,
bundling a current SQLite). One driver per process: sqlite-vec loaded into two different SQLite
libraries in one process crashes at exit.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from edge_agent.memory.schema import MIGRATIONS, SCHEMA_VERSION

__all__ = ["Database", "DatabaseError", "MissingDependencyError", "available_driver"]

MIN_SQLITE_VEC = (0, 1, 9)  # older versions never reclaim deleted rows

_process_driver: str | None = None
_driver_lock = threading.Lock()


class DatabaseError(RuntimeError):
    """The memory database cannot be opened or used."""


class MissingDependencyError(DatabaseError):
    """A piece the memory needs (an SQLite driver that loads extensions, sqlite-vec) is missing."""


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


class Database:
    """A connection to the memory database. Use as a context manager or call :meth:`close`.

    Args:
        path: the database file (created with its folder if missing), or ":memory:".
        busy_timeout_ms: how long a writer waits for another one before failing.
        driver: "sqlite3" or "apsw"; default: :func:`available_driver`. A process uses one driver only.
    """

    def __init__(self, path: str | Path, *, busy_timeout_ms: int = 10_000, driver: str | None = None) -> None:
        global _process_driver
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
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self._conn = self._connect(chosen)
        except MissingDependencyError:
            raise
        except Exception as exc:
            raise DatabaseError(f"cannot open the memory database {self.path}: {exc}") from exc
        self._lock = threading.RLock()
        self._depth = 0
        self.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        self.execute("PRAGMA foreign_keys = ON")
        self.execute("PRAGMA secure_delete = ON")  # a forgotten entity leaves no bytes behind
        if self.query_one("SELECT count(*) FROM sqlite_master")[0] == 0:
            # A new file, before anything (WAL included) initialises it: incremental auto-vacuum lets
            # retention hand freed pages back to the file system.
            self.execute("PRAGMA auto_vacuum = INCREMENTAL")
        if self.path != ":memory:":
            mode = self.query_one("PRAGMA journal_mode = WAL")
            if mode is None or str(mode[0]).lower() != "wal":
                raise DatabaseError(f"cannot switch {self.path} to WAL journaling (got {mode})")
            self.execute("PRAGMA synchronous = NORMAL")
        version = self.query_one("SELECT vec_version()")[0]
        if tuple(int(p) for p in str(version).lstrip("v").split(".")[:3]) < MIN_SQLITE_VEC:
            raise MissingDependencyError(f"sqlite-vec {version} is too old: need >= 0.1.9 (pip install -U sqlite-vec)")
        self.sqlite_vec_version = str(version)
        self._migrate()

    def _connect(self, driver: str) -> Any:
        extension = _sqlite_vec_path()
        if driver == "apsw":
            try:
                import apsw
            except ImportError as exc:
                raise MissingDependencyError("apsw is not installed: pip install 'apsw==3.54.1.0'") from exc
            conn = apsw.Connection(self.path)
            conn.enable_load_extension(True)
            conn.load_extension(extension)
            conn.enable_load_extension(False)
            return conn
        if driver in ("sqlite3", "pysqlite3"):
            if driver == "sqlite3":
                import sqlite3 as module
            else:
                try:
                    import pysqlite3.dbapi2 as module  # type: ignore[import-not-found]
                except ImportError as exc:
                    raise MissingDependencyError("pysqlite3 is not installed: pip install pysqlite3-binary") from exc
            conn = module.connect(self.path, isolation_level=None, check_same_thread=False)
            if not hasattr(conn, "enable_load_extension"):
                raise MissingDependencyError(f"this Python's {driver} cannot load extensions; install apsw")
            conn.enable_load_extension(True)
            conn.load_extension(extension)
            conn.enable_load_extension(False)
            return conn
        raise DatabaseError(f"unknown SQLite driver {driver!r}: expected 'sqlite3' or 'apsw'")

    # -- statements --------------------------------------------------------------------------------

    def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> None:
        """Runs one statement."""
        with self._lock:
            self._conn.execute(sql, params)

    def insert(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> int:
        """Runs one INSERT and returns the new row's rowid."""
        with self._lock:
            cursor = self._conn.execute(sql, params)
            return int(self._conn.last_insert_rowid() if self.driver == "apsw" else cursor.lastrowid)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        with self._lock:
            if rows:
                self._conn.executemany(sql, rows)

    def query(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return [tuple(row) for row in self._conn.execute(sql, params).fetchall()]

    def query_one(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> tuple[Any, ...] | None:
        rows = self.query(sql, params)
        return rows[0] if rows else None

    def script(self, sql: str) -> None:
        """Runs several statements (migrations) inside the current transaction, if any. The sqlite3
        module's executescript would commit first, so statements are run one by one there."""
        with self._lock:
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
    def transaction(self) -> Iterator[Database]:
        """A write transaction (BEGIN IMMEDIATE): all or nothing. Nested use joins the outer one."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield self
                finally:
                    self._depth -= 1
                return
            self._conn.execute("BEGIN IMMEDIATE")
            self._depth = 1
            try:
                yield self
            except BaseException:
                self._depth = 0
                self._conn.execute("ROLLBACK")
                raise
            self._depth = 0
            self._conn.execute("COMMIT")

    @property
    def in_transaction(self) -> bool:
        return self._depth > 0

    def data_version(self) -> int:
        """Changes when another connection commits (PRAGMA data_version)."""
        return int(self.query_one("PRAGMA data_version")[0])

    # -- schema ------------------------------------------------------------------------------------

    @property
    def user_version(self) -> int:
        return int(self.query_one("PRAGMA user_version")[0])

    def _migrate(self) -> None:
        current = self.user_version
        if current > SCHEMA_VERSION:
            raise DatabaseError(
                f"{self.path} has schema version {current}, newer than this edge-agent understands "
                f"({SCHEMA_VERSION}); upgrade edge-agent"
            )
        for version in range(current + 1, SCHEMA_VERSION + 1):
            with self.transaction():
                self.script(MIGRATIONS[version])
                self.execute(f"PRAGMA user_version = {version}")

    def file_bytes(self) -> int:
        """Bytes of the database file and its WAL."""
        if self.path == ":memory:":
            page_count, page_size = self.query_one("PRAGMA page_count")[0], self.query_one("PRAGMA page_size")[0]
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

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
