"""ReflectWorld-MM / GEB: things the detector has no class for, found by what changed. A fixed camera keeps two
background models (MOG2 on a small colour copy of each frame, shadows dropped: in colour MOG2 tells a shadow, darker
with the same hue, from a dark thing, which in grey it cannot; silver keys on a beige counter are barely a change in
grey), one long and one short (the abandoned / removed object method): a
region new to the long model but settled in the short one, for a few seconds, is a thing left there; a region
new to both that moves beside a person, outside their box, is a thing in their hands. So is a box the detector is
unsure of (too low a score to start a track, its class flipping between guesses) found again beside a person
frame after frame: box.mp4's decorated box, held in the air, is a 0.3-0.55 "book" or "cake"."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from edge_agent.config.changes import ChangesConfig
from edge_agent.native import iou_matrix
from edge_agent.perception.detections import Detections, confusable_ids, kind_of

__all__ = ["CHANGE_CATEGORY", "ChangeFinder", "Changes", "with_changes"]

CHANGE_CATEGORY = "object"  #: what a found region is called until the describer or a name says more
_FOREGROUND = 255  # MOG2 marks shadows 127: they are not things
_SHADOW = 127


@dataclass(frozen=True)
class Changes:
    """Regions found in one frame: ``xyxy`` float32 (N, 4) full-frame pixels, ``score`` float32 (N,),
    ``handled`` bool (N,): beside a person and moving with them (else left in place)."""

    xyxy: npt.NDArray[np.float32]
    score: npt.NDArray[np.float32]
    handled: npt.NDArray[np.bool_]

    def __len__(self) -> int:
        return int(self.xyxy.shape[0])

    @classmethod
    def empty(cls) -> Changes:
        return cls(np.empty((0, 4), np.float32), np.empty(0, np.float32), np.empty(0, bool))


@dataclass(frozen=True)
class _Run:
    """A box of a thing beside a person, found again in ``frames`` frames in a row: the detector's summed best
    score per confusable group over them (``guesses``), and whether it is unsure of the thing in the last. Once
    its guesses split, it stays undecided: a thing the detector has no class for keeps having none."""

    box: np.ndarray
    frames: int
    guesses: dict[int, float]
    unsure: bool
    undecided: bool = False  #: the guesses split between unrelated classes at some frame of the run

    def after(self, before: _Run, undecided: float) -> _Run:
        """This frame's run continuing ``before`` (``undecided``: [changes] undecided)."""
        guesses = dict(before.guesses)
        for group, score in self.guesses.items():
            guesses[group] = guesses.get(group, 0.0) + score
        ranked = sorted(guesses.values(), reverse=True)
        split = len(ranked) > 1 and ranked[1] >= undecided * ranked[0]
        return _Run(self.box, before.frames + 1, guesses, self.unsure, before.undecided or split)


