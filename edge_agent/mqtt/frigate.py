"""Frigate as a source: an existing Frigate install detects and tracks; this follows its ``frigate/events``
messages (new / update / end, each with the tracked object's label, sub_label, box, score, zones, camera and
times; Frigate's MQTT documentation) and fetches each tracked object's snapshot from Frigate's HTTP API, so that
our memory gives Frigate's cameras identity across days, questions and entity-aware rules.

A Frigate camera is cut into clips as a camera of ours is (``[capture] clip_seconds``, on the clock): a clip is
written ``[frigate] grace_s`` after it ends, holding one observation per Frigate tracked object seen in it, with
the object's boxes in that span (held between Frigate's reports, which come only when something changes), its
snapshot embedded and described by our backends, and the Frigate zone it was in as its place. A long-tracked
object (a parked car) is an observation in every clip it spans; association makes them one entity. A clip is
written once (idempotent by camera and start); when the follower starts again it asks Frigate's API for every
object that was there after its last clip (Frigate's ``after`` matches an object's start: see
:meth:`FrigateFollower.catch_up`), so none that ended while it was away is lost while Frigate still holds it.
Frigate 0.12 and later are read (``/api/version``): their boxes, times and snapshots differ by version
(:class:`FrigateVersion`); the tests imitate 0.15.1 (tests/helpers/frigate.py)."""

from __future__ import annotations

import json
import logging
import math
import queue
import re
import threading
import time
import urllib.error
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

__all__ = [
    "FrigateAPI",
    "FrigateCamera",
    "FrigateError",
    "FrigateFollower",
    "FrigateUnsupported",
    "FrigateVersion",
    "Tracked",
]

log = logging.getLogger(__name__)


class FrigateError(EdgeAgentError, RuntimeError):
    """Frigate's HTTP API cannot be reached or answers something else than Frigate would."""


class FrigateMissing(FrigateError):
    """Frigate answered 404: it holds no such event or picture (any longer)."""


class FrigateUnsupported(FrigateError):
    """A Frigate version the follower does not read (its message names the version)."""


#: the oldest Frigate whose API and messages the follower reads (0.12: pixel boxes; 0.13 and later: relative boxes)
OLDEST_SUPPORTED = (0, 12)
#: catch-up also asks for the objects that began this long before memory's last clip (one that began earlier
#: and ended while the follower was away is found by its id, kept in the state file, or as still in progress)
LOOKBACK_S = 3600.0
#: /api/events answers at most ``limit`` events, newest first; the follower pages back by start time
PAGE = 500


@dataclass(frozen=True)
class FrigateVersion:
    """Frigate's version, as ``/api/version`` says it ("0.14.1-f4f3cfa"), and what differs by version."""

    text: str
    number: tuple[int, int]

    @classmethod
    def parse(cls, text: str) -> FrigateVersion:
        found = re.match(r"\s*v?(\d+)\.(\d+)", text)
        if found is None:
            raise FrigateError(f"Frigate's version {text.strip()[:40]!r} cannot be read")
        return cls(text.strip(), (int(found[1]), int(found[2])))

    @property
    def supported(self) -> bool:
        return self.number >= OLDEST_SUPPORTED

    @property
    def pixel_boxes(self) -> bool:
        """0.12: an /api/events item's ``box`` is pixels x1, y1, x2, y2 (0.13 on: ``data.box``, relative x, y, w, h)."""
        return self.number < (0, 13)

    @property
    def padded(self) -> bool:
        """0.12 to 0.14: an /api/events item's start and end are moved out by ``record.events`` pre_capture and
        post_capture (the event's clip), unlike the tracked object's times in its MQTT messages."""
        return self.number < (0, 15)

    @property
    def clean_snapshot(self) -> bool:
        """0.14 on: ``/api/events/<id>/snapshot-clean.png`` (the snapshot's frame, nothing drawn)."""
        return self.number >= (0, 14)


#: the version the follower's tests imitate (tests/helpers/frigate.py), taken where Frigate does not say
ASSUMED = FrigateVersion("0.15.1", (0, 15))


