"""``pynimbus logviewer`` as a process, over HTTP, on a log root of real files: Storm's
routes and JSON answers, traversal attempts of every kind refused, and log users checked
when ``ui.filter`` is set."""

import gzip
import json
import os

import pytest
import yaml

from logviewer_process import LogviewerProcess

TOPOLOGY = "wc-1-1700000000"


def write_logs(log_dir):
    """A worker with a live log, a rotated plain log and a gzipped one; a daemon log; a
    secret beside the log root, and a symlink to it inside."""
    port_dir = log_dir / "workers-artifacts" / TOPOLOGY / "6700"
    port_dir.mkdir(parents=True)
    lines = b"".join(b"2026-12-06 10:00:%02d worker line %d %s\n"
                     % (i % 60, i, b"needle" if i % 50 == 0 else b"hay")
                     for i in range(2000))
    (port_dir / "worker.log").write_bytes(lines)
    (port_dir / "worker.log.1").write_bytes(b"old needle here\n")
    os.utime(str(port_dir / "worker.log.1"), (1_600_000_000, 1_600_000_000))
    with gzip.open(str(port_dir / "worker.log.2.gz"), "wb") as f:
        f.write(b"older gzipped needle line\n" * 10)
    os.utime(str(port_dir / "worker.log.2.gz"), (1_500_000_000, 1_500_000_000))
    (port_dir / "worker.yaml").write_text(yaml.safe_dump(
        {"worker-id": "w-1", "logs.users": ["alice"], "logs.groups": []}))
    (port_dir / "heap.bin").write_bytes(b"a heap dump")
    (log_dir / "nimbus.log").write_bytes(b"nimbus started\nneedle in nimbus\n")
    (log_dir.parent / "secret.txt").write_bytes(b"top secret\n")
    os.symlink(str(log_dir.parent / "secret.txt"), str(port_dir / "worker.log.out"))
    os.symlink(str(log_dir.parent / "secret.txt"), str(log_dir / "daemon-link.log"))
    return lines


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("logviewer")
    lines = write_logs(tmp / "logs")
    viewer = LogviewerProcess(tmp, tmp / "logs",
                              options=["supervisor.slots.ports=[6700, 6701]"])
    try:
        viewer.wait_serving()
        yield viewer, lines
    finally:
        viewer.stop()


FILE = TOPOLOGY + "%2F6700%2Fworker.log"


def test_a_page_of_a_worker_log_with_storms_pager(served):
    """``/log``: the last 51200 bytes by default; ``start``/``length`` a page, with Prev,
    First, Last and Next links, the download link and the topology's other files."""
    viewer, lines = served
    status, headers, body = viewer.get("/log?file=%s&start=100&length=50" % FILE)
    text = body.decode("utf-8")
    assert status == 200 and headers["content-type"].startswith("text/html")
    assert lines[100:150].decode() in text
    assert "start=50&amp;length=50\">Prev" in text.replace(
        'class="btn btn-default enabled" ', "")
    assert "start=150&amp;length=50" in text and ">Last<" in text and ">First<" in text
    assert "/download?file=%s" % FILE in text
    assert TOPOLOGY + "/6700/worker.log.2.gz" in text
    status, _, body = viewer.get("/log?file=%s" % FILE)
    assert lines[-51200:].decode() in body.decode("utf-8")
    status, _, body = viewer.get("/log?file=%s&grep=line+1999" % FILE)
    assert status == 200 and b"worker line 1999 hay" in body and b"line 1998" not in body


def test_the_pages_stylesheet_and_search_page_are_served(served):
    """What the log page names is there: its stylesheet, and the search page its form opens
    (with its script); other names below them are not."""
    viewer, _lines = served
    _status, _headers, page = viewer.get("/log?file=%s" % FILE)
    page = page.decode("utf-8")
    assert 'action="logviewer_search.html"' in page and "/css/style.css" in page
    assert "bootstrap" not in page  # nothing it names is missing
    for path, kind in (("/css/style.css", "text/css"),
                       ("/logviewer_search.html", "text/html"),
                       ("/logviewer_search.js", "text/javascript")):
        status, headers, body = viewer.get(path)
        assert status == 200 and headers["content-type"].startswith(kind) and body, path
    for path in ("/css/logviewer_search.html", "/style.css", "/css/../setup.py",
                 "/logviewer_search.html/x"):
        assert viewer.get(path)[0] == 404, path


def test_a_gzipped_rotated_log_is_shown_as_text(served):
    viewer, _ = served
    status, _, body = viewer.get("/log?file=%s%%2F6700%%2Fworker.log.2.gz&start=0" % TOPOLOGY)
    assert status == 200 and b"older gzipped needle line" in body


