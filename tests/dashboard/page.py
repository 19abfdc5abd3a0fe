"""Reading the dashboard in headless Chromium: the window sizes it must work at, its panels, and their rendered
heights. Shared by test_layout.py and the first-hour script (tests/test_first_hour.py)."""

from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

SIZES = [(1280, 800), (1920, 1080)]
USABLE_PX = 150  #: the least height a panel may render at
PANELS = {
    "moment": "#moment-panel",
    "timeline": "#timeline-panel",
    "ask": "#chat-panel",
    "chat log": "#chat-log",
    "rules and alerts": "#rules-panel",
    "entities": "#entities-panel",
    "entity detail": "#entity-detail",
}


def wait(driver, timeout: float = 10):
    return WebDriverWait(driver, timeout, poll_frequency=0.05)


def find(driver, selector: str):
    return driver.find_elements(By.CSS_SELECTOR, selector)


def console_errors(driver) -> list[str]:
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def open_at(driver, url: str, width: int, height: int) -> None:
    """The page loaded afresh in a viewport of exactly this size."""
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
    )
    driver.get(url)
    wait(driver).until(lambda d: find(d, "body[data-ready] [data-testid=entity]"))


def heights(driver, selectors: dict[str, str]) -> dict[str, int]:
    return driver.execute_script(
        "const out = {}; for (const [name, s] of Object.entries(arguments[0])) {"
        " const el = document.querySelector(s); out[name] = el ? Math.round(el.getBoundingClientRect().height) : -1; }"
        " return out;",
        selectors,
    )
