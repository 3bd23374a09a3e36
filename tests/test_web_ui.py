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
from urllib.parse import urlsplit

import pytest

import browser
from conftest import poll_until
from nimbus_process import LOOPBACK, NimbusProcess, free_port
from pynimbus.generated.storm.ttypes import KillOptions, NotAliveException
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
    assert {"index.html", "topology.html", "component.html", "supervisor.html", "app.js",
            "graph.js", "style.css"} <= set(shipped)
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


def test_without_chromium_browser_tests_skip_unless_a_browser_is_expected(monkeypatch):
    """A missing Chromium skips with the package to install; with
    PYNIMBUS_EXPECT_BROWSER=1 (CI) it fails instead."""
    monkeypatch.setattr(browser, "CHROMIUM", "/nonexistent/chromium")
    monkeypatch.delenv("PYNIMBUS_EXPECT_BROWSER", raising=False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install chromium"):
        browser.require_browser()
    monkeypatch.setenv("PYNIMBUS_EXPECT_BROWSER", "1")
    with pytest.raises(pytest.fail.Exception, match="PYNIMBUS_EXPECT_BROWSER=1 but"):
        browser.require_browser()


# -- in a browser


@pytest.fixture(scope="module")
def chrome(tmp_path_factory):
    browser.require_browser()
    with browser.chromium(tmp_path_factory.mktemp("chromium-profile")) as driver:
        yield driver


def test_a_page_without_its_parameters_says_how_to_open_it(bare_ui, chrome):
    """topology.html without an id and component.html without its ids tell the user where
    to open them from."""
    base = "http://%s:%d/" % (LOOPBACK, bare_ui.port)
    for path, hint in (("topology.html", "topology.html?id=<id>"),
                       ("component.html?topology_id=x", "topology_id=<id>&id=<c>"),
                       ("supervisor.html", "supervisor.html?id=<id> or ?host=<host>")):
        chrome.get(base + path)
        browser.wait_for(chrome, lambda d: d.find_element("id", "error-banner").is_displayed(),
                         "the error on " + path)
        assert hint in text(chrome, "#error-banner .error-summary")


GRAPH_CASES = [
    # a diamond: the join sits after the longer branch
    ([("s", "a"), ("a", "b"), ("s", "b"), ("b", "c")], {"s": 0, "a": 1, "b": 2, "c": 3}),
    # a cycle (b feeds a back) and a self loop stay within as many layers as nodes
    ([("s", "a"), ("a", "b"), ("b", "a"), ("b", "b")], {"s": 0, "a": 2, "b": 2}),
    # two spouts into one bolt
    ([("s1", "j"), ("s2", "j")], {"s1": 0, "s2": 0, "j": 1}),
]


@pytest.mark.parametrize("edges, layers", GRAPH_CASES)
def test_graph_layers_follow_the_streams(bare_ui, chrome, edges, layers):
    """graph.js puts each component one layer after its furthest input (a cycle is cut
    after as many rounds as there are nodes), and draws one box per component and one arrow
    per pair, leaving out streams from components it does not know."""
    chrome.get("http://%s:%d/topology.html" % (LOOPBACK, bare_ui.port))
    nodes = [{"id": n, "type": "bolt" if i else "spout", "link": "#"}
             for i, n in enumerate(sorted(layers))]
    arrows = [{"from": a, "to": b, "stream": "default"} for a, b in edges]
    assert chrome.execute_script("return Graph.layerOf(arguments[0], arguments[1])",
                                 nodes, arrows) == layers
    drawn = chrome.execute_script(
        "var svg = Graph.draw(arguments[0], arguments[1]);"
        "return [svg.querySelectorAll('.graph-node').length,"
        "        svg.querySelectorAll('.graph-edge').length];",
        nodes, arrows + [{"from": "gone", "to": nodes[0]["id"], "stream": "default"}])
    assert drawn == [len(layers), len(set(edges))]


# -- in a browser, on pynimbus dev running the word count


@pytest.fixture(scope="module")
def dev(tmp_path_factory):
    """``pynimbus dev`` with its supervisor, UI and logviewer, running the quickstart word
    count."""
    browser.require_browser()
    local = tmp_path_factory.mktemp("web-ui-dev")
    nimbus = NimbusProcess(local, dev_supervisor=True, ui=True, logviewer=True, options=[
        "supervisor.slots.ports=[%d, %d]" % (free_port(), free_port())])
    nimbus.start(timeout=60)
    try:
        storm_id = submit_quickstart(nimbus, tmp_path_factory.mktemp("web-ui-project"))
        yield nimbus, storm_id, nimbus.logviewer_port
    finally:
        try:
            thrift(nimbus, "killTopologyWithOpts", "wordcount", KillOptions(wait_secs=0))
        except NotAliveException:
            pass  # the kill test killed it
        finally:
            nimbus.stop()


def page_url(dev, path):
    nimbus = dev[0]
    return "http://%s:%d/%s" % (LOOPBACK, nimbus.ui_port, path)


# The pages refresh themselves every 10 s, replacing their tables: reads go through one
# script (atomic in the page) and clicks retry on an element the refresh replaced.

def texts(driver, css):
    """The text of every element matching ``css``, read at once."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0]), e => e.textContent)", css)


def text(driver, css):
    found = texts(driver, css)
    return found[0] if found else None


def attributes(driver, css, name):
    """Attribute ``name`` of every element matching ``css``, read at once."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0]), "
        "e => e.getAttribute(arguments[1]))", css, name)


