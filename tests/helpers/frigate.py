"""A fake Frigate for the follower's tests, imitating Frigate 0.15.1 (:data:`FRIGATE_VERSION`; 0.12, 0.13 and 0.14
where a test asks, with their differences below): tracked objects cut from a real recording (people the detector
and tracker find in it, as Frigate's own would), announced on ``frigate/events`` in the format of Frigate's MQTT
documentation (new / update / end with before and after, box, snapshot, zones, times), and an HTTP server answering
the parts of Frigate's API the follower asks, as Frigate's source does (frigate/http.py to 0.13, frigate/api/ on):

- ``/api/version``: the version as plain text; ``/api/config``: detect size, zones, snapshots, record.
- ``/api/events``: ``after`` / ``before`` match the *start* (``start_time > after``, ``< before``), ``in_progress``,
  ``limit`` (100 by default), newest first; an event is held only with a snapshot or a clip (events/maintainer.py),
  and :meth:`FakeFrigate.cleanup` drops the ended ones with neither (events/cleanup.py, every 5 minutes there).
  0.12 to 0.14 answer start and end moved out by ``record.events`` pre/post capture; 0.12 the box in pixels
  x1, y1, x2, y2 (``box``), 0.13 on relative x, y, w, h (``data.box``). ``sub_label`` is a string.
- ``/api/events/<id>``; ``snapshot.jpg``: while tracked, its query (bbox, crop, ``h`` to 0.14 / ``height`` on)
  applies; once ended, it is the file stored with the camera's snapshot settings (box drawn, crop, height), or 404
  without a snapshot; ``snapshot-clean.png`` (0.14 on); ``thumbnail.jpg``.
- ``frigate/tracked_object_update`` (faces and plates 0.16 on): :meth:`FakeFrigate.recognise` names an object: a
  known face as its sub_label, a plate read as ``recognized_license_plate``."""

from __future__ import annotations

import http.server
import json
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

FRIGATE_VERSION = "0.15.1-0c4a8cb"  #: the Frigate release this fake imitates by default


@dataclass
class FakeEvent:
    """One tracked object: its boxes on the recording's frames (``frames``: index -> image)."""

    id: str
    camera: str
    label: str
    samples: list[tuple[float, int, list[float]]]  #: (time from the scenario's start, frame index, box)
    has_snapshot: bool = True
    start_time: float = 0.0  #: wall clock, set when played
    end_time: float | None = None
    snapshot_at: int = 0  #: the sample of its best snapshot so far
    sub_label: str | None = None
    plate: str | None = None  #: a plate read (0.16 on: ``recognized_license_plate``, not a sub_label)
    false_positive: bool = False  #: marked so afterwards (Frigate+), as /api/events then says
    zones_of: Any = None  #: box, height -> zone name or None; default: the lower 40% "sidewalk", else "plaza"
    published: list[dict] = field(default_factory=list)

    def zone(self, box: list[float], height: int) -> str | None:
        """Frigate's zone test on the box's bottom centre: "sidewalk" in the lower 40% of the frame, else "plaza"."""
        if self.zones_of is not None:
            return self.zones_of(box, height)
        return "sidewalk" if box[3] > 0.6 * height else "plaza"

    def entered(self, height: int, k: int) -> list[str]:
        """The zones it entered up to its k-th sample, in the order it entered them (as Frigate keeps them)."""
        out: list[str] = []
        for _, _, box in self.samples[: k + 1]:
            zone = self.zone(box, height)
            if zone is not None and zone not in out:
                out.append(zone)
        return out


@dataclass
class FakeCamera:
    """A camera's ``snapshots`` and ``record`` settings (Frigate's defaults: both off; here on unless a test
    says)."""

    snapshots: bool = True
    crop: bool = False
    bounding_box: bool = True
    height: int | None = None
    clean_copy: bool = True
    record: bool = True
    pre_capture: float = 5.0
    post_capture: float = 5.0


def _version(text: str) -> tuple[int, int]:
    """(major, minor) of "0.15.1-0c4a8cb"; (0, 0) for a text that is no version (a test of the follower's refusal)."""
    parts = text.split("-")[0].split(".")
    return (int(parts[0]), int(parts[1])) if len(parts) > 1 and parts[0].isdigit() and parts[1].isdigit() else (0, 0)


