"""Alert sinks and the notification dispatcher: how a fired rule reaches the user without slowing ingest.

Design. The rule engine never talks to the network: when a rule fires it writes one ``rule_events`` row
and, in the same SQLite transaction, one ``pending`` row per configured sink in ``notifications``
(:func:`enqueue`). The table is the outbox. A :class:`Dispatcher` thread with its own database
connection delivers due rows outside any transaction (one attempt per row and pass), then records the
outcome in a short transaction of its own: ``sent``, or a retry after exponential backoff, or ``failed``
after ``max_attempts``. Because the outbox is committed with the event, a crash or restart loses no
alert (the next dispatcher delivers what is still pending) and a ``sent`` row is never sent again;
delivery is at-least-once only in the window between a successful send and its status write. One
dispatcher per database is assumed.

Sinks: ``stdout``, ``log`` (the ``edge_agent.alerts`` logger), ``jsonl`` (one JSON object per line),
``webhook`` (an HTTP POST with the standard library's urllib: one JSON POST with a timeout needs no HTTP
client dependency) and ``mqtt`` (paho-mqtt 2.x, the reference Python MQTT client and the one Home
Assistant's own MQTT documentation points to; imported lazily so that importing this module stays light).
The MQTT sink announces each rule to Home Assistant by MQTT discovery as an ``event`` entity.
"""

from __future__ import annotations

import abc
import json
import logging
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, SecretStr, TypeAdapter, field_validator, model_validator

from edge_agent.memory.db import Database

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

logger = logging.getLogger(__name__)
alerts_logger = logging.getLogger("edge_agent.alerts")


class SinkError(RuntimeError):
    """A delivery failed; the message names the sink and the cause."""


# -- configuration -----------------------------------------------------------------------------------


