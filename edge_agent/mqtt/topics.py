"""The topics under ``[mqtt] topic_prefix`` (default edge-agent), as Frigate names its own:

- ``<prefix>/clips/<camera>``: a node's clip messages (QoS 1), read by the hub;
- ``<prefix>/stored/<camera>``: the hub's receipt for each (QoS 1): ``{"camera", "start_ms", "clip_id", "created"}``,
  or with ``"error"`` where it cannot store the clip;
- ``<prefix>/hub/status``: "online" / "offline" (retained; "offline" is the hub's will), as Frigate's
  ``frigate/available``.

A camera's name may hold characters MQTT gives meaning to (/, + and #): in a topic they become "_"; the message
itself carries the name."""

from __future__ import annotations

import re

__all__ = ["clips", "hub_status", "level", "stored"]


def level(camera: str) -> str:
    """``camera`` as one topic level."""
    return re.sub(r"[/+#\x00]", "_", camera)


def clips(prefix: str, camera: str = "+") -> str:
    return f"{prefix}/clips/{camera if camera == '+' else level(camera)}"


def stored(prefix: str, camera: str) -> str:
    return f"{prefix}/stored/{level(camera)}"


def hub_status(prefix: str) -> str:
    return f"{prefix}/hub/status"
