"""``bench node`` end to end on one short live stream: a node process reads a served 720p MJPEG stream of a real
recording, publishes to a hub process through mosquitto, and the figures come back: CPU, clips in the hub, their
latency, where the node's time went and the hub's replayed throughput."""

from __future__ import annotations

import shutil

import pytest
from helpers.shared import data, model

from edge_agent.bench import node
from edge_agent.config import load_config

pytestmark = pytest.mark.slow


def test_one_stream_reaches_the_hub_and_the_figures_are_reported():
    if shutil.which("mosquitto") is None and not __import__("os").path.exists("/usr/sbin/mosquitto"):
        pytest.skip("mosquitto is not installed (apt-get install mosquitto)")
    models = model("yolox_nano.onnx").parent
    config = load_config(None, capture={"clip_seconds": 2})
    result = node.run([data("video/vtest.avi")], config, models, streams=1, seconds=6, warmup_s=4)
    (stream,) = result["per_stream"]
    assert stream["clips"] >= 3 and stream["frames"] >= 10 and 0 < stream["cpu"] < 2
    assert result["clips_in_hub"] >= stream["clips"] - 1  # the last, cut short by the stop, may still be on its way
    assert 0 < result["latency_p50_s"] <= result["latency_p95_s"] < 30
    assert result["node_ms_per_clip"]["detect"] > 0 and result["node_ms_per_clip"]["write"] > 0
    assert result["hub"]["clips"] == result["hub"]["messages"] >= 3 and result["hub"]["clips_per_s"] > 0
    text = node.format_table(result)
    assert "stream0" in text and "clips/s" in text


def test_a_video_that_cannot_be_read_is_named(tmp_path):
    bad = tmp_path / "not-a-video.mp4"
    bad.write_bytes(b"nothing")
    with pytest.raises(node.BenchError, match="not-a-video"):
        node.Streams([bad])
