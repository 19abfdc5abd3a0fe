"""The MQTT sink as Home Assistant sees it, against a real mosquitto on loopback and a subscriber that behaves as
Home Assistant's MQTT integration (it follows an entity's topics only once it has seen its discovery config): a new
rule's first alert arrives, a removed rule leaves no ghost, availability follows the agent (birth and will), two
installs on one broker stay apart, and a named person's sensor follows its sightings until unnamed or forgotten."""

from __future__ import annotations

import json
import socket
import threading
import time
import uuid
from collections.abc import Callable

import numpy as np
import pytest
from helpers.memory import clip, observation, said, unit

from edge_agent.memory import Store, corrections, identity, rulebook
from edge_agent.rules.sinks import Dispatcher, MqttSink, MqttSinkConfig, enqueue

T0 = 1_714_564_800.0
ALICE = unit(np.r_[np.ones(8), np.zeros(8)])


@pytest.fixture
def store(tmp_path):
    with Store(tmp_path / "home") as s:
        yield s


class HomeAssistantLike:
    """An MQTT client that behaves as Home Assistant's MQTT integration: it subscribes to the discovery prefix; on
    an entity's config it subscribes to the entity's state, attributes and availability topics (``react_s`` later:
    its own processing), and an empty config removes the entity. Everything it receives on followed topics is kept,
    in order."""

    def __init__(self, port: int, *, react_s: float = 0.2, prefix: str = "homeassistant") -> None:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        self.react_s = react_s
        self.prefix = prefix
        self.changed = threading.Condition()
        self.entities: dict[str, dict] = {}  #: config topic -> config
        self.removed: list[str] = []  #: config topics emptied while it watched
        self.received: list[tuple[str, str]] = []  #: (topic, payload) on followed topics
        self._timers: list[threading.Timer] = []
        subscribed = threading.Event()
        self.client = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2)
        self.client.on_connect = lambda c, u, f, rc, p: c.subscribe(f"{prefix}/#", qos=1)
        self.client.on_subscribe = lambda c, u, mid, codes, p: subscribed.set()
        self.client.on_message = self._on_message
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        assert subscribed.wait(5), "the Home Assistant-like subscriber could not subscribe"

    def _on_message(self, client, userdata, message) -> None:
        text = message.payload.decode()
        with self.changed:
            if message.topic.startswith(f"{self.prefix}/") and message.topic.endswith("/config"):
                if text:
                    config = json.loads(text)
                    self.entities[message.topic] = config
                    topics = [
                        config[k] for k in ("state_topic", "json_attributes_topic", "availability_topic") if k in config
                    ]
                    timer = threading.Timer(self.react_s, lambda: client.subscribe([(t, 1) for t in topics]))
                    self._timers.append(timer)
                    timer.start()
                else:
                    self.entities.pop(message.topic, None)
                    self.removed.append(message.topic)
            else:
                self.received.append((message.topic, text))
            self.changed.notify_all()

    def on(self, topic: str) -> list[str]:
        with self.changed:
            return [text for t, text in self.received if t == topic]

    def wait(self, condition: Callable[[], object], timeout: float = 10.0) -> bool:
        with self.changed:
            return bool(self.changed.wait_for(condition, timeout))

    def close(self) -> None:
        for timer in self._timers:
            timer.cancel()
        self.client.disconnect()
        self.client.loop_stop()


