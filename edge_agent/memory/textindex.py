"""The semantic half of GEB's hybrid index (section 3.4): text embeddings of observation descriptions
and episode captions, stored in sqlite-vec, searched together with the lexical half (FTS5 BM25, in the
schema). Vectors are added on demand for whatever memory holds that has none yet, identical texts
embedded once (template descriptions repeat a lot); every vector carries its item's start time for
questions asked as of T.

Search goes through :class:`~edge_agent.memory.vectorindex.SegmentedVectors`: HNSW segments memory-mapped
from beside the database and an exact tail in RAM (sqlite-vec's exhaustive KNN took ~90 ms over 125k x 384
here; a year of memory is a million rows).

Where memory cannot be written (a read-only medium, a full disk) the indexes live in scratch tables
for the process (SQLite's temp schema, in RAM), so questions are still answered: nothing is stored."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from edge_agent.config.retrieval import VectorIndexConfig
from edge_agent.memory.db import ReadOnlyMemoryError, StorageFullError
from edge_agent.memory.derived import DamagedIndexError
from edge_agent.memory.store import Store
from edge_agent.memory.vectorindex import SegmentedVectors, best, run_side_by_side

__all__ = ["KeyframeIndex", "TextHit", "TextIndex"]

ITEM_TABLES = {"observation": ("observations", "description"), "episode": ("episodes", "text")}

# Function words: ORed into a BM25 query they match every record and drown the content words.
STOPWORDS = frozenset(
    """
