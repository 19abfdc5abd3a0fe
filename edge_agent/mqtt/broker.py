"""The broker a node, the hub or the Frigate follower talks to: its URL (mqtt://[USER[:PASSWORD]@]HOST[:PORT], or
mqtts:// for TLS, port 8883), credentials and TLS options from ``[mqtt]`` (as Frigate's ``mqtt`` section), and a
paho-mqtt 2.x client made from them: MQTT 3.1.1, a persistent session where asked (the broker keeps the
subscription and its QoS 1 messages while the client is away), reconnecting by itself with backoff."""

from __future__ import annotations

import logging
import urllib.parse
from dataclasses import dataclass
from typing import Any

from edge_agent.config.mqtt import MqttConfig
from edge_agent.errors import InvalidInputError

__all__ = ["Broker"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Broker:
    host: str
    port: int
    tls: bool
    username: str | None
    password: str | None
    config: MqttConfig

    @classmethod
    def parse(cls, url: str, config: MqttConfig | None = None) -> Broker:
        """The broker of ``url``; :class:`InvalidInputError` names what is wrong with it."""
        config = config or MqttConfig()
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname:
            raise InvalidInputError(
                f"a broker is mqtt://HOST[:PORT] or mqtts://HOST[:PORT] (user and password optional), got {url!r}"
            )
        try:
            port = parts.port or (8883 if parts.scheme == "mqtts" else 1883)
        except ValueError:
            raise InvalidInputError(f"the broker's port in {url!r} is not a TCP port") from None
        username = urllib.parse.unquote(parts.username) if parts.username else config.username
        if parts.password is not None:
            password: str | None = urllib.parse.unquote(parts.password)
        else:
            password = config.password.get_secret_value() if config.password else None
        return cls(parts.hostname, port, parts.scheme == "mqtts", username, password, config)

    @property
    def where(self) -> str:
        return f"{self.host}:{self.port}"

    def client(self, client_id: str, *, persistent: bool, manual_ack: bool = False) -> Any:
        """A paho client for this broker, not yet connected (:meth:`start` connects it)."""
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        client = mqtt.Client(
            callback_api_version=CallbackAPIVersion.VERSION2,
            client_id=client_id,
            clean_session=not persistent,
            protocol=mqtt.MQTTv311,
            manual_ack=manual_ack,
        )
        if self.username is not None:
            client.username_pw_set(self.username, self.password)
        c = self.config
        if self.tls or c.tls_ca_certs is not None:
            client.tls_set(
                ca_certs=str(c.tls_ca_certs) if c.tls_ca_certs else None,
                certfile=str(c.tls_certfile) if c.tls_certfile else None,
                keyfile=str(c.tls_keyfile) if c.tls_keyfile else None,
            )
            if c.tls_insecure:
                client.tls_insecure_set(True)
        client.reconnect_delay_set(min_delay=1, max_delay=30)
        client.max_inflight_messages_set(max(20, c.window))
        client.max_queued_messages_set(0)
        return client

    def start(self, client: Any) -> None:
        """Connects in the background and keeps reconnecting while the broker is away."""
        client.connect_async(self.host, self.port, keepalive=self.config.keepalive_s)
        client.loop_start()