def retained(port: int, topic_filter: str) -> dict[str, str]:
    """What the broker holds retained under ``topic_filter``: a marker published after subscribing comes back after
    every retained message (the broker keeps one client's messages in order), so nothing is waited for by time."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    marker = f"test/marker/{uuid.uuid4().hex}"
    found: dict[str, str] = {}
    done = threading.Event()

    def on_message(client, userdata, message) -> None:
        if message.topic == marker:
            done.set()
        elif message.retain:
            found[message.topic] = message.payload.decode()

    client = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2)
    client.on_message = on_message
    client.on_subscribe = lambda c, u, mid, codes, p: c.publish(marker, "end", qos=1)
    client.on_connect = lambda c, u, f, rc, p: c.subscribe([(topic_filter, 1), (marker, 1)])
    client.connect("127.0.0.1", port)
    client.loop_start()
    try:
        assert done.wait(5), "the retained messages did not arrive"
    finally:
        client.disconnect()
        client.loop_stop()
    return found


def sink_of(store: Store, port: int, **config) -> MqttSink:
    settings = {"port": port, "timeout_s": 5, "discovery_settle_s": 0.6, **config}
    return MqttSink(MqttSinkConfig(**settings), install_id=identity.install_id(store.db))


def add_rule(store: Store, text: str = "tell me when a person is at the door") -> int:
    with store.db.transaction():
        return rulebook.insert_rule(store.db, text, "{}", 600.0, T0)


def fire(store: Store, rule_id: int, sink: str = "ha") -> dict:
    """An alert of the rule, queued for ``sink`` as the resolver queues one."""
    with store.db.transaction():
        event_id = store.db.insert(
            "INSERT INTO rule_events (rule_id, entity_id, t, state) VALUES (?, NULL, ?, 'fired')", (rule_id, T0)
        )
        payload = {"rule_id": rule_id, "rule": "tell me when a person is at the door", "event_id": event_id}
        enqueue(store.db, event_id, payload, [sink], T0)
    return payload


def see(store: Store, t: float, *, camera: str = "front", zone: str = "", crop: str | None = None) -> tuple[int, int]:
    """Alice (the same look each time) seen in a clip of ``camera``: (entity id, observation id)."""
    record = observation(
        1,
        t,
        [200, 100, 290, 400],
        ALICE,
        kind="person",
        category="person",
        description=said("person", zone=zone),
        crop_path=crop,
    )
    (decision,) = store.ingest_clip(clip(t, 10.0, camera), [record]).decisions
    return decision.entity_id, decision.observation_id


# -- rules: issue 45 items 7 and 8 ------------------------------------------------------------------


def test_the_first_alert_of_a_new_rule_reaches_a_subscriber_that_follows_its_config(broker, store):
    ha = HomeAssistantLike(broker, react_s=0.2)
    sink = sink_of(store, broker, discovery_settle_s=0.8)
    dispatcher = Dispatcher(store.db.path, {"ha": sink})
    try:
        rule_id = add_rule(store)
        alert = fire(store, rule_id)  # a rule fires on the first clip after it was added: its config is new too
        assert dispatcher.deliver_due(store.db) == 1
        event_topic = sink.discovery.rule_event_topic(rule_id)
        assert ha.wait(lambda: ha.on(event_topic)), "the first alert went out before the subscriber followed it"
        (event,) = [json.loads(text) for text in ha.on(event_topic)]
        assert event["event_type"] == "fired" and event["event_id"] == alert["event_id"]
        config = ha.entities[sink.discovery.rule_config_topic(rule_id)]
        assert config["state_topic"] == event_topic and config["event_types"] == ["fired"]
    finally:
        dispatcher.stop()
        ha.close()


def test_rules_are_announced_when_added_and_removed_when_removed(broker, store):
    kept = add_rule(store, "tell me when the cat is on the table")
    ha = HomeAssistantLike(broker)
    sink = sink_of(store, broker)
    dispatcher = Dispatcher(store.db.path, {"ha": sink}, poll_s=0.05)
    dispatcher.start()  # at start: the rules in force are announced, no alert needed
    try:
        kept_topic = sink.discovery.rule_config_topic(kept)
        assert ha.wait(lambda: kept_topic in ha.entities)
        added = add_rule(store)  # by another process (the CLI, the API) while the agent runs
        added_topic = sink.discovery.rule_config_topic(added)
        assert ha.wait(lambda: added_topic in ha.entities)
        with store.db.transaction():
            rulebook.retire_rule(store.db, added, time.time())
        assert ha.wait(lambda: added_topic in ha.removed)
        assert added_topic not in retained(broker, "homeassistant/#")  # no ghost for a Home Assistant that starts later
    finally:
        dispatcher.stop()
        ha.close()

    # removed while the agent was stopped: its next run finds the retained config and empties it
    with store.db.transaction():
        rulebook.retire_rule(store.db, kept, time.time())
    assert kept_topic in retained(broker, "homeassistant/#")
    dispatcher = Dispatcher(store.db.path, {"ha": sink_of(store, broker)}, poll_s=0.05)
    dispatcher.start()
    try:
        deadline = time.monotonic() + 10
        while kept_topic in retained(broker, "homeassistant/#") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert kept_topic not in retained(broker, "homeassistant/#")
    finally:
        dispatcher.stop()


# -- availability and installs: issue 45 items 9 and 10 --------------------------------------------------


def test_availability_follows_the_running_agent(broker, store):
    sink = sink_of(store, broker)
    status = sink.status_topic
    ha = HomeAssistantLike(broker)
    ha.client.subscribe(status, qos=1)
    dispatcher = Dispatcher(store.db.path, {"ha": sink}, poll_s=0.05)
    try:
        dispatcher.start()  # connects at start (birth), with no alert to send
        assert ha.wait(lambda: ha.on(status) == ["online"])
        # the connection dies without a goodbye (a crash, a pulled cable): the broker publishes the will
        sink._client.socket().shutdown(socket.SHUT_RDWR)
        assert ha.wait(lambda: ha.on(status)[:2] == ["online", "offline"])
        assert ha.wait(lambda: ha.on(status)[-1:] == ["online"] and len(ha.on(status)) >= 3)  # back
    finally:
        dispatcher.stop()  # a clean stop says "offline" itself
    try:
        assert ha.wait(lambda: ha.on(status)[-1:] == ["offline"])
        assert retained(broker, status) == {status: "offline"}
    finally:
        ha.close()


def test_two_installs_on_one_broker_stay_apart(broker, tmp_path):
    ha = HomeAssistantLike(broker)
    ids, sinks = [], []
    try:
        for name in ("a", "b"):
            with Store(tmp_path / name) as store:
                add_rule(store)  # rule 1 in each
                entity_id, _ = see(store, T0)
                corrections.rename(store, entity_id, "Alice")
                ids.append(identity.install_id(store.db))
                sink = sink_of(store, broker)
                sink.sync(store.db)
                sinks.append(sink)
            with Store(tmp_path / name) as again:
                assert identity.install_id(again.db) == ids[-1]  # made once, kept in the memory
        assert ids[0] != ids[1]
        topics = [{s.discovery.rule_config_topic(1), s.discovery.entity_config_topic(entity_id)} for s in sinks]
        assert ha.wait(lambda: topics[0] | topics[1] <= ha.entities.keys())
        assert not topics[0] & topics[1]
        configs = [[ha.entities[t] for t in sorted(group)] for group in topics]
        unique_ids = {c["unique_id"] for group in configs for c in group}
        assert len(unique_ids) == 4
        assert {c["device"]["identifiers"][0] for group in configs for c in group} == {f"edge_agent_{i}" for i in ids}
        assert len({c["state_topic"] for group in configs for c in group}) == 4
        assert len({c["availability_topic"] for group in configs for c in group}) == 2
    finally:
        for sink in sinks:
            sink.close()
        ha.close()


# -- named people and things: issue 44 item 3 -----------------------------------------------------------


def test_a_named_person_is_a_sensor_of_where_she_was_last_seen(broker, store):
    ha = HomeAssistantLike(broker)
    sink = sink_of(store, broker, picture_base_url="http://hub.local:8080/")
    d = sink.discovery
    try:
        entity_id, first = see(store, T0, camera="front", zone="porch", crop="crops/1.jpg")
        sink.sync(store.db)  # not named yet: nothing about her
        config_topic = d.entity_config_topic(entity_id)
        assert config_topic not in retained(broker, "homeassistant/#")

        corrections.rename(store, entity_id, "Alice")
        sink.sync(store.db)
        assert ha.wait(lambda: config_topic in ha.entities)
        config = ha.entities[config_topic]
        assert config["name"] == "Alice" and config["state_topic"] == d.entity_state_topic(entity_id)
        state, attributes = d.entity_state_topic(entity_id), d.entity_attributes_topic(entity_id)
        assert ha.wait(lambda: ha.on(state) == ["porch"] and ha.on(attributes))
        seen = json.loads(ha.on(attributes)[-1])
        assert seen["observation_id"] == first and seen["t"] == T0 + 1.5  # the sighting's end
        assert seen["time"] == "2024-05-01T12:00:01Z" and seen["place"] == "porch" and seen["camera"] == "front"
        assert seen["picture_url"] == f"http://hub.local:8080/api/crops/{first}"

        again, later = see(store, T0 + 600, camera="front")  # a new sighting, at no zone: the camera is the place
        assert again == entity_id
        sink.sync(store.db)
        sink.sync(store.db)  # nothing new: nothing published again
        # the state and the attributes are two topics: either may arrive first
        assert ha.wait(lambda: ha.on(state) == ["porch", "front"] and len(ha.on(attributes)) == 2)
        assert json.loads(ha.on(attributes)[-1])["observation_id"] == later
        assert "picture_url" not in json.loads(ha.on(attributes)[-1])  # no crop of that one

        corrections.rename(store, entity_id, None)  # unnamed: the sensor goes, and her retained state with it
        sink.sync(store.db)
        assert ha.wait(lambda: config_topic in ha.removed)
        assert not retained(broker, f"{d.base_topic}/entity/#")

        corrections.rename(store, entity_id, "Alice")
        sink.sync(store.db)
        assert ha.wait(lambda: config_topic in ha.entities)
        corrections.forget(store, entity_id)  # forgotten: the same
        sink.sync(store.db)
        assert ha.wait(lambda: ha.removed.count(config_topic) == 2)
        assert not retained(broker, f"{d.base_topic}/entity/#")
        assert config_topic not in retained(broker, "homeassistant/#")
    finally:
        sink.close()
        ha.close()


def test_sightings_go_out_once_per_clip_from_the_dispatcher(broker, store):
    """The agent's ingest path: after each clip the dispatcher is woken, and its thread publishes the sighting."""
    from edge_agent.config import Config
    from edge_agent.rules.alerting import Alerting

    entity_id, _ = see(store, T0)
    corrections.rename(store, entity_id, "Alice")
    config = Config.model_validate(
        {"alerts": {"sinks": [{"type": "mqtt", "name": "ha", "port": broker, "discovery_settle_s": 0}]}}
    )
    ha = HomeAssistantLike(broker)
    with Alerting(store, config) as alerting:
        state = alerting.sinks["ha"].discovery.entity_state_topic(entity_id)
        assert ha.wait(lambda: ha.on(state) == ["front"])
        see(store, T0 + 600, camera="kitchen")
        alerting.after_clip()
        assert ha.wait(lambda: ha.on(state) == ["front", "kitchen"])
    ha.close()
