"""Black-box tests of the UI page calls against a `pynimbus dev` process.

Each test starts a nimbus on the embedded store with simulated supervisors, submits a topology
through the Thrift API, writes the ClusterWorkerHeartbeats its workers would write (with
ExecutorStats for every executor) through cluster state, and then reads
``getTopologyPageInfo``, ``getComponentPageInfo`` and ``getSupervisorPageInfo`` with a raw
Thrift client.  The expected numbers are worked out by hand from stats.clj's formulas.
"""
# test-case-name: tests.test_handlers_pages

import json
import time

import pytest

from pynimbus.generated.storm.ttypes import (
    Bolt, BoltStats, ClusterWorkerHeartbeat, ComponentCommon, ComponentType, ExecutorInfo,
    ExecutorSpecificStats, ExecutorStats, GlobalStreamId, Grouping, NotAliveException,
    NullStruct, SpoutSpec, SpoutStats, StormTopology, StreamInfo, SupervisorInfo)
from pynimbus.handlers.pages import eventlogger_host_port
from test_nimbus_scenarios import SHELL
from test_nimbus_scenarios import Cluster as ScenarioCluster
from test_nimbus_scenarios import made_clusters

WORDS = GlobalStreamId("words", "default")
UPTIME = 120


def word_count():
    """Spout ``words`` (2 executors) feeding bolt ``count`` (2 executors)."""
    return StormTopology(
        spouts={"words": SpoutSpec(SHELL, ComponentCommon(
            inputs={}, streams={"default": StreamInfo(["word"], False)}, parallelism_hint=2))},
        bolts={"count": Bolt(SHELL, ComponentCommon(
            inputs={WORDS: Grouping(shuffle=NullStruct())},
            streams={"default": StreamInfo(["word", "n"], False)}, parallelism_hint=2))},
        state_spouts={})


def spout_stats(i):
    """Spout executor ``i`` (0, 1): emitted 10(i+1) on default (and a system stream), acked
    8(i+1), failed i, complete latency 10(i+1) ms in the 600 s window."""
    n = i + 1
    return ExecutorStats(
        emitted={"600": {"default": 10 * n, "__metrics": 5}, ":all-time": {"default": 100 * n}},
        transferred={"600": {"default": 10 * n, "__metrics": 5},
                     ":all-time": {"default": 100 * n}},
        rate=1.0,
        specific=ExecutorSpecificStats(spout=SpoutStats(
            acked={"600": {"default": 8 * n}, ":all-time": {"default": 80 * n}},
            failed={"600": {"default": i}, ":all-time": {"default": i}},
            complete_ms_avg={"600": {"default": 10.0 * n}, ":all-time": {"default": 10.0 * n}})))


def bolt_stats(j):
    """Bolt executor ``j`` (0, 1): executed and acked 12(j+1) from words, execute and process
    latency 2(j+1) ms, emitted 6(j+1), in the 600 s window."""
    n = j + 1
    return ExecutorStats(
        emitted={"600": {"default": 6 * n}, ":all-time": {"default": 60 * n}},
        transferred={"600": {"default": 6 * n}, ":all-time": {"default": 60 * n}},
        rate=1.0,
        specific=ExecutorSpecificStats(bolt=BoltStats(
            acked={"600": {WORDS: 12 * n}}, failed={"600": {}},
            process_ms_avg={"600": {WORDS: 2.0 * n}}, executed={"600": {WORDS: 12 * n}},
            execute_ms_avg={"600": {WORDS: 2.0 * n}})))


