"""People drawn as figures (``"imaging": {"people": "figure"}``) are people to the product's detector, as block
people are not: what ``eval world --detector auto`` needs to tell people from the things they move."""

from __future__ import annotations

import numpy as np
from helpers.shared import model

from edge_agent.capture.frames import Frame
from edge_agent.eval import draw
from edge_agent.eval.world import EntitySpec
from edge_agent.perception.detect import YOLOXDetector


def _best_person(detector: YOLOXDetector, figure: bool, x: int, colour: str, pattern: str) -> float:
    image = np.full((360, 640, 3), (185, 195, 205), np.uint8)
    image[290:] = (150, 160, 170)
    spec = EntitySpec(id="p", category="person", color=colour, pattern=pattern)
    draw._shape(image, spec, (x, 71, x + 56, 291), 1.0, figure)
    found = detector.detect(Frame(0, 0.0, image))
    return max([float(found.confidence[k]) for k in range(len(found)) if found.category(k) == "person"] or [0.0])


def test_yolox_finds_a_figure_as_a_person_and_not_a_block() -> None:
    detector = YOLOXDetector(model("yolox_nano.onnx"), score_threshold=0.01)
    cases = [(x, c, p) for x in (40, 300, 540) for c in ("green", "blue", "red") for p in ("plain", "checked")]
    figures = [_best_person(detector, True, *case) for case in cases]
    blocks = [_best_person(detector, False, *case) for case in cases]
    # measured 2026-12-03: mean 0.51, 10 of 18 at 0.5 or more (a blue shirt by the frame's edge is the weakest);
    # blocks at most 0.07
    assert np.mean(figures) >= 0.45 and np.mean(np.asarray(figures) >= 0.5) >= 0.5, figures
    assert max(blocks) < 0.2, blocks