@dataclass(frozen=True)
class FrigateCamera:
    """What the follower reads of one camera in Frigate's ``/api/config``."""

    width: int = 1280  #: detect resolution: the frame Frigate's boxes are in
    height: int = 720
    snapshots: bool = False  #: ``snapshots.enabled`` (Frigate's default: off)
    snapshot_crop: bool = False  #: ``snapshots.crop``: a stored snapshot is cut around the object
    snapshot_box: bool = True  #: ``snapshots.bounding_box``: a stored snapshot has the box drawn
    recordings: bool = False  #: ``record.enabled`` (Frigate's default: off)
    pre_capture: float = 5.0  #: ``record.events.pre_capture`` (0.12 to 0.14), seconds
    post_capture: float = 5.0

    @classmethod
    def from_config(cls, camera: dict[str, Any]) -> FrigateCamera:
        detect, snapshots = camera.get("detect") or {}, camera.get("snapshots") or {}
        record = camera.get("record") or {}
        events = record.get("events") or {}
        return cls(
            int(detect.get("width") or 1280),
            int(detect.get("height") or 720),
            bool(snapshots.get("enabled", False)),
            bool(snapshots.get("crop", False)),
            bool(snapshots.get("bounding_box", True)),
            bool(record.get("enabled", False)),
            float(events.get("pre_capture", 5) or 0),
            float(events.get("post_capture", 5) or 0),
        )

    @property
    def size(self) -> tuple[int, int]:
        return self.width, self.height


class FrigateAPI:
    """The parts of Frigate's HTTP API used here (``/api/version``, ``/api/config``, ``/api/events``, an event,
    its snapshot, clean snapshot and thumbnail), with the standard library's urllib."""

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
        except urllib.error.HTTPError as exc:
            kind = FrigateMissing if exc.code == 404 else FrigateError
            raise kind(f"Frigate at {self.base}: {path}: {exc}") from None
        except OSError as exc:
            raise FrigateError(f"Frigate at {self.base}: {path}: {exc}") from None

    def _json(self, path: str, query: dict[str, Any] | None = None) -> Any:
        try:
            return json.loads(self._get(path, query))
        except ValueError:
            raise FrigateError(f"Frigate at {self.base}: {path} did not answer JSON") from None

    def version(self) -> FrigateVersion:
        """Frigate's version: ``/api/version`` (plain text), else ``/api/stats``' service.version."""
        try:
            return FrigateVersion.parse(self._get("/api/version").decode("utf-8", "replace"))
        except FrigateMissing:
            stats = self._json("/api/stats")
            return FrigateVersion.parse(str(((stats or {}).get("service") or {}).get("version") or "unknown"))

    def settings(self) -> dict[str, FrigateCamera]:
        """Each camera's settings the follower reads (detect size, snapshots, recordings, pre/post capture)."""
        cameras = self._json("/api/config").get("cameras")
        if not isinstance(cameras, dict):
            raise FrigateError(f"Frigate at {self.base}: /api/config has no cameras")
        return {str(name): FrigateCamera.from_config(camera or {}) for name, camera in cameras.items()}

    def cameras(self) -> dict[str, tuple[int, int]]:
        """Each camera's detect resolution (width, height): the frame Frigate's boxes are in."""
        return {name: camera.size for name, camera in self.settings().items()}

    def _list(self, query: dict[str, Any]) -> list[dict[str, Any]]:
        found = self._json("/api/events", {**query, "limit": PAGE, "include_thumbnails": 0})
        if not isinstance(found, list):
            raise FrigateError(f"Frigate at {self.base}: /api/events did not answer a list")
        return [e for e in found if isinstance(e, dict) and e.get("id") is not None]

    def events(self, after: float, before: float) -> list[dict[str, Any]]:
        """The tracked objects that *began* between ``after`` and ``before`` (ended or not), oldest first: Frigate
        matches ``start_time > after`` and ``< before``, not an overlap, and answers ``limit`` at most, newest
        first, so this pages back by start time."""
        found: dict[str, dict[str, Any]] = {}
        upper = before
        while True:
            page = self._list({"after": f"{after:.6f}", "before": f"{upper:.6f}"})
            fresh = [e for e in page if str(e["id"]) not in found]
            found.update((str(e["id"]), e) for e in page)
            if len(page) < PAGE or not fresh:
                break
            # the oldest start answered, held open (start_time < before): events sharing it come again, not lost
            upper = min(float(e.get("start_time") or 0) for e in page) + 1e-6
        return sorted(found.values(), key=lambda e: float(e.get("start_time") or 0))

    def in_progress(self) -> list[dict[str, Any]]:
        """The tracked objects Frigate is tracking now, however long ago they began (``in_progress=1``)."""
        return self._list({"in_progress": 1})

    def event(self, event_id: str) -> dict[str, Any] | None:
        """One tracked object (``/api/events/<id>``), None where Frigate no longer holds it."""
        try:
            found = self._json(f"/api/events/{urllib.parse.quote(event_id, safe='')}")
        except FrigateMissing:
            return None
        return found if isinstance(found, dict) and found.get("id") is not None else None

    def picture(
        self, event_id: str, ended: bool, camera: FrigateCamera, version: FrigateVersion = ASSUMED
    ) -> tuple[np.ndarray, bool, bool] | None:
        """The event's picture: (image, whole frame?, box drawn?), else None. A snapshot's query parameters
        (bbox=0, crop=0, ...) apply only while the object is tracked: an ended event's ``snapshot.jpg`` is the file
        Frigate stored with the camera's ``snapshots`` settings (box drawn by default, cut around the object with
        ``crop``, resized by ``height``), so an ended event's picture is its clean snapshot (0.14 on) where Frigate
        kept one, else that stored file where it is the whole frame, else its thumbnail (the object's box)."""
        quoted = urllib.parse.quote(event_id, safe="")
        tries: list[tuple[str, dict[str, Any] | None, bool, bool]] = []
        if not ended:
            tries.append((f"/api/events/{quoted}/snapshot.jpg", {"bbox": 0, "timestamp": 0, "crop": 0}, True, False))
        else:
            if version.clean_snapshot:
                tries.append((f"/api/events/{quoted}/snapshot-clean.png", None, True, False))
            if not camera.snapshot_crop:  # a stored crop is cut around the box by a region Frigate does not say
                tries.append((f"/api/events/{quoted}/snapshot.jpg", None, True, camera.snapshot_box))
        tries.append((f"/api/events/{quoted}/thumbnail.jpg", None, False, False))
        for path, query, whole, drawn in tries:
            try:
                data = self._get(path, query)
            except FrigateError as exc:
                log.debug("%s", exc)
                continue
            image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
            if image is not None:
                return image, whole, drawn
        return None


