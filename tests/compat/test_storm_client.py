"""The stock ``storm`` client of Storm 1.2.4 and 2.x against pynimbus, each command checked by
its effect.

Runs with ``PYNIMBUS_COMPAT=1`` (``tox -e compat`` sets it): it needs Java, Maven (the first run
fetches the Storm jars and Maven's build plugins from Maven Central into ``.cache/``) and
Debian's ZooKeeper.  Everything that is missing becomes a skip with the reason.

Per client version, one pynimbus (``pynimbus dev`` in the matching ``pynimbus.storm.compat``
mode, on the test ZooKeeper, with two fake supervisors so that assignments are made) serves a
sequence of ``storm`` invocations (:mod:`.storm_cli` reproduces ``bin/storm.py``) submitting the
reference topologies of ``tests/compat/java`` and then listing, deactivating, activating,
rebalancing and killing them.

Leader discovery is checked on the wire: pynimbus listens on ``127.0.0.2:P`` and says it is
``127.0.0.1:P`` (``storm.local.hostname``), the client's seed, where a counting proxy forwards
to it.  Every TCP connection a client opens therefore passes through the proxy, which logs the
Thrift methods called on each; a client that did not recognise the leader as its seed would
open a second connection after ``getLeader``, and the proxy would see it.  The expected
connections per command are upstream's (``../shared/reference/client-call-sequences.md``):
1.2.4's StormSubmitter opens one connection to list the blob store (``validateConfs``) and one
to submit; 2.x's one to check ``topology.blobstore.map`` (just ``getLeader`` when the map is
empty) and one to submit; every other command opens one.
"""

import itertools
import json
import os
import socket
import struct
import threading
import time

import pytest

from compat import storm_cli, topology_jars
from compat.oracle import maven, thrift_json
from compat.oracle.capture import Capturer
from compat.oracle.supervisors import FakeSupervisors, SupervisorSpec
from compat.oracle.targets import pynimbus_target
from nimbus_process import LOOPBACK, RawClient, free_port

from pynimbus.cluster.serialization import gunzip_bytes
from pynimbus.common.transport_secret import TRANSPORT_SECRET_KEY
from pynimbus.generated.storm import ttypes

ENABLED = os.environ.get("PYNIMBUS_COMPAT") == "1"

pytestmark = pytest.mark.skipif(
    not ENABLED, reason="stock storm client tests run with PYNIMBUS_COMPAT=1 (tox -e compat): "
                        "they start Storm's client JVMs")

VERSIONS = [maven.STORM_1X, maven.STORM_2X]
# pynimbus listens here; the proxy listens on LOOPBACK with the same port.
NIMBUS_BIND = "127.0.0.2"
# 16 slots: the five references (9 workers), the rebalance (+1) and the race test (2) fit.
SUPERVISORS = (SupervisorSpec("client-a", "127.0.0.2", list(range(6700, 6708))),
               SupervisorSpec("client-b", "127.0.0.3", list(range(6700, 6708))))

# name stem -> (main class, workers its conf asks for, spout ids, bolt ids)
TOPOLOGIES = {
    "exclamation": (topology_jars.EXCLAMATION, 2, {"word"}, {"exclaim1", "exclaim2"}),
    "wordcount": (topology_jars.WORD_COUNT, 2, {"spout"}, {"split", "count"}),
    "trident-wordcount": (topology_jars.TRIDENT_WORD_COUNT, 2, None, None),
    "all-groupings": (topology_jars.ALL_GROUPINGS, 2, {"words"},
                      {"shuffle", "fields", "all", "global", "none", "direct", "local-or-shuffle",
                       "partial-key", "custom", "sink"}),
    "user-score": (topology_jars.USER_SCORE, 1, None, None),
}

SUBMIT_CALLS = ["getLeader", "isTopologyNameAllowed", "beginFileUpload", "uploadChunk",
                "finishFileUpload", "submitTopology"]
