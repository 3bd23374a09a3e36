"""The stock Storm 1.2.4 client and UI on pynimbus's own Python supervisors and workers.

One cluster for the module: ``pynimbus dev`` in 1.x mode on the session's real ZooKeeper and two
``pynimbus supervisor`` processes (:mod:`supervisor_process`), each with its own
``storm.local.dir`` and two slot ports, registered in the same ZooKeeper root.  Then, from the
outside (ports, ``/proc``, the workers' directories, Thrift and the UI's REST API):

* ``storm rebalance -w 0 -n 2`` and ``storm kill -w 0`` of the stock 1.2.4 client
  (:mod:`.storm_cli`) on the pystorm word count of :mod:`worker_topologies`: the workers listen
  on the new assignment's ports, and after the kill no worker or multilang child of the topology
  is left, nor its directories, nor a listening port;
* storm-starter 1.2.2's ``WordCountTopology`` submitted with the stock ``storm jar``: its
  ``SplitSentence`` (a Java ShellBolt) runs ``python splitsentence.py`` (with Storm's
  ``storm.py`` from the jar's ``resources``) on a Python worker, and its Java spout and count
  bolt are component errors naming their classes, in ``getTopologyInfo`` and the UI;
* the real Storm 1.2.4 UI (:mod:`.storm_ui`) shows a pystorm word count's live statistics,
  the executors on the Python workers' host:port with their uptime, and the Python supervisors
  with their used slots.

Opt-in: ``PYNIMBUS_COMPAT=1`` (``tox -e compat``), plus Java, Debian's ZooKeeper and the Storm
1.2.4 jars (Maven Central on first use, then ``.cache/maven``); otherwise skipped with the
reason.
"""

import collections
import contextlib
import os
import re
import signal
import sys
import time
import urllib.parse

import pytest

from compat import real_storm, storm_cli, storm_ui
from compat.oracle import maven
from compat.oracle.targets import pynimbus_target
from nimbus_process import LOOPBACK, RawClient, free_port, zookeeper_options
from supervisor_process import SupervisorProcess
from test_supervisor_end_to_end import listening, worker_pids_of
from test_worker_process import submit
from worker_topologies import WORD_COUNT_SCRIPTS, common, shell, word_count, word_count_jar
from pynimbus.cluster import make_cluster_state
from pynimbus.common import local_dirs
from pynimbus.generated.storm.ttypes import KillOptions, SpoutSpec
from pynimbus.handlers.lifecycle import storm_id_of
from pynimbus.supervisor import daemon, worker_dirs
from pynimbus.supervisor.daemon import process_alive
from pynimbus.thrift.client import NimbusClient

ENABLED = os.environ.get("PYNIMBUS_COMPAT") == "1"

pytestmark = [
    pytest.mark.compat,
    pytest.mark.skipif(not ENABLED, reason="the stock Storm client and UI on Python supervisors "
                                           "run with PYNIMBUS_COMPAT=1 (tox -e compat): they "
                                           "start JVMs"),
]

VERSION = maven.STORM_1X
HOST = "localhost"  # storm.local.hostname of SupervisorProcess
# Supervisors that notice changes within a second or two, and stop workers quickly.
SUPERVISOR_OPTIONS = ["supervisor.monitor.frequency.secs=1",
                      "supervisor.heartbeat.frequency.secs=1",
                      "supervisor.worker.shutdown.sleep.secs=1"]
# Heartbeats and refreshes every second: the UI's numbers move between two reads.
TOPOLOGY_CONF = {"topology.stats.sample.rate": 1.0, "task.heartbeat.frequency.secs": 1,
                 "task.refresh.poll.secs": 1}
WAIT = 120.0

