# -*- test-case-name: tests.test_blob_replication -*-
"""Two ``pynimbus dev`` nimbuses on one real ZooKeeper replicate blobs as Storm's do.

The follower copies the leader's jar, code and conf within ``nimbus.code.sync.freq.secs`` and
registers ``/blobstore/<key>/<host:port>-<seq>``, so ``replication_count`` is 2; when the leader
is killed and its disk is gone, the follower leads and serves the topology unchanged.  A submit
with ``topology.min.replication.count`` 2 waits for the second copy, or gives up waiting after
``topology.max.replication.wait.time.sec`` and goes on, as Storm's
``wait-for-desired-code-replication``.
"""

import json
import shutil
import threading

import pytest
from thrift.Thrift import TApplicationException

from nimbus_process import NimbusProcess, zookeeper_options
from test_nimbus_scenarios import spout, topology
from test_blobstore_synchronizer import put
from test_handlers_blobs import download as download_chunks
from test_supervisor_code import jar_bytes
from pynimbus.cluster import StormClusterState, make_backend
from pynimbus.generated.storm.ttypes import KeyNotFoundException
from pynimbus.thrift.client import NimbusClient

# tens of seconds each (tox -e slow, which CI runs, not the default run)
pytestmark = [pytest.mark.zookeeper, pytest.mark.slow]

LOOPBACK = "127.0.0.1"
JAR = jar_bytes({"resources/hello.py": b"print('hello')\n", "x/Big.class": bytes(range(256)) * 800})


def nimbus_options(zookeeper_conf):
    return zookeeper_options(
        zookeeper_conf["storm.zookeeper.servers"], zookeeper_conf["storm.zookeeper.port"],
        zookeeper_conf["storm.zookeeper.root"]) + [
        "storm.local.hostname=%s" % LOOPBACK,
        "pynimbus.thrift.bind.address=%s" % LOOPBACK,
        "nimbus.code.sync.freq.secs=1",
        "nimbus.monitor.freq.secs=1",
        # a killed leader's latch node goes with its session: let it go soon
        "storm.zookeeper.session.timeout=4000",
        "topology.acker.executors=0", "topology.eventlogger.executors=0"]


@pytest.fixture
def start_nimbus(zookeeper_conf, tmp_path):
    """``start_nimbus(name, port=None, *options)``: a started nimbus in ``tmp_path/name`` (kept
    when it exists: a restart); all stopped after."""
    started = []

    def start(name, port=None, *options):
        local = tmp_path / name
        local.mkdir(exist_ok=True)
        proc = NimbusProcess(local, port=port,
                             options=nimbus_options(zookeeper_conf) + list(options))
        started.append(proc)
        proc.start(timeout=60)
        return proc

    yield start
    for proc in started:
        proc.kill()


@pytest.fixture
def state(zookeeper_conf):
    cluster_state = StormClusterState(make_backend(zookeeper_conf))
    yield cluster_state
    cluster_state.close()


def client(proc):
    return NimbusClient(LOOPBACK, proc.port, timeout=90)


def leader_port(proc):
    """The port of the leader the nimbus names; None while it names none (a dead leader's
    latch node outlives its /nimbuses entry until its session expires)."""
    with client(proc) as nimbus:
        try:
            return nimbus.getLeader().port
        except TApplicationException:
            return None


def upload_jar(nimbus):
    location = nimbus.beginFileUpload()
    for start in range(0, len(JAR), 100000):
        nimbus.uploadChunk(location, JAR[start:start + 100000])
    nimbus.finishFileUpload(location)
    return location


def submit(proc, name, conf=None):
    """Submit a one-spout topology with :data:`JAR`; return its storm id."""
    with client(proc) as nimbus:
        nimbus.submitTopology(name, upload_jar(nimbus), json.dumps(conf or {}),
                              topology({"spout": spout(parallelism=2)}))
        [storm_id] = [t.id for t in nimbus.getClusterInfo().topologies if t.name == name]
    return storm_id


def blob_keys(storm_id):
    return [storm_id + suffix for suffix in ("-stormjar.jar", "-stormcode.ser", "-stormconf.ser")]


def download(nimbus, key):
    """The blob's bytes through beginBlobDownload/downloadBlobChunk, as a supervisor reads."""
    return b"".join(download_chunks(nimbus, key)[1])