class Cluster(ScenarioCluster):
    """A nimbus, a cluster-state session on its store, simulated supervisors sup-a, sup-b."""

    def __init__(self, tmp_path, options=()):
        super().__init__(tmp_path, supervisors=0, options=options)
        for supervisor_id in ("sup-a", "sup-b"):
            self.state.supervisor_heartbeat(supervisor_id, SupervisorInfo(
                time_secs=int(time.time()), hostname="host-" + supervisor_id,
                assignment_id=supervisor_id, used_ports=[], meta=[6700, 6701, 6702],
                scheduler_meta={}, uptime_secs=10, version="1.2.4"))

    def submit_word_count(self, name="wc"):
        """Submit the word count; return its id once nimbus answers from its Assignment
        (this test's session may read the Assignment before nimbus's read cache has it)."""
        self.submit(name, {"topology.workers": 2}, word_count())
        self.assignment(name)
        storm_id = self.storm_id(name)
        self.wait_for(lambda: self.call("getTopologyInfo", id=storm_id).executors,
                      "nimbus to answer from the assignment")
        return storm_id

    def write_heartbeats(self, storm_id):
        """Write each worker's ClusterWorkerHeartbeat, as a 1.x worker does; return the
        assignment's executors as ``{(start, end): (node, port)}``."""
        assignment = self.state.assignment_info(storm_id)
        task_to_component = self.task_to_component(storm_id)
        seen = {"words": 0, "count": 0}
        slots = {}
        executors = {}
        for executor, node_info in sorted(assignment.executor_node_port.items()):
            component = task_to_component[executor[0]]
            slot = (node_info.node, sorted(node_info.port)[0])
            executors[tuple(executor)] = slot
            make = spout_stats if component == "words" else bolt_stats
            stats = make(seen[component])
            seen[component] += 1
            slots.setdefault(slot, {})[ExecutorInfo(executor[0], executor[1])] = stats
        for (node, port), executor_stats in slots.items():
            self.state.worker_heartbeat(storm_id, node, port, ClusterWorkerHeartbeat(
                storm_id=storm_id, executor_stats=executor_stats, time_secs=int(time.time()),
                uptime_secs=UPTIME))
        # nimbus reads from its watch-kept cache: wait (bounded) until it has every beat
        self.wait_for(lambda: sum(e.stats is not None for e in self.call(
            "getTopologyInfo", id=storm_id).executors) == len(executors),
            "nimbus to see the heartbeats")
        return executors


@pytest.fixture
def make_cluster(tmp_path):
    yield from made_clusters(tmp_path, Cluster)


def validate_deep(value):
    """Call ``validate()`` (required fields set) on every struct reachable from ``value``."""
    if isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            validate_deep(item)
    elif isinstance(value, dict):
        for k, v in value.items():
            validate_deep(k)
            validate_deep(v)
    elif hasattr(value, "thrift_spec") and hasattr(value, "validate"):
        value.validate()
        for field in value.thrift_spec or ():
            if field is not None:
                validate_deep(getattr(value, field[2]))


def check_component_agg_stats(agg, kind, resources=False):
    """What both UIs dereference without checking: type, common and specific stats, and on
    the topology page the resources map (1.2.4's UI reads keys of it)."""
    assert agg.type == kind
    assert agg.common_stats is not None
    assert not resources or agg.common_stats.resources_map is not None
    specific = agg.specific_stats.spout if kind == ComponentType.SPOUT \
        else agg.specific_stats.bolt
    assert specific is not None


def test_topology_page_aggregates_the_workers_heartbeats(make_cluster):
    """The topology page sums both executors of each component for the 600 s window: words
    emitted 10+20, acked 8+16, failed 1, complete latency (10*8 + 20*16)/24; count executed
    12+24, execute latency (2*12 + 4*24)/36, capacity max(24, 96)/(1000*120)."""
    cluster = make_cluster()
    storm_id = cluster.submit_word_count()
    executors = cluster.write_heartbeats(storm_id)
    page = cluster.call("getTopologyPageInfo", id=storm_id, window="600", is_include_sys=False)
    validate_deep(page)
    assert (page.id, page.name, page.status) == (storm_id, "wc", "ACTIVE")
    assert (page.num_tasks, page.num_executors) == (4, 4)
    assert page.num_workers == len(set(executors.values()))
    assert page.uptime_secs >= 0
    assert json.loads(page.topology_conf)["topology.name"] == "wc"
    assert page.replication_count == 1
    words = page.id_to_spout_agg_stats["words"]
    check_component_agg_stats(words, ComponentType.SPOUT, resources=True)
    c = words.common_stats
    assert (c.num_executors, c.num_tasks, c.emitted, c.transferred, c.acked, c.failed) == \
        (2, 2, 30, 30, 24, 1)
    assert words.specific_stats.spout.complete_latency_ms == pytest.approx(400 / 24)
    assert c.resources_map["topology.component.resources.onheap.memory.mb"] == 128.0
    count = page.id_to_bolt_agg_stats["count"]
    check_component_agg_stats(count, ComponentType.BOLT, resources=True)
    assert (count.common_stats.emitted, count.common_stats.acked) == (18, 36)
    b = count.specific_stats.bolt
    assert b.executed == 36
    assert b.execute_latency_ms == pytest.approx(120 / 36)
    assert b.process_latency_ms == pytest.approx(120 / 36)
    assert b.capacity == pytest.approx(96 / 120000)
    t = page.topology_stats
    assert t.window_to_emitted == {"600": 48, ":all-time": 480}
    assert t.window_to_acked == {"600": 24, ":all-time": 240}
    assert t.window_to_complete_latencies_ms["600"] == pytest.approx(400 / 24)
    assert sorted((w.supervisor_id, w.port) for w in page.workers) == \
        sorted(set(executors.values()))
    assert sum(w.num_executors for w in page.workers) == 4
    assert all(w.uptime_secs == UPTIME and w.topology_name == "wc" for w in page.workers)