class ChangeFinder:
    """One camera's background models over its sampled frames (``sample_fps`` of them a second), fed in time
    order by :meth:`find`. ``confident``: the score at which the tracker starts a track from a detection
    ([tracker] new_track_threshold); a box below it is one the detector is unsure of."""

    def __init__(self, settings: ChangesConfig, sample_fps: float, confident: float = 0.6) -> None:
        self.settings = settings
        self.sample_fps = sample_fps
        self.confident = confident
        self._long_history = max(2, round(settings.long_seconds * sample_fps))
        self._short_history = max(1, round(settings.short_seconds * sample_fps))
        self._persist = max(1, round(settings.persist_seconds * sample_fps))
        self._handled_needed = max(1, round(settings.handled_seconds * sample_fps))
        self._kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
        self._shape: tuple[int, int] | None = None
        self._start()

    def _start(self) -> None:
        self._long = cv2.createBackgroundSubtractorMOG2(self._long_history, 16, True)
        self._short = cv2.createBackgroundSubtractorMOG2(self._short_history, 16, True)
        self._static_count: npt.NDArray[np.uint16] | None = None
        self._handled_count = 0
        self._unsure: list[_Run] = []  # boxes of things beside a person, followed from frame to frame

    def reset(self) -> None:
        """Forgets the scene: both models start again from the next frame."""
        self._start()

    def find(self, image: np.ndarray, detections: Detections) -> Changes:
        """The things changed in ``image`` (BGR, the next sampled frame) that ``detections`` (the detector's, in
        the same frame) neither box nor explain as people or animals."""
        height, width = image.shape[:2]
        if self._shape != (height, width):  # a new camera size: the old scene does not apply
            if self._shape is not None:
                self._start()
            self._shape = (height, width)
        scale = min(1.0, self.settings.width / width)
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        # nearest to twice the size, then averaged: nearly INTER_AREA's smoothing at a tenth of its cost
        small = cv2.resize(image, (size[0] * 2, size[1] * 2), interpolation=cv2.INTER_NEAREST)
        small = cv2.resize(small, size, interpolation=cv2.INTER_AREA)
        long_mask = self._long.apply(small)
        long_new = long_mask == _FOREGROUND
        # A dark thing's edges blend with the surface at this size and MOG2 calls them shadow: a shadow pixel
        # touching a changed one is part of the change (a shadow on its own, a cloud's or a person's, is not).
        long_new |= (long_mask == _SHADOW) & (cv2.dilate(long_new.astype(np.uint8), self._kernel) > 0)
        short_new = self._short.apply(small) == _FOREGROUND
        if self._static_count is None:
            self._static_count = np.zeros(long_new.shape, np.uint16)
        if max(long_new.mean(), short_new.mean()) > self.settings.max_changed:  # the light, not a thing
            self._long.apply(small, learningRate=1.0)
            self._short.apply(small, learningRate=1.0)
            self._static_count[:] = 0
            self._handled_count = 0
            self._unsure = []
            return Changes.empty()

        static = self._clean(long_new & ~short_new)
        np.add(self._static_count, 1, out=self._static_count, where=static)
        self._static_count[~static] = 0
        settled = self._static_count >= self._persist

        boxes = detections.xyxy * scale
        living = np.array([kind_of(detections.category(i)) != "object" for i in range(len(detections))], bool)
        people = boxes[living]
        living_mask = _mask(people, long_new.shape)
        things_mask = _mask(boxes[~living], long_new.shape)
        found: list[tuple[np.ndarray, bool]] = []
        for box in self._regions(settled):
            found.append((box, False))
        handled = self._handled(self._clean(long_new), people, living_mask)
        self._handled_count = self._handled_count + 1 if handled else 0
        if self._handled_count >= self._handled_needed:
            found.extend((box, True) for box in handled)
        unsure = self._unsure_in_hands(detections, boxes, people, living_mask)

        area = long_new.size
        kept: list[tuple[np.ndarray, bool]] = []
        for box, in_hands in found:
            x1, y1, x2, y2 = box.astype(int)
            size = max(1, (x2 - x1) * (y2 - y1))
            if not self.settings.min_area * area <= size <= self.settings.max_area * area:
                continue
            if not in_hands and living_mask[y1:y2, x1:x2].mean() > self.settings.person_overlap:
                continue
            if len(boxes) and iou_matrix(box[None], boxes).max() >= self.settings.detected_iou:
                continue  # the detector has it already
            if things_mask[y1:y2, x1:x2].mean() > 0.5:
                continue  # a piece of a thing the detector has
            kept.append((box, in_hands))
        confident = boxes[detections.confidence >= self.confident]
        for box in unsure:
            if not len(confident) or iou_matrix(box[None], confident).max() < self.settings.detected_iou:
                kept.append((box, True))
        if not kept:
            return Changes.empty()
        xyxy = np.stack([b for b, _ in kept]).astype(np.float32) / scale
        np.clip(xyxy[:, 0::2], 0, width, out=xyxy[:, 0::2])
        np.clip(xyxy[:, 1::2], 0, height, out=xyxy[:, 1::2])
        return Changes(xyxy, np.full(len(kept), self.settings.score, np.float32), np.array([h for _, h in kept], bool))

    def _clean(self, mask: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
        """Specks removed, holes filled."""
        opened = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_OPEN, self._kernel)
        return cv2.morphologyEx(opened, cv2.MORPH_CLOSE, self._kernel, iterations=2).astype(bool)

    def _regions(self, mask: npt.NDArray[np.bool_]) -> list[np.ndarray]:
        """The bounding boxes (xyxy, downscaled pixels) of ``mask``'s connected regions big enough to matter."""
        n, _, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
        smallest = self.settings.min_area * mask.size
        return [np.array([x, y, x + w, y + h], np.float32) for x, y, w, h, a in stats[1:n] if a >= smallest]

    def _unsure_in_hands(
        self, detections: Detections, boxes: np.ndarray, people: np.ndarray, living_mask: npt.NDArray[np.bool_]
    ) -> list[np.ndarray]:
        """Things in hands the detector has no class for: its boxes (``boxes``, downscaled) of a thing beside a
        person, one per place, found again frame after frame for ``handled_seconds``, that it is unsure of (below
        the tracker's start score in this frame) and cannot decide about (over those frames its second guess, of an
        unrelated class, scores at least ``undecided`` of its first: a box seen as book and as cake)."""
        if not len(people):  # nobody's hands: no thing in them, and no run goes on
            self._unsure = []
            return []
        score = detections.confidence
        groups = _groups(detections.class_names)[detections.class_id]
        order = [
            i
            for i in np.argsort(-score).tolist()
            if score[i] >= self.settings.unsure_score and kind_of(detections.category(i)) == "object"
        ]
        frame = float(living_mask.size)
        runs: list[_Run] = []
        previous = list(self._unsure)
        for i in order:
            box = boxes[i]
            if not self.settings.min_area <= _area(box) / frame <= self.settings.max_area:
                continue  # a speck, or a table or a bed the person stands by
            if runs and _same(box, np.stack([r.box for r in runs])).any():
                continue  # the same thing, a worse guess of its class (a box as book takes in its side, as cake not)
            if not self._beside(box, people, living_mask):
                continue
            guesses: dict[int, float] = {}
            near = _same(box, boxes)
            for j in np.flatnonzero(near & (score >= self.settings.unsure_score / 2)).tolist():
                if kind_of(detections.category(j)) == "object":
                    guesses[int(groups[j])] = max(guesses.get(int(groups[j]), 0.0), float(score[j]))
            before = _Run(box, 0, {}, False)  # the thing's run up to the last frame: none yet
            if previous:
                boxes_before = np.stack([r.box for r in previous])
                overlap = iou_matrix(box[None], boxes_before)[0] + _same(box, boxes_before)
                best = int(np.argmax(overlap))
                if overlap[best] >= self.settings.detected_iou:
                    before = previous.pop(best)
            runs.append(_Run(box, 0, guesses, bool(score[i] < self.confident)).after(before, self.settings.undecided))
        self._unsure = runs
        return [r.box for r in runs if r.unsure and r.undecided and r.frames >= self._handled_needed]

    def _beside(self, box: np.ndarray, people: np.ndarray, living_mask: npt.NDArray[np.bool_]) -> bool:
        """Whether ``box`` lies mostly outside the people's boxes but within reach of one."""
        h, w = living_mask.shape
        x1, y1, x2, y2 = np.clip(box, 0, [w, h, w, h]).astype(int)
        if not len(people) or x2 <= x1 or y2 <= y1:
            return False
        if living_mask[y1:y2, x1:x2].mean() > self.settings.handled_overlap:
            return False
        reach = self.settings.handled_reach
        for px1, py1, px2, py2 in people:
            dx, dy = (px2 - px1) * reach, (py2 - py1) * reach
            if x1 < px2 + dx and x2 > px1 - dx and y1 < py2 + dy and y2 > py1 - dy:
                return True
        return False

    def _handled(
        self, moving: npt.NDArray[np.bool_], people: np.ndarray, living_mask: npt.NDArray[np.bool_]
    ) -> list[np.ndarray]:
        """Regions new to the long model outside every person's box but within reach of one."""
        if not len(people):
            return []
        outside = moving & ~living_mask
        reach = np.zeros(moving.shape, bool)
        h, w = moving.shape
        for x1, y1, x2, y2 in people:
            dx, dy = (x2 - x1) * self.settings.handled_reach, (y2 - y1) * self.settings.handled_reach
            reach[max(0, int(y1 - dy)) : min(h, int(y2 + dy)), max(0, int(x1 - dx)) : min(w, int(x2 + dx))] = True
        n, labels, stats, _ = cv2.connectedComponentsWithStats(outside.astype(np.uint8), connectivity=8)
        smallest = self.settings.min_area * moving.size
        found = []
        for k in range(1, n):
            x, y, bw, bh, a = stats[k]
            if a < smallest:
                continue
            region = labels[y : y + bh, x : x + bw] == k
            if not (region & reach[y : y + bh, x : x + bw]).any():
                continue
            found.append(np.array([x, y, x + bw, y + bh], np.float32))
        return found


