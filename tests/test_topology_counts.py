"""Counts a client chooses cannot stop scheduling (issue 8, "Nimbus hardening", finding 2).

A well-formed submit with ``topology.workers``, ``topology.acker.executors`` or
``topology.eventlogger.executors`` of 10**9, a parallelism hint of 10**6 or 10**9, or a
component's own ``topology.tasks`` of 2**31 used to be accepted; the monitor then failed every
round (MemoryError) and no other topology was assigned.  Each case here is submitted to a
``pynimbus dev`` process on a real ZooKeeper whose address space is capped
(``RLIMIT_AS``), so a regression fails the test instead of taking the machine down; each must be
refused with InvalidTopologyException, leave no trace, and a normal topology submitted
afterwards must still get its Assignment.  Both generations (``pynimbus.storm.compat``).
"""

import json
import uuid

import pytest

from nimbus_process import NimbusProcess
from pynimbus.generated.storm.ttypes import InvalidTopologyException
from test_nimbus_scenarios import Cluster, bolt, made_clusters, spout, topology

MEMORY_CAP_BYTES = 4 * 2 ** 30
MAX_TASKS_SETTING = "pynimbus.topology.max.tasks"
# Storm's defaults (one acker and one event logger per worker), over the scenarios' zeros
STORM_DEFAULT_ACKERS = ["topology.acker.executors=null", "topology.eventlogger.executors=null"]

# `python -c`: cap the address space, then run the CLI with the remaining arguments.
_CAPPED_MAIN = ("import resource, sys; "
                "resource.setrlimit(resource.RLIMIT_AS, (%d, %d)); "
                "from pynimbus.cli import main as cli; sys.exit(cli.main(sys.argv[1:]))")


class CappedNimbusProcess(NimbusProcess):
    """A ``pynimbus dev`` process limited to :data:`MEMORY_CAP_BYTES` of address space."""

    def command(self):
        cmd = super().command()
        at = cmd.index("-m")
        cmd[at:at + 2] = ["-c", _CAPPED_MAIN % (MEMORY_CAP_BYTES, MEMORY_CAP_BYTES)]
        return cmd


def capped_cluster_class(compat, zookeeper_options):
    class CappedCluster(Cluster):
        """A capped nimbus on the session's ZooKeeper with Storm's default acker and event
        logger counts (one per worker), so ``topology.workers`` sizes them."""

        compat_options = ("pynimbus.storm.compat=%s" % compat,) + tuple(zookeeper_options)

        def __init__(self, tmp_path, **kwargs):
            super().__init__(tmp_path, options=STORM_DEFAULT_ACKERS, **kwargs)

        def make_process(self, tmp_path):
            return CappedNimbusProcess(tmp_path, options=self.options)
    return CappedCluster


@pytest.fixture(params=["1.x", "2.x"])
def make_capped_cluster(request, tmp_path, zookeeper_server):
    """A factory of capped clusters of one generation on the session's ZooKeeper."""
    zookeeper_options = ["%s=%s" % (key, json.dumps(value))
                         for key, value in zookeeper_server.storm_conf().items()]
    zookeeper_options.append("storm.zookeeper.root=/pynimbus-counts-%s" % uuid.uuid4().hex)
    yield from made_clusters(tmp_path, capped_cluster_class(request.param, zookeeper_options))


def _words(parallelism=1, tasks=None):
    return topology({"words": spout(parallelism, tasks_=tasks)},
                    {"count": bolt(["words"], 1)})


HUGE_BY_LIMIT = [
    ("topology.workers", {"topology.workers": 10 ** 9}, _words()),
    ("topology.acker.executors", {"topology.acker.executors": 10 ** 9}, _words()),
    ("topology.eventlogger.executors", {"topology.eventlogger.executors": 10 ** 9}, _words()),
    ("hint 10**6", {}, _words(parallelism=10 ** 6)),
    ("hint 10**9", {}, _words(parallelism=10 ** 9)),
    ("component topology.tasks 10**9", {}, _words(tasks=10 ** 9)),
]


def assert_refused_without_trace(cluster, name, conf, topo, match):
    with pytest.raises(InvalidTopologyException, match=match):
        cluster.submit(name, conf, topo)
    assert cluster.storm_id(name) is None
    assert cluster.state.heartbeat_storms() == []
    assert cluster.call("listBlobs", session="").keys == []


def test_huge_counts_are_refused_and_scheduling_goes_on(make_capped_cluster):
    """Counts past ``pynimbus.topology.max.tasks`` are InvalidTopologyException naming that
    setting, a component ``topology.tasks`` of 2**31 fails Storm's int32 validator naming the
    component, nothing is written, and a normal topology submitted afterwards is assigned."""
    cluster = make_capped_cluster(supervisors=2, ports_per_supervisor=4)
    for i, (_case, conf, topo) in enumerate(HUGE_BY_LIMIT):
        assert_refused_without_trace(cluster, "huge-%d" % i, conf, topo,
                                     match=MAX_TASKS_SETTING.replace(".", r"\."))
    assert_refused_without_trace(
        cluster, "too-many-tasks", {}, _words(tasks=2 ** 31),
        match=r"words.*TOPOLOGY_TASKS must be an Integer within type range")
    cluster.submit("normal", {"topology.workers": 2}, _words(parallelism=2))
    assignment = cluster.assignment("normal")
    # words 2, count 1, __acker and __eventlogger one per worker
    assert len(assignment.executor_node_port) == 2 + 1 + 2 + 2


def test_a_huge_hint_over_few_tasks_is_held_as_few_executors(make_capped_cluster):
    """Executors are ranges of tasks: a hint of 10**9 over 2 tasks is 2 executors, accepted
    and assigned with nothing the size of the hint built."""
    cluster = make_capped_cluster(supervisors=1, ports_per_supervisor=2)
    cluster.submit("wide", {}, _words(parallelism=10 ** 9, tasks=2))
    info = cluster.task_info("wide")
    executors = cluster.assignment("wide").executor_node_port
    assert sorted(e for e in executors if e[0] in info["words"]) == [
        (t, t) for t in sorted(info["words"])]
