"""Synthetic memories for benchmarks: ``n`` distinct entities, each with ``references`` observations
that are also its reference set, written straight to the tables. Association is skipped because the
entities are constructed distinct (random directions in a high-dimensional space); everything else
(rows, boxes, vectors, the index) is what ingest would have written."""

from __future__ import annotations

import json
import time

import numpy as np

from edge_agent.memory.store import Store
from edge_agent.memory.textindex import ITEM_TABLES, TextIndex

__all__ = ["seed_entities", "seed_memory", "seed_questions", "seed_text_vectors"]

_COLOURS = ("red", "blue", "green", "black", "white", "grey", "brown", "yellow")
_CATEGORIES = (
    ("person", "person"),
    ("dog", "animal"),
    ("cat", "animal"),
    ("cup", "object"),
    ("keys", "object"),
    ("laptop", "object"),
    ("chair", "object"),
    ("bottle", "object"),
    ("book", "object"),
    ("backpack", "object"),
)
_PLACES = (
    "at the top left",
    "at the top right",
    "in the centre",
    "at the bottom left",
    "at the bottom right",
    "by the sink",
    "on the sofa",
    "on the table",
    "by the door",
)
_MOTIONS = ("staying in place", "moving left", "moving right", "moving up")


def seed_questions(n: int, *, seed: int = 0) -> list[str]:
    """``n`` questions in a seeded memory's words (where is / what was at a place / when / how many times / what
    moved on a camera), drawn from its vocabulary: enough questions to measure a rate, not a dozen."""
    rng = np.random.default_rng(seed)
    forms = (
        "where is the {colour} {category}?",
        "the {colour} {category} {place}",
        "when was the {category} {place}?",
        "how many times was the {colour} {category} {place}?",
        "what was {motion} on camera{camera}?",
    )
    return [
        forms[int(rng.integers(len(forms)))].format(
            colour=_COLOURS[int(rng.integers(len(_COLOURS)))],
            category=_CATEGORIES[int(rng.integers(len(_CATEGORIES)))][0],
            place=_PLACES[int(rng.integers(len(_PLACES)))],
            motion=_MOTIONS[int(rng.integers(len(_MOTIONS)))],
            camera=int(rng.integers(3)),
        )
        for _ in range(n)
    ]