@functools.cache
def _groups(class_names: tuple[str, ...]) -> npt.NDArray[np.int32]:
    """Per class id, its confusable group's id (:func:`confusable_ids`), once per detector."""
    return confusable_ids(class_names)


def _area(boxes: np.ndarray) -> np.ndarray:
    return np.asarray((boxes[..., 2] - boxes[..., 0]) * (boxes[..., 3] - boxes[..., 1]))


def _same(box: np.ndarray, boxes: np.ndarray) -> npt.NDArray[np.bool_]:
    """Per row of ``boxes``: whether it is a box of the same thing as ``box``, as the detector draws one thing in
    two classes (a box as book takes in its side, as cake only its lid): half of the smaller inside the larger,
    and at most four times its area."""
    w = np.clip(np.minimum(box[2], boxes[:, 2]) - np.maximum(box[0], boxes[:, 0]), 0, None)
    h = np.clip(np.minimum(box[3], boxes[:, 3]) - np.maximum(box[1], boxes[:, 1]), 0, None)
    smaller = np.maximum(np.minimum(_area(box), _area(boxes)), 1e-6)
    larger = np.maximum(_area(box), _area(boxes))
    return np.asarray((w * h >= 0.5 * smaller) & (larger <= 4 * smaller))


def _mask(boxes: np.ndarray, shape: tuple[int, ...]) -> npt.NDArray[np.bool_]:
    mask = np.zeros(shape[:2], bool)
    for x1, y1, x2, y2 in boxes.astype(int):
        mask[max(0, y1) : max(0, y2), max(0, x1) : max(0, x2)] = True
    return mask


def with_changes(detections: Detections, changes: Changes) -> Detections:
    """``detections`` with the found regions added as :data:`CHANGE_CATEGORY` (a class appended after the
    detector's when it has none of that name)."""
    names = detections.class_names
    if CHANGE_CATEGORY not in names:
        names = (*names, CHANGE_CATEGORY)
    k = names.index(CHANGE_CATEGORY)
    n = len(changes)
    return Detections(
        np.concatenate([detections.xyxy, changes.xyxy]).astype(np.float32),
        np.concatenate([detections.confidence, changes.score]).astype(np.float32),
        np.concatenate([detections.class_id, np.full(n, k, np.int32)]).astype(np.int32),
        names,
        np.concatenate([detections.runner_up_id, np.full(n, -1, np.int32)]).astype(np.int32),
        np.concatenate([detections.runner_up_confidence, np.zeros(n, np.float32)]).astype(np.float32),
    )