def click(driver, css):
    """Click the element matching ``css`` (again if a refresh replaced it meanwhile)."""
    from selenium.common.exceptions import (
        NoSuchElementException, StaleElementReferenceException)

    def clicked(d):
        try:
            d.find_element("css selector", css).click()
            return True
        except (StaleElementReferenceException, NoSuchElementException):
            return False
    browser.wait_for(driver, clicked, "a click on " + css)


def open_page(driver, url):
    """Load ``url`` and wait until its first load from the API finished."""
    driver.get(url)
    browser.wait_for(driver, lambda d: attributes(d, "body", "data-loaded") == ["true"],
                     "the first load of " + url)


def cells(driver, table_id, column):
    """The texts of ``column`` (a ``data-col``) in the table ``table_id``."""
    return texts(driver, "#%s td[data-col='%s']" % (table_id, column))


def worker_log_url(host, logviewer_port, storm_id, port):
    """The logviewer's page of a worker's log, as Storm's UI links it."""
    return "http://%s:%d/log?file=%s%%2F%d%%2Fworker.log" % (host, logviewer_port, storm_id,
                                                             port)


def number(value):
    return int(value.replace(",", "") or 0)


def assert_no_script_errors(driver):
    assert browser.script_errors(driver) == []


def test_cluster_page_lists_the_running_topology(dev, chrome):
    """The cluster page shows the summaries, and the word count in the topology table, its
    name linking to its topology page; Nimbus's configuration opens on demand."""
    nimbus, storm_id, _ = dev
    open_page(chrome, page_url(dev, ""))
    assert text(chrome, "#cluster-facts [data-fact=topologies] dd") == "1"
    assert cells(chrome, "topology-table", "status") == ["ACTIVE"]
    assert cells(chrome, "topology-table", "id") == [storm_id]
    [supervisor] = thrift(nimbus, "getClusterInfo").supervisors
    assert cells(chrome, "supervisor-table", "id") == [supervisor.supervisor_id]
    assert cells(chrome, "nimbus-table", "status") == ["Leader"]
    browser.screenshot(chrome, "cluster")
    click(chrome, "#nimbus-configuration summary")
    browser.wait_for(chrome, lambda d: cells(d, "configuration-table", "key"),
                     "Nimbus's configuration")
    keys = cells(chrome, "configuration-table", "key")
    assert "nimbus.thrift.port" in keys and keys == sorted(keys)
    chrome.find_element("css selector", "#nimbus-configuration .config-filter").send_keys(
        "THRIFT.PORT")
    assert cells(chrome, "configuration-table", "key") == [
        k for k in keys if "thrift.port" in k]
    assert cells(chrome, "configuration-table", "value")[
        cells(chrome, "configuration-table", "key").index("nimbus.thrift.port")] == str(
            nimbus.port)
    assert cells(chrome, "topology-table", "name") == ["wordcount"]
    click(chrome, "#topology-table td[data-col=name] a")
    browser.wait_for(chrome, lambda d: d.current_url.endswith("topology.html?id=" + storm_id),
                     "the topology page")
    assert_no_script_errors(chrome)