COMMAND_CALLS = {
    "1.x": {"list": "getClusterInfo", "activate": "activate", "deactivate": "deactivate",
            "rebalance": "rebalance", "kill": "killTopologyWithOpts"},
    "2.x": {"list": "getTopologySummaries", "activate": "activate", "deactivate": "deactivate",
            "rebalance": "rebalance", "kill": "killTopologyWithOpts"},
}


def validate_conf_connection(generation):
    """Calls on StormSubmitter's first connection (validateConfs), blob store map empty."""
    return ["getLeader", "listBlobs"] if generation == "1.x" else ["getLeader"]


def collapse(calls):
    """Repeated consecutive calls (uploadChunk x N, listBlobs x N) counted once."""
    return [name for name, _ in itertools.groupby(calls)]


# -- the counting proxy -------------------------------------------------------------------


class ProxiedConnection:
    def __init__(self, number):
        self.number = number
        self.calls = []          # [(method, monotonic time the frame arrived)]
        self.closed = threading.Event()

    @property
    def methods(self):
        return [name for name, _ in self.calls]


class CountingProxy:
    """A loopback TCP proxy that logs, per accepted connection, the Thrift methods called.

    Client-to-server bytes are forwarded frame by frame (framed transport: a 4-byte length,
    then a binary-protocol message whose header names the method).  Frames calling a method in
    :attr:`gated` wait until :meth:`release` lets them through.
    """

    def __init__(self, listen, upstream):
        self.listen = listen
        self.upstream = upstream
        self.lock = threading.Condition()
        self.log = []
        self.gated = set()
        self.held = []           # [(connection, method, threading.Event)]
        self.counter = itertools.count(1)
        self.stopping = False
        self.server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind(listen)
        self.server.listen(16)
        self.server.settimeout(0.2)
        self.thread = threading.Thread(target=self._accept_loop, daemon=True)

    def start(self):
        self.thread.start()
        return self

    def close(self):
        self.stopping = True
        self.open_gate()
        self.thread.join(10)
        self.server.close()

    def reset(self):
        with self.lock:
            self.log = []

    def connections(self, timeout=15.0):
        """Connections accepted since :meth:`reset`, once all of them are closed."""
        deadline = time.monotonic() + timeout
        with self.lock:
            log = list(self.log)
        for conn in log:
            conn.closed.wait(max(0.0, deadline - time.monotonic()))
        assert all(c.closed.is_set() for c in log), "client connections still open"
        return log

    def gate(self, methods):
        """From now on, hold frames calling ``methods`` until released."""
        with self.lock:
            self.gated = set(methods)
            self.held = []

    def open_gate(self):
        """Stop holding; let every held frame through."""
        with self.lock:
            self.gated = set()
            for _, _, event in self.held:
                event.set()

    def wait_held(self, count, timeout=60.0):
        with self.lock:
            ok = self.lock.wait_for(lambda: len(self.held) >= count, timeout)
            assert ok, "only %d gated calls arrived" % len(self.held)
            return list(self.held)

    def release(self, event):
        event.set()

    def _accept_loop(self):
        while not self.stopping:
            try:
                client, _ = self.server.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            conn = ProxiedConnection(next(self.counter))
            with self.lock:
                self.log.append(conn)
            threading.Thread(target=self._serve, args=(conn, client), daemon=True).start()

    def _serve(self, conn, client):
        try:
            upstream = socket.create_connection(self.upstream, timeout=10.0)
        except OSError:
            client.close()
            conn.closed.set()
            return
        upstream.settimeout(None)
        back = threading.Thread(target=self._pump_raw, args=(upstream, client), daemon=True)
        back.start()
        try:
            self._pump_frames(conn, client, upstream)
        finally:
            back.join(60)
            client.close()
            upstream.close()
            conn.closed.set()

    def _pump_frames(self, conn, src, dst):
        buf = b""
        try:
            while True:
                data = src.recv(1 << 16)
                if not data:
                    break
                buf += data
                while len(buf) >= 4:
                    (length,) = struct.unpack("!i", buf[:4])
                    if length < 0 or len(buf) < 4 + length:
                        break
                    frame, buf = buf[:4 + length], buf[4 + length:]
                    name = method_name(frame[4:])
                    with self.lock:
                        conn.calls.append((name, time.monotonic()))
                        event = None
                        if name in self.gated:
                            event = threading.Event()
                            self.held.append((conn, name, event))
                            self.lock.notify_all()
                    if event is not None:
                        event.wait(120)
                    dst.sendall(frame)
                if len(buf) >= 4 and struct.unpack("!i", buf[:4])[0] < 0:
                    dst.sendall(buf)  # not framed: forward as is
                    buf = b""
        except OSError:
            pass
        finally:
            close_write(dst)

    @staticmethod
    def _pump_raw(src, dst):
        try:
            while True:
                data = src.recv(1 << 16)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        finally:
            close_write(dst)


