"""The memory hub: subscribes to every node's clips and writes them into one memory, one at a time (association
stays serialised: one writer), then runs the rules (alerts) as a single box does after each clip. Its session
at the broker is persistent and its acknowledgements manual: a clip is acknowledged to the broker, and its
receipt published to the node, only once it is committed, so a hub killed mid-write is sent it again. The write
is idempotent by (camera, clip start): a clip delivered twice is stored once, and its receipt sent again."""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from edge_agent.errors import EdgeAgentError
from edge_agent.ingest import write_clip
from edge_agent.memory import InvalidRecordError, Store
from edge_agent.mqtt import topics
from edge_agent.mqtt.broker import Broker
from edge_agent.mqtt.wire import WireError, decode, key_of

__all__ = ["Hub", "HubStats"]

log = logging.getLogger(__name__)


@dataclass
class HubStats:
    clips: int = 0  #: clips written
    repeats: int = 0  #: clips that were in memory already (sent again)
    refused: int = 0  #: messages that could not be read or stored
    observations: int = 0
    #: per written clip, seconds from its end to its commit (the clock of the node's frames against the hub's)
    latencies: list[float] = field(default_factory=list)


class Hub:
    """Writes what ``broker`` delivers into ``store``; ``after_clip`` runs after each new clip (the rules).
    :meth:`run` serves until ``stop`` is set."""

    def __init__(
        self,
        store: Store,
        broker: Broker,
        *,
        after_clip: Callable[[], None] | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.broker = broker
        self.after_clip = after_clip
        self.prefix = broker.config.topic_prefix
        self.stats = HubStats()
        self._clock = clock
        self._inbox: queue.Queue[Any] = queue.Queue()
        self.connected = threading.Event()
        self.stopping = False
        self.client = broker.client(broker.config.hub_client_id, persistent=True, manual_ack=True)
        self.client.will_set(topics.hub_status(self.prefix), "offline", qos=1, retain=True)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = lambda client, userdata, message: self._inbox.put(message)

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason_code: Any, properties: Any) -> None:
        if reason_code.is_failure:
            log.error("broker %s refused the hub: %s", self.broker.where, reason_code)
            return
        client.subscribe(topics.clips(self.prefix), qos=1)
        client.publish(topics.hub_status(self.prefix), "online", qos=1, retain=True)
        self.connected.set()
        log.info("hub connected to %s", self.broker.where)

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason_code: Any, properties: Any) -> None:
        self.connected.clear()
        if not self.stopping:
            log.warning("hub lost the broker %s (%s); reconnecting", self.broker.where, reason_code)

    def run(self, stop: threading.Event) -> HubStats:
        self.broker.start(self.client)
        try:
            while not stop.is_set():
                try:
                    message = self._inbox.get(timeout=0.2)
                except queue.Empty:
                    continue
                self.handle(message)
        finally:
            self.stopping = True
            info = self.client.publish(topics.hub_status(self.prefix), "offline", qos=1, retain=True)
            if self.connected.is_set():
                info.wait_for_publish(2.0)
            self.client.disconnect()
            self.client.loop_stop()
        return self.stats

    def handle(self, message: Any) -> None:
        """Writes one delivered message; then acknowledges it and answers the node."""
        payload = bytes(message.payload)
        try:
            _node, perceived = decode(payload)
        except (WireError, InvalidRecordError) as exc:  # never readable: refused, and the node told why
            self.stats.refused += 1
            log.error("refused a clip message on %s: %s", message.topic, exc)
            key = key_of(payload)
            if key is not None:
                self._receipt(key[0], key[1], error=str(exc))
            self._ack(message)
            return
        camera, start_ms = perceived.key
        try:
            result = write_clip(self.store, perceived)
        except EdgeAgentError as exc:  # e.g. a full disk: not stored; the node keeps it and sends it again
            self.stats.refused += 1
            log.error("could not store the %s clip at %.3f: %s", camera, start_ms / 1000, exc)
            self._ack(message)
            return
        if result.created:
            self.stats.clips += 1
            self.stats.observations += len(result.decisions)
            self.stats.latencies.append(self._clock() - perceived.clip.t_end)
            if self.after_clip is not None:
                try:
                    self.after_clip()
                except EdgeAgentError as exc:  # the clip is stored; a rule's failure is said, not fatal
                    log.error("rules after the %s clip at %.3f: %s", camera, start_ms / 1000, exc)
        else:
            self.stats.repeats += 1
        self._receipt(camera, start_ms, clip_id=result.clip_id, created=result.created)
        self._ack(message)

    def _receipt(self, camera: str, start_ms: int, **fields: Any) -> None:
        body = {"camera": camera, "start_ms": start_ms, **fields}
        self.client.publish(topics.stored(self.prefix, camera), json.dumps(body), qos=1)

    def _ack(self, message: Any) -> None:
        if message.qos > 0:
            self.client.ack(message.mid, message.qos)
