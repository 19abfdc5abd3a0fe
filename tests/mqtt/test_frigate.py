"""Frigate as a source, against a fake Frigate (tests/helpers/frigate.py) over a real mosquitto: people found in
a real street recording, announced as Frigate announces tracked objects, their snapshots served from the
recording's frames. The follower is stopped mid-run while Frigate goes on, and started again: afterwards every
tracked object is in memory, in every clip it spans, at the Frigate zone it was in; one object is one entity;
a rule about a Frigate zone reads and fires; a question is answered from it. The fast tests below hold the follower
to Frigate's real behaviour (its API's filters, stored snapshots, zones, sub_labels, versions, retention) on drawn
frames."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from helpers.frigate import FRIGATE_VERSION, FakeCamera, FakeEvent, FakeFrigate
from helpers.mosquitto import Mosquitto
from helpers.shared import data, model

from edge_agent.capture import VideoFileSource, clips
from edge_agent.config import load_config
from edge_agent.ingest import MemoryWriter
from edge_agent.memory import Store
from edge_agent.mqtt import frigate as frigate_module
from edge_agent.mqtt.broker import Broker
from edge_agent.mqtt.frigate import (
    FrigateAPI,
    FrigateError,
    FrigateFollower,
    FrigateUnsupported,
    Tracked,
    tracked_from_api,
)
from edge_agent.perception.backends import build_backends
from edge_agent.perception.observe import track_clip

SPEED = 2.0  #: the recording is played at twice its speed
CAMERA = "front_door"


def scenario(models: Path) -> tuple[dict[int, np.ndarray], list[FakeEvent]]:
    """People the detector and tracker find in the first 16 s of the street recording, as Frigate's events."""
    config = load_config(None, capture={"clip_seconds": 16})
    source = VideoFileSource(data("video/vtest.avi"), sample_fps=2.0, start=0.0)
    clip = next(iter(clips(source.frames(), 16.0)))
    backends = build_backends(config, models)
    tracklets = track_clip(clip, [backends.detector.detect(f) for f in clip.frames], config.tracker, 2.0)
    frames = {f.index: f.image for f in clip.frames}
    events = [
        FakeEvent(
            f"{1000 + k}.{k:06d}-fake{k}",
            CAMERA,
            "person",
            [(t / SPEED, i, [float(v) for v in b]) for t, i, b in zip(t.times, t.frame_indices, t.boxes)],
            has_snapshot=k != 1,  # one object has only a thumbnail
        )
        for k, t in enumerate(x for x in tracklets if len(x.times) >= 3)
    ]
    assert len(events) >= 4, "the street recording should show several people"
    return frames, events


def iou(a, b) -> float:
    w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - w * h
    return w * h / union if union > 0 else 0.0


def publisher(port: int):
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    client = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2)
    client.connect("127.0.0.1", port)
    client.loop_start()
    client.publish("frigate/available", "online", qos=1, retain=True).wait_for_publish(5)
    return client