STARTER_WORD_COUNT = "org.apache.storm.starter.WordCountTopology"
# storm-starter's WordCountTopology: component -> the Java class a Python worker cannot run.
STARTER_JAVA_COMPONENTS = {
    "spout": "org.apache.storm.starter.spout.RandomSentenceSpout",
    "count": "org.apache.storm.starter.WordCountTopology$WordCount",
}
STARTER_SPLIT_EXECUTORS = 8  # its setBolt("split", new SplitSentence(), 8)
STARTER_SPLIT_COMMAND = ["python", "splitsentence.py"]

ENDLESS_SPOUT = "wc_endless_spout.py"
# What each of the live word count's components shows growing on its UI page (the count bolt
# emits nothing; bolts' "acked" counts the input tuples they acked).
LIVE_FIGURES = {"sentences": ("emitted", "transferred", "acked"),
                "split": ("emitted", "transferred", "acked", "executed"),
                "count": ("acked", "executed")}
ALL_TIME = ":all-time"


class PythonCluster:
    """pynimbus (1.x) + two Python supervisors on one ZooKeeper root, and ways to look at them."""

    def __init__(self, target, supervisors, workdir):
        self.target = target
        self.supervisors = supervisors
        self.workdir = workdir
        self.state = make_cluster_state(target.cluster_conf)
        self.seen_pids = set()

    def call(self, method, **kwargs):
        with RawClient(self.target.host, self.target.port, timeout=60.0) as client:
            return client.call(method, **kwargs)

    def storm(self, *argv):
        """The stock 1.2.4 ``storm <argv>``, which must succeed; its output."""
        conf_dir = os.path.join(self.workdir, "client-conf")
        storm_cli.write_client_conf(conf_dir, self.target.port)
        proc = storm_cli.storm(VERSION, conf_dir, *argv)
        output = proc.stdout + proc.stderr
        assert proc.returncode == 0, "storm %s exited with %s:\n%s" % (
            " ".join(argv), proc.returncode, output[-3000:])
        return output

    def storm_id(self, name):
        return storm_id_of(self.state, name)

    def assigned_ports(self, storm_id):
        """The slot ports of ``storm_id``'s Assignment (empty when it has none)."""
        assignment = self.state.assignment_info(storm_id)
        if assignment is None:
            return set()
        return {port for node_port in assignment.executor_node_port.values()
                for port in node_port.port}

    def used_slots(self):
        """``{supervisor id: number of slots any Assignment uses on it}``."""
        slots = collections.Counter()
        for storm_id in self.state.assignments():
            assignment = self.state.assignment_info(storm_id)
            if assignment is None:  # removed since the listing
                continue
            slots.update(node for node, _port in {
                (n.node, port) for n in assignment.executor_node_port.values()
                for port in n.port})
        return dict(slots)

    def watch_pids(self):
        """Every pid in the supervisors' workers' pids dirs (workers and multilang children),
        remembered so that their end can be checked and teardown can kill them."""
        pids = set().union(*(worker_pids_of(s.local_dir) for s in self.supervisors))
        self.seen_pids |= pids
        return pids

    def worker_ports(self, storm_id):
        """The ports of the running ``python -m pynimbus.worker`` processes of ``storm_id``
        (the worker's arguments end ``<storm id> <supervisor id> <port> <worker id>``)."""
        ports = set()
        for pid in self.watch_pids():
            args = real_storm.cmdline(pid)
            if "pynimbus.worker" in args and storm_id in args:
                ports.add(int(args[-2]))
        return ports

    def code_dirs(self, storm_id):
        return [local_dirs.supervisor_stormdist_root({"storm.local.dir": s.local_dir}, storm_id)
                for s in self.supervisors]

    def diagnostics(self):
        return "\n".join(["== %s ==\n%s" % (s.local_dir, s.log_tail()) for s in self.supervisors]
                         + ["== pynimbus ==\n" + self.target.handle.log_tail()])

    def kill_everything(self):
        """Teardown: kill the topologies, stop the supervisors, SIGKILL what is left."""
        for topology in self.call("getClusterInfo").topologies:
            with contextlib.suppress(Exception):
                self.call("killTopologyWithOpts", name=topology.name,
                          options=KillOptions(wait_secs=0))
        for supervisor in self.supervisors:
            with contextlib.suppress(Exception):
                supervisor.stop()
        for pid in self.watch_pids() | self.seen_pids:
            daemon.send_signal(pid, signal.SIGKILL)
        self.state.close()