def holds(proc, keys):
    """Whether the nimbus answers every key from its own blob store."""
    with client(proc) as nimbus:
        for key in keys:
            try:
                nimbus.getBlobMeta(key)
            except KeyNotFoundException:
                return False
    return True


def replication_count(proc, storm_id):
    with client(proc) as nimbus:
        return nimbus.getTopologyInfo(storm_id).replication_count


def test_follower_copies_the_blobs_and_serves_them_after_the_leader_is_lost(
        start_nimbus, state, wait_until):
    """The follower holds the jar, code and conf within the sync period, both are counted,
    and after kill -9 of the leader and the loss of its disk the follower leads and serves
    getTopology, getTopologyConf and the jar's bytes unchanged."""
    first = start_nimbus("a")
    wait_until(lambda: leader_port(first) == first.port, 30, "the first nimbus to lead")
    second = start_nimbus("b")
    storm_id = submit(first, "replicated")
    keys = blob_keys(storm_id)

    wait_until(lambda: holds(second, keys), 30, "the follower to hold jar, code and conf")
    wait_until(lambda: replication_count(first, storm_id) == 2, 30, "replication count 2")
    for key in keys:
        holders = sorted(child.rsplit("-", 1)[0] for child in state.blobstore_info(key))
        assert holders == sorted("%s:%d" % (LOOPBACK, p.port) for p in (first, second))
    with client(first) as nimbus:
        before = (nimbus.getTopology(storm_id), nimbus.getUserTopology(storm_id),
                  nimbus.getTopologyConf(storm_id), download(nimbus, keys[0]))
    assert before[3] == JAR

    first.kill()
    shutil.rmtree(first.local_dir)
    wait_until(lambda: leader_port(second) == second.port, 60, "the follower to lead")

    with client(second) as nimbus:
        after = (nimbus.getTopology(storm_id), nimbus.getUserTopology(storm_id),
                 nimbus.getTopologyConf(storm_id), download(nimbus, keys[0]))
        assert [t.id for t in nimbus.getClusterInfo().topologies] == [storm_id]
    assert after == before
    wait_until(lambda: replication_count(second, storm_id) == 1, 30,
               "the dead leader's copies to leave /blobstore")


def test_submit_waits_for_the_minimum_replication(start_nimbus, state, wait_until):
    """With topology.min.replication.count 2 the submission stores its blobs and waits, not
    yet active, until a second nimbus holds them; then the topology starts."""
    first = start_nimbus("a")
    wait_until(lambda: leader_port(first) == first.port, 30, "the first nimbus to lead")
    outcome = {}

    def submit_in_background():
        try:
            outcome["id"] = submit(first, "waits", {"topology.min.replication.count": 2,
                                                    "topology.max.replication.wait.time.sec": -1})
        except Exception as e:  # reported by the assertion below
            outcome["error"] = e

    submitter = threading.Thread(target=submit_in_background, daemon=True)
    submitter.start()
    wait_until(lambda: any(k.startswith("waits-") and k.endswith("-stormconf.ser")
                           for k in state.active_keys()), 30, "the submission's blobs")
    assert state.active_storms() == [] and submitter.is_alive()

    start_nimbus("b")
    submitter.join(60)
    assert not submitter.is_alive() and "error" not in outcome, outcome
    assert state.active_storms() == [outcome["id"]]
    assert replication_count(first, outcome["id"]) == 2


def test_submit_stops_waiting_after_the_max_wait(start_nimbus, state, wait_until):
    """Alone, a nimbus asked for 2 copies waits topology.max.replication.wait.time.sec, then
    starts the topology with the one copy it has (Storm only logs it)."""
    only = start_nimbus("a")
    wait_until(lambda: leader_port(only) == only.port, 30, "the nimbus to lead")
    storm_id = submit(only, "alone", {"topology.min.replication.count": 2,
                                      "topology.max.replication.wait.time.sec": 2})
    assert state.active_storms() == [storm_id]
    assert replication_count(only, storm_id) == 1
    assert logged(only, "desired replication count of 2 not achieved but we have hit the max "
                        "wait time 2 so moving on")


def latch_ids(state):
    """The participant ids queued under /leader-lock."""
    ids = []
    for child in state.backend.get_children("/leader-lock"):
        data = state.backend.get("/leader-lock/" + child)
        if data is not None:
            ids.append(data.decode("utf-8"))
    return ids


