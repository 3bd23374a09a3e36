"""Rebalance with odd counts (issue 8, "Nimbus hardening", finding 6), as the real Nimbus 1.2.4
and 2.8.3 answered them (tests/compat goldens ``rebalance_*``):

* 2.8.3 checks each executor override in turn, the component's name before its count, and
  lists the valid names in Java String order; 1.2.4 checks the counts only and keeps an
  unknown component's count in the StormBase;
* a worker count of 0 keeps the count in 2.x (``updateStorm``), empties the Assignment in 1.x;
* a negative worker count: 1.2.4 assigns nothing; 2.8.3 stores it and its scheduler then halts
  Nimbus, so pynimbus 2.x refuses it (deliberate difference) and leaves the topology as it was;
* counts of 2**31-1 are held and placed by a ``pynimbus dev`` whose address space is capped.

The process tests run on the session's real ZooKeeper (tests/test_topology_counts.py's capped
cluster).
"""

import json
import uuid

import pytest

from pynimbus.generated.storm.ttypes import (
    InvalidTopologyException, RebalanceOptions, StormTopology, TopologyStatus)
from pynimbus.handlers.lifecycle import (
    check_executor_overrides_1x, check_executor_overrides_2x, check_num_workers_2x)
from pynimbus.nimbus.monitor import ResourceBook
from test_nimbus_scenarios import bolt, made_clusters, spout, topology
from test_topology_counts import capped_cluster_class

HUGE = 2 ** 31 - 1
STORED = StormTopology(spouts={"words": None, "Zeta": None}, bolts={"count": None, "_b": None},
                       state_spouts={})


def test_2x_names_the_unknown_component_before_checking_its_count():
    """{"nope": 0}: 2.8.3 answers "Invalid component", the valid ids in Java String order
    (upper case first), where a counts-first check would say "greater than 0"."""
    with pytest.raises(InvalidTopologyException) as e:
        check_executor_overrides_2x("t", STORED, {"nope": 0})
    assert e.value.msg == \
        "Invalid component nope for topology t, valid values are Zeta,_b,count,words"


def test_2x_accepts_system_ids_and_checks_their_counts():
    """An id that looks like Storm's is not looked up, but its count must be positive."""
    check_executor_overrides_2x("t", STORED, {"__nope": 2, "count": HUGE})
    with pytest.raises(InvalidTopologyException, match="greater than 0"):
        check_executor_overrides_2x("t", STORED, {"__acker": 0})


def test_1x_checks_counts_only():
    """1.2.4 accepts any id; only a count <= 0 is refused."""
    check_executor_overrides_1x({"nope": 2})
    with pytest.raises(InvalidTopologyException, match="greater than 0"):
        check_executor_overrides_1x({"count": 0})


def test_2x_refuses_negative_worker_counts_only():
    """0 (keep the count), None (not given) and 2**31-1 pass; -1 is refused by its number."""
    for count in (None, 0, 1, HUGE):
        check_num_workers_2x(count)
    with pytest.raises(InvalidTopologyException, match="not -1"):
        check_num_workers_2x(-1)


def test_a_round_that_places_nothing_zeroes_the_topology_figures():
    """A topology left without slots (0 workers) shows 0.0 everywhere, as 1.2.4 does, instead
    of the figures of its last placement."""
    book = ResourceBook()
    book.after_round({"t": [0.0, 0.0, 0.0, 1664.0, 0.0, 0.0]}, {}, {"t": {("n", 6700): None}})
    book.after_round({}, {}, {}, unplaced=["t"])
    assert book.id_to_resources["t"] == [0.0] * 6
    assert "t" not in book.id_to_worker_resources


@pytest.fixture(params=["1.x", "2.x"])
def make_capped_cluster(request, tmp_path, zookeeper_server):
    options = ["%s=%s" % (key, json.dumps(value))
               for key, value in zookeeper_server.storm_conf().items()]
    options.append("storm.zookeeper.root=/pynimbus-rebalance-%s" % uuid.uuid4().hex)
    cluster_class = capped_cluster_class(request.param, options)
    cluster_class.generation = request.param
    yield from made_clusters(tmp_path, cluster_class)


def submitted(cluster, name):
    cluster.submit(name, {"topology.workers": 2},
                   topology({"words": spout(1)}, {"count": bolt(["words"], 1)}))
    cluster.assignment(name)
    return cluster.storm_id(name)


def rebalanced(cluster, storm_id, name, **options):
    """Rebalance now, then wait until the status is back to ACTIVE; the StormBase."""
    cluster.call("rebalance", name=name, options=RebalanceOptions(wait_secs=0, **options))
    cluster.wait_for(lambda: cluster.state.storm_base(storm_id).status == TopologyStatus.ACTIVE,
                     "the rebalance of " + name)
    return cluster.state.storm_base(storm_id)


def test_huge_counts_are_held_and_placed_under_the_memory_cap(make_capped_cluster):
    """2**31-1 workers and executors: the StormBase holds them, executors stay ranges of the
    tasks (one each) and every slot is used, in a process whose address space is capped."""
    cluster = make_capped_cluster(supervisors=2, ports_per_supervisor=2)
    storm_id = submitted(cluster, "huge")
    base = rebalanced(cluster, storm_id, "huge", num_workers=HUGE,
                      num_executors={"count": HUGE})
    assert (base.num_workers, base.component_executors["count"]) == (HUGE, HUGE)

    def spread():
        executors = cluster.state.assignment_info(storm_id).executor_node_port
        return len({(n.node, tuple(n.port)) for n in executors.values()}) == 4
    cluster.wait_for(spread, "the huge rebalance to use every slot")
    count_tasks = cluster.task_info("huge")["count"]
    executors = cluster.state.assignment_info(storm_id).executor_node_port
    assert [e for e in executors if e[0] in count_tasks] == [(t, t) for t in count_tasks]


def test_zero_and_negative_worker_counts(make_capped_cluster):
    """1.x: 0 and -3 workers are stored and the Assignment is emptied (1.2.4).  2.x: 0 keeps
    the count and the placement (2.8.3); -3 is refused and the topology stays as it was."""
    cluster = make_capped_cluster(supervisors=2, ports_per_supervisor=2)
    storm_id = submitted(cluster, "few")
    if cluster.generation == "1.x":
        for count in (0, -3):
            assert rebalanced(cluster, storm_id, "few", num_workers=count).num_workers == count
            cluster.wait_for(lambda: not cluster.state.assignment_info(
                storm_id).executor_node_port, "an empty assignment")
        return
    assert rebalanced(cluster, storm_id, "few", num_workers=0).num_workers == 2
    base = cluster.state.storm_base(storm_id)
    before = cluster.state.assignment_info(storm_id)
    with pytest.raises(InvalidTopologyException, match="not -3"):
        cluster.call("rebalance", name="few", options=RebalanceOptions(wait_secs=0,
                                                                       num_workers=-3))
    assert cluster.state.storm_base(storm_id) == base
    assert cluster.state.assignment_info(storm_id).executor_node_port == \
        before.executor_node_port
