"""The memory hub: subscribes to every node's clips and writes them into one memory, one at a time (association
stays serialised: one writer), then runs the rules (alerts) as a single box does after each clip. Its session
at the broker is persistent and its acknowledgements manual: a clip is acknowledged to the broker, and its
receipt published to the node, only once it is committed, so a hub killed mid-write is sent it again. The write
is idempotent by (camera, clip start): a clip delivered twice is stored once, and its receipt sent again. No
message stops the hub: one it cannot read or store is acknowledged and kept as a dead letter with the reason
(memory.deadletters; ``edge-agent hub rejected``), and the node told."""

from __future__ import annotations

import contextlib
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
from edge_agent.memory.deadletters import DeadLetters
from edge_agent.mqtt import topics
from edge_agent.mqtt.broker import Broker
from edge_agent.mqtt.wire import WireError, decode, key_of

__all__ = ["Hub", "HubStats"]

log = logging.getLogger(__name__)

ATTEMPTS = 3  #: how many times the write of a readable clip is tried before it is kept as a dead letter


@dataclass
class HubStats:
    clips: int = 0  #: clips written
    repeats: int = 0  #: clips that were in memory already (sent again)
    refused: int = 0  #: messages that could not be read or stored (dead letters, and clips a full disk refused)
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
        self.max_bytes = broker.config.max_message_kb * 1024
        self.dead_letters = DeadLetters(store.home)
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
                try:
                    self.handle(message)
                except Exception:  # noqa: BLE001 - handle is total; should it not be, one message never stops the hub
                    log.exception("a message on %s could not be handled; acknowledged", message.topic)
                    with contextlib.suppress(Exception):
                        self._ack(message)
        finally:
            self.stopping = True
            info = self.client.publish(topics.hub_status(self.prefix), "offline", qos=1, retain=True)
            if self.connected.is_set():
                info.wait_for_publish(2.0)
            self.client.disconnect()
            self.client.loop_stop()
            self.dead_letters.close()
        return self.stats

    def handle(self, message: Any) -> None:
        """Writes one delivered message; then acknowledges it and answers the node. Total: a message it cannot
        read, or whose write fails :data:`ATTEMPTS` times, is kept as a dead letter with why (``hub rejected``)
        and acknowledged, so the broker never sends it again; nothing of it is in memory."""
        payload = bytes(message.payload)
        try:
            node, perceived = decode(payload, self.max_bytes)
        except (WireError, InvalidRecordError) as exc:  # never readable: refused, and the node told why
            self._reject(message, payload, str(exc), key_of(payload))
            return
        except Exception as exc:  # noqa: BLE001 - a flaw the decoder's checks missed: still this message's alone
            log.exception("reading a clip message on %s failed", message.topic)
            self._reject(message, payload, f"unreadable ({type(exc).__name__}: {exc})", key_of(payload))
            return
        camera, start_ms = perceived.key
        for attempt in range(1, ATTEMPTS + 1):
            try:
                result = write_clip(self.store, perceived)
                break
            except InvalidRecordError as exc:  # memory will never take it (e.g. a vector of another size)
                self._reject(message, payload, str(exc), (camera, start_ms), node=node)
                return
            except EdgeAgentError as exc:  # a full disk: not stored; the node keeps it and sends it again later
                self.stats.refused += 1
                log.error("could not store the %s clip at %.3f: %s", camera, start_ms / 1000, exc)
                self._ack(message)
                return
            except Exception as exc:  # noqa: BLE001 - anything else: tried again, then a dead letter
                log.exception(
                    "writing the %s clip at %.3f failed (try %d of %d)", camera, start_ms / 1000, attempt, ATTEMPTS
                )
                if attempt == ATTEMPTS:
                    reason = f"its write failed {ATTEMPTS} times ({type(exc).__name__}: {exc})"
                    self._reject(message, payload, reason, (camera, start_ms), node=node, attempts=attempt)
                    return
        if result.created:
            self.stats.clips += 1
            self.stats.observations += len(result.decisions)
            self.stats.latencies.append(self._clock() - perceived.clip.t_end)
            if self.after_clip is not None:
                try:
                    self.after_clip()
                except Exception:  # noqa: BLE001 - the clip is stored; a rule's failure is said, not fatal
                    log.exception("rules after the %s clip at %.3f failed", camera, start_ms / 1000)
        else:
            self.stats.repeats += 1
        self._receipt(camera, start_ms, clip_id=result.clip_id, created=result.created)
        self._ack(message)

    def _reject(
        self,
        message: Any,
        payload: bytes,
        reason: str,
        key: tuple[str, int] | None,
        *,
        node: str | None = None,
        attempts: int = 1,
    ) -> None:
        """A message memory will not take: kept as a dead letter, the node told why (where its clip can be named),
        and acknowledged."""
        self.stats.refused += 1
        log.error("refused a clip message on %s: %s", message.topic, reason)
        camera, start_ms = key if key is not None else (None, None)
        try:
            self.dead_letters.keep(
                topic=str(message.topic),
                payload=payload,
                reason=reason,
                limit=self.max_bytes,
                node=node,
                camera=camera,
                start_ms=start_ms,
                attempts=attempts,
            )
        except Exception:  # noqa: BLE001 - a full disk: the message is still not delivered again forever
            log.exception("could not keep the refused message as a dead letter")
        if key is not None:
            self._receipt(key[0], key[1], error=reason)
        self._ack(message)

    def _receipt(self, camera: str, start_ms: int, **fields: Any) -> None:
        body = {"camera": camera, "start_ms": start_ms, **fields}
        self.client.publish(topics.stored(self.prefix, camera), json.dumps(body), qos=1)

    def _ack(self, message: Any) -> None:
        if message.qos > 0:
            self.client.ack(message.mid, message.qos)