class Running:
    """A follower in a thread, with its own MQTT session."""

    def __init__(self, follower: FrigateFollower, broker: Broker) -> None:
        self.follower = follower
        self.client = broker.client("edge-agent-frigate", persistent=True)
        follower.subscribe(client := self.client)
        subscribed = threading.Event()
        client.on_subscribe = lambda *a: subscribed.set()
        broker.start(client)
        assert subscribed.wait(10), "the follower did not subscribe"
        self.stop = threading.Event()
        self.thread = threading.Thread(target=follower.run, args=(self.stop,), daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(10)
        self.client.disconnect()
        self.client.loop_stop()


@pytest.mark.slow
def test_frigate_objects_become_memory_and_none_is_lost_across_a_restart(tmp_path):
    models = model("yolox_nano.onnx").parent
    frames, events = scenario(models)
    broker = Mosquitto(tmp_path / "broker").start()
    fake = FakeFrigate(frames, events, CAMERA, broker.port)
    config = load_config(None, capture={"clip_seconds": 2}, frigate={"grace_s": 0.5})
    backends = build_backends(config, models)
    url = Broker.parse(broker.url, config.mqtt)
    pub = publisher(broker.port)
    store = Store(tmp_path / "home", config=config.association)
    try:
        writer = MemoryWriter(store)
        state = tmp_path / "home" / "frigate.json"
        first = Running(FrigateFollower(writer, backends, config, FrigateAPI(fake.api), state=state), url)
        t0 = time.time() + 0.5
        last = max(e.samples[-1][0] for e in events) + 1.0
        fake.play(pub, t0, until=last * 0.4)
        first.close()  # the follower goes away; Frigate goes on (its messages are not kept for it)
        fake.play(pub, t0, start=last * 0.4, until=last * 0.6)
        second = Running(FrigateFollower(writer, backends, config, FrigateAPI(fake.api), state=state), url)
        fake.play(pub, t0, start=last * 0.6)
        time.sleep(max(0.0, t0 + last + 2 * 2.0 + 0.5 - time.time()))
        second.close()
        assert first.follower.clips and second.follower.clips

        rows = store.db.query(
            "SELECT c.t_start, o.id, o.entity_id, o.zone, o.category, o.t_start, o.t_end FROM clips c "
            "LEFT JOIN observations o ON o.clip_id = c.id WHERE c.camera = ? ORDER BY c.t_start",
            (CAMERA,),
        )
        got: dict[int, int] = {}
        for start, obs, *_ in rows:
            got[round(start * 1000)] = got.get(round(start * 1000), 0) + (obs is not None)
        windows = sorted(got)
        assert np.all(np.diff(windows) == 2000), "a clip of the camera is missing"
        expected = {
            w: sum(e.start_time < (w + 2000) / 1000 and e.end_time >= w / 1000 for e in events) for w in windows
        }
        assert got == expected  # every tracked object in every clip it spans: none lost, none twice
        assert sum(expected.values()) >= 2 * len(events)

        seen = [r for r in rows if r[1] is not None]
        assert {r[3] for r in seen} <= {"sidewalk", "plaza"} and {r[4] for r in seen} == {"person"}
        assert all(r[3] for r in seen), "an observation without its Frigate zone"
        boxes = store.observation_boxes(CAMERA)
        entities_of: dict[str, set[int]] = {}
        events_of: dict[int, set[str]] = {}
        for obs, entity, t_start, t_end in ((r[1], r[2], r[5], r[6]) for r in seen):
            spanning = [e for e in events if e.start_time - 1e-3 <= t_start and t_end <= e.end_time + 1e-3]
            first = boxes[obs][1][0]
            owner = max(spanning, key=lambda e: max(iou(first, b) for _, _, b in e.samples))
            entities_of.setdefault(owner.id, set()).add(entity)
            events_of.setdefault(entity, set()).add(owner.id)
        # Frigate tracked each object all along: its clips' observations are one entity, across the restart too,
        # unless the association matched one of them to another object's entity (its evidence is not overruled)
        for event, entities in entities_of.items():
            assert len(entities) == 1 or any(len(events_of[e]) > 1 for e in entities), (event, entities_of)

        from edge_agent.rules import book
        from edge_agent.rules.parse import parse_rule
        from edge_agent.rules.resolver import Resolver

        known = book.vocabulary(store, {})
        assert CAMERA in known.places["sidewalk"]  # Frigate's zone is a place a rule may name
        predicate = parse_rule("a person on the sidewalk", places=known.places)
        rule = book.Rule(0, "a person on the sidewalk", predicate, 0.0, 0.0, 0)
        alerts = Resolver(store, dry_run=True).process(rule_set=[rule], since_clip=0)
        assert alerts and all("sidewalk" in a.message for a in alerts)

        from edge_agent.perception.text import MiniLMTextEmbedder, TextModelMissing
        from edge_agent.qa import DeterministicController

        try:
            embedder = MiniLMTextEmbedder()
        except TextModelMissing as exc:
            pytest.skip(f"the rest asks a question: {exc}")
        ask = DeterministicController(store, embedder, config.retrieval).ask
        assert ask("Was there a person on the sidewalk?").text.lower().startswith("yes")
        assert ask("Was there a dog?").text.lower().startswith("no")
    finally:
        store.close()
        pub.loop_stop()
        fake.close()
        broker.stop()


def test_an_api_event_is_followed_in_pixels_and_a_missing_frigate_is_named():
    size = (640, 480)
    t = tracked_from_api(
        {
            "id": "1.5-abc",
            "camera": "door",
            "label": "license_plate",
            "sub_label": ["ABC123", 0.9],
            "start_time": 100.0,
            "end_time": 104.0,
            "zones": ["front_steps"],
            "data": {"box": [0.25, 0.5, 0.25, 0.25], "top_score": 0.8},
        },
        size,
    )
    assert isinstance(t, Tracked)
    assert t.samples == [(100.0, [160.0, 240.0, 320.0, 360.0]), (104.0, [160.0, 240.0, 320.0, 360.0])]
    assert (t.category, t.sub_label, t.zone) == ("license plate", "ABC123", "front steps")
    with pytest.raises(FrigateError, match="http"):
        FrigateAPI("frigate.local:5000")
    with pytest.raises(FrigateError, match="/api/config"):
        FrigateAPI("http://127.0.0.1:9", timeout_s=1).cameras()


def test_an_object_frigate_tracked_on_stays_one_entity_unless_association_said_otherwise(tmp_path):
    """A tracked object's observation that began an entity of its own joins its earlier entity (a recorded merge,
    undoable); one that matched another entity is left there."""
    from helpers.memory import clip, observation, unit

    from edge_agent.memory import corrections

    config = load_config(None)
    with Store(tmp_path / "home") as store:
        first = store.ingest_clip(clip(0.0, camera=CAMERA), [observation(1, 1.0, (0, 0, 9, 9), unit([1, 0, 0]))])
        other = store.ingest_clip(clip(10.0, camera=CAMERA), [observation(1, 11.0, (0, 0, 9, 9), unit([0, 1, 0]))])
        a, b = first.decisions[0].entity_id, other.decisions[0].entity_id
        assert a != b and other.decisions[0].created_entity

        follower = FrigateFollower(MemoryWriter(store), None, config, FrigateAPI("http://127.0.0.1:9"))  # type: ignore[arg-type]
        follower.tracked["ev"] = Tracked("ev", CAMERA, "cup", 0.0)
        follower._entities["ev"] = a
        follower._continue(other.clip_id, {1: "ev"})  # began an entity of its own: joins a
        assert store.entity(a).observations == 2
        merge = [c for c in store.corrections() if c["action"] == "merge"]
        assert merge and merge[-1]["details"]["caller"] == "frigate: tracked object ev"
        corrections.unmerge(store, merge[-1]["id"])  # undone: b is apart again (and marked not the same)
        b2 = store.observations_in_clip(other.clip_id)[0].entity_id
        assert b2 != a

        store.ingest_clip(clip(20.0, camera=CAMERA), [observation(1, 21.0, (0, 0, 9, 9), unit([0, 0, 1]))])
        again = store.ingest_clip(clip(30.0, camera=CAMERA), [observation(1, 31.0, (0, 0, 9, 9), unit([0, 0, 1]))])
        assert store.entity(again.decisions[0].entity_id).observations == 2  # matched the one before's entity
        follower._entities["ev"] = a
        follower._continue(again.clip_id, {1: "ev"})  # matched an entity with more than this: left there
        assert store.observations_in_clip(again.clip_id)[0].entity_id != a


@pytest.mark.slow
def test_a_first_start_brings_in_what_frigate_tracked_since_a_time(tmp_path):
    """`frigate --since`: the history Frigate's API still holds becomes memory, every object in every clip it
    spans, though no message of it was ever heard."""
    models = model("yolox_nano.onnx").parent
    frames, events = scenario(models)
    fake = FakeFrigate(frames, events, CAMERA, 0)

    class Nobody:
        def publish(self, *args, **kwargs):
            pass

    t0 = time.time() - 60
    fake.play(Nobody(), t0)  # a minute ago: nothing waits
    config = load_config(None, capture={"clip_seconds": 2}, frigate={"grace_s": 0.5})
    try:
        with Store(tmp_path / "home", config=config.association) as store:
            follower = FrigateFollower(
                MemoryWriter(store), build_backends(config, models), config, FrigateAPI(fake.api), since=t0 - 5
            )
            follower.catch_up()
            assert follower.tick() >= 30  # every clip from then to now
            rows = store.db.query(
                "SELECT c.t_start, count(o.id) FROM clips c LEFT JOIN observations o ON o.clip_id = c.id "
                "WHERE c.camera = ? GROUP BY c.id ORDER BY c.t_start",
                (CAMERA,),
            )
    finally:
        fake.close()
    got = {round(t * 1000): n for t, n in rows}
    expected = {w: sum(e.start_time < (w + 2000) / 1000 and e.end_time >= w / 1000 for e in events) for w in got}
    assert got == expected and sum(got.values()) >= 2 * len(events)


# -- Frigate's real behaviour, on drawn frames (fast) ------------------------------------------------------------

OBJECT = [520.0, 40.0, 580.0, 170.0]  #: where the drawn object (blue) stands, detect pixels: off the centre


def drawn_frame() -> np.ndarray:
    """A 640x480 street: grey, a green hedge on the left, the object a blue block."""
    frame = np.full((480, 640, 3), 128, np.uint8)
    frame[100:400, 20:200] = (0, 160, 0)
    x1, y1, x2, y2 = (int(v) for v in OBJECT)
    frame[y1:y2, x1:x2] = (200, 40, 40)
    return frame


class Memory:
    """What the follower asks of memory at catch-up: where each camera's clips resume."""

    def __init__(self, resume: float | None) -> None:
        self.resume = resume

    def resume_point(self, camera: str) -> float | None:
        return self.resume


class Embedder:
    def embed(self, patches):
        return [np.full(8, 1 / np.sqrt(8), np.float32) for _ in patches]


class Backends:
    embedders = {"person": Embedder(), "object": Embedder(), "vehicle": Embedder()}


def frigate_event(event_id: str, start: float, end: float | None, *, box=OBJECT, **kwargs) -> FakeEvent:
    e = FakeEvent(event_id, CAMERA, "person", [(0.0, 0, list(box))], **kwargs)
    e.start_time, e.end_time = start, end
    return e


def follower_of(fake: FakeFrigate, resume: float | None, now: float, state: Path | None = None) -> FrigateFollower:
    config = load_config(None, capture={"clip_seconds": 2}, frigate={"grace_s": 0.5})
    return FrigateFollower(
        Memory(resume),  # type: ignore[arg-type]
        Backends(),  # type: ignore[arg-type]
        config,
        FrigateAPI(fake.api),
        state=state,
        clock=lambda: now,
    )


def test_catch_up_finds_every_object_there_after_memory_s_last_clip_however_long_the_stop(tmp_path, monkeypatch):
    """Frigate's /api/events matches after/before on an object's start: one that began before the resume point
    and ended while the follower was away is found all the same (by its id when it began long before, as
    in progress when Frigate still tracks it, by a look-back otherwise); none that ended before it; every page."""
    resume, now = 1_000_000.0, 1_000_000.0 + 4000
    hour = 3600.0
    events = [
        frigate_event("parked", resume - 3 * hour, resume + 600),  # tracked when the follower stopped
        frigate_event("crossing", resume - 30, resume + 60),  # began just before the stop
        frigate_event("still", resume - 2 * hour, None),  # Frigate tracks it still
        frigate_event("before", resume - 100, resume - 10),  # wholly in memory's clips
        frigate_event("old", resume - 5 * hour, resume - hour),
    ] + [frigate_event(f"later{k}", resume + 10 * k, resume + 10 * k + 5) for k in range(1, 11)]
    fake = FakeFrigate({0: drawn_frame()}, events, CAMERA, 0)
    monkeypatch.setattr(frigate_module, "PAGE", 3)  # Frigate answers `limit` at most, newest first
    state = tmp_path / "frigate.json"
    state.write_text('{"entities": {}, "tracked": ["parked", "gone"]}')  # "gone": Frigate no longer holds it
    try:
        follower = follower_of(fake, resume, now, state)
        follower.catch_up()
    finally:
        fake.close()
    expected = {"parked", "crossing", "still"} | {f"later{k}" for k in range(1, 11)}
    assert set(follower.tracked) == expected
    assert follower.tracked["still"].end is None and follower.tracked["parked"].end == resume + 600
    assert all(q.get("limit") == "3" for p, q in fake.asked if p == "/api/events")


@pytest.mark.parametrize("version", ["0.12.1-abc1234", "0.13.2-6476f8a", "0.14.1-f4f3cfa", FRIGATE_VERSION])
def test_each_supported_frigate_version_s_boxes_and_times_are_read_as_that_version_writes_them(version):
    """0.12's box is pixels x1, y1, x2, y2; 0.13 on, relative x, y, w, h; 0.12 to 0.14 move an event's start and
    end out by the pre/post capture (5 s each by default): the follower has the object's own box and times."""
    resume, now = 1_000_000.0, 1_000_000.0 + 100
    event = frigate_event("walker", resume + 10, resume + 30)
    fake = FakeFrigate({0: drawn_frame()}, [event], CAMERA, 0, version=version)
    try:
        follower = follower_of(fake, resume, now)
        follower.catch_up()
    finally:
        fake.close()
    assert follower.version is not None and follower.version.text == version
    walker = follower.tracked["walker"]
    assert (walker.start, walker.end) == pytest.approx((resume + 10, resume + 30))
    assert walker.box_at(walker.start) == pytest.approx(OBJECT)


@pytest.mark.parametrize("version", ["0.11.1-2a5e3c4", "not a version"])
def test_an_unsupported_frigate_is_refused_in_one_line_naming_its_version(version):
    fake = FakeFrigate({0: drawn_frame()}, [], CAMERA, 0, version=version)
    try:
        with pytest.raises(FrigateError) as refused:
            follower_of(fake, None, 1_000_000.0).catch_up()
    finally:
        fake.close()
    assert version in str(refused.value) and "\n" not in str(refused.value)
    if version[0].isdigit():
        assert isinstance(refused.value, FrigateUnsupported)


def blue(patch: np.ndarray) -> float:
    """The share of the patch that is the drawn object (the follower's crop has a 5% margin: 0.83 at best)."""
    b, g, r = (patch[..., i].astype(int) for i in range(3))
    return float(np.mean((b > 150) & (g < 90) & (r < 90)))


def red(patch: np.ndarray) -> float:
    """The share of the patch that is a box Frigate drew."""
    b, g, r = (patch[..., i].astype(int) for i in range(3))
    return float(np.mean((r > 150) & (g < 90) & (b < 90)))


@pytest.mark.parametrize(
    "settings",
    [
        FakeCamera(),  # Frigate's stored snapshot: box drawn
        FakeCamera(crop=True),
        FakeCamera(height=240),
        FakeCamera(crop=True, height=200),
        FakeCamera(clean_copy=False),
        FakeCamera(crop=True, clean_copy=False),
    ],
    ids=["drawn", "crop", "height", "crop-height", "no-clean-copy", "crop-no-clean-copy"],
)
@pytest.mark.parametrize("version", ["0.13.2-6476f8a", FRIGATE_VERSION])
def test_an_ended_event_s_picture_is_the_object_whatever_the_camera_s_snapshot_settings(settings, version):
    """An ended event's snapshot.jpg is the file Frigate stored with the camera's snapshot settings (its query
    is not applied): the follower's crop is the object itself, not a region of a cut or resized picture."""
    fake = FakeFrigate({0: drawn_frame()}, [frigate_event("ended", 100.0, 110.0)], CAMERA, 0, version=version)
    fake.settings = settings
    try:
        follower = follower_of(fake, None, 200.0)
        follower.learn_version()
        follower._learn_cameras()
        tracked = Tracked("ended", CAMERA, "person", 100.0, 110.0, snapshot_time=100.0, snapshot_box=list(OBJECT))
        tracked.samples = [(100.0, list(OBJECT))]
        picture = follower._picture(tracked)
    finally:
        fake.close()
    assert picture is not None and blue(picture.crop) > 0.75, blue(picture.crop) if picture else None
    assert red(picture.crop) < 0.01  # not the lines of the box Frigate drew


def test_a_tracked_event_s_snapshot_is_asked_clean_and_whole():
    fake = FakeFrigate({0: drawn_frame()}, [frigate_event("live", 100.0, None)], CAMERA, 0)
    try:
        follower = follower_of(fake, None, 200.0)
        follower._learn_cameras()
        tracked = Tracked("live", CAMERA, "person", 100.0, snapshot_time=100.0, snapshot_box=list(OBJECT))
        tracked.samples = [(100.0, list(OBJECT))]
        picture = follower._picture(tracked)
    finally:
        fake.close()
    assert picture is not None and picture.scene is not None and picture.scene.shape[:2] == (480, 640)
    assert blue(picture.crop) > 0.75


def zones_by_x(box, height):
    """Zones by where the box stands: "sidewalk" on the left, "plaza" in the middle, none on the right."""
    return "sidewalk" if box[0] < 200 else "plaza" if box[0] < 400 else None


def test_an_object_that_left_every_zone_has_none_and_entered_zones_keep_their_order():
    boxes = [[100.0, 200, 160, 330], [300.0, 200, 360, 330], [500.0, 200, 560, 330]]
    e = FakeEvent("walker", CAMERA, "person", [(float(k), 0, b) for k, b in enumerate(boxes)], zones_of=zones_by_x)
    fake = FakeFrigate({0: drawn_frame()}, [e], CAMERA, 0)
    fake.t0 = e.start_time = 1000.0
    try:
        follower = follower_of(fake, None, 1010.0)
        for k, kind in enumerate(["new", "update", "update"]):
            follower.take("frigate/events", json.dumps(fake.message(kind, e, k, 1000.0 + k)).encode())
        e.end_time = 1003.0
        follower.take("frigate/events", json.dumps(fake.message("end", e, 2, 1003.0)).encode())
    finally:
        fake.close()
    assert e.published[-1]["after"]["entered_zones"] == ["sidewalk", "plaza"]  # as entered, not sorted
    assert fake.api_event(e)["zones"] == ["sidewalk", "plaza"]
    walker = follower.tracked["walker"]
    assert walker.zone == ""  # it left every zone
    assert [walker.zone_in(t, t + 0.5) for t in (1000.0, 1001.0, 1002.0)] == ["sidewalk", "plaza", ""]
    assert walker.zone_in(1000.0, 1002.0) == "plaza"  # the last it was in during the span


def test_a_sub_label_frigate_clears_is_cleared_and_a_recognised_face_or_plate_names_its_object():
    e = frigate_event("car", 1000.0, None)
    fake = FakeFrigate({0: drawn_frame()}, [e], CAMERA, 0, version="0.16.1-e664cb2")  # faces and plates: 0.16
    fake.t0 = 1000.0
    sent = []

    class Client:
        def publish(self, topic, payload, qos=0):
            sent.append((topic, payload))

    try:
        follower = follower_of(fake, None, 1010.0)
        e.sub_label = "Bob"
        follower.take("frigate/events", json.dumps(fake.message("new", e, 0, 1000.0)).encode())
        assert follower.tracked["car"].sub_label == "Bob"  # [name, score] on the wire
        e.sub_label = None
        follower.take("frigate/events", json.dumps(fake.message("update", e, 0, 1001.0)).encode())
        assert follower.tracked["car"].sub_label == ""
        fake.recognise(Client(), e, "ABC123", kind="lpr")
        follower.take(*sent[-1])
        assert follower.tracked["car"].sub_label == "ABC123"
        follower.take("frigate/events", json.dumps(fake.message("update", e, 0, 1002.0)).encode())
        assert follower.tracked["car"].sub_label == "ABC123"  # the plate read, not a sub_label, on frigate/events
        fake.recognise(Client(), e, "Alice")  # a face
        follower.take(*sent[-1])
        assert follower.tracked["car"].sub_label == "Alice"
    finally:
        fake.close()
    follower.take("frigate/tracked_object_update", b'{"type": "description", "id": "car", "description": "x"}')
    assert follower.tracked["car"].sub_label == "Alice"

    class Subscriber:
        topics: list = []

        def subscribe(self, topics):
            self.topics.extend(t for t, _ in topics)

    client = Subscriber()
    follower.subscribe(client)
    client.on_connect(client, None, None, type("Ok", (), {"is_failure": False})(), None)
    assert "frigate/tracked_object_update" in client.topics


def test_with_frigate_s_defaults_the_follower_says_frigate_keeps_no_event_for_long(caplog):
    """Snapshots and recordings off (Frigate's defaults): Frigate keeps an ended event in its database only until its
    cleanup (every 5 minutes); the follower says so at start, and catches up from what is there."""
    ended, live = frigate_event("ended", 1000.0, 1010.0), frigate_event("live", 1005.0, None)
    fake = FakeFrigate({0: drawn_frame()}, [ended, live], CAMERA, 0, settings=FakeCamera(snapshots=False, record=False))
    try:
        assert fake.cleanup() == ["ended"]
        follower = follower_of(fake, 990.0, 1100.0)
        with caplog.at_level("WARNING", logger="edge_agent.mqtt.frigate"):
            follower.catch_up()
    finally:
        fake.close()
    assert any("5 minutes" in r.getMessage() and CAMERA in r.getMessage() for r in caplog.records)
    assert set(follower.tracked) == set()  # Frigate held none of them: nothing to bring in, nothing invented
