"""Builders for memory tests: observation records from a box and an embedding, clips, vectors at a
chosen cosine similarity."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from edge_agent.ingest import PerceivedClip
from edge_agent.memory import ClipRecord, ObservationRecord
from edge_agent.memory.description import Description

DAY = 86400.0
SPACE = "test-appearance"


def unit(v) -> np.ndarray:
    v = np.asarray(v, dtype=np.float32)
    return v / np.linalg.norm(v)


def near(base: np.ndarray, cosine: float, seed: int) -> np.ndarray:
    """A unit vector at the given cosine similarity to ``base``."""
    rng = np.random.default_rng(seed)
    other = rng.normal(size=base.shape).astype(np.float64)
    other -= other.dot(base) * base
    other /= np.linalg.norm(other)
    return unit(cosine * base + np.sqrt(1 - cosine**2) * other)


def observation(
    track_id,
    t0,
    box,
    embedding,
    *,
    kind="object",
    category="cup",
    frames=4,
    step=0.5,
    description="",
    crop_path=None,
    space=SPACE,
    faces=None,
    face_space="face:test",
) -> ObservationRecord:
    times = t0 + np.arange(frames) * step
    return ObservationRecord(
        track_id=track_id,
        kind=kind,
        category=category,
        frame_times=times,
        boxes=np.tile(np.asarray(box, np.float32), (frames, 1)),
        scores=np.full(frames, 0.9, np.float32),
        embedding=embedding,
        embedding_space=space,
        description=description,
        crop_path=crop_path,
        faces=faces,
        face_space=face_space if faces is not None else "",
    )


def said(category="cup", *, colour="", pattern="", zone="", region="", motion="still", company=()) -> Description:
    """A description with these fields, and the sentence the template describer would write for them."""
    d = Description(
        colours=(colour,) if colour else (),
        pattern=pattern,
        zone=zone,
        region=region,
        motion=motion,
        company=tuple(company),
    )
    return replace(d, text=d.sentence(category))


def clip(t0, length=10.0, camera="kitchen", keyframes=()) -> ClipRecord:
    return ClipRecord(camera, t0, t0 + length, tuple(keyframes))


def keys_taken_clip(t0: float = 0.0, camera: str = "hall") -> tuple[ClipRecord, list[ObservationRecord]]:
    """A fixed camera's 10-s clip in which keys (track 1, on a shelf, seen to ``t0`` + 1.5 s) are taken by a person
    standing beside them (track 2, from ``t0`` + 1 to + 4.5 s): memory keeps that taking (memory.takings)."""
    keys, person = unit(np.r_[np.ones(8), np.zeros(8)]), unit(np.r_[np.zeros(8), np.ones(8)])
    return clip(t0, 10.0, camera), [
        observation(1, t0, [300, 200, 330, 220], keys, category="keys"),
        observation(2, t0 + 1.0, [200, 100, 290, 400], person, kind="person", category="person", frames=8),
    ]


def synthetic_clip(index: int, observations: int = 30, frames: int = 20) -> tuple[ClipRecord, list[ObservationRecord]]:
    """A deterministic, heavy clip (for crash tests): ``observations`` objects side by side, each with
    ``frames`` boxes and an embedding drawn from a small set of look-alike prototypes."""
    rng = np.random.default_rng(index)
    t0 = index * 10.0
    prototypes = np.eye(observations, 64, dtype=np.float32) + 0.05
    records = [
        observation(
            track,
            t0,
            [track * 50, 0, track * 50 + 40, 40],
            prototypes[track] + rng.normal(0, 0.01, 64).astype(np.float32),
            frames=frames,
            step=0.25,
            description=f"object {track} in clip {index}",
        )
        for track in range(observations)
    ]
    return clip(t0), records


def jpeg_like(fill: int, size: int) -> bytes:
    """``size`` bytes a picture's check takes for a whole JPEG (its start and end markers), ``fill`` between."""
    return b"\xff\xd8" + bytes([fill]) * max(0, size - 4) + b"\xff\xd9"