def close_write(sock):
    """Pass the end of one direction on (the peer reads EOF); the socket may be gone already."""
    try:
        sock.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def method_name(payload):
    """The method named by a binary-protocol message header (strict or old style)."""
    try:
        (first,) = struct.unpack("!i", payload[:4])
        if first < 0:
            (size,) = struct.unpack("!i", payload[4:8])
            return payload[8:8 + size].decode("utf-8", "replace")
        return payload[4:4 + first].decode("utf-8", "replace")
    except struct.error:
        return "?"


def proxy_port():
    """A port free on both LOOPBACK (the proxy) and NIMBUS_BIND (pynimbus)."""
    for _ in range(50):
        port = free_port(LOOPBACK)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind((NIMBUS_BIND, port))
                return port
            except OSError:
                continue
    raise RuntimeError("no port free on both %s and %s" % (LOOPBACK, NIMBUS_BIND))


# -- one cluster per client version --------------------------------------------------------


class Cluster:
    """pynimbus behind the proxy, fake supervisors, a client conf dir, the topology jar."""

    def __init__(self, version, target, proxy, conf_dir, jar, capturer):
        self.version = version
        self.generation = maven.generation(version)
        self.target = target
        self.proxy = proxy
        self.conf_dir = conf_dir
        self.jar = jar
        self.capturer = capturer
        self.submitted = {}      # stem -> Submission

    def name(self, stem):
        return "%s-%s" % (stem, self.generation.replace(".", ""))

    def storm(self, *argv, timeout=storm_cli.DEFAULT_TIMEOUT):
        """Run the stock client; return (CompletedProcess, [ProxiedConnection])."""
        self.proxy.reset()
        result = storm_cli.storm(self.version, self.conf_dir, *argv, timeout=timeout)
        return result, self.proxy.connections()

    def direct(self, method, **kwargs):
        """One call straight to pynimbus (not through the proxy)."""
        with RawClient(NIMBUS_BIND, self.target.port, timeout=30.0) as client:
            return client.call(method, **kwargs)

    def storm_id(self, name):
        return self.capturer.find_storm_id(name)

    def storm_base(self, storm_id):
        return self.capturer.state.storm_base(storm_id)

    def assignment(self, storm_id):
        return self.capturer.state.assignment_info(storm_id)

    def wait_for(self, what, fn, timeout=45.0):
        value = Capturer.poll(fn, timeout)
        assert value is not None, "timed out after %.0f s waiting for %s" % (timeout, what)
        return value


def output_of(result):
    return result.stdout + result.stderr


def describe(result, connections=None):
    text = "exit %s\n$ %s\n%s" % (result.returncode, " ".join(result.args)[-400:],
                                  output_of(result)[-3000:])
    if connections is not None:
        text += "\nconnections: %r" % [c.methods for c in connections]
    return text


