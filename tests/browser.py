"""Headless Chromium driven by Selenium, for the web UI's tests.

Debian's ``chromium`` and ``chromium-driver`` (``/usr/bin/chromium``, ``/usr/bin/chromedriver``)
and Selenium from PyPI.  Without them a test skips with the reason, unless
``PYNIMBUS_EXPECT_BROWSER=1`` (CI), which makes the absence a failure.  The flags keep Chromium
off the network (the machine is offline) and in a fresh profile of the test's own.
Screenshots go to ``$PYNIMBUS_TEST_ARTIFACTS`` (default ``.test-artifacts/web-ui/`` in the
checkout).
"""

import base64
import contextlib
import importlib.util
import os

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage", "--window-size=1400,1000"]


def unavailable_reason():
    """Why no browser can run here, or None."""
    if importlib.util.find_spec("selenium") is None:
        return "Selenium is not installed (pip install selenium)"
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not os.access(path, os.X_OK):
            return "%s is missing (apt-get install %s)" % (path, package)
    return None


def require_browser():
    """Skip the test without a browser (fail instead under ``PYNIMBUS_EXPECT_BROWSER=1``)."""
    reason = unavailable_reason()
    if reason is None:
        return
    if os.environ.get("PYNIMBUS_EXPECT_BROWSER") == "1":
        pytest.fail("PYNIMBUS_EXPECT_BROWSER=1 but " + reason)
    pytest.skip("needs headless Chromium: " + reason)


@contextlib.contextmanager
def chromium(profile_dir):
    """A headless Chromium WebDriver with a fresh profile in ``profile_dir``; quit after."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS + ["--user-data-dir=%s" % profile_dir]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def artifacts_dir():
    """Where screenshots go (created)."""
    path = os.environ.get("PYNIMBUS_TEST_ARTIFACTS") or os.path.join(
        REPO, ".test-artifacts", "web-ui")
    os.makedirs(path, exist_ok=True)
    return path


def screenshot(driver, name):
    """Save the whole page (beyond the window, through DevTools) as ``<artifacts>/<name>.png``
    and return the path."""
    size = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": size["width"], "height": size["height"],
                 "scale": 1}})
    path = os.path.join(artifacts_dir(), name + ".png")
    with open(path, "wb") as f:
        f.write(base64.b64decode(shot["data"]))
    return path


def wait_for(driver, condition, what, timeout=60):
    """Poll ``condition(driver)`` (Selenium's bounded wait) until it gives a true value, which
    is returned; fail the test with ``what`` after ``timeout`` s."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.1).until(condition)
    except TimeoutException:
        pytest.fail("timed out after %d s waiting for %s (page %s)"
                    % (timeout, what, driver.current_url))


def script_errors(driver):
    """The page's console messages of level SEVERE (JavaScript errors, failed loads)."""
    return [entry["message"] for entry in driver.get_log("browser")
            if entry["level"] == "SEVERE"]
