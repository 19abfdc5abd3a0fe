"""What the rules' tests share: a real mosquitto broker on loopback for a module's MQTT tests."""

from __future__ import annotations

import pytest
from helpers.mosquitto import Mosquitto


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    """The port of a mosquitto broker (no persistence) that lives as long as the test module."""
    mosquitto = Mosquitto(tmp_path_factory.mktemp("mosquitto"), persistence=False).start()
    try:
        yield mosquitto.port
    finally:
        mosquitto.stop()
