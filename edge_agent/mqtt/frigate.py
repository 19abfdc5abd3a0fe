"""Frigate as a source: an existing Frigate install detects and tracks; this follows its ``frigate/events``
messages (new / update / end, each with the tracked object's label, sub_label, box, score, zones, camera and
times; Frigate's MQTT documentation) and fetches each tracked object's snapshot from Frigate's HTTP API, so that
our memory gives Frigate's cameras identity across days, questions and entity-aware rules.

A Frigate camera is cut into clips as a camera of ours is (``[capture] clip_seconds``, on the clock): a clip is
written ``[frigate] grace_s`` after it ends, holding one observation per Frigate tracked object seen in it, with
the object's boxes in that span (held between Frigate's reports, which come only when something changes), its
snapshot embedded and described by our backends, and the Frigate zone it was in as its place. A long-tracked
object (a parked car) is an observation in every clip it spans; association makes them one entity. A clip is
written once (idempotent by camera and start); when the follower starts again it asks Frigate's API for the
events since its last clip, so none that ended while it was away is lost."""

from __future__ import annotations

import json
import logging
import math
import queue
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from edge_agent.config import Config
from edge_agent.errors import EdgeAgentError
from edge_agent.ingest import MemoryWriter, PerceivedClip
from edge_agent.memory import ClipRecord, ObservationRecord, corrections
from edge_agent.perception.backends import Backends
from edge_agent.perception.describe import ObservationContext
from edge_agent.perception.detect import kind_of
from edge_agent.perception.observe import crop

__all__ = ["FrigateAPI", "FrigateError", "FrigateFollower", "Tracked"]

log = logging.getLogger(__name__)


class FrigateError(EdgeAgentError, RuntimeError):
    """Frigate's HTTP API cannot be reached or answers something else than Frigate would."""


class FrigateAPI:
    """The parts of Frigate's HTTP API used here (``/api/config``, ``/api/events``, an event's snapshot and
    thumbnail), with the standard library's urllib."""

    def __init__(self, base: str, timeout_s: float = 10.0) -> None:
        if not base.startswith(("http://", "https://")):
            raise FrigateError(f"Frigate's API is an http:// or https:// URL, got {base!r}")
        self.base = base.rstrip("/")
        self.timeout_s = timeout_s

    def _get(self, path: str, query: dict[str, Any] | None = None) -> bytes:
        url = f"{self.base}{path}" + (f"?{urllib.parse.urlencode(query)}" if query else "")
        try:
            with urllib.request.urlopen(url, timeout=self.timeout_s) as answer:  # noqa: S310 (a configured URL)
                return bytes(answer.read())
        except OSError as exc:
            raise FrigateError(f"Frigate at {self.base}: {path}: {exc}") from None

    def _json(self, path: str, query: dict[str, Any] | None = None) -> Any:
        try:
            return json.loads(self._get(path, query))
        except ValueError:
            raise FrigateError(f"Frigate at {self.base}: {path} did not answer JSON") from None

    def cameras(self) -> dict[str, tuple[int, int]]:
        """Each camera's detect resolution (width, height): the frame Frigate's boxes are in."""
        cameras = self._json("/api/config").get("cameras")
        if not isinstance(cameras, dict):
            raise FrigateError(f"Frigate at {self.base}: /api/config has no cameras")
        out = {}
        for name, camera in cameras.items():
            detect = (camera or {}).get("detect") or {}
            out[str(name)] = (int(detect.get("width") or 1280), int(detect.get("height") or 720))
        return out

    def events(self, after: float, before: float) -> list[dict[str, Any]]:
        """The tracked objects that overlap ``after`` .. ``before`` (ended or not), oldest first."""
        found = self._json("/api/events", {"after": f"{after:.3f}", "before": f"{before:.3f}", "limit": 10000})
        if not isinstance(found, list):
            raise FrigateError(f"Frigate at {self.base}: /api/events did not answer a list")
        return sorted(found, key=lambda e: float(e.get("start_time") or 0))

    def picture(self, event_id: str) -> tuple[np.ndarray, bool] | None:
        """The event's snapshot (the whole frame, no box drawn; True), else its thumbnail (a crop; False), else None."""
        quoted = urllib.parse.quote(event_id, safe="")
        for path, query, whole in (
            (f"/api/events/{quoted}/snapshot.jpg", {"bbox": 0, "timestamp": 0, "crop": 0}, True),
            (f"/api/events/{quoted}/thumbnail.jpg", None, False),
        ):
            try:
                data = self._get(path, query)
            except FrigateError as exc:
                log.debug("%s", exc)
                continue
            image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
            if image is not None:
                return image, whole
        return None