def test_the_supervisor_page_shows_the_supervisor_and_its_workers(dev, chrome):
    """The cluster page's supervisor id opens its page: the supervisor with its slots, and
    the workers it runs (as Nimbus's getSupervisorPageInfo has them), each with its topology
    and its log."""
    nimbus, storm_id, logviewer_port = dev
    [supervisor] = thrift(nimbus, "getClusterInfo").supervisors
    open_page(chrome, page_url(dev, ""))
    click(chrome, "#supervisor-table td[data-col=id] a")
    browser.wait_for(chrome, lambda d: "supervisor.html" in d.current_url
                     and attributes(d, "body", "data-loaded") == ["true"],
                     "the supervisor page")
    assert text(chrome, "#supervisor-name") == supervisor.supervisor_id
    assert cells(chrome, "supervisor-table", "slotsTotal") == [str(supervisor.num_workers)]
    browser.wait_for(chrome, lambda d: cells(d, "workers-table", "topologyName"),
                     "the word count's worker", timeout=120)
    page = thrift(nimbus, "getSupervisorPageInfo", supervisor.supervisor_id, None, False)
    assert sorted(cells(chrome, "workers-table", "port")) == sorted(
        str(w.port) for w in page.worker_summaries)
    assert set(cells(chrome, "workers-table", "topologyName")) == {"wordcount"}
    assert set(attributes(chrome, "#workers-table td[data-col=workerLogLink] a", "href")) == {
        worker_log_url(w.host, logviewer_port, storm_id, w.port)
        for w in page.worker_summaries}
    browser.screenshot(chrome, "supervisor")
    assert_no_script_errors(chrome)
    click(chrome, "#workers-table td[data-col=topologyName] a")
    browser.wait_for(chrome, lambda d: d.current_url.endswith("topology.html?id=" + storm_id),
                     "the topology page")


def test_topology_page_shows_components_counting_and_the_graph(dev, chrome):
    """The topology page lists the spout and bolt; the spout's emitted count is above 0 (the
    page refreshes itself as workers heartbeat their stats); the graph has one node per
    component and the spout's stream into the counting bolt; the workers table has each
    worker's log link; the window and the system components are chosen on the page."""
    nimbus, storm_id, logviewer_port = dev
    open_page(chrome, page_url(dev, "topology.html?id=" + storm_id))
    assert text(chrome, "#topology-name") == "wordcount"
    assert cells(chrome, "spouts-table", "spoutId") == ["word_spout"]
    assert cells(chrome, "bolts-table", "boltId") == ["count_bolt"]
    browser.wait_for(chrome, lambda d: number(cells(d, "spouts-table", "emitted")[0]) > 0,
                     "the spout's emitted count above 0", timeout=120)
    loads = int(attributes(chrome, "body", "data-loads")[0])
    browser.wait_for(chrome, lambda d: int(attributes(d, "body", "data-loads")[0]) > loads,
                     "an automatic refresh", timeout=30)
    browser.wait_for(chrome, lambda d: texts(d, "#topology-graph .graph-node"),
                     "the graph's nodes")
    assert sorted(attributes(chrome, "#topology-graph .graph-node", "data-component")) == [
        "count_bolt", "word_spout"]
    assert attributes(chrome, "#topology-graph .graph-node.bolt", "href") == [
        "component.html?topology_id=%s&id=count_bolt" % storm_id]
    assert list(zip(attributes(chrome, "#topology-graph .graph-edge", "data-from"),
                    attributes(chrome, "#topology-graph .graph-edge", "data-to"))) == [
        ("word_spout", "count_bolt")]
    workers = thrift(nimbus, "getTopologyPageInfo", storm_id, ":all-time", False).workers
    assert cells(chrome, "workers-table", "port") == [str(w.port) for w in workers]
    assert attributes(chrome, "#workers-table td[data-col=workerLogLink] a", "href") == [
        worker_log_url(w.host, logviewer_port, storm_id, w.port) for w in workers]
    click(chrome, "#window option[value='600']")
    browser.wait_for(chrome, lambda d: d.current_url.endswith("window=600")
                     and text(d, "#spouts-window") == "(10m 0s)", "the 10-minute window")
    browser.screenshot(chrome, "topology")
    show_system_components(chrome, True)
    browser.wait_for(chrome, lambda d: "__acker" in cells(d, "bolts-table", "boltId"),
                     "the acker among the bolts")
    show_system_components(chrome, False)
    browser.wait_for(chrome, lambda d: cells(d, "bolts-table", "boltId") == ["count_bolt"],
                     "the system bolts hidden again")
    assert_no_script_errors(chrome)


