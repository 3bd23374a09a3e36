"""``pynimbus.scheduler: jstorm`` black box: a ``pynimbus dev`` process on the session's real
ZooKeeper, simulated supervisors and workers (SupervisorInfo nodes and worker heartbeats written
through cluster state), driven only through Thrift.

A submitted topology is placed exactly as the JStorm port places the JStorm case it stands for
(the port agrees with JStorm 2.2.1 itself, ``tests/compat/test_jstorm_placement.py``), each
component spread evenly; when a supervisor goes away and its workers stop beating, its executors
move and every other worker keeps its slot.
"""

import json
import time
import uuid

import pytest

from pynimbus.cluster import paths
from pynimbus.generated.storm.ttypes import (
    BoltStats, ClusterWorkerHeartbeat, ExecutorInfo, ExecutorSpecificStats, ExecutorStats, Grouping,
    NullStruct)
from pynimbus.jstorm_port.case_json import place_case
from test_nimbus_scenarios import Cluster, bolt, made_clusters, spout, topology

# tens of seconds each (tox -e slow, which CI runs, not the default run)
pytestmark = [pytest.mark.zookeeper, pytest.mark.slow]


@pytest.fixture
def make_jstorm_cluster(tmp_path, zookeeper_server):
    """Clusters whose nimbus runs ``pynimbus.scheduler: jstorm`` on the session's ZooKeeper,
    under a root of their own; executors time out 4 s after their last beat."""
    options = ["%s=%s" % (key, json.dumps(value))
               for key, value in zookeeper_server.storm_conf().items()]
    options += ["storm.zookeeper.root=/pynimbus-jstorm-%s" % uuid.uuid4().hex,
                "pynimbus.scheduler=jstorm", "nimbus.task.timeout.secs=4",
                "nimbus.task.launch.secs=4"]

    class JStormCluster(Cluster):
        compat_options = tuple(options)
    yield from made_clusters(tmp_path, JStormCluster)


def word_count():
    return topology({"spout": spout(parallelism=3)}, {
        "split": bolt(["spout"], parallelism=7, grouping=Grouping(shuffle=NullStruct())),
        "count": bolt(["split"], parallelism=5, grouping=Grouping(fields=["field1"]))})


def jstorm_case(cluster, name, workers):
    """The NEW JStorm case the submitted topology stands for on the cluster's supervisors."""
    tasks = cluster.task_to_component(cluster.storm_id(name))
    infos = dict((sid, cluster.state.supervisor_info(sid))
                 for sid in cluster.state.supervisors())
    return {
        "assign_type": 0,
        "storm_conf": {"topology.workers": workers, "topology.acker.executors": 0,
                       "topology.master.single.worker": False},
        "topology": {"spouts": {"spout": {"parallelism": 3}},
                     "bolts": {"split": {"parallelism": 7, "inputs": ["spout"]},
                               "count": {"parallelism": 5, "inputs": ["split"]}}},
        "task_to_component": dict((str(t), c) for t, c in tasks.items()),
        "topology_master_task_id": 0,
        "supervisors": [{"id": sid, "hostname": info.hostname, "ports": info.meta}
                        for sid, info in sorted(infos.items())]}


def slots(assignment):
    """Sorted ``(node, port, task ids)`` of an Assignment."""
    by_slot = {}
    for executor, node_info in assignment.executor_node_port.items():
        by_slot.setdefault((node_info.node, next(iter(node_info.port))), []).append(executor[0])
    return sorted((node, port, sorted(tasks)) for (node, port), tasks in by_slot.items())


def beat(cluster, storm_id, assignment, skip_node=None):
    """Every worker of the assignment (but those on ``skip_node``) writes its heartbeat now."""
    stats = ExecutorStats(emitted={}, transferred={}, rate=0.0, specific=ExecutorSpecificStats(
        bolt=BoltStats({}, {}, {}, {}, {})))
    by_slot = {}
    for executor, node_info in assignment.executor_node_port.items():
        slot = (node_info.node, next(iter(node_info.port)))
        by_slot.setdefault(slot, {})[ExecutorInfo(executor[0], executor[1])] = stats
    for (node, port), executor_stats in by_slot.items():
        if node != skip_node:
            cluster.state.worker_heartbeat(storm_id, node, port, ClusterWorkerHeartbeat(
                storm_id=storm_id, executor_stats=executor_stats, time_secs=int(time.time()),
                uptime_secs=10))


def test_a_submitted_topology_is_placed_as_jstorm_places_it(make_jstorm_cluster):
    cluster = make_jstorm_cluster(supervisors=3, ports_per_supervisor=4)
    cluster.submit("wc", {"topology.workers": 4}, word_count())
    placed = slots(cluster.assignment("wc"))
    expected = place_case(jstorm_case(cluster, "wc", 4))
    assert placed == sorted((w["node_id"], w["port"], w["tasks"]) for w in expected)
    tasks = cluster.task_to_component(cluster.storm_id("wc"))
    for component in ("spout", "split", "count"):
        per_worker = [sum(1 for t in ts if tasks[t] == component) for _, _, ts in placed]
        assert max(per_worker) - min(per_worker) <= 1, component