@dataclass
class Tracked:
    """One Frigate tracked object as followed: its reports' boxes (detect-resolution pixels) by frame time."""

    id: str
    camera: str
    label: str
    start: float
    end: float | None = None
    sub_label: str = ""
    score: float = 0.0
    zone: str = ""  #: the Frigate zone it was last in ('' where none)
    snapshot_time: float | None = None
    snapshot_box: list[float] | None = None
    samples: list[tuple[float, list[float]]] = field(default_factory=list)

    @property
    def category(self) -> str:
        """Frigate's label as a category of ours ("license_plate" -> "license plate")."""
        return " ".join(self.label.replace("_", " ").lower().split())[:100] or "object"

    def box_at(self, t: float) -> list[float]:
        """The box of the last report at or before ``t`` (else the first)."""
        best = self.samples[0][1]
        for when, box in self.samples:
            if when > t:
                break
            best = box
        return best

    def report(self, state: dict[str, Any]) -> None:
        """Takes in one ``before`` / ``after`` state of a frigate/events message."""
        self.label = str(state.get("label") or self.label)
        self.sub_label = _sub_label(state.get("sub_label")) or self.sub_label
        self.score = float(state.get("top_score") or state.get("score") or self.score)
        if state.get("end_time"):
            self.end = float(state["end_time"])
        zones = state.get("current_zones") or []
        if zones:
            self.zone = _zone(zones[0])
        elif state.get("entered_zones") and not self.zone:
            self.zone = _zone(state["entered_zones"][-1])
        snapshot = state.get("snapshot") or {}
        if snapshot.get("frame_time") is not None and snapshot.get("box"):
            self.snapshot_time, self.snapshot_box = float(snapshot["frame_time"]), [float(v) for v in snapshot["box"]]
        box, when = state.get("box"), state.get("frame_time")
        if box and when is not None:
            sample = (float(when), [float(v) for v in box])
            if not self.samples or sample[0] > self.samples[-1][0]:
                self.samples.append(sample)


def _sub_label(value: Any) -> str:
    """Frigate's sub_label: null, a name, or [name, score] (0.14)."""
    if isinstance(value, (list, tuple)):
        value = value[0] if value else None
    return str(value) if value else ""


def _zone(name: Any) -> str:
    """A Frigate zone's name as a place of ours: lower case, words ("front_steps" -> "front steps")."""
    return " ".join(str(name).replace("_", " ").lower().split())[:100]


def tracked_from_api(event: dict[str, Any], size: tuple[int, int]) -> Tracked | None:
    """A tracked object from an ``/api/events`` item (its box is relative x, y, w, h in ``data``), held over its
    span; None where it has no box."""
    data = event.get("data") or {}
    box = data.get("box") or event.get("box")
    if not box or event.get("false_positive"):
        return None
    x, y, w, h = (float(v) for v in box)
    if max(x, y, w, h) <= 1.0:  # relative (Frigate 0.13 and later)
        x, w = x * size[0], w * size[0]
        y, h = y * size[1], h * size[1]
    pixels = [x, y, x + w, y + h]
    start = float(event["start_time"])
    end = float(event["end_time"]) if event.get("end_time") else None
    zones = event.get("zones") or []
    t = Tracked(
        str(event["id"]),
        str(event["camera"]),
        str(event.get("label") or "object"),
        start,
        end,
        _sub_label(event.get("sub_label")),
        float(data.get("top_score") or data.get("score") or 0.0),
        _zone(zones[-1]) if zones else "",
    )
    t.samples = [(start, pixels)] + ([(end, pixels)] if end is not None and end > start else [])
    return t


@dataclass
class _Picture:
    at: float | None  #: the snapshot time it was fetched for
    crop: np.ndarray  #: the latest
    scene: np.ndarray | None
    appearance: np.ndarray  #: the mean of its crops' vectors so far (the object as Frigate tracked it all along)
    vectors: list[np.ndarray] = field(default_factory=list)  #: each crop's, computed once


