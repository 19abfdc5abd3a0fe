"""The write path: frames -> detections -> tracklets -> crops, embeddings, descriptions -> observations in
memory, one clip per transaction (GEB sections 3.1-3.3, ReflectWorld-MM's streaming ingestion). It sits
above perception and memory and joins them; every run reports the backends it used and how long each
stage took.

Perception of a clip ends in a :class:`PerceivedClip` (its records, caption, speech and pictures), which a
:class:`Destination` takes: the memory itself (:class:`MemoryWriter`), or a camera node's outbox that sends it
to a memory hub (edge_agent.mqtt)."""

from __future__ import annotations

import dataclasses
import hashlib
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

import cv2
import numpy as np

from edge_agent.capture import ClipFrames, Frame, FrameSource, VideoFileSource, clips
from edge_agent.clock import format_utc
from edge_agent.config import Config
from edge_agent.memory import ClipRecord, IngestResult, ObservationRecord, Store
from edge_agent.memory.things import named_things
from edge_agent.perception.backends import Backends
from edge_agent.perception.changes import ChangeFinder, with_changes
from edge_agent.perception.constancy import Constancy
from edge_agent.perception.describe import ObservationContext
from edge_agent.perception.detect import Detections, kind_of
from edge_agent.perception.detectors.openvocab import OpenVocabDetector
from edge_agent.perception.embed import observation_embedding
from edge_agent.perception.observe import track_clip

__all__ = [
    "STAGES",
    "Delivered",
    "Destination",
    "IngestReport",
    "MemoryWriter",
    "PerceivedClip",
    "Pipeline",
    "clip_folder",
    "named_by_memory",
    "write_clip",
]

STAGES = ("decode", "detect", "changes", "track", "embed", "faces", "describe", "write", "rules", "speech")
T = TypeVar("T")


@dataclass
class IngestReport:
    source: str
    camera: str
    backends: dict[str, str]
    frames: int = 0
    clips: int = 0
    clips_skipped: int = 0
    dropped_frames: int = 0  #: a live source's sampled frames dropped because perception fell behind
    unreadable: int = 0  #: a recording's images or frames that could not be read and were gone past
    unreadable_first: list[str] = field(default_factory=list)  #: the first few of them, named
    observations: int = 0
    new_entities: int = 0
    video_seconds: float = 0.0
    wall_seconds: float = 0.0
    stage_ms: dict[str, float] = field(default_factory=lambda: {s: 0.0 for s in STAGES})

    @property
    def x_realtime(self) -> float:
        return self.video_seconds / self.wall_seconds if self.wall_seconds > 0 else 0.0


@dataclass(frozen=True)
class PerceivedClip:
    """A clip as perception leaves it: what memory writes in one transaction (the clip, its observations, its
    caption and timestamped speech) and the pictures they name (``media``: path relative to the media folder ->
    JPEG bytes)."""

    clip: ClipRecord
    observations: tuple[ObservationRecord, ...]
    caption: str | None = None
    speech: tuple[tuple[float, float, str], ...] = ()
    media: dict[str, bytes] = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, int]:
        """(camera, start in milliseconds): what makes a clip the same clip wherever it is sent."""
        return self.clip.camera, int(round(self.clip.t_start * 1000))


@dataclass(frozen=True)
class Delivered:
    """What a destination did with a clip: the observations it holds and the entities they began (0 where the
    clip was only queued to be sent)."""

    observations: int = 0
    new_entities: int = 0
    rules_ms: float = 0.0  #: of the time it took, what the rules (and backups) after the write took
    clip_id: int | None = None  #: the clip in memory, where the destination is memory


class Destination(Protocol):
    """Where perceived clips go, in time order per camera."""

    def resume_point(self, camera: str) -> float | None:
        """The end of the last clip of ``camera`` it has; a source resumes after it."""
        ...

    def deliver(self, perceived: PerceivedClip) -> Delivered: ...


def clip_folder(camera: str, t_start: float) -> str:
    """The folder (under crops/ and keyframes/) of one clip's pictures: the camera's name as one path segment
    (percent-quoted; a long one cut and told apart by a hash) and the clip's start in milliseconds. Unique per
    clip, as (camera, start) is in memory."""
    segment = urllib.parse.quote(camera, safe="")
    if segment.startswith("."):
        segment = "%2E" + segment[1:]
    if len(segment) > 120:
        segment = f"{segment[:80]}~{hashlib.sha256(camera.encode()).hexdigest()[:16]}"
    return f"{segment}/{int(round(t_start * 1000))}"


