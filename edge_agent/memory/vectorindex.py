"""Nearest-neighbour search over one of memory's vector tables (sqlite-vec ``vec0``: item_id, embedding, t)
that stays fast and small as memory grows to a year (a million observations).

sqlite-vec stays the store of record; this is an index of it, kept in two parts, as log-structured vector
engines do:

- **sealed segments**: each holds ``segment_rows`` consecutive rows (by item id) as an HNSW graph (usearch,
  cosine) over int8 vectors (each row scaled so its largest component is 127: the full range, where usearch's
  own conversion of unit vectors used about 12 levels) in a file under ``<home>/index/<table>/``, opened
  memory-mapped: a process starts without reading them, and only the pages a search walks become resident.
  What a segment's search finds is ranked and scored again on the rows' float16 vectors, kept beside the graph
  and read (not mapped) a row at a time, so what a serving process keeps resident is the int8 graph alone
  (measured at a million observations: recall@10 0.988 as the float16 graph's, in half its bytes; fetching
  twice as many candidates to rank again found no more);
- **the tail**: the rows after the last segment, in RAM as float16, scanned exactly (native ``cosine_topk``)
  and saved beside the segments as rows come (a new process reads it from there, not from the table). When the
  tail reaches ``segment_rows`` it is sealed into a new segment.

Segments and tails are searched side by side, one per core (usearch and the native scan let go of the GIL).
One process at a time writes the files (a lock on the folder); another sharing the memory reads what it saved.

A manifest (``manifest.json``, written last, atomically) names the segments, the vector space they were made
in, how many vector deletions memory had recorded when they were checked and each file's size and checksum
(memory/derived.py); the saved tail has a record of its own (``tail-*.json``), written after its rows. When
memory deletes vectors (forget, retention: ``housekeeping`` counts them in ``meta``) the segments' deleted rows
are found and left out of results (tombstones), and a segment more than half deleted is rebuilt from the table.
Missing, damaged or other-model files are rebuilt from the table. A segment's graph, ids and times are checked
against their checksums when a process first opens them (a damaged HNSW graph crashes usearch: opening it is no
way to find out), its float16 rows as a search reads them (those files are not read whole: 768 MB at a million
observations), the tail when it is opened; a damaged segment is set aside (memory/derived.py) and made again
from its rows. Where the index folder cannot be written (a read-only or full medium), whatever is there and
current is used and the rest is searched exactly in RAM.

``before`` (a question asked as of T): segments wholly after T are skipped, wholly before it searched as
they are; the one that straddles T is searched with a wider beam and, where that leaves fewer than k,
exactly over its rows before T."""

from __future__ import annotations

import contextlib
import fcntl
import functools
import json
import logging
import os
import uuid
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from edge_agent import native
from edge_agent.config.retrieval import VectorIndexConfig
from edge_agent.memory import derived
from edge_agent.memory.derived import DamagedIndexError
from edge_agent.memory.housekeeping import deletions_key
from edge_agent.memory.store import Store

__all__ = ["SegmentedVectors", "best", "run_side_by_side", "searchers"]

log = logging.getLogger(__name__)

#: New rows up to this many are read one by one (by id); more, by one scan of the table.
_FEW = 256

#: HNSW shape: links per node (more: better recall, bigger files), candidates kept while building and searching.
CONNECTIVITY = 16
EXPANSION_ADD = 64
#: How the segments' files are made: a manifest of another format is rebuilt from the table.
FORMAT = "hnsw-i8+f16"


@dataclass
class _Segment:
    name: str  #: file stem under the table's index folder
    lo: int  #: first item id it covers
    hi: int  #: last item id it covers
    count: int
    t_min: float
    t_max: float
    index: Any = None  #: usearch Index, memory-mapped
    ids: npt.NDArray[np.int64] = field(default_factory=lambda: np.empty(0, np.int64))  #: sorted
    times: npt.NDArray[np.float64] = field(default_factory=lambda: np.empty(0, np.float64))
    deleted: npt.NDArray[np.int64] = field(default_factory=lambda: np.empty(0, np.int64))  #: sorted tombstones
    exact: str = ""  #: the file of the rows' float16 vectors in id order (read by row, not mapped)
    files: dict[str, Any] = field(default_factory=dict)  #: each file's size and checksum, by file name

    def manifest(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "lo": self.lo,
            "hi": self.hi,
            "count": self.count,
            "t_min": self.t_min,
            "t_max": self.t_max,
            "deleted": int(len(self.deleted)),
        }


