"""A tiny world of things outside COCO (keys and a wallet put down, moved, taken out and brought back by one person):
the shipped things-moved world in small, for the tests of the moves' scoring and of ``eval world --detector auto``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

TINY_THINGS: dict[str, Any] = {
    "name": "tiny-things",
    "days": 1,
    "camera": {"kind": "fixed", "width": 480, "height": 270, "fps": 10},
    "places": ["counter", "shelf", "table", "door"],
    "entities": [
        {"id": "keys", "category": "keys", "color": "silver"},
        {"id": "wallet", "category": "wallet", "color": "brown"},
        {"id": "alice", "category": "person", "color": "blue"},
    ],
    "episodes_per_day": 3,
    "episode_seconds": [12, 16],
    "imaging": {"people": "figure"},
    "noise": {"miss_rate": 0.0, "jitter_px": 0, "false_positive_rate": 0.0, "fragment_rate": 0.0},
    "lighting_drift": 0.05,
    "questions_per_day": 3,
    "away": {"keys": 0.5},
}


def tiny_things(folder: Path, **changes: object) -> Path:
    """The tiny world's scenario file in ``folder``, with ``changes`` to its keys."""
    path = folder / "tiny-things.json"
    path.write_text(json.dumps(TINY_THINGS | changes))
    return path
