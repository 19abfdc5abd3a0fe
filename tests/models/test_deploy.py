"""deploy/: every example configuration loads with the real loader, and the systemd units keep the
properties the deployment relies on (restart, dedicated user, state folder, camera and GPU reachable)."""

from __future__ import annotations

import configparser
from pathlib import Path

import pytest

from edge_agent.config import load_config

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
CONFIGS = sorted((DEPLOY / "config").glob("*.toml"))


def test_the_example_configurations_are_there():
    assert {p.name for p in CONFIGS} >= {"wearable.toml", "home-camera.toml"}


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_every_example_configuration_loads(path):
    config = load_config(path)
    if path.name == "wearable.toml":  # uploads nothing
        assert {s.type for s in config.alerts.sinks} <= {"log", "stdout", "jsonl"}
        assert config.capture.sample_fps < 2 and config.describer.type == "template"
    if path.name == "home-camera.toml":
        assert "mqtt" in {s.type for s in config.alerts.sinks} and config.zones
        assert config.detector.type == "tensorrt" and config.embedders.person.type == "tensorrt"


def _unit(name: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # systemd keys are case-sensitive
    parser.read(DEPLOY / "systemd" / name)
    return parser


@pytest.mark.parametrize("name", ["edge-agent-watch.service", "edge-agent-serve.service", "edge-agent-hub.service"])
def test_long_running_units_restart_as_a_dedicated_user_and_keep_devices_reachable(name):
    unit = _unit(name)
    service = unit["Service"]
    assert service["Restart"] == "on-failure" and int(service["RestartSec"]) > 0
    assert service["User"] == "edge-agent" and service["EnvironmentFile"] == "/etc/edge-agent/env"
    assert service["StateDirectory"] == "edge-agent" and service["WorkingDirectory"] == "/var/lib/edge-agent"
    assert "video" in service["SupplementaryGroups"].split()
    assert service["NoNewPrivileges"] == "yes" and service["ProtectSystem"] == "strict"
    for breaks_devices in ("PrivateDevices", "DevicePolicy", "DeviceAllow", "ProtectClock"):
        assert breaks_devices not in service, f"{breaks_devices} would hide /dev/video* or the GPU"
    assert unit["Install"]["WantedBy"] == "multi-user.target"


def test_serve_waits_for_the_network_and_prune_runs_from_a_timer():
    assert "network-online.target" in _unit("edge-agent-serve.service")["Unit"]["After"]
    prune = _unit("edge-agent-prune.service")["Service"]
    assert prune["Type"] == "oneshot" and "memory prune --max-bytes" in prune["ExecStart"]
    assert _unit("edge-agent-prune.timer")["Timer"]["OnCalendar"] == "hourly"
    env = (DEPLOY / "systemd" / "env.example").read_text()
    for variable in (
        "EDGE_AGENT_SOURCE",
        "EDGE_AGENT_CAMERA",
        "EDGE_AGENT_SERVE_HOST",
        "EDGE_AGENT_MAX_BYTES",
        "EDGE_AGENT_MAX_AGE_DAYS",
    ):
        assert f"{variable}=" in env
