"""The ``mqtt`` sink: alerts published to an MQTT broker with paho-mqtt 2.x (the reference Python client, and
the one Home Assistant's MQTT documentation points to; imported on first use, so that importing the sinks
stays light), each rule announced to Home Assistant by MQTT discovery as an ``event`` entity."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Mapping
from typing import Any

from edge_agent.config.sinks import MqttSinkConfig
from edge_agent.rules.sinks.base import Sink, SinkError, describe_cause

__all__ = ["MqttSink"]


class MqttSink(Sink):
    """Publishes each alert to ``<prefix>/alerts`` and ``<prefix>/rule/<rule_id>/event`` (the latter with
    ``"event_type": "fired"`` for Home Assistant's event entity). Before a rule's first alert it publishes
    the retained discovery config ``<discovery_prefix>/event/edge_agent/rule_<rule_id>/config``.
    Availability: ``<prefix>/status`` is "online" (retained) while connected, "offline" as the will and
    on close. Connects on the first send; a failed send drops the connection so the next one starts clean.
    """

    def __init__(self, config: MqttSinkConfig) -> None:
        self.name = config.name
        self.config = config
        self.where = f"{config.host}:{config.port}"
        self.status_topic = f"{config.topic_prefix}/status"
        self._client: Any = None
        self._announced: set[Any] = set()
        self._lock = threading.Lock()

    def _connect(self, deadline: float) -> Any:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        c = self.config
        client = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2, client_id=c.client_id or "")
        client.connect_timeout = max(0.05, deadline - time.monotonic())
        if c.username is not None:
            client.username_pw_set(c.username, c.password.get_secret_value() if c.password else None)
        client.will_set(self.status_topic, "offline", qos=1, retain=True)
        connected = threading.Event()
        outcome: list[Any] = []

        def on_connect(client: Any, userdata: Any, flags: Any, reason_code: Any, properties: Any) -> None:
            outcome.append(reason_code)
            if not reason_code.is_failure:
                client.publish(self.status_topic, "online", qos=1, retain=True)
            connected.set()

        client.on_connect = on_connect
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
        self._announced.clear()  # a new connection re-announces (the broker may have lost retained messages)
        return client

    @staticmethod
    def _drop(client: Any) -> None:
        try:
            client.disconnect()
        finally:
            client.loop_stop()

    def _publish(
        self, client: Any, topic: str, data: Mapping[str, Any] | str, deadline: float, *, qos: int, retain: bool = False
    ) -> None:
        text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
        try:
            info = client.publish(topic, text, qos=qos, retain=retain)
            info.wait_for_publish(max(0.0, deadline - time.monotonic()))
            published = info.is_published()
        except (ValueError, RuntimeError) as exc:
            raise SinkError(f"mqtt {self.where}: cannot publish to {topic}: {exc}") from exc
        if not published:
            raise SinkError(
                f"mqtt {self.where}: publishing to {topic} not acknowledged within {self.config.timeout_s:g} s"
            )

    def discovery_config(self, rule_id: Any, rule_text: str) -> dict[str, Any]:
        """Home Assistant MQTT discovery payload of the event entity of one rule."""
        c = self.config
        name = rule_text if len(rule_text) <= 60 else rule_text[:59] + "…"
        return {
            "name": name or f"rule {rule_id}",
            "unique_id": f"edge_agent_rule_{rule_id}",
            "state_topic": f"{c.topic_prefix}/rule/{rule_id}/event",
            "event_types": ["fired"],
            "availability_topic": self.status_topic,
            "payload_available": "online",
            "payload_not_available": "offline",
            "device": {"identifiers": ["edge_agent"], "name": "edge-agent"},
            "origin": {"name": "edge-agent"},
        }

    def send(self, payload: Mapping[str, Any]) -> None:
        c = self.config
        deadline = time.monotonic() + c.timeout_s
        with self._lock:
            try:
                if self._client is None:
                    self._client = self._connect(deadline)
                client = self._client
                rule_id = payload.get("rule_id")
                if rule_id is not None:
                    if c.discovery and rule_id not in self._announced:
                        announcement = self.discovery_config(rule_id, str(payload.get("rule") or ""))
                        config_topic = f"{c.discovery_prefix}/event/edge_agent/rule_{rule_id}/config"
                        self._publish(client, config_topic, announcement, deadline, qos=1, retain=True)
                        self._announced.add(rule_id)
                    event = {**payload, "event_type": "fired"}
                    self._publish(client, f"{c.topic_prefix}/rule/{rule_id}/event", event, deadline, qos=c.qos)
                self._publish(client, f"{c.topic_prefix}/alerts", payload, deadline, qos=c.qos)
            except SinkError:
                self._close_locked(graceful=False)
                raise

    def _close_locked(self, *, graceful: bool) -> None:
        client, self._client = self._client, None
        if client is None:
            return
        try:
            if graceful:  # a clean disconnect does not fire the will: say "offline" ourselves
                info = client.publish(self.status_topic, "offline", qos=1, retain=True)
                info.wait_for_publish(min(self.config.timeout_s, 2.0))
        except (ValueError, RuntimeError):
            pass
        finally:
            self._drop(client)

    def close(self) -> None:
        with self._lock:
            self._close_locked(graceful=True)
