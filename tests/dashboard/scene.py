"""The dashboard's test scene: a morning in a kitchen and a living room written through the real store,
with keyframes drawn like a camera's (a counter, a sink, a table, a sofa, a window, a timestamp) and
crops cut from them; a person moving the red cup; a rule ("a person appears") and the alerts it
raised. Also what drives it: a real uvicorn server in a thread and headless Chromium through selenium.
Shared by test_dashboard.py and screenshot.py (the README's picture)."""

from __future__ import annotations

import os
import shutil
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
from helpers.memory import clip, observation, unit

from edge_agent.clock import format_utc
from edge_agent.memory import Store
from edge_agent.memory.description import Description
from edge_agent.rules import book
from edge_agent.rules.parse import parse_rule
from edge_agent.rules.resolver import Resolver

T0 = 1_772_438_400.0  # 2026-03-02 08:00 UTC
W, H = 640, 360  #: the cameras' frame (boxes are in these pixels); keyframes are stored at half size
ZONES = {"living": {"sofa": (100, 100, 300, 300)}}
ON_SOFA, BY_WINDOW = (150, 150, 220, 220), (420, 170, 490, 230)
PERSON_RULE = "notify me when a person appears"
DOG_RULE = "notify me when the dog is on the sofa"
CHROMEDRIVER = "/usr/bin/chromedriver"

RED_CUP = unit(np.r_[np.ones(8), np.zeros(8)])
BLUE_CUP = unit(np.r_[np.zeros(8), np.ones(8)])
DOG = unit(np.r_[np.ones(4), np.zeros(12)] - 0.5 * np.r_[np.zeros(8), np.ones(8)])
PERSON = unit(np.r_[np.zeros(12), np.ones(4)] - 0.5 * np.r_[np.ones(8), np.zeros(8)])

# (BGR colour, what draws it) per thing
RED, BLUE, BROWN, SWEATER = (40, 40, 200), (190, 110, 40), (40, 85, 140), (150, 90, 50)


# -- drawing ----------------------------------------------------------------------------------------------


def _room(camera: str) -> np.ndarray:
    img = np.zeros((H, W, 3), np.uint8)
    img[:] = (150, 165, 175) if camera == "kitchen" else (120, 140, 150)  # wall
    img[240:] = (70, 90, 110) if camera == "kitchen" else (60, 75, 95)  # floor
    if camera == "kitchen":
        cv2.rectangle(img, (40, 200), (200, 260), (110, 110, 115), -1)  # counter
        cv2.rectangle(img, (40, 195), (200, 205), (170, 170, 175), -1)
        cv2.rectangle(img, (230, 200), (410, 260), (135, 130, 125), -1)  # sink unit
        cv2.ellipse(img, (320, 205), (60, 10), 0, 0, 360, (185, 190, 195), -1)
        cv2.line(img, (320, 150), (320, 195), (200, 200, 205), 4)
        cv2.rectangle(img, (430, 240), (620, 252), (45, 80, 120), -1)  # table
        for x in (445, 600):
            cv2.rectangle(img, (x, 252), (x + 10, 330), (40, 70, 105), -1)
        cv2.rectangle(img, (60, 40), (180, 130), (200, 215, 225), -1)  # cupboard
        cv2.rectangle(img, (60, 40), (180, 130), (120, 130, 140), 2)
    else:
        cv2.rectangle(img, (380, 30), (540, 150), (225, 205, 170), -1)  # window
        cv2.rectangle(img, (380, 30), (540, 150), (90, 90, 90), 3)
        cv2.line(img, (460, 30), (460, 150), (90, 90, 90), 3)
        cv2.rectangle(img, (100, 170), (300, 280), (90, 110, 60), -1)  # sofa
        cv2.rectangle(img, (100, 130), (300, 180), (80, 100, 55), -1)
        cv2.rectangle(img, (90, 160), (115, 285), (70, 90, 45), -1)
        cv2.rectangle(img, (285, 160), (310, 285), (70, 90, 45), -1)
        cv2.rectangle(img, (360, 270), (560, 300), (50, 60, 80), -1)  # rug
    return img


