"""Alert sinks and the notification dispatcher: local sinks, a webhook against a local HTTP server
(retries with backoff, unreachable, slow), delivery off the caller's thread, delivery after a restart,
and MQTT against a real mosquitto broker on loopback."""

from __future__ import annotations

import contextlib
import http.server
import json
import logging
import queue
import socket
import threading
import time

import pytest
from pydantic import ValidationError

from edge_agent.memory import Store
from edge_agent.rules.sinks import (
    Dispatcher,
    JsonlSinkConfig,
    MqttSink,
    MqttSinkConfig,
    SinkError,
    StdoutSinkConfig,
    WebhookSink,
    WebhookSinkConfig,
    build_sinks,
    enqueue,
)

T0 = 1_714_564_800.0


class FakeClock:
    def __init__(self, t: float = T0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch):
    for var in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "home")
    yield s
    s.close()


def add_event(store: Store, text: str = "tell me when a person is at the door for 5 minutes") -> tuple[int, int]:
    with store.db.transaction():
        rule_id = store.db.insert("INSERT INTO rules (text, predicate, created_at) VALUES (?, '{}', ?)", (text, T0))
        event_id = store.db.insert(
            "INSERT INTO rule_events (rule_id, entity_id, t, state) VALUES (?, NULL, ?, 'fired')", (rule_id, T0)
        )
    return rule_id, event_id


def payload(rule_id: int = 1, event_id: int = 1) -> dict:
    return {
        "rule_id": rule_id,
        "rule": "tell me when a person is at the door for 5 minutes",
        "event_id": event_id,
        "entity_id": None,
        "t": T0,
        "time": "2024-05-01T12:00:00Z",
        "camera": "front",
        "message": "A person has been at the door for 5 minutes.",
        "evidence": [3, 4],
    }


def notify(store: Store, sinks: list[str]) -> tuple[dict, list[int]]:
    rule_id, event_id = add_event(store)
    p = payload(rule_id, event_id)
    with store.db.transaction():
        ids = enqueue(store.db, event_id, p, sinks, T0)
    return p, ids


def rows(store: Store) -> list[tuple]:
    return store.db.query(
        "SELECT id, sink, status, attempts, error, next_attempt, sent_at FROM notifications ORDER BY id"
    )


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# -- configuration and local sinks ------------------------------------------------------------------


def test_configs_are_strict_and_named_by_type(tmp_path):
    assert StdoutSinkConfig().name == "stdout"
    assert JsonlSinkConfig(path=tmp_path / "a.jsonl", name="audit").name == "audit"
    with pytest.raises(ValidationError):
        WebhookSinkConfig(url="http://x", colour="red")
    with pytest.raises(ValidationError):
        WebhookSinkConfig(url="ftp://x")
    sinks = build_sinks(
        [{"type": "stdout"}, {"type": "jsonl", "path": str(tmp_path / "a.jsonl")}, MqttSinkConfig(name="ha")],
        install_id="0123456789ab",
    )
    assert sorted(sinks) == ["ha", "jsonl", "stdout"]
    with pytest.raises(ValueError, match="install id"):
        build_sinks([MqttSinkConfig()])  # Home Assistant's unique ids need it
    with pytest.raises(ValidationError, match="picture_base_url"):
        MqttSinkConfig(picture_base_url="ftp://x")
    assert MqttSinkConfig(picture_base_url="http://hub:8080/").picture_base_url == "http://hub:8080"
    with pytest.raises(ValueError, match="two alert sinks are named 'jsonl'"):
        build_sinks([JsonlSinkConfig(path=tmp_path / "a"), JsonlSinkConfig(path=tmp_path / "b")])


def test_jsonl_and_stdout_sinks(tmp_path, capsys):
    path = tmp_path / "deep" / "alerts.jsonl"
    sinks = build_sinks([JsonlSinkConfig(path=path), StdoutSinkConfig()])
    for i in (1, 2):
        sinks["jsonl"].send(payload(event_id=i))
        sinks["stdout"].send(payload(event_id=i))
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == [payload(event_id=1), payload(event_id=2)]
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2
    assert "A person has been at the door for 5 minutes." in out[0] and "[front]" in out[0]


def test_unknown_sink_fails_with_a_clear_error(store, tmp_path):
    notify(store, ["nope"])
    assert Dispatcher(store.db.path, {}).deliver_due(store.db) == 0
    ((_, _, status, _, error, _, _),) = rows(store)
    assert (status, error) == ("failed", "no sink named nope is configured")


def test_a_sink_bug_is_recorded_not_raised(store):
    class Broken:
        name = "broken"

        def send(self, payload):
            raise KeyError("oops")

        def close(self):
            pass

    notify(store, ["broken"])
    clock = FakeClock()
    assert Dispatcher(store.db.path, {"broken": Broken()}, clock=clock).deliver_due(store.db) == 0
    ((_, _, status, attempts, error, next_attempt, _),) = rows(store)
    assert (status, attempts, error, next_attempt) == ("pending", 1, "broken: KeyError: 'oops'", clock.t + 2.0)