@dataclass
class Tracked:
    """One Frigate tracked object as followed: its reports' boxes (detect-resolution pixels) and zones by frame
    time."""

    id: str
    camera: str
    label: str
    start: float
    end: float | None = None
    sub_label: str = ""
    score: float = 0.0
    zone: str = ""  #: the Frigate zone it is in now ('' where none)
    snapshot_time: float | None = None
    snapshot_box: list[float] | None = None
    samples: list[tuple[float, list[float]]] = field(default_factory=list)
    zones: list[tuple[float, str]] = field(default_factory=list)  #: (frame time, zone or '') where it changed

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

    def zone_in(self, a: float, b: float) -> str:
        """The Frigate zone it was in during ``a`` .. ``b``: the last one held there ('' where it was in none)."""
        if not self.zones:
            return self.zone
        held = [zone for when, zone in self.zones if when <= a][-1:]
        held += [zone for when, zone in self.zones if a < when < b]
        return next((zone for zone in reversed(held) if zone), "")

    def report(self, state: dict[str, Any]) -> None:
        """Takes in one ``before`` / ``after`` state of a frigate/events message."""
        self.label = str(state.get("label") or self.label)
        if "sub_label" in state:  # null where Frigate cleared it; an unknown plate read is not a sub_label (0.16)
            self.sub_label = _sub_label(state.get("sub_label")) or _sub_label(state.get("recognized_license_plate"))
        self.score = float(state.get("top_score") or state.get("score") or self.score)
        if state.get("end_time"):
            self.end = float(state["end_time"])
        when = state.get("frame_time")
        if "current_zones" in state:  # [] once it left every zone
            zones = state.get("current_zones") or []
            self.zone = _zone(zones[0]) if zones else ""
            if when is not None and (not self.zones or self.zones[-1][1] != self.zone):
                self.zones.append((float(when), self.zone))
        snapshot = state.get("snapshot") or {}
        if snapshot.get("frame_time") is not None and snapshot.get("box"):
            self.snapshot_time, self.snapshot_box = float(snapshot["frame_time"]), [float(v) for v in snapshot["box"]]
        box = state.get("box")
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