def show_system_components(driver, show):
    if driver.find_element("id", "show-sys").is_selected() != show:
        click(driver, "#show-sys")


def click_action(driver, action, confirm=True, **fields):
    """Press the action's button, fill the dialog's ``fields``, then Confirm (or Cancel)."""
    click_and_answer(driver, "#action-" + action, confirm, **fields)


def click_and_answer(driver, button, confirm=True, **fields):
    """Press ``button``, fill the dialog's ``fields``, then Confirm (or Cancel)."""
    click(driver, button)
    browser.wait_for(driver, lambda d: d.find_elements("id", "confirm-dialog"),
                     "the confirmation dialog")
    assert driver.find_element("id", "confirm-dialog").is_displayed()
    for name, value in fields.items():
        field = driver.find_element("css selector", "#confirm-dialog input[name=%s]" % name)
        field.clear()
        field.send_keys(str(value))
    click(driver, "#dialog-confirm" if confirm else "#dialog-cancel")
    browser.wait_for(driver, lambda d: not d.find_elements("id", "confirm-dialog"),
                     "the dialog to close")


def shown_status(driver):
    return text(driver, "#topology-status .status")


def test_deactivate_and_activate_through_the_confirmation_dialog(dev, chrome):
    """Deactivate asks first (cancelling changes nothing), then deactivates: the page and
    Nimbus say INACTIVE; Activate brings it back to ACTIVE."""
    nimbus, storm_id, _ = dev

    def nimbus_status():
        return thrift(nimbus, "getTopologyInfo", storm_id).status

    open_page(chrome, page_url(dev, "topology.html?id=" + storm_id))
    assert shown_status(chrome) == "ACTIVE"
    assert attributes(chrome, "#action-activate", "disabled") == [""]
    click_action(chrome, "deactivate", confirm=False)
    assert nimbus_status() == "ACTIVE" and shown_status(chrome) == "ACTIVE"
    click(chrome, "#action-deactivate")
    browser.wait_for(chrome, lambda d: d.find_elements("id", "confirm-dialog"), "the dialog")
    browser.screenshot(chrome, "topology-confirm-dialog")
    click(chrome, "#dialog-confirm")
    browser.wait_for(chrome, lambda d: shown_status(d) == "INACTIVE", "INACTIVE on the page")
    assert nimbus_status() == "INACTIVE"
    assert attributes(chrome, "#action-activate", "disabled") == [None]
    click_action(chrome, "activate")
    browser.wait_for(chrome, lambda d: shown_status(d) == "ACTIVE", "ACTIVE on the page")
    assert nimbus_status() == "ACTIVE"
    assert_no_script_errors(chrome)


def debug_fact(driver):
    return text(driver, "#topology-facts [data-fact=debug] dd")


def test_debug_with_a_sampling_percentage_through_the_dialog(dev, chrome):
    """Debug asks for the sampling percentage and turns debugging on at that rate for the
    topology (as Nimbus records it); Stop debug turns it off."""
    nimbus, storm_id, _ = dev

    def nimbus_debug():
        return thrift(nimbus, "getTopologyInfo", storm_id).component_debug.get(storm_id)

    open_page(chrome, page_url(dev, "topology.html?id=" + storm_id))
    assert debug_fact(chrome) == "off"
    click_action(chrome, "debug-enable", pct=25)
    browser.wait_for(chrome, lambda d: debug_fact(d) == "on, sampling 25 %", "debug on")
    assert (nimbus_debug().enable, nimbus_debug().samplingpct) == (True, 25.0)
    click_action(chrome, "debug-disable")
    browser.wait_for(chrome, lambda d: debug_fact(d) == "off", "debug off")
    assert not nimbus_debug().enable
    assert_no_script_errors(chrome)