@pytest.fixture(scope="module")
def cluster(zookeeper_server, tmp_path_factory):
    reason = storm_cli.unavailable_reason(VERSION)
    if reason:
        pytest.skip("the stock Storm %s client cannot run here: %s" % (VERSION, reason))
    workdir = str(tmp_path_factory.mktemp("python-supervisors"))
    with pynimbus_target("1.x", zookeeper_server) as target:
        zk = target.cluster_conf
        options = SUPERVISOR_OPTIONS + zookeeper_options(
            zk["storm.zookeeper.servers"], zk["storm.zookeeper.port"],
            zk["storm.zookeeper.root"])
        # "python" (storm-starter's SplitSentence command) is this interpreter first.
        env = {"PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"],
               "WORDCOUNT_OUTPUT": os.path.join(workdir, "counts.txt")}
        supervisors = [SupervisorProcess(os.path.join(workdir, name), target.local_dir,
                                         target.port, ports=[free_port(), free_port()],
                                         options=options, env=env)
                       for name in ("sup-a", "sup-b")]
        cluster = PythonCluster(target, supervisors, workdir)
        try:
            for supervisor in supervisors:
                supervisor.start()
            wait_for(cluster, lambda: len(cluster.call("getClusterInfo").supervisors) == 2,
                     "both Python supervisors registered")
            yield cluster
        finally:
            cluster.kill_everything()


@pytest.fixture(scope="module")
def ui(cluster):
    """The real Storm 1.2.4 UI on the cluster's pynimbus."""
    reason = storm_ui.unavailable_reason("1.x")
    if reason:
        pytest.skip(reason)
    with storm_ui.StormUI(cluster.target.host, cluster.target.port, "1.x") as running:
        yield running


