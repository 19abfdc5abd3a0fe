"""The geometry a synthetic world's script and its pixels share: how big each category is drawn and the
order things are drawn in (back to front). Kept apart so that :mod:`edge_agent.eval.world` (boxes,
occlusion) and :mod:`edge_agent.eval.draw` (pixels) both use it without importing each other."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from edge_agent.eval.world import EntitySpec

__all__ = ["box_of", "draw_order", "size_of"]

_SIZE = {
    "person": (56, 220),
    "dog": (72, 50),
    "cat": (60, 44),
    "cup": (36, 44),
    "keys": (34, 22),
    "wallet": (38, 26),
    "glasses": (46, 18),
    "phone": (26, 44),
    "bottle": (24, 64),
    "book": (44, 56),
    "laptop": (80, 52),
    "backpack": (56, 70),
}


def size_of(category: str) -> tuple[int, int]:
    return _SIZE.get(category, (44, 44))


def box_of(
    centre: tuple[float, float], category: str, scale: float = 1.0, turn: float = 0.0
) -> tuple[float, float, float, float]:
    """Where a thing placed at ``centre`` (laid out at its nominal size) is drawn on the canvas: ``scale`` (the
    camera nearer or further this session) and ``turn`` (in [-1, 1]: the thing turned, narrower by up to 40%)
    change its size about the bottom of its nominal box, where it stands."""
    (cx, cy), (w, h) = centre, size_of(category)
    width, height = w * scale * (1.0 - 0.4 * abs(turn)), h * scale
    bottom = cy + h / 2
    return (cx - width / 2, bottom - height, cx + width / 2, bottom)


def draw_order(positions: dict[str, tuple[float, float]], spec: dict[str, EntitySpec], floor: float) -> list[str]:
    """Back to front: things on surfaces (larger ones first), then people, then what a person carries."""

    def key(i: str) -> tuple[int, int]:
        carried = spec[i].category != "person" and positions[i][1] < floor - 100
        w, h = size_of(spec[i].category)
        return (2 if carried else 1 if spec[i].category == "person" else 0, -w * h)

    return sorted(positions, key=key)