def worker_logs(nimbus, storm_id):
    """The text of the topology's worker logs on dev."""
    import glob
    text = ""
    for path in sorted(glob.glob(os.path.join(nimbus.local_dir, "logs", "workers-artifacts",
                                              storm_id, "*", "worker.log"))):
        with open(path, encoding="utf-8", errors="replace") as f:
            text += f.read()
    return text


def test_a_log_level_set_and_cleared_from_the_topology_page(dev, chrome):
    """The log-level form sets a logger's level for a time, as Nimbus then stores it, and
    the workers take it (their log says so); the row's Clear removes it and the workers go
    back."""
    from selenium.webdriver.support.ui import Select

    nimbus, storm_id, _ = dev
    open_page(chrome, page_url(dev, "topology.html?id=" + storm_id))
    assert cells(chrome, "log-levels-table", "logger") == []
    logger = chrome.find_element("css selector", "#log-level-form input[name=logger]")
    logger.clear()
    logger.send_keys("pynimbus.worker")
    Select(chrome.find_element("css selector", "#log-level-form select")).select_by_value(
        "TRACE")
    timeout = chrome.find_element("css selector", "#log-level-form input[name=timeout]")
    timeout.clear()
    timeout.send_keys("600")
    click(chrome, "#log-level-apply")
    browser.wait_for(chrome, lambda d: cells(d, "log-levels-table", "logger") == [
        "pynimbus.worker"], "the logger in the table")
    assert cells(chrome, "log-levels-table", "target_level") == ["TRACE"]
    stored = thrift(nimbus, "getLogConfig", storm_id).named_logger_level["pynimbus.worker"]
    assert (stored.target_log_level, stored.reset_log_level_timeout_secs) == ("TRACE", 600)
    poll_until(lambda: "pynimbus.worker: setting log level to TRACE" in worker_logs(
        nimbus, storm_id), timeout=60, what="the worker taking the level")
    browser.screenshot(chrome, "topology-log-levels")
    click(chrome, "#log-levels-table button[data-clear='pynimbus.worker']")
    browser.wait_for(chrome, lambda d: cells(d, "log-levels-table", "logger") == [],
                     "the logger cleared")
    assert "pynimbus.worker" not in (
        thrift(nimbus, "getLogConfig", storm_id).named_logger_level or {})
    poll_until(lambda: "pynimbus.worker: setting log level to INFO" in worker_logs(
        nimbus, storm_id), timeout=60, what="the worker going back to INFO")
    assert_no_script_errors(chrome)


def test_a_workers_jstack_through_the_dialog_is_listed_on_its_dumps_page(dev, chrome):
    """A worker row's JStack asks first; confirmed, the worker's supervisor has it write its
    thread dump, which the row's Dumps link (the logviewer's /dumps page) lists."""
    nimbus, storm_id, logviewer_port = dev
    open_page(chrome, page_url(dev, "topology.html?id=" + storm_id))
    browser.wait_for(chrome, lambda d: attributes(d, "#workers-table a.dumps-link", "href"),
                     "the workers' rows", timeout=120)
    worker = attributes(chrome, "#workers-table button[data-profile=dumpjstack]",
                        "data-worker")[0]
    [dumps] = [href for href in attributes(chrome, "#workers-table a.dumps-link", "href")
               if href.endswith("/" + worker)]
    assert dumps == "http://%s:%d/dumps/%s/%s" % (worker.split(":")[0], logviewer_port,
                                                  storm_id, worker)
    button = "#workers-table button[data-profile=dumpjstack][data-worker='%s']" % worker
    click_and_answer(chrome, button, confirm=False)
    click_and_answer(chrome, button)
    browser.wait_for(chrome, lambda d: (text(d, "#notice") or "").startswith(
        "JStack (%s): ok" % worker), "the request's answer")
    browser.screenshot(chrome, "topology-worker-profiling")
    assert_no_script_errors(chrome)

    def jstack_listed(d):
        d.get(dumps)
        return attributes(d, "li a[href*='/jstack-']", "href")
    browser.wait_for(chrome, jstack_listed, "the thread dump on the Dumps page", timeout=60)
    browser.screenshot(chrome, "worker-dumps")
    href = attributes(chrome, "li a[href*='/jstack-']", "href")[0]
    status, _headers, body = raw_get(logviewer_port, urlsplit(href).path)
    assert status == 200 and body.startswith(b"Python thread dump of worker pid ")