def wait_for(cluster, predicate, what, timeout=WAIT):
    """Poll ``predicate`` (bounded) until it returns a truthy value, which is returned; fail
    with the daemons' logs.  Each poll is a round of process, port or Thrift reads."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        for supervisor in cluster.supervisors:
            if supervisor.process is not None and supervisor.process.poll() is not None:
                pytest.fail("a supervisor exited (code %s) while waiting for %s\n%s" % (
                    supervisor.process.returncode, what, cluster.diagnostics()))
        if time.monotonic() > deadline:
            pytest.fail("timed out after %.0f s waiting for %s\n%s"
                        % (timeout, what, cluster.diagnostics()))
        time.sleep(0.25)


def topology_processes(storm_id):
    """Pids of live processes that belong to ``storm_id``: its id in their command line (the
    workers) or in their working directory (multilang children run in its resources dir)."""
    found = set()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        pid = int(name)
        try:
            cwd = os.readlink("/proc/%d/cwd" % pid)
        except OSError:
            cwd = ""
        if (storm_id in cwd or storm_id in real_storm.cmdline(pid)) and process_alive(pid):
            found.add(pid)
    return found


def submit_python(cluster, name, topology, jar, conf):
    with NimbusClient(LOOPBACK, cluster.target.port, timeout=30) as client:
        return submit(client, name, jar, topology, dict(TOPOLOGY_CONF, **conf))


# 1. storm rebalance and storm kill, carried out by the Python supervisors


def test_stock_rebalance_and_kill_on_python_supervisors(cluster):
    """``storm rebalance <name> -w 0 -n 2``: the topology's workers listen on exactly the new
    assignment's two ports; ``storm kill <name> -w 0``: no worker or multilang child of it is left
    (pids dirs and /proc), its worker and code directories are gone, its ports closed."""
    name = "py-rebalance"
    storm_id = submit_python(cluster, name, word_count(), word_count_jar(),
                             {"topology.workers": 1})

    def running_on_assignment(count):
        ports = cluster.assigned_ports(storm_id)
        return (len(ports) == count and cluster.worker_ports(storm_id) == ports
                and all(listening(port) for port in ports) and ports)
    before = wait_for(cluster, lambda: running_on_assignment(1), "one worker listening")

    cluster.storm("rebalance", name, "-w", "0", "-n", "2")
    after = wait_for(cluster, lambda: running_on_assignment(2),
                     "two workers listening on the rebalanced assignment's ports")
    all_slots = {p for s in cluster.supervisors for p in s.ports}
    wait_for(cluster, lambda: {p for p in all_slots if listening(p)} == after,
             "only the new assignment's ports listening")
    assert len(before) == 1 and len(after) == 2
    # two workers, each with its multilang children (1 spout, 2 split, 2 count tasks in all),
    # and every one of them in a pids dir (a child writes its pid file in the handshake)
    wait_for(cluster, lambda: len(topology_processes(storm_id)) == 2 + 5 and
             topology_processes(storm_id) <= cluster.watch_pids(),
             "both workers and their 5 multilang children running, with their pid files")

    cluster.storm("kill", name, "-w", "0")
    wait_for(cluster, lambda: not topology_processes(storm_id),
             "no worker or multilang child of %s left" % storm_id)
    wait_for(cluster, lambda: not any(os.path.exists(d) for d in cluster.code_dirs(storm_id)),
             "the topology's code directories removed")
    wait_for(cluster, lambda: not cluster.watch_pids() and all(
        worker_dirs.worker_ids({"storm.local.dir": s.local_dir}) == []
        for s in cluster.supervisors), "every worker directory removed")
    assert not any(process_alive(pid) for pid in cluster.seen_pids)
    assert not any(listening(port) for port in all_slots)
    assert cluster.storm_id(name) is None


# 2. storm-starter's WordCountTopology, submitted with the stock storm jar


@pytest.fixture(scope="module")
def starter_word_count(cluster):
    """storm-starter 1.2.2's WordCountTopology submitted by the stock 1.2.4 ``storm jar`` (one
    worker, no tuple logging); its storm id, once the topology is listed."""
    name = "starter-wc"
    try:
        jar = real_storm.starter_jar()
    except maven.MavenUnavailable as e:
        pytest.skip("storm-starter's jar is unavailable: %s" % e)
    topology = real_storm.Topology(jar, STARTER_WORD_COUNT, [name],
                                   {"topology.workers": 1, "topology.debug": False}, None)
    output = real_storm.storm_jar(VERSION, cluster.target.port,
                                  os.path.join(cluster.workdir, "jar-conf"), topology)
    assert "Finished submitting topology: %s" % name in output, output
    return wait_for(cluster, lambda: cluster.storm_id(name), "%s listed" % name)


def component_errors(cluster, storm_id):
    """``{component: [error text]}`` of getTopologyInfo, components with errors only."""
    info = cluster.call("getTopologyInfo", id=storm_id)
    return {component: [e.error for e in errors]
            for component, errors in (info.errors or {}).items() if errors}


def test_starter_split_sentence_runs_on_a_python_worker(cluster, starter_word_count):
    """Each of SplitSentence's 8 executors runs ``python splitsentence.py`` under a Python
    worker of the topology: a Python interpreter, in the topology's extracted ``resources``
    (where Storm's own storm.py, from the jar, sits beside the script), and with its pid file
    in the worker's pids dir, which storm.py writes in the handshake."""
    storm_id = starter_word_count

    def split_children():
        return {pid for pid in cluster.watch_pids()
                if real_storm.cmdline(pid) == STARTER_SPLIT_COMMAND and process_alive(pid)}
    wait_for(cluster, lambda: len(split_children()) == STARTER_SPLIT_EXECUTORS,
             "%d splitsentence.py children with their pid files" % STARTER_SPLIT_EXECUTORS)
    [worker_port] = cluster.worker_ports(storm_id)
    assert cluster.assigned_ports(storm_id) == {worker_port}
    resources_dirs = {os.path.realpath(os.path.join(d, "resources"))
                      for d in cluster.code_dirs(storm_id)}
    for pid in split_children():
        assert os.path.basename(os.readlink("/proc/%d/exe" % pid)).startswith("python")
        cwd = os.readlink("/proc/%d/cwd" % pid)
        assert cwd in resources_dirs, (cwd, resources_dirs)
        assert {"storm.py", "splitsentence.py"} <= set(os.listdir(cwd))
        assert pid in topology_processes(storm_id)
    assert "split" not in component_errors(cluster, storm_id)


def test_starter_java_components_are_errors_naming_their_classes(cluster, starter_word_count):
    """RandomSentenceSpout and WordCount are Java objects a Python worker cannot run: each is a
    component error in getTopologyInfo naming its component and class."""
    storm_id = starter_word_count
    wait_for(cluster, lambda: set(STARTER_JAVA_COMPONENTS) <= set(
        component_errors(cluster, storm_id)), "the Java components' errors")
    errors = component_errors(cluster, storm_id)
    assert set(errors) == set(STARTER_JAVA_COMPONENTS)
    for component, class_name in STARTER_JAVA_COMPONENTS.items():
        assert errors[component] and all(class_name in e and component in e
                                         for e in errors[component]), errors[component]


# 3. The real Storm 1.2.4 UI shows the Python workers' live statistics


@pytest.fixture(scope="module")
def live_word_count(cluster):
    """The pystorm word count on two Python workers, its spout emitting the corpus round and
    round (:data:`ENDLESS_SPOUT`), so its statistics keep growing; its storm id once both
    workers run."""
    topology = word_count()
    topology.spouts["sentences"] = SpoutSpec(shell(ENDLESS_SPOUT), common({}, ["sentence"], 1))
    storm_id = submit_python(cluster, "py-live", topology,
                             word_count_jar(scripts=WORD_COUNT_SCRIPTS + (ENDLESS_SPOUT,)),
                             {"topology.workers": 2, "wordcount.sentences.per.sec": 20})
    wait_for(cluster, lambda: len(cluster.assigned_ports(storm_id)) == 2 and
             cluster.worker_ports(storm_id) == cluster.assigned_ports(storm_id),
             "both workers of the live word count running")
    return storm_id


def ui_page(ui, path):
    """The JSON of a UI endpoint, which must be HTTP 200 without an error."""
    status, body = ui.get(path)
    assert status == 200 and isinstance(body, dict) and "error" not in body, (
        "%s: HTTP %s %s\n-- UI log --\n%s" % (path, status, str(body)[:3000], ui.log_tail()))
    return body


def topology_path(storm_id, suffix=""):
    return "/api/v1/topology/%s%s" % (urllib.parse.quote(storm_id), suffix)


def wait_growing(cluster, read, what):
    """Wait until ``read()`` (``{name: figure}``) is positive everywhere, then until a later
    read is greater everywhere; return the two reads."""
    def positive():
        figures = read()
        return figures if figures and all(v > 0 for v in figures.values()) else None
    first = wait_for(cluster, positive, "nonzero " + what)

    def grown():
        figures = read()
        return figures if all(figures.get(k, 0) > v for k, v in first.items()) else None
    return first, wait_for(cluster, grown, "growing " + what)


def executor_slots(cluster, storm_id, component):
    """``{"[start-end]": (host, port)}`` of a component's executors, from getTopologyInfo."""
    info = cluster.call("getTopologyInfo", id=storm_id)
    return {"[%d-%d]" % (e.executor_info.task_start, e.executor_info.task_end): (e.host, e.port)
            for e in info.executors if e.component_id == component}


def test_ui_topology_page_shows_live_counts(cluster, ui, live_word_count):
    """The topology page: all-time emitted, transferred and acked of the topology and of each
    component, nonzero and growing; its workers are the Python workers' host:port."""
    storm_id = live_word_count
    path = topology_path(storm_id)

    def read():
        body = ui_page(ui, path)
        [total] = [row for row in body["topologyStats"] if row["window"] == ALL_TIME]
        figures = {"topology " + k: total[k] or 0 for k in ("emitted", "transferred", "acked")}
        rows = {row["spoutId"]: row for row in body["spouts"]}
        rows.update({row["boltId"]: row for row in body["bolts"]})
        for component, names in LIVE_FIGURES.items():
            figures.update({"%s %s" % (component, k): rows[component].get(k) or 0
                            for k in names if k != "executed"})
        return figures
    wait_growing(cluster, read, "figures on the topology page")
    body = ui_page(ui, path)
    assert (body["name"], body["status"], body["workersTotal"]) == ("py-live", "ACTIVE", 2)
    assert {(w["host"], w["port"]) for w in body["workers"]} == {
        (HOST, port) for port in cluster.worker_ports(storm_id)}


@pytest.mark.parametrize("component", sorted(LIVE_FIGURES))
def test_ui_component_page_shows_executors_on_python_workers(cluster, ui, live_word_count,
                                                             component):
    """A component page lists each executor on the Python worker getTopologyInfo places it
    (host:port), with its uptime, and its figures, summed, nonzero and growing."""
    storm_id = live_word_count
    path = topology_path(storm_id, "/component/" + component)

    def read():
        rows = ui_page(ui, path)["executorStats"]
        return {k: sum(row.get(k) or 0 for row in rows) for k in LIVE_FIGURES[component]}
    wait_growing(cluster, read, "%s's executor figures" % component)
    body = ui_page(ui, path)
    rows = body["executorStats"]
    assert {row["id"]: (row["host"], row["port"]) for row in rows} == executor_slots(
        cluster, storm_id, component)
    assert {row["port"] for row in rows} <= cluster.worker_ports(storm_id)
    assert all(row["host"] == HOST and row["uptimeSeconds"] > 0 for row in rows), rows
    assert body["componentErrors"] == []


def worker_logs(cluster, storm_id):
    """``{port: worker.log text}`` of the topology's workers on the Python supervisors."""
    logs = {}
    for supervisor in cluster.supervisors:
        for port in cluster.assigned_ports(storm_id):
            path = os.path.join(local_dirs.worker_artifacts_root(
                {"storm.local.dir": supervisor.local_dir}, storm_id, port), "worker.log")
            if os.path.exists(path):
                with open(path, encoding="utf-8", errors="replace") as f:
                    logs[port] = f.read()
    return logs


def test_stock_set_log_level_sets_and_clears_the_python_workers_levels(
        cluster, live_word_count):
    """``storm set_log_level -l ROOT=DEBUG:600`` of the stock 1.2.4 client reaches both
    Python workers, whose root logger goes to DEBUG (their logs say so, and DEBUG lines
    follow); ``-r ROOT`` sets it back to INFO."""
    storm_id = live_word_count
    ports = cluster.assigned_ports(storm_id)
    cluster.storm("set_log_level", "-l", "ROOT=DEBUG:600", "py-live")
    wait_for(cluster, lambda: all(
        "ROOT: setting log level to DEBUG" in text
        for text in worker_logs(cluster, storm_id).values()) and len(
            worker_logs(cluster, storm_id)) == len(ports), "both workers at DEBUG")
    wait_for(cluster, lambda: all(
        re.search(r"^\S+ \S+ DEBUG ", text.split("ROOT: setting log level to DEBUG")[1], re.M)
        for text in worker_logs(cluster, storm_id).values()), "DEBUG lines in both logs")
    cluster.storm("set_log_level", "-r", "ROOT", "py-live")
    wait_for(cluster, lambda: all(
        "ROOT: setting log level to INFO" in text
        for text in worker_logs(cluster, storm_id).values()), "both workers back at INFO")


def test_storms_ui_jstack_and_restart_act_on_a_python_worker(cluster, ui, live_word_count):
    """Storm 1.2.4's own UI's "JStack" and "Restart Worker" (GET .../profiling/...): through
    Nimbus, the Python supervisor has the worker write its thread dump into its artifacts
    directory, then restarts it (a new pid on the same port)."""
    storm_id = live_word_count
    port = min(cluster.assigned_ports(storm_id))
    [supervisor] = [s for s in cluster.supervisors if os.path.exists(os.path.join(
        local_dirs.worker_artifacts_root({"storm.local.dir": s.local_dir}, storm_id, port),
        "worker.pid"))]
    artifacts = local_dirs.worker_artifacts_root({"storm.local.dir": supervisor.local_dir},
                                                 storm_id, port)

    def pid():
        try:
            with open(os.path.join(artifacts, "worker.pid")) as f:
                return int(f.read())
        except (OSError, ValueError):  # a new worker is writing it
            return None
    before = pid()
    assert ui_page(ui, topology_path(storm_id, "/profiling/dumpjstack/%s:%d" % (HOST, port)))[
        "status"] == "ok"
    [dump] = wait_for(cluster, lambda: [n for n in os.listdir(artifacts)
                                        if n.startswith("jstack-%d-" % before)],
                      "the worker's thread dump")
    with open(os.path.join(artifacts, dump)) as f:
        assert f.read().startswith("Python thread dump of worker pid %d" % before)
    ui_page(ui, topology_path(storm_id, "/profiling/restartworker/%s:%d" % (HOST, port)))
    wait_for(cluster, lambda: pid() not in (None, before)
             and port in cluster.worker_ports(storm_id),
             "a new worker on port %d" % port)


def test_ui_supervisors_are_the_python_supervisors_with_used_slots(cluster, ui,
                                                                   live_word_count):
    """The supervisor summary lists the two Python supervisors, their slots and the slots the
    assignments use; each supervisor's page lists the live word count's worker on it."""
    storm_id = live_word_count
    body = ui_page(ui, "/api/v1/supervisor/summary")
    used = cluster.used_slots()
    assert {s["id"]: (s["host"], s["slotsTotal"], s["slotsUsed"]) for s in body["supervisors"]} \
        == {sid: (HOST, 2, used.get(sid, 0)) for sid in
            (s.supervisor_id for s in cluster.call("getClusterInfo").supervisors)}
    assert sum(s["slotsUsed"] for s in body["supervisors"]) >= 2
    assignment = cluster.state.assignment_info(storm_id)
    for node_port in {(n.node, p) for n in assignment.executor_node_port.values()
                      for p in n.port}:
        supervisor_id, port = node_port
        page = ui_page(ui, "/api/v1/supervisor?id=" + urllib.parse.quote(supervisor_id))
        assert [(s["id"], s["slotsUsed"]) for s in page["supervisors"]] == [
            (supervisor_id, used[supervisor_id])]
        assert (storm_id, HOST, port) in {(w["topologyId"], w["host"], w["port"])
                                          for w in page["workers"]}


def test_ui_component_page_shows_the_java_components_errors(cluster, ui, starter_word_count):
    """storm-starter's Java spout and count bolt: their component pages list the errors the
    Python worker reported, naming their classes."""
    storm_id = starter_word_count
    wait_for(cluster, lambda: set(STARTER_JAVA_COMPONENTS) <= set(
        component_errors(cluster, storm_id)), "the Java components' errors")
    for component, class_name in STARTER_JAVA_COMPONENTS.items():
        errors = ui_page(ui, topology_path(storm_id, "/component/" + component))[
            "componentErrors"]
        assert errors and all(class_name in e["error"] for e in errors), errors
