"""The UI's profiling and debugging actions on ``pynimbus dev``'s Python workers, as a user
clicks them: the request goes through Nimbus to ``/profilerconfigs``, the supervisor carries it
out (pynimbus.supervisor.profiling), and the dump is listed and served by the logviewer's
``/dumps`` page; "restart worker" starts a new worker process on the same port."""

import json
import os
import re
from urllib.parse import quote, unquote

import pytest

from logviewer_process import http_get
from nimbus_process import NimbusProcess, free_port
from pynimbus.generated.storm.ttypes import KillOptions, ProfileAction
from test_ui_server import submit_quickstart, thrift


@pytest.fixture(scope="module")
def dev(tmp_path_factory):
    local = tmp_path_factory.mktemp("profiled-dev")
    nimbus = NimbusProcess(local, dev_supervisor=True, ui=True, logviewer=True, options=[
        "supervisor.slots.ports=[%d]" % free_port(), "supervisor.monitor.frequency.secs=1",
        "supervisor.worker.shutdown.sleep.secs=1", "worker.profiler.enabled=true"])
    nimbus.start(timeout=60)
    try:
        yield nimbus
    finally:
        nimbus.stop()


def ui_get(dev, path):
    status, _headers, body = http_get("127.0.0.1", dev.ui_port, path)
    assert status == 200, (path, body[-2000:])
    return json.loads(body)


def the_worker(dev, storm_id, wait_until):
    """``host:port`` of the topology's one worker, from the UI's topology page."""
    found = []

    def listed():
        workers = ui_get(dev, "/api/v1/topology/%s" % storm_id).get("workers") or []
        found[:] = ["%s:%d" % (w["host"], w["port"]) for w in workers]
        return found
    wait_until(listed, timeout=120, interval=0.5, what="the worker on the topology page")
    [host_port] = found
    return host_port


def dumps(dev, storm_id, host_port):
    """The file names the logviewer's ``/dumps`` page lists."""
    status, _headers, body = http_get("127.0.0.1", dev.logviewer_port,
                                      "/dumps/%s/%s" % (storm_id, quote(host_port)))
    assert status == 200, body
    return re.findall(r"<li><a href=\"[^\"]+\">([^<]+)</a></li>", body.decode("utf-8"))


def new_dump(dev, storm_id, host_port, prefix, before, wait_until):
    """Wait for a dump named ``prefix...`` not in ``before``; its name and text."""
    found = []

    def written():
        found[:] = [n for n in dumps(dev, storm_id, host_port)
                    if n.startswith(prefix) and n not in before]
        return found
    wait_until(written, timeout=60, interval=0.3, what="a %s dump on the /dumps page" % prefix)
    name = found[0]
    status, _headers, body = http_get(
        "127.0.0.1", dev.logviewer_port, "/dumps/%s/%s/%s" % (storm_id, quote(host_port),
                                                              quote(name)))
    assert status == 200
    return name, body.decode("utf-8")


def pending_stops(dev, storm_id):
    return thrift(dev, "getComponentPendingProfileActions", storm_id, "count_bolt",
                  ProfileAction.JPROFILE_STOP)


def worker_pid(dev, storm_id, host_port):
    path = os.path.join(dev.local_dir, "logs", "workers-artifacts", storm_id,
                        host_port.split(":")[1], "worker.pid")
    try:
        with open(path) as f:
            return int(f.read())
    except (OSError, ValueError):  # a new worker is writing it
        return None


def test_jstack_heap_profile_and_restart_from_the_ui(dev, tmp_path, wait_until):
    storm_id = submit_quickstart(dev, tmp_path, "profiled")
    try:
        host_port = the_worker(dev, storm_id, wait_until)
        pid = worker_pid(dev, storm_id, host_port)  # written before its first heartbeat
        assert pid is not None
        profiling = "/api/v1/topology/%s/profiling/%%s/%s" % (storm_id, host_port)

        assert ui_get(dev, profiling % "dumpjstack")["status"] == "ok"
        name, text = new_dump(dev, storm_id, host_port, "jstack-%d-" % pid, (), wait_until)
        assert text.startswith("Python thread dump of worker pid %d" % pid)
        assert '"MainThread"' in text and "twisted" in text  # the reactor's stack

        ui_get(dev, profiling % "dumpheap")
        _name, text = new_dump(dev, storm_id, host_port, "jmap-%d-" % pid, (), wait_until)
        assert "Python heap histogram" in text and re.search(r"\n\s+1: +\d+ +\d+ +\w", text)

        started = ui_get(dev, profiling % "start" + "/10")
        assert started["status"] == "ok" and started["timeout"] == "10"
        assert pending_stops(dev, storm_id)  # shown at Nimbus while it records, as Storm does
        [active] = ui_get(dev, "/api/v1/topology/%s/component/count_bolt"
                          % storm_id)["profilerActive"]
        assert "%s:%s" % (active["host"], active["port"]) == host_port
        assert 0 < int(active["timestamp"]) <= 600000  # what is left of its 10 minutes
        # Storm's worker-dump-link encodes the host:port's colon
        assert unquote(active["dumplink"]).endswith("/dumps/%s/%s" % (storm_id, host_port))
        ui_get(dev, profiling % "dumpprofile")
        first, text = new_dump(dev, storm_id, host_port, "recording-%d-" % pid, (), wait_until)
        assert text.startswith("Python profile (cProfile") and "pynimbus/worker" in text
        ui_get(dev, profiling % "stop")
        _second, text = new_dump(dev, storm_id, host_port, "recording-%d-" % pid, (first,),
                                 wait_until)
        assert "pynimbus/worker" in text
        wait_until(lambda: not pending_stops(dev, storm_id), timeout=30,
                   what="the stopped recording's request deleted")

        ui_get(dev, profiling % "restartworker")
        wait_until(lambda: worker_pid(dev, storm_id, host_port) not in (None, pid),
                   timeout=120,
                   interval=0.5, what="a new worker process on %s" % host_port)
        assert the_worker(dev, storm_id, wait_until) == host_port
    finally:
        thrift(dev, "killTopologyWithOpts", "profiled", KillOptions(wait_secs=0))
