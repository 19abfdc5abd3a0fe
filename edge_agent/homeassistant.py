"""Home Assistant's view of the agent (MQTT discovery, issues 44 and 45): the topics and payloads that make one
install one device, with an event entity per rule and a sensor per named person or thing (where it was last seen).
Pure functions of values; the MQTT sink (edge_agent.rules.sinks.mqtt) publishes them and keeps the broker in step.

Layout (``<prefix>`` the sink's topic_prefix, ``<id>`` the memory's install id, ``<dp>`` the discovery prefix):
``<dp>/<component>/edge_agent_<id>/<object>/config`` (retained; empty removes the entity), availability at
``<prefix>/<id>/status``, a rule's events at ``<prefix>/<id>/rule/<rule>/event``, a named entity's state and
attributes at ``<prefix>/<id>/entity/<entity>/state`` and ``.../attributes`` (both retained)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from edge_agent import __version__
from edge_agent.clock import format_utc
from edge_agent.config.sinks import MqttSinkConfig
from edge_agent.memory.queries import NamedSighting

__all__ = ["CROP_PATH", "OFFLINE", "ONLINE", "Discovery"]

ONLINE, OFFLINE = "online", "offline"
#: the serve API's crop route (edge_agent.api.views.crop_url); a test keeps the two the same
CROP_PATH = "/api/crops/{observation_id}"
_ICONS = {"person": "mdi:account", "animal": "mdi:paw", "object": "mdi:tag-outline"}
_MAX_STATE = 255  #: Home Assistant refuses longer states


@dataclass(frozen=True)
class Discovery:
    """The discovery of one install: ``install_id`` (memory's), the sink's ``topic_prefix`` and
    ``discovery_prefix``, and where Home Assistant reaches the serve API (None: no picture URLs)."""

    install_id: str
    topic_prefix: str
    discovery_prefix: str
    picture_base_url: str | None

    @classmethod
    def of(cls, config: MqttSinkConfig, install_id: str) -> Discovery:
        return cls(install_id, config.topic_prefix, config.discovery_prefix, config.picture_base_url)

    @property
    def node_id(self) -> str:
        return f"edge_agent_{self.install_id}"

    @property
    def base_topic(self) -> str:
        return f"{self.topic_prefix}/{self.install_id}"

    @property
    def status_topic(self) -> str:
        return f"{self.base_topic}/status"

    @property
    def home_assistant_status_topic(self) -> str:
        """Where Home Assistant says "online" when it starts (its birth message): configs are sent again then."""
        return f"{self.discovery_prefix}/status"

    @property
    def config_filter(self) -> str:
        """The subscription that finds this install's retained configs (those of a previous run included)."""
        return f"{self.discovery_prefix}/+/{self.node_id}/+/config"

    def config_topic(self, component: str, object_id: str) -> str:
        return f"{self.discovery_prefix}/{component}/{self.node_id}/{object_id}/config"

    def rule_config_topic(self, rule_id: int) -> str:
        return self.config_topic("event", f"rule_{rule_id}")

    def rule_event_topic(self, rule_id: int) -> str:
        return f"{self.base_topic}/rule/{rule_id}/event"

    def entity_config_topic(self, entity_id: int) -> str:
        return self.config_topic("sensor", f"entity_{entity_id}")

    def entity_state_topic(self, entity_id: int) -> str:
        return f"{self.base_topic}/entity/{entity_id}/state"

    def entity_attributes_topic(self, entity_id: int) -> str:
        return f"{self.base_topic}/entity/{entity_id}/attributes"

    def is_config_topic(self, topic: str) -> bool:
        """Whether ``topic`` is the discovery config topic of one of this install's entities."""
        head, _, rest = topic.partition(f"{self.discovery_prefix}/")
        parts = rest.split("/")
        return not head and len(parts) == 4 and parts[1] == self.node_id and parts[3] == "config"

    def rule_of_config_topic(self, topic: str) -> int | None:
        """The rule whose config ``topic`` is (None for another topic)."""
        if not self.is_config_topic(topic):
            return None
        parts = topic.split("/")
        component, object_id = parts[-4], parts[-2]
        if component == "event" and object_id.startswith("rule_") and object_id[5:].isdigit():
            return int(object_id[5:])
        return None

    # -- payloads ----------------------------------------------------------------------------------

    def _common(self, unique: str) -> dict[str, Any]:
        return {
            "unique_id": f"{self.node_id}_{unique}",
            "availability_topic": self.status_topic,
            "payload_available": ONLINE,
            "payload_not_available": OFFLINE,
            "device": {
                "identifiers": [self.node_id],
                "name": "edge-agent",
                "manufacturer": "edge-agent",
                "model": "camera memory agent",
                "sw_version": __version__,
            },
            "origin": {"name": "edge-agent", "sw_version": __version__},
        }

    def rule_config(self, rule_id: int, text: str) -> dict[str, Any]:
        """The event entity of one rule: each alert is an event of type "fired"."""
        name = text if len(text) <= 60 else text[:59] + "…"
        return {
            "name": name or f"rule {rule_id}",
            **self._common(f"rule_{rule_id}"),
            "state_topic": self.rule_event_topic(rule_id),
            "event_types": ["fired"],
            "icon": "mdi:bell-alert",
        }

    def rule_event(self, alert: Mapping[str, Any]) -> dict[str, Any]:
        """An alert as an event of its rule's event entity."""
        return {**alert, "event_type": "fired"}

    def entity_config(self, sighting: NamedSighting) -> dict[str, Any]:
        """The sensor of a named person or thing: its state where it was last seen, its attributes when and which
        observation (and the observation's picture)."""
        return {
            "name": sighting.name,
            **self._common(f"entity_{sighting.entity_id}"),
            "state_topic": self.entity_state_topic(sighting.entity_id),
            "json_attributes_topic": self.entity_attributes_topic(sighting.entity_id),
            "icon": _ICONS.get(sighting.kind, "mdi:eye"),
        }

    def entity_state(self, sighting: NamedSighting) -> str:
        """Where it was last seen: the place (a zone, or a place the user named), else the camera."""
        return str(sighting.place or sighting.camera or "")[:_MAX_STATE]

    def picture_url(self, sighting: NamedSighting) -> str | None:
        if self.picture_base_url is None or not sighting.has_crop or sighting.observation_id is None:
            return None
        return self.picture_base_url + CROP_PATH.format(observation_id=sighting.observation_id)

    def entity_attributes(self, sighting: NamedSighting) -> dict[str, Any]:
        """When and which observation; names Home Assistant keeps for itself (entity_picture, name, state, ...)
        are not used."""
        attributes: dict[str, Any] = {
            "time": None if sighting.t is None else format_utc(sighting.t).replace(" ", "T") + "Z",
            "t": sighting.t,
            "observation_id": sighting.observation_id,
            "camera": sighting.camera,
            "place": sighting.place,
            "kind": sighting.kind,
            "memory_entity": sighting.entity_id,
        }
        url = self.picture_url(sighting)
        if url is not None:
            attributes["picture_url"] = url
        return attributes

    def retained(self, rules: Iterable[tuple[int, str]], sightings: Iterable[NamedSighting]) -> dict[str, str]:
        """Everything this install should hold retained at the broker, topic -> payload: the configs of the rules
        in force and of the named entities, with the state and attributes of each one seen."""
        out: dict[str, str] = {}
        for rule_id, text in rules:
            out[self.rule_config_topic(rule_id)] = _json(self.rule_config(rule_id, text))
        for s in sightings:
            out[self.entity_config_topic(s.entity_id)] = _json(self.entity_config(s))
            if s.observation_id is not None:
                out[self.entity_state_topic(s.entity_id)] = self.entity_state(s)
                out[self.entity_attributes_topic(s.entity_id)] = _json(self.entity_attributes(s))
        return out


def _json(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, sort_keys=True)