def test_bad_page_numbers_are_400_naming_the_parameter(served):
    viewer, _ = served
    status, _, body = viewer.get("/log?file=%s&start=abc" % FILE)
    assert status == 400 and b"'start'" in body
    status, _, body = viewer.get("/log?file=%s&start=99999999" % FILE)
    assert status == 400 and b"past the end" in body


def test_download_daemonlog_and_daemondownload(served):
    viewer, lines = served
    status, headers, body = viewer.get("/download?file=%s" % FILE)
    assert status == 200 and body == lines
    assert headers["content-type"] == "application/octet-stream"
    status, _, body = viewer.get("/daemonlog?file=nimbus.log")
    assert status == 200 and b"needle in nimbus" in body
    status, _, body = viewer.get("/daemondownload/nimbus.log")
    assert status == 200 and body == b"nimbus started\nneedle in nimbus\n"
    status, _, body = viewer.get("/api/v1/daemondownload?file=nimbus.log")
    assert status == 200 and body == b"nimbus started\nneedle in nimbus\n"


def test_profiler_dumps_are_listed_and_served(served):
    """``/dumps/<topology>/<host:port>`` lists the worker's ``.txt``/``.jfr``/``.bin`` files
    and serves each."""
    viewer, _ = served
    status, _, body = viewer.get("/dumps/%s/localhost:6700" % TOPOLOGY)
    assert status == 200 and b'href="/dumps/%s/localhost:6700/heap.bin"' % TOPOLOGY.encode() \
        in body and b"worker.log" not in body
    status, _, body = viewer.get("/dumps/%s/localhost:6700/heap.bin" % TOPOLOGY)
    assert status == 200 and body == b"a heap dump"
    assert viewer.get("/dumps/%s/localhost:6799" % TOPOLOGY)[0] == 404


def test_search_answers_storms_json(served):
    """``/search/<file>``: Storm's fields, offsets of the file's matches, the next offset,
    JSONP with ``callback`` and CORS headers for an ``Origin``."""
    viewer, lines = served
    status, headers, body = viewer.get(
        "/search/%s?search-string=needle&num-matches=3" % FILE,
        headers={"Origin": "http://ui.example"})
    answer = json.loads(body)
    first = [i for i in range(len(lines)) if lines.startswith(b"needle", i)][:3]
    assert status == 200 and headers["access-control-allow-origin"] == "http://ui.example"
    assert (answer["searchString"], answer["startByteOffset"], answer["isDaemon"]) == (
        "needle", 0, "no")
    assert [m["byteOffset"] for m in answer["matches"]] == first
    assert answer["nextByteOffset"] == first[-1] + 6
    match = answer["matches"][0]
    assert match["afterString"] == lines[first[0] + 6:first[0] + 134].decode()
    assert match["logviewerURL"].endswith("/log?file=%s&start=0&length=51200" % FILE)
    status, headers, body = viewer.get(
        "/search/%s?search-string=needle&callback=cb" % FILE)
    assert body.startswith(b"cb(") and headers["content-type"].startswith(
        "application/javascript")
    answer = viewer.json("/search/nimbus.log?search-string=needle&is-daemon=yes")
    assert answer["isDaemon"] == "yes" and answer["matches"][0]["byteOffset"] == 15
    answer = viewer.json("/api/v1/search?file=%s&search-string=needle&num-matches=1" % FILE)
    assert [m["byteOffset"] for m in answer["matches"]] == first[:1]


def test_search_failures_answer_as_storm(served):
    viewer, _ = served
    status, _, body = viewer.get("/search/%s?search-string=needle&num-matches=x" % FILE)
    assert status == 400 and "num-matches" in json.loads(body)["errorMessage"]
    status, _, body = viewer.get("/search/%s?search-string=" % FILE)
    assert status == 500 and "between 1 and 1024" in json.loads(body)["errorMessage"]
    status, _, body = viewer.get("/search/%s?search-string=needle&start-byte-offset=%d"
                                 % (FILE, 10 ** 8))
    assert status == 500 and "past the end" in json.loads(body)["errorMessage"]
    status, _, body = viewer.get("/search/nope%2F6700%2Fworker.log?search-string=x")
    assert status == 404 and json.loads(body) == {
        "error": "Not Found", "errorMessage": "The file was not found on this node."}