# -- webhook against a local HTTP server ------------------------------------------------------------


class Server:
    """An HTTP server on 127.0.0.1 that answers with the scripted statuses (200 once they run out),
    or holds every request until released when ``hang`` is set."""

    def __init__(self, statuses=(), hang: bool = False) -> None:
        self.statuses = list(statuses)
        self.hang = hang
        self.bodies: list[bytes] = []
        self.headers: list[dict] = []
        self.arrived = threading.Event()
        self.release = threading.Event()
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                owner.bodies.append(self.rfile.read(int(self.headers["Content-Length"])))
                owner.headers.append(dict(self.headers))
                owner.arrived.set()
                if owner.hang:
                    owner.release.wait(10)
                status = owner.statuses.pop(0) if owner.statuses else 200
                with contextlib.suppress(OSError):
                    self.send_response(status)
                    self.send_header("Content-Length", "0")
                    self.end_headers()

            def log_message(self, *args) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05})
        self.thread.start()

    def close(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()


@pytest.fixture
def server_factory():
    servers: list[Server] = []

    def make(**kwargs) -> Server:
        servers.append(Server(**kwargs))
        return servers[-1]

    yield make
    for s in servers:
        s.close()


def test_webhook_retries_with_backoff_then_sent(store, server_factory):
    server = server_factory(statuses=[500, 500])
    clock = FakeClock()
    sinks = build_sinks([WebhookSinkConfig(url=server.url, headers={"X-Token": "t0k"})])
    p, (row_id,) = notify(store, ["webhook"])
    dispatcher = Dispatcher(store.db.path, sinks, clock=clock)

    assert dispatcher.deliver_due(store.db) == 0
    ((_, _, status, attempts, error, next_attempt, _),) = rows(store)
    assert (status, attempts, next_attempt - clock.t) == ("pending", 1, 2.0)
    assert error == f"webhook {server.url}: HTTP 500 Internal Server Error"
    assert dispatcher.deliver_due(store.db) == 0 and len(server.bodies) == 1  # not due yet

    clock.t += 2.0
    assert dispatcher.deliver_due(store.db) == 0
    ((_, _, status, attempts, _, next_attempt, _),) = rows(store)
    assert (status, attempts, next_attempt - clock.t) == ("pending", 2, 4.0)

    clock.t += 4.0
    assert dispatcher.deliver_due(store.db) == 1
    assert rows(store) == [(row_id, "webhook", "sent", 3, None, next_attempt, clock.t)]
    assert dispatcher.deliver_due(store.db) == 0
    assert [json.loads(b) for b in server.bodies] == [p, p, p]
    assert server.headers[0]["Content-Type"] == "application/json" and server.headers[0]["X-Token"] == "t0k"


def test_unreachable_webhook_fails_after_max_attempts_and_logs_once(store, caplog):
    url = f"http://127.0.0.1:{closed_port()}/hook"
    clock = FakeClock()
    dispatcher = Dispatcher(
        store.db.path, build_sinks([WebhookSinkConfig(url=url, timeout_s=2)]), max_attempts=3, clock=clock
    )
    notify(store, ["webhook"])
    with caplog.at_level(logging.DEBUG, logger="edge_agent.rules.sinks"):
        for _ in range(5):
            assert dispatcher.deliver_due(store.db) == 0
            clock.t += 1000.0
    ((_, _, status, attempts, error, _, _),) = rows(store)
    assert (status, attempts) == ("failed", 3)
    assert error == f"webhook {url}: connection refused"
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and url in errors[0].getMessage() and "rule" in errors[0].getMessage()


def test_slow_webhook_times_out(server_factory):
    server = server_factory(hang=True)
    sink = WebhookSink(WebhookSinkConfig(url=server.url, timeout_s=0.5))
    with pytest.raises(SinkError, match=r"webhook http://127\.0\.0\.1:\d+/hook: timed out after 0\.5 s"):
        sink.send(payload())  # the server never answers: only the sink's own timeout ends the wait


def test_delivery_never_blocks_the_caller(store, server_factory):
    server = server_factory(hang=True)
    dispatcher = Dispatcher(store.db.path, build_sinks([WebhookSinkConfig(url=server.url)]), poll_s=5.0)
    dispatcher.start()
    try:
        rule_id, event_id = add_event(store)
        with store.db.transaction():
            enqueue(store.db, event_id, payload(rule_id, event_id), ["webhook"], T0)
        dispatcher.wake()  # returns while the webhook hangs until released: the caller never waits for it
        assert server.arrived.wait(5), "the dispatcher thread did not deliver"  # it is now the one waiting
        assert not server.release.is_set()
        assert rows(store)[0][2] == "pending"
        server.release.set()
        deadline = time.monotonic() + 5
        while rows(store)[0][2] != "sent" and time.monotonic() < deadline:
            time.sleep(0.02)
        assert rows(store)[0][2] == "sent"
    finally:
        dispatcher.stop()
    assert not dispatcher.running


def test_a_restart_delivers_pending_alerts_exactly_once(tmp_path):
    home = tmp_path / "home"
    configs = [
        JsonlSinkConfig(path=tmp_path / "a.jsonl", name="a"),
        JsonlSinkConfig(path=tmp_path / "b.jsonl", name="b"),
    ]
    with Store(home) as first:  # the process that recorded the alerts, then stopped before delivering
        p, ids = notify(first, ["a", "b"])
    assert len(ids) == 2

    dispatcher = Dispatcher(home / "memory.db", build_sinks(configs), poll_s=5.0)
    dispatcher.start()  # the next process: its dispatcher delivers what was left on start
    try:
        with Store(home) as second:
            deadline = time.monotonic() + 5
            while any(r[2] != "sent" for r in rows(second)) and time.monotonic() < deadline:
                time.sleep(0.02)
            assert [r[2] for r in rows(second)] == ["sent", "sent"]
    finally:
        dispatcher.stop()

    again = Dispatcher(home / "memory.db", build_sinks(configs))
    assert again.deliver_due() == 0
    for name in ("a", "b"):
        assert [json.loads(line) for line in (tmp_path / f"{name}.jsonl").read_text().splitlines()] == [p]


# -- MQTT against a real broker ---------------------------------------------------------------------


@contextlib.contextmanager
def subscriber(port: int, *topics: str):
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    messages: queue.Queue = queue.Queue()
    subscribed = threading.Event()
    client = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2)
    client.on_message = lambda c, u, msg: messages.put((msg.topic, msg.payload.decode(), msg.retain))
    client.on_subscribe = lambda c, u, mid, codes, props: subscribed.set()
    client.on_connect = lambda c, u, flags, rc, props: c.subscribe([(t, 1) for t in topics])
    client.connect("127.0.0.1", port)
    client.loop_start()
    try:
        assert subscribed.wait(5), "the test subscriber could not subscribe"
        yield messages
    finally:
        client.disconnect()
        client.loop_stop()