def test_component_page_shows_executors_and_worker_log_links(dev, chrome):
    """From the topology page to the counting bolt's page: its window stats, its input from
    the spout, its executors (as Nimbus has them), each with the API's worker log link on
    the logviewer."""
    nimbus, storm_id, logviewer_port = dev
    open_page(chrome, page_url(dev, "topology.html?id=" + storm_id))
    click(chrome, "#bolts-table td[data-col=boltId] a")
    browser.wait_for(chrome, lambda d: "component.html" in d.current_url
                     and attributes(d, "body", "data-loaded") == ["true"], "the component page")
    assert text(chrome, "#component-name") == "count_bolt"
    assert text(chrome, "#component-type") == "Bolt"
    # the windows and the input come with the workers' first heartbeat (the page refreshes)
    browser.wait_for(chrome, lambda d: cells(d, "window-stats-table", "window") == [
        "10m 0s", "3h 0m 0s", "1d 0h 0m 0s", "All time"], "the bolt's windows", timeout=120)
    browser.wait_for(chrome, lambda d: cells(d, "input-stats-table", "component") == [
        "word_spout"], "the bolt's input from the spout", timeout=120)
    page = thrift(nimbus, "getComponentPageInfo", storm_id, "count_bolt", ":all-time", False)
    assert sorted(cells(chrome, "executors-table", "id")) == sorted(
        "[%d-%d]" % (e.exec_summary.executor_info.task_start,
                     e.exec_summary.executor_info.task_end) for e in page.exec_stats)
    assert sorted(cells(chrome, "executors-table", "port")) == sorted(
        str(e.exec_summary.port) for e in page.exec_stats)
    links = attributes(chrome, "#executors-table td[data-col=workerLogLink] a", "href")
    expected = {worker_log_url(e.exec_summary.host, logviewer_port, storm_id,
                               e.exec_summary.port) for e in page.exec_stats}
    assert links and set(links) == expected
    browser.screenshot(chrome, "component")
    assert_no_script_errors(chrome)
    chrome.get(links[0])  # the logviewer's page of that worker's log
    browser.wait_for(chrome, lambda d: d.find_elements("id", "logContent"), "the worker log")
    assert chrome.title.endswith("worker.log - Storm Log Viewer"), chrome.title
    assert text(chrome, "h3").startswith(storm_id + "/")
    browser.wait_for(chrome, lambda d: text(d, "#logContent").strip(),
                     "the worker log's lines")
    browser.screenshot(chrome, "worker-log")
    assert browser.script_errors(chrome) == []  # its stylesheet and all it names are there
    # the log page's search form opens the logviewer's search page with the file's matches
    word = text(chrome, "#logContent").split()[-1]
    chrome.find_element("css selector", "#search-box input[name=search]").send_keys(word)
    chrome.find_element("css selector", "#search-box input[type=submit]").click()
    browser.wait_for(chrome, lambda d: d.find_elements("css selector", "#matches tbody tr"),
                     "the search page's matches")
    assert text(chrome, "#status").startswith(("1 match", "2 match", "3 match")) or \
        "matches of" in text(chrome, "#status")
    assert word in text(chrome, "#matches tbody tr mark")
    browser.screenshot(chrome, "worker-log-search")
    assert browser.script_errors(chrome) == []


def report_error(nimbus, storm_id, component_id, host, port, error):
    """Report a component's error in dev's store, as a worker's executor reports one."""
    from pynimbus.cluster import StormClusterState, make_backend
    from pynimbus.common.config import default_config

    conf = dict(default_config(), **{"storm.local.dir": nimbus.local_dir})
    backend = make_backend(conf)
    try:
        StormClusterState(backend).report_error(storm_id, component_id, host, port, error)
    finally:
        backend.close()


