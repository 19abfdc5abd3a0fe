"""The node's outbox: clips wait in order until the hub confirms them, survive a restart, are sent again when
due, and a full outbox refuses a new clip (saying so) rather than dropping a queued one."""

from __future__ import annotations

from dataclasses import replace

import pytest

from edge_agent.config.mqtt import MqttConfig
from edge_agent.errors import InvalidInputError
from edge_agent.ingest import PerceivedClip
from edge_agent.memory.outbox import Outbox, OutboxFullError
from edge_agent.mqtt.broker import Broker


def test_clips_wait_in_order_until_confirmed_and_survive_a_restart(tmp_path):
    box = Outbox(tmp_path / "o.db", 1 << 20)
    for k in range(5):
        assert box.put("door", 1000 * k, k + 1.0, b"clip %d" % k)
    assert not box.put("door", 2000, 3.0, b"again")  # the same clip twice is queued once
    assert [q.start_ms for q in box.due(100.0, 30, window=3)] == [0, 1000, 2000]
    for q in box.due(100.0, 30, window=3):
        box.sent(q.seq, 100.0)
    assert box.due(110.0, 30, window=3) == []  # sent, not yet due again
    assert [q.start_ms for q in box.due(131.0, 30, window=3)] == [0, 1000, 2000]  # no receipt: due again
    assert box.stored("door", 1000) and not box.stored("door", 1000)
    box.close()

    box = Outbox(tmp_path / "o.db", 1 << 20)  # the node restarted
    assert box.waiting() == 4 and box.resume_point("door") == 5.0 and box.resume_point("hall") is None
    box.send_again()  # a hub came online: everything waiting is due now
    assert [q.payload for q in box.due(101.0, 30, window=10)] == [b"clip 0", b"clip 2", b"clip 3", b"clip 4"]
    box.refuse("door", 0, "bad message")
    assert box.refused() == [("door", 0, "bad message")] and box.waiting() == 3
    assert [q.start_ms for q in box.due(101.0, 30, window=10)] == [2000, 3000, 4000]


def test_a_full_outbox_refuses_a_new_clip_and_keeps_the_queued(tmp_path):
    box = Outbox(tmp_path / "o.db", 100)
    box.put("door", 0, 1.0, b"x" * 80)
    with pytest.raises(OutboxFullError, match="outbox_max_mb"):
        box.put("door", 1000, 2.0, b"y" * 40)
    assert [q.payload for q in box.due(0.0, 30, 10)] == [b"x" * 80]


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("mqtt://broker.lan", ("broker.lan", 1883, False, None, None)),
        ("mqtts://u%40home:p%3Ass@10.0.0.2", ("10.0.0.2", 8883, True, "u@home", "p:ss")),
        ("mqtt://frigate:secret@127.0.0.1:1884", ("127.0.0.1", 1884, False, "frigate", "secret")),
    ],
)
def test_a_broker_url_gives_host_port_tls_and_credentials(url, expected):
    b = Broker.parse(url)
    assert (b.host, b.port, b.tls, b.username, b.password) == expected


def test_credentials_come_from_the_configuration_where_the_url_has_none():
    b = Broker.parse("mqtt://h", MqttConfig(username="hub", password="pw"))
    assert (b.username, b.password) == ("hub", "pw")


@pytest.mark.parametrize("url", ["http://h:1883", "mqtt://", "h:1883", "mqtt://h:99999"])
def test_a_bad_broker_url_is_named(url):
    with pytest.raises(InvalidInputError, match="broker"):
        Broker.parse(url)


def test_a_node_whose_outbox_is_full_says_so_and_goes_on(tmp_path, caplog):
    from helpers.memory import perceived_clip
    from helpers.mosquitto import free_port

    from edge_agent.mqtt.node import Node

    clip = perceived_clip()
    node = Node(Broker.parse(f"mqtt://127.0.0.1:{free_port()}"), Outbox(tmp_path / "o.db", 1 << 20), ["kitchen"], "n")
    assert node.deliver(clip).observations == 2  # queued (no broker: it waits)
    node.outbox.max_bytes = 10
    later = PerceivedClip(replace(clip.clip, t_start=clip.clip.t_start + 10, t_end=clip.clip.t_end + 10), ())
    with caplog.at_level("ERROR"):
        assert node.deliver(later).observations == 0  # refused, said, no exception: a live camera goes on
    assert node.not_queued == 1 and node.outbox.waiting() == 1 and "outbox_max_mb" in caplog.text
    node.outbox.close()