def test_deep_search_across_ports_and_archives(served):
    """``/deepSearch/<topology>``: the newest log of each port, or all of them with
    ``search-archived``; one port only when it is a slot port."""
    viewer, _ = served
    base = "/deepSearch/%s?search-string=needle&num-matches=100" % TOPOLOGY
    [port] = viewer.json(base + "&port=*")
    assert [f["fileName"] for f in port["matches"]] == [TOPOLOGY + "/6700/worker.log"]
    assert len(port["matches"][0]["matches"]) == 40
    everything = viewer.json(base + "&port=6700&search-archived=on")
    assert [(f["fileName"], f["port"], len(f["matches"])) for f in everything["matches"]] == [
        (TOPOLOGY + "/6700/worker.log", "6700", 40),
        (TOPOLOGY + "/6700/worker.log.1", "6700", 1),
        (TOPOLOGY + "/6700/worker.log.2.gz", "6700", 10)]
    skipped = viewer.json(base + "&port=6700&search-archived=on&start-file-offset=1")
    assert [f["fileName"] for f in skipped["matches"]][0] == TOPOLOGY + "/6700/worker.log.1"
    assert viewer.json(base + "&port=9999") == []
    assert viewer.json("/deepSearch/nope-1-1?search-string=needle&num-matches=1") == []
    status, _, body = viewer.get("/deepSearch/%s?search-string=needle" % TOPOLOGY)
    assert status == 400 and "num-matches" in json.loads(body)["errorMessage"]


def test_list_logs_and_search_logs(served):
    viewer, _ = served
    names = [TOPOLOGY + "/6700/" + n for n in
             ("heap.bin", "worker.log", "worker.log.1", "worker.log.2.gz", "worker.yaml")]
    assert viewer.json("/listLogs") == names
    assert viewer.json("/listLogs?topoId=%s&port=6700" % TOPOLOGY) == names
    assert viewer.json("/searchLogs?port=6700") == names
    assert viewer.json("/api/v1/listLogs?topoId=nope") == []


@pytest.mark.parametrize("path", [
    "/log?file=..%2Fnimbus.log", "/log?file=%2Fetc%2Fpasswd",
    "/log?file=%2e%2e%2f%2e%2e%2fsecret.txt", "/log?file=%252e%252e%252fnimbus.log",
    "/log?file=" + TOPOLOGY + "%2F6700%2Fworker.log.out",
    "/log?file=" + TOPOLOGY + "%2F6700%2F..%2F..%2F..%2Fsecret.txt",
    "/log?file=" + TOPOLOGY + "%2F6700%2Fworker.log%2500",
    "/download?file=../../secret.txt", "/download?file=/etc/passwd",
    "/download?file=%252e%252e%252f%252e%252e%252fsecret.txt",
    "/download?file=" + TOPOLOGY + "/6700/worker.log.out",
    "/download?file=" + TOPOLOGY + "/6700/worker.log%00",
    "/daemonlog?file=..%2Fsecret.txt", "/daemonlog?file=daemon-link.log",
    "/daemonlog?file=%2Fetc%2Fpasswd", "/daemondownload/..%2Fsecret.txt",
    "/daemondownload/%252e%252e%252fsecret.txt", "/daemondownload/daemon-link.log",
    "/dumps/" + TOPOLOGY + "/h:6700/..%2F..%2F..%2Fsecret.txt",
    "/dumps/..%2F..%2F/h:6700"])
def test_traversal_attempts_are_not_found(served, path):
    """``../``, absolute names, single and double percent-encoding, NUL and symlinks out
    of the root: 404 "Page not found", nothing of the file."""
    viewer, _ = served
    status, _, body = viewer.get(path)
    assert status == 404 and b"secret" not in body and b"root:" not in body, body


@pytest.mark.parametrize("path", [
    "/search/..%2F..%2Fsecret.txt?search-string=top",
    "/search/%252e%252e%252f%252e%252e%252fsecret.txt?search-string=top",
    "/search/" + TOPOLOGY + "%2F6700%2Fworker.log.out?search-string=top",
    "/search/..%2Fsecret.txt?search-string=top&is-daemon=yes",
    "/search/daemon-link.log?search-string=top&is-daemon=yes",
    "/api/v1/search?file=..%2F..%2Fsecret.txt&search-string=top"])
def test_traversal_searches_are_not_found(served, path):
    viewer, _ = served
    status, _, body = viewer.get(path)
    assert status == 404 and b"top secret" not in body


@pytest.mark.parametrize("path", [
    "/listLogs?topoId=..", "/listLogs?topoId=..%2F..", "/listLogs?topoId=" + TOPOLOGY
    + "&port=..%2F..", "/deepSearch/..?search-string=top&num-matches=1&port=*",
    "/deepSearch/%252e%252e?search-string=top&num-matches=1"])
