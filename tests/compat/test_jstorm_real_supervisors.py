"""Real Storm 1.2.4 supervisors run an assignment made by ``pynimbus.scheduler: jstorm``.

pynimbus (``pynimbus dev``, 1.x mode, ``pynimbus.scheduler=jstorm``) and two unmodified
storm-core 1.2.4 supervisors (two slots each) share the session's real ZooKeeper; storm-starter
1.2.2's ExclamationTopology is submitted by the stock ``storm jar`` asking for three workers.
pynimbus's Assignment is the placement of the JStorm port (which agrees with JStorm 2.2.1 itself,
``test_jstorm_placement.py``) on the case the cluster stands for; each supervisor then runs
exactly the workers that placement gave it, their heartbeats cover their executors, and tuples
flow word -> exclaim1 -> exclaim2 across the workers.

Opt-in, as ``test_real_supervisor.py``: ``PYNIMBUS_COMPAT=1`` (``tox -e compat``), Java, Debian's
ZooKeeper and the Storm jars (Maven Central on first use).  About a minute on 2 cores.
"""

import json
import os
import time

import pytest

from compat import real_storm
from compat.oracle import maven
from compat.oracle.targets import pynimbus_target
from compat.test_real_supervisor import ENABLED, WAIT, tuples_flow
from nimbus_process import RawClient
from pynimbus.clojure_port import tasks
from pynimbus.cluster import make_cluster_state
from pynimbus.handlers.lifecycle import storm_id_of
from pynimbus.jstorm_port.case_json import place_case

pytestmark = [
    pytest.mark.compat,
    pytest.mark.skipif(not ENABLED, reason="real Storm supervisor tests run with "
                                           "PYNIMBUS_COMPAT=1 (tox -e compat): they start Java "
                                           "supervisors and workers"),
]

NAME = "exclaim-jstorm"
WORKERS = 3
# Three worker JVMs start at once on a loaded 2-core machine: past a short launch grace
# (test_real_supervisor.py's 20 s) Nimbus would take them for dead and place them again.
PYNIMBUS_CONF = {"pynimbus.scheduler": "jstorm", "nimbus.task.launch.secs": 180,
                 "nimbus.task.timeout.secs": 60}


class JStormCluster:
    """pynimbus under ``jstorm`` + two real 1.2.4 supervisors, and ways to look at them."""

    def __init__(self, target, supervisors, workdir):
        self.target = target
        self.supervisors = supervisors
        self.workdir = workdir
        self.state = make_cluster_state(target.cluster_conf)

    def close(self):
        self.state.close()

    def call(self, method, **kwargs):
        with RawClient(self.target.host, self.target.port, timeout=60.0) as client:
            return client.call(method, **kwargs)

    def wait(self, fn, what, timeout=WAIT):
        """Poll ``fn`` (every 0.25 s, bounded) until it returns a truthy value (returned)."""
        deadline = time.monotonic() + timeout
        while True:
            value = fn()
            if value:
                return value
            for supervisor in self.supervisors:
                if not supervisor.alive():
                    pytest.fail("a supervisor exited while waiting for %s\n%s"
                                % (what, self.diagnostics()))
            if time.monotonic() > deadline:
                pytest.fail("timed out waiting for %s\n%s" % (what, self.diagnostics()))
            time.sleep(0.25)

    def diagnostics(self):
        return "\n".join([s.log_tail() for s in self.supervisors]
                         + ["== pynimbus ==", self.target.handle.log_tail()])

    def jstorm_case(self, storm_id):
        """The NEW JStorm case of the topology on the registered supervisors."""
        user_topology = self.call("getUserTopology", id=storm_id)
        storm_conf = json.loads(self.call("getTopologyConf", id=storm_id))
        task_to_component = tasks.storm_task_info(user_topology, storm_conf)
        counts = {}
        for component in task_to_component.values():
            counts[component] = counts.get(component, 0) + 1
        bolts = dict((cid, {"parallelism": counts[cid], "inputs": sorted(
            set(g.componentId for g in bolt.common.inputs))})
            for cid, bolt in user_topology.bolts.items())
        infos = dict((sid, self.state.supervisor_info(sid)) for sid in self.state.supervisors())
        return {
            "assign_type": 0,
            "storm_conf": {"topology.workers": WORKERS,
                           "topology.acker.executors": counts.get("__acker", 0),
                           "topology.master.single.worker": False},
            "topology": {"spouts": dict((cid, {"parallelism": counts[cid]})
                                        for cid in user_topology.spouts),
                         "bolts": bolts},
            "task_to_component": dict((str(t), c) for t, c in task_to_component.items()),
            "topology_master_task_id": 0,
            "supervisors": [{"id": sid, "hostname": info.hostname, "ports": info.meta}
                            for sid, info in sorted(infos.items())]}

    def assigned(self, storm_id):
        """Sorted ``(node, port, task ids)`` of pynimbus's Assignment, or None."""
        assignment = self.state.assignment_info(storm_id)
        if assignment is None:
            return None
        by_slot = {}
        for executor, node_info in assignment.executor_node_port.items():
            by_slot.setdefault((node_info.node, next(iter(node_info.port))), []).append(
                executor[0])
        return sorted((node, port, sorted(ts)) for (node, port), ts in by_slot.items())

    def running(self, storm_id):
        """Sorted ``(node, port, task ids)`` the supervisors run: their LocalState assignments
        where a worker JVM runs that topology on that port and heartbeats."""
        out = []
        for supervisor in self.supervisors:
            workers = dict((w.port, w) for w in supervisor.worker_processes()
                           if w.storm_id == storm_id)
            for port, local in supervisor.local_assignments().items():
                if local.topology_id != storm_id or port not in workers:
                    continue
                if self.state.get_worker_heartbeat(storm_id, supervisor.supervisor_id,
                                                   port) is None:
                    continue
                out.append((supervisor.supervisor_id, port,
                            sorted(e.task_start for e in local.executors)))
        return sorted(out)