a about above after again against all am an and any are as at be because been before being below between both
but by can could did do does doing down during each few for from further had has have having he her here hers
him his how i if in into is it its itself just me more most my no nor not now of off on once only or other our
out over own same she should so some such than that the their them then there these they this those through to
too under until up very was we were what when where which while who whom why will with would you your
""".split()
)


@dataclass(frozen=True)
class TextHit:
    kind: str  #: "observation" or "episode"
    id: int
    similarity: float  #: cosine


_VEC_COLUMNS = "item_id INTEGER PRIMARY KEY, embedding float[{dims}] distance_metric=cosine, t FLOAT"


def _scratch_tables(store: Store, tables: Sequence[str], dims: int, *, space_key: str, space: str) -> None:
    """Scratch copies (temp schema, in RAM) of index tables and of ``meta``, for a memory that cannot be
    written: unqualified names resolve to temp first, so the index code reads and writes them unchanged.
    What the file already holds is copied when it was made by the same model."""
    db = store.db
    with store.write():
        db.execute("CREATE TEMP TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute("INSERT OR IGNORE INTO temp.meta (key, value) SELECT key, value FROM main.meta")
        same_model = (db.query_one("SELECT value FROM main.meta WHERE key = ?", (space_key,)) or (None,))[0] == space
        for table in tables:
            if db.query_one("SELECT 1 FROM sqlite_temp_master WHERE name = ?", (table,)):
                continue
            db.execute(f"CREATE VIRTUAL TABLE temp.{table} USING vec0 ({_VEC_COLUMNS.format(dims=dims)})")
            if same_model and db.query_one("SELECT 1 FROM main.sqlite_master WHERE name = ?", (table,)):
                db.execute(
                    f"INSERT INTO temp.{table} (item_id, embedding, t) SELECT item_id, embedding, t FROM main.{table}"
                )
        if not same_model:
            db.execute(
                "DELETE FROM temp.meta WHERE key LIKE ? OR key = ?",
                (space_key.replace("space", "indexed") + "%", space_key),
            )


class TextIndex:
    """``embed`` turns texts into (N, dims) L2-normalised float32 vectors of the model named ``space``.
    ``vectors``: how the nearest are found (default: HNSW segments of 32,768 rows)."""

    def __init__(
        self,
        store: Store,
        embed: Callable[[Sequence[str]], np.ndarray],
        space: str,
        dims: int,
        vectors: VectorIndexConfig | None = None,
    ) -> None:
        self.store = store
        self.embed = embed
        self.space = f"{space}:{dims}"
        self.dims = dims
        self._mirrors = {
            kind: SegmentedVectors(store, f"vec_text_{kind}", dims, self.space, vectors) for kind in ITEM_TABLES
        }
        self._mirrored_at: tuple[int, int] | None = None
        self._fts_rows: tuple[tuple[int, int] | None, dict[str, int]] = (None, {})
        self._doc_counts: dict[tuple[str, str], tuple[int, int]] = {}  #: (fts, word) -> (documents, records then)
        self.scratch = False  #: the index lives in RAM for this process: memory cannot be written
        try:
            self._create()
        except (ReadOnlyMemoryError, StorageFullError):
            self._to_scratch()
        db = store.db
        for fts in (
            "observation_fts",
            "episode_fts",
        ):  # document counts of words, for lexical() to leave common ones out
            db.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{fts}_vocab USING fts5vocab(main, {fts}, 'row')")

    def _create(self) -> None:
        db = self.store.db
        if self.store.readonly:
            raise ReadOnlyMemoryError(self.store.db.path)
        current = db.query_one("SELECT value FROM meta WHERE key = 'text_space'")
        with self.store.write():
            if current is not None and current[0] != self.space:
                # Another text model: its vectors are not comparable; start over.
                for kind in ITEM_TABLES:
                    db.execute(f"DROP TABLE IF EXISTS vec_text_{kind}")
                db.execute("DELETE FROM meta WHERE key LIKE 'text_indexed:%'")
            for kind in ITEM_TABLES:
                db.execute(
                    f"CREATE VIRTUAL TABLE IF NOT EXISTS vec_text_{kind} USING vec0 "
                    f"({_VEC_COLUMNS.format(dims=self.dims)})"
                )
            db.execute(
                "INSERT INTO meta (key, value) VALUES ('text_space', ?) ON CONFLICT (key) DO UPDATE SET value = "
                "excluded.value",
                (self.space,),
            )

    def _to_scratch(self) -> None:
        _scratch_tables(
            self.store,
            [f"vec_text_{kind}" for kind in ITEM_TABLES],
            self.dims,
            space_key="text_space",
            space=self.space,
        )
        self.store.db.execute("INSERT OR REPLACE INTO temp.meta (key, value) VALUES ('text_space', ?)", (self.space,))
        self.scratch = True
        self._mirrored_at = None

    def _indexed_up_to(self, kind: str) -> int:
        """Every item with an id up to this has its vector (a high-water mark in meta, lowered when
        vectors are deleted, since SQLite may hand a deleted top id out again)."""
        row = self.store.db.query_one("SELECT value FROM meta WHERE key = ?", (f"text_indexed:{kind}",))
        return int(row[0]) if row else 0

    def pending(self) -> int:
        return sum(
            int(
                self.store.db.value(
                    f"SELECT count(*) FROM {table} WHERE id > ? AND {column} != ''", (self._indexed_up_to(kind),)
                )
            )
            for kind, (table, column) in ITEM_TABLES.items()
        )

    def update(self, batch: int = 2048) -> int:
        """Embeds every item without a vector; returns how many were added."""
        added = 0
        vectors: dict[str, np.ndarray] = {}  # identical texts are embedded once per update
        for kind, (table, column) in ITEM_TABLES.items():
            while rows := self.store.db.query(
                f"SELECT id, {column}, t_start FROM {table} WHERE id > ? ORDER BY id LIMIT ?",
                (self._indexed_up_to(kind), batch),
            ):
                new = sorted({text for _, text, _ in rows if text and text not in vectors})
                if new:
                    vectors.update(zip(new, np.asarray(self.embed(new), dtype=np.float32)))
                try:
                    with self.store.write():
                        # Items above a lowered mark may have vectors already: replace them (vec0 has no upsert).
                        self.store.db.executemany(
                            f"DELETE FROM vec_text_{kind} WHERE item_id = ?", [(r[0],) for r in rows]
                        )
                        self.store.db.executemany(
                            f"INSERT INTO vec_text_{kind} (item_id, embedding, t) VALUES (?, ?, ?)",
                            [(item_id, vectors[text].tobytes(), float(t)) for item_id, text, t in rows if text],
                        )
                        self.store.db.execute(
                            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = "
                            "excluded.value",
                            (f"text_indexed:{kind}", str(rows[-1][0])),
                        )
                except (ReadOnlyMemoryError, StorageFullError):
                    if self.scratch:
                        raise
                    self._to_scratch()  # the disk filled up: this process indexes in RAM from here on
                    continue
                added += sum(1 for _, text, _ in rows if text)
        return added

    def sync(self) -> None:
        """Brings the vector search up to date with the tables (seals full tails into HNSW segments)."""
        version = (self.store.db.data_version(), self.store.generation)
        if version != self._mirrored_at:
            for mirror in self._mirrors.values():
                mirror.sync()
            self._mirrored_at = version

    @property
    def vectors(self) -> dict[str, SegmentedVectors]:
        """The vector search of each kind ("observation", "episode")."""
        return self._mirrors

    def search(self, question_vector: np.ndarray, k: int = 50, *, before: float | None = None) -> list[TextHit]:
        """The k nearest observations and the k nearest episodes, as of ``before`` if given."""
        vector = np.ascontiguousarray(question_vector, dtype=np.float32).reshape(-1)
        if vector.size != self.dims:
            raise ValueError(f"question vector has {vector.size} dimensions, the text index {self.dims}")
        self.sync()
        try:
            per_kind = self._search(vector, int(k), before)
        except DamagedIndexError:  # a file under index/ found damaged: set aside, made again, searched again
            for mirror in self._mirrors.values():
                mirror.recover()
            per_kind = self._search(vector, int(k), before)
        hits = [TextHit(kind, i, s) for kind, found in per_kind.items() for i, s in best(found, int(k))]
        return sorted(hits, key=lambda h: -h.similarity)

    def _search(self, vector: np.ndarray, k: int, before: float | None) -> dict[str, list[tuple[int, float]]]:
        # The searches of both kinds at once, side by side: their segments and tails share the cores.
        tasks = [(kind, task) for kind, mirror in self._mirrors.items() for task in mirror.tasks(vector, k, before)]
        per_kind: dict[str, list[tuple[int, float]]] = {kind: [] for kind in self._mirrors}
        for (kind, _), found in zip(tasks, run_side_by_side([task for _, task in tasks])):
            per_kind[kind] += found
        return per_kind

    def similarities(self, question_vector: np.ndarray, kind: str, ids: Sequence[int]) -> dict[int, float]:
        """Cosine similarity of the question to given items (those with a vector)."""
        return self._mirrors[kind].similarities(question_vector, ids)

    def lexical(
        self, query: str, k: int = 50, *, before: float | None = None, window: int = 2000
    ) -> list[tuple[str, int, float]]:
        """FTS5 matches of the question's words: (kind, id, score), best first. The question is reduced to
        its words, so that punctuation and FTS syntax in it are harmless. A word found in half the records or
        more is left out: it tells nothing (BM25's IDF is ~0 there).

        Scored among the newest ``window`` records that match any word (as of ``before``), found by walking
        the matches newest first; a record scores the BM25 IDF of each word it holds (short descriptions hold
        a word once or not at all), ties to the newer. FTS5's own bm25() reads every record holding a word
        to weigh it (18 ms a question at a million records, and growing); here the weights come from
        document counts this process keeps, and the work is what the window holds."""
        words = [
            w
            for w in "".join(c if c.isalnum() else " " for c in query.lower()).split()
            if len(w) > 1 and w not in STOPWORDS
        ]
        out = []
        for kind, fts, table in (
            ("observation", "observation_fts", "observations"),
            ("episode", "episode_fts", "episodes"),
        ):
            weights = self._weights(fts, words)
            if not weights:
                continue
            db = self.store.db
            any_word = " OR ".join(f'"{w}"' for w in weights)
            if before is None:  # no join: every match would cost a row lookup
                start = db.value(
                    f"SELECT rowid FROM {fts} WHERE {fts} MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?",
                    (any_word, int(window) - 1),
                )
                holding = f"SELECT rowid FROM {fts} WHERE {fts} MATCH ? AND rowid >= ?"
                bounds: tuple[float, ...] = ()
            else:
                start = db.value(
                    f"SELECT f.rowid FROM {fts} f JOIN {table} x ON x.id = f.rowid WHERE {fts} MATCH ? "
                    "AND x.t_start < ? ORDER BY f.rowid DESC LIMIT 1 OFFSET ?",
                    (any_word, float(before), int(window) - 1),
                )
                holding = (
                    f"SELECT f.rowid FROM {fts} f JOIN {table} x ON x.id = f.rowid WHERE {fts} MATCH ? "
                    "AND f.rowid >= ? AND x.t_start < ?"
                )
                bounds = (float(before),)
            scores: dict[int, float] = {}
            for word, weight in weights.items():
                for (rowid,) in db.query(holding, (f'"{word}"', int(start or 0), *bounds)):
                    scores[rowid] = scores.get(rowid, 0.0) + weight
            best = sorted(scores.items(), key=lambda item: (-item[1], -item[0]))[: int(k)]
            out += [(kind, int(i), score) for i, score in best]
        return sorted(out, key=lambda x: -x[2])

    def _weights(self, fts: str, words: list[str]) -> dict[str, float]:
        """BM25's IDF of each informative word of ``fts``: found in some records but fewer than half of them
        (document counts from an fts5vocab table in the connection's temp schema: nothing is added to the
        memory file)."""
        if not words:
            return {}
        db = self.store.db
        vocab = f"temp.{fts}_vocab"  # made with the index (the temp schema lives as long as the connection)
        version = (db.data_version(), self.store.generation)
        if self._fts_rows[0] != version:
            self._fts_rows = (version, {})
        if fts not in self._fts_rows[1]:
            # Records by the span of their ids (counting an FTS5 table reads all of it: 9 ms at 100k; only
            # forgetting leaves holes in the span, and then a few more words count as informative).
            # (FTS5 answers ORDER BY rowid from its index, but scans for max() and min(): 45 ms at a million)
            self._fts_rows[1][fts] = int(
                db.value(
                    f"SELECT coalesce((SELECT rowid FROM {fts} ORDER BY rowid DESC LIMIT 1) - "
                    f"(SELECT rowid FROM {fts} ORDER BY rowid LIMIT 1) + 1, 0)"
                )
            )
        total = self._fts_rows[1][fts]
        # A word's document count reads its whole posting list (32 ms a question at a million records): counted
        # once, and again only when the records have grown by a tenth (or shrunk) since.
        counted = {w: self._doc_counts.get((fts, w)) for w in dict.fromkeys(words)}
        stale = sorted({w for w, c in counted.items() if c is None or not c[1] <= total <= 1.1 * c[1]})
        if stale:
            found = dict(
                db.query(f"SELECT term, doc FROM {vocab} WHERE term IN ({','.join('?' * len(stale))})", tuple(stale))
            )
            for w in stale:
                counted[w] = self._doc_counts[(fts, w)] = (int(found.get(w, 0)), total)
        return {
            w: math.log(1.0 + (n - docs + 0.5) / (docs + 0.5))
            for w, c in counted.items()
            if c is not None
            for docs, n in [c]
            if docs and 2 * docs < n
        }


class KeyframeIndex:
    """Image embeddings of the clips' keyframes (their first keyframe), for questions matched to what a
    clip looked like. ``embed_images`` turns BGR images into (N, dims) L2-normalised vectors of the
    image-text model named ``space``; questions are embedded by the same model's text tower. Filled on
    demand like the text index; forget and retention remove a clip's vector with its keyframes."""

    TABLE = "vec_keyframe"

    def __init__(
        self,
        store: Store,
        embed_images: Callable[[Sequence[np.ndarray]], np.ndarray],
        space: str,
        dims: int,
        vectors: VectorIndexConfig | None = None,
    ) -> None:
        self.store = store
        self._embed = embed_images
        self.space = f"{space}:{dims}"
        self.dims = dims
        self._mirror = SegmentedVectors(store, self.TABLE, dims, self.space, vectors)
        self._mirrored_at: tuple[int, int] | None = None
        self.scratch = False  #: the index lives in RAM for this process: memory cannot be written
        try:
            self._create()
        except (ReadOnlyMemoryError, StorageFullError):
            self._to_scratch()

    def _create(self) -> None:
        db = self.store.db
        if self.store.readonly:
            raise ReadOnlyMemoryError(db.path)
        current = db.query_one("SELECT value FROM meta WHERE key = 'keyframe_space'")
        with self.store.write():
            if current is not None and current[0] != self.space:
                db.execute(f"DROP TABLE IF EXISTS {self.TABLE}")
                db.execute("DELETE FROM meta WHERE key = 'keyframe_indexed'")
            db.execute(
                f"CREATE VIRTUAL TABLE IF NOT EXISTS {self.TABLE} USING vec0 ({_VEC_COLUMNS.format(dims=self.dims)})"
            )
            db.execute(
                "INSERT INTO meta (key, value) VALUES ('keyframe_space', ?) ON CONFLICT (key) DO UPDATE SET value = "
                "excluded.value",
                (self.space,),
            )

    def _to_scratch(self) -> None:
        _scratch_tables(self.store, [self.TABLE], self.dims, space_key="keyframe_space", space=self.space)
        self.store.db.execute(
            "INSERT OR REPLACE INTO temp.meta (key, value) VALUES ('keyframe_space', ?)", (self.space,)
        )
        self.scratch = True
        self._mirrored_at = None

    def update(self, batch: int = 64) -> int:
        import cv2

        added = 0
        while True:
            mark = self.store.db.query_one("SELECT value FROM meta WHERE key = 'keyframe_indexed'")
            rows = self.store.db.query(
                "SELECT id, t_start, keyframes FROM clips WHERE id > ? ORDER BY id LIMIT ?",
                (int(mark[0]) if mark else 0, batch),
            )
            if not rows:
                return added
            found = []
            for clip_id, t, keyframes in rows:
                paths = json.loads(keyframes)
                image = cv2.imread(str(self.store.media_path(paths[0]))) if paths else None
                if image is not None:
                    found.append((clip_id, t, image))
            vectors = (
                np.asarray(self._embed([f[2] for f in found]), np.float32)
                if found
                else np.empty((0, self.dims), np.float32)
            )
            try:
                with self.store.write():
                    self.store.db.executemany(f"DELETE FROM {self.TABLE} WHERE item_id = ?", [(f[0],) for f in found])
                    self.store.db.executemany(
                        f"INSERT INTO {self.TABLE} (item_id, embedding, t) VALUES (?, ?, ?)",
                        [(f[0], v.tobytes(), float(f[1])) for f, v in zip(found, vectors)],
                    )
                    self.store.db.execute(
                        "INSERT INTO meta (key, value) VALUES ('keyframe_indexed', ?) "
                        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                        (str(rows[-1][0]),),
                    )
            except (ReadOnlyMemoryError, StorageFullError):
                if self.scratch:
                    raise
                self._to_scratch()
                continue
            added += len(found)

    def search(
        self, question_vector: np.ndarray, k: int = 10, *, before: float | None = None
    ) -> list[tuple[int, float]]:
        """(clip id, cosine similarity) of the k keyframes nearest the question."""
        version = (self.store.db.data_version(), self.store.generation)
        if version != self._mirrored_at:
            self._mirror.sync()
            self._mirrored_at = version
        return self._mirror.search(np.ascontiguousarray(question_vector, np.float32).reshape(-1), int(k), before)