def test_a_lost_supervisors_executors_move_and_every_other_worker_stays(make_jstorm_cluster):
    cluster = make_jstorm_cluster(supervisors=3, ports_per_supervisor=4)
    cluster.submit("wc", {"topology.workers": 4}, word_count())
    storm_id = cluster.storm_id("wc")
    assignment = cluster.assignment("wc")
    before = slots(assignment)
    lost = before[0][0]
    beat(cluster, storm_id, assignment)
    cluster.state.backend.delete(paths.supervisor_path(lost))
    deadline = time.monotonic() + 30
    while any(node == lost for node, _, _ in slots(cluster.state.assignment_info(storm_id))):
        assert time.monotonic() < deadline, "the lost supervisor's executors never moved"
        beat(cluster, storm_id, assignment, skip_node=lost)  # the other workers keep beating
        time.sleep(0.5)
    after = slots(cluster.state.assignment_info(storm_id))
    kept = [w for w in before if w[0] != lost]
    assert [w for w in after if w in kept] == kept
    assert sorted(t for w in after for t in w[2]) == sorted(t for w in before for t in w[2])


def topology_errors(cluster, storm_id):
    """``{component: [error text]}`` of getTopologyInfo, components with errors only."""
    info = cluster.call("getTopologyInfo", id=storm_id)
    return dict((c, [e.error for e in errors]) for c, errors in info.errors.items() if errors)


def sched_statuses(cluster, storm_id):
    """``sched_status`` of getTopologyInfo, the getClusterInfo summary and the UI's page."""
    [summary] = [t for t in cluster.call("getClusterInfo").topologies if t.id == storm_id]
    return [cluster.call("getTopologyInfo", id=storm_id).sched_status, summary.sched_status,
            cluster.call("getTopologyPageInfo", id=storm_id, window=":all-time",
                         is_include_sys=False).sched_status]


def test_a_topology_jstorm_cannot_place_shows_why_until_the_cluster_can_hold_it(
        make_jstorm_cluster):
    """Four workers asked, two slots: JStorm's message in getTopologyInfo's errors (under the
    topology's first component: it has no acker and no topology master) and in the log, once
    per change, not every monitor round, and as the scheduler status of the summaries and the
    UI's page; a new supervisor changes the message; one more makes room and the topology is
    placed (the status clears)."""
    cluster = make_jstorm_cluster(supervisors=1, ports_per_supervisor=2)
    cluster.submit("wc", {"topology.workers": 4}, word_count())
    storm_id = cluster.storm_id("wc")
    cluster.wait_for(lambda: topology_errors(cluster, storm_id), "the scheduling error")
    first = "there's no enough worker. allocWorkerNum=4, availableWorkerNum=2"
    assert topology_errors(cluster, storm_id) == {"count": [first]}
    reported = cluster.call("getTopologyInfo", id=storm_id).errors["count"][0].error_time_secs
    # the monitor runs every second: let at least three more rounds refuse the topology
    cluster.wait_for(lambda: time.time() >= reported + 4, "three monitor rounds")
    assert topology_errors(cluster, storm_id) == {"count": [first]}
    assert cluster.state.assignment_info(storm_id) is None
    cluster.add_supervisor(1)
    second = "there's no enough worker. allocWorkerNum=4, availableWorkerNum=3"
    cluster.wait_for(lambda: len(topology_errors(cluster, storm_id).get("count", ())) == 2,
                     "the changed scheduling error")
    assert topology_errors(cluster, storm_id) == {"count": [second, first]}
    # the round files the error, then records the status
    cluster.wait_for(lambda: sched_statuses(cluster, storm_id) == [second] * 3,
                     "the scheduler status")
    cluster.add_supervisor(2)
    placed = slots(cluster.assignment("wc"))
    assert len(placed) == 4
    cluster.wait_for(lambda: sched_statuses(cluster, storm_id) == [None] * 3,
                     "the scheduler status to clear")
    with open(cluster.process.log_path) as log:
        refusals = [line for line in log if "Failed to assign topology " + storm_id in line]
    assert len(refusals) == 2 and first in refusals[0] and second in refusals[1]


def test_a_user_defined_worker_waits_for_the_supervisor_it_names(make_jstorm_cluster):
    """``use.userdefine.assignment`` naming a supervisor that has not registered: JStorm's
    message in getTopologyInfo's errors; when it registers, the worker is placed on it."""
    cluster = make_jstorm_cluster(supervisors=2, ports_per_supervisor=4)
    wanted = {"nodeId": "sup-6900", "hostName": "host-sup-6900", "port": "6901",
              "componentToNum": json.dumps({"count": 2})}
    cluster.submit("wc", {"topology.workers": 4,
                          "use.userdefine.assignment": [json.dumps(wanted)]}, word_count())
    storm_id = cluster.storm_id("wc")
    cluster.wait_for(lambda: topology_errors(cluster, storm_id), "the scheduling error")
    assert topology_errors(cluster, storm_id) == {
        "count": ["Node sup-6900 doesn't in the supervisor list"]}
    assert cluster.state.assignment_info(storm_id) is None
    cluster.add_supervisor(4)  # sup-6900, ports 6900-6903
    placed = slots(cluster.assignment("wc"))
    tasks = cluster.task_to_component(storm_id)
    count_tasks = sorted(t for t, c in tasks.items() if c == "count")
    on_wanted = [ts for node, port, ts in placed if (node, port) == ("sup-6900", 6901)]
    assert len(on_wanted) == 1 and set(count_tasks[:2]) <= set(on_wanted[0])
