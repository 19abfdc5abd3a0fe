"""Grounded descriptions (GEB section 3.2): one ``Describer`` protocol writing an observation's
description and a clip's caption. The ``TemplateDescriber`` needs no model: category, colour name,
position in the frame, motion and the entities seen with it, all read off the pixels and boxes, so it
never states what it did not see. (A llama.cpp VLM describer with GEB's grounding prompt and
ReflectWorld-MM's memory context is the configured upgrade.)"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import cv2
import numpy as np

__all__ = ["Describer", "ObservationContext", "TemplateDescriber", "colour_name"]


@dataclass(frozen=True, eq=False)
class ObservationContext:
    """What a describer may use for one observation: its category, crops (best first), boxes on the
    sampled frames with times, the frame size, and the other categories in the clip."""

    category: str
    crops: Sequence[np.ndarray]
    boxes: np.ndarray  # (K, 4)
    times: Sequence[float]
    frame_size: tuple[int, int]  # (width, height)
    others: Sequence[str] = ()


class Describer(Protocol):
    name: str

    def describe(self, observation: ObservationContext) -> str: ...
    def caption(self, camera: str, observations: Sequence[ObservationContext]) -> str: ...


_HUES = [(10, "red"), (22, "orange"), (34, "yellow"), (78, "green"), (96, "teal"), (130, "blue"), (150, "purple"), (170, "pink"), (180, "red")]


def colour_name(patch: np.ndarray) -> str:
    """The dominant colour of the central part of a crop, in plain words."""
    h, w = patch.shape[:2]
    centre = patch[h // 4: max(h // 4 + 1, 3 * h // 4), w // 4: max(w // 4 + 1, 3 * w // 4)]
    hsv = cv2.cvtColor(centre, cv2.COLOR_BGR2HSV).reshape(-1, 3).astype(np.float32)
    sat, val = hsv[:, 1] / 255.0, hsv[:, 2] / 255.0
    if np.median(val) < 0.2:
        return "black"
    colourful = sat > 0.35
    if colourful.mean() < 0.3:
        v = float(np.median(val))
        return "white" if v > 0.8 else "grey" if v > 0.35 else "dark grey"
    hue = float(np.median(hsv[colourful, 0]))
    return next(name for limit, name in _HUES if hue <= limit)


def _position(box: np.ndarray, size: tuple[int, int]) -> str:
    cx, cy = (box[0] + box[2]) / 2 / size[0], (box[1] + box[3]) / 2 / size[1]
    horizontal = "left" if cx < 1 / 3 else "right" if cx > 2 / 3 else "centre"
    vertical = "top" if cy < 1 / 3 else "bottom" if cy > 2 / 3 else "middle"
    return "in the centre" if (horizontal, vertical) == ("centre", "middle") else f"at the {vertical} {horizontal}"


def _motion(boxes: np.ndarray, size: tuple[int, int]) -> str:
    if len(boxes) < 2:
        return "seen briefly"
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    dx, dy = centres[-1] - centres[0]
    scale = 0.08 * max(size)
    if abs(dx) < scale and abs(dy) < scale:
        return "staying in place"
    if abs(dx) >= abs(dy):
        return "moving right" if dx > 0 else "moving left"
    return "moving down" if dy > 0 else "moving up"


def _plural(category: str, n: int) -> str:
    if n == 1:
        return f"a {category}"
    return f"{n} {category if category.endswith('s') else 'people' if category == 'person' else category + 's'}"


class TemplateDescriber:
    name = "template"

    def describe(self, observation: ObservationContext) -> str:
        boxes = np.asarray(observation.boxes, np.float32).reshape(-1, 4)
        colour = colour_name(observation.crops[0]) if observation.crops else ""
        subject = f"{colour} {observation.category}".strip() if observation.category != "person" else (
            f"person in {colour}" if colour else "person")
        text = f"a {subject} {_position(boxes[len(boxes) // 2], observation.frame_size)}, {_motion(boxes, observation.frame_size)}"
        others = Counter(o for o in observation.others)
        if others:
            text += "; with " + ", ".join(_plural(c, n) for c, n in sorted(others.items()))
        return text

    def caption(self, camera: str, observations: Sequence[ObservationContext]) -> str:
        if not observations:
            return f"{camera}: nothing detected"
        counts = Counter(o.category for o in observations)
        moving = sum(1 for o in observations if _motion(np.asarray(o.boxes).reshape(-1, 4), o.frame_size).startswith("moving"))
        seen = ", ".join(_plural(c, n) for c, n in counts.most_common())
        return f"{camera}: {seen}" + (f"; {moving} moving" if moving else "")