def named_by_memory(perceived: PerceivedClip) -> PerceivedClip:
    """The clip with its pictures under names memory chooses (crops/<clip>/<k>.jpg for its k-th observation,
    keyframes/<clip>/<j>.jpg), never the paths it came with: a message cannot name, and so overwrite or later
    delete, a picture memory holds for another clip. A path its records name without the picture is dropped."""
    clip, media = perceived.clip, perceived.media
    folder = clip_folder(clip.camera, clip.t_start)
    pictures: dict[str, bytes] = {}
    keyframes = []
    for j, path in enumerate(clip.keyframes):
        if path in media:
            keyframes.append(f"keyframes/{folder}/{j}.jpg")
            pictures[keyframes[-1]] = media[path]
    observations = []
    for k, o in enumerate(perceived.observations):
        crop = f"crops/{folder}/{k}.jpg" if o.crop_path in media else None
        if crop is not None:
            pictures[crop] = media[o.crop_path]  # type: ignore[index]
        observations.append(o if o.crop_path == crop else dataclasses.replace(o, crop_path=crop))
    return dataclasses.replace(
        perceived,
        clip=dataclasses.replace(clip, keyframes=tuple(keyframes)),
        observations=tuple(observations),
        media=pictures,
    )


def write_clip(store: Store, perceived: PerceivedClip) -> IngestResult:
    """Writes a perceived clip into memory: its pictures first (under names memory chooses, when there is room for
    them and its records), then its records in one transaction; the pictures are taken back if the records cannot
    be committed, so a full disk leaves no orphans. A clip already in memory (same camera and start) is left as it
    is."""
    perceived = named_by_memory(perceived)
    clip = perceived.clip
    if store.ingested(clip.camera, clip.t_start) is not None:  # sent again: its pictures are not written twice
        return store.ingest_clip(clip, perceived.observations, caption=perceived.caption, speech=perceived.speech)
    what = f"the {clip.camera} clip at {format_utc(clip.t_start)} UTC"
    store.check_room(clip, perceived.observations, media=sum(len(b) for b in perceived.media.values()))
    created = store.save_media(perceived.media, what=what)
    try:
        return store.ingest_clip(clip, perceived.observations, caption=perceived.caption, speech=perceived.speech)
    except BaseException:
        store.delete_media(created)  # the records were not committed (a full disk says how much the clip needs)
        raise


class MemoryWriter:
    """The destination that is the memory: each clip written (:func:`write_clip`), then ``after_clip`` (the
    rules' resolver, scheduled backups) called."""

    def __init__(self, store: Store, after_clip: Callable[[], None] | None = None) -> None:
        self.store = store
        self.after_clip = after_clip

    def resume_point(self, camera: str) -> float | None:
        return self.store.resume_point(camera)

    def deliver(self, perceived: PerceivedClip) -> Delivered:
        result = write_clip(self.store, perceived)
        t = time.perf_counter()
        if self.after_clip is not None:
            self.after_clip()
        rules_ms = (time.perf_counter() - t) * 1000
        new = sum(d.created_entity for d in result.decisions)
        return Delivered(len(result.decisions), new, rules_ms, result.clip_id)