def test_listings_outside_the_root_are_empty(served, path):
    viewer, _ = served
    status, _, body = viewer.get(path)
    assert status == 200 and json.loads(body) == []


@pytest.fixture(scope="module")
def guarded(tmp_path_factory):
    """A logviewer with ``ui.filter`` set and the user named by an ``X-Remote-User``
    header; ``logs.users`` names carol for the whole cluster."""
    tmp = tmp_path_factory.mktemp("logviewer-auth")
    write_logs(tmp / "logs")
    bare = tmp / "logs" / "workers-artifacts" / "bare-1-1" / "6701"
    bare.mkdir(parents=True)
    (bare / "worker.log").write_bytes(b"no worker.yaml here\n")
    viewer = LogviewerProcess(tmp, tmp / "logs", options=[
        "ui.filter=org.example.AuthFilter", "pynimbus.logviewer.user.header=X-Remote-User",
        'logs.users=["carol"]', "supervisor.slots.ports=[6700]"])
    try:
        viewer.wait_serving()
        yield viewer
    finally:
        viewer.stop()


def as_user(name):
    return {"X-Remote-User": name} if name else {}


@pytest.mark.parametrize("user", ["alice", "carol"])
def test_a_log_user_reads_the_worker_log(guarded, user):
    """alice is in the worker's ``logs.users``, carol in the cluster's."""
    status, _, body = guarded.get("/log?file=%s" % FILE, as_user(user))
    assert status == 200 and b"worker line" in body
    assert guarded.get("/download?file=%s" % FILE, as_user(user))[0] == 200
    assert guarded.get("/search/%s?search-string=needle" % FILE, as_user(user))[0] == 200


@pytest.mark.parametrize("user", ["bob", None])
def test_anyone_else_is_refused(guarded, user):
    """bob, and a request without a user, get Storm's 403 answers; a deep search lists
    nothing of the worker."""
    status, _, body = guarded.get("/log?file=%s" % FILE, as_user(user))
    assert status == 403 and b"is not authorized" in body and b"worker line" not in body
    assert guarded.get("/download?file=%s" % FILE, as_user(user))[0] == 403
    status, _, body = guarded.get("/search/%s?search-string=needle" % FILE, as_user(user))
    assert status == 403 and json.loads(body)["error"] == "No Authorization"
    deep = json.loads(guarded.get("/deepSearch/%s?search-string=needle&num-matches=1&port=*"
                                  % TOPOLOGY, as_user(user))[2])
    assert deep == []


def test_a_worker_without_worker_yaml_is_not_found_for_anyone(guarded):
    status, _, _body = guarded.get("/log?file=bare-1-1%2F6701%2Fworker.log", as_user("carol"))
    assert status == 404


def test_daemon_logs_are_not_checked(guarded):
    """Storm checks log users on worker logs only."""
    assert guarded.get("/daemonlog?file=nimbus.log", as_user("bob"))[0] == 200


def test_a_file_gone_before_its_first_chunk_is_not_found(tmp_path):
    """A download answered for a file that a cleanup removes before its first chunk is
    read: the client gets the 404 it would have got a moment later, not an empty 200."""
    from twisted.internet import defer
    from twisted.web.test.requesthelper import DummyRequest

    from pynimbus.logviewer.server import FileProducer

    request = DummyRequest([b"download"])
    request.setHeader(b"content-disposition", b"attachment")
    producer = FileProducer(str(tmp_path / "gone.log"), request, [],
                            lambda f, *a: defer.maybeDeferred(f, *a))
    request.registerProducer(producer, False)
    producer.resumeProducing()
    assert request.responseCode == 404 and request.finished
    assert b"".join(request.written) == b"Page not found"
    assert not request.responseHeaders.hasHeader(b"content-disposition")
    assert request.responseHeaders.getRawHeaders(b"content-type") == [
        b"text/html;charset=utf-8"]


def test_a_file_read_to_its_end_is_sent_whole(tmp_path):
    from twisted.internet import defer
    from twisted.web.test.requesthelper import DummyRequest

    from pynimbus.logviewer.server import FileProducer

    path = tmp_path / "worker.log"
    path.write_bytes(b"x" * (FileProducer.CHUNK + 10))
    request = DummyRequest([b"download"])
    producer = FileProducer(str(path), request, [], lambda f, *a: defer.maybeDeferred(f, *a))
    request.registerProducer(producer, False)
    for _ in range(5):  # two chunks, then the end
        if request.finished:
            break
        producer.resumeProducing()
    assert request.finished and request.responseCode in (None, 200)
    assert b"".join(request.written) == path.read_bytes()
