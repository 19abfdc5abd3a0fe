"""A camera node: perception only, each finished clip published to the hub. The node is the pipeline's
destination (edge_agent.ingest.Destination): a clip is encoded (edge_agent.mqtt.wire), put in the outbox on
disk (edge_agent.memory.outbox) and sent from there in order with QoS 1 by a sender thread. It leaves the outbox
only when the hub's receipt names it, so a broker or hub outage, or the node's own restart, loses nothing: what
the hub has not confirmed is sent again, after ``[mqtt] resend_after_s`` or as soon as a hub comes online."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from edge_agent.ingest import Delivered, PerceivedClip
from edge_agent.memory.outbox import Outbox, OutboxFullError
from edge_agent.mqtt import topics
from edge_agent.mqtt.broker import Broker
from edge_agent.mqtt.wire import encode

__all__ = ["Node"]

log = logging.getLogger(__name__)


class Node:
    """Sends the clips of ``cameras`` through ``broker``, queued in ``outbox``. Use as a context manager, or call
    :meth:`start` and :meth:`close`."""

    def __init__(
        self,
        broker: Broker,
        outbox: Outbox,
        cameras: Sequence[str],
        node_id: str,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.broker = broker
        self.outbox = outbox
        self.cameras = tuple(cameras)
        self.node_id = node_id
        self.prefix = broker.config.topic_prefix
        self._clock = clock
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._connected = threading.Event()
        self._thread: threading.Thread | None = None
        self.client = broker.client(f"edge-agent-node-{topics.level(node_id)}", persistent=True)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self.sent = 0  #: messages published (sends again counted)
        self.confirmed = 0  #: clips the hub said it stored
        self.not_queued = 0  #: clips refused by a full outbox

    # -- the pipeline's destination ------------------------------------------------------------------

    def resume_point(self, camera: str) -> float | None:
        return self.outbox.resume_point(camera)

    def deliver(self, perceived: PerceivedClip) -> Delivered:
        camera, start_ms = perceived.key
        payload = encode(perceived, self.node_id, self.broker.config.max_message_kb * 1024)
        try:
            self.outbox.put(camera, start_ms, perceived.clip.t_end, payload)
        except OutboxFullError as exc:  # said, and the camera goes on; what is queued stays queued
            log.error("%s", exc)
            self.not_queued += 1
            return Delivered()
        self._wake.set()
        return Delivered(len(perceived.observations))

    # -- MQTT --------------------------------------------------------------------------------------

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason_code: Any, properties: Any) -> None:
        if reason_code.is_failure:
            log.error("broker %s refused the node: %s", self.broker.where, reason_code)
            return
        subscriptions = [(topics.stored(self.prefix, c), 1) for c in self.cameras]
        client.subscribe([*subscriptions, (topics.hub_status(self.prefix), 1)])
        self._connected.set()
        self._wake.set()

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason_code: Any, properties: Any) -> None:
        self._connected.clear()
        if not self._stop.is_set():
            log.warning("lost the broker %s (%s); clips wait in the outbox", self.broker.where, reason_code)

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        if message.topic == topics.hub_status(self.prefix):
            if message.payload == b"online":  # a hub (re)started: what it has not confirmed goes again now
                self.outbox.send_again()
                self._wake.set()
            return
        try:
            receipt = json.loads(message.payload)
            camera, start_ms = str(receipt["camera"]), int(receipt["start_ms"])
        except (ValueError, KeyError, TypeError):
            log.warning("a receipt on %s that is not one: %r", message.topic, message.payload[:200])
            return
        if receipt.get("error"):
            log.error("the hub cannot store the %s clip at %.3f: %s", camera, start_ms / 1000, receipt["error"])
            self.outbox.refuse(camera, start_ms, str(receipt["error"]))
        elif self.outbox.stored(camera, start_ms):
            self.confirmed += 1
        self._wake.set()

    def _send(self) -> None:
        c = self.broker.config
        while not self._stop.is_set():
            self._wake.wait(0.5)
            self._wake.clear()
            if not self._connected.is_set():
                continue
            for q in self.outbox.due(self._clock(), c.resend_after_s, c.window):
                info = self.client.publish(topics.clips(self.prefix, q.camera), q.payload, qos=1)
                if info.rc != 0:  # not connected after all: the next connection sends it
                    break
                self.outbox.sent(q.seq, self._clock())
                self.sent += 1

    # -- lifecycle ---------------------------------------------------------------------------------

    def start(self) -> Node:
        self.broker.start(self.client)
        self._thread = threading.Thread(target=self._send, name="edge-agent-node-sender", daemon=True)
        self._thread.start()
        return self

    def drain(self, timeout: float) -> int:
        """Waits up to ``timeout`` seconds for the hub to confirm every queued clip; returns how many still wait."""
        deadline = time.monotonic() + timeout
        while (left := self.outbox.waiting()) and time.monotonic() < deadline:
            self._wake.set()
            time.sleep(0.1)
        return left

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(5)
        self.client.disconnect()
        self.client.loop_stop()

    def __enter__(self) -> Node:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
