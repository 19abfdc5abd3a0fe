"""ReflectWorld-MM / GEB: things the detector has no class for, found by what changed. A fixed camera keeps two
background models (MOG2 on a small colour copy of each frame, shadows dropped: in colour MOG2 tells a shadow, darker
with the same hue, from a dark thing, which in grey it cannot; silver keys on a beige counter are barely a change in
grey), one long and one short (the abandoned / removed object method): a
region new to the long model but settled in the short one, for a few seconds, is a thing left there; a region
new to both that moves beside a person, outside their box, is a thing in their hands. So is a box the detector is
unsure of (too low a score to start a track, its class flipping between guesses) found again beside a person
frame after frame: box.mp4's decorated box, held in the air, is a 0.3-0.55 "book" or "cake".

A background model takes a thing left there in after a while (and a camera's models start again at a change of light),
and a thing lying there since before it was found is no change at all. So a thing found left there is followed
afterwards by how it looks: while its place looks as the thing did when found, and not as the surface the long model
held there before, it is still there (a person in front of it hides it, nothing more); once the place looks like that
surface again, it is gone. A region that only looks new because a thing that lay there was taken (the surface
revealed) is no thing: at full size it has no outline of its own, only the surface's lines that cross it (the
models' small copy is too coarse to tell: a thing there is a few pixels, all outline)."""

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