class _SinkConfigBase(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field("", max_length=64, description="the sink's name in notifications rows and rules (default: its type)")

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
    type: Literal["mqtt"] = Field("mqtt", description="publishes alerts to an MQTT broker, with Home Assistant discovery")
    host: str = Field("127.0.0.1", min_length=1, description="broker host name or address")
    port: int = Field(1883, ge=1, le=65535, description="broker TCP port")
    username: str | None = Field(None, description="user name, if the broker requires one")
    password: SecretStr | None = Field(None, description="password for username")
    topic_prefix: str = Field("edge-agent", min_length=1, description="alerts go to <prefix>/alerts and <prefix>/rule/<id>/event")
    discovery_prefix: str = Field("homeassistant", min_length=1, description="Home Assistant's MQTT discovery prefix")
    discovery: bool = Field(True, description="announce each rule to Home Assistant as an event entity (retained)")
    qos: int = Field(1, ge=0, le=2, description="MQTT quality of service of the alert messages")
    timeout_s: float = Field(5.0, gt=0, le=300, description="seconds one delivery may take, connection included")
    client_id: str | None = Field(None, description="MQTT client id (default: one the broker assigns)")


SinkConfig = Annotated[
    Union[StdoutSinkConfig, LogSinkConfig, JsonlSinkConfig, WebhookSinkConfig, MqttSinkConfig],
    Field(discriminator="type"),
]
_SINK_CONFIG: TypeAdapter[SinkConfig] = TypeAdapter(SinkConfig)


# -- sinks -------------------------------------------------------------------------------------------


def _human_line(payload: Mapping[str, Any]) -> str:
    camera = f" [{payload['camera']}]" if payload.get("camera") else ""
    when = payload.get("time") or payload.get("t", "")
    return f"ALERT {when}{camera} rule {payload.get('rule_id')} ({payload.get('rule', '')!r}): {payload.get('message', '')}"


class Sink(abc.ABC):
    """Where alerts go. ``send`` makes one attempt and raises :class:`SinkError` on failure (retries are
    the dispatcher's); ``close`` releases connections."""

    name: str

    @abc.abstractmethod
    def send(self, payload: Mapping[str, Any]) -> None: ...

    def close(self) -> None:
        """Releases what the sink holds (nothing, for most)."""


class StdoutSink(Sink):
    def __init__(self, config: StdoutSinkConfig) -> None:
        self.name = config.name

    def send(self, payload: Mapping[str, Any]) -> None:
        print(_human_line(payload), flush=True)


class LogSink(Sink):
    def __init__(self, config: LogSinkConfig) -> None:
        self.name = config.name

    def send(self, payload: Mapping[str, Any]) -> None:
        alerts_logger.warning("%s", _human_line(payload))


class JsonlSink(Sink):
    def __init__(self, config: JsonlSinkConfig) -> None:
        self.name = config.name
        self.path = config.path.expanduser()

    def send(self, payload: Mapping[str, Any]) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as f:
                f.write(json.dumps(payload, ensure_ascii=False) + "\n")
                f.flush()
        except OSError as exc:
            raise SinkError(f"jsonl {self.path}: {exc}") from exc


def _cause(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError):
        return "timed out"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror[:1].lower() + exc.strerror[1:]
    return str(exc) or type(exc).__name__


class WebhookSink(Sink):
    def __init__(self, config: WebhookSinkConfig) -> None:
        self.name = config.name
        self.config = config

    def send(self, payload: Mapping[str, Any]) -> None:
        url, timeout = self.config.url, self.config.timeout_s
        body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        headers = {"Content-Type": "application/json", "User-Agent": "edge-agent", **self.config.headers}
        request = urllib.request.Request(url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                status = response.status
                response.read()
        except urllib.error.HTTPError as exc:
            exc.close()
            raise SinkError(f"webhook {url}: HTTP {exc.code} {exc.reason}") from None
        except urllib.error.URLError as exc:
            reason = exc.reason if isinstance(exc.reason, BaseException) else OSError(str(exc.reason))
            suffix = f" after {timeout:g} s" if isinstance(reason, TimeoutError) else ""
            raise SinkError(f"webhook {url}: {_cause(reason)}{suffix}") from exc
        except TimeoutError as exc:
            raise SinkError(f"webhook {url}: timed out after {timeout:g} s") from exc
        except OSError as exc:
            raise SinkError(f"webhook {url}: {_cause(exc)}") from exc
        if not 200 <= status < 300:
            raise SinkError(f"webhook {url}: HTTP {status}")


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
            raise SinkError(f"mqtt {self.where}: cannot connect: {_cause(exc)}") from exc
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

    def _publish(self, client: Any, topic: str, data: Mapping[str, Any] | str, deadline: float, *, qos: int, retain: bool = False) -> None:
        text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
        try:
            info = client.publish(topic, text, qos=qos, retain=retain)
            info.wait_for_publish(max(0.0, deadline - time.monotonic()))
            published = info.is_published()
        except (ValueError, RuntimeError) as exc:
            raise SinkError(f"mqtt {self.where}: cannot publish to {topic}: {exc}") from exc
        if not published:
            raise SinkError(f"mqtt {self.where}: publishing to {topic} not acknowledged within {self.config.timeout_s:g} s")

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


_SINK_TYPES: dict[str, Callable[[Any], Sink]] = {
    "stdout": StdoutSink,
    "log": LogSink,
    "jsonl": JsonlSink,
    "webhook": WebhookSink,
    "mqtt": MqttSink,
}


def build_sinks(configs: Sequence[SinkConfig | Mapping[str, Any]]) -> dict[str, Sink]:
    """The sinks of ``configs`` (models, or mappings validated as :data:`SinkConfig`), by name.

    Raises:
        ValueError: two sinks share a name.
    """
    sinks: dict[str, Sink] = {}
    for raw in configs:
        config = _SINK_CONFIG.validate_python(raw) if isinstance(raw, Mapping) else raw
        if config.name in sinks:
            raise ValueError(f"two alert sinks are named {config.name!r}: give each sink of the same type a distinct 'name'")
        sinks[config.name] = _SINK_TYPES[config.type](config)
    return sinks


# -- outbox and dispatcher ---------------------------------------------------------------------------


def _json_default(value: Any) -> Any:
    if hasattr(value, "item"):  # NumPy scalars
        return value.item()
    if hasattr(value, "tolist"):
        return value.tolist()
    return str(value)


def enqueue(db: Database, rule_event_id: int, payload: Mapping[str, Any], sinks: Sequence[str], now: float) -> list[int]:
    """Inserts one pending notification per sink name (duplicates once) and returns their ids. Opens no
    transaction: the engine calls it inside the one that records the rule event."""
    text = json.dumps(dict(payload), ensure_ascii=False, default=_json_default)
    return [
        db.insert(
            "INSERT INTO notifications (rule_event_id, sink, status, attempts, payload, created_at, next_attempt)"
            " VALUES (?, ?, 'pending', 0, ?, ?, ?)",
            (int(rule_event_id), name, text, float(now), float(now)),
        )
        for name in dict.fromkeys(sinks)
    ]


class Dispatcher:
    """Delivers pending notifications to their sinks, in a background thread (:meth:`start`) or on
    demand (:meth:`deliver_due`). Failures are retried after ``backoff_s * 2**(attempts-1)`` seconds
    (at most ``max_backoff_s``) and marked ``failed`` after ``max_attempts``; nothing is raised to the
    caller for a sink failure."""

    def __init__(
        self,
        db_path: str | Path,
        sinks: Mapping[str, Sink],
        *,
        max_attempts: int = 5,
        backoff_s: float = 2.0,
        max_backoff_s: float = 300.0,
        poll_s: float = 1.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, got {max_attempts}")
        self.db_path = Path(db_path)
        self.sinks = dict(sinks)
        self.max_attempts = int(max_attempts)
        self.backoff_s = float(backoff_s)
        self.max_backoff_s = float(max_backoff_s)
        self.poll_s = float(poll_s)
        self.clock = clock
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- delivery ----------------------------------------------------------------------------------

    def deliver_due(self, db: Database | None = None) -> int:
        """Attempts every pending notification that is due, oldest first; returns how many were sent.
        ``db`` must belong to the calling thread; without it a connection is opened for the call."""
        if db is None:
            with Database(self.db_path) as own:
                return self._deliver_due(own)
        return self._deliver_due(db)

    def _deliver_due(self, db: Database) -> int:
        rows = db.query(
            "SELECT id, sink, attempts, payload FROM notifications WHERE status = 'pending' AND next_attempt <= ? ORDER BY created_at, id",
            (self.clock(),),
        )
        sent = 0
        for row_id, sink_name, attempts, text in rows:
            if self._stop.is_set():
                break
            sent += self._deliver_one(db, int(row_id), str(sink_name), int(attempts), str(text))
        return sent

    def _deliver_one(self, db: Database, row_id: int, sink_name: str, attempts: int, text: str) -> int:
        sink = self.sinks.get(sink_name)
        try:
            payload = json.loads(text)
        except ValueError:
            payload = None
        if sink is None or not isinstance(payload, dict):
            error = f"no sink named {sink_name} is configured" if sink is None else "the payload is not a JSON object"
            with db.transaction():
                db.execute("UPDATE notifications SET status = 'failed', error = ? WHERE id = ? AND status = 'pending'", (error, row_id))
            logger.error("alert notification %d cannot be delivered: %s", row_id, error)
            return 0
        try:
            sink.send(payload)
            error = None
        except SinkError as exc:
            error = str(exc)
        except Exception as exc:  # a sink bug must not stop the dispatcher
            logger.debug("sink %s raised", sink_name, exc_info=True)
            error = f"{sink_name}: {type(exc).__name__}: {exc}"
        attempts += 1
        now = self.clock()
        if error is None:
            with db.transaction():
                db.execute(
                    "UPDATE notifications SET status = 'sent', sent_at = ?, attempts = ?, error = NULL WHERE id = ?",
                    (now, attempts, row_id),
                )
            return 1
        failed = attempts >= self.max_attempts
        next_attempt = now + min(self.backoff_s * 2 ** (attempts - 1), self.max_backoff_s)
        with db.transaction():
            db.execute(
                "UPDATE notifications SET status = ?, attempts = ?, error = ?, next_attempt = ? WHERE id = ?",
                ("failed" if failed else "pending", attempts, error, next_attempt, row_id),
            )
        rule = f"rule {payload.get('rule_id')} ({payload.get('rule', '')!r})"
        if failed:
            logger.error("alert of %s not delivered to sink %s after %d attempts: %s", rule, sink_name, attempts, error)
        else:
            logger.debug("alert of %s: attempt %d to sink %s failed (%s); retrying at %.0f", rule, attempts, sink_name, error, next_attempt)
        return 0

    # -- background thread -------------------------------------------------------------------------

    def start(self) -> None:
        """Starts the delivery thread (once); it first delivers what a previous process left pending."""
        if self._thread is not None and self._thread.is_alive():
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="edge-agent-alerts", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        """Asks the thread to look for due notifications now (non-blocking)."""
        self._wake.set()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def stop(self, timeout: float = 10.0) -> None:
        """Stops the thread (after the send in progress, if any) and closes the sinks."""
        self._stop.set()
        self._wake.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout)
            if thread.is_alive():
                logger.warning("the alert dispatcher is still busy with a delivery after %.1f s; leaving it", timeout)
        for sink in self.sinks.values():
            try:
                sink.close()
            except Exception:
                logger.warning("closing alert sink %s failed", sink.name, exc_info=True)

    def _next_wait(self, db: Database) -> float:
        row = db.query_one("SELECT min(next_attempt) FROM notifications WHERE status = 'pending'")
        if row is None or row[0] is None:
            return self.poll_s
        return min(self.poll_s, max(0.0, float(row[0]) - self.clock()))

    def _run(self) -> None:
        db: Database | None = None
        try:
            while not self._stop.is_set():
                self._wake.clear()
                wait = self.poll_s
                try:
                    if db is None:
                        db = Database(self.db_path)
                    self._deliver_due(db)
                    wait = self._next_wait(db)
                except Exception:
                    logger.exception("the alert dispatcher hit an unexpected error; it carries on")
                if not self._stop.is_set():
                    self._wake.wait(max(wait, 0.01))
        finally:
            if db is not None:
                db.close()