@pytest.fixture(scope="module", params=VERSIONS)
def cluster(request, zookeeper_server, tmp_path_factory):
    version = request.param
    reason = storm_cli.unavailable_reason(version)
    if reason:
        pytest.skip("the Storm %s client cannot run here: %s" % (version, reason))
    try:
        jar = topology_jars.topology_jar(version)
    except maven.MavenUnavailable as e:
        pytest.skip("the reference topologies cannot be built for Storm %s: %s" % (version, e))
    generation = maven.generation(version)
    port = proxy_port()
    proxy = CountingProxy((LOOPBACK, port), (NIMBUS_BIND, port)).start()
    conf_dir = str(tmp_path_factory.mktemp("client-conf-%s" % version))
    storm_cli.write_client_conf(conf_dir, port)
    try:
        with pynimbus_target(generation, zookeeper_server, port=port,
                             conf={"pynimbus.thrift.bind.address": NIMBUS_BIND}) as target, \
                FakeSupervisors(target.cluster_conf, SUPERVISORS, version=target.storm_version), \
                Capturer(target) as capturer:
            yield Cluster(version, target, proxy, conf_dir, jar, capturer)
            assert target.handle.process.poll() is None, (
                "pynimbus died:\n" + target.handle.log_tail())
    finally:
        proxy.close()


@pytest.fixture(scope="module")
def submitted(cluster):
    """Every reference topology submitted once with ``storm jar``, under its own name."""
    if not cluster.submitted:
        for stem, (main_class, _, _, _) in TOPOLOGIES.items():
            result, conns = cluster.storm("jar", cluster.jar, main_class, cluster.name(stem))
            assert result.returncode == 0, describe(result, conns)
            storm_id = cluster.storm_id(cluster.name(stem))
            assert storm_id, "no StormBase named %s after:\n%s" % (cluster.name(stem),
                                                                   describe(result, conns))
            cluster.submitted[stem] = (result, conns, storm_id)
        for stem, (_, _, storm_id) in cluster.submitted.items():
            cluster.wait_for("the assignment of " + stem, lambda: cluster.assignment(storm_id))
    return cluster.submitted


# -- storm jar -----------------------------------------------------------------------------


def test_jar_uploads_the_jar_byte_for_byte(cluster, submitted):
    """Each `storm jar` leaves the topology jar, unchanged, in pynimbus's blob store."""
    with open(cluster.jar, "rb") as f:
        jar = f.read()
    for stem, (_, _, storm_id) in submitted.items():
        begin, data = cluster.capturer.download_blob(storm_id + "-stormjar.jar")
        assert begin.data_size == len(jar), stem
        assert data == jar, "%s: the stored jar differs from the submitted one" % stem


def test_jar_stores_storm_base_conf_and_code(cluster, submitted):
    """StormBase, topology conf and code are stored as the client built them."""
    for stem, (_, _, storm_id) in submitted.items():
        main_class, workers, spouts, bolts = TOPOLOGIES[stem]
        name = cluster.name(stem)
        base = cluster.storm_base(storm_id)
        assert base.name == name
        assert base.status in (ttypes.TopologyStatus.ACTIVE,)
        assert base.num_workers == workers
        assert base.owner
        conf_json = cluster.direct("getTopologyConf", id=storm_id)
        conf = json.loads(conf_json)
        assert conf["topology.name"] == name
        assert conf["topology.workers"] == workers
        # The client adds a ZooKeeper digest payload to every topology conf
        # (prepareZookeeperAuthentication); a Nimbus without ZooKeeper authentication drops it.
        assert "storm.zookeeper.topology.auth.payload" not in conf
        user = cluster.direct("getUserTopology", id=storm_id)
        # Utils.addVersions: the client's own Storm version
        assert user.storm_version == cluster.version
        assert user.jdk_version
        if spouts is not None:
            assert set(user.spouts) == spouts and set(user.bolts) == bolts, stem
        else:  # Trident: a master batch coordinator spout and bolts named by Trident
            assert any(s.startswith("$mastercoord") for s in user.spouts), sorted(user.spouts)
        keys = set(cluster.capturer.list_blob_keys())
        for suffix in ("-stormjar.jar", "-stormcode.ser", "-stormconf.ser"):
            assert storm_id + suffix in keys, (stem, suffix)
        # What the supervisors will download is what the queries answer.
        _, code = cluster.capturer.download_blob(storm_id + "-stormcode.ser")
        assert thrift_json.decode_struct(code, ttypes.StormTopology) == user, stem
        _, stored_conf = cluster.capturer.download_blob(storm_id + "-stormconf.ser")
        stored_conf = json.loads(gunzip_bytes(stored_conf).decode("utf-8"))
        # the blob carries the workers' transport secret, which getTopologyConf leaves out
        assert stored_conf.pop(TRANSPORT_SECRET_KEY), stem
        assert stored_conf == conf, stem


