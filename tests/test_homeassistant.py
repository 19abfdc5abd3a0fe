"""Home Assistant's discovery payloads (edge_agent.homeassistant) as values: the field names are those Home
Assistant documents for MQTT discovery, the attributes avoid the names it keeps for itself, and topics and ids
carry the install id."""

from __future__ import annotations

import pytest

from edge_agent.config.sinks import MqttSinkConfig
from edge_agent.homeassistant import CROP_PATH, Discovery
from edge_agent.memory.queries import NamedSighting

# From Home Assistant's MQTT documentation (integrations/mqtt, "MQTT Discovery", and the sensor and event
# platforms): the options an entity's discovery payload may carry that this agent uses or might.
DOCUMENTED_ENTITY_FIELDS = {
    "name",
    "unique_id",
    "state_topic",
    "json_attributes_topic",
    "availability_topic",
    "availability",
    "payload_available",
    "payload_not_available",
    "device",
    "origin",
    "object_id",
    "default_entity_id",
    "entity_picture",
    "icon",
    "event_types",
    "value_template",
    "json_attributes_template",
    "enabled_by_default",
    "entity_category",
    "device_class",
    "qos",
    "expire_after",
    "force_update",
}
DOCUMENTED_DEVICE_FIELDS = {
    "identifiers",
    "connections",
    "name",
    "manufacturer",
    "model",
    "model_id",
    "sw_version",
    "hw_version",
    "serial_number",
    "suggested_area",
    "configuration_url",
    "via_device",
}
DOCUMENTED_ORIGIN_FIELDS = {"name", "sw_version", "support_url"}
# Home Assistant's MQTT integration drops these from json_attributes (MQTT_ATTRIBUTES_BLOCKED in its entity.py).
BLOCKED_ATTRIBUTES = {
    "assumed_state",
    "available",
    "context_recent_time",
    "device_class",
    "device_info",
    "entity_category",
    "entity_picture",
    "entity_registry_enabled_default",
    "extra_state_attributes",
    "force_update",
    "friendly_name",
    "icon",
    "name",
    "should_poll",
    "state",
    "supported_features",
    "unique_id",
    "unit_of_measurement",
}

ALICE = NamedSighting(3, "Alice", "person", 41, 1_714_564_800.0, "front", "porch", True)


def discovery(install_id: str = "0123456789ab", **config) -> Discovery:
    return Discovery.of(MqttSinkConfig(**config), install_id)


def test_payloads_use_documented_fields_only():
    d = discovery(picture_base_url="http://hub:8080")
    for payload in (d.rule_config(7, "tell me when a person is at the door"), d.entity_config(ALICE)):
        assert set(payload) <= DOCUMENTED_ENTITY_FIELDS, set(payload) - DOCUMENTED_ENTITY_FIELDS
        assert set(payload["device"]) <= DOCUMENTED_DEVICE_FIELDS
        assert set(payload["origin"]) <= DOCUMENTED_ORIGIN_FIELDS
        assert payload["availability_topic"] == "edge-agent/0123456789ab/status"
        assert (payload["payload_available"], payload["payload_not_available"]) == ("online", "offline")
        assert payload["device"]["identifiers"] == ["edge_agent_0123456789ab"]
    assert not set(d.entity_attributes(ALICE)) & BLOCKED_ATTRIBUTES


def test_a_named_entity_is_a_sensor_of_where_it_was_last_seen():
    d = discovery(picture_base_url="http://hub:8080")
    config = d.entity_config(ALICE)
    assert config["name"] == "Alice" and config["unique_id"] == "edge_agent_0123456789ab_entity_3"
    assert config["state_topic"] == "edge-agent/0123456789ab/entity/3/state"
    assert config["json_attributes_topic"] == "edge-agent/0123456789ab/entity/3/attributes"
    assert d.entity_config_topic(3) == "homeassistant/sensor/edge_agent_0123456789ab/entity_3/config"
    assert d.entity_state(ALICE) == "porch"
    assert d.entity_state(ALICE._replace(place=None)) == "front"
    attributes = d.entity_attributes(ALICE)
    assert attributes["time"] == "2024-05-01T12:00:00Z" and attributes["observation_id"] == 41
    assert attributes["picture_url"] == "http://hub:8080/api/crops/41"
    assert "picture_url" not in d.entity_attributes(ALICE._replace(has_crop=False))
    assert "picture_url" not in discovery().entity_attributes(ALICE)  # no base URL configured: no picture


def test_retained_state_leaves_out_what_was_never_seen():
    d = discovery()
    never_seen = NamedSighting(5, "Keys", "object", None, None, None, None, False)
    retained = d.retained([(7, "rule")], [ALICE, never_seen])
    assert set(retained) == {
        d.rule_config_topic(7),
        d.entity_config_topic(3),
        d.entity_state_topic(3),
        d.entity_attributes_topic(3),
        d.entity_config_topic(5),
    }


@pytest.mark.parametrize(
    ("topic", "ours", "rule"),
    [
        ("homeassistant/event/edge_agent_0123456789ab/rule_7/config", True, 7),
        ("homeassistant/sensor/edge_agent_0123456789ab/entity_3/config", True, None),
        ("homeassistant/event/edge_agent_ffffffffffff/rule_7/config", False, None),  # another install
        ("homeassistant/event/edge_agent_0123456789ab/rule_7/state", False, None),
        ("other/event/edge_agent_0123456789ab/rule_7/config", False, None),
    ],
)
def test_config_topics_of_this_install(topic, ours, rule):
    d = discovery()
    assert d.is_config_topic(topic) is ours
    assert d.rule_of_config_topic(topic) == rule


def test_two_installs_never_share_a_topic_or_an_id():
    a, b = discovery("aaaaaaaaaaaa"), discovery("bbbbbbbbbbbb")
    assert not set(a.retained([(1, "r")], [ALICE])) & set(b.retained([(1, "r")], [ALICE]))
    assert a.rule_config(1, "r")["unique_id"] != b.rule_config(1, "r")["unique_id"]
    assert a.status_topic != b.status_topic and a.rule_event_topic(1) != b.rule_event_topic(1)


def test_the_crop_path_is_the_api_s():
    pytest.importorskip("fastapi")
    from edge_agent.api.views import crop_url

    assert CROP_PATH.format(observation_id=41) == crop_url(41)
