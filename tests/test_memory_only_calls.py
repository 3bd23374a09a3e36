"""Per-topology calls that read only memory are answered on the reactor thread.

getTopologyInfo(WithOpts) and getTopologyPageInfo hop to a thread (``run_blocking``) unless
the read cache serves the cluster state, the topology's stored conf and code were read before,
and no authorizer reads the stored conf; then they run at once.  Both ways give the same
answer.  Real cluster state (each backend, with its read cache), a real blob store.
"""

import threading

import pytest

from pynimbus.blobstore.local import LocalFsBlobStore
from pynimbus.clojure_port.authorization import NOOP_AUTHORIZER
from pynimbus.cluster import StormClusterState
from pynimbus.common.stored_topology import master_stormcode_key
from pynimbus.handlers.authorization import Authorization
from pynimbus.handlers.pages import PagesHandler
from pynimbus.handlers.queries import QueriesHandler
from pynimbus.nimbus.topology_store import setup_storm_code
from test_nimbus_scenarios import spout, topology
from test_read_cache import assignment, storm_base, worker_beat

STORM_ID = "t-1-100"


class Handlers:
    """The queries and pages concerns as the daemon wires them, on one cluster state, with a
    ``run_blocking`` that records what it was given and runs it on the spot."""

    def __init__(self, conf, state, tmp_path):
        self.threaded = []
        self.blob_store = LocalFsBlobStore(base_dir=str(tmp_path / "blobs"),
                                           replication_of=state.blob_replication)
        self.queries = QueriesHandler(conf, state, leadership=None, started_at=0,
                                      blob_store=self.blob_store, run_blocking=self.run,
                                      clock=lambda: 1000)
        self.pages = PagesHandler(conf, state, self.blob_store, run_blocking=self.run,
                                  clock=lambda: 1000)
        self.pages.stored_inputs = self.queries.stored_inputs
        self.pages.memory_only = self.queries.memory_only
        self.pages.topology_resources = self.queries.resources_for_topology

    def run(self, function, *args):
        self.threaded.append(function)
        return function(*args)

    def answers(self):
        """(getTopologyInfo, getTopologyPageInfo) of the topology, and whether each hopped."""
        before = len(self.threaded)
        info = self.queries.getTopologyInfo(STORM_ID)
        hopped_info = len(self.threaded) > before
        page = self.pages.getTopologyPageInfo(STORM_ID, ":all-time", False)
        hopped_page = len(self.threaded) > before + hopped_info
        return (info, page), (hopped_info, hopped_page)


def a_topology(state, blob_store):
    conf = {"topology.name": "t", "topology.workers": 1, "topology.acker.executors": 0,
            "topology.eventlogger.executors": 0}
    setup_storm_code(blob_store, STORM_ID, None, conf, topology({"spout": spout(1, 1)}))
    state.setup_blobstore(master_stormcode_key(STORM_ID), "nimbus-a:6627", 1)
    state.activate_storm(STORM_ID, storm_base("t"))
    state.set_assignment(STORM_ID, assignment())
    state.worker_heartbeat(STORM_ID, "sup-1", 6700, worker_beat(STORM_ID))


@pytest.fixture
def cached_state(open_backend):
    state = StormClusterState(open_backend())
    assert state.start_read_cache(15)
    yield state
    state.close()


def test_calls_hop_to_a_thread_until_the_topologys_code_was_read(cached_state, cluster_conf,
                                                                 tmp_path):
    """The first getTopologyInfo reads the stored conf and code in a thread; from then on
    both calls are answered at once, with the same answers; a topology whose code was never
    read, or an id that names none, goes to a thread."""
    handlers = Handlers(cluster_conf, cached_state, tmp_path)
    a_topology(cached_state, handlers.blob_store)
    first, hopped = handlers.answers()
    assert hopped == (True, False)  # the page call reuses what the first one read
    again, hopped = handlers.answers()
    assert hopped == (False, False)
    assert again == first
    assert [e.component_id for e in again[0].executors] == ["spout"]
    assert again[0].replication_count == 1
    for storm_id in ("t-2-100", "../x"):
        assert not handlers.queries.memory_only(storm_id, "getTopologyInfo")


def test_without_the_read_cache_every_call_hops(open_backend, cluster_conf, tmp_path):
    """Without the read cache the cluster state is read from the store: always a thread."""
    state = StormClusterState(open_backend())
    try:
        handlers = Handlers(cluster_conf, state, tmp_path)
        a_topology(state, handlers.blob_store)
        first, hopped = handlers.answers()
        again, hopped_again = handlers.answers()
        assert hopped == hopped_again == (True, True) and again == first
    finally:
        state.close()


def test_an_authorizer_that_reads_the_stored_conf_makes_the_info_call_hop(
        cached_state, cluster_conf, tmp_path):
    """With an authorizer, getTopologyInfo reads the stored conf to check the call: a
    thread, every time."""
    handlers = Handlers(cluster_conf, cached_state, tmp_path)
    a_topology(cached_state, handlers.blob_store)
    handlers.queries.authorization = Authorization(authorizer=NOOP_AUTHORIZER)
    handlers.answers()
    _, hopped = handlers.answers()
    assert hopped[0] is True


