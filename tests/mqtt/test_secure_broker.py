"""A node and the hub through a broker that asks for a user name and password over TLS (as a Frigate or Home
Assistant install's mosquitto does): the clip arrives with the right credentials and the broker's CA; with a wrong
password the node is refused, says so, and keeps the clip in its outbox."""

from __future__ import annotations

import logging
import shutil
import subprocess
import threading
import time

import pytest
from helpers.memory import perceived_clip
from helpers.mosquitto import Mosquitto

from edge_agent.config.mqtt import MqttConfig
from edge_agent.memory import Store
from edge_agent.memory.outbox import Outbox
from edge_agent.mqtt.broker import Broker
from edge_agent.mqtt.hub import Hub
from edge_agent.mqtt.node import Node


@pytest.fixture
def secure(tmp_path):
    for tool in ("openssl", "mosquitto_passwd"):
        if shutil.which(tool) is None and not (tmp_path / tool).exists():
            if tool == "mosquitto_passwd" and shutil.which("/usr/bin/mosquitto_passwd"):
                continue
            pytest.skip(f"{tool} is not installed")
    folder = tmp_path / "broker"
    folder.mkdir()
    cert, key, passwords = folder / "cert.pem", folder / "key.pem", folder / "passwords"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert)]
        + ["-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True,
        capture_output=True,
    )
    subprocess.run(["mosquitto_passwd", "-c", "-b", str(passwords), "camera", "s3cret"], check=True)
    for f in (key, passwords):
        f.chmod(0o644)  # mosquitto drops to its own user where it can
    extra = f"certfile {cert}\nkeyfile {key}\npassword_file {passwords}\n"
    broker = Mosquitto(folder, persistence=False, anonymous=False, extra=extra).start()
    try:
        yield broker.port, cert
    finally:
        broker.stop()


def _hub(store: Store, broker: Broker) -> tuple[Hub, threading.Event, threading.Thread]:
    hub = Hub(store, broker)
    stop = threading.Event()
    thread = threading.Thread(target=hub.run, args=(stop,), daemon=True)
    thread.start()
    assert hub.connected.wait(10), "the hub could not connect"
    return hub, stop, thread


def test_a_clip_goes_through_a_broker_with_a_password_over_tls(secure, tmp_path):
    port, cert = secure
    config = MqttConfig(tls_ca_certs=cert)
    broker = Broker.parse(f"mqtts://camera:s3cret@127.0.0.1:{port}", config)
    with Store(tmp_path / "hub") as store:
        hub, stop, thread = _hub(store, broker)
        outbox = Outbox(tmp_path / "outbox.db", 1 << 20)
        try:
            with Node(broker, outbox, ["kitchen"], "node-a") as node:
                node.deliver(perceived_clip())
                assert node.drain(20) == 0
            assert hub.stats.clips == 1 and store.resume_point("kitchen") is not None
        finally:
            stop.set()
            thread.join(10)
            outbox.close()


def test_a_wrong_password_is_said_and_the_clip_waits(secure, tmp_path, caplog):
    port, cert = secure
    broker = Broker.parse(f"mqtts://camera:wrong@127.0.0.1:{port}", MqttConfig(tls_ca_certs=cert))
    outbox = Outbox(tmp_path / "outbox.db", 1 << 20)
    with caplog.at_level(logging.ERROR, logger="edge_agent.mqtt.node"), Node(broker, outbox, ["kitchen"], "n") as node:
        node.deliver(perceived_clip())
        deadline = time.monotonic() + 10
        while not any("refused the node" in r.getMessage() for r in caplog.records) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert node.drain(1) == 1
    assert any("refused the node" in r.getMessage() for r in caplog.records)
    assert outbox.waiting() == 1
    outbox.close()