def seed_memory(
    store: Store,
    observations: int,
    *,
    per_clip: int = 4,
    entities: int | None = None,
    cameras: int = 3,
    seed: int = 0,
    batch: int = 1000,
) -> None:
    """A memory for retrieval benchmarks: 10-second clips of ``per_clip`` observations on a few cameras,
    each clip with a caption episode; entities seen with Zipf-like frequency; descriptions drawn from
    a template vocabulary (as the template describer writes them). No appearance vectors or reference
    sets: retrieval does not read them."""
    rng = np.random.default_rng(seed)
    entities = entities or max(1, observations // 20)
    kinds = rng.integers(0, len(_CATEGORIES), entities)
    colours = rng.integers(0, len(_COLOURS), entities)
    popularity = 1.0 / np.arange(1, entities + 1) ** 0.8
    cumulative = np.cumsum(popularity / popularity.sum())
    t0 = float(store.db.value("SELECT coalesce(max(t_end), 1.7e9) FROM clips")) + 10.0
    entity_ids: list[int] = []
    with store.write():
        for e in range(entities):
            category, kind = _CATEGORIES[kinds[e]]
            entity_ids.append(
                store.db.insert(
                    "INSERT INTO entities (kind, category, first_seen, last_seen, created_at) VALUES (?, ?, ?, ?, ?)",
                    (kind, category, t0, t0, time.time()),
                )
            )
        space_id = store._space("bench-appearance", 8)  # noqa: SLF001 - same package
    written = 0
    clip_index = 0
    last_seen: dict[int, float] = {}
    while written < observations:
        with store.write():
            first_clip = int(store.db.value("SELECT coalesce(max(id), 0) FROM clips")) + 1
            clips, rows, episodes = [], [], []
            for clip_id in range(first_clip, first_clip + batch // per_clip):
                if written >= observations:
                    break
                camera = f"camera{clip_index % cameras}"
                start = t0 + (clip_index // cameras) * 10.0
                clips.append((clip_id, camera, start, start + 10.0, time.time()))
                members = _draw(rng, cumulative, min(per_clip, observations - written, entities))
                names = []
                for track, e in enumerate(members):
                    category, kind = _CATEGORIES[kinds[e]]
                    text = (
                        f"a {_COLOURS[colours[e]]} {category} {_PLACES[rng.integers(len(_PLACES))]}, "
                        f"{_MOTIONS[rng.integers(len(_MOTIONS))]}"
                    )
                    rows.append(
                        (
                            clip_id,
                            entity_ids[e],
                            track,
                            camera,
                            kind,
                            category,
                            start + track,
                            start + 9.5,
                            text,
                            space_id,
                        )
                    )
                    last_seen[entity_ids[e]] = start + 9.5
                    names.append(category)
                episodes.append((camera, start, start + 10.0, clip_id, f"{camera}: " + ", ".join(sorted(names))))
                written += len(members)
                clip_index += 1
            store.db.executemany(
                "INSERT INTO clips (id, camera, t_start, t_end, keyframes, media_bytes, ingested_at) VALUES "
                "(?, ?, ?, ?, '[]', 0, ?)",
                clips,
            )
            store.db.executemany(
                "INSERT INTO observations (clip_id, entity_id, track_id, camera, kind, category, t_start, t_end, "
                "description, space_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
            store.db.executemany(
                "INSERT INTO episodes (scale, camera, t_start, t_end, clip_id, text) VALUES ('clip', ?, ?, ?, ?, ?)",
                episodes,
            )
    with store.write():
        store.db.executemany("UPDATE entities SET last_seen = ? WHERE id = ?", [(t, e) for e, t in last_seen.items()])


def _draw(rng: np.random.Generator, cumulative: np.ndarray, count: int) -> list[int]:
    """``count`` distinct entities drawn by popularity (inverse CDF: ``rng.choice`` with weights costs a pass
    over every entity per draw, which made a million observations take ten minutes)."""
    chosen: list[int] = []
    while len(chosen) < count:
        for e in np.minimum(np.searchsorted(cumulative, rng.random(2 * count)), len(cumulative) - 1):
            if int(e) not in chosen and len(chosen) < count:
                chosen.append(int(e))
    return chosen


def seed_text_vectors(
    store: Store, index: TextIndex, *, jitter: float = 0.5, seed: int = 0, batch: int = 16_384
) -> int:
    """Text vectors for every observation and episode ``index`` has not embedded, written in batches as
    ``index.update()`` would, but each text's vector (embedded once) moved by a random offset of norm about
    ``jitter`` and renormalised: a describer words each sighting its own way, where the template vocabulary
    would make a million rows of a few thousand distinct vectors. Returns how many were written."""
    rng = np.random.default_rng(seed)
    vectors: dict[str, np.ndarray] = {}
    written = 0
    for kind, (table, column) in ITEM_TABLES.items():
        mark_key = f"text_indexed:{kind}"
        while True:
            mark = store.db.query_one("SELECT value FROM meta WHERE key = ?", (mark_key,))
            rows = store.db.query(
                f"SELECT id, {column}, t_start FROM {table} WHERE id > ? AND {column} != '' ORDER BY id LIMIT ?",
                (int(mark[0]) if mark else 0, batch),
            )
            if not rows:
                break
            new = sorted({text for _, text, _ in rows if text not in vectors})
            if new:
                vectors.update(zip(new, np.asarray(index.embed(new), np.float32)))
            base = np.stack([vectors[text] for _, text, _ in rows])
            moved = base + rng.normal(0, jitter / np.sqrt(index.dims), base.shape).astype(np.float32)
            moved /= np.linalg.norm(moved, axis=1, keepdims=True)
            with store.write():
                store.db.executemany(
                    f"INSERT INTO vec_text_{kind} (item_id, embedding, t) VALUES (?, ?, ?)",
                    [(r[0], v.tobytes(), float(r[2])) for r, v in zip(rows, moved)],
                )
                store.db.execute(
                    "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = "
                    "excluded.value",
                    (mark_key, str(rows[-1][0])),
                )
            written += len(rows)
    return written


def seed_entities(
    store: Store,
    n: int,
    *,
    dims: int = 256,
    references: int = 4,
    boxes: int = 20,
    space: str = "bench-appearance",
    camera: str = "bench",
    seed: int = 0,
    batch: int = 2000,
) -> tuple[np.ndarray, list[int]]:
    """Adds ``n`` entities of kind object; returns their prototype vectors (n, dims), unit norm, so
    that probes can be drawn near them, and their entity ids."""
    rng = np.random.default_rng(seed)
    prototypes = rng.normal(size=(n, dims)).astype(np.float32)
    prototypes /= np.linalg.norm(prototypes, axis=1, keepdims=True)
    t0 = float(store.db.value("SELECT coalesce(max(t_end), 0) FROM clips")) + 10.0
    entity_ids: list[int] = []
    thresholds = store.config.thresholds["object"]
    for start in range(0, n, batch):
        with store.write():
            space_id = store._space(space, dims)  # noqa: SLF001 - same package
            clip_id = store.db.insert(
                "INSERT INTO clips (camera, t_start, t_end, keyframes, media_bytes, ingested_at) VALUES (?, ?, ?, "
                "'[]', 0, ?)",
                (camera, t0, t0 + 10.0, time.time()),
            )
            for e in range(start, min(n, start + batch)):
                entity_id = store.db.insert(
                    "INSERT INTO entities (kind, category, first_seen, last_seen, created_at) VALUES ('object', "
                    "'thing', ?, ?, ?)",
                    (t0, t0 + 10.0, time.time()),
                )
                entity_ids.append(entity_id)
                for r in range(references):
                    vector = prototypes[e] + rng.normal(0, 0.02, dims).astype(np.float32)
                    vector /= np.linalg.norm(vector)
                    track = (e - start) * references + r
                    observation_id = store.db.insert(
                        "INSERT INTO observations (clip_id, entity_id, track_id, camera, kind, category, t_start, "
                        "t_end, "
                        "description, space_id) VALUES (?, ?, ?, ?, 'object', 'thing', ?, ?, ?, ?)",
                        (
                            clip_id,
                            entity_id,
                            track,
                            camera,
                            t0,
                            t0 + 9.5,
                            f"a thing, synthetic entity {entity_id}",
                            space_id,
                        ),
                    )
                    store.db.executemany(
                        "INSERT INTO observation_boxes (observation_id, frame_ms, x1, y1, x2, y2, score) VALUES (?, "
                        "?, ?, ?, ?, ?, 0.9)",
                        [
                            (observation_id, int(t0 * 1000) + 500 * b, 10.0 * r, 10.0, 10.0 * r + 40, 50.0)
                            for b in range(boxes)
                        ],
                    )
                    store.db.execute(
                        f"INSERT INTO vec_obs_{space_id} (observation_id, embedding, kind, camera, t) VALUES (?, ?, "
                        "'object', ?, ?)",
                        (observation_id, vector.tobytes(), camera, t0),
                    )
                    store.db.execute(
                        "INSERT INTO association_log (observation_id, entity_id, created_entity, candidates, tau_low, "
                        "tau_high, decided_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (
                            observation_id,
                            entity_id,
                            int(r == 0),
                            json.dumps([]),
                            thresholds.tau_low,
                            thresholds.tau_high,
                            time.time(),
                        ),
                    )
                    store.associator.add_reference(entity_id, observation_id, "object", space_id, vector)
            store.db.execute(
                "INSERT INTO ingest_log (camera, clip_t_start, clip_t_end, clip_id, observations, committed_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (camera, t0, t0 + 10.0, clip_id, (min(n, start + batch) - start) * references, time.time()),
            )
        t0 += 10.0
    return prototypes, entity_ids