@dataclass
class _Kept:
    """A thing found left there, followed by how it looks: its box (downscaled pixels), the patch of it when found
    and of the surface the long model held there before it (float32, BGR), the median colour around the box then (to
    follow the light), whether it is there, and how many frames in a row its place has looked like neither while
    there. A thing taken is still looked for where it lay: put back in its place, it is found at once, though the
    long model holds it there."""

    box: npt.NDArray[np.int32]
    thing: npt.NDArray[np.float32]
    surface: npt.NDArray[np.float32]
    around: npt.NDArray[np.float32]
    present: bool = True  #: else its place looks like the surface: taken, and looked for there again
    unclear: int = 0


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
        self._unclear_frames = round(settings.keep_unclear_seconds * sample_fps)
        self._kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
        self._shape: tuple[int, int] | None = None
        self._start()

    def _start(self) -> None:
        self._long = cv2.createBackgroundSubtractorMOG2(self._long_history, 16, True)
        self._short = cv2.createBackgroundSubtractorMOG2(self._short_history, 16, True)
        self._static_count: npt.NDArray[np.uint16] | None = None
        self._handled_count = 0
        self._unsure: list[_Run] = []  # boxes of things beside a person, followed from frame to frame
        self._kept: list[_Kept] = []  # things found left there, followed by how they look

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
        boxes = detections.xyxy * scale
        living = np.array([kind_of(detections.category(i)) != "object" for i in range(len(detections))], bool)
        people = boxes[living]
        living_mask = _mask(people, long_new.shape)
        if max(long_new.mean(), short_new.mean()) > self.settings.max_changed:  # the light, not a thing
            self._long.apply(small, learningRate=1.0)
            self._short.apply(small, learningRate=1.0)
            self._static_count[:] = 0
            self._handled_count = 0
            self._unsure = []
            still = self._still_there(small, image, scale, living_mask, boxes, [])
            return self._changes([(box, False) for box in still], scale, width, height)

        static = self._clean(long_new & ~short_new)
        np.add(self._static_count, 1, out=self._static_count, where=static)
        self._static_count[~static] = 0
        settled = self._static_count >= self._persist

        things_mask = _mask(boxes[~living], long_new.shape)
        found: list[tuple[np.ndarray, bool]] = []
        regions = self._regions(settled)
        background = self._long.getBackgroundImage() if regions else None
        for box in regions:
            if not _outlined(image, box, scale):
                continue  # no outline of its own: the surface a thing that lay there was taken from
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
        left = [box for box, in_hands in kept if not in_hands]
        if self.settings.keep and background is not None:
            for box in left:
                self._keep(box, small, background)
        kept.extend((box, False) for box in self._still_there(small, image, scale, living_mask, boxes, left))
        confident = boxes[detections.confidence >= self.confident]
        for box in unsure:
            if not len(confident) or iou_matrix(box[None], confident).max() < self.settings.detected_iou:
                kept.append((box, True))
        return self._changes(kept, scale, width, height)

    def _changes(self, found: list[tuple[np.ndarray, bool]], scale: float, width: int, height: int) -> Changes:
        """``found`` (downscaled boxes, whether in hands) as the frame's :class:`Changes`."""
        if not found:
            return Changes.empty()
        xyxy = np.stack([b for b, _ in found]).astype(np.float32) / scale
        np.clip(xyxy[:, 0::2], 0, width, out=xyxy[:, 0::2])
        np.clip(xyxy[:, 1::2], 0, height, out=xyxy[:, 1::2])
        return Changes(
            xyxy, np.full(len(found), self.settings.score, np.float32), np.array([h for _, h in found], bool)
        )

    def _keep(self, box: np.ndarray, small: np.ndarray, background: np.ndarray) -> None:
        """Follows the thing found left at ``box`` (downscaled) from now on, by how it looks in ``small`` against the
        surface the long model's ``background`` holds there; too faint against that surface to tell apart, it is not
        followed. A thing already followed there keeps the surface it was first found on (the long model takes the
        thing in as it stays)."""
        x1, y1, x2, y2 = _inside(box, small.shape)
        if x2 <= x1 or y2 <= y1:
            return
        at = np.array([x1, y1, x2, y2], np.int32)
        looks = small[y1:y2, x1:x2].astype(np.float32)
        if any(k.present and _iou(k.box, at) >= self.settings.detected_iou for k in self._kept):
            return
        under = background[y1:y2, x1:x2].astype(np.float32)
        if float(np.abs(looks - under).mean()) < self.settings.keep_contrast:
            return
        followed = [k for k in self._kept if _iou(k.box, at) < self.settings.detected_iou]
        self._kept = [*followed, _Kept(at, looks, under, _around(small, at))][-_MOST_KEPT:]

    def _likeness(self, k: _Kept, small: np.ndarray) -> tuple[float, float]:
        """How far the place of ``k`` in ``small`` looks from the thing and from the surface it was found on (mean
        per channel, after the light's change around it)."""
        x1, y1, x2, y2 = k.box
        now = small[y1:y2, x1:x2].astype(np.float32)
        gain = np.clip((_around(small, k.box) + 1.0) / (k.around + 1.0), 0.5, 2.0)
        return float(np.abs(now - k.thing * gain).mean()), float(np.abs(now - k.surface * gain).mean())

    def _still_there(
        self,
        small: np.ndarray,
        image: np.ndarray,
        scale: float,
        living_mask: npt.NDArray[np.bool_],
        detected: np.ndarray,
        found: list[np.ndarray],
    ) -> list[np.ndarray]:
        """The followed things still where they were left and found by nothing else this frame (``found``: the
        regions found left there, ``detected``: the detector's boxes, both downscaled). One whose place looks like
        the surface again is gone (and looked for there again); one that looked like neither for too long is let
        go."""
        still: list[np.ndarray] = []
        followed: list[_Kept] = []
        margin = self.settings.keep_contrast / 3
        for k in self._kept:
            box = k.box.astype(np.float32)
            x1, y1, x2, y2 = k.box
            anew = any(_iou(k.box, f) >= self.settings.detected_iou for f in found)
            if anew or living_mask[y1:y2, x1:x2].mean() > self.settings.person_overlap:
                followed.append(k)  # found again as a change, or someone in front of it
                continue
            to_thing, to_surface = self._likeness(k, small)
            if to_surface + margin <= to_thing:  # the surface again: it is gone (and looked for there)
                k.present, k.unclear = False, 0
            elif to_thing + margin <= to_surface and to_thing <= to_surface / 2:  # (a thing moved aside: neither)
                # there, or back, if it has its outline (else a surface like it)
                k.present, k.unclear = _outlined(image, box, scale), 0
                if k.present and (
                    not len(detected) or iou_matrix(box[None], detected).max() < self.settings.detected_iou
                ):
                    still.append(box)
            elif k.present:
                k.unclear += 1
                if k.unclear > self._unclear_frames:
                    continue
            followed.append(k)
        self._kept = followed
        return still

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