def filled_memory(home, clips: int = 6, per_clip: int = 3, picture_bytes: int = 500):
    """A memory of ``clips`` clips with crops of ``picture_bytes`` and keyframes of four times that on disk (distinct
    objects a clip, each seen again in the next clip); returns the home. For retention, backup and fault tests."""
    from edge_agent.memory import Store

    protos = np.eye(per_clip, 32, dtype=np.float32) + 0.05
    with Store(home) as store:
        for c in range(clips):
            t0 = c * 60.0
            files = {f"keyframes/k{c}.jpg": jpeg_like(c % 256, 4 * picture_bytes)}
            files.update({f"crops/{c}/{track}.jpg": jpeg_like(track, picture_bytes) for track in range(per_clip)})
            store.save_media(files)
            records = [
                observation(
                    track,
                    t0,
                    [track * 50, 0, track * 50 + 40, 40],
                    unit(protos[track]),
                    description=f"a red cup number {track}",
                    crop_path=f"crops/{c}/{track}.jpg",
                )
                for track in range(per_clip)
            ]
            store.ingest_clip(
                clip(t0, keyframes=(f"keyframes/k{c}.jpg",)), records, caption=f"clip {c}: {per_clip} cups"
            )
    return home


def damage(path, *, at: float = 0.5, size: int = 4096, fill: bytes | None = None, seed: int = 7) -> None:
    """Overwrites ``size`` bytes of a file at the page boundary nearest ``at`` (a fraction of its length) with
    ``fill`` repeated, else seeded random bytes: a damaged database for the fault tests. Past the header
    (``at`` > 0), a page of the tables' data: the next one after ``at`` that is not the schema's (damage there
    stops SQLite from opening the file at all, which the tests of that case damage the header for)."""
    import apsw

    n = path.stat().st_size
    page = int(n * at) // 4096
    if at > 0:
        connection = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)
        schema = {int(r[0]) - 1 for r in connection.execute("SELECT pageno FROM dbstat WHERE name = 'sqlite_schema'")}
        connection.close()
        while page in schema:
            page += 1
    data = (fill * size)[:size] if fill is not None else np.random.default_rng(seed).bytes(size)
    with open(path, "r+b") as f:
        f.seek(page * 4096)
        f.write(data)


def _jpeg(seed: int, size: int = 64) -> bytes:
    rng = np.random.default_rng(seed)
    ok, data = cv2.imencode(".jpg", rng.integers(0, 255, (size, size, 3), np.uint8))
    assert ok
    return data.tobytes()


def perceived_clip(*, size: int = 64) -> PerceivedClip:
    """A perceived kitchen clip (a red cup with every description field, a person) with a crop and a keyframe of
    ``size`` pixels square: what a node sends."""
    t0 = 1_780_000_000.25
    times = t0 + 1 + np.arange(4) * 0.5
    cup = ObservationRecord(
        track_id=3,
        kind="object",
        category="cup",
        frame_times=times,
        boxes=np.tile(np.float32([10.5, 20, 50, 80]), (4, 1)),
        scores=np.float32([0.9, 0.8, 0.7, 0.95]),
        embedding=unit([1, 2, 3, 4]),
        embedding_space="color-texture-v4",
        description=Description(
            text="a red cup", colours=("red",), rgb=(200, 10, 10), region="centre", company=(("person", 1),)
        ),
        crop_path="crops/kitchen/1/3.jpg",
        surroundings=unit([0.5, 0.1, 0.2]),
    )
    person = observation(7, t0 + 2, (100, 10, 180, 200), unit([0, 1, 0, 0]), kind="person", category="person")
    return PerceivedClip(
        clip(t0, camera="kitchen", keyframes=("keyframes/kitchen/1.jpg",)),
        (cup, person),
        "a person and a red cup",
        ((t0 + 1, t0 + 2, "where are my keys"),),
        {"crops/kitchen/1/3.jpg": _jpeg(1, size), "keyframes/kitchen/1.jpg": _jpeg(2, size)},
    )
