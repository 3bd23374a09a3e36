"""pynimbus's own web UI (``pynimbus/ui/web/``), served by ``pynimbus ui`` beside the REST API.

Without a browser: every shipped file is served with its content type, ``/`` is the cluster
page, and no other path (traversal, unknown names, sub-paths) reaches a file.  With headless
Chromium (:mod:`browser`) on ``pynimbus dev`` running the quickstart word count: the cluster,
topology and component pages show what the API says, the graph draws the components, the
lifecycle buttons act through their confirmation dialog, and the worker log links are the
API's.  Screenshots of each page go to the artifacts directory (see :mod:`browser`).
"""

import http.client
import os

import pytest

import browser
from nimbus_process import LOOPBACK, NimbusProcess, free_port
from pynimbus.generated.storm.ttypes import KillOptions
from pynimbus.ui.web import WEB_DIR, read_web_files
from test_ui_server import submit_quickstart, thrift
from ui_process import UIProcess

EXPECTED_TYPES = {".html": "text/html; charset=utf-8", ".css": "text/css; charset=utf-8",
                  ".svg": "image/svg+xml",
                  ".js": "text/javascript; charset=utf-8"}


def raw_get(port, path):
    """``(status, content type, body bytes)`` of a GET of ``path`` exactly as written."""
    connection = http.client.HTTPConnection(LOOPBACK, port, timeout=30)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, response.getheader("content-type"), response.read()
    finally:
        connection.close()


@pytest.fixture(scope="module")
def bare_ui(tmp_path_factory):
    """``pynimbus ui`` with no Nimbus behind it: the shipped files need none."""
    ui = UIProcess(tmp_path_factory.mktemp("web-ui"), free_port())
    try:
        ui.wait_serving()
        yield ui
    finally:
        ui.stop()


def test_every_shipped_file_is_served_with_its_content_type(bare_ui):
    """Each file of pynimbus/ui/web is served as it is on disk, typed by its extension."""
    shipped = sorted(os.listdir(WEB_DIR))
    assert {"index.html", "topology.html", "component.html", "app.js", "graph.js",
            "style.css"} <= set(shipped)
    for name in shipped:
        with open(os.path.join(WEB_DIR, name), "rb") as f:
            on_disk = f.read()
        status, content_type, body = raw_get(bare_ui.port, "/" + name)
        assert (status, content_type, body) == (
            200, EXPECTED_TYPES[os.path.splitext(name)[1]], on_disk), name


def test_the_root_is_the_cluster_page(bare_ui):
    status, content_type, body = raw_get(bare_ui.port, "/")
    assert (status, content_type) == (200, "text/html; charset=utf-8")
    with open(os.path.join(WEB_DIR, "index.html"), "rb") as f:
        assert body == f.read()


@pytest.mark.parametrize("path", [
    "/../setup.py", "/%2e%2e/setup.py", "/%2e%2e/", "/..%2fsetup.py", "/%2E%2E/%2E%2E/etc/passwd",
    "/web/index.html", "/ui/web/app.js", "/web.py", "/server.py", "/__init__.py",
    "/nothing.html", "/app.js/more", "/index.html/", "/.", "/%00index.html",
    "//etc/passwd"])
def test_traversal_and_unknown_files_are_not_found(bare_ui, path):
    """Only a shipped file's exact name is served: anything else is Storm's 404."""
    status, _type, body = raw_get(bare_ui.port, path)
    assert (status, body) == (404, b"Page not found"), path


def test_only_web_files_are_read_from_the_directory(tmp_path):
    """A file of a kind the UI does not ship (Python, dot files) or a sub-directory is never
    in the table, so it cannot be served even when it sits there."""
    (tmp_path / "page.html").write_text("<p>hi</p>")
    (tmp_path / "secret.py").write_text("x = 1")
    (tmp_path / ".hidden.js").write_text("1")
    (tmp_path / "sub.js").mkdir()
    assert read_web_files(str(tmp_path)) == {
        "page.html": (b"text/html; charset=utf-8", b"<p>hi</p>")}


# -- in a browser, on pynimbus dev running the word count


@pytest.fixture(scope="module")
def dev(tmp_path_factory):
    """``pynimbus dev`` with its supervisor and UI, running the quickstart word count."""
    browser.require_browser()
    local = tmp_path_factory.mktemp("web-ui-dev")
    logviewer_port = free_port()
    nimbus = NimbusProcess(local, dev_supervisor=True, ui=True, options=[
        "supervisor.slots.ports=[%d, %d]" % (free_port(), free_port()),
        "logviewer.port=%d" % logviewer_port])
    nimbus.start(timeout=60)
    try:
        storm_id = submit_quickstart(nimbus, tmp_path_factory.mktemp("web-ui-project"))
        yield nimbus, storm_id, logviewer_port
    finally:
        try:
            thrift(nimbus, "killTopologyWithOpts", "wordcount", KillOptions(wait_secs=0))
        finally:
            nimbus.stop()