class Pipeline:
    """Runs sources through perception into a destination: the memory ``store`` (with ``after_clip`` called after
    each clip is committed), or ``destination`` (a node's outbox; ``store`` may then be None, and perception
    goes without memory's notes). ``stop`` ends the run after the current clip."""

    def __init__(
        self,
        store: Store | None,
        backends: Backends,
        config: Config,
        *,
        after_clip: Callable[[], None] | None = None,
        destination: Destination | None = None,
    ) -> None:
        if destination is None:
            if store is None:
                raise ValueError("a pipeline needs a store or a destination")
            destination = MemoryWriter(store, after_clip)
        self.store = store
        self.destination = destination
        self.backends = backends
        if store is not None and isinstance(backends.detector, OpenVocabDetector):  # the household's words too
            backends.detector.set_enrolled([t.entity.name for t in named_things(store) if t.entity.name])
        self.config = config
        self.tracker_settings = config.tracker
        self.stop = threading.Event()
        self._speech: list[tuple[float, float, str]] = []  # the current recording's, wall-clock
        self._detected: dict[int, Detections] = {}  # a live source's frames, detected as they came
        method = config.capture.colour_constancy
        self._constancy = Constancy(method) if method != "none" else None
        self._change_finders: dict[str, ChangeFinder | None] = {}  # per camera, kept across the run's clips

    def run(
        self, source: FrameSource, camera: str, progress: Callable[[IngestReport], None] | None = None
    ) -> IngestReport:
        report = IngestReport(source.name, camera, self.backends.summary())
        resume = self.destination.resume_point(camera)
        started = time.perf_counter()
        self._speech = []
        self._detected = {}
        if self.backends.transcriber is not None and isinstance(source, VideoFileSource):
            t = time.perf_counter()  # a recording is transcribed once; segments go to the clips they overlap
            self._speech = [
                (source.start + s.start, source.start + s.end, s.text)
                for s in self.backends.transcriber.transcribe(source.path)
            ]
            report.stage_ms["speech"] += (time.perf_counter() - t) * 1000
        frames = source.frames()
        decode_ms = 0.0

        def timed_frames() -> Iterator[Frame]:
            nonlocal decode_ms
            while True:
                t = time.perf_counter()
                try:
                    frame = next(frames)
                except StopIteration:
                    return
                decode_ms += (time.perf_counter() - t) * 1000
                if source.live:  # detected as it comes: at the clip's end only tracking and the rest are left
                    t = time.perf_counter()
                    self._detected[frame.index] = self.backends.detector.detect(frame)
                    report.stage_ms["detect"] += (time.perf_counter() - t) * 1000
                yield frame

        try:
            for clip in clips(timed_frames(), self.config.capture.clip_seconds):
                report.frames += len(clip.frames)
                report.video_seconds += clip.t_end - clip.t_start
                if resume is not None and clip.t_end <= resume + 1e-6:
                    report.clips_skipped += 1  # already in memory: a restart resumes after it
                else:
                    perceived = self.perceive(clip, camera, report.stage_ms)
                    t = time.perf_counter()
                    delivered = self.destination.deliver(perceived)
                    report.stage_ms["write"] += (time.perf_counter() - t) * 1000 - delivered.rules_ms
                    report.stage_ms["rules"] += delivered.rules_ms
                    report.clips += 1
                    report.observations += delivered.observations
                    report.new_entities += delivered.new_entities
                # a live source decodes in a thread of its own: its reading time, not the waits for the next frame
                report.stage_ms["decode"] = getattr(source, "read_ms", decode_ms)
                report.wall_seconds = time.perf_counter() - started
                if progress is not None:
                    progress(report)
                if self.stop.is_set():
                    break
        finally:
            source.close()
            report.dropped_frames = int(getattr(source, "dropped", 0))
            unreadable = getattr(source, "unreadable", None)
            if unreadable is not None:
                report.unreadable, report.unreadable_first = unreadable.count, list(unreadable.first)
        report.wall_seconds = time.perf_counter() - started
        return report

    def _change_finder(self, camera: str) -> ChangeFinder | None:
        if camera not in self._change_finders:
            settings = self.config.changes
            applies = settings.applies(camera, self.tracker_settings.moves(camera))
            self._change_finders[camera] = (
                ChangeFinder(settings, self.config.capture.sample_fps, self.tracker_settings.new_track_threshold)
                if applies
                else None
            )
        return self._change_finders[camera]

    def perceive(self, clip: ClipFrames, camera: str, stage: dict[str, float]) -> PerceivedClip:
        """Detection, tracking, embeddings, descriptions, places and pictures of one clip (``stage``: milliseconds
        per stage, added to)."""
        store = self.store
        t = time.perf_counter()
        early = [self._detected.pop(f.index, None) for f in clip.frames]
        detections = [d if d is not None else self.backends.detector.detect(f) for d, f in zip(early, clip.frames)]
        stage["detect"] += (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        finder = self._change_finder(camera)
        if finder is not None:  # things the detector has no class for, found by what changed
            detections = [with_changes(d, finder.find(f.image, d)) for d, f in zip(detections, clip.frames)]
        stage["changes"] += (time.perf_counter() - t) * 1000

        t = time.perf_counter()
        tracklets = track_clip(
            clip,
            detections,
            self.tracker_settings,
            self.config.capture.sample_fps,
            self._constancy,
            moving=self.tracker_settings.moves(camera),
        )
        stage["track"] += (time.perf_counter() - t) * 1000

        frame_size = clip.frames[0].size
        speech = [s for s in self._speech if s[0] < clip.t_end and s[1] >= clip.t_start]
        spoken = [(a - clip.t_start, text) for a, _, text in speech]
        describer = self.backends.describer
        scene = clip.frames[len(clip.frames) // 2].image if describer.wants_context else None
        clip_key = clip_folder(camera, clip.t_start)  # provisional names: memory names the pictures it keeps
        records, contexts = [], []
        media: dict[str, bytes] = {}  # relative path -> JPEG bytes
        placeless = not self.config.zones.get(camera)  # no zones drawn: memory finds its places (memory.places)
        images = {f.index: f.image for f in clip.frames} if placeless else {}
        for tracklet in tracklets:
            kind = kind_of(tracklet.category)
            t = time.perf_counter()
            embedder = self.backends.embedders[kind]
            vector = observation_embedding(embedder, [c for _, c in tracklet.crops])
            stage["embed"] += (time.perf_counter() - t) * 1000
            faces = None
            if kind == "person" and self.backends.faces is not None:
                t = time.perf_counter()
                found = self.backends.faces.best(
                    spread(tracklet.frames, self.config.faces.crops), self.config.faces.per_observation
                )
                faces = np.stack([f.vector for f in found]) if found else None
                stage["faces"] += (time.perf_counter() - t) * 1000
            others = [
                o.category
                for o in tracklets
                if o is not tracklet and o.t_start <= tracklet.t_end and o.t_end >= tracklet.t_start
            ]
            described = self.backends.described
            space = self.backends.space(kind)
            memory = (
                _memory_note(
                    store,
                    kind,
                    tracklet.category,
                    space,
                    described.appearance_only(kind, vector) if described is not None else vector,
                )
                if describer.wants_context and store is not None
                else None
            )
            context = ObservationContext(
                tracklet.category,
                [c for _, c in tracklet.crops],
                np.stack(tracklet.boxes),
                tracklet.times,
                frame_size,
                others,
                scene=scene,
                memory=memory,
                speech=spoken,
                camera=camera,
                steady=np.stack(tracklet.steady) if tracklet.steady else None,
                runner_up=tracklet.runner_up,
            )
            t = time.perf_counter()
            description = describer.describe(context)
            stage["describe"] += (time.perf_counter() - t) * 1000
            t = time.perf_counter()  # GEB's multimodal embedding: what it looks like and what it was said to be
            vector, space = self.backends.observation_vector(kind, tracklet.category, vector, description)
            stage["embed"] += (time.perf_counter() - t) * 1000
            contexts.append(context)
            t = time.perf_counter()
            crop_path = _jpeg(media, f"crops/{clip_key}/{tracklet.track_id}.jpg", tracklet.crops[0][1])
            stage["write"] += (time.perf_counter() - t) * 1000
            around = None
            if placeless and not tracklet.carried:  # in someone's hand: at no place
                t = time.perf_counter()
                picked = range(max(0, len(tracklet.boxes) - 3), len(tracklet.boxes))  # where it was last
                around = self.backends.places.describe(
                    [images[tracklet.frame_indices[k]] for k in picked], [tracklet.boxes[k] for k in picked]
                )
                stage["describe"] += (time.perf_counter() - t) * 1000
            records.append(
                ObservationRecord(
                    track_id=tracklet.track_id,
                    kind=kind,
                    category=tracklet.category,
                    frame_times=np.asarray(tracklet.times),
                    boxes=np.stack(tracklet.boxes),
                    scores=np.asarray(tracklet.scores, np.float32),
                    embedding=vector,
                    embedding_space=space,
                    description=description,
                    crop_path=crop_path,
                    surroundings=around,
                    surroundings_space=self.backends.places.space,
                    faces=faces,
                    face_space=self.backends.faces.space if faces is not None and self.backends.faces else "",
                )
            )
        t = time.perf_counter()
        caption = describer.caption(camera, contexts)
        stage["describe"] += (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        keyframe = _jpeg(media, f"keyframes/{clip_key}.jpg", _keyframe_image(clip), quality=80)
        stage["write"] += (time.perf_counter() - t) * 1000
        return PerceivedClip(
            ClipRecord(camera, clip.t_start, clip.t_end, (keyframe,), moving=self.tracker_settings.moves(camera)),
            tuple(records),
            caption,
            tuple(speech),
            media,
        )


def spread(items: Sequence[T], n: int) -> list[T]:
    """At most ``n`` of ``items``, evenly spread from the first to the last."""
    if len(items) <= n:
        return list(items)
    return [items[int(round(k * (len(items) - 1) / (n - 1)))] for k in range(n)] if n > 1 else [items[0]]


def _memory_note(store: Store, kind: str, category: str, space: str, vector: np.ndarray) -> str | None:
    """ReflectWorld-MM's context-enhanced perception: what memory knows of the likely entity."""
    entity = store.propose(kind, space, vector, category)
    if entity is None:
        return None
    when = format_utc(entity.last_seen)
    name = f" called {entity.name!r}" if entity.name else ""
    recent = store.observations(entity.id)[-1:]
    said = f"; last described as: {recent[0].description}" if recent and recent[0].description else ""
    return (
        f"probably entity #{entity.id}{name}, a {entity.category} seen {entity.observations} times, "
        f"last at {when} UTC{said}"
    )


def _jpeg(media: dict[str, bytes], relative: str, image: np.ndarray, quality: int = 90) -> str:
    """Encodes a picture of the clip into ``media`` (written with the clip's records); returns its path."""
    ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError(f"cannot encode {relative} as JPEG (image of shape {image.shape})")
    media[relative] = encoded.tobytes()
    return relative


def _keyframe_image(clip: ClipFrames) -> np.ndarray:
    image = clip.frames[len(clip.frames) // 2].image
    if image.shape[1] > 640:
        image = cv2.resize(image, (640, int(image.shape[0] * 640 / image.shape[1])), interpolation=cv2.INTER_AREA)
    return image
