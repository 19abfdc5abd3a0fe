"""Pixels of a synthetic world (:mod:`edge_agent.eval.world`): places as coloured regions of a room
(a wide strip of rooms for the wearable camera), and each instance drawn from its category, colour and
pattern, so look-alikes differ only where the scenario says they do (stripes, checks, dots). The day's
light scales every colour; with the scenario's ``imaging`` the light also has a colour (per day) and a direction
(per session) that casts shadows, surfaces have real texture (:mod:`edge_agent.eval.texture`), the camera is
nearer or further and things are turned, frames may be blurred by motion, things partly hidden by a hand, and the
JPEG compressed harder. Sensor noise is added per frame. A session is written as a MOT sequence."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

import cv2
import numpy as np
import numpy.typing as npt

from edge_agent.eval import texture
from edge_agent.eval.faces import draw_face
from edge_agent.eval.scene import box_of, draw_order

if TYPE_CHECKING:
    from edge_agent.eval.world import EntitySpec, Session, World

__all__ = ["COLOURS", "draw_thing", "render_frame", "write_sequence"]

COLOURS = {  # BGR
    # crimson and navy: "red" and "blue" to a colour namer, another hue to an embedder (look-alikes only
    # memory tells apart)
    "red": (40, 40, 200),
    "crimson": (80, 30, 200),
    "navy": (200, 60, 60),
    "blue": (180, 90, 30),
    "green": (60, 160, 60),
    "yellow": (40, 200, 220),
    "black": (30, 30, 30),
    "white": (235, 235, 235),
    "grey": (140, 140, 140),
    "silver": (190, 190, 180),
    "brown": (40, 80, 130),
    "orange": (30, 130, 240),
    "purple": (140, 50, 120),
    "pink": (170, 130, 240),
}
_PLACE_COLOURS = (
    (150, 170, 190),
    (120, 140, 120),
    (170, 150, 130),
    (110, 130, 160),
    (140, 120, 150),
    (160, 160, 120),
    (130, 150, 170),
    (120, 120, 140),
)
_ROOM_WALLS = ((180, 190, 200), (200, 185, 170), (170, 195, 185), (195, 180, 195))


def _scaled(colour: tuple[int, int, int], light: float) -> tuple[int, int, int]:
    return tuple(int(np.clip(c * light, 0, 255)) for c in colour)  # type: ignore[return-value]


def _textured(
    canvas: np.ndarray, box: tuple[int, int, int, int], name: str, turn: float = 0.0, before: np.ndarray | None = None
) -> None:
    """Shades the pixels of ``box`` with the material ``name`` (only those that differ from ``before``, the
    canvas's pixels of the box before the thing was drawn, when given)."""
    x0, y0, x1, y1 = box
    gains = texture.shade(name, (x1 - x0, y1 - y0), turn)
    cx0, cy0 = max(0, x0), max(0, y0)
    cx1, cy1 = min(canvas.shape[1], x1), min(canvas.shape[0], y1)
    if cx1 <= cx0 or cy1 <= cy0:
        return
    region = canvas[cy0:cy1, cx0:cx1]
    shaded = np.clip(region * gains[cy0 - y0 : cy1 - y0, cx0 - x0 : cx1 - x0], 0, 255).astype(np.uint8)
    if before is None:
        region[:] = shaded
    else:
        drawn = np.any(region != before, axis=2)
        region[drawn] = shaded[drawn]


def _shadow(canvas: np.ndarray, box: tuple[float, float, float, float], direction: float) -> None:
    """A soft shadow on the surface under a thing, cast away from the light (``direction`` > 0: the light is on
    the right)."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    cx = (x0 + x1) / 2 - direction * w * 0.6
    axes = (max(2, int(w * 0.75)), max(2, int(h * 0.15)))
    sigma = max(1.0, w * 0.08)
    pad = int(3 * sigma) + 2
    left, top = max(0, int(cx) - axes[0] - pad), max(0, int(y1) - axes[1] - pad)
    right = min(canvas.shape[1], int(cx) + axes[0] + pad)
    bottom = min(canvas.shape[0], int(y1) + axes[1] + pad)
    if right <= left or bottom <= top:
        return
    mask = np.zeros((bottom - top, right - left), np.float32)
    cv2.ellipse(mask, (int(cx) - left, int(y1) - top), axes, 0, 0, 360, 1.0, -1)
    mask = cv2.GaussianBlur(mask, (0, 0), sigma)
    region = canvas[top:bottom, left:right]
    region[:] = np.clip(region * (1.0 - 0.45 * mask[:, :, None]), 0, 255).astype(np.uint8)


def _background(world: World, light: float) -> np.ndarray:
    layout = world.layout
    photo = world.scenario.imaging.texture == "photo"
    width, height = int(np.ceil(layout.canvas_width)), layout.height
    canvas = np.zeros((height, width, 3), np.uint8)
    for room in sorted(set(layout.room_of.values())):
        xs = [layout.x[p] for p, r in layout.room_of.items() if r == room]
        x0, x1 = int(min(xs) - layout.slot_width / 2), int(max(xs) + layout.slot_width / 2)
        canvas[:, max(0, x0) : x1] = _scaled(_ROOM_WALLS[room % len(_ROOM_WALLS)], light)
        if photo:
            _textured(canvas, (max(0, x0), 0, x1, height), f"wall:{room}")
    for k, place in enumerate(world.scenario.places):
        left, _, right, _ = layout.zone(place)
        top = int(layout.floor)
        cv2.rectangle(
            canvas,
            (int(left) + 3, top - 10),
            (int(right) - 3, height - 1),
            _scaled(_PLACE_COLOURS[k % len(_PLACE_COLOURS)], light),
            -1,
        )
        if photo:
            _textured(canvas, (int(left) + 3, top - 10, int(right) - 3, height), f"place:{place}")
        cv2.line(canvas, (int(left) + 3, top - 10), (int(right) - 3, top - 10), _scaled((60, 60, 60), light), 2)
    if layout.outside_x is not None:  # outside the home (a worn camera's outings): a street, a fence, no places
        x0 = int(layout.outside_x - layout.width / 4)
        canvas[:, x0:] = _scaled((150, 160, 150), light)
        canvas[int(layout.floor) :, x0:] = _scaled((90, 95, 100), light)
        for x in range(x0 + 20, width, 37):
            cv2.rectangle(
                canvas, (x, int(layout.floor) - 80), (x + 6, int(layout.floor)), _scaled((70, 100, 130), light), -1
            )
        if photo:
            _textured(canvas, (x0, 0, width, height), "outside")
    return canvas


def _draw(
    canvas: np.ndarray,
    spec: EntitySpec,
    box: tuple[float, float, float, float],
    light: float,
    material: str | None = None,
    turn: float = 0.0,
    figure: bool = False,
) -> None:
    """``spec`` drawn in ``box``; of ``material`` (:mod:`edge_agent.eval.texture`), turned by ``turn``, when
    given; a person as a figure (:func:`_figure`) when ``figure``."""
    x0, y0, x1, y1 = (int(round(v)) for v in box)
    before = None
    if material is not None:
        region = canvas[max(0, y0) : max(0, y1), max(0, x0) : max(0, x1)]
        before = region.copy()
    _shape(canvas, spec, (x0, y0, x1, y1), light, figure)
    if material is not None:
        _textured(canvas, (x0, y0, x1, y1), material, turn, before)


def _figure(
    canvas: np.ndarray, box: tuple[int, int, int, int], shirt: tuple[int, int, int], light: float
) -> tuple[int, int, int, int]:
    """A standing person filling ``box``: head and hair, neck, a shirt of ``shirt`` with arms and hands, trousers
    and shoes; returns the shirt's box (where a pattern goes)."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    cx, head = (x0 + x1) / 2, h * 0.065
    skin, hair = _scaled((120, 160, 210), light), _scaled((30, 30, 40), light)
    trousers, shoes = _scaled((60, 50, 40), light), _scaled((20, 20, 20), light)
    cv2.ellipse(canvas, (int(cx), int(y0 + head * 1.2)), (int(head * 0.85), int(head * 1.1)), 0, 0, 360, skin, -1)
    cv2.ellipse(canvas, (int(cx), int(y0 + head * 0.7)), (int(head * 0.9), int(head * 0.7)), 0, 180, 360, hair, -1)
    neck = (int(cx - head * 0.3), int(y0 + head * 2.1), int(cx + head * 0.3), int(y0 + head * 2.6))
    cv2.rectangle(canvas, neck[:2], neck[2:], skin, -1)
    top, waist = y0 + head * 2.5, y0 + h * 0.52
    torso = [[cx - w * 0.34, top], [cx + w * 0.34, top], [cx + w * 0.28, waist], [cx - w * 0.28, waist]]
    cv2.fillPoly(canvas, [np.array(torso, np.int32)], shirt)
    for s in (-1, 1):
        arm = [
            [cx + s * w * 0.34, top + 1],
            [cx + s * w * 0.44, top + h * 0.16],
            [cx + s * w * 0.5, y0 + h * 0.47],
            [cx + s * w * 0.38, y0 + h * 0.48],
            [cx + s * w * 0.33, top + h * 0.18],
            [cx + s * w * 0.26, top + 6],
        ]
        cv2.fillPoly(canvas, [np.array(arm, np.int32)], shirt)
        cv2.circle(canvas, (int(cx + s * w * 0.44), int(y0 + h * 0.5)), max(2, int(head * 0.45)), skin, -1)
        leg = [[cx + s * w * 0.03, waist], [cx + s * w * 0.28, waist], [cx + s * w * 0.3, y0 + h * 0.96]]
        leg.append([cx + s * w * 0.12, y0 + h * 0.96])
        cv2.fillPoly(canvas, [np.array(leg, np.int32)], trousers)
        foot = (int(cx + s * w * 0.22), int(y0 + h * 0.975))
        cv2.ellipse(canvas, foot, (max(2, int(w * 0.14)), max(1, int(h * 0.025))), 0, 0, 360, shoes, -1)
    return int(cx - w * 0.32), int(top), int(cx + w * 0.32), int(waist)


def draw_thing(canvas: np.ndarray, spec: EntitySpec, box: tuple[int, int, int, int], light: float = 1.0) -> None:
    """A thing drawn in ``box`` as a world draws it (a picture to enroll it from)."""
    _shape(canvas, spec, box, light)


def _shape(
    canvas: np.ndarray, spec: EntitySpec, box: tuple[int, int, int, int], light: float, figure: bool = False
) -> None:
    x0, y0, x1, y1 = box
    colour = _scaled(COLOURS.get(spec.color, (128, 128, 128)), light)
    accent = _scaled((235, 235, 235) if spec.color not in ("white", "silver", "yellow") else (40, 40, 40), light)
    if spec.category == "person" and figure:
        body = _figure(canvas, box, colour, light)
    elif spec.category == "person":
        head = max(8, (x1 - x0) // 2 - 4)
        cv2.circle(canvas, ((x0 + x1) // 2, y0 + head), head, _scaled((120, 160, 210), light), -1)
        body = (x0, y0 + 2 * head, x1, y1)
    elif spec.category in ("dog", "cat"):
        cv2.ellipse(
            canvas, ((x0 + x1) // 2, (y0 + 2 * y1) // 3), ((x1 - x0) // 2 - 6, (y1 - y0) // 3), 0, 0, 360, colour, -1
        )
        cv2.circle(canvas, (x1 - (y1 - y0) // 4, y0 + (y1 - y0) // 4), (y1 - y0) // 4, colour, -1)
        body = (x0 + 8, (y0 + 2 * y1) // 3 - (y1 - y0) // 6, x1 - 12, (y0 + 2 * y1) // 3 + (y1 - y0) // 6)
    else:
        cv2.rectangle(canvas, (x0, y0), (x1 - (x1 - x0) // 5 if spec.category == "cup" else x1, y1), colour, -1)
        if spec.category == "cup":
            cv2.ellipse(
                canvas, (x1 - (x1 - x0) // 5, (y0 + y1) // 2), ((x1 - x0) // 5, (y1 - y0) // 4), 0, -90, 90, colour, 4
            )
        body = (x0, y0, x1 - (x1 - x0) // 5 if spec.category == "cup" else x1, y1)
    bx0, by0, bx1, by1 = body
    if spec.category == "person" and not figure:
        cv2.rectangle(canvas, (bx0, by0), (bx1, by1), colour, -1)
    if spec.pattern == "stripes":
        for y in range(by0 + 4, by1 - 2, 10):
            cv2.rectangle(canvas, (bx0, y), (bx1, min(by1, y + 3)), accent, -1)
    elif spec.pattern == "checked":
        for y in range(by0, by1, 10):
            for x in range(bx0 + (10 if (y - by0) // 10 % 2 else 0), bx1, 20):
                cv2.rectangle(canvas, (x, y), (min(bx1, x + 9), min(by1, y + 9)), accent, -1)
    elif spec.pattern == "dots":
        for y in range(by0 + 5, by1 - 3, 12):
            for x in range(bx0 + 5, bx1 - 3, 12):
                cv2.circle(canvas, (x, y), 2, accent, -1)


def render_frame(
    world: World, session: Session, frame: int, background: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    spec = {e.id: e for e in world.scenario.entities}
    imaging = world.scenario.imaging
    view = int(round(session.view_x[frame]))
    cam = world.scenario.camera
    canvas = background.copy()
    positions = session.positions[frame]
    order = [
        i
        for i in draw_order(positions, spec, world.layout.floor)
        if not (
            world.scenario.camera.kind == "wearable"
            and spec[i].category == "person"
            and not any(shown == i for shown, _ in session.boxes[frame])
        )  # the wearer, never in view
    ]
    boxes = {i: box_of(positions[i], spec[i].category, session.scale, session.turns.get(i, 0.0)) for i in order}
    if imaging.shadows:
        for instance in order:
            if boxes[instance][3] >= world.layout.floor - 20:  # standing on something (not carried)
                _shadow(canvas, boxes[instance], float(np.sign(session.gradient)))
    people = [e.id for e in world.scenario.people]
    for instance in order:
        box = boxes[instance]
        thing = spec[instance]
        if thing.outfits:  # what they wear today
            thing = thing.model_copy(update={"color": thing.colour_on(session.day)})
        material = f"{thing.category}:{thing.color}" if imaging.texture == "photo" else None
        figure = imaging.people == "figure"
        _draw(canvas, thing, box, session.light, material, session.turns.get(instance, 0.0), figure)
        if thing.category == "person" and world.scenario.faces > 0:
            k = people.index(instance)
            facing = np.random.default_rng([world.seed, session.index, frame, k]).random() < world.scenario.faces
            head = cast(tuple[int, int, int, int], tuple(int(round(v)) for v in box))  # a box's four sides, rounded
            draw_face(canvas, head, k if facing else None, session.light)
        if imaging.occlusion and spec[instance].category != "person" and rng.random() < imaging.occlusion:
            _hand(canvas, box, session.light, rng)
    image = canvas[:, view : view + cam.width]
    if session.tint != (1.0, 1.0, 1.0) or session.gradient:
        ramp = np.linspace(1.0 - session.gradient, 1.0 + session.gradient, image.shape[1], dtype=np.float32)
        light = ramp[None, :, None] * np.asarray(session.tint, np.float32)[None, None, :]
        image = np.clip(image.astype(np.float32) * light, 0, 255).astype(np.uint8)
    if imaging.blur and rng.random() < imaging.blur:  # the camera or the hand moved during the exposure
        length = int(rng.integers(5, 12))
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2, :] = 1.0 / length
        image = cv2.filter2D(image, -1, kernel)
    noisy = image.astype(np.int16) + rng.normal(0, 3, image.shape).astype(np.int16)
    return cast(npt.NDArray[np.uint8], np.clip(noisy, 0, 255).astype(np.uint8))  # the view (a 2-d slice) is typed Any


def _hand(canvas: np.ndarray, box: tuple[float, float, float, float], light: float, rng: np.random.Generator) -> None:
    """A hand over a third to a half of the thing, from one side."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    side = 1 if rng.random() < 0.5 else -1
    cx = (x0 + x1) / 2 + side * w * float(rng.uniform(0.25, 0.45))
    cy = (y0 + y1) / 2 + h * float(rng.uniform(-0.2, 0.2))
    axes = (max(4, int(w * 0.35)), max(4, int(h * 0.3)))
    cv2.ellipse(
        canvas, (int(cx), int(cy)), axes, float(rng.uniform(0, 180)), 0, 360, _scaled((120, 160, 210), light), -1
    )


def write_sequence(world: World, session: Session, folder: Path, ids: dict[str, int]) -> Path:
    """img1/NNNNNN.jpg, gt/gt.txt (frame, instance id, box, conf 1, class, visibility 1) and seqinfo.ini
    naming the classes, for ``--detector gt``."""
    (folder / "img1").mkdir(parents=True, exist_ok=True)
    (folder / "gt").mkdir(exist_ok=True)
    rng = np.random.default_rng(world.seed * 100_003 + session.index)
    background = _background(world, session.light)
    classes = world.classes
    spec = {e.id: e for e in world.scenario.entities}
    rows = []
    for f in range(session.frames):
        cv2.imwrite(
            str(folder / "img1" / f"{f + 1:06d}.jpg"),
            render_frame(world, session, f, background, rng),
            [cv2.IMWRITE_JPEG_QUALITY, world.scenario.imaging.jpeg_quality],
        )
        for instance, (x0, y0, x1, y1) in session.boxes[f]:
            rows.append(
                f"{f + 1},{ids[instance]},{x0:.1f},{y0:.1f},{x1 - x0:.1f},{y1 - y0:.1f},1,"
                f"{classes.index(spec[instance].category) + 1},1.0"
            )
    (folder / "gt" / "gt.txt").write_text("\n".join(rows) + "\n")
    cam = world.scenario.camera
    (folder / "seqinfo.ini").write_text(
        f"[Sequence]\nname={folder.name}\nimDir=img1\nframeRate={session.fps:g}\nseqLength={session.frames}\n"
        f"imWidth={cam.width}\nimHeight={cam.height}\nimExt=.jpg\nclasses={','.join(classes)}\n"
    )
    return folder