def test_a_components_errors_show_with_their_time_and_worker_log(dev, chrome):
    """An error the counting bolt reports shows as the bolt's last error on the topology
    page, and on its component page with its time, its worker (linking to the worker's log)
    and its whole text, as text."""
    nimbus, storm_id, logviewer_port = dev
    [worker] = thrift(nimbus, "getTopologyPageInfo", storm_id, ":all-time", False).workers
    error = "java.lang.RuntimeException: <b>no markup</b> here\n\tat count_bolt.process"
    report_error(nimbus, storm_id, "count_bolt", worker.host, worker.port, error)
    open_page(chrome, page_url(dev, "topology.html?id=" + storm_id))
    browser.wait_for(chrome, lambda d: cells(d, "bolts-table", "lastError") == [
        "java.lang.RuntimeException: <b>no markup</b> here %s:%d" % (worker.host, worker.port)],
        "the bolt's last error", timeout=30)
    open_page(chrome, page_url(dev, "component.html?topology_id=%s&id=count_bolt" % storm_id))
    assert cells(chrome, "errors-table", "error") == [error]
    assert cells(chrome, "errors-table", "errorHost") == ["%s:%d" % (worker.host, worker.port)]
    assert attributes(chrome, "#errors-table td[data-col=errorHost] a", "href") == [
        worker_log_url(worker.host, logviewer_port, storm_id, worker.port)]
    assert cells(chrome, "errors-table", "errorTime")[0]  # a date, in the browser's zone
    assert not texts(chrome, "#errors-table b")
    browser.screenshot(chrome, "component-errors")
    assert_no_script_errors(chrome)


def test_an_api_error_is_shown_to_the_user(dev, chrome):
    """A topology Nimbus does not know: the page shows the API's error and Nimbus's
    message."""
    chrome.get(page_url(dev, "topology.html?id=nope-1-1"))
    browser.wait_for(chrome, lambda d: d.find_element("id", "error-banner").is_displayed(),
                     "the error")
    assert text(chrome, "#error-banner strong").startswith("500 Server Error")
    assert "NotAliveException" in text(chrome, "#error-banner .error-summary")
    browser.screenshot(chrome, "topology-error")
    failed_loads = browser.script_errors(chrome)  # the console's record of the 500s
    assert failed_loads and all("/api/v1/topology/nope-1-1" in e and "status of 500" in e
                                for e in failed_loads), failed_loads


def test_with_anti_forgery_tokens_the_actions_send_the_sessions_token(dev, chrome,
                                                                      tmp_path):
    """A UI with ``pynimbus.ui.anti.forgery`` refuses a POST without the token, yet its
    page's Deactivate and Activate work: the page sends its session's token."""
    nimbus, storm_id, _ = dev
    ui = UIProcess(tmp_path, nimbus.port, options=["pynimbus.ui.anti.forgery=true"])
    try:
        ui.wait_serving()
        base = "/api/v1/topology/%s/" % storm_id
        assert ui.post(base + "deactivate")[0] == 403
        open_page(chrome, "http://%s:%d/topology.html?id=%s" % (LOOPBACK, ui.port, storm_id))
        click_action(chrome, "deactivate")
        browser.wait_for(chrome, lambda d: shown_status(d) == "INACTIVE", "INACTIVE")
        assert thrift(nimbus, "getTopologyInfo", storm_id).status == "INACTIVE"
        click_action(chrome, "activate")
        browser.wait_for(chrome, lambda d: shown_status(d) == "ACTIVE", "ACTIVE")
        assert thrift(nimbus, "getTopologyInfo", storm_id).status == "ACTIVE"
        assert_no_script_errors(chrome)
    finally:
        ui.stop()


def test_rebalance_then_kill_with_wait_times_through_the_dialog(dev, chrome):
    """Rebalance with a 30 s wait leaves the topology REBALANCING; Kill with no wait goes
    back to the cluster page, which no longer lists it once Nimbus removed it.  (The last
    test: it ends the topology.)"""
    nimbus, storm_id, _ = dev
    open_page(chrome, page_url(dev, "topology.html?id=" + storm_id))
    click_action(chrome, "rebalance", wait=30)
    browser.wait_for(chrome, lambda d: shown_status(d) == "REBALANCING", "REBALANCING")
    assert thrift(nimbus, "getTopologyInfo", storm_id).status == "REBALANCING"
    click_action(chrome, "kill", wait=0)
    browser.wait_for(chrome, lambda d: d.current_url == page_url(dev, ""),
                     "the cluster page after the kill")
    poll_until(lambda: storm_id not in {t.id for t in thrift(
        nimbus, "getClusterInfo").topologies}, timeout=60, what="the topology's removal")
    open_page(chrome, page_url(dev, ""))
    assert texts(chrome, "#topology-table tr.empty td") == ["No topology is running."]
    assert_no_script_errors(chrome)