class FakeFrigate:
    def __init__(
        self,
        frames: dict[int, np.ndarray],
        events: list[FakeEvent],
        camera: str,
        port: int,
        *,
        version: str = FRIGATE_VERSION,
        settings: FakeCamera | None = None,
    ) -> None:
        self.frames = frames
        self.events = {e.id: e for e in events}
        self.camera = camera
        self.version = version
        self.number = _version(version)
        self.settings = settings or FakeCamera()
        self.height, self.width = next(iter(frames.values())).shape[:2]
        self.broker_port = port
        self.t0 = 0.0
        self.asked: list[tuple[str, dict[str, str]]] = []
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
                url = urllib.parse.urlsplit(self.path)
                status, kind, body = fake.answer(url.path, dict(urllib.parse.parse_qsl(url.query)))
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.http = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.http.serve_forever, daemon=True).start()
        self.api = f"http://127.0.0.1:{self.http.server_address[1]}"

    # -- the event database ------------------------------------------------------------------------

    def held(self, e: FakeEvent) -> bool:
        """Frigate writes an event to its database only with a snapshot or a clip (and once it has begun)."""
        return bool(e.start_time) and (self.has_snapshot(e) or self.settings.record)

    def has_snapshot(self, e: FakeEvent) -> bool:
        return e.has_snapshot and self.settings.snapshots

    def cleanup(self) -> list[str]:
        """Frigate's event cleanup: drops the ended events with neither a snapshot nor a clip; returns their ids."""
        gone = [e.id for e in self.events.values() if e.end_time is not None and not self.held(e)]
        for event_id in gone:
            del self.events[event_id]
        return gone

    # -- HTTP --------------------------------------------------------------------------------------

    def answer(self, path: str, query: dict[str, str]) -> tuple[int, str, bytes]:
        self.asked.append((path, query))
        if path == "/api/version":
            return 200, "text/plain", self.version.encode()
        if path == "/api/config":
            return 200, "application/json", json.dumps({"cameras": {self.camera: self.camera_config()}}).encode()
        if path == "/api/events":
            return 200, "application/json", json.dumps(self.listed(query)).encode()
        parts = path.split("/")
        if len(parts) == 4 and parts[1:3] == ["api", "events"]:
            event = self.events.get(urllib.parse.unquote(parts[3]))
            if event is None or not self.held(event):
                return 404, "application/json", b'{"success": false, "message": "Event not found"}'
            return 200, "application/json", json.dumps(self.api_event(event)).encode()
        if len(parts) == 5 and parts[1:3] == ["api", "events"]:
            event = self.events.get(urllib.parse.unquote(parts[3]))
            if event is not None and event.start_time:
                picture = self.picture(event, parts[4], query)
                if picture is not None:
                    return 200, "image/png" if parts[4].endswith(".png") else "image/jpeg", picture
        return 404, "text/plain", b"not found"

    def camera_config(self) -> dict:
        s = self.settings
        record: dict[str, Any] = {"enabled": s.record}
        if self.number < (0, 15):
            record["events"] = {"pre_capture": s.pre_capture, "post_capture": s.post_capture}
        return {
            "detect": {"width": self.width, "height": self.height},
            "zones": {"sidewalk": {}, "plaza": {}},
            "snapshots": {
                "enabled": s.snapshots,
                "crop": s.crop,
                "bounding_box": s.bounding_box,
                "height": s.height,
                "clean_copy": s.clean_copy,
            },
            "record": record,
        }

    def listed(self, query: dict[str, str]) -> list[dict]:
        """/api/events as Frigate filters it: on the start only, newest first, ``limit`` at most."""
        after, before = float(query.get("after") or 0), float(query.get("before") or 0)
        found = [self.api_event(e) for e in self.events.values() if self.held(e)]
        if after:
            found = [e for e in found if e["start_time"] > after]
        if before:
            found = [e for e in found if e["start_time"] < before]
        if query.get("in_progress") is not None:
            found = [e for e in found if (e["end_time"] is None) == bool(int(query["in_progress"]))]
        found.sort(key=lambda e: e["start_time"], reverse=True)
        return found[: int(query.get("limit", 100))]

    def api_event(self, e: FakeEvent) -> dict:
        """An /api/events item: 0.13 on the snapshot's box relative x, y, w, h in data; 0.12 pixels x1, y1, x2, y2 in
        box; to 0.14 its times moved out by the pre/post capture."""
        _, _, box = e.samples[e.snapshot_at]
        x1, y1, x2, y2 = box
        rel = [x1 / self.width, y1 / self.height, (x2 - x1) / self.width, (y2 - y1) / self.height]
        padded = self.number < (0, 15)
        start = e.start_time - (self.settings.pre_capture if padded else 0.0)
        end = None if e.end_time is None else e.end_time + (self.settings.post_capture if padded else 0.0)
        item = {
            "id": e.id,
            "label": e.label,
            "sub_label": e.sub_label,
            "camera": e.camera,
            "start_time": start,
            "end_time": end,
            "false_positive": e.false_positive,
            "zones": e.entered(self.height, len(e.samples) - 1 if e.end_time else e.snapshot_at),
            "has_clip": self.settings.record,
            "has_snapshot": self.has_snapshot(e),
            "top_score": None,
            "box": None,
            "data": {"box": rel, "region": rel, "score": 0.8, "top_score": 0.85, "attributes": [], "type": "object"},
        }
        if self.number < (0, 13):
            item["box"], item["data"], item["top_score"] = list(box), None, 0.85
        return item

    def picture(self, e: FakeEvent, name: str, query: dict[str, str]) -> bytes | None:
        _, index, box = e.samples[e.snapshot_at]
        clean = self.frames[index]
        if name == "thumbnail.jpg":
            x1, y1, x2, y2 = (int(v) for v in box)
            return cv2.imencode(".jpg", cv2.resize(clean[y1:y2, x1:x2], (64, 128)))[1].tobytes()
        if name == "snapshot-clean.png" and self.number >= (0, 14):
            if not (self.has_snapshot(e) and self.settings.clean_copy):
                return None
            return cv2.imencode(".png", clean)[1].tobytes()
        if name != "snapshot.jpg":
            return None
        if e.end_time is None:  # tracked: the query applies
            height = query.get("h" if self.number < (0, 15) else "height")
            drawn = self.drawn(clean, box, bool(int(query.get("bbox") or 0)), bool(int(query.get("crop") or 0)))
            return cv2.imencode(".jpg", self.resized(drawn, int(height) if height else None))[1].tobytes()
        if not self.has_snapshot(e):
            return None
        s = self.settings  # the stored file: the camera's snapshot settings, whatever the query
        return cv2.imencode(".jpg", self.resized(self.drawn(clean, box, s.bounding_box, s.crop), s.height))[1].tobytes()

    @staticmethod
    def drawn(frame: np.ndarray, box: list[float], bounding_box: bool, crop: bool) -> np.ndarray:
        """Frigate's TrackedObject.get_jpg_bytes: the box drawn (2 px), then cut to a square region around the box
        (calculate_region: at least 300 px, 1.1 times the box)."""
        image = frame.copy()
        x1, y1, x2, y2 = (int(v) for v in box)
        if bounding_box:
            cv2.rectangle(image, (x1, y1), (x2, y2), (0, 0, 255), 2)
        if crop:
            size = int(min(max(300, 1.1 * max(x2 - x1, y2 - y1)), image.shape[0], image.shape[1]))
            left = min(max(0, (x1 + x2) // 2 - size // 2), image.shape[1] - size)
            top = min(max(0, (y1 + y2) // 2 - size // 2), image.shape[0] - size)
            image = image[top : top + size, left : left + size]
        return image

    @staticmethod
    def resized(image: np.ndarray, height: int | None) -> np.ndarray:
        if not height:
            return image
        return cv2.resize(image, (int(height * image.shape[1] / image.shape[0]), height))

    # -- MQTT --------------------------------------------------------------------------------------

    def state(self, e: FakeEvent, k: int, t: float) -> dict:
        """An event's state after its k-th sample (Frigate's before / after object)."""
        _, index, box = e.samples[k]
        s_t, s_index, s_box = e.samples[e.snapshot_at]
        zone = e.zone(box, self.height)
        area = int((box[2] - box[0]) * (box[3] - box[1]))
        sub_label: Any = e.sub_label
        if sub_label is not None and self.number >= (0, 14):
            sub_label = [sub_label, 0.9]
        return {
            "id": e.id,
            "camera": e.camera,
            "frame_time": t,
            "snapshot": {
                "frame_time": self.t0 + s_t,
                "box": s_box,
                "area": int((s_box[2] - s_box[0]) * (s_box[3] - s_box[1])),
                "region": s_box,
                "score": 0.8,
                "attributes": [],
            },
            "label": e.label,
            "sub_label": sub_label,
            **({"recognized_license_plate": [e.plate, 0.9]} if e.plate and self.number >= (0, 16) else {}),
            "top_score": 0.85,
            "false_positive": False,  # Frigate announces an object once it is no longer a false positive
            "start_time": e.start_time,
            "end_time": e.end_time,
            "score": 0.8,
            "box": box,
            "area": area,
            "ratio": (box[2] - box[0]) / max(1.0, box[3] - box[1]),
            "region": box,
            "current_zones": [zone] if zone is not None else [],
            "entered_zones": e.entered(self.height, k),
            "thumbnail": None,
            "has_snapshot": self.has_snapshot(e),
            "has_clip": self.settings.record,
            "stationary": False,
            "motionless_count": 0,
            "position_changes": k,
            "attributes": {},
            "current_attributes": [],
        }

    def message(self, kind: str, e: FakeEvent, k: int, t: float, before: dict | None = None) -> dict:
        """One frigate/events message for its k-th sample at wall clock ``t`` (``before``: its state before)."""
        after = self.state(e, k, t)
        message = {"type": kind, "before": before or after, "after": after}
        e.published.append(message)
        return message

    def recognise(self, client, e: FakeEvent, name: str, kind: str = "face") -> None:
        """A face or plate recognised (0.16 on: frigate/tracked_object_update), and what Frigate sets for it: a known
        face's name as the sub_label, a plate read as recognized_license_plate."""
        assert self.number >= (0, 16), f"Frigate {self.version} recognises no face or plate"
        if kind == "face":
            e.sub_label = name
        else:
            e.plate = name
        update: dict[str, Any] = {"type": kind, "id": e.id, "camera": e.camera, "score": 0.9, "timestamp": time.time()}
        update.update({"name": name} if kind == "face" else {"name": None, "plate": name})
        client.publish("frigate/tracked_object_update", json.dumps(update), qos=0)

    def play(self, client, t0: float, *, until: float | None = None, start: float = 0.0) -> None:
        """Publishes the events' messages at their times (wall clock ``t0`` + scenario time), from scenario time
        ``start`` until ``until``: "new" at an object's first sample, "update" when its snapshot gets better or its
        zone changes (only then, as Frigate), "end" a second after its last sample."""
        self.t0 = t0
        moments: list[tuple[float, str, FakeEvent, int]] = []
        for e in self.events.values():
            for k, (t, _, _) in enumerate(e.samples):
                moments.append((t, "new" if k == 0 else "update", e, k))
            moments.append((e.samples[-1][0] + 1.0, "end", e, len(e.samples) - 1))
        moments.sort(key=lambda m: m[0])
        for t, kind, e, k in moments:
            if t < start or (until is not None and t >= until):
                continue
            wait = t0 + t - time.time()
            if wait > 0:
                time.sleep(wait)
            before = self.state(e, max(0, k - 1), t0 + e.samples[max(0, k - 1)][0]) if k else None
            if kind == "new":
                e.start_time = t0 + t
                e.snapshot_at = 0
            elif kind == "update":
                area = lambda b: (b[2] - b[0]) * (b[3] - b[1])  # noqa: E731
                better = area(e.samples[k][2]) > 1.1 * area(e.samples[e.snapshot_at][2])
                moved = e.zone(e.samples[k][2], self.height) != e.zone(e.samples[k - 1][2], self.height)
                if better:
                    e.snapshot_at = k
                if not (better or moved):
                    continue
            else:
                e.end_time = t0 + t
            message = self.message(kind, e, k, t0 + t if kind != "end" else t0 + e.samples[k][0], before)
            client.publish("frigate/events", json.dumps(message), qos=0)

    def close(self) -> None:
        self.http.shutdown()
        self.http.server_close()
