"""The ``mqtt`` sink: alerts published to an MQTT broker with paho-mqtt 2.x (the reference Python client, and
the one Home Assistant's MQTT documentation points to; imported on first use, so that importing the sinks
stays light), and the agent kept in step with Home Assistant by MQTT discovery (edge_agent.homeassistant):
an event entity per rule, a sensor per named person and thing, availability that follows the running agent."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

from edge_agent.config.sinks import MqttSinkConfig
from edge_agent.homeassistant import OFFLINE, ONLINE, Discovery
from edge_agent.memory import queries, rulebook
from edge_agent.memory.db import Database
from edge_agent.rules.sinks.base import Sink, SinkError, describe_cause

__all__ = ["MqttSink"]

logger = logging.getLogger(__name__)


class MqttSink(Sink):
    """Publishes each alert to ``<prefix>/alerts`` and, for Home Assistant's event entity of its rule, to
    ``<prefix>/<install id>/rule/<rule_id>/event`` (with ``"event_type": "fired"``).

    Discovery: :meth:`sync` (the dispatcher's thread calls it on start and before each delivery pass) connects,
    and makes what the broker holds retained for this install match memory: a config per rule in force and per
    named entity, each seen entity's state and attributes; what is no longer so (a removed rule, an entity forgotten
    or unnamed, also while the agent was stopped: its retained configs are read back on connecting) gets an empty
    retained message, which removes it from Home Assistant. A rule's first alert waits ``discovery_settle_s`` after
    its config went out, so that Home Assistant has subscribed to its events. Availability: "online" (retained)
    on each connection, "offline" as the will and on close. A failed send drops the connection so the next one
    starts clean.
    """

    def __init__(self, config: MqttSinkConfig, *, install_id: str | None = None) -> None:
        if not install_id:
            raise ValueError("the mqtt sink needs the memory's install id (edge_agent.memory.identity.install_id)")
        self.name = config.name
        self.config = config
        self.where = f"{config.host}:{config.port}"
        self.discovery = Discovery.of(config, install_id)
        self.status_topic = self.discovery.status_topic
        self._client: Any = None
        self._lock = threading.Lock()  # the connection and what goes through it
        self._state_lock = threading.Lock()  # what follows, which paho's network thread updates too
        self._held: dict[str, str | None] = {}  #: retained topic -> payload the broker holds (None: may hold)
        self._announced_at: dict[int, float] = {}  #: rule id -> time.monotonic() its config went out (0: earlier)
        self._next_connect = 0.0
        self._failing = False

    # -- the connection ----------------------------------------------------------------------------

    def _connect(self, deadline: float) -> Any:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        c = self.config
        client = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2, client_id=c.client_id or "")
        client.connect_timeout = max(0.05, deadline - time.monotonic())
        if c.username is not None:
            client.username_pw_set(c.username, c.password.get_secret_value() if c.password else None)
        client.will_set(self.status_topic, OFFLINE, qos=1, retain=True)
        connected = threading.Event()
        outcome: list[Any] = []

        def on_connect(client: Any, userdata: Any, flags: Any, reason_code: Any, properties: Any) -> None:
            outcome.append(reason_code)
            if not reason_code.is_failure:
                self._on_connected(client)
            connected.set()

        client.on_connect = on_connect
        client.on_message = self._on_message
        try:
            client.connect(c.host, c.port, keepalive=60)
        except (OSError, ValueError) as exc:
            raise SinkError(f"mqtt {self.where}: cannot connect: {describe_cause(exc)}") from exc
        client.loop_start()
        if not connected.wait(max(0.0, deadline - time.monotonic())):
            self._drop(client)
            raise SinkError(f"mqtt {self.where}: cannot connect: no answer from the broker within {c.timeout_s:g} s")
        if outcome[0].is_failure:
            self._drop(client)
            raise SinkError(f"mqtt {self.where}: cannot connect: the broker refused: {outcome[0]}")
        return client

    def _on_connected(self, client: Any) -> None:
        """On each connection (paho's own reconnections too): the birth message, and the retained state to check."""
        client.publish(self.status_topic, ONLINE, qos=1, retain=True)
        if self.config.discovery:
            client.subscribe([(self.discovery.config_filter, 1), (self.discovery.home_assistant_status_topic, 1)])
        self._forget_contents()  # the broker may have lost retained messages: the next sync publishes them again

    def _forget_contents(self) -> None:
        with self._state_lock:
            self._held = dict.fromkeys(self._held)

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        """paho's thread: Home Assistant's birth asks for the configs again; a retained config of this install
        (a previous run's, say) is one the broker holds, to keep or to remove."""
        text = message.payload.decode("utf-8", "replace")
        if message.topic == self.discovery.home_assistant_status_topic:
            if text == ONLINE:
                self._forget_contents()
            return
        if not (message.retain and text and self.discovery.is_config_topic(message.topic)):
            return
        with self._state_lock:
            if self._held.get(message.topic) is None:
                self._held[message.topic] = text
            rule_id = self.discovery.rule_of_config_topic(message.topic)
            if rule_id is not None:
                self._announced_at.setdefault(rule_id, 0.0)

    def _connected(self, deadline: float) -> Any:
        """The client, connected now (a new connection where the last one is gone)."""
        if self._client is not None and self._client.is_connected():
            return self._client
        self._close_locked(graceful=False)
        self._client = self._connect(deadline)
        return self._client

    @staticmethod
    def _drop(client: Any) -> None:
        try:
            client.disconnect()
        finally:
            client.loop_stop()

    def _publish_all(
        self, client: Any, messages: Sequence[tuple[str, str]], deadline: float, *, qos: int, retain: bool = False
    ) -> None:
        """Publishes ``messages`` (topic, text) in order and waits until the broker acknowledged each."""
        try:
            sent = [(topic, client.publish(topic, text, qos=qos, retain=retain)) for topic, text in messages]
            for topic, info in sent:
                info.wait_for_publish(max(0.0, deadline - time.monotonic()))
                if not info.is_published():
                    raise SinkError(
                        f"mqtt {self.where}: publishing to {topic} not acknowledged within {self.config.timeout_s:g} s"
                    )
        except (ValueError, RuntimeError) as exc:
            raise SinkError(f"mqtt {self.where}: cannot publish: {exc}") from exc

    # -- Home Assistant's entities -----------------------------------------------------------------

    def sync(self, db: Database) -> None:
        """Connects if not connected (at most every ``reconnect_s`` after a failure) and brings the retained
        discovery state up to date with memory: the rules in force and the named entities' last sightings."""
        with self._lock:
            now = time.monotonic()
            if self._client is None or not self._client.is_connected():
                if now < self._next_connect:
                    return
                try:
                    self._connected(now + self.config.timeout_s)
                except SinkError as exc:
                    self._next_connect = now + self.config.reconnect_s
                    log = logger.debug if self._failing else logger.warning
                    log("%s; trying again in %g s", exc, self.config.reconnect_s)
                    self._failing = True
                    return
                self._failing = False
            if not self.config.discovery:
                return
            rules = [(int(r.id), str(r.text)) for r in rulebook.rule_rows(db)]
            wanted = self.discovery.retained(rules, queries.named_sightings(db))
            try:
                self._apply(wanted, rules)
            except SinkError:
                self._close_locked(graceful=False)
                raise

    def _apply(self, wanted: Mapping[str, str], rules: Sequence[tuple[int, str]]) -> None:
        with self._state_lock:
            held = dict(self._held)
        gone = sorted((t for t in held if t not in wanted), key=lambda t: not self.discovery.is_config_topic(t))
        changed = [(t, text) for t, text in wanted.items() if held.get(t) != text]
        if not gone and not changed:
            return
        # a removed entity's config first (Home Assistant drops it), then its state topics are emptied
        messages = [(t, "") for t in gone] + changed
        self._publish_all(self._client, messages, time.monotonic() + self.config.timeout_s, qos=1, retain=True)
        now = time.monotonic()
        config_of = {self.discovery.rule_config_topic(rule_id): rule_id for rule_id, _ in rules}
        with self._state_lock:
            for topic in gone:
                self._held.pop(topic, None)
                rule_id = self.discovery.rule_of_config_topic(topic)
                if rule_id is not None:
                    self._announced_at.pop(rule_id, None)
            for topic, text in changed:
                self._held[topic] = text
                if topic in config_of:
                    self._announced_at.setdefault(config_of[topic], now)

    def _announce(self, client: Any, rule_id: int, text: str, deadline: float) -> None:
        """Makes sure the rule's config went out, and long enough ago for Home Assistant to follow its events."""
        with self._state_lock:
            announced = self._announced_at.get(rule_id)
        if announced is None:
            topic = self.discovery.rule_config_topic(rule_id)
            payload = json.dumps(self.discovery.rule_config(rule_id, text), ensure_ascii=False, sort_keys=True)
            self._publish_all(client, [(topic, payload)], deadline, qos=1, retain=True)
            announced = time.monotonic()
            with self._state_lock:
                self._held[topic] = payload
                self._announced_at[rule_id] = announced
        wait = announced + self.config.discovery_settle_s - time.monotonic()
        if wait > 0:
            time.sleep(wait)

    # -- alerts ------------------------------------------------------------------------------------

    def send(self, payload: Mapping[str, Any]) -> None:
        c = self.config
        deadline = time.monotonic() + c.timeout_s
        with self._lock:
            try:
                client = self._connected(deadline)
                messages = []
                rule_id = payload.get("rule_id")
                if rule_id is not None:
                    if c.discovery:
                        self._announce(client, int(rule_id), str(payload.get("rule") or ""), deadline)
                        deadline = time.monotonic() + c.timeout_s  # the settling wait is not the broker's time
                    messages.append((self.discovery.rule_event_topic(int(rule_id)), self.discovery.rule_event(payload)))
                messages.append((f"{c.topic_prefix}/alerts", dict(payload)))
                texts = [(topic, json.dumps(data, ensure_ascii=False)) for topic, data in messages]
                self._publish_all(client, texts, deadline, qos=c.qos)
            except SinkError:
                self._close_locked(graceful=False)
                raise

    def _close_locked(self, *, graceful: bool) -> None:
        client, self._client = self._client, None
        if client is None:
            return
        try:
            if graceful:  # a clean disconnect does not fire the will: say "offline" ourselves
                info = client.publish(self.status_topic, OFFLINE, qos=1, retain=True)
                info.wait_for_publish(min(self.config.timeout_s, 2.0))
        except (ValueError, RuntimeError):
            pass
        finally:
            self._drop(client)

    def close(self) -> None:
        with self._lock:
            self._close_locked(graceful=True)