def test_topology_page_includes_system_streams_when_asked(make_cluster):
    """With is_include_sys the spout's __metrics stream counts too: 30 + 2*5 emitted."""
    cluster = make_cluster()
    storm_id = cluster.submit_word_count()
    cluster.write_heartbeats(storm_id)
    page = cluster.call("getTopologyPageInfo", id=storm_id, window="600", is_include_sys=True)
    validate_deep(page)
    assert page.id_to_spout_agg_stats["words"].common_stats.emitted == 40


def test_topology_page_before_heartbeats_counts_executors(make_cluster):
    """Before any heartbeat (1.x) every component shows its executors with zero stats."""
    cluster = make_cluster()
    storm_id = cluster.submit_word_count()
    page = cluster.call("getTopologyPageInfo", id=storm_id, window=":all-time",
                        is_include_sys=False)
    validate_deep(page)
    assert page.id_to_spout_agg_stats["words"].common_stats.num_executors == 2
    assert page.id_to_bolt_agg_stats["count"].common_stats.emitted == 0
    assert page.topology_stats.window_to_emitted == {}


def test_component_page_of_a_bolt(make_cluster):
    """count: inputs from words (acked 36, executed 36), outputs on default (emitted 18), a
    row per executor with its host, port, uptime and own latency; window 600 s."""
    cluster = make_cluster()
    storm_id = cluster.submit_word_count()
    cluster.write_heartbeats(storm_id)
    page = cluster.call("getComponentPageInfo", topology_id=storm_id, component_id="count",
                        window="600", is_include_sys=False)
    validate_deep(page)
    assert (page.component_id, page.component_type, page.topology_id, page.topology_name) == \
        ("count", ComponentType.BOLT, storm_id, "wc")
    assert (page.num_executors, page.num_tasks, page.topology_status) == (2, 2, "ACTIVE")
    assert page.resources_map["topology.component.cpu.pcore.percent"] == 10.0
    assert page.errors == []
    for agg in page.window_to_stats.values():
        check_component_agg_stats(agg, ComponentType.BOLT)
    assert page.window_to_stats["600"].specific_stats.bolt.executed == 36
    inputs = page.gsid_to_input_stats[WORDS]
    assert (inputs.common_stats.acked, inputs.specific_stats.bolt.executed) == (36, 36)
    assert inputs.specific_stats.bolt.execute_latency_ms == pytest.approx(120 / 36)
    assert page.sid_to_output_stats["default"].common_stats.emitted == 18
    rows = sorted(page.exec_stats, key=lambda r: r.stats.specific_stats.bolt.executed)
    assert [r.stats.specific_stats.bolt.executed for r in rows] == [12, 24]
    assert [r.stats.specific_stats.bolt.execute_latency_ms for r in rows] == [2.0, 4.0]
    assert all(r.exec_summary.host.startswith("host-sup-") and
               r.exec_summary.uptime_secs == UPTIME and r.exec_summary.component_id == "count"
               for r in rows)


def test_component_page_of_a_spout(make_cluster):
    """words, all-time: emitted 100+200, acked 80+160, complete latency (10*80+20*160)/240."""
    cluster = make_cluster()
    storm_id = cluster.submit_word_count()
    cluster.write_heartbeats(storm_id)
    page = cluster.call("getComponentPageInfo", topology_id=storm_id, component_id="words",
                        window=":all-time", is_include_sys=False)
    validate_deep(page)
    assert page.component_type == ComponentType.SPOUT
    out = page.sid_to_output_stats["default"]
    check_component_agg_stats(page.window_to_stats[":all-time"], ComponentType.SPOUT)
    assert (out.common_stats.emitted, out.common_stats.acked) == (300, 240)
    assert out.specific_stats.spout.complete_latency_ms == pytest.approx(4000 / 240)
    assert set(page.sid_to_output_stats) == {"default"}
    assert len(page.exec_stats) == 2


