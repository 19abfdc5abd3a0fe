"""The dashboard end to end: headless Chromium (selenium, Debian's chromium and chromium-driver) drives
the page that a real uvicorn server on 127.0.0.1 serves over a memory built here (tests/dashboard/scene.py):
the status line, a question answered with evidence that leads to its moment, a spoken question refused
with the server's reason, an entity opened and renamed, a rule previewed and added, and an alert raised
by another writer arriving live over the alert stream. A second test serves with a token: the page asks
for it, keeps it, and shows images through blob URLs.

Screenshots of each step go to $EDGE_AGENT_TEST_ARTIFACTS, else <repo>/test-artifacts/dashboard/."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from dashboard.scene import DOG_RULE, ZONES, browser_missing, build, chromium, dog_on_sofa
from helpers.server import live_server

from edge_agent.api import create_app
from edge_agent.api import rules as rules_api
from edge_agent.config import load_config
from edge_agent.memory import Store
from edge_agent.runtime import Runtime

MISSING = browser_missing()
if MISSING:
    pytest.skip(MISSING, allow_module_level=True)

from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

QUESTION = "Where was the red cup last seen?"
NEW_NAME = "Anna's mug"
TOKEN = "a-token-for-the-dashboard-test-0123456789"


@pytest.fixture
def fast_stream(monkeypatch):
    """The alert stream looks for new alerts five times a second (not once)."""
    monkeypatch.setattr(rules_api, "POLL_S", 0.2)


@contextlib.contextmanager
def browser() -> Iterator:
    driver = chromium()
    try:
        yield driver
    finally:
        driver.quit()


@contextlib.contextmanager
def serving(app) -> Iterator[tuple[str, object]]:
    """(base URL, driver): the browser quits before the server stops (its alert stream closes first)."""
    with live_server(app) as url, browser() as driver:
        yield url, driver


class Steps:
    """Times each step, saves a screenshot at its end (and one of the page when a step fails)."""

    def __init__(self, driver, folder: Path, prefix: str) -> None:
        self.driver, self.folder, self.prefix = driver, folder, prefix
        self.timings: list[tuple[str, float]] = []

    @contextlib.contextmanager
    def step(self, name: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        except BaseException:
            self.driver.save_screenshot(str(self.folder / f"{self.prefix}-{name}-FAILED.png"))
            raise
        self.timings.append((name, time.perf_counter() - started))
        self.driver.save_screenshot(str(self.folder / f"{self.prefix}-{len(self.timings)}-{name}.png"))

    def report(self, capsys) -> None:
        with capsys.disabled():
            steps = ", ".join(f"{name} {seconds:.2f}s" for name, seconds in self.timings)
            print(f"\n[dashboard] {self.prefix}: {steps}; screenshots in {self.folder}")


def wait(driver, timeout: float = 10):
    """An explicit wait; an element replaced while it is looked at (the page re-renders) is looked up again."""
    return WebDriverWait(driver, timeout, poll_frequency=0.05, ignored_exceptions=(StaleElementReferenceException,))


def find(driver, selector: str):
    return driver.find_elements(By.CSS_SELECTOR, selector)


def loaded(driver, img) -> bool:
    return bool(driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", img))


def no_errors(driver, expected: str = "") -> None:
    """No error in the message area, nothing severe in the browser's console (but the failed requests
    the test caused: responses with the ``expected`` status)."""
    shown = [m.text for m in find(driver, ".msg.error")]
    assert not shown, f"the page shows errors: {shown}"
    severe = [
        e["message"]
        for e in driver.get_log("browser")
        if e["level"] == "SEVERE"
        and not (expected and f"the server responded with a status of {expected}" in e["message"])
    ]
    assert not severe, f"the browser logged errors: {severe}"


def test_dashboard_end_to_end(tmp_path, embedder, fast_stream, monkeypatch, artefacts, capsys):
    scene = build(tmp_path / "home")
    app = create_app(Runtime.at(scene.home, load_config(None, zones=ZONES)), token=None, embedder=embedder)
    with serving(app) as (url, driver):
        steps = Steps(driver, artefacts, "dashboard")

        with steps.step("loaded"):
            driver.get(url)
            wait(driver).until(lambda d: find(d, "body[data-ready] [data-testid=status-camera][data-camera=kitchen]"))
            status = driver.find_element(By.ID, "status").text
            assert "kitchen" in status and "living" in status and "4 entities" in status
            assert len(find(driver, "[data-testid=clip]")) == 10 and find(driver, "[data-testid=episode]")
            assert len(find(driver, "[data-testid=entity]")) == 4 and len(find(driver, "[data-testid=alert]")) == 2
            wait(driver).until(lambda d: loaded(d, d.find_element(By.ID, "viewer-img")))

        with steps.step("answer"):
            before = driver.find_element(By.ID, "viewer").get_attribute("data-clip-id")
            driver.find_element(By.ID, "ask-input").send_keys(QUESTION + Keys.ENTER)  # Enter sends
            evidence = wait(driver, 20).until(lambda d: find(d, "[data-testid=answer] [data-testid=evidence]"))
            answer = driver.find_element(By.CSS_SELECTOR, "[data-testid=answer] .text").text
            assert "table" in answer, answer
            cited = evidence[-1]
            clip = cited.get_attribute("data-clip-id")
            assert clip == str(scene.table_clip) and clip != before
            wait(driver).until(lambda d: loaded(d, cited.find_element(By.TAG_NAME, "img")))
            cited.click()  # the moment it cites: selected in the timeline, its keyframe shown
            wait(driver).until(lambda d: d.find_element(By.ID, "viewer").get_attribute("data-clip-id") == clip)
            assert "selected" in driver.find_element(By.CSS_SELECTOR, f".tile[data-clip-id='{clip}']").get_attribute(
                "class"
            )
            viewer = driver.find_element(By.ID, "viewer-img")
            assert viewer.get_attribute("data-src") == f"/api/keyframes/{clip}"
            wait(driver).until(lambda d: loaded(d, viewer))
            assert "red cup by the table" in driver.find_element(By.ID, "viewer-caption").text

        with steps.step("spoken"):
            from edge_agent.perception import speech

            class NotInstalled:
                def __init__(self, *args, **kwargs):
                    raise speech.SpeechUnavailable(
                        "speech-to-text needs faster-whisper: pip install 'edge-agent[speech]'"
                    )

            monkeypatch.setattr(speech, "WhisperTranscriber", NotInstalled)
            mic = driver.find_element(By.ID, "ask-mic")
            mic.click()  # Chromium's fake microphone
            wait(driver).until(lambda d: "recording" in mic.get_attribute("class"))
            mic.click()
            refused = wait(driver).until(lambda d: find(d, ".msg.error"))
            assert (
                "Speech-to-text is not installed on the server: speech-to-text needs faster-whisper" in refused[0].text
            )
            refused[0].find_element(By.TAG_NAME, "button").click()  # dismissed
            wait(driver).until(lambda d: not find(d, ".msg.error"))

        with steps.step("entity"):
            driver.find_element(By.CSS_SELECTOR, f"[data-testid=entity][data-entity-id='{scene.red}']").click()
            facts = wait(driver).until(
                lambda d: (
                    d.find_element(By.ID, "entity-detail").get_attribute("data-entity-id") == str(scene.red)
                    and [f.text for f in find(d, "#facts [data-testid=fact]")]
                )
            )
            assert any("usually by the table" in f for f in facts) and any("moved by" in f for f in facts), facts
            assert find(driver, "#traces [data-testid=trace]") and find(driver, "#recent [data-testid=recent]")
            assert len(find(driver, "#observations [data-testid=observation]")) == 6
            name = driver.find_element(By.ID, "rename-input")
            name.clear()
            name.send_keys(NEW_NAME + Keys.ENTER)
            listed = f"[data-testid=entity][data-entity-id='{scene.red}'] .name"
            wait(driver).until(lambda d: d.find_element(By.CSS_SELECTOR, listed).text == NEW_NAME)
            wait(driver).until(lambda d: d.find_element(By.ID, "entity-name").text == NEW_NAME)
            assert httpx.get(f"{url}/api/entities/{scene.red}").json()["entity"]["name"] == NEW_NAME

        with steps.step("rule"):
            driver.find_element(By.ID, "rule-input").send_keys(DOG_RULE)
            driver.find_element(By.ID, "rule-preview-btn").click()
            shown = wait(driver).until(
                lambda d: (
                    d.find_element(By.ID, "rule-description").is_displayed()
                    and d.find_element(By.ID, "rule-description")
                )
            )
            assert shown.text == "when any dog is on the place 'sofa'"
            assert [r["text"] for r in httpx.get(f"{url}/api/rules").json()] == [
                "notify me when a person appears"
            ]  # not yet stored
            driver.find_element(By.ID, "rule-confirm").click()
            wait(driver).until(lambda d: any(DOG_RULE in r.text for r in find(d, "[data-testid=rule]")))
            assert not driver.find_element(By.ID, "rule-preview").is_displayed()
            assert DOG_RULE in [r["text"] for r in httpx.get(f"{url}/api/rules").json()]

        with steps.step("live-alert"):
            wait(driver).until(lambda d: d.find_element(By.ID, "stream-state").get_attribute("data-state") == "live")
            with Store(scene.home) as store:  # another writer: the dog gets on the sofa, the resolver raises the alert
                [raised] = dog_on_sofa(store)
            started = time.perf_counter()
            item = f"[data-testid=alert][data-alert-id='{raised.id}']"
            wait(driver, 5).until(lambda d: find(d, item))
            latency = time.perf_counter() - started
            first = driver.find_element(By.CSS_SELECTOR, "#alert-list [data-testid=alert]")
            assert first.get_attribute("data-alert-id") == str(raised.id) and "live" in first.get_attribute("class")
            assert "sofa" in first.text and first.find_element(By.CSS_SELECTOR, ".badge").text.lower() == "new"
            assert len(find(driver, "[data-testid=alert]")) == 3
            with capsys.disabled():
                print(f"\n[dashboard] the alert reached the page {latency:.2f}s after the resolver wrote it")

        no_errors(driver, expected="503")  # the spoken question refused
        steps.report(capsys)


def test_token_is_asked_for_kept_and_used_for_images(tmp_path, fast_stream, artefacts, capsys):
    scene = build(tmp_path / "home")
    app = create_app(Runtime.at(scene.home, load_config(None, zones=ZONES)), token=TOKEN)
    with serving(app) as (url, driver):
        steps = Steps(driver, artefacts, "token")

        with steps.step("asked"):
            driver.get(url)
            dialog = driver.find_element(By.ID, "token-dialog")
            wait(driver).until(lambda d: dialog.get_attribute("open") is not None)
            driver.find_element(By.ID, "token-input").send_keys("not-the-token" + Keys.ENTER)
            wait(driver).until(lambda d: "refused" in d.find_element(By.ID, "token-reason").text)
            assert dialog.get_attribute("open") is not None

        with steps.step("loaded"):
            field = driver.find_element(By.ID, "token-input")
            field.clear()
            field.send_keys(TOKEN + Keys.ENTER)
            wait(driver).until(
                lambda d: (
                    find(d, "[data-testid=status-camera][data-camera=kitchen]") and find(d, "[data-testid=entity]")
                )
            )
            assert driver.execute_script("return localStorage.getItem('edge-agent.token')") == TOKEN
            thumbs = find(driver, "[data-testid=entity] img") + find(driver, "#viewer-img")
            assert len(thumbs) == 5
            wait(driver).until(lambda d: all(loaded(d, img) for img in thumbs))
            assert all(img.get_attribute("src").startswith("blob:") for img in thumbs)
            wait(driver).until(
                lambda d: d.find_element(By.ID, "stream-state").get_attribute("data-state") == "live"
            )  # ?token=

        with steps.step("kept"):
            driver.refresh()  # the token is kept: no question this time
            wait(driver).until(lambda d: find(d, "body[data-ready] [data-testid=status-camera]"))
            assert driver.find_element(By.ID, "token-dialog").get_attribute("open") is None
            assert httpx.get(f"{url}/api/status").status_code == 401  # the server did want it

        no_errors(driver, expected="401")  # the requests before the token
        steps.report(capsys)


def test_a_place_of_a_worn_camera_is_named_on_the_page(tmp_path, artefacts, capsys):
    """A worn camera's places are listed with an example's crop; naming one ("this is the sofa") makes what was
    seen there by the sofa, through the page."""
    from dataclasses import replace

    import numpy as np
    from helpers.memory import clip, near, observation, said, unit

    home = tmp_path / "home"
    sofa, desk = unit(np.r_[np.ones(4), np.zeros(12)]), unit(np.r_[np.zeros(8), np.ones(4), np.zeros(4)])
    mug = unit(np.r_[np.ones(4), np.zeros(28)])
    with Store(home) as store:
        for k, around in enumerate((sofa, desk, sofa)):
            record = observation(1, 100.0 * k, [0, 0, 40, 40], mug, description=said(colour="red"))
            store.ingest_clip(clip(100.0 * k, camera="wearable"), [replace(record, surroundings=near(around, 0.99, k))])
    app = create_app(Runtime.at(home, load_config(None)), token=None)
    with serving(app) as (url, driver):
        steps = Steps(driver, artefacts, "places")
        with steps.step("listed"):
            driver.get(url)
            wait(driver).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true")
            wait(driver).until(lambda d: len(find(d, "[data-testid=place]")) == 2)
            assert driver.find_element(By.ID, "places-panel").is_displayed()
            first = find(driver, "[data-testid=place]")[0]
            assert "2 sightings" in first.text and "wearable" in first.text
            assert " alike" in first.text  # how alike its sightings' surroundings were (the API's likeness)
        with steps.step("named"):
            place_id = first.get_attribute("data-place-id")
            field = first.find_element(By.CSS_SELECTOR, "input[name=name]")
            field.send_keys("sofa" + Keys.ENTER)
            selector = f"[data-testid=place][data-place-id='{place_id}'] .name"
            wait(driver).until(lambda d: d.find_element(By.CSS_SELECTOR, selector).text == "sofa")
            named = {p["id"]: p["name"] for p in httpx.get(f"{url}/api/places").json()}
            assert named[int(place_id)] == "sofa"
            assert httpx.get(f"{url}/api/entities/1").json()["observations"][0]["zone"] == "sofa"
        no_errors(driver, expected="404")  # the example crops are not on disk in this memory
        steps.report(capsys)