def log_count(proc, text):
    """How many times the nimbus's log has ``text``."""
    with open(proc.log_path, encoding="utf-8") as log:
        return log.read().count(text)


def logged(proc, text):
    return log_count(proc, text) > 0


GAVE_UP = "code for all active topologies not available locally"


def assert_refuses_submit(proc):
    """The nimbus serves as a follower: a submit is refused with "not a leader"."""
    with client(proc) as nimbus, pytest.raises(TApplicationException, match="not a leader"):
        nimbus.submitTopology("refused", "", json.dumps({}), topology({"s": spout()}))


def test_a_new_leader_without_the_blobs_leaves_the_queue_for_good_in_1x(
        start_nimbus, state, wait_until):
    """A nimbus that gains leadership while lacking an active topology's blobs gives it up and,
    as 1.2.4 closes its latch for good, stays out of /leader-lock (so no nimbus leads) even
    after the old leader is back and it has copied the blobs from it."""
    first = start_nimbus("a")
    wait_until(lambda: leader_port(first) == first.port, 30, "the first nimbus to lead")
    storm_id = submit(first, "stranded")
    first.kill()
    second = start_nimbus("b")
    wait_until(lambda: logged(second, GAVE_UP), 60, "the newcomer to give up leadership")
    me = "%s:%d" % (LOOPBACK, second.port)
    wait_until(lambda: me not in latch_ids(state), 30, "it to leave /leader-lock")
    assert_refuses_submit(second)

    restarted = start_nimbus("a", first.port)
    wait_until(lambda: leader_port(restarted) == restarted.port, 60, "the old leader to lead")
    wait_until(lambda: holds(second, blob_keys(storm_id)), 30, "the newcomer to copy the blobs")
    assert latch_ids(state) == ["%s:%d" % (LOOPBACK, restarted.port)]


def test_a_new_leader_without_the_blobs_queues_again_after_the_sync_period_in_2x(
        start_nimbus, state, wait_until):
    """In 2.x the nimbus that gave leadership up queues again nimbus.code.sync.freq.secs later
    (2.8.8 quitElectionFor), and gives it up again while it still lacks the blobs."""
    first = start_nimbus("a", None, "pynimbus.storm.compat=2.x")
    wait_until(lambda: leader_port(first) == first.port, 30, "the first nimbus to lead")
    submit(first, "stranded")
    first.kill()
    second = start_nimbus("b", None, "pynimbus.storm.compat=2.x")
    me = "%s:%d:0" % (LOOPBACK, second.port)
    wait_until(lambda: logged(second, GAVE_UP), 60, "the newcomer to give up leadership")
    wait_until(lambda: logged(second, "queued for leader lock"), 30, "it to queue again")
    wait_until(lambda: me in latch_ids(state) or log_count(second, GAVE_UP) > 1, 30,
               "it to be back in /leader-lock or to have given up again")
    # getLeader names the latch's first node, which may be its own for a moment (as Storm's);
    # what it serves is a follower's: a submit is refused
    assert_refuses_submit(second)


def blob_on(proc, key):
    """The blob's bytes as the nimbus serves them, or None when it does not hold it."""
    with client(proc) as nimbus:
        try:
            return download(nimbus, key)
        except KeyNotFoundException:
            return None


def test_follower_follows_the_leaders_updates_and_deletions(start_nimbus, wait_until):
    """A user blob created, updated, then deleted on the leader is created, updated and
    deleted on the follower within the sync period."""
    first = start_nimbus("a")
    wait_until(lambda: leader_port(first) == first.port, 30, "the first nimbus to lead")
    second = start_nimbus("b")
    with client(first) as nimbus:
        put(nimbus, "user-blob", b"version one")
    wait_until(lambda: blob_on(second, "user-blob") == b"version one", 30, "the copy")
    with client(first) as nimbus:
        put(nimbus, "user-blob", b"version two", update=True)
    wait_until(lambda: blob_on(second, "user-blob") == b"version two", 30, "the update")

    def replication():
        with client(first) as nimbus:
            return nimbus.getBlobReplication("user-blob")

    wait_until(lambda: replication() == 2, 30, "the updated copy to be registered")
    with client(first) as nimbus:
        nimbus.deleteBlob("user-blob")
    wait_until(lambda: blob_on(second, "user-blob") is None, 30, "the deletion")