def test_jar_topologies_are_assigned(cluster, submitted):
    """Each submitted topology gets an Assignment using the workers its conf asks for."""
    for stem, (_, _, storm_id) in submitted.items():
        assignment = cluster.assignment(storm_id)
        slots = {tuple(np.port) + (np.node,) for np in assignment.executor_node_port.values()}
        assert len(slots) == TOPOLOGIES[stem][1], (stem, slots)


def test_jar_connections_find_the_leader_on_the_seed(cluster, submitted):
    """`storm jar` opens upstream's two connections, each starting with getLeader and none
    reconnecting: the leader pynimbus reports is the seed itself."""
    for stem, (result, conns, _) in submitted.items():
        methods = [collapse(c.methods) for c in conns]
        assert methods == [validate_conf_connection(cluster.generation), SUBMIT_CALLS], (
            stem, methods)
        assert "Found leader nimbus : %s:%d" % (LOOPBACK, cluster.target.port) in output_of(
            result)
    leader = cluster.direct("getLeader")
    assert (leader.host, leader.port) == (LOOPBACK, cluster.target.port)


# -- storm list ----------------------------------------------------------------------------


def parse_list(stdout):
    """Rows of the table `storm list` prints, as lists of columns."""
    lines = stdout.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Topology_name"):
            return [row.split() for row in lines[i + 2:] if row.strip()]
    return []


def test_list_prints_each_topology_with_status_tasks_and_workers(cluster, submitted):
    """`storm list` prints every live topology with its status, task and worker counts."""
    result, conns = cluster.storm("list")
    assert result.returncode == 0, describe(result, conns)
    rows = {row[0]: row for row in parse_list(result.stdout)}
    summaries = {t.name: t for t in cluster.direct("getClusterInfo").topologies}
    assert set(rows) == set(summaries), describe(result)
    for stem, (_, _, storm_id) in submitted.items():
        name = cluster.name(stem)
        if name not in summaries:
            continue  # killed by an earlier test of this module
        row = rows[name]
        assignment = cluster.assignment(storm_id)
        tasks = sum(end - start + 1 for start, end in assignment.executor_node_port)
        workers = len(set((np.node, tuple(np.port))
                          for np in assignment.executor_node_port.values()))
        assert row[1] == ttypes.TopologyStatus._VALUES_TO_NAMES[cluster.storm_base(
            storm_id).status], row
        assert (int(row[2]), int(row[3])) == (tasks, workers), (row, tasks, workers)
        if cluster.generation == "2.x":
            assert row[5] == storm_id
    assert [c.methods for c in conns] == [["getLeader", COMMAND_CALLS[cluster.generation]["list"]]]


# -- deactivate / activate -----------------------------------------------------------------


def status_of(cluster, storm_id):
    return cluster.direct("getTopologyInfo", id=storm_id).status


def test_deactivate_then_activate_change_the_status(cluster, submitted):
    """`storm deactivate` makes the topology INACTIVE, `storm activate` ACTIVE again."""
    name = cluster.name("exclamation")
    storm_id = submitted["exclamation"][2]
    calls = COMMAND_CALLS[cluster.generation]
    for command, status in (("deactivate", "INACTIVE"), ("activate", "ACTIVE")):
        result, conns = cluster.storm(command, name)
        assert result.returncode == 0, describe(result, conns)
        assert status_of(cluster, storm_id) == status
        assert cluster.storm_base(storm_id).status == ttypes.TopologyStatus._NAMES_TO_VALUES[
            status]
        assert [c.methods for c in conns] == [["getLeader", calls[command]]]


