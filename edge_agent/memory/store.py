"""The memory store: biographies of physical instances in SQLite + sqlite-vec, written one clip per
transaction. A clip and everything derived from it (observations, boxes, vectors, identity decisions)
commit together, keyed by (camera, clip start): writing the same clip again after a crash neither
duplicates nor loses, and the ingest log says where each camera resumes. A clip is written only where the disk
has room for it and still leaves the reserve ``memory prune`` needs: it is refused before it is written (and
again, measured, before it is committed), saying how much it needs and the cure that makes room."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import re
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import IO

import numpy as np

from edge_agent.clock import format_utc
from edge_agent.config.faces import FacesConfig
from edge_agent.config.paths import default_home
from edge_agent.config.places import PlacesConfig
from edge_agent.config.storage import DEFAULT_RESERVE_BYTES
from edge_agent.memory import consolidate, episodes, footprint, places, takings
from edge_agent.memory.associate import AssociationConfig, Associator
from edge_agent.memory.db import (
    CorruptMemoryError,
    Database,
    DatabaseError,
    StorageFullError,
    disk_bytes,
    free_bytes,
    human_bytes,
    make_private,
    out_of_memory,
)
from edge_agent.memory.faces import write_observation_faces
from edge_agent.memory.housekeeping import Housekeeping
from edge_agent.memory.reads import Reads
from edge_agent.memory.records import (
    KINDS,
    ClipRecord,
    Entity,
    IngestResult,
    InvalidRecordError,
    NotFoundError,
    ObservationRecord,
)
from edge_agent.memory.schema import VECTOR_CHUNK, vector_table_ddl

__all__ = ["DATABASE_FILE", "MissingMemoryError", "NotFoundError", "Store", "default_home"]


class MissingMemoryError(DatabaseError):
    """The memory database is gone while the pictures it described are still there."""


DATABASE_FILE = "memory.db"
LOCK_FILE = "memory.lock"
_COMMIT_SLACK = 64 << 10  # the commit's last frames and the WAL header, beyond what the page cache wrote out
_VECTOR_SLOT_EXTRA = 40  # bytes a vec0 slot takes beside its float32 vector: validity bit, row id, metadata


def _holds_files(folder: Path) -> bool:
    """Whether ``folder`` holds any file, at any depth (stops at the first)."""
    if not folder.is_dir():
        return False
    return any(files for _, _, files in os.walk(folder))


def _share_lock(home: Path) -> IO[bytes] | None:
    """A shared lock on ``<home>/memory.lock`` held while the store is open: ``memory restore`` takes it
    exclusively, so it never replaces a memory another process is using. None where the file cannot
    be made (a read-only home: nothing can be restored into it either)."""
    try:
        handle = os.fdopen(os.open(home / LOCK_FILE, os.O_CREAT | os.O_WRONLY | os.O_APPEND, 0o600), "ab")
    except OSError:
        return None
    try:
        fcntl.flock(handle, fcntl.LOCK_SH)
    except OSError:
        handle.close()
        return None
    return handle


class Store(Reads, Housekeeping):
    """The agent's memory under ``home``: ``memory.db`` and the ``media/`` folder of crops and keyframes.
    Here: opening, the write transaction and the ingest of a clip; the read path is :class:`Reads`
    (memory/reads.py), deletes of vectors and media :class:`Housekeeping` (memory/housekeeping.py).

    Use as a context manager or call :meth:`close`."""

    def __init__(
        self,
        home: str | Path | None = None,
        *,
        config: AssociationConfig | None = None,
        driver: str | None = None,
        consolidation: consolidate.ConsolidationConfig | None = None,
        places_config: PlacesConfig | None = None,
        faces: FacesConfig | None = None,
        mode: str = "write",
        check: bool = True,
        reserve_bytes: int = DEFAULT_RESERVE_BYTES,
    ) -> None:
        self.home = Path(home) if home is not None else default_home()
        self.reserve_bytes = reserve_bytes  #: free bytes a clip's write leaves on the disk (``[storage]``, see reserve)
        self.media_dir = self.home / "media"
        database = self.home / DATABASE_FILE
        if not database.exists() and _holds_files(self.media_dir):
            raise MissingMemoryError(
                f"the memory database {database} is missing but {self.media_dir} holds its pictures: "
                "`edge-agent memory restore BACKUP` puts a backup back (or move media/ away to start a new memory)"
            )
        if not self.home.exists():
            with contextlib.suppress(OSError):  # a read-only parent: Database says so
                self.home.mkdir(mode=0o700, parents=True)
        self.db = Database(database, driver=driver, mode=mode, check=check)
        self._lock_file = _share_lock(self.home)
        if not self.db.readonly:
            self.media_dir.mkdir(mode=0o700, exist_ok=True)
            if mode == "write":  # the folders, never a walk of their files: the home 0700 keeps those private
                for folder in (self.home, self.media_dir, self.home / "index"):
                    make_private(folder, 0o700)
        self.config = config or AssociationConfig()
        faces = faces or FacesConfig()
        self.associator = Associator(self.db, self.config, faces if faces.enabled is not False else None)
        self.consolidation = consolidation or consolidate.ConsolidationConfig()
        self.places_config = places_config or PlacesConfig()
        self.summarize: episodes.Summarizer | None = None  #: writes episode summaries (an LLM); None: extractive
        self._spaces: dict[str, tuple[int, int]] = {}
        self._load_spaces()
        self._seen_version = self.db.data_version()
        self.generation = 0  #: counts this connection's committed writes (caches key on it)

    @property
    def readonly(self) -> bool:
        """The memory was opened read-only (its medium or folder cannot be written)."""
        return self.db.readonly

    # -- the database file ---------------------------------------------------------------------------

    @property
    def database_path(self) -> str:
        return self.db.path

    @property
    def schema_version(self) -> int:
        return self.db.user_version

    @property
    def driver(self) -> str:
        """The SQLite binding in use (apsw)."""
        return self.db.driver

    @property
    def sqlite_vec_version(self) -> str:
        return self.db.sqlite_vec_version

    def data_version(self) -> int:
        """Changes whenever any connection commits: what caches of memory's vocabulary key on."""
        return self.db.data_version()

    def file_bytes(self) -> int:
        """The database's size on disk, its journal included."""
        return self.db.file_bytes()

    def growth_bytes(self) -> int:
        """Bytes committed to the journal that the database file has not yet taken in."""
        return self.db.growth_bytes()

    def checkpoint(self) -> None:
        """Moves what the journal holds into the database file."""
        self.db.checkpoint()

    # -- lifecycle ---------------------------------------------------------------------------------

    def close(self) -> None:
        self.db.close()
        if self._lock_file is not None:
            self._lock_file.close()  # releases the shared lock
            self._lock_file = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def sync(self) -> None:
        """Reloads in-memory state if another process committed since we last looked."""
        version = self.db.data_version()
        if version != self._seen_version:
            self._load_spaces()
            self.associator.index.reload()
            self._seen_version = version

    @contextlib.contextmanager
    def write(self, reserve: int = 0) -> Iterator[None]:
        """A write transaction. On rollback the in-memory mirrors (embedding spaces, the reference
        index) are reloaded from the database, so they never hold rows that were not committed. Before it commits,
        the disk must have room to checkpoint what it wrote into memory.db (a WAL that cannot be checkpointed fills
        a small disk for good) and, once the WAL is truncated, ``reserve`` bytes left: else it is rolled back
        (:class:`StorageFullError`)."""
        self.sync()
        journal = self.db.wal_bytes()
        try:
            with self.db.transaction(before_commit=lambda: self._room_to_commit(journal, reserve)):
                yield
        except BaseException:
            self._load_spaces()
            self.associator.index.reload()
            raise
        finally:
            self.generation += 1

    def _room_to_commit(self, journal: int, reserve: int) -> None:
        """Raises :class:`StorageFullError` where committing would leave the disk unable to checkpoint the WAL into
        memory.db, or with less than ``reserve`` free once it is (``journal``: the WAL's size when it began)."""
        growth = self.db.growth_bytes()
        if growth <= 0:
            return
        free = free_bytes(self.db.path)
        written = max(0, self.db.wal_bytes() - journal)  # given back when the WAL is truncated after the commit
        if free < growth + self.db.unwritten_bytes() + _COMMIT_SLACK or free - growth + written < reserve:
            raise StorageFullError(
                f"the disk holding the memory {self.db.path} has {human_bytes(free)} free: this write would grow "
                f"memory.db by {human_bytes(growth)} and leave less than {human_bytes(reserve)}; nothing of it was "
                "stored"
            )

    def forget_graph_changes(self, through: int) -> None:
        """Lets go of the record of which rows graph revisions up to ``through`` changed (:meth:`graph_changes`):
        a graph saved at that revision needs none of it. Not a change of memory: caches stay."""
        with self.db.transaction():
            self.db.execute("DELETE FROM graph_changes WHERE revision <= ?", (int(through),))

    def _load_spaces(self) -> None:
        self._spaces = {
            name: (int(i), int(d)) for i, name, d in self.db.query("SELECT id, name, dims FROM embedding_spaces")
        }

    def _space(self, name: str, dims: int) -> int:
        known = self._spaces.get(name)
        if known is not None:
            if known[1] != dims:
                raise InvalidRecordError(f"embedding space {name!r} has {known[1]} dimensions, got a vector of {dims}")
            return known[0]
        space_id = self.db.insert("INSERT INTO embedding_spaces (name, dims) VALUES (?, ?)", (name, dims))
        self.db.script(vector_table_ddl(space_id, dims))
        self._spaces[name] = (space_id, dims)
        return space_id

    def _file_bytes(self, relative: str | None) -> int:
        if relative is None:
            return 0
        path = self.media_path(relative)
        return path.stat().st_size if path.is_file() else 0

    # -- write path --------------------------------------------------------------------------------

    def ingest_clip(
        self,
        clip: ClipRecord,
        observations: Iterable[ObservationRecord],
        *,
        caption: str | None = None,
        speech: Sequence[tuple[float, float, str]] = (),
    ) -> IngestResult:
        """Writes a clip, its observations and their identity decisions in one transaction (and the
        clip's caption as a clip-scale episode, and its timestamped speech). A clip already in memory
        (same camera and start) is left as it is and its decisions returned.

        Raises :class:`StorageFullError` (nothing stored) where the disk has no room for the clip and the reserve
        (:attr:`reserve`), saying how much it needs and the cure. A full-text index found damaged by the write
        is rebuilt (it is made from memory's own text) and the clip written again."""
        if caption is not None and (not isinstance(caption, str) or len(caption) > 4000):
            raise InvalidRecordError("caption must be text of at most 4000 characters")
        records = sorted(observations, key=lambda o: (o.t_start, o.track_id))
        tracks = [r.track_id for r in records]
        if len(set(tracks)) != len(tracks):
            raise InvalidRecordError(f"track ids repeat within the clip: {sorted(tracks)}")
        for r in records:
            if r.t_start < clip.t_start - 1e-3 or r.t_end > clip.t_end + 1e-3:
                raise InvalidRecordError(
                    f"observation of track {r.track_id} spans {r.t_start}..{r.t_end}, outside its clip "
                    f"{clip.t_start}..{clip.t_end}"
                )
        try:
            return self._ingest(clip, records, caption, speech)
        except CorruptMemoryError as exc:
            if not exc.virtual_table or not self.db.recover_from_index_damage():
                raise
            return self._ingest(clip, records, caption, speech)
        except Exception as exc:  # FTS5 meeting damage in its structure may say it is out of memory
            if not out_of_memory(exc) or not self.db.repair_text_indexes(None):
                raise
            return self._ingest(clip, records, caption, speech)

    def _ingest(
        self,
        clip: ClipRecord,
        records: list[ObservationRecord],
        caption: str | None,
        speech: Sequence[tuple[float, float, str]],
    ) -> IngestResult:
        fresh = self.ingested(clip.camera, clip.t_start) is None
        if fresh:
            self.check_room(clip, records)
            self.db.settle_wal()
        try:
            with self.write(reserve=self.reserve if fresh else 0):
                result, folded = self._write_clip(clip, records, caption, speech)
        except StorageFullError:
            self.check_room(clip, records, failed=True)
            raise
        self.delete_media(folded)
        return result

    def _write_clip(
        self,
        clip: ClipRecord,
        records: list[ObservationRecord],
        caption: str | None,
        speech: Sequence[tuple[float, float, str]],
    ) -> tuple[IngestResult, list[str]]:
        """The clip's transaction (:meth:`ingest_clip`); returns its result and the media files consolidation let
        go (deleted once it is committed)."""
        existing = self.ingested(clip.camera, clip.t_start)
        if existing is not None:
            return IngestResult(existing, False, tuple(self._clip_decisions(existing))), []
        now = time.time()
        clip_id = self.db.insert(
            "INSERT INTO clips (camera, t_start, t_end, keyframes, media_bytes, ingested_at) VALUES (?, ?, ?, ?, ?, ?)",
            (
                clip.camera,
                clip.t_start,
                clip.t_end,
                json.dumps(list(clip.keyframes)),
                sum(self._file_bytes(k) for k in clip.keyframes),
                now,
            ),
        )
        placed: dict[int, tuple[int, float]] = {}  # track -> (place, likeness), for a camera without zones
        for i, r in enumerate(records):
            if r.surroundings is not None and not r.description.zone and not r.description.moving:
                # where it stands (a thing carried past is at no place)
                place_id, named, likeness = places.assign(
                    self.db,
                    clip.camera,
                    r.surroundings,
                    space=r.surroundings_space,
                    similarity=self.places_config.threshold(r.surroundings_space),
                )
                placed[r.track_id] = (place_id, likeness)
                if named:  # a place the user named: the thing was there
                    records[i] = replace(r, description=replace(r.description, zone=named))
        written = [(*self._write_observation(clip_id, clip.camera, r, placed.get(r.track_id)), r) for r in records]
        decisions = self.associator.associate_clip(
            [(observation_id, r, space_id) for observation_id, space_id, r in written], clip.camera, moving=clip.moving
        )
        if decisions:  # a later observation of the clip may have joined an earlier one's entity into another
            marks = ",".join("?" * len(decisions))
            now_in = dict(
                self.db.query(
                    f"SELECT id, entity_id FROM observations WHERE id IN ({marks})",
                    [d.observation_id for d in decisions],
                )
            )
            decisions = [
                d if now_in[d.observation_id] == d.entity_id else replace(d, entity_id=now_in[d.observation_id])
                for d in decisions
            ]
        self.db.executemany(
            "INSERT INTO clip_speech (clip_id, t_start, t_end, text) VALUES (?, ?, ?, ?)",
            [(clip_id, float(a), float(b), str(text)) for a, b, text in speech],
        )
        if caption:
            self.db.execute(
                "INSERT INTO episodes (scale, camera, t_start, t_end, clip_id, text) VALUES ('clip', ?, ?, ?, ?, ?)",
                (clip.camera, clip.t_start, clip.t_end, clip_id, caption),
            )
        if not clip.moving:  # a worn camera's things leave its view as it turns: none is taken
            takings.write(
                self.db,
                [
                    (decisions[i].observation_id, decisions[k].observation_id, t)
                    for i, k, t in takings.decide(records, clip.t_end)
                ],
            )
        sightings = [
            consolidate.Sighting(
                d.observation_id,
                d.entity_id,
                r.kind,
                r.t_start,
                r.t_end,
                r.description,
                np.median(np.asarray(r.boxes, np.float64), axis=0),
                r.category,
            )
            for r, d in zip(records, decisions)
        ]
        folded = consolidate.consolidate_clip(self.db, self.consolidation, clip_id, clip.camera, sightings)
        episodes.roll_up(
            self.db, clip.camera, before=clip.t_start, summarize=self.summarize
        )  # windows this clip is past are closed
        self.db.execute(
            "INSERT INTO ingest_log (camera, clip_t_start, clip_t_end, clip_id, observations, committed_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (clip.camera, clip.t_start, clip.t_end, clip_id, len(records), now),
        )
        return IngestResult(clip_id, True, tuple(decisions)), folded

    def _write_observation(
        self,
        clip_id: int,
        camera: str,
        r: ObservationRecord,
        place: tuple[int, float] | None = None,
    ) -> tuple[int, int]:
        """Writes one observation of the clip, without its entity; returns its id and its embedding space's."""
        space_id = self._space(r.embedding_space, int(r.embedding.size))
        d = r.description
        observation_id = self.db.insert(
            "INSERT INTO observations (clip_id, track_id, camera, kind, category, t_start, t_end, description, "
            "crop_path, media_bytes, space_id, colour, colour_second, rgb, pattern, size, zone, region, motion, "
            "place_id, place_score) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                clip_id,
                r.track_id,
                camera,
                r.kind,
                r.category,
                r.t_start,
                r.t_end,
                d.text,
                r.crop_path,
                self._file_bytes(r.crop_path),
                space_id,
                d.colour,
                d.colours[1] if len(d.colours) > 1 else "",
                None if d.rgb is None else (d.rgb[0] << 16) | (d.rgb[1] << 8) | d.rgb[2],
                d.pattern,
                d.size,
                d.zone,
                d.region,
                d.motion,
                *(place or (None, None)),
            ),
        )
        self.db.executemany(
            "INSERT INTO observation_company (observation_id, category, n) VALUES (?, ?, ?)",
            [(observation_id, c, n) for c, n in d.company],
        )
        frames = r.frame_ms.tolist()
        self.db.executemany(
            "INSERT INTO observation_boxes (observation_id, frame_ms, x1, y1, x2, y2, score) VALUES (?, ?, ?, ?, ?, "
            "?, ?)",
            [(observation_id, f, *map(float, b), float(s)) for f, b, s in zip(frames, r.boxes, r.scores)],
        )
        self.db.execute(
            f"INSERT INTO vec_obs_{space_id} (observation_id, embedding, kind, camera, t) VALUES (?, ?, ?, ?, ?)",
            (observation_id, r.embedding.tobytes(), r.kind, camera, r.t_start),
        )
        if r.faces is not None and self.associator.faces is not None:  # face processing off: no face is kept
            write_observation_faces(self.db, observation_id, r.face_space, r.faces)
        return observation_id, space_id

    def close_episodes(self, camera: str | None = None) -> list[int]:
        """Summarises the windows still open (of one camera, or all): for a recording that will not
        go on. A clip arriving later in one of them rewrites its summary."""
        with self.write():
            cameras = (
                [camera] if camera is not None else [r[0] for r in self.db.query("SELECT DISTINCT camera FROM clips")]
            )
            return [
                e for c in cameras for e in episodes.roll_up(self.db, c, before=float("inf"), summarize=self.summarize)
            ]

    def propose(self, kind: str, space: str, embedding: np.ndarray, category: str | None = None) -> Entity | None:
        """The entity this appearance (of a thing detected as ``category``, when given) most likely belongs
        to, without deciding anything (the decision is made at ingest, with the separation test)."""
        known = self._spaces.get(space)
        if known is None or kind not in KINDS:
            return None
        vector = np.ascontiguousarray(embedding, dtype=np.float32).reshape(-1)
        if vector.size != known[1]:
            return None
        self.sync()
        entity_id = self.associator.propose(
            kind, known[0], vector / max(float(np.linalg.norm(vector)), 1e-12), category
        )
        return None if entity_id is None else self.entity(entity_id)

    # -- room on the disk --------------------------------------------------------------------------

    @property
    def reserve(self) -> int:
        """The bytes a clip's write leaves free: :attr:`reserve_bytes`, but at most an eighth of the disk (a small
        disk, a 3 MB card, would otherwise be all reserve; pruning its few clips needs little)."""
        return min(self.reserve_bytes, disk_bytes(self.db.path) // 8)

    def room_needed(self, records: Sequence[ObservationRecord], *, emptied: bool = False) -> tuple[int, int]:
        """(bytes memory.db grows by to hold a clip of these records, the part of it that is new vector chunks): a
        generous estimate of the rows (vectors, boxes, text, index entries, a page margin), and exactly the vec0
        chunks its vectors open. sqlite-vec allocates a chunk of ``chunk_size`` slots whole when a partition (a kind)
        has no free slot: a new space's tables have :data:`~edge_agent.memory.schema.VECTOR_CHUNK` (64: 128 KiB of
        512-d vectors), an older memory's 1,024 (2 MiB), in the observations' and the references' tables.
        ``emptied``: as if pruning had emptied its kinds' chunks (the last row of a chunk takes it with it)."""
        rows = 256 * 1024 + sum(
            2 * r.embedding.nbytes + 64 * len(r.boxes) + 2048 + 4 * len(r.description.text) for r in records
        )
        wanted: dict[tuple[str, str], tuple[int, int]] = {}  # (space, kind) -> (dims, vectors)
        for r in records:
            dims, count = wanted.get((r.embedding_space, r.kind), (int(r.embedding.size), 0))
            wanted[(r.embedding_space, r.kind)] = (dims, count + 1)
        chunks = 0
        for (space, kind), (dims, count) in wanted.items():
            known = self._spaces.get(space)
            for prefix in ("vec_obs", "vec_ref"):
                size, free = self._latest_chunk(f"{prefix}_{known[0]}", kind) if known else (VECTOR_CHUNK, 0)
                free = 0 if emptied else free
                if count > free:
                    chunks += -(-(count - free) // size) * size * (4 * dims + _VECTOR_SLOT_EXTRA)
        return rows + chunks, chunks

    def _latest_chunk(self, table: str, kind: str) -> tuple[int, int]:
        """(slots a chunk of ``table`` has, slots free in the newest chunk of partition ``kind``, where sqlite-vec
        puts the next vector)."""
        ddl = str(self.db.value("SELECT sql FROM sqlite_schema WHERE name = ?", (table,)) or "")
        configured = re.search(r"chunk_size\s*=\s*(\d+)", ddl)
        size = int(configured.group(1)) if configured else 1024
        if not ddl:
            return size, 0
        row = self.db.query_one(
            f"SELECT size, validity FROM {table}_chunks WHERE partition00 = ? ORDER BY chunk_id DESC LIMIT 1", (kind,)
        )
        if row is None:
            return size, 0
        return int(row[0]), int(row[0]) - int.from_bytes(bytes(row[1]), "little").bit_count()

    def check_room(
        self, clip: ClipRecord, records: Sequence[ObservationRecord], *, media: int = 0, failed: bool = False
    ) -> None:
        """Raises :class:`StorageFullError` where the disk lacks room for a clip of these records and ``media``
        bytes of pictures: what memory.db grows by, twice (the WAL, then memory.db when it is checkpointed), or
        once and :attr:`reserve` left. ``failed``: the clip's transaction failed on a full disk (the
        disk filled meanwhile): the same account of what it needs, where the disk is short of it."""
        growth, chunks = self.room_needed(records)
        reserve = self.reserve
        need = media + max(2 * growth, growth + reserve)
        free = free_bytes(self.db.path)
        if free >= need:  # after a failure: not for want of disk (a quota, SQLite's max_page_count): its own error
            return
        what = f"the {clip.camera} clip at {format_utc(clip.t_start)} UTC"
        opened = f", {human_bytes(chunks)} of it new vector chunks" if chunks else ""
        raise StorageFullError(
            f"{what} needs about {human_bytes(need)} on the disk holding {self.home} ({human_bytes(media)} of "
            f"pictures, {human_bytes(growth)} of records{opened}, written to the journal and then into memory.db, and "
            f"{human_bytes(reserve)} kept free for pruning, [storage] reserve_bytes); "
            f"{human_bytes(free)} are free: nothing of it was stored. "
            + self._cure(need - free, self.room_needed(records, emptied=True)[0] - growth)
        )

    def _cure(self, shortfall: int, reopened: int) -> str:
        """What makes ``shortfall`` more bytes free: a prune to a cap that deletes enough of the oldest clips, where
        deleting clips can; else room on the disk. ``reopened``: the vector chunks the clip would open again were its
        kinds' chunks emptied (a prune down to near an empty memory deletes their last rows): counted, twice, where
        the cap comes that close."""
        elsewhere = "free space on that disk, or give a --home on a larger disk"
        if self.db.value("SELECT 1 FROM clips LIMIT 1") is None:
            return f"This memory holds no clip to prune: {elsewhere}."
        empty = footprint.empty_bytes(self)
        cap = footprint.usage(self) - max(shortfall, 0)
        if cap < empty + reopened:
            cap -= 2 * reopened
        if cap < empty:
            return f"Deleting every clip would not make that much room: {elsewhere}."
        return (
            f"`edge-agent memory prune --max-bytes {cap // 1024 * 1024}` makes room (it deletes the oldest clips), or "
            f"{elsewhere}."
        )

    def save_media(self, files: dict[str, bytes], *, need: int | None = None, what: str = "this clip") -> list[str]:
        """Writes media files (relative path -> bytes) before the records that name them are committed,
        checking first that the disk has room for ``need`` bytes (the files and their records). Returns the
        files it created; on a failure it removes them again and raises (:class:`StorageFullError` for a
        full disk, saying how much was needed)."""
        need = sum(len(b) for b in files.values()) if need is None else need
        free = free_bytes(self.media_dir)
        if free < need:
            raise StorageFullError(
                f"the disk holding {self.home} is full: {what} needs about {human_bytes(need)} ({len(files)} pictures "
                "and "
                f"their records), {human_bytes(free)} are free; nothing of it was stored. Free some space, or lower "
                "the "
                "memory's cap (`edge-agent memory prune --max-bytes`)"
            )
        created: list[str] = []
        try:
            for relative, data in files.items():
                path = self.media_path(relative)
                path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                fresh = not path.exists()
                with open(path, "wb") as f:
                    if fresh:
                        created.append(relative)
                    f.write(data)
        except OSError as exc:
            self.delete_media(created)
            if exc.errno == errno.ENOSPC:
                raise StorageFullError(
                    f"the disk holding {self.home} filled up while {what} was written (it needs about "
                    f"{human_bytes(need)}): "
                    "nothing of it was stored. Free some space, or lower the memory's cap (`edge-agent memory prune "
                    "--max-bytes`)"
                ) from None
            raise
        return created