@pytest.fixture(scope="module")
def chrome(dev, tmp_path_factory):
    with browser.chromium(tmp_path_factory.mktemp("chromium-profile")) as driver:
        yield driver


def page_url(dev, path):
    nimbus = dev[0]
    return "http://%s:%d/%s" % (LOOPBACK, nimbus.ui_port, path)


def open_page(driver, url):
    """Load ``url`` and wait until its first load from the API finished."""
    driver.get(url)
    browser.wait_for(driver, lambda d: d.find_element(
        "css selector", "body").get_attribute("data-loaded") == "true", "the page's first load")


def cells(driver, table_id, column):
    """The texts of ``column`` (a ``data-col``) in the table ``table_id``."""
    return [c.text for c in driver.find_elements(
        "css selector", "#%s td[data-col='%s']" % (table_id, column))]


def number(text):
    return int(text.replace(",", "") or 0)


def assert_no_script_errors(driver):
    assert browser.script_errors(driver) == []


def test_cluster_page_lists_the_running_topology(dev, chrome):
    """The cluster page shows the summaries, and the word count in the topology table, its
    name linking to its topology page."""
    nimbus, storm_id, _ = dev
    open_page(chrome, page_url(dev, ""))
    assert chrome.find_element("css selector", "#cluster-facts [data-fact=topologies] dd"
                               ).text == "1"
    assert cells(chrome, "topology-table", "status") == ["ACTIVE"]
    assert cells(chrome, "topology-table", "id") == [storm_id]
    [supervisor] = thrift(nimbus, "getClusterInfo").supervisors
    assert cells(chrome, "supervisor-table", "id") == [supervisor.supervisor_id]
    assert cells(chrome, "nimbus-table", "status") == ["Leader"]
    chrome.find_element("css selector", "#nimbus-configuration summary").click()
    browser.wait_for(chrome, lambda d: d.find_elements("id", "configuration-table"),
                     "Nimbus's configuration")
    keys = cells(chrome, "configuration-table", "key")
    assert "nimbus.thrift.port" in keys and keys == sorted(keys)
    browser.screenshot(chrome, "cluster")
    link = chrome.find_element("css selector", "#topology-table td[data-col=name] a")
    assert link.text == "wordcount"
    link.click()
    browser.wait_for(chrome, lambda d: "topology.html?id=" in d.current_url,
                     "the topology page")
    assert_no_script_errors(chrome)


def test_topology_page_shows_components_counting_and_the_graph(dev, chrome):
    """The topology page lists the spout and bolts; the spout's emitted count grows above 0
    as the page refreshes (workers heartbeat their stats); the graph has one node per
    component and the spout's stream into the counting bolt."""
    _nimbus, storm_id, _ = dev
    open_page(chrome, page_url(dev, "topology.html?id=" + storm_id))
    assert chrome.find_element("id", "topology-name").text == "wordcount"
    assert cells(chrome, "spouts-table", "spoutId") == ["word_spout"]
    assert cells(chrome, "bolts-table", "boltId") == ["count_bolt"]

    def spout_emitted(driver):
        driver.find_element("id", "auto-refresh")  # the page is still the topology page
        driver.execute_script("document.body.removeAttribute('data-loaded')")
        driver.refresh()
        open_page(driver, driver.current_url)
        return number(cells(driver, "spouts-table", "emitted")[0]) > 0
    browser.wait_for(chrome, spout_emitted, "the spout's emitted count above 0", timeout=120)
    nodes = browser.wait_for(chrome, lambda d: d.find_elements(
        "css selector", "#topology-graph .graph-node"), "the graph's nodes")
    assert sorted(n.get_attribute("data-component") for n in nodes) == [
        "count_bolt", "word_spout"]
    edges = chrome.find_elements("css selector", "#topology-graph .graph-edge")
    assert [(e.get_attribute("data-from"), e.get_attribute("data-to")) for e in edges] == [
        ("word_spout", "count_bolt")]
    window = chrome.find_element("id", "window")
    window.find_element("css selector", "option[value='600']").click()
    browser.wait_for(chrome, lambda d: "window=600" in d.current_url
                     and d.find_element("id", "spouts-window").text == "(10m 0s)",
                     "the 10-minute window")
    browser.screenshot(chrome, "topology")
    assert_no_script_errors(chrome)