class FrigateFollower:
    """Follows Frigate's events through ``client`` (a paho client, subscribed here) and ``api``, writing clips to
    ``destination`` (the memory). :meth:`run` until ``stop`` is set; :meth:`take` and :meth:`tick` are its steps
    (the tests drive them with their own clock)."""

    def __init__(
        self,
        destination: MemoryWriter,
        backends: Backends,
        config: Config,
        api: FrigateAPI,
        *,
        state: Path | None = None,
        since: float | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.destination = destination
        self.backends = backends
        self.api = api
        self.prefix = config.frigate.topic_prefix
        self.clip_seconds = float(config.capture.clip_seconds)
        self.grace_s = config.frigate.grace_s
        self.since = since  #: a first start brings in what Frigate tracked since then
        self.crops_kept = max(1, config.tracker.crops_per_observation)
        self._clock = clock
        self.cameras: dict[str, tuple[int, int]] = {}
        self.tracked: dict[str, Tracked] = {}
        self._next: dict[str, float] = {}  #: per camera, the start of the next clip to write
        self._pictures: dict[str, _Picture] = {}
        self._track_ids: dict[str, int] = {}
        #: per tracked object, the entity its observations are; kept in ``state`` (a JSON file) for a restart
        self._entities: dict[str, int] = {}
        self.state = state
        if state is not None and state.exists():
            try:
                self._entities = {str(k): int(v) for k, v in json.loads(state.read_text())["entities"].items()}
            except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
                log.warning("%s cannot be read (%s): tracked objects start afresh", state, exc)
        self.inbox: queue.Queue[tuple[str, bytes]] = queue.Queue()
        self.online = True  #: Frigate's frigate/available
        self.clips = 0
        self.observations = 0
        self.events = 0  #: ended tracked objects written

    # -- MQTT ----------------------------------------------------------------------------------------

    def subscribe(self, client: Any) -> None:
        """Makes ``client`` feed this follower (call before it connects)."""

        def on_connect(client: Any, userdata: Any, flags: Any, reason_code: Any, properties: Any) -> None:
            if reason_code.is_failure:
                log.error("the broker refused the Frigate follower: %s", reason_code)
                return
            client.subscribe([(f"{self.prefix}/events", 1), (f"{self.prefix}/available", 1)])

        client.on_connect = on_connect
        client.on_message = lambda client, userdata, message: self.inbox.put((message.topic, bytes(message.payload)))

    def take(self, topic: str, payload: bytes) -> None:
        """One message of Frigate's."""
        if topic == f"{self.prefix}/available":
            self.online = payload.strip() != b"offline"
            return
        try:
            message = json.loads(payload)
            kind, after = message["type"], message.get("after") or message.get("before")
            event_id, camera = str(after["id"]), str(after["camera"])
        except (ValueError, KeyError, TypeError):
            log.warning("a message on %s that is not a Frigate event: %r", topic, payload[:200])
            return
        if kind not in ("new", "update", "end") or after.get("false_positive"):
            return
        if camera not in self.cameras:
            self._learn_cameras()
        tracked = self.tracked.get(event_id)
        if tracked is None:
            start = float(after.get("start_time") or after.get("frame_time") or self._clock())
            tracked = self.tracked[event_id] = Tracked(event_id, camera, str(after.get("label") or "object"), start)
        tracked.report(after)
        if kind == "end" and tracked.end is None:
            tracked.end = float(after.get("frame_time") or self._clock())

    # -- clips ---------------------------------------------------------------------------------------

    def _learn_cameras(self) -> None:
        try:
            self.cameras.update(self.api.cameras())
        except FrigateError as exc:
            log.warning("%s", exc)

    def catch_up(self) -> None:
        """Cameras from Frigate's configuration, and the tracked objects since memory's last clip of each (so that
        what ended while the follower was away is written), or since ``since`` for a camera memory has no clip of
        (Frigate's history brought in on a first start)."""
        self.cameras.update(self.api.cameras())
        now = self._clock()
        starts = [self._start(c, now) for c in self.cameras]
        if not starts or min(starts) >= math.floor(now / self.clip_seconds) * self.clip_seconds:
            return
        for event in self.api.events(min(starts), now):
            size = self.cameras.get(str(event.get("camera")), (1280, 720))
            tracked = tracked_from_api(event, size)
            if tracked is not None and tracked.id not in self.tracked:
                self.tracked[tracked.id] = tracked

    def _start(self, camera: str, now: float) -> float:
        """Where a camera's clips begin: after memory's last clip of it, else at ``since``, else now."""
        resumed = self.destination.resume_point(camera)
        if resumed is not None:
            return resumed
        return math.floor((self.since if self.since is not None else now) / self.clip_seconds) * self.clip_seconds

    def _window(self, camera: str, now: float) -> float:
        if camera not in self._next:
            self._next[camera] = self._start(camera, now)
        return self._next[camera]

    def tick(self) -> int:
        """Writes every clip that ended at least ``grace_s`` ago; returns how many."""
        now = self._clock()
        written = 0
        for camera in sorted(set(self.cameras) | {t.camera for t in self.tracked.values()}):
            while (a := self._window(camera, now)) + self.clip_seconds + self.grace_s <= now:
                b = a + self.clip_seconds
                present = [
                    t for t in self.tracked.values() if t.camera == camera and t.start < b and (t.end or now) >= a
                ]
                if present or self.online:  # Frigate away with nothing to say: not recorded time
                    self._write(camera, a, b, present, now)
                    written += 1
                self._next[camera] = b
        self._forget(now)
        return written

    def _forget(self, now: float) -> None:
        for event_id, t in list(self.tracked.items()):
            if t.end is not None and t.end < self._next.get(t.camera, now):
                del self.tracked[event_id]
                self._pictures.pop(event_id, None)
                self.events += 1

    def _picture(self, t: Tracked) -> _Picture | None:
        held = self._pictures.get(t.id)
        if held is not None and (held.at == t.snapshot_time or t.snapshot_time is None):
            return held
        got = self.api.picture(t.id)
        if got is None:
            if held is None:
                log.warning("Frigate has no snapshot or thumbnail of %s %s: it is not remembered", t.label, t.id)
            return held
        image, whole = got
        if whole:
            w, h = self.cameras.get(t.camera, (image.shape[1], image.shape[0]))
            box = np.asarray(t.snapshot_box or t.box_at(t.snapshot_time or t.start), np.float64)
            box *= [image.shape[1] / w, image.shape[0] / h] * 2
            patch, scene = crop(image, box), image
        else:
            patch, scene = image, None
        if patch.size == 0:
            return held
        vector = self.backends.embedders[kind_of(t.category)].embed([patch])[0]
        vectors = ([] if held is None else held.vectors)[-(self.crops_kept - 1) :] + [vector]
        mean = np.mean(vectors, axis=0)
        picture = _Picture(
            t.snapshot_time, patch.copy(), scene, mean / max(float(np.linalg.norm(mean)), 1e-12), vectors
        )
        self._pictures[t.id] = picture
        return picture

    def _write(self, camera: str, a: float, b: float, present: list[Tracked], now: float) -> None:
        size = self.cameras.get(camera, (1280, 720))
        records, contexts = [], []
        media: dict[str, bytes] = {}
        key = f"{camera}/{int(round(a * 1000))}"
        scene = None
        for t in sorted(present, key=lambda t: (t.start, t.id)):
            picture = self._picture(t)
            if picture is None:
                continue
            times, boxes = _span(t, a, b, now)
            category = t.category
            kind = kind_of(category)
            others = [o.category for o in present if o is not t]
            context = ObservationContext(
                category, [picture.crop], np.asarray(boxes, np.float32), times, size, others, camera=camera
            )
            description = self.backends.describer.describe(context)
            if t.zone:
                description = replace(description, zone=t.zone)
            text = replace(description, text="").sentence(category) if t.zone else description.text
            if t.sub_label:
                text += f" (Frigate: {t.sub_label})"
            description = replace(description, text=text)
            vector, space = self.backends.observation_vector(kind, category, picture.appearance, description)
            track_id = self._track_ids.setdefault(t.id, len(self._track_ids) + 1)
            path = f"crops/{key}/{track_id}.jpg"
            ok, jpeg = cv2.imencode(".jpg", picture.crop, [cv2.IMWRITE_JPEG_QUALITY, 90])
            if ok:
                media[path] = jpeg.tobytes()
            records.append(
                ObservationRecord(
                    track_id=track_id,
                    kind=kind,  # type: ignore[arg-type]  # kind_of gives one of KINDS
                    category=category,
                    frame_times=np.asarray(times),
                    boxes=np.asarray(boxes, np.float32),
                    scores=np.full(len(times), t.score or 0.5, np.float32),
                    embedding=vector,
                    embedding_space=space,
                    description=description,
                    crop_path=path if ok else None,
                )
            )
            contexts.append(context)
            scene = picture.scene if picture.scene is not None else scene
        keyframes: tuple[str, ...] = ()
        if scene is not None:
            ok, jpeg = cv2.imencode(".jpg", scene, [cv2.IMWRITE_JPEG_QUALITY, 80])
            if ok:
                keyframes = (f"keyframes/{key}.jpg",)
                media[keyframes[0]] = jpeg.tobytes()
        caption = self.backends.describer.caption(camera, contexts)
        clip = PerceivedClip(ClipRecord(camera, a, b, keyframes), tuple(records), caption, (), media)
        delivered = self.destination.deliver(clip)
        self.clips += 1
        self.observations += delivered.observations
        if delivered.clip_id is not None:
            self._continue(delivered.clip_id, {self._track_ids[t.id]: t.id for t in present if t.id in self._track_ids})

    def _continue(self, clip_id: int, events: dict[int, str]) -> None:
        """Frigate tracked the object all along: where its observation in this clip began an entity of its own, that
        entity joins the one of its earlier observations (a recorded merge, undone with `entities unmerge`). One that
        matched another entity stays there (the association's evidence is not overruled)."""
        store = self.destination.store
        for o in store.observations_in_clip(clip_id):
            event = events.get(o.track_id)
            if event is None or o.entity_id is None:
                continue
            before = self._entities.setdefault(event, o.entity_id)
            if before == o.entity_id:
                continue
            try:
                if store.entity(o.entity_id).observations == 1:
                    corrections.merge(store, before, o.entity_id, caller=f"frigate: tracked object {event}")
                    continue
            except EdgeAgentError as exc:  # e.g. the user said they are not the same, or the entity is gone
                log.info("%s", exc)
            self._entities[event] = o.entity_id
        self._save()

    def _save(self) -> None:
        """Keeps the entity of each object still tracked (written whole, then renamed into place)."""
        if self.state is None:
            return
        self._entities = {e: i for e, i in self._entities.items() if e in self.tracked}
        partial = self.state.with_suffix(".partial")
        try:
            partial.write_text(json.dumps({"entities": self._entities}))
            partial.replace(self.state)
        except OSError as exc:
            log.warning("cannot keep the tracked objects' entities in %s: %s", self.state, exc)

    # -- the loop ------------------------------------------------------------------------------------

    def run(self, stop: threading.Event) -> None:
        """Until ``stop``: Frigate's cameras and what it tracked since memory's last clip first (retried while
        Frigate cannot be reached), then its messages and the clips they make."""
        while not stop.is_set():
            try:
                self.catch_up()
                break
            except FrigateError as exc:
                log.warning("%s; trying again in 5 s", exc)
                stop.wait(5)
        while not stop.is_set():
            try:
                topic, payload = self.inbox.get(timeout=0.25)
                self.take(topic, payload)
                while True:
                    topic, payload = self.inbox.get_nowait()
                    self.take(topic, payload)
            except queue.Empty:
                pass
            self.tick()


def _span(t: Tracked, a: float, b: float, now: float) -> tuple[list[float], list[list[float]]]:
    """The object's boxes inside ``a`` .. ``b``: its reports there, and its box held at the span's ends (Frigate
    reports only when something changes; the object was tracked all along)."""
    first = max(a, t.start)
    last = min(b - 1e-3, t.end if t.end is not None else now)
    points = {int(round(first * 1000)): t.box_at(first)}
    for when, box in t.samples:
        if first <= when <= last:
            points[int(round(when * 1000))] = box
    points.setdefault(int(round(last * 1000)), t.box_at(last))
    ms = sorted(points)
    return [m / 1000 for m in ms], [points[m] for m in ms]
