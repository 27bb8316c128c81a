"""Open a kgroup page in headless Chromium (Debian's chromium and chromium-driver, through
selenium) with the network off: every request but the file itself fails, and what the page asked
for is recorded. ``open_page`` gives the driver, the console's messages and the URLs requested."""
from __future__ import annotations

import json
import shutil
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1400,1800",
         # and no way out: every host name fails to resolve, any connection goes to a closed port
         "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>"]


def require_chromium() -> tuple[str, str]:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if browser is None or driver is None:
        pytest.fail("headless Chromium is missing: scripts/setup.sh installs chromium and chromium-driver")
    pytest.importorskip("selenium", reason="selenium comes with kgroup's test extra")
    return browser, driver


# every alert, confirm or prompt the page would show is recorded instead (a script that runs)
ALERTS = ("window.__kgroup_alerts = [];"
          "for (const f of ['alert', 'confirm', 'prompt']) window[f] = (m) => { window.__kgroup_alerts.push(String(m)); };")


class Page:
    def __init__(self, driver, console: list[dict], requested: list[str]):
        self.driver, self.console, self.requested = driver, console, requested

    def js(self, script: str, *args):
        return self.driver.execute_script(script, *args)

    @property
    def alerts(self) -> list[str]:
        return self.js("return window.__kgroup_alerts")

    @property
    def errors(self) -> list[dict]:
        return [m for m in self.console if m.get("level") == "SEVERE"]


@contextmanager
def open_page(path: Path, screenshot: Path | None = None):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, driver_bin = require_chromium()
    profile = tempfile.mkdtemp(prefix="kgroup-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(driver_bin))
    try:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": ALERTS})
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": True, "latency": 0, "downloadThroughput": 0, "uploadThroughput": 0})
        driver.get_log("performance")  # what the browser's own start page asked for: not the page's
        driver.get(path.resolve().as_uri())
        # plotly draws synchronously on load; wait for its main plot layer anyway
        for _ in range(100):
            if driver.execute_script("return document.readyState") == "complete" and driver.execute_script(
                    "return document.querySelectorAll('.js-plotly-plot .main-svg').length > 0"):
                break
            time.sleep(0.1)
        console = driver.get_log("browser")
        requested = []
        for entry in driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message.get("method") == "Network.requestWillBeSent":
                requested.append(message["params"]["request"]["url"])
        page = Page(driver, console, requested)
        if screenshot is not None:
            height = driver.execute_script("return document.body.scrollHeight")
            driver.set_window_size(1400, min(max(height + 100, 800), 8000))
            driver.save_screenshot(str(screenshot))
        yield page
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


# What a phone or a wide screen shows of a page: the page's own width against the window's, and
# for each chart the boxes plotly drew (its plot areas, legend, titles and annotations, x axis
# titles and tick labels), in CSS pixels of the window
LAYOUT = """
const box = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
return {
  inner: window.innerWidth, scroll: document.documentElement.scrollWidth,
  charts: Array.from(document.querySelectorAll('.js-plotly-plot')).map(gd => ({
    id: gd.id, chart: box(gd),
    plots: Array.from(gd.querySelectorAll('.draglayer .nsewdrag')).map(box),
    legend: Array.from(gd.querySelectorAll('.legend')).map(box),
    texts: Array.from(gd.querySelectorAll('.annotation-text, .gtitle')).map(t => [t.textContent, box(t)]),
    xtitles: Array.from(gd.querySelectorAll('[class^="g-x"][class$="title"]')).filter(t => t.textContent).map(box),
    ticks: Array.from(gd.querySelectorAll('.xaxislayer-above text')).filter(t => t.textContent).map(box)})),
  scrollers: Array.from(document.querySelectorAll('table')).map(t => t.parentElement.className),
};
"""


def overlap(a, b) -> bool:
    """Whether two boxes (left, top, right, bottom) share more than a pixel."""
    return min(a[2], b[2]) - max(a[0], b[0]) > 1 and min(a[3], b[3]) - max(a[1], b[1]) > 1


def layout_at(page: Page, width: int, screenshot: Path | None = None) -> dict:
    """The page laid out in a window ``width`` CSS pixels wide (LAYOUT's facts); its screenshot,
    whole, where asked."""
    page.driver.set_window_size(width, 900)
    time.sleep(0.3)  # plotly redraws the charts on resize (responsive)
    height = page.js("return document.body.scrollHeight")
    page.driver.set_window_size(width, min(max(height + 100, 800), 8000))
    time.sleep(0.3)
    facts = page.js(LAYOUT)
    if screenshot is not None:
        page.driver.save_screenshot(str(screenshot))
    return facts


def assert_reads_at(page: Page, width: int, screenshot: Path | None = None) -> dict:
    """The page at ``width``: it never scrolls sideways (each table scrolls in its own box); in
    each chart the legend covers no plot area, no x axis title or tick label, and every title and annotation
    lies inside the window."""
    facts = layout_at(page, width, screenshot)
    assert facts["scroll"] <= facts["inner"], (width, facts["scroll"])
    assert set(facts["scrollers"]) <= {"scroll"}, facts["scrollers"]
    for chart in facts["charts"]:
        assert chart["plots"], chart["id"]
        for legend in chart["legend"]:
            for area in chart["plots"] + chart["xtitles"] + chart["ticks"]:
                assert not overlap(legend, area), (width, chart["id"], legend, area)
        for text, b in chart["texts"]:
            assert b[0] >= 0 and b[2] <= facts["inner"], (width, chart["id"], text, b)
    return facts
