"""getClusterInfo keeps what it made while its sources are the same.

The list of topology summaries is kept while the read cache's /storms, /assignments and
/blobstore, the blob store's keys, the monitor's booked figures and the scheduler's statuses
are the same; each supervisor's summary and encoding while its SupervisorInfo is; the answer
carries its encoding, made from the kept ones.  After every kind of change the answer equals
what a handler that keeps nothing gives, and its encoding is the answer's.  Real cluster state
(each backend, with its read cache), a real blob store.
"""

import time

from pynimbus.cluster import StormClusterState
from pynimbus.common.stored_topology import master_stormcode_key
from pynimbus.generated.storm.ttypes import NodeInfo, TopologyStatus
from pynimbus.handlers.queries import QueriesHandler
from pynimbus.nimbus.monitor import ResourceBook
from pynimbus.nimbus.topology_store import setup_storm_code
from pynimbus.thrift.encoded_reply import encode_binary, encoding_of
from test_memory_only_calls import Handlers, cached_state  # noqa: F401 (a fixture)
from test_nimbus_scenarios import spout, topology
from test_read_cache import assignment, storm_base, supervisor_info


class Leadership:
    def leader(self):
        return "nimbus-a:6627"


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def submit(state, blob_store, storm_id, name):
    conf = {"topology.name": name, "topology.workers": 1, "topology.acker.executors": 0,
            "topology.eventlogger.executors": 0}
    setup_storm_code(blob_store, storm_id, None, conf, topology({"spout": spout(1, 1)}))
    state.setup_blobstore(master_stormcode_key(storm_id), "nimbus-a:6627", 1)
    state.activate_storm(storm_id, storm_base(name))
    state.set_assignment(storm_id, assignment())


def two_workers():
    """An Assignment of two executors on two workers."""
    placed = assignment()
    placed.executor_node_port[(2, 2)] = NodeInfo(node="sup-1", port={6701})
    placed.executor_start_time_secs[(2, 2)] = 100
    return placed


def wait_until(condition, what, timeout=30):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting for " + what
        time.sleep(0.02)


def test_the_cluster_info_follows_every_change_of_what_it_is_made_from(
        cached_state, cluster_conf, tmp_path, open_backend):
    """The kept answer equals a memo-less handler's after each change; its encoding is the
    answer's own; calls with nothing changed share the summaries they hand out."""
    clock = Clock()
    statuses = {}
    book = ResourceBook()
    handlers = Handlers(cluster_conf, cached_state, tmp_path)
    blob_store = handlers.blob_store

    def handler():
        return QueriesHandler(cluster_conf, cached_state, Leadership(), started_at=900,
                              blob_store=blob_store, run_blocking=lambda f, *a: f(*a),
                              clock=clock, resources=book, sched_status=statuses.get)

    kept_handler = handler()

    def answers():
        kept = kept_handler.getClusterInfo()
        assert encoding_of(kept) == encode_binary(kept)
        return kept, handler().getClusterInfo()

    submit(cached_state, blob_store, "a-1-100", "a")
    cached_state.supervisor_heartbeat("sup-1", supervisor_info("host-1"))
    kept, fresh = answers()
    again, _ = answers()
    assert kept == fresh == again and again.topologies[0] is kept.topologies[0]
    other_session = StormClusterState(open_backend())

    def supervisor_comes():
        other_session.supervisor_heartbeat("sup-2", supervisor_info("host-2"))
        wait_until(lambda: "sup-2" in cached_state.supervisors(), "sup-2 to come")

    def supervisor_gone():
        other_session.close()
        wait_until(lambda: "sup-2" not in cached_state.supervisors(), "sup-2 to go")

    changes = [
        ("a second passes", lambda: setattr(clock, "now", clock.now + 1)),
        ("a supervisor beats", lambda: cached_state.supervisor_heartbeat(
            "sup-1", supervisor_info("host-1b"))),
        ("a supervisor comes", supervisor_comes),
        ("a topology comes", lambda: submit(cached_state, blob_store, "b-2-100", "b")),
        ("a status changes", lambda: cached_state.update_storm(
            "a-1-100", {"status": TopologyStatus.INACTIVE})),
        ("an assignment changes", lambda: cached_state.set_assignment(
            "a-1-100", two_workers())),
        ("another nimbus holds the code", lambda: cached_state.setup_blobstore(
            master_stormcode_key("b-2-100"), "nimbus-b:6627", 1)),
        ("this nimbus drops the code", lambda: blob_store.delete_blob(
            master_stormcode_key("a-1-100"))),
        ("the scheduler refuses one", lambda: statuses.update({"b-2-100": "no slots"})),
        ("a round books figures", lambda: book.after_round(
            {"b-2-100": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]}, {})),
        ("a supervisor goes", supervisor_gone),
        ("a topology goes", lambda: cached_state.remove_storm_base("b-2-100")),
    ]
    before = kept
    for what, change in changes:
        change()
        kept, fresh = answers()
        assert kept == fresh, what
        assert kept != before, what
        before = kept
    assert [t.id for t in kept.topologies] == ["a-1-100"]
    assert [s.supervisor_id for s in kept.supervisors] == ["sup-1"]


def test_without_the_read_cache_the_answer_is_made_every_time(open_backend, cluster_conf,
                                                              tmp_path):
    """Without the read cache nothing says when /storms or /assignments change: the list is
    made every call, and still carries its encoding."""
    state = StormClusterState(open_backend())
    try:
        handlers = Handlers(cluster_conf, state, tmp_path)
        queries = QueriesHandler(cluster_conf, state, Leadership(), started_at=900,
                                 blob_store=handlers.blob_store,
                                 run_blocking=lambda f, *a: f(*a), clock=lambda: 1000)
        submit(state, handlers.blob_store, "a-1-100", "a")
        first = queries.getClusterInfo()
        state.update_storm("a-1-100", {"status": TopologyStatus.INACTIVE})
        second = queries.getClusterInfo()
        assert [t.status for t in (first.topologies + second.topologies)] == [
            "ACTIVE", "INACTIVE"]
        assert encoding_of(second) == encode_binary(second)
    finally:
        state.close()