def collect(messages: queue.Queue, wanted: set[str], timeout: float = 5.0) -> dict[str, tuple[str, bool]]:
    got: dict[str, tuple[str, bool]] = {}
    deadline = time.monotonic() + timeout
    while not wanted <= got.keys():
        try:
            topic, text, retain = messages.get(timeout=max(0.01, deadline - time.monotonic()))
        except queue.Empty:
            break
        got[topic] = (text, retain)
    return got


def test_mqtt_alert_and_home_assistant_discovery(broker):
    p = payload(rule_id=7, event_id=42)
    alerts, event, config, status = (
        "edge-agent/alerts",
        "edge-agent/abc123/rule/7/event",
        "homeassistant/event/edge_agent_abc123/rule_7/config",
        "edge-agent/abc123/status",
    )
    sink = MqttSink(MqttSinkConfig(port=broker, timeout_s=5, discovery_settle_s=0), install_id="abc123")
    try:
        with subscriber(broker, "edge-agent/#", "homeassistant/#") as messages:
            sink.send(p)
            got = collect(messages, {alerts, event, config})
        assert json.loads(got[alerts][0]) == p
        assert json.loads(got[event][0]) == {**p, "event_type": "fired"}
        discovery = json.loads(got[config][0])
        assert discovery["unique_id"] == "edge_agent_abc123_rule_7"
        assert discovery["name"].startswith("tell me when a person")
        assert discovery["state_topic"] == event
        assert discovery["event_types"] == ["fired"]
        assert discovery["device"]["identifiers"] == ["edge_agent_abc123"]
        assert discovery["availability_topic"] == status

        with subscriber(broker, "homeassistant/#", status) as late:  # what Home Assistant sees when it starts later
            retained = collect(late, {config, status})
        assert retained[config] == (got[config][0], True)
        assert retained[status] == ("online", True)

        sink.send(payload(rule_id=7, event_id=43))  # the same connection, no second announcement needed
    finally:
        sink.close()
    with subscriber(broker, status) as after:
        assert collect(after, {status})[status] == ("offline", True)


def test_mqtt_unreachable_broker_raises_saying_so():
    port = closed_port()
    sink = MqttSink(MqttSinkConfig(port=port, timeout_s=1), install_id="abc123")
    with pytest.raises(SinkError, match=rf"mqtt 127\.0\.0\.1:{port}: cannot connect: connection refused"):
        sink.send(payload())
    sink.close()
