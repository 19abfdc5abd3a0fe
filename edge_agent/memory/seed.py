"""Synthetic memories for benchmarks: ``n`` distinct entities, each with ``references`` observations
that are also its reference set, written straight to the tables. Association is skipped because the
entities are constructed distinct (random directions in a high-dimensional space); everything else
(rows, boxes, vectors, the index) is what ingest would have written."""

from __future__ import annotations

import json
import time

import numpy as np

from edge_agent.memory.store import Store

__all__ = ["seed_entities", "seed_memory"]

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
    popularity /= popularity.sum()
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
    while written < observations:
        with store.write():
            for _ in range(batch // per_clip):
                if written >= observations:
                    break
                camera = f"camera{clip_index % cameras}"
                start = t0 + (clip_index // cameras) * 10.0
                clip_id = store.db.insert(
                    "INSERT INTO clips (camera, t_start, t_end, keyframes, media_bytes, ingested_at) VALUES (?, ?, ?, "
                    "'[]', 0, ?)",
                    (camera, start, start + 10.0, time.time()),
                )
                members = rng.choice(
                    entities, size=min(per_clip, observations - written, entities), replace=False, p=popularity
                )
                names = []
                for track, e in enumerate(members):
                    category, kind = _CATEGORIES[kinds[e]]
                    text = (
                        f"a {_COLOURS[colours[e]]} {category} {_PLACES[rng.integers(len(_PLACES))]}, "
                        f"{_MOTIONS[rng.integers(len(_MOTIONS))]}"
                    )
                    store.db.execute(
                        "INSERT INTO observations (clip_id, entity_id, track_id, camera, kind, category, t_start, "
                        "t_end, "
                        "description, space_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                        ),
                    )
                    store.db.execute("UPDATE entities SET last_seen = ? WHERE id = ?", (start + 9.5, entity_ids[e]))
                    names.append(category)
                store.db.execute(
                    "INSERT INTO episodes (scale, camera, t_start, t_end, clip_id, text) VALUES ('clip', ?, ?, ?, ?, "
                    "?)",
                    (camera, start, start + 10.0, clip_id, f"{camera}: " + ", ".join(sorted(names))),
                )
                written += len(members)
                clip_index += 1


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