def _draw(img: np.ndarray, what: str, box: tuple[float, float, float, float]) -> None:
    x1, y1, x2, y2 = map(int, box)
    if what in ("red cup", "blue cup"):
        colour = RED if what == "red cup" else BLUE
        cv2.rectangle(img, (x1 + 6, y1 + 8), (x2 - 6, y2), colour, -1)
        cv2.ellipse(
            img, ((x1 + x2) // 2, y1 + 8), ((x2 - x1) // 2 - 6, 4), 0, 0, 360, tuple(c + 40 for c in colour), -1
        )
        cv2.ellipse(img, (x2 - 4, (y1 + y2) // 2 + 4), (6, 9), 0, -90, 90, colour, 3)
    elif what == "dog":
        cv2.ellipse(img, ((x1 + x2) // 2, (y1 + y2) // 2 + 8), ((x2 - x1) // 2, (y2 - y1) // 3), 0, 0, 360, BROWN, -1)
        cv2.circle(img, (x1 + 10, y1 + 14), 13, BROWN, -1)
        cv2.circle(img, (x1 + 6, y1 + 11), 2, (10, 10, 10), -1)
        cv2.ellipse(img, (x1 + 2, y1 + 4), (5, 9), 20, 0, 360, (30, 60, 100), -1)
    elif what == "person":
        cx = (x1 + x2) // 2
        cv2.circle(img, (cx, y1 + 24), 20, (120, 160, 205), -1)
        cv2.rectangle(img, (cx - 38, y1 + 48), (cx + 38, y1 + 170), SWEATER, -1)
        cv2.rectangle(img, (cx - 30, y1 + 170), (cx + 30, y2), (60, 55, 50), -1)


def _frame(camera: str, t: float, things: list[tuple[str, tuple]]) -> np.ndarray:
    img = _room(camera)
    for what, box in things:
        _draw(img, what, box)
    noise = np.random.default_rng(int(t)).normal(0, 4, img.shape)
    img = np.clip(img + noise, 0, 255).astype(np.uint8)
    cv2.putText(
        img,
        f"{camera.upper()}  {format_utc(t)}",
        (12, H - 14),
        cv2.FONT_HERSHEY_SIMPLEX,
        0.5,
        (240, 240, 240),
        1,
        cv2.LINE_AA,
    )
    return img


def _jpeg(path: Path, img: np.ndarray, quality: int = 80) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    ok, data = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    path.write_bytes(data.tobytes())


# -- the memory -------------------------------------------------------------------------------------------

KINDS = {
    "red cup": ("object", "cup", RED_CUP),
    "blue cup": ("object", "cup", BLUE_CUP),
    "dog": ("animal", "dog", DOG),
    "person": ("person", "person", PERSON),
}


def said(text: str, colour: str, zone: str, motion: str = "") -> Description:
    return Description(text=text, colours=(colour,), zone=zone, motion=motion)


#: (minutes after 08:00, camera, [(thing, box, description)], caption)
CLIPS = [
    (
        0,
        "kitchen",
        [
            (
                "red cup",
                (100, 160, 140, 200),
                said("a red cup by the counter, staying in place", "red", "counter", "still"),
            )
        ],
        "the kitchen: a red cup by the counter",
    ),
    (
        2,
        "living",
        [("dog", BY_WINDOW, said("a brown dog by the window", "brown", "window", ""))],
        "the living room: a brown dog by the window",
    ),
    (
        5,
        "kitchen",
        [
            (
                "red cup",
                (100, 160, 140, 200),
                said("a red cup by the counter, staying in place", "red", "counter", "still"),
            )
        ],
        "the kitchen: a red cup by the counter",
    ),
    (
        10,
        "kitchen",
        [("red cup", (300, 160, 340, 200), said("a red cup by the sink, staying in place", "red", "sink", "still"))],
        "the kitchen: a red cup by the sink",
    ),
    (
        15,
        "living",
        [("dog", BY_WINDOW, said("a brown dog by the window", "brown", "window", ""))],
        "the living room: a brown dog by the window",
    ),
    (
        20,
        "kitchen",
        [
            (
                "person",
                (450, 60, 560, 340),
                said("a person in a blue sweater by the table, moving", "blue", "table", "moving right"),
            ),
            (
                "red cup",
                (500, 200, 540, 240),
                said("a red cup by the table, staying in place", "red", "table", "still"),
            ),
        ],
        "the kitchen: a person in a blue sweater puts a red cup on the table",
    ),
    (
        30,
        "kitchen",
        [
            (
                "blue cup",
                (260, 160, 295, 198),
                said("a blue cup by the sink, staying in place", "blue", "sink", "still"),
            ),
            (
                "red cup",
                (500, 200, 540, 240),
                said("a red cup by the table, staying in place", "red", "table", "still"),
            ),
        ],
        "the kitchen: a blue cup by the sink, the red cup on the table",
    ),
    (
        35,
        "living",
        [
            (
                "person",
                (330, 40, 440, 330),
                said("a person in a blue sweater near the sofa, moving", "blue", "sofa", "moving right"),
            )
        ],
        "the living room: a person in a blue sweater walks past the sofa",
    ),
    (
        45,
        "kitchen",
        [("red cup", (500, 200, 540, 240), said("a red cup by the table, staying in place", "red", "table", "still"))],
        "the kitchen: a red cup by the table",
    ),
    (
        50,
        "living",
        [("dog", BY_WINDOW, said("a brown dog by the window", "brown", "window", ""))],
        "the living room: a brown dog by the window",
    ),
]


def ingest(
    store: Store,
    minute: float,
    camera: str,
    seen: list[tuple[str, tuple, str]],
    caption: str,
    *,
    start: float = T0,
    around: np.ndarray | None = None,
):
    """One 10-second clip, ``minute`` minutes after ``start``: its keyframe drawn with what was seen, a
    crop per thing; the store's result. ``around``: the things' surroundings (a camera without zones: memory
    groups them into places)."""
    t0 = start + minute * 60
    stem = f"{camera}-{int(t0)}"
    frame = _frame(camera, t0, [(what, box) for what, box, _ in seen])
    key = f"keyframes/{stem}.jpg"
    _jpeg(store.media_path(key), cv2.resize(frame, (W // 2, H // 2), interpolation=cv2.INTER_AREA))
    records = []
    for track, (what, box, text) in enumerate(seen, 1):
        x1, y1, x2, y2 = box
        m = max(x2 - x1, y2 - y1) * 0.35
        crop = frame[max(0, int(y1 - m)) : int(y2 + m), max(0, int(x1 - m)) : int(x2 + m)]
        crop_path = f"crops/{stem}/{track}.jpg"
        _jpeg(store.media_path(crop_path), cv2.resize(crop, (96, 96), interpolation=cv2.INTER_AREA), 85)
        kind, category, vector = KINDS[what]
        records.append(
            observation(
                track,
                t0,
                box,
                vector,
                kind=kind,
                category=category,
                frames=16,
                step=0.5,
                description=text,
                crop_path=crop_path,
            )
        )
        if around is not None:
            records[-1] = replace(records[-1], surroundings=around)
    return store.ingest_clip(clip(t0, camera=camera, keyframes=[key]), records, caption=caption)


def dog_on_sofa(store: Store, minute: float = 70, *, start: float = T0) -> list[book.Alert]:
    """What the watch process does: a new clip (the dog on the sofa) committed, then checked by the
    resolver, which writes the alerts it raises."""
    ingest(
        store,
        minute,
        "living",
        [("dog", ON_SOFA, "a brown dog on the sofa")],
        "the living room: a brown dog on the sofa",
        start=start,
    )
    return Resolver(store, zones=ZONES).process()


def build(home: Path, *, start: float = T0) -> SimpleNamespace:
    """The morning above (from ``start``), episodes rolled up, the person rule and its alerts. Returns the
    ids tests use."""
    with Store(home) as store:
        rule = book.add_rule(store, PERSON_RULE, parse_rule(PERSON_RULE, places=["sofa"]), cooldown_s=600)
        results = {
            (minute, camera): ingest(store, minute, camera, seen, caption, start=start)
            for minute, camera, seen, caption in CLIPS
        }
        store.close_episodes()
        alerts = Resolver(store, zones=ZONES).process()
        ids = {
            what: d.entity_id
            for minute, camera, seen, _ in CLIPS
            for (what, _, _), d in zip(seen, results[minute, camera].decisions)
        }
    return SimpleNamespace(
        home=home,
        red=ids["red cup"],
        blue=ids["blue cup"],
        dog=ids["dog"],
        person=ids["person"],
        rule=rule.id,
        alerts=alerts,
        table_clip=results[(45, "kitchen")].clip_id,
    )


# -- serving and driving --------------------------------------------------------------------------------------


def browser_missing() -> str | None:
    """Why headless Chromium cannot be driven here, or None."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install 'edge-agent[test]')"
    if not (shutil.which("chromium") or shutil.which("chromium-browser")):
        return "chromium is not installed (apt-get install chromium chromium-driver)"
    if not os.access(CHROMEDRIVER, os.X_OK):
        return f"{CHROMEDRIVER} is missing (apt-get install chromium-driver)"
    return None


def chromium(width: int = 1400, height: int = 900):
    """Headless Chromium at this window size, its console log kept (for JavaScript errors)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        f"--window-size={width},{height}",
        "--hide-scrollbars",
        "--lang=en-GB",
        "--use-fake-ui-for-media-stream",
        "--use-fake-device-for-media-stream",
    ):  # a microphone that plays a tone
        options.add_argument(arg)
    options.binary_location = shutil.which("chromium") or shutil.which("chromium-browser") or ""
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER, env={**os.environ, "TZ": "UTC"}))
    # the page's viewport exactly this size (the window's would include the browser's own bars)
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
    )
    return driver