def test_supervisor_page_by_id_and_by_host(make_cluster):
    """A supervisor's page lists it and the workers of the topologies assigned to it; by host
    it finds the same supervisor; an unknown host is an empty page."""
    cluster = make_cluster()
    storm_id = cluster.submit_word_count()
    executors = cluster.write_heartbeats(storm_id)
    node = sorted(set(n for n, _ in executors.values()))[0]
    by_id = cluster.call("getSupervisorPageInfo", id=node, host=None, is_include_sys=False)
    validate_deep(by_id)
    assert [s.supervisor_id for s in by_id.supervisor_summaries] == [node]
    assert by_id.supervisor_summaries[0].host == "host-" + node
    ports = sorted(p for n, p in set(executors.values()) if n == node)
    assert sorted(w.port for w in by_id.worker_summaries) == ports
    worker = by_id.worker_summaries[0]
    assert (worker.supervisor_id, worker.topology_id, worker.topology_name, worker.host) == \
        (node, storm_id, "wc", "host-" + node)
    assert worker.num_executors == sum(1 for n, p in executors.values()
                                       if (n, p) == (node, worker.port))
    assert sum(worker.component_to_num_tasks.values()) == worker.num_executors
    by_host = cluster.call("getSupervisorPageInfo", id=None, host="host-" + node,
                           is_include_sys=False)
    assert by_host == by_id
    empty = cluster.call("getSupervisorPageInfo", id=None, host="nowhere", is_include_sys=False)
    assert (empty.supervisor_summaries, empty.worker_summaries) == (None, None)  # as Storm


def test_supervisor_pages_see_every_change_of_the_assignments(open_backend, cluster_conf):
    """What the supervisor page keeps of the assignments (which supervisors each topology
    is on) follows every change of /assignments through the read cache, and is not served
    while the cache cannot be read."""
    from pynimbus.cluster import StormClusterState
    from pynimbus.cluster.backend import ConnectionLostError
    from pynimbus.handlers.pages import PagesHandler
    from test_read_cache import assignment

    state = StormClusterState(open_backend())
    assert state.start_read_cache(15)
    try:
        pages = PagesHandler(cluster_conf, state, blob_store=None)
        state.set_assignment("t-1-100", assignment(node="sup-1"))
        assert pages._assignment_nodes() == {"t-1-100": {"sup-1"}}
        assert pages._assignment_nodes() == {"t-1-100": {"sup-1"}}  # kept
        state.set_assignment("t-1-100", assignment(node="sup-2"))
        state.set_assignment("t-2-100", assignment(node="sup-1"))
        assert pages._assignment_nodes() == {"t-1-100": {"sup-2"}, "t-2-100": {"sup-1"}}
        state.remove_storm("t-2-100")
        assert pages._assignment_nodes() == {"t-1-100": {"sup-2"}}
        state.read_cache.set_unavailable("ZooKeeper is unreachable")
        with pytest.raises(ConnectionLostError):
            pages._assignment_nodes()
    finally:
        state.close()


def test_unknown_ids(make_cluster):
    """Unknown topology (both pages) and supervisor ids are NotAliveException; so is an
    unknown component, with a message naming it (Storm: an internal error)."""
    cluster = make_cluster()
    storm_id = cluster.submit_word_count()
    with pytest.raises(NotAliveException):
        cluster.call("getTopologyPageInfo", id="bogus-1-1", window="600", is_include_sys=False)
    with pytest.raises(NotAliveException):
        cluster.call("getComponentPageInfo", topology_id="bogus-1-1", component_id="count",
                     window="600", is_include_sys=False)
    with pytest.raises(NotAliveException):
        cluster.call("getSupervisorPageInfo", id="no-such-sup", host=None,
                     is_include_sys=False)
    with pytest.raises(NotAliveException) as failure:
        cluster.call("getComponentPageInfo", topology_id=storm_id, component_id="nope",
                     window="600", is_include_sys=False)
    assert storm_id in failure.value.msg and "'nope'" in failure.value.msg


def test_2x_pages_show_placeholders_and_normalized_resources(make_cluster):
    """For the 2.x generation, the topology page shows every component with zero stats
    before heartbeats, resources under the normalized names, and the component page takes a
    URL-encoded id."""
    cluster = make_cluster(options=["pynimbus.storm.compat=2.x"])
    storm_id = cluster.submit_word_count()
    before = cluster.call("getTopologyPageInfo", id=storm_id, window=":all-time",
                          is_include_sys=False)
    validate_deep(before)
    words = before.id_to_spout_agg_stats["words"]
    assert (words.common_stats.num_executors, words.common_stats.emitted) == (2, 0)
    assert words.common_stats.resources_map["onheap.memory.mb"] == 128.0
    cluster.write_heartbeats(storm_id)
    page = cluster.call("getComponentPageInfo", topology_id=storm_id, component_id="co%75nt",
                        window="600", is_include_sys=False)
    validate_deep(page)
    assert page.component_id == "count"  # 2.8.8 URL-decodes the id
    assert page.resources_map["cpu.pcore.percent"] == 10.0
    assert page.window_to_stats["600"].specific_stats.bolt.executed == 36


