"""The README's picture of the dashboard (docs/dashboard.png): the test scene, set in the last hour, with a worn
camera's clips (whose surroundings make places), served and driven in headless Chromium at 1920x1080: a question
answered and its moment shown, an entity open, a live alert just arrived. Not a test (pytest does not collect it):

    python tests/dashboard/screenshot.py docs/dashboard.png

Needs what the dashboard test needs (chromium, chromium-driver, selenium) and the text model package."""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: helpers and dashboard, as under pytest

from dashboard.scene import (  # noqa: E402
    BY_WINDOW,
    DOG_RULE,
    ZONES,
    browser_missing,
    build,
    chromium,
    dog_on_sofa,
    ingest,
    said,
)
from helpers.memory import near, unit  # noqa: E402
from helpers.server import live_server  # noqa: E402

from edge_agent.api import create_app  # noqa: E402
from edge_agent.api import rules as rules_api  # noqa: E402
from edge_agent.config import load_config  # noqa: E402
from edge_agent.memory import Store, corrections  # noqa: E402
from edge_agent.perception.text import MiniLMTextEmbedder  # noqa: E402
from edge_agent.rules import book  # noqa: E402
from edge_agent.rules.parse import parse_rule  # noqa: E402
from edge_agent.runtime import Runtime

LIMIT = 300_000  #: bytes: above this the PNG is quantised to a palette


def quantised(png: bytes) -> bytes:
    """The PNG with a 256-colour palette (Pillow's median cut); as it is where Pillow, no dependency of the
    project, is not installed."""
    try:
        from PIL import Image
    except ImportError:
        print("Pillow is not installed: the picture is kept as Chromium made it", file=sys.stderr)
        return png
    buffer = io.BytesIO()
    Image.open(io.BytesIO(png)).convert("RGB").quantize(256, method=Image.Quantize.MEDIANCUT).save(
        buffer, "PNG", optimize=True
    )
    return buffer.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="the PNG to write")
    args = parser.parse_args(argv)
    if (missing := browser_missing()) is not None:
        print(missing, file=sys.stderr)
        return 1
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    def answers_shown(count: int) -> Callable[[Any], Any]:
        """A wait condition: the answers on the page, once there are ``count`` of them."""
        return lambda d: (a := d.find_elements(By.CSS_SELECTOR, "[data-testid=answer]")) and len(a) == count and a

    rules_api.POLL_S = 0.2
    start = (time.time() // 3600 - 1) * 3600  # the scene's morning, moved to the last hour
    with tempfile.TemporaryDirectory() as folder:
        scene = build(Path(folder) / "home", start=start)
        with Store(scene.home) as store:
            corrections.rename(store, scene.red, "Anna's mug")
            corrections.rename(store, scene.person, "Anna")
            book.add_rule(store, DOG_RULE, parse_rule(DOG_RULE, places=["sofa"]), cooldown_s=600)
            hall, porch = unit(np.r_[np.ones(4), np.zeros(12)]), unit(np.r_[np.zeros(8), np.ones(4), np.zeros(4)])
            for k, (minute, around) in enumerate(((50.5, hall), (51, porch), (51.5, hall))):  # worn: places
                dog = said("a brown dog", "brown", "", "")
                ingest(
                    store,
                    minute,
                    "worn",
                    [("dog", BY_WINDOW, dog)],
                    "worn: a brown dog",
                    start=start,
                    around=near(around, 0.99, k),
                )
        app = create_app(
            Runtime.at(scene.home, load_config(None, zones=ZONES)), token=None, embedder=MiniLMTextEmbedder()
        )
        with live_server(app) as url:
            driver = chromium(1920, 1080)
            try:
                wait = WebDriverWait(driver, 20, poll_frequency=0.05)
                driver.get(url)
                wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "body[data-ready] [data-testid=status-camera]"))
                for n, question in enumerate(("Who moved the red cup?", "Where was the red cup last seen?"), 1):
                    driver.find_element(By.ID, "ask-input").send_keys(question + Keys.ENTER)
                    answers = wait.until(answers_shown(n))
                answers[-1].find_elements(By.CSS_SELECTOR, "[data-testid=evidence]")[-1].click()
                driver.find_element(By.CSS_SELECTOR, f"[data-testid=entity][data-entity-id='{scene.red}']").click()
                wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#facts [data-testid=fact]"))
                wait.until(lambda d: d.find_element(By.ID, "stream-state").get_attribute("data-state") == "live")
                with Store(scene.home) as store:
                    [alert] = dog_on_sofa(store, 52, start=start)
                wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, f"[data-alert-id='{alert.id}']"))
                time.sleep(3)  # the arrival's flash fades; thumbnails settle
                driver.execute_script("document.querySelectorAll('.msg.info').forEach((m) => m.remove())")
                png = driver.get_screenshot_as_png()
            finally:
                driver.quit()
    if len(png) > LIMIT:
        png = quantised(png)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(png)
    print(f"{args.out}: {len(png) / 1000:.0f} KB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
