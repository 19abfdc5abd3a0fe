"""A fake Frigate for the follower's tests: tracked objects cut from a real recording (people the detector and
tracker find in it, as Frigate's own would), announced on ``frigate/events`` in the format of Frigate's MQTT
documentation (new / update / end with before and after, box, snapshot, zones, times), and an HTTP server
answering the parts of Frigate's API the follower asks: ``/api/config``, ``/api/events`` and each event's
``snapshot.jpg`` and ``thumbnail.jpg``, cut from the recording's frames."""

from __future__ import annotations

import http.server
import json
import threading
import time
import urllib.parse
from dataclasses import dataclass, field

import cv2
import numpy as np


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
    published: list[dict] = field(default_factory=list)

    def zone(self, box: list[float], height: int) -> str:
        """Frigate's zone test on the box's bottom centre: "sidewalk" in the lower 40% of the frame, else "plaza"."""
        return "sidewalk" if box[3] > 0.6 * height else "plaza"


class FakeFrigate:
    def __init__(self, frames: dict[int, np.ndarray], events: list[FakeEvent], camera: str, port: int) -> None:
        self.frames = frames
        self.events = {e.id: e for e in events}
        self.camera = camera
        self.height, self.width = next(iter(frames.values())).shape[:2]
        self.broker_port = port
        self.t0 = 0.0
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

    # -- HTTP --------------------------------------------------------------------------------------

    def answer(self, path: str, query: dict[str, str]) -> tuple[int, str, bytes]:
        if path == "/api/config":
            camera = {"detect": {"width": self.width, "height": self.height}, "zones": {"sidewalk": {}, "plaza": {}}}
            return 200, "application/json", json.dumps({"cameras": {self.camera: camera}}).encode()
        if path == "/api/events":
            after, before = float(query.get("after", 0)), float(query.get("before", 1e18))
            found = [
                self.api_event(e)
                for e in self.events.values()
                if e.start_time and e.start_time < before and (e.end_time or 1e18) >= after
            ]
            return 200, "application/json", json.dumps(found).encode()
        parts = path.split("/")
        if len(parts) == 5 and parts[1:3] == ["api", "events"]:
            event = self.events.get(urllib.parse.unquote(parts[3]))
            if event is not None and event.start_time:
                _, index, box = event.samples[event.snapshot_at]
                image = self.frames[index]
                if parts[4] == "snapshot.jpg" and event.has_snapshot:
                    return 200, "image/jpeg", cv2.imencode(".jpg", image)[1].tobytes()
                if parts[4] == "thumbnail.jpg":
                    x1, y1, x2, y2 = (int(v) for v in box)
                    thumb = cv2.resize(image[y1:y2, x1:x2], (64, 128))
                    return 200, "image/jpeg", cv2.imencode(".jpg", thumb)[1].tobytes()
        return 404, "text/plain", b"not found"

    def api_event(self, e: FakeEvent) -> dict:
        """An /api/events item (Frigate 0.13 and later: the box relative x, y, w, h in data)."""
        _, _, box = e.samples[e.snapshot_at]
        x1, y1, x2, y2 = box
        rel = [x1 / self.width, y1 / self.height, (x2 - x1) / self.width, (y2 - y1) / self.height]
        zones = sorted({e.zone(b, self.height) for _, _, b in e.samples})
        return {
            "id": e.id,
            "label": e.label,
            "sub_label": None,
            "camera": e.camera,
            "start_time": e.start_time,
            "end_time": e.end_time,
            "false_positive": False,
            "zones": zones,
            "thumbnail": None,
            "has_clip": True,
            "has_snapshot": e.has_snapshot,
            "data": {"box": rel, "region": rel, "score": 0.8, "top_score": 0.85, "attributes": [], "type": "object"},
        }

    # -- MQTT --------------------------------------------------------------------------------------

    def state(self, e: FakeEvent, k: int, t: float) -> dict:
        """An event's state after its k-th sample (Frigate's before / after object)."""
        _, index, box = e.samples[k]
        s_t, s_index, s_box = e.samples[e.snapshot_at]
        zone = e.zone(box, self.height)
        area = int((box[2] - box[0]) * (box[3] - box[1]))
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
            "sub_label": None,
            "top_score": 0.85,
            "false_positive": False,
            "start_time": e.start_time,
            "end_time": e.end_time,
            "score": 0.8,
            "box": box,
            "area": area,
            "ratio": (box[2] - box[0]) / max(1.0, box[3] - box[1]),
            "region": box,
            "current_zones": [zone],
            "entered_zones": sorted({e.zone(b, self.height) for _, _, b in e.samples[: k + 1]}),
            "thumbnail": None,
            "has_snapshot": e.has_snapshot,
            "has_clip": True,
            "stationary": False,
            "motionless_count": 0,
            "position_changes": k,
            "attributes": {},
            "current_attributes": [],
        }

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
            after = self.state(e, k, t0 + t if kind != "end" else t0 + e.samples[k][0])
            message = {"type": kind, "before": before or after, "after": after}
            e.published.append(message)
            client.publish("frigate/events", json.dumps(message), qos=0)

    def close(self) -> None:
        self.http.shutdown()
        self.http.server_close()