class SegmentedVectors:
    """Search over ``table``'s vectors (``dims``-dimensional, L2-normalised, made by the model named
    ``space``); ``config.approximate`` False keeps every row in the exact tail."""

    def __init__(
        self, store: Store, table: str, dims: int, space: str, config: VectorIndexConfig | None = None
    ) -> None:
        config = config or VectorIndexConfig()
        self.store = store
        self.table = table
        self.dims = dims
        self.space = space
        self.approximate = config.approximate
        self.segment_rows = config.segment_rows
        self.breadth = config.breadth
        self.folder = store.home / "index" / table
        self.segments: list[_Segment] = []
        self._deletions = -1  #: memory's deletion count when the segments were last checked
        self._shadow: bool | None = None  #: the table has sqlite-vec's rowid table
        self._stamp: tuple[int, int] | None = (-1, -1)  #: the manifest's (mtime, size) when last read
        self._tail_ids = np.empty(0, np.int64)
        self._tail_times = np.empty(0, np.float64)
        self._tail = np.empty((0, dims), np.float16)
        self._verified: set[tuple[str, str]] = set()  #: (file name, checksum) of files this process checked whole
        self._damaged: dict[str, str] = {}  #: segments a search found damaged (what): not opened again here
        self._suspect = False  #: a search found damage: :meth:`recover` opens the index again
        self._unrecorded = False  #: segments were opened from a manifest without checksums: the writer adds them
        self._recorded: tuple[Path, int] | None = None  #: the saved tail's record and the rows it names, as last known

    # -- keeping up with the table ------------------------------------------------------------------------

    @property
    def boundary(self) -> int:
        """The last item id the segments cover (live ones): the tail holds the rows after it."""
        return max((s.hi for s in self.segments), default=0)

    def __len__(self) -> int:
        return sum(s.count - len(s.deleted) for s in self.segments) + len(self._tail_ids)

    def sync(self) -> None:
        """Brings the index up to date with the table: picks up what another process saved, accounts for
        deleted rows, loads new rows into the tail, and (in the one process holding the folder's lock at
        the time) seals full tails into segments and saves the tail beside them."""
        if not self.approximate:
            deletions = self._deletion_count()
            if deletions != self._deletions:
                self._deletions = deletions
                self._reset_tail()
            self._load_new_rows()
            return
        with self._writer() as writer:
            self._refresh(writer)
            deletions = self._deletion_count()
            if deletions != self._deletions:
                if self.segments:
                    self._tombstones(writer)
                self._deletions = deletions
                self._reset_tail()  # rows may have gone from the tail too: reload it
                if writer:
                    self._save_manifest()
            self._load_new_rows()
            if writer:
                while len(self._tail_ids) >= self.segment_rows and self._seal():
                    pass
                self._save_tail()

    def recover(self) -> None:
        """After a search found a damaged file (:class:`DamagedIndexError`): opens the index again, the damaged
        segment or tail set aside and made again from the table (where this process may not write, its rows are
        searched exactly instead)."""
        if self._suspect:
            self._suspect = False
            self._stamp = (-1, -1)  # the manifest is read again, the segments and the tail opened (and checked) again
            self.sync()

    def _reset_tail(self) -> None:
        self._tail_ids = np.empty(0, np.int64)
        self._tail_times = np.empty(0, np.float64)
        self._tail = np.empty((0, self.dims), np.float16)

    def _load_new_rows(self) -> None:
        last = int(self._tail_ids[-1]) if len(self._tail_ids) else self.boundary
        for ids, times, vectors in self._rows(last, None):
            self._tail_ids = np.concatenate([self._tail_ids, ids])
            self._tail_times = np.concatenate([self._tail_times, times])
            self._tail = np.concatenate([self._tail, vectors.astype(np.float16)])

    @contextlib.contextmanager
    def _writer(self) -> Iterator[bool]:
        """Whether this process may write the index files now: the folder can be written and no other
        process holds its lock (an ingest and a serve share a memory; the other one just reads)."""
        if self.store.readonly:
            yield False
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(self.folder / ".lock", os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:
            yield False
            return
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                yield False
                return
            yield True
        finally:
            os.close(fd)  # releases the lock

    def _deletion_count(self) -> int:
        row = self.store.db.query_one("SELECT value FROM meta WHERE key = ?", (deletions_key(self.table),))
        return int(row[0]) if row else 0

    def _rows(
        self, after: int, up_to: int | None, batch: int = 16_384
    ) -> Iterator[tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.float32]]]:
        """The table's rows with ids in (after, up_to], in id order, in batches. vec0 scans every row for an id
        range (460 ms at a million), so the ids come from its rowid table (a B-tree) and a few new rows are
        read one by one by id; many at once, by the scan."""
        while True:
            ids_found = self._new_ids(after, up_to, batch)
            if ids_found is not None and len(ids_found) <= _FEW:
                rows = self.store.db.rows_by_key(self.table, "item_id", ids_found, "item_id, t, embedding")
            elif up_to is None:
                rows = self.store.db.query(
                    f"SELECT item_id, t, embedding FROM {self.table} WHERE item_id > ? ORDER BY item_id LIMIT ?",
                    (after, batch),
                )
            else:
                rows = self.store.db.query(
                    f"SELECT item_id, t, embedding FROM {self.table} WHERE item_id > ? AND item_id <= ? "
                    "ORDER BY item_id LIMIT ?",
                    (after, up_to, batch),
                )
            if not rows:
                return
            ids = np.fromiter((r[0] for r in rows), np.int64, len(rows))
            times = np.fromiter((r[1] for r in rows), np.float64, len(rows))
            vectors = np.frombuffer(b"".join(r[2] for r in rows), np.float32).reshape(len(rows), self.dims)
            yield ids, times, vectors
            after = int(ids[-1])
            if len(rows) < batch:
                return

    def _new_ids(self, after: int, up_to: int | None, limit: int) -> list[int] | None:
        """Ids in (after, up_to] from vec0's rowid table (sqlite-vec's own B-tree); None where it has none."""
        shadow = f"{self.table}_rowids"
        if self._shadow is None:
            self._shadow = self.store.db.query_one("SELECT 1 FROM sqlite_master WHERE name = ?", (shadow,)) is not None
        if not self._shadow:
            return None
        return [
            int(r[0])
            for r in self.store.db.query(
                f"SELECT rowid FROM {shadow} WHERE rowid > ? AND rowid <= ? ORDER BY rowid LIMIT ?",
                (after, up_to if up_to is not None else 2**62, _FEW + 1 if limit > _FEW else limit),
            )
        ]

    def _seal(self) -> bool:
        """Seals the tail's first ``segment_rows`` rows into a segment; False where it cannot be written."""
        n = self.segment_rows
        segment = self._build(self._tail_ids[:n], self._tail_times[:n], self._tail[:n].astype(np.float32))
        if segment is None:
            return False
        self.segments.append(segment)
        self._tail_ids, self._tail_times, self._tail = self._tail_ids[n:], self._tail_times[n:], self._tail[n:]
        self._save_tail()  # under its new name (the new boundary), before the manifest that points at it
        self._save_manifest()
        return True

    def _build(
        self, ids: npt.NDArray[np.int64], times: npt.NDArray[np.float64], vectors: npt.NDArray[np.float32]
    ) -> _Segment | None:
        """An HNSW segment of these rows, written beside the database and opened memory-mapped; None where
        it cannot be written (the rows stay in the exact tail)."""
        from usearch.index import Index

        name = f"{int(ids[0])}-{int(ids[-1])}-{uuid.uuid4().hex[:8]}"
        index = Index(
            ndim=self.dims,
            metric="cos",
            dtype="i8",
            connectivity=CONNECTIVITY,
            expansion_add=EXPANSION_ADD,
            expansion_search=self.breadth,
        )
        # The graph is a function of its rows alone: built from their float16 values (what a sealed tail holds, and
        # what a segment made again from the table's float32 rows rounds to) on one thread (usearch's threads insert
        # in no fixed order: a segment made again would find other rows among equally near ones, and answer
        # otherwise; one thread takes ~11 s for 32,768 rows, two ~6 s, once a segment).
        exact = np.ascontiguousarray(vectors, np.float16)
        index.add(ids.astype(np.uint64), _int8(exact.astype(np.float32)), threads=1)
        files: dict[str, Any] = {}
        try:
            for suffix, write in (
                (".usearch", index.save),
                (".f16", lambda path: exact.tofile(path)),
                (".ids.npy", _saver(ids)),
                (".times.npy", _saver(times)),
            ):
                path = self.folder / f"{name}{suffix}"
                _atomic(path, write)
                files[path.name] = derived.file_record(path)
        except OSError as exc:
            log.warning(
                "cannot write a vector index segment under %s (%s): searching those rows exactly", self.folder, exc
            )
            return None
        del index
        segment = _Segment(name, int(ids[0]), int(ids[-1]), len(ids), float(times.min()), float(times.max()))
        segment.files = files
        return self._load(segment)

    def _load(self, segment: _Segment) -> _Segment:
        from usearch.index import Index

        base = self.folder / segment.name
        if segment.name in self._damaged:
            raise DamagedIndexError(self._damaged[segment.name])
        # Checked whole before usearch opens them (a million observations: 616 MB of graphs, ~60 ms from the page
        # cache, once a process), but the float16 rows: a search checks those it reads.
        unchecked = [
            n
            for n, r in segment.files.items()
            if not isinstance(r, dict) or (n, str(r.get("checksum"))) not in self._verified
        ]
        damage = derived.damage(self.folder, segment.files, whole=[n for n in unchecked if not n.endswith(".f16")])
        if damage is not None:
            raise DamagedIndexError(damage)
        self._verified.update((n, str(r["checksum"])) for n, r in segment.files.items())
        # Without usearch's key table: a view is only searched (hits come back with their keys all the same), and
        # making that table was half the time of opening a segment (a million observations: 30 segments, 0.11 s).
        index = Index.restore(str(base) + ".usearch", view=True, enable_key_lookups=False)
        if index is None or index.ndim != self.dims or len(index) != segment.count:
            raise ValueError(f"vector index segment {base}.usearch does not match its manifest")
        index.expansion_search = self.breadth  # type: ignore[misc]  # usearch's stub lacks the setter; a view forgets it
        segment.index = index
        segment.ids = np.load(str(base) + ".ids.npy", mmap_mode="r")
        segment.times = np.load(str(base) + ".times.npy", mmap_mode="r")
        if len(segment.ids) != segment.count or len(segment.times) != segment.count:
            raise ValueError(f"vector index segment {base} does not match its manifest")
        deleted = Path(str(base) + ".deleted.npy")
        segment.deleted = np.load(deleted) if deleted.exists() else np.empty(0, np.int64)
        segment.exact = str(base) + ".f16"
        if os.stat(segment.exact).st_size != segment.count * 2 * self.dims:
            raise ValueError(f"vector index segment {segment.exact} does not match its manifest")
        return segment

    def _refresh(self, writer: bool = False) -> None:
        """Re-reads the manifest when it changed (first use, or another process sealed or checked
        segments): its segments, memory-mapped, and the saved tail when it belongs to them. A damaged segment is
        set aside and made again from its rows (``writer``: this process may write the files); else a damaged or
        mismatched file drops the segments from it on (their rows are read into the tail)."""
        manifest = self.folder / "manifest.json"
        try:
            stat = manifest.stat()
            stamp: tuple[int, int] | None = (stat.st_mtime_ns, stat.st_size)
        except OSError:
            stamp = None
        if stamp == self._stamp:
            return
        self._stamp = stamp
        self.segments = []
        self._deletions = -1
        self._reset_tail()
        if stamp is None:
            return
        try:
            data = json.loads(manifest.read_text())
            if data.get("space") != self.space or int(data.get("dims", 0)) != self.dims:
                log.info("vector index %s was made by another model: rebuilding it", self.folder)
                return
            if data.get("format") != FORMAT:
                log.info("vector index %s is of an earlier format: rebuilding it", self.folder)
                return
            remade = False
            self._unrecorded = not isinstance(data.get("files"), dict)  # written before checksums: the writer adds them
            for entry in data.get("segments", []):
                segment = _Segment(
                    str(entry["name"]),
                    int(entry["lo"]),
                    int(entry["hi"]),
                    int(entry["count"]),
                    float(entry["t_min"]),
                    float(entry["t_max"]),
                )
                segment.files = self._records(segment.name, data.get("files"))
                try:
                    self.segments.append(self._load(segment))
                except DamagedIndexError as exc:
                    if not writer:
                        raise
                    remade = True
                    rebuilt = self._remade(segment, str(exc))
                    if rebuilt is not None:
                        self.segments.append(rebuilt)
            self._deletions = int(data.get("deletions", -1))
        except (OSError, ValueError, KeyError, TypeError, RuntimeError) as exc:
            log.warning(
                "vector index %s is unreadable (%s): rebuilding from segment %d", self.folder, exc, len(self.segments)
            )
            return
        self._load_tail(writer)
        if writer and (remade or self._unrecorded):
            self._unrecorded = False
            self._save_manifest()

    def _records(self, name: str, files: Any) -> dict[str, Any]:
        """A segment's files' records in the manifest; for a manifest written before there were any, the files as
        they are now (saved in the manifest by the next process that may write it)."""
        if isinstance(files, dict):
            return {n: r for n, r in files.items() if n.split(".")[0] == name}
        return {p.name: derived.file_record(p) for p in sorted(self.folder.glob(f"{name}.*"))}

    def _remade(self, segment: _Segment, damage: str) -> _Segment | None:
        """A damaged segment set aside and made again from the table's rows in its range; None where memory no longer
        holds any. Raises :class:`DamagedIndexError` where it cannot be written (its rows and those after it are then
        searched exactly)."""
        derived.set_aside(self.folder.parent, sorted(self.folder.glob(f"{segment.name}.*")), damage)
        self._damaged.pop(segment.name, None)
        parts = list(self._rows(segment.lo - 1, segment.hi))
        if not parts:
            return None
        rebuilt = self._build(
            np.concatenate([p[0] for p in parts]),
            np.concatenate([p[1] for p in parts]),
            np.concatenate([p[2] for p in parts]),
        )
        if rebuilt is None:
            raise DamagedIndexError(damage)
        rebuilt.lo, rebuilt.hi = segment.lo, segment.hi
        return rebuilt

    def _tail_files(self) -> tuple[Path, Path, Path]:
        """The saved tail: the rows after the segments, as of this many deletions (appended as rows come)."""
        stem = self.folder / f"tail-{self.boundary}-{self._deletions}"
        return Path(f"{stem}.ids"), Path(f"{stem}.times"), Path(f"{stem}.f16")

    def _tail_record(self) -> Path:
        """How many rows the saved tail holds and their checksums, written after them."""
        return self.folder / f"tail-{self.boundary}-{self._deletions}.json"

    def _load_tail(self, writer: bool = False) -> None:
        """The saved tail, memory-mapped (the rows its record names, once their checksums agree: one pass, 25 MB and
        ~3 ms at a million observations, over pages every search scans anyway): a new process reads none of it
        until then, and then from the page cache (reading it into the process's own memory was a tenth of a second of
        the first question at a million observations: 29 MB of new pages). The files are only appended to or
        replaced, never shortened under a mapping (:meth:`_save_tail`). A damaged tail is set aside (``writer``: this
        process may write the files) and its rows read from the table."""
        files = (ids_file, times_file, vectors_file, record_file) = (*self._tail_files(), self._tail_record())
        try:
            record = json.loads(record_file.read_text())
            n, written = int(record["rows"]), record["files"]
            damage = (
                derived.damage(self.folder, written) if isinstance(written, dict) else f"{record_file} is unreadable"
            )
        except FileNotFoundError:
            return  # none, or one saved without its record (cut short, or by an earlier version): read from the table
        except (OSError, ValueError, KeyError, TypeError) as exc:
            n, damage = 0, f"{record_file} is unreadable ({exc})"
        if damage is None and n:
            try:
                ids = np.memmap(ids_file, np.int64, mode="r", shape=(n,))
                times = np.memmap(times_file, np.float64, mode="r", shape=(n,))
                vectors = np.memmap(vectors_file, np.float16, mode="r", shape=(n, self.dims))
            except (OSError, ValueError) as exc:
                damage = f"the saved vector index tail {ids_file} cannot be read ({exc})"
            else:
                if ids[0] <= self.boundary or np.any(np.diff(ids) <= 0):
                    damage = f"the saved vector index tail {ids_file} does not follow its segments"
        if damage is not None:
            if writer:
                derived.set_aside(self.folder.parent, files, damage)
            else:
                log.warning("%s: reading its rows from memory", damage)
            return
        if n:
            self._tail_ids, self._tail_times, self._tail = ids, times, vectors
        self._recorded = (record_file, n)

    def _save_tail(self) -> None:
        """Appends to the saved tail the rows it lacks (a new file for a new boundary); earlier tails go. A file
        holding rows this process's tail lacks is replaced, not shortened: another process may have it mapped."""
        ids_file, times_file, vectors_file = self._tail_files()
        record_file = self._tail_record()
        files = (
            (vectors_file, self._tail, 2 * self.dims),
            (times_file, self._tail_times, 8),
            (ids_file, self._tail_ids, 8),
        )
        try:
            whole = min(path.stat().st_size // width if path.exists() else 0 for path, _, width in files)
            saved = 0
            if whole:  # the rows saved before: those up to the last whole row's id
                last = int(np.fromfile(ids_file, np.int64, count=1, offset=(whole - 1) * 8)[0])
                saved = int(np.searchsorted(self._tail_ids, last, side="right"))
            # Written anew where the file and this tail differ, or where no record of its rows was read (they might not
            # be what this tail holds: the record is made of this tail's rows).
            known = self._recorded is not None and self._recorded[0] == record_file
            keep = whole if saved == whole and known else 0
            for path, array, width in files:  # the ids last: a row counts once all three hold it
                if keep < whole:
                    path.unlink(missing_ok=True)
                with open(path, "ab") as f:
                    f.truncate(keep * width)  # past the rows all three hold: a save cut short
                    f.write(np.ascontiguousarray(array[keep:]).tobytes())
            if not (keep == whole == len(self._tail_ids) and self._recorded == (record_file, keep)):
                record = {
                    "rows": len(self._tail_ids),
                    "files": {path.name: derived.array_record(array) for path, array, _ in files},
                }
                _atomic(record_file, lambda p: Path(p).write_text(json.dumps(record)))
                self._recorded = (record_file, len(self._tail_ids))
        except OSError as exc:
            log.warning("cannot save the vector index tail under %s: %s", self.folder, exc)
            return
        for old in self.folder.glob("tail-*"):
            if old not in (ids_file, times_file, vectors_file, record_file):
                old.unlink(missing_ok=True)

    def _save_manifest(self) -> None:
        data = {
            "format": FORMAT,
            "space": self.space,
            "dims": self.dims,
            "deletions": self._deletions,
            "segments": [s.manifest() for s in self.segments],
            "files": {name: record for s in self.segments for name, record in s.files.items()},
        }
        manifest = self.folder / "manifest.json"
        try:
            _atomic(manifest, lambda p: Path(p).write_text(json.dumps(data, indent=1)))
            stat = manifest.stat()
            self._stamp = (stat.st_mtime_ns, stat.st_size)  # this process's own state: nothing to re-read
        except OSError as exc:
            log.warning("cannot write the vector index manifest under %s: %s", self.folder, exc)
            return
        used = {s.name for s in self.segments}
        for pattern in ("*.npy", "*.usearch", "*.f16"):
            for path in self.folder.glob(pattern):
                if path.name.split(".")[0] not in used and not path.name.startswith("tail-"):  # the tail's: its own
                    path.unlink(missing_ok=True)

    def _tombstones(self, writer: bool) -> None:
        """Finds each segment's rows memory no longer holds; rebuilds a segment more than half deleted
        (or dropped entirely), and one where an id it covers came back with a new vector (``writer``: this
        process may write the files; else the rows are left out in RAM only and a rebuild waits)."""
        live = np.fromiter(
            (
                r[0]
                for r in self.store.db.query(f"SELECT item_id FROM {self.table} WHERE item_id <= ?", (self.boundary,))
            ),
            np.int64,
        )
        live.sort()
        kept: list[_Segment] = []
        for segment in self.segments:
            inside = live[(live >= segment.lo) & (live <= segment.hi)]
            deleted = np.setdiff1d(segment.ids, inside, assume_unique=True)
            returned = len(inside) - (segment.count - len(deleted))  # ids reused by new rows
            if writer and (returned or 2 * len(deleted) > segment.count):
                if len(inside):
                    parts = list(self._rows(segment.lo - 1, segment.hi))
                    ids = np.concatenate([p[0] for p in parts])
                    rebuilt = self._build(
                        ids, np.concatenate([p[1] for p in parts]), np.concatenate([p[2] for p in parts])
                    )
                    if rebuilt is not None:
                        rebuilt.lo, rebuilt.hi = segment.lo, segment.hi
                        kept.append(rebuilt)
                continue
            segment.deleted = deleted
            if len(deleted):  # ids after its last live row may be given out again: they belong to the tail
                segment.hi = int(inside[-1]) if len(inside) else segment.lo - 1
            if writer:
                path = self.folder / f"{segment.name}.deleted.npy"
                _atomic(path, _saver(deleted))
                segment.files[path.name] = derived.file_record(path)
            kept.append(segment)
        self.segments = kept

    # -- search ----------------------------------------------------------------------------------------

    def search(self, query: npt.NDArray[np.float32], k: int, before: float | None = None) -> list[tuple[int, float]]:
        """The ``k`` rows most cosine-similar to ``query`` (as of ``before`` if given): (item id, similarity). A
        damaged file found on the way is set aside and made again (:meth:`recover`), and the search run again."""

        def run() -> list[tuple[int, float]]:
            return best([hit for hits in run_side_by_side(self.tasks(query, k, before)) for hit in hits], k)

        try:
            return run()
        except DamagedIndexError:
            self.recover()
            return run()

    def tasks(
        self, query: npt.NDArray[np.float32], k: int, before: float | None = None
    ) -> list[Callable[[], list[tuple[int, float]]]]:
        """The searches :meth:`search` runs (the tail, then each segment), for a caller that runs the searches of
        several indexes side by side (:func:`run_side_by_side`) and keeps the :func:`best` of them."""
        q = np.ascontiguousarray(query, np.float32).reshape(-1)
        tasks: list[Callable[[], list[tuple[int, float]]]] = []
        if len(self._tail_ids):  # the longest task first
            tasks.append(functools.partial(self._search_tail, q, k, before))
        q8 = _int8(q)[0]  # the question as the segments' graphs hold their rows
        tasks += [
            functools.partial(self._search_segment, segment, q, q8, k, before)
            for segment in self.segments
            if before is None or segment.t_min < before
        ]
        return tasks

    def _search_tail(self, q: npt.NDArray[np.float32], k: int, before: float | None) -> list[tuple[int, float]]:
        keep = None if before is None else np.flatnonzero(self._tail_times < before)
        base = self._tail if keep is None else np.ascontiguousarray(self._tail[keep])
        if not len(base):
            return []
        try:
            rows, scores = native.cosine_topk(q, base, k, threads=1)
        except ValueError as exc:  # a NaN or inf: the saved tail changed under this process's mapping
            self._suspect = True
            raise DamagedIndexError(f"the vector index tail under {self.folder} is damaged ({exc})") from exc
        positions = rows[0] if keep is None else keep[rows[0]]
        return [(int(self._tail_ids[r]), float(s)) for r, s in zip(positions, scores[0])]

    def _search_segment(
        self, segment: _Segment, q: npt.NDArray[np.float32], q8: npt.NDArray[np.int8], k: int, before: float | None
    ) -> list[tuple[int, float]]:
        cutoff = np.inf if before is None else before
        filtered = segment.t_max >= cutoff
        wanted = k + len(segment.deleted)
        fetch = min(segment.count, wanted * 4 if filtered else wanted)
        matches = segment.index.search(q8, fetch)
        keys = np.asarray(matches.keys, np.int64)
        keep = np.ones(len(keys), bool)
        if len(segment.deleted):
            keep &= ~np.isin(keys, segment.deleted)
        positions = np.searchsorted(segment.ids, keys)
        if filtered:
            keep &= segment.times[positions] < cutoff
        keys, positions = keys[keep], positions[keep]
        if filtered and len(keys) < k:  # the beam found too few before T: those rows, exactly
            eligible = np.flatnonzero(np.asarray(segment.times) < cutoff)
            if len(segment.deleted):
                eligible = eligible[~np.isin(segment.ids[eligible], segment.deleted)]
            keys, positions = segment.ids[eligible], eligible
        if not len(keys):
            return []
        rows = self._exact_rows(segment, positions)
        with np.errstate(all="ignore"):  # NaN, inf: damage, said below
            lengths = np.linalg.norm(rows, axis=1)
        if not np.all(lengths <= 1.01):  # unit vectors (and no NaN): random bytes are neither
            damage = f"{segment.exact} is not what was written (a row that is not a unit vector)"
            self._damaged[segment.name] = damage
            self._suspect = True
            raise DamagedIndexError(damage)
        sims = rows @ q
        order = np.argsort(-sims, kind="stable")[:k]
        return [(int(keys[i]), float(sims[i])) for i in order]

    def _exact_rows(self, segment: _Segment, positions: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
        """The float16 vectors of a segment's rows at these positions (read, not mapped: a few rows a search)."""
        if len(positions) > _FEW:
            return np.fromfile(segment.exact, np.float16).reshape(-1, self.dims)[positions].astype(np.float32)
        width = 2 * self.dims
        fd = os.open(segment.exact, os.O_RDONLY)
        try:
            raw = b"".join(os.pread(fd, width, int(p) * width) for p in positions)
        finally:
            os.close(fd)
        return np.frombuffer(raw, np.float16).reshape(-1, self.dims).astype(np.float32)

    def exact(self, query: npt.NDArray[np.float32], k: int) -> list[tuple[int, float]]:
        """The reference: the ``k`` nearest by sqlite-vec's exhaustive search of the table itself."""
        rows = self.store.db.query(
            f"SELECT item_id, distance FROM {self.table} WHERE embedding MATCH ? AND k = ? ORDER BY distance",
            (np.ascontiguousarray(query, np.float32).tobytes(), int(k)),
        )
        return [(int(i), 1.0 - float(d)) for i, d in rows]

    def similarities(self, query: npt.NDArray[np.float32], ids: Sequence[int]) -> dict[int, float]:
        """Exact cosine similarity of ``query`` to the table's rows ``ids`` (float32, from the table)."""
        if not ids:
            return {}
        rows = self.store.db.rows_by_key(self.table, "item_id", ids, "item_id, embedding")
        q = np.ascontiguousarray(query, np.float32).reshape(-1)
        return {int(i): float(np.frombuffer(blob, np.float32) @ q) for i, blob in rows}

    def file_bytes(self) -> int:
        """Bytes the index's files take on disk."""
        return sum(p.stat().st_size for p in self.folder.glob("*") if p.is_file()) if self.folder.exists() else 0


_pool: ThreadPoolExecutor | None = None


def searchers() -> ThreadPoolExecutor:
    """Threads that search side by side (one per core; segments, tails, the lexical index), made on first use."""
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=os.cpu_count() or 1, thread_name_prefix="vector-search")
    return _pool


def run_side_by_side(tasks: Sequence[Callable[[], list[tuple[int, float]]]]) -> list[list[tuple[int, float]]]:
    """Runs searches on :func:`searchers` (usearch and the native scan let go of the GIL: one per core at a
    time); each one's hits, in the order given."""
    if len(tasks) == 1:
        return [tasks[0]()]
    return list(searchers().map(lambda task: task(), tasks))


def best(hits: list[tuple[int, float]], k: int) -> list[tuple[int, float]]:
    """The ``k`` most similar of some hits, ties to the lower id."""
    return sorted(hits, key=lambda hit: (-hit[1], hit[0]))[:k]


def _int8(vectors: npt.NDArray[Any]) -> npt.NDArray[np.int8]:
    """Rows as int8 for the graph, each scaled so its largest component is 127 (cosine does not see a
    row's scale; usearch's own conversion would scale a unit vector's ~0.05 components to about 6)."""
    v = np.atleast_2d(np.asarray(vectors, np.float32))
    peak = np.abs(v).max(axis=1, keepdims=True)
    peak[peak == 0] = 1.0
    return np.ascontiguousarray(np.rint(v * (127.0 / peak)), np.int8)


def _atomic(path: Path, write: Any) -> None:
    """Writes through a temporary file in the same folder, then renames it over ``path``."""
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        write(str(tmp))
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _saver(array: npt.NDArray[Any]) -> Any:
    """Writes ``array`` as .npy to a path given (through a file object: np.save would add a suffix)."""

    def write(path: str) -> None:
        with open(path, "wb") as f:
            np.save(f, array, allow_pickle=False)

    return write