def tracked_from_api(
    event: dict[str, Any],
    size: tuple[int, int] | FrigateCamera,
    version: FrigateVersion = ASSUMED,
) -> Tracked | None:
    """A tracked object from an ``/api/events`` item, held over its span; None where it has no box or is a false
    positive. Its box is ``data.box`` (relative x, y, w, h; 0.13 on) or ``box`` (pixels x1, y1, x2, y2; 0.12); its
    times are the tracked object's (0.12 to 0.14 answer them moved out by the camera's pre/post capture)."""
    camera = size if isinstance(size, FrigateCamera) else FrigateCamera(*size)
    data = event.get("data") or {}
    if event.get("false_positive"):
        return None
    if data.get("box") and not version.pixel_boxes:
        x, y, w, h = (float(v) for v in data["box"])
        pixels = [x * camera.width, y * camera.height, (x + w) * camera.width, (y + h) * camera.height]
    elif event.get("box") and version.pixel_boxes:
        pixels = [float(v) for v in event["box"]]
    else:
        return None
    start = float(event["start_time"])
    end = float(event["end_time"]) if event.get("end_time") else None
    if version.padded:
        start += camera.pre_capture
        end = None if end is None else max(start, end - camera.post_capture)
    zones = event.get("zones") or []  # the zones it entered, in order; the API does not say when it left them
    t = Tracked(
        str(event["id"]),
        str(event["camera"]),
        str(event.get("label") or "object"),
        start,
        end,
        _sub_label(event.get("sub_label")),
        float(data.get("top_score") or data.get("score") or event.get("top_score") or 0.0),
        _zone(zones[-1]) if zones else "",
    )
    t.samples = [(start, pixels)] + ([(end, pixels)] if end is not None and end > start else [])
    t.zones = [(start, t.zone)]
    return t