def click_action(driver, action, confirm=True):
    """Press the action's button, then Confirm (or Cancel) in its dialog."""
    driver.find_element("id", "action-" + action).click()
    dialog = browser.wait_for(driver, lambda d: d.find_elements("id", "confirm-dialog"),
                              "the confirmation dialog")[0]
    assert dialog.is_displayed()
    driver.find_element("id", "dialog-confirm" if confirm else "dialog-cancel").click()
    browser.wait_for(driver, lambda d: not d.find_elements("id", "confirm-dialog"),
                     "the dialog to close")


def shown_status(driver):
    return driver.find_element("css selector", "#topology-status .status").text


def test_deactivate_and_activate_through_the_confirmation_dialog(dev, chrome):
    """Deactivate asks first (cancelling changes nothing), then deactivates: the page and
    Nimbus say INACTIVE; Activate brings it back to ACTIVE."""
    nimbus, storm_id, _ = dev

    def nimbus_status():
        return thrift(nimbus, "getTopologyInfo", storm_id).status

    open_page(chrome, page_url(dev, "topology.html?id=" + storm_id))
    assert shown_status(chrome) == "ACTIVE"
    assert chrome.find_element("id", "action-activate").get_attribute("disabled")
    click_action(chrome, "deactivate", confirm=False)
    assert nimbus_status() == "ACTIVE" and shown_status(chrome) == "ACTIVE"
    chrome.find_element("id", "action-deactivate").click()
    browser.wait_for(chrome, lambda d: d.find_elements("id", "confirm-dialog"), "the dialog")
    browser.screenshot(chrome, "topology-confirm-dialog")
    chrome.find_element("id", "dialog-confirm").click()
    browser.wait_for(chrome, lambda d: shown_status(d) == "INACTIVE", "INACTIVE on the page")
    assert nimbus_status() == "INACTIVE"
    assert not chrome.find_element("id", "action-activate").get_attribute("disabled")
    click_action(chrome, "activate")
    browser.wait_for(chrome, lambda d: shown_status(d) == "ACTIVE", "ACTIVE on the page")
    assert nimbus_status() == "ACTIVE"
    assert_no_script_errors(chrome)


def test_component_page_shows_executors_and_worker_log_links(dev, chrome):
    """From the topology page to the counting bolt's page: its window stats, its input from
    the spout, its executors (as Nimbus has them), each with the API's worker log link on
    the logviewer."""
    nimbus, storm_id, logviewer_port = dev
    open_page(chrome, page_url(dev, "topology.html?id=" + storm_id))
    chrome.find_element("css selector", "#bolts-table td[data-col=boltId] a").click()
    browser.wait_for(chrome, lambda d: "component.html" in d.current_url
                     and d.find_element("css selector", "body").get_attribute("data-loaded"),
                     "the component page")
    assert chrome.find_element("id", "component-name").text == "count_bolt"
    assert chrome.find_element("id", "component-type").text == "Bolt"
    windows = cells(chrome, "window-stats-table", "window")
    assert "All time" in windows and len(windows) == 4, windows
    browser.wait_for(chrome, lambda d: cells(d, "input-stats-table", "component") == [
        "word_spout"] or d.refresh() or open_page(d, d.current_url),
        "the bolt's input from the spout", timeout=120)
    page = thrift(nimbus, "getComponentPageInfo", storm_id, "count_bolt", ":all-time", False)
    assert sorted(cells(chrome, "executors-table", "id")) == sorted(
        "[%d-%d]" % (e.exec_summary.executor_info.task_start,
                     e.exec_summary.executor_info.task_end) for e in page.exec_stats)
    links = chrome.find_elements("css selector", "#executors-table td[data-col=workerLogLink] a")
    expected = {"http://%s:%d/log?file=%s%%2F%d%%2Fworker.log" % (
        e.exec_summary.host, logviewer_port, storm_id, e.exec_summary.port)
        for e in page.exec_stats}
    assert links and {a.get_attribute("href") for a in links} == expected
    browser.screenshot(chrome, "component")
    assert_no_script_errors(chrome)


def test_an_api_error_is_shown_to_the_user(dev, chrome):
    """A topology Nimbus does not know: the page shows the API's error and Nimbus's
    message."""
    chrome.get(page_url(dev, "topology.html?id=nope-1-1"))
    banner = browser.wait_for(chrome, lambda d: [
        b for b in d.find_elements("id", "error-banner") if b.is_displayed()], "the error")[0]
    assert "500 Server Error" in banner.text and "NotAliveException" in banner.text
    browser.screenshot(chrome, "topology-error")