def test_the_replication_count_is_read_while_the_blob_store_is_busy(cached_state, cluster_conf,
                                                                    tmp_path):
    """The blob store holds its lock across disk writes; the replication count a call on
    the reactor reads does not wait for it."""
    handlers = Handlers(cluster_conf, cached_state, tmp_path)
    a_topology(cached_state, handlers.blob_store)
    held, answered = threading.Event(), threading.Event()
    outcome = {}

    def hold_the_lock():
        with handlers.blob_store._lock:
            held.set()
            outcome["waited in vain"] = not answered.wait(30)

    holder = threading.Thread(target=hold_the_lock)
    holder.start()
    try:
        assert held.wait(30)
        replication = handlers.blob_store.get_blob_replication(master_stormcode_key(STORM_ID))
        answered.set()
    finally:
        answered.set()
        holder.join(60)
    assert replication == 1 and outcome == {"waited in vain": False}


def spout_beat(emitted):
    """The worker's heartbeat with the spout executor having emitted ``emitted`` tuples."""
    from pynimbus.generated.storm import ttypes
    counts = {":all-time": {"default": emitted}, "600": {"default": emitted}}
    stats = ttypes.ExecutorStats(
        emitted=counts, transferred=counts, rate=1.0,
        specific=ttypes.ExecutorSpecificStats(spout=ttypes.SpoutStats(
            acked=counts, failed={":all-time": {"default": 0}},
            complete_ms_avg={":all-time": {"default": 1.5}})))
    return ttypes.ClusterWorkerHeartbeat(storm_id=STORM_ID, time_secs=100, uptime_secs=3,
                                         executor_stats={ttypes.ExecutorInfo(1, 1): stats})


def test_a_kept_page_follows_every_change_of_what_it_is_made_from(cached_state, cluster_conf,
                                                                  tmp_path):
    """A topology page is kept while its sources are the same (each call still gets its own
    copy), and after each change (a heartbeat, an error, the StormBase, the Assignment, the
    replication count) equals what a handler that keeps nothing answers; a killed topology's
    page is not alive."""
    from pynimbus.generated.storm.ttypes import NotAliveException, TopologyStatus
    handlers = Handlers(cluster_conf, cached_state, tmp_path)
    a_topology(cached_state, handlers.blob_store)

    def pages(window=":all-time"):
        fresh = Handlers(cluster_conf, cached_state, tmp_path / ("fresh-%d" % len(seen)))
        fresh.pages.stored_inputs = handlers.queries.stored_inputs
        fresh.pages.blob_store = handlers.blob_store
        seen.append(fresh)
        return (handlers.pages.getTopologyPageInfo(STORM_ID, window, False),
                fresh.pages._topology_page_info(STORM_ID, window, False))

    seen = []
    kept, fresh = pages()
    again, _ = pages()
    assert again == kept == fresh and again is not kept
    changes = [
        lambda: cached_state.worker_heartbeat(STORM_ID, "sup-1", 6700, spout_beat(7)),
        lambda: cached_state.worker_heartbeat(STORM_ID, "sup-1", 6700, spout_beat(9)),
        lambda: cached_state.report_error(STORM_ID, "spout", "host-1", 6700, "it broke"),
        lambda: cached_state.update_storm(STORM_ID, {"status": TopologyStatus.INACTIVE}),
        lambda: cached_state.set_assignment(STORM_ID, assignment(port=6701)),
        lambda: cached_state.setup_blobstore(master_stormcode_key(STORM_ID), "nimbus-b:6627",
                                             1),
    ]
    before = kept
    for change in changes:
        change()
        kept, fresh = pages()
        assert kept == fresh and kept != before
        before = kept
    assert pages("600")[0] == pages("600")[1]
    assert kept.status == "INACTIVE" and kept.replication_count == 2
    cached_state.remove_storm_base(STORM_ID)
    with pytest.raises(NotAliveException):
        handlers.pages.getTopologyPageInfo(STORM_ID, ":all-time", False)


def test_the_info_follows_a_new_assignment(cached_state, cluster_conf, tmp_path):
    """getTopologyInfo keeps the executors' order while the Assignment is the same one, and
    lists the new slots once it changes."""
    handlers = Handlers(cluster_conf, cached_state, tmp_path)
    a_topology(cached_state, handlers.blob_store)
    assert [e.port for e in handlers.queries.getTopologyInfo(STORM_ID).executors] == [6700]
    assert [e.port for e in handlers.queries.getTopologyInfo(STORM_ID).executors] == [6700]
    cached_state.set_assignment(STORM_ID, assignment(node="sup-2", port=6701))
    [executor] = handlers.queries.getTopologyInfo(STORM_ID).executors
    assert (executor.port, executor.host) == (6701, "host-1")
