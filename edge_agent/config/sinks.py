"""The alert sinks' configuration (``[[alerts.sinks]]``): one pydantic model per sink type, a discriminated
union on ``type`` (Frigate's pattern for pluggable backends). The sinks themselves (edge_agent.rules.sinks,
with paho-mqtt and the outbox) read these; the configuration never imports them."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, SecretStr, TypeAdapter, field_validator, model_validator

__all__ = [
    "SINK_CONFIG",
    "JsonlSinkConfig",
    "LogSinkConfig",
    "MqttSinkConfig",
    "SinkConfig",
    "StdoutSinkConfig",
    "WebhookSinkConfig",
]


class _SinkConfigBase(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)  # validators built when first used

    name: str = Field(
        "", max_length=64, description="the sink's name in notifications rows and rules (default: its type)"
    )

    @model_validator(mode="before")
    @classmethod
    def _default_name(cls, data: Any) -> Any:
        if isinstance(data, Mapping) and not data.get("name"):
            return {**data, "name": data.get("type") or cls.model_fields["type"].default}
        return data


class StdoutSinkConfig(_SinkConfigBase):
    type: Literal["stdout"] = Field("stdout", description="prints one human line per alert to standard output")


class LogSinkConfig(_SinkConfigBase):
    type: Literal["log"] = Field("log", description="logs one warning per alert on the edge_agent.alerts logger")


class JsonlSinkConfig(_SinkConfigBase):
    type: Literal["jsonl"] = Field("jsonl", description="appends one JSON object per alert to a file")
    path: Path = Field(..., description="the JSON Lines file (its folder is created)")


class WebhookSinkConfig(_SinkConfigBase):
    type: Literal["webhook"] = Field("webhook", description="POSTs each alert as JSON to a URL")
    url: str = Field(..., description="http:// or https:// URL the alert is POSTed to")
    timeout_s: float = Field(5.0, gt=0, le=300, description="seconds one attempt may take (connect and response)")
    headers: dict[str, str] = Field(default_factory=dict, description="extra HTTP headers (e.g. Authorization)")

    @field_validator("url")
    @classmethod
    def _http_url(cls, url: str) -> str:
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"webhook url must start with http:// or https://, got {url!r}")
        return url


class MqttSinkConfig(_SinkConfigBase):
    type: Literal["mqtt"] = Field(
        "mqtt", description="publishes alerts to an MQTT broker, with Home Assistant discovery"
    )
    host: str = Field("127.0.0.1", min_length=1, description="broker host name or address")
    port: int = Field(1883, ge=1, le=65535, description="broker TCP port")
    username: str | None = Field(None, description="user name, if the broker requires one")
    password: SecretStr | None = Field(None, description="password for username")
    topic_prefix: str = Field(
        "edge-agent",
        min_length=1,
        description="alerts go to <prefix>/alerts; Home Assistant's entities' topics are under <prefix>/<install id>/",
    )
    discovery_prefix: str = Field("homeassistant", min_length=1, description="Home Assistant's MQTT discovery prefix")
    discovery: bool = Field(
        True,
        description="announce to Home Assistant (retained discovery configs): each rule as an event entity, each "
        "named person and thing as a sensor of where it was last seen",
    )
    discovery_settle_s: float = Field(
        1.0,
        ge=0,
        le=60,
        description="seconds between a rule's discovery config and its first alert, for Home Assistant to subscribe",
    )
    picture_base_url: str | None = Field(
        None,
        description="the serve API's address as Home Assistant reaches it (http://host:8080): a sighting's "
        "attributes then carry the URL of its crop (none without it)",
    )
    reconnect_s: float = Field(
        30.0, gt=0, le=3600, description="after a failed connection, seconds before the agent tries again"
    )
    qos: int = Field(1, ge=0, le=2, description="MQTT quality of service of the alert messages")
    timeout_s: float = Field(5.0, gt=0, le=300, description="seconds one delivery may take, connection included")
    client_id: str | None = Field(None, description="MQTT client id (default: one the broker assigns)")

    @field_validator("picture_base_url")
    @classmethod
    def _http_base(cls, url: str | None) -> str | None:
        if url is not None and not url.startswith(("http://", "https://")):
            raise ValueError(f"picture_base_url must start with http:// or https://, got {url!r}")
        return None if url is None else url.rstrip("/")


SinkConfig = Annotated[
    Union[StdoutSinkConfig, LogSinkConfig, JsonlSinkConfig, WebhookSinkConfig, MqttSinkConfig],
    Field(discriminator="type"),
]
#: validates a mapping as a SinkConfig (built when first used, as the models: a process that sends no alert never does)
SINK_CONFIG: TypeAdapter[SinkConfig] = TypeAdapter(SinkConfig, config=ConfigDict(defer_build=True))
