"""The hub, node and Frigate commands refuse bad addresses in one line, before touching memory."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from edge_agent.cli import main


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["hub", "--broker", "http://broker:1883"], "a broker is mqtt://HOST[:PORT]"),
        (["frigate", "--broker", "mqtt://127.0.0.1:1", "--api", "frigate.lan:5000"], "http:// or https:// URL"),
        (["watch", "{video}", "--publish", "tcp://x"], "a broker is mqtt://HOST[:PORT]"),
    ],
)
def test_a_bad_address_is_one_line(tmp_path, capsys, argv, said):
    video = tmp_path / "v.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 5, (64, 48))
    for _ in range(3):
        writer.write(np.zeros((48, 64, 3), np.uint8))
    writer.release()
    argv = [a.replace("{video}", str(video)) for a in argv]
    assert main([*argv, "--home", str(tmp_path / "home")]) == 1
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1