def test_activate_unknown_topology_fails_with_not_alive(cluster, submitted):
    """`storm activate` of a name nobody runs exits non-zero with NotAliveException.

    pynimbus's message names the topology; 2.8.8's is the same ("<name> is not alive"), 1.2.4's
    is empty (its activate first reads the conf of the nil storm id)."""
    result, conns = cluster.storm("activate", "no-such-topology")
    assert result.returncode != 0, describe(result)
    assert "NotAliveException(msg:no-such-topology is not alive)" in output_of(result), describe(
        result)
    assert [c.methods for c in conns] == [["getLeader", "activate"]]


# -- rebalance -----------------------------------------------------------------------------


def test_rebalance_changes_workers_and_executors(cluster, submitted):
    """`storm rebalance NAME -w 0 -n 3 -e count=4` ends with 3 workers and 4 count executors."""
    name = cluster.name("wordcount")
    storm_id = submitted["wordcount"][2]
    result, conns = cluster.storm("rebalance", name, "-w", "0", "-n", "3", "-e", "count=4")
    assert result.returncode == 0, describe(result, conns)
    assert [c.methods for c in conns] == [["getLeader", "rebalance"]]

    def rebalanced():
        base = cluster.storm_base(storm_id)
        if base.status != ttypes.TopologyStatus.ACTIVE or base.num_workers != 3:
            return None
        assignment = cluster.assignment(storm_id)
        slots = {(np.node, tuple(np.port)) for np in assignment.executor_node_port.values()}
        return (base, assignment) if len(slots) == 3 else None

    base, assignment = cluster.wait_for("the rebalance to 3 workers", rebalanced)
    assert base.component_executors["count"] == 4
    info = cluster.direct("getTopologyInfo", id=storm_id)
    count_executors = {(e.executor_info.task_start, e.executor_info.task_end)
                       for e in info.executors if e.component_id == "count"}
    assert len(count_executors) == 4, count_executors
    assert count_executors <= set(assignment.executor_node_port)


# -- a live name, an invalid name ----------------------------------------------------------

LIVE_NAME_MESSAGE = {
    "1.x": "Topology with name `%s` already exists on cluster",
    "2.x": "Topology name %s is either not allowed or it already exists on the cluster",
}


def test_jar_of_a_live_name_fails_with_storms_message(cluster, submitted):
    """A second `storm jar` under a live name exits non-zero with StormSubmitter's message
    (isTopologyNameAllowed said no), uploads nothing and leaves the live topology alone."""
    name = cluster.name("user-score")
    storm_id = submitted["user-score"][2]
    result, conns = cluster.storm("jar", cluster.jar, topology_jars.EXCLAMATION, name)
    assert result.returncode != 0, describe(result)
    assert LIVE_NAME_MESSAGE[cluster.generation] % name in output_of(result), describe(result)
    assert [collapse(c.methods) for c in conns] == [
        validate_conf_connection(cluster.generation), ["getLeader", "isTopologyNameAllowed"]]
    assert cluster.storm_id(name) == storm_id
    assert set(cluster.direct("getUserTopology", id=storm_id).spouts) != {"word"}


# What Nimbus throws when a second submitTopology names a live topology (1.2.4
# check-storm-active!, 2.8.8 Nimbus.checkTopologyActive), as the client prints it.
ALREADY_ALIVE_MESSAGE = {
    "1.x": "AlreadyAliveException(msg:%s is already active)",
    "2.x": "AlreadyAliveException(msg:%s is already alive)",
}


