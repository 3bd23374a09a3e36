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

pytestmark = pytest.mark.zookeeper


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
