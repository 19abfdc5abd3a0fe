"""The dashboard's layout and wording in headless Chromium (issue 40): at 1280x800 and 1920x1080, over the test
scene with places (a worn camera's) and without, every panel keeps a usable height (rendered, at least 150 px)
and an answer fits its chat without scrolling; the Ask placeholder names a thing memory holds (a neutral one
over an empty memory); an unreadable rule is shown back in the rule reader's own words, with nothing in the
browser's console. Screenshots go where test_dashboard.py puts its own."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np
import pytest
from dashboard.scene import BY_WINDOW, ZONES, browser_missing, build, chromium, ingest, said
from helpers.memory import near, unit
from helpers.server import live_server

from edge_agent.api import create_app
from edge_agent.config import load_config
from edge_agent.memory import Store
from edge_agent.runtime import Runtime

MISSING = browser_missing()
if MISSING:
    pytest.skip(MISSING, allow_module_level=True)

from dashboard.page import PANELS, SIZES, USABLE_PX, console_errors, find, heights, open_at, wait  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

SOFA, DESK = unit(np.r_[np.ones(4), np.zeros(12)]), unit(np.r_[np.zeros(8), np.ones(4), np.zeros(4)])


@pytest.fixture(scope="module")
def memories(tmp_path_factory) -> dict[str, Path]:
    """The test scene as it is (its cameras have zones: no places), and with a worn camera's clips after it,
    whose surroundings memory groups into places."""
    plain = build(tmp_path_factory.mktemp("plain") / "home").home
    placed = build(tmp_path_factory.mktemp("placed") / "home").home
    with Store(placed) as store:
        for k, (minute, around) in enumerate(((55, SOFA), (57, DESK), (59, SOFA))):
            dog = said("a brown dog", "brown", "", "")
            ingest(
                store, minute, "wearable", [("dog", BY_WINDOW, dog)], "worn: a brown dog", around=near(around, 0.99, k)
            )
    return {"without places": plain, "with places": placed}


@contextlib.contextmanager
def served(home: Path, embedder=None) -> Iterator[tuple[str, object]]:
    app = create_app(Runtime.at(home, load_config(None, zones=ZONES)), token=None, embedder=embedder)
    with live_server(app) as url:
        driver = chromium()
        try:
            yield url, driver
        finally:
            driver.quit()


@pytest.mark.parametrize("memory", ["without places", "with places"])
def test_every_panel_keeps_a_usable_height(memories, memory, embedder, artefacts):
    home = memories[memory]
    panels = PANELS | ({"places": "#places-panel"} if memory == "with places" else {})
    with served(home, embedder) as (url, driver):
        latest = httpx.get(f"{url}/api/entities").json()[0]
        assert len(httpx.get(f"{url}/api/places").json()) == (2 if memory == "with places" else 0)
        for width, height in SIZES:
            open_at(driver, url, width, height)
            assert driver.find_element(By.ID, "places-panel").is_displayed() == (memory == "with places")
            driver.find_element(By.CSS_SELECTOR, f"[data-testid=entity][data-entity-id='{latest['id']}']").click()
            wait(driver).until(lambda d: find(d, "#facts [data-testid=fact]"))
            question = driver.find_element(By.ID, "ask-input").get_attribute("placeholder")
            driver.find_element(By.ID, "ask-input").send_keys(question + Keys.ENTER)
            [answer] = wait(driver, 20).until(lambda d: find(d, "[data-testid=answer]"))
            shot = artefacts / f"layout-{memory.replace(' ', '-')}-{width}x{height}.png"
            driver.save_screenshot(str(shot))

            measured = heights(driver, panels)
            squeezed = {name: px for name, px in measured.items() if px < USABLE_PX}
            assert not squeezed, f"{memory} at {width}x{height}: panels under {USABLE_PX} px: {squeezed} ({shot})"
            room = driver.execute_script("return document.querySelector('#chat-log').clientHeight")
            assert answer.size["height"] <= room, (
                f"the answer ({answer.size['height']} px) needs scrolling in {room} px"
            )
            assert driver.execute_script("return document.documentElement.scrollWidth") <= width  # nothing sideways
            timeline = driver.find_element(By.ID, "timeline").get_attribute("textContent")
            assert "1 thing seen" in timeline and "1 things" not in timeline
        assert not console_errors(driver)


def test_the_ask_placeholder_names_a_thing_memory_holds(memories, tmp_path):
    with served(memories["without places"]) as (url, driver):
        open_at(driver, url, 1280, 800)
        entities = httpx.get(f"{url}/api/entities").json()  # most recently seen first: the dog; no name given
        assert entities[0]["category"] == "dog" and not any(e["name"] for e in entities)
        placeholder = driver.find_element(By.ID, "ask-input").get_attribute("placeholder")
        assert placeholder == "Where was the dog last seen?"
        cup = next(e for e in entities if e["category"] == "cup")
        httpx.post(f"{url}/api/entities/{cup['id']}/rename", json={"name": "Anna's mug"})
        open_at(driver, url, 1280, 800)  # a name the user gave comes first
        assert driver.find_element(By.ID, "ask-input").get_attribute("placeholder") == "Where was Anna's mug last seen?"
        assert not console_errors(driver)
        httpx.post(f"{url}/api/entities/{cup['id']}/rename", json={"name": None})  # the memory is shared: as it was

    with Store(tmp_path / "empty"):
        pass
    with served(tmp_path / "empty") as (url, driver):
        driver.get(url)
        wait(driver).until(lambda d: find(d, "body[data-ready]"))
        placeholder = driver.find_element(By.ID, "ask-input").get_attribute("placeholder")
        assert placeholder and "cup" not in placeholder and "?" not in placeholder, placeholder  # nothing to name
        assert not console_errors(driver)


@pytest.mark.parametrize(
    "rule",
    [
        "make me a sandwich",  # no relation
        "alert me if the car has not been seen for",  # no span
        "notify me when the unicorn is on the sofa",  # a word memory does not know
        "tell me when the dog is on the balcony",  # an unknown place
    ],
)
def test_an_unreadable_rule_is_refused_in_the_readers_words(memories, rule, artefacts):
    with served(memories["without places"]) as (url, driver):
        open_at(driver, url, 1280, 800)
        said_by_reader = httpx.post(f"{url}/api/rules/preview", json={"text": rule}).json()["error"]
        reason, _, examples = said_by_reader.partition("; rules that read: ")
        driver.find_element(By.ID, "rule-input").send_keys(rule + Keys.ENTER)
        shown = wait(driver).until(lambda d: find(d, "#rule-problem:not([hidden])"))[0]
        driver.save_screenshot(str(artefacts / "layout-unreadable-rule.png"))
        assert driver.find_element(By.ID, "rule-reason").text == reason
        offered = [b.text for b in find(driver, "#rule-examples [data-testid=rule-example]")]
        assert offered and all(f"'{e}'" in examples for e in offered)
        assert "`predicate`" not in shown.text and "seen for ;" not in shown.text
        assert not driver.find_element(By.ID, "rule-preview").is_displayed()
        assert not find(driver, ".msg.error") and not console_errors(driver)  # no 422 logged

        find(driver, "#rule-examples [data-testid=rule-example]")[0].click()  # an example that reads, tried
        wait(driver).until(lambda d: d.find_element(By.ID, "rule-preview").is_displayed())
        assert driver.find_element(By.ID, "rule-input").get_attribute("value") == offered[0]
        assert not driver.find_element(By.ID, "rule-problem").is_displayed()
        assert not console_errors(driver)
