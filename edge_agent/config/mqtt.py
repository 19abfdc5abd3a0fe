"""Camera nodes, the memory hub and Frigate over MQTT (issue 19): how to reach the broker (user name and
password, TLS, as Frigate's ``mqtt`` section), the topics, and the nodes' and Frigate follower's settings."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr

from edge_agent.config.base import StrictModel

__all__ = ["FrigateConfig", "MqttConfig"]


class MqttConfig(StrictModel):
    """``[mqtt]``: the broker (its address comes from --publish / --broker: mqtt://[USER[:PASSWORD]@]HOST[:PORT],
    mqtts:// for TLS) and how nodes and the hub use it."""

    username: str | None = Field(None, description="user name, if the broker requires one (the URL's wins)")
    password: SecretStr | None = Field(None, description="password for username (the URL's wins)")
    tls_ca_certs: Path | None = Field(None, description="CA certificate file to verify the broker (mqtts://)")
    tls_certfile: Path | None = Field(None, description="client certificate, where the broker asks for one")
    tls_keyfile: Path | None = Field(None, description="the client certificate's private key")
    tls_insecure: bool = Field(False, description="do not check the broker's host name against its certificate")
    topic_prefix: str = Field(
        "edge-agent",
        min_length=1,
        description="clips go to <prefix>/clips/<camera>, the hub's receipts to <prefix>/stored/<camera>",
    )
    keepalive_s: int = Field(60, ge=5, le=3600, description="MQTT keep-alive")
    hub_client_id: str = Field(
        "edge-agent-hub", min_length=1, description="the hub's client id (its persistent session at the broker)"
    )
    max_message_kb: int = Field(
        1024,
        ge=64,
        le=262144,
        description="a clip message's size bound: larger ones have their pictures made smaller until they fit",
    )
    resend_after_s: float = Field(
        30.0, gt=0, le=86400, description="a node sends a clip again when the hub has not said it stored it by then"
    )
    window: int = Field(8, ge=1, le=1000, description="clips a node sends ahead of the hub's receipts, in order")
    outbox_max_mb: int = Field(
        2048, ge=1, description="the node's outbox bound: beyond it a new clip is refused (and said), none is dropped"
    )


class FrigateConfig(StrictModel):
    """``[frigate]``: following an existing Frigate install (`edge-agent frigate`)."""

    topic_prefix: str = Field("frigate", min_length=1, description="Frigate's MQTT topic_prefix")
    grace_s: float = Field(
        5.0,
        ge=0,
        le=600,
        description="a camera's clip is written this long after it ends (Frigate reports a tracked object late)",
    )
    timeout_s: float = Field(10.0, gt=0, le=300, description="seconds one request to Frigate's HTTP API may take")
