"""Frigate as a source, against a fake Frigate (tests/helpers/frigate.py) over a real mosquitto: people found in
a real street recording, announced as Frigate announces tracked objects, their snapshots served from the
recording's frames. The follower is stopped mid-run while Frigate goes on, and started again: afterwards every
tracked object is in memory, in every clip it spans, at the Frigate zone it was in; one object is one entity;
a rule about a Frigate zone reads and fires; a question is answered from it."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pytest
from helpers.frigate import FakeEvent, FakeFrigate
from helpers.mosquitto import Mosquitto
from helpers.shared import data, model

from edge_agent.capture import VideoFileSource, clips
from edge_agent.config import load_config
from edge_agent.ingest import MemoryWriter
from edge_agent.memory import Store
from edge_agent.mqtt.broker import Broker
from edge_agent.mqtt.frigate import FrigateAPI, FrigateError, FrigateFollower, Tracked, tracked_from_api
from edge_agent.perception.backends import build_backends
from edge_agent.perception.observe import track_clip

pytestmark = pytest.mark.slow

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