_MOST_KEPT = 32  #: things followed at once per camera (the oldest let go first)


def _inside(box: np.ndarray, shape: tuple[int, ...]) -> tuple[int, int, int, int]:
    """``box`` as whole pixels within an image of ``shape``."""
    h, w = shape[:2]
    x1, y1, x2, y2 = np.clip(np.round(box), 0, [w, h, w, h]).astype(int).tolist()
    return x1, y1, x2, y2


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    return float(iou_matrix(np.asarray(a, np.float32)[None], np.asarray(b, np.float32)[None])[0, 0])


def _around(image: np.ndarray, box: npt.NDArray[np.int32], ring: int = 3) -> npt.NDArray[np.float32]:
    """The median colour of a ``ring`` pixels wide around ``box`` (whole pixels) in ``image``."""
    h, w = image.shape[:2]
    x1, y1, x2, y2 = (int(v) for v in box)
    X1, Y1, X2, Y2 = max(0, x1 - ring), max(0, y1 - ring), min(w, x2 + ring), min(h, y2 + ring)
    inside = np.zeros((Y2 - Y1, X2 - X1), bool)
    inside[y1 - Y1 : y2 - Y1, x1 - X1 : x2 - X1] = True
    pixels = image[Y1:Y2, X1:X2][~inside]
    return np.median(pixels, axis=0).astype(np.float32) if len(pixels) else np.zeros(3, np.float32)


#: a pixel is on an edge where the grey level's gradient (3x3 Sobel, 0-255 levels) is at least this: a step of about
#: 8 levels; sensor noise makes about a third of that
_EDGE = 30.0
#: a region is outlined when the share of its outline on an edge is at least this much above the share on a box
#: three bands further out (the surface's own texture and lines)
_OUTLINED = 0.2


def _edge_share(edges: np.ndarray, box: tuple[int, int, int, int], band: int) -> float:
    """The share of the points along ``box``'s outline with an edge within ``band`` pixels across it."""
    h, w = edges.shape
    x1, y1, x2, y2 = max(0, box[0]), max(0, box[1]), min(w - 1, box[2]), min(h - 1, box[3])
    if x2 - x1 < 2 or y2 - y1 < 2:
        return 0.0
    strong = edges >= _EDGE
    across_rows = np.stack([strong[max(0, y - band) : y + band + 1, x1:x2].any(axis=0) for y in (y1, y2)])
    across_columns = np.stack([strong[y1:y2, max(0, x - band) : x + band + 1].any(axis=1) for x in (x1, x2)])
    return float((across_rows.sum() + across_columns.sum()) / (across_rows.size + across_columns.size))


def _outlined(image: np.ndarray, box: np.ndarray, scale: float) -> bool:
    """Whether the region at ``box`` (downscaled by ``scale``) has an outline in ``image`` (full size), beyond the
    surface's own lines: a thing laid down has one all round; the surface a thing was taken from has only the lines
    that cross it. Read at full size: at the models' size a thing of a few pixels is all outline."""
    band = max(1, int(np.ceil(1.0 / scale)))
    grow = 3 * band
    h, w = image.shape[:2]
    x1, y1, x2, y2 = (int(round(v / scale)) for v in box)
    X1, Y1, X2, Y2 = (
        max(0, x1 - grow - band),
        max(0, y1 - grow - band),
        min(w, x2 + grow + band),
        min(h, y2 + grow + band),
    )
    gray = cv2.cvtColor(np.ascontiguousarray(image[Y1:Y2, X1:X2]), cv2.COLOR_BGR2GRAY).astype(np.float32)
    if gray.shape[0] < 3 or gray.shape[1] < 3:
        return False
    edges = cv2.magnitude(cv2.Sobel(gray, cv2.CV_32F, 1, 0), cv2.Sobel(gray, cv2.CV_32F, 0, 1))
    inner = (x1 - X1, y1 - Y1, x2 - X1, y2 - Y1)
    outer = (inner[0] - grow, inner[1] - grow, inner[2] + grow, inner[3] + grow)
    return _edge_share(edges, inner, band) - _edge_share(edges, outer, band) >= _OUTLINED


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
