"""Alert sinks and the notification dispatcher: how a fired rule reaches the user without slowing ingest.

Design. The rule engine never talks to the network: when a rule fires it writes one ``rule_events`` row
and, in the same SQLite transaction, one ``pending`` row per configured sink in ``notifications``
(:func:`enqueue`, :mod:`.outbox`). The table is the outbox. A :class:`Dispatcher` thread (:mod:`.dispatcher`)
delivers due rows and records each outcome; a crash or restart loses no alert. The rows themselves are
memory's (:mod:`edge_agent.memory.rulebook`).

One module per sink: ``stdout``, ``log`` (the ``edge_agent.alerts`` logger), ``jsonl`` (one JSON object per
line), ``webhook`` (an HTTP POST) and ``mqtt`` (paho-mqtt, with Home Assistant discovery:
:mod:`edge_agent.homeassistant`, kept in step with memory by :meth:`Sink.sync` on the dispatcher's thread), on
:mod:`.base`; their configuration models in :mod:`.config`, which imports nothing but pydantic.
"""

from edge_agent.config.sinks import (
    JsonlSinkConfig,
    LogSinkConfig,
    MqttSinkConfig,
    SinkConfig,
    StdoutSinkConfig,
    WebhookSinkConfig,
)
from edge_agent.rules.sinks.base import Sink, SinkError
from edge_agent.rules.sinks.dispatcher import Dispatcher, build_sinks
from edge_agent.rules.sinks.jsonl import JsonlSink
from edge_agent.rules.sinks.log import LogSink
from edge_agent.rules.sinks.mqtt import MqttSink
from edge_agent.rules.sinks.outbox import enqueue
from edge_agent.rules.sinks.stdout import StdoutSink
from edge_agent.rules.sinks.webhook import WebhookSink

__all__ = [
    "Dispatcher",
    "JsonlSink",
    "JsonlSinkConfig",
    "LogSink",
    "LogSinkConfig",
    "MqttSink",
    "MqttSinkConfig",
    "Sink",
    "SinkConfig",
    "SinkError",
    "StdoutSink",
    "StdoutSinkConfig",
    "WebhookSink",
    "WebhookSinkConfig",
    "build_sinks",
    "enqueue",
]