@pytest.fixture(scope="module")
def cluster(zookeeper_server, tmp_path_factory):
    reason = real_storm.unavailable_reason("1.x")
    if reason:
        pytest.skip("a real Storm %s supervisor cannot run here: %s" % (maven.STORM_1X, reason))
    workdir = str(tmp_path_factory.mktemp("jstorm-real-supervisors"))
    with pynimbus_target("1.x", zookeeper_server, conf=PYNIMBUS_CONF) as target:
        root = target.cluster_conf["storm.zookeeper.root"]
        supervisors = [real_storm.RealSupervisor(maven.STORM_1X, zookeeper_server.port, root,
                                                 target.port, slots=2) for _ in range(2)]
        try:
            for supervisor in supervisors:
                supervisor.start()
            real = JStormCluster(target, supervisors, workdir)
            try:
                yield real
            finally:
                real.close()
        finally:
            for supervisor in supervisors:
                supervisor.stop()


@pytest.fixture(scope="module")
def submitted(cluster):
    """The storm id, once both supervisors are registered and the topology is assigned."""
    cluster.wait(lambda: all(s.supervisor_id for s in cluster.supervisors)
                 and len(cluster.state.supervisors()) == 2, "both supervisors to register")
    topology = real_storm.exclamation_topology("1.x", NAME)
    topology = topology._replace(options=dict(topology.options, **{"topology.workers": WORKERS}))
    output = real_storm.storm_jar(maven.STORM_1X, cluster.target.port,
                                  os.path.join(cluster.workdir, "client-conf"), topology)
    assert "Finished submitting topology: %s" % NAME in output, output
    storm_id = cluster.wait(lambda: storm_id_of(cluster.state, NAME), NAME + " to be active")
    cluster.wait(lambda: cluster.assigned(storm_id), "the assignment of " + NAME)
    return storm_id


def test_the_assignment_is_jstorms_placement(cluster, submitted):
    """Three workers over the two supervisors, as the JStorm port places the case; each user
    component's executors per worker differ by at most one (JStorm places the ackers last, by
    load, not evenly)."""
    placed = cluster.assigned(submitted)
    expected = place_case(cluster.jstorm_case(submitted))
    assert placed == sorted((w["node_id"], w["port"], w["tasks"]) for w in expected)
    assert len(placed) == WORKERS
    assert {node for node, _, _ in placed} == {s.supervisor_id for s in cluster.supervisors}
    task_to_component = dict((int(t), c) for t, c in
                             cluster.jstorm_case(submitted)["task_to_component"].items())
    for component in set(task_to_component.values()) - {"__acker"}:
        per_worker = [sum(1 for t in ts if task_to_component[t] == component)
                      for _, _, ts in placed]
        assert max(per_worker) - min(per_worker) <= 1, component


def test_the_supervisors_run_the_workers_on_the_slots_jstorm_chose(cluster, submitted):
    """Each supervisor's LocalState, worker JVMs and worker heartbeats match the placement."""
    placed = cluster.assigned(submitted)
    assert cluster.wait(lambda: cluster.running(submitted) == placed and placed,
                        "the supervisors to run the workers as assigned", timeout=240)
    assert cluster.assigned(submitted) == placed


def test_tuples_flow_across_the_jstorm_placed_workers(cluster, submitted):
    """getTopologyInfo shows word emitting and both bolts executing, from the real workers'
    heartbeats, on both supervisors' hosts."""
    totals = cluster.wait(lambda: tuples_flow(cluster, submitted),
                          "tuples through word -> exclaim1 -> exclaim2")
    assert totals["exclaim2"]["emitted"] > 0
    info = cluster.call("getTopologyInfo", id=submitted)
    assert len({(e.host, e.port) for e in info.executors}) == WORKERS