def test_concurrent_jars_of_one_name_one_fails_with_already_alive(cluster, submitted):
    """Two `storm jar` of one new name, both past isTopologyNameAllowed: the second
    submitTopology to reach pynimbus fails with AlreadyAliveException, printed by the client."""
    name = cluster.name("race")
    results = {}

    def run(key):
        results[key] = storm_cli.storm(cluster.version, cluster.conf_dir, "jar", cluster.jar,
                                       topology_jars.EXCLAMATION, name)

    threads = [threading.Thread(target=run, args=(key,)) for key in ("a", "b")]
    cluster.proxy.gate({"submitTopology"})
    try:
        for t in threads:
            t.start()
        held = cluster.proxy.wait_held(2)
        first, second = held[0], held[1]
        cluster.proxy.release(first[2])
        first_done = cluster.wait_for("the first submission", lambda: cluster.storm_id(name))
        cluster.proxy.release(second[2])
        for t in threads:
            t.join(storm_cli.DEFAULT_TIMEOUT)
    finally:
        cluster.proxy.open_gate()
    codes = sorted(r.returncode for r in results.values())
    assert codes[0] == 0 and codes[1] != 0, "\n".join(describe(r) for r in results.values())
    failed = [r for r in results.values() if r.returncode != 0][0]
    assert ALREADY_ALIVE_MESSAGE[cluster.generation] % name in output_of(failed), describe(
        failed)
    assert cluster.storm_id(name) == first_done
    assert cluster.storm_base(first_done).status == ttypes.TopologyStatus.ACTIVE


INVALID_NAMES = {
    # 1.2.4: Nimbus's isTopologyNameAllowed is false for a name with / . : \ and the client
    # reports it as a name that exists; a name Nimbus allows but Utils.isValidKey refuses
    # fails on the client after that call.
    "1.x": [("bad/name", "Topology with name `bad/name` already exists on cluster",
             ["getLeader", "isTopologyNameAllowed"]),
            ("bad!name", "bad!name does not appear to be a valid topology name.",
             ["getLeader", "isTopologyNameAllowed"])],
    # 2.x: Utils.validateTopologyName on the client, before any connection.
    "2.x": [("bad/name", "Topology name 'bad/name' is not valid. It can't be null and it "
             "must match ^[^/.:\\\\]+$", None)],
}


def test_jar_with_an_invalid_name_fails_with_storms_message(cluster, submitted):
    """`storm jar` under an invalid topology name exits non-zero with Storm's message and
    stores nothing."""
    before = set(cluster.capturer.state.active_storms())
    for name, message, submit_connection in INVALID_NAMES[cluster.generation]:
        result, conns = cluster.storm("jar", cluster.jar, topology_jars.EXCLAMATION, name)
        assert result.returncode != 0, describe(result)
        assert message in output_of(result), describe(result)
        expected = ([] if submit_connection is None else
                    [validate_conf_connection(cluster.generation), submit_connection])
        assert [collapse(c.methods) for c in conns] == expected
    assert set(cluster.capturer.state.active_storms()) == before


# -- kill ----------------------------------------------------------------------------------


def test_kill_removes_the_topology_after_the_wait(cluster, submitted):
    """`storm kill NAME -w 1` marks it KILLED with a 1 s wait; it is removed after that."""
    name = cluster.name("trident-wordcount")
    storm_id = submitted["trident-wordcount"][2]
    result, conns = cluster.storm("kill", name, "-w", "1")
    assert result.returncode == 0, describe(result, conns)
    assert [c.methods for c in conns] == [["getLeader", "killTopologyWithOpts"]]
    killed_at = conns[0].calls[1][1]
    base = cluster.storm_base(storm_id)
    if base is not None:
        assert base.status == ttypes.TopologyStatus.KILLED
        assert base.topology_action_options.kill_options.wait_secs == 1
    else:
        assert time.monotonic() - killed_at >= 1.0, "removed before the 1 s wait"
    cluster.wait_for("the removal of " + name,
                     lambda: True if cluster.storm_base(storm_id) is None else None)
    assert time.monotonic() - killed_at >= 1.0
    assert cluster.assignment(storm_id) is None
    assert name not in {t.name for t in cluster.direct("getClusterInfo").topologies}