def wait_until(condition, what, timeout=15.0):
    """Poll ``condition()`` until it returns a true value (bounded); that value."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail("timed out waiting for " + what)
        time.sleep(0.05)


def test_1x_resources_as_the_scheduling_rounds_book_them(make_cluster):
    """1.x pages show 1.2.4's bookkeeping, as getClusterInfo does: a round charges every used
    slot one worker's heap (768 MB) plus its log writer (64 MB) and requests nothing, so the
    topology is assigned 2 x 832 MB, each worker 832 MB, and each supervisor uses 832 MB per
    worker it runs."""
    cluster = make_cluster()
    storm_id = cluster.submit_word_count()
    summary = wait_until(lambda: next(
        (t for t in cluster.call("getClusterInfo").topologies
         if t.id == storm_id and t.assigned_memonheap == 1664.0), None), "a booking round")
    page = cluster.call("getTopologyPageInfo", id=storm_id, window=":all-time",
                        is_include_sys=False)
    figures = ("requested_memonheap", "requested_memoffheap", "requested_cpu",
               "assigned_memonheap", "assigned_memoffheap", "assigned_cpu")
    assert [getattr(page, f) for f in figures] == [getattr(summary, f) for f in figures] == \
        [0.0, 0.0, 0.0, 1664.0, 0.0, 0.0]
    assert [(w.assigned_memonheap, w.assigned_memoffheap, w.assigned_cpu)
            for w in page.workers] == [(832.0, 0.0, 0.0)] * 2
    used = {s.supervisor_id: s.used_mem for s in cluster.call("getClusterInfo").supervisors}
    for node in {w.supervisor_id for w in page.workers}:
        sup = cluster.call("getSupervisorPageInfo", id=node, host=None, is_include_sys=False)
        [summary] = sup.supervisor_summaries
        workers_there = sum(1 for w in page.workers if w.supervisor_id == node)
        assert summary.used_mem == used[node] == 832.0 * workers_there
        assert [w.assigned_memonheap for w in sup.worker_summaries] == [832.0] * workers_there


def test_2x_pages_skip_executors_without_heartbeat(make_cluster):
    """2.x, as 2.8.8's extractDataFromHb: before any heartbeat no worker is counted and a
    component page lists no executor; once the workers beat, all of them show.  The worker
    list still shows every assigned slot, with the Assignment's resources."""
    cluster = make_cluster(options=["pynimbus.storm.compat=2.x"])
    storm_id = cluster.submit_word_count()
    before = cluster.call("getTopologyPageInfo", id=storm_id, window=":all-time",
                          is_include_sys=False)
    assert (before.num_workers, before.num_executors, len(before.workers)) == (0, 4, 2)
    assert all(w.assigned_memonheap > 0 for w in before.workers)
    count = cluster.call("getComponentPageInfo", topology_id=storm_id, component_id="count",
                         window=":all-time", is_include_sys=False)
    assert (count.num_executors, count.exec_stats) == (0, [])
    cluster.write_heartbeats(storm_id)
    after = cluster.call("getTopologyPageInfo", id=storm_id, window=":all-time",
                         is_include_sys=False)
    assert after.num_workers == 2
    count = cluster.call("getComponentPageInfo", topology_id=storm_id, component_id="count",
                         window=":all-time", is_include_sys=False)
    assert (count.num_executors, len(count.exec_stats)) == (2, 2)


def test_eventlogger_of_a_component_is_chosen_by_list_hash():
    """The event logger task is the (31 + "count".hashCode()) mod 3 = 2nd of the sorted logger
    tasks (94851374 mod 3 = 2), so task 9, found in executor [8 9] on h2:2."""
    task_to_component = {1: "count", 7: "__eventlogger", 8: "__eventlogger", 9: "__eventlogger"}
    hosts = {(1, 1): ("h1", 1), (7, 7): ("h1", 1), (8, 9): ("h2", 2)}
    assert eventlogger_host_port("count", task_to_component, hosts) == ("h2", 2)
    assert eventlogger_host_port("count", {1: "count"}, hosts) is None