def _named(update: dict[str, Any]) -> str | None:
    """The name a ``tracked_object_update`` gives its object (a recognised face's, a known plate's owner or the
    plate read), None where it names nothing (a description, an unknown face)."""
    kind = update.get("type")
    if kind == "face":
        return _sub_label(update.get("name")) or None
    if kind == "lpr":
        return _sub_label(update.get("name")) or _sub_label(update.get("plate")) or None
    return None


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
        self.settings: dict[str, FrigateCamera] = {}
        self.version: FrigateVersion | None = None  #: Frigate's, read at catch-up
        self.tracked: dict[str, Tracked] = {}
        self._next: dict[str, float] = {}  #: per camera, the start of the next clip to write
        self._pictures: dict[str, _Picture] = {}
        self._track_ids: dict[str, int] = {}
        #: per tracked object, the entity its observations are; kept in ``state`` (a JSON file) for a restart
        self._entities: dict[str, int] = {}
        #: the objects tracked when the follower last wrote a clip: a restart asks Frigate for each by its id (one
        #: that began long before and ended while the follower was away is in no after/before answer)
        self._was_tracking: list[str] = []
        self.state = state
        if state is not None and state.exists():
            try:
                kept = json.loads(state.read_text())
                self._entities = {str(k): int(v) for k, v in kept["entities"].items()}
                self._was_tracking = [str(e) for e in kept.get("tracked", [])]
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
            topics = ("events", "available", "tracked_object_update")
            client.subscribe([(f"{self.prefix}/{topic}", 1) for topic in topics])

        client.on_connect = on_connect
        client.on_message = lambda client, userdata, message: self.inbox.put((message.topic, bytes(message.payload)))

    def take(self, topic: str, payload: bytes) -> None:
        """One message of Frigate's."""
        if topic == f"{self.prefix}/available":
            self.online = payload.strip() != b"offline"
            return
        if topic == f"{self.prefix}/tracked_object_update":
            self._update(payload)
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

    def _update(self, payload: bytes) -> None:
        """A ``tracked_object_update`` (the topic is Frigate 0.15's; faces and plates 0.16 on): a face or plate
        recognised names its object, as the sub_label Frigate sets for it does."""
        try:
            update = json.loads(payload)
            tracked = self.tracked.get(str(update["id"]))
        except (ValueError, KeyError, TypeError):
            log.warning("a tracked_object_update that is not Frigate's: %r", payload[:200])
            return
        name = _named(update) if isinstance(update, dict) else None
        if tracked is not None and name:
            tracked.sub_label = name

    def _learn_cameras(self) -> None:
        try:
            self._take_settings(self.api.settings())
        except FrigateError as exc:
            log.warning("%s", exc)

    def _take_settings(self, settings: dict[str, FrigateCamera]) -> None:
        for name, camera in settings.items():
            if name not in self.settings and not (camera.snapshots or camera.recordings):
                log.warning(
                    "Frigate camera %s keeps neither snapshots nor recordings (Frigate's defaults): Frigate deletes "
                    "its tracked objects within about 5 minutes of their end, so what ends while the follower is "
                    "away longer than that is lost to it",
                    name,
                )
        self.settings.update(settings)
        self.cameras.update({name: camera.size for name, camera in settings.items()})

    def learn_version(self) -> FrigateVersion:
        """Frigate's version; :class:`FrigateUnsupported` (one line naming it) where the follower cannot read it."""
        version = self.api.version()
        if not version.supported:
            oldest = ".".join(map(str, OLDEST_SUPPORTED))
            raise FrigateUnsupported(f"Frigate {version.text} is not supported: the follower reads Frigate {oldest} on")
        if self.version is None:
            log.info("following Frigate %s", version.text)
        self.version = version
        return version

    def catch_up(self) -> None:
        """Frigate's version and cameras, and every tracked object that was there after memory's last clip of its
        camera (so that what ended while the follower was away is written), or after ``since`` for a camera memory
        has no clip of (Frigate's history brought in on a first start). Frigate's ``after`` matches an object's
        start, so an object that began before is found otherwise: those that began up to :data:`LOOKBACK_S`
        before, those Frigate still tracks (``in_progress``), and those the follower was tracking when it stopped
        (by id). Only what Frigate still holds can be found (with its defaults, about 5 minutes)."""
        version = self.learn_version()
        self._take_settings(self.api.settings())
        now = self._clock()
        starts = {c: self._start(c, now) for c in self.cameras}
        if not starts or min(starts.values()) >= math.floor(now / self.clip_seconds) * self.clip_seconds:
            return
        padding = max((c.pre_capture for c in self.settings.values()), default=0.0) if version.padded else 0.0
        found = {str(e["id"]): e for e in self.api.events(min(starts.values()) - LOOKBACK_S - padding, now)}
        found.update((str(e["id"]), e) for e in self.api.in_progress())
        for event_id in self._was_tracking:
            if event_id not in found and (event := self.api.event(event_id)) is not None:
                found[event_id] = event
        for event in sorted(found.values(), key=lambda e: float(e.get("start_time") or 0)):
            camera = str(event.get("camera"))
            tracked = tracked_from_api(event, self.settings.get(camera, FrigateCamera()), version)
            if tracked is None or tracked.id in self.tracked or camera not in starts:
                continue
            if tracked.end is None or tracked.end >= starts[camera]:  # else it is wholly in clips memory holds
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
        if written:
            self._save()
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
        camera = self.settings.get(t.camera, FrigateCamera(*self.cameras.get(t.camera, (1280, 720))))
        got = self.api.picture(t.id, t.end is not None, camera, self.version or ASSUMED)
        if got is None:
            if held is None:
                log.warning("Frigate has no snapshot or thumbnail of %s %s: it is not remembered", t.label, t.id)
            return held
        image, whole, drawn = got
        if whole:  # the snapshot's frame, maybe resized (snapshots.height): its box scaled to it
            box = np.asarray(t.snapshot_box or t.box_at(t.snapshot_time or t.start), np.float64)
            box *= [image.shape[1] / camera.width, image.shape[0] / camera.height] * 2
            # inside the box Frigate drew (2 px lines) where it drew one: no margin, not its lines
            patch, scene = (crop(image, box + [3, 3, -3, -3], margin=0.0) if drawn else crop(image, box)), image
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
            zone = t.zone_in(a, b)
            if zone:
                description = replace(description, zone=zone)
            text = replace(description, text="").sentence(category) if zone else description.text
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
                    kind=kind,
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
        """Keeps the objects still tracked and the entity of each (written whole, then renamed into place)."""
        if self.state is None:
            return
        self._entities = {e: i for e, i in self._entities.items() if e in self.tracked}
        self._was_tracking = sorted(self.tracked)
        partial = self.state.with_suffix(".partial")
        try:
            partial.write_text(json.dumps({"entities": self._entities, "tracked": self._was_tracking}))
            partial.replace(self.state)
        except OSError as exc:
            log.warning("cannot keep the tracked objects' entities in %s: %s", self.state, exc)

    # -- the loop ------------------------------------------------------------------------------------

    def run(self, stop: threading.Event) -> None:
        """Until ``stop``: Frigate's cameras and what it tracked since memory's last clip first (retried while
        Frigate cannot be reached; a version it does not read stops it), then its messages and the clips they
        make."""
        while not stop.is_set():
            try:
                self.catch_up()
                break
            except FrigateUnsupported:
                raise
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
