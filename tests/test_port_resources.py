"""Tests of pynimbus.clojure_port.resources (1.x and 2.x resource bookkeeping) and
pynimbus.clojure_port.cleanup (2.x delayed cleanup)."""

from pynimbus.clojure_port import cleanup, resources
from pynimbus.generated.storm.ttypes import WorkerResources


def test_heap_from_the_first_xmx_with_units_and_a_floor_of_one():
    parse = resources.parse_jvm_heap_mem_by_child_opts
    assert parse(["-Xms1g -Xmx2g -Xmx4g"]) == 2048.0
    assert parse(["-Xmx512k"]) == 1.0  # 0.5 MB rounds up to the 1 MB floor
    assert parse(["-Xmx1024m"]) == 1024.0
    assert parse(["-verbose"], 7.0) == 7.0
    assert parse(None, 3.0) == 3.0


def test_value_as_list_splits_strings_and_stringifies_lists():
    assert resources.value_as_list({"k": "-Xmx1g  -Dx=1"}, "k") == ["-Xmx1g", "-Dx=1"]
    assert resources.value_as_list({"k": ["-Xmx1g", 5]}, "k") == ["-Xmx1g", "5"]
    assert resources.value_as_list({}, "k") is None


def test_slot_memory_is_worker_heap_plus_logwriter():
    """1.2.4 defaults: worker.childopts -Xmx768m + topology.worker.logwriter.childopts
    -Xmx64m = 832 (the figure the real 1.2.4 Nimbus shows per used slot)."""
    conf = {"worker.childopts": "-Xmx768m", "topology.worker.logwriter.childopts": "-Xmx64m"}
    assert resources.assigned_memory_for_slot(conf) == 832.0
    conf["topology.worker.childopts"] = "-Xmx1g"
    assert resources.assigned_memory_for_slot(conf) == 1024.0 + 64.0
    conf["worker.gc.childopts"] = "-Xmx2g"
    assert resources.assigned_memory_for_slot(conf) == 2048.0 + 64.0
    assert resources.assigned_memory_for_slot({"worker.heap.memory.mb": 100}) == 100.0
    assert resources.assigned_memory_for_slot({}) == 768.0


def test_update_assigned_memory_charges_every_used_slot():
    conf = {"worker.childopts": "-Xmx768m", "topology.worker.logwriter.childopts": "-Xmx64m"}
    topologies, supervisors, workers = resources.update_assigned_memory(
        {"t-1-1": [("a", 6700), ("a", 6701), ("b", 6700)], "gone-2-2": [("b", 6701)]},
        {"t-1-1": conf})
    assert topologies == {"t-1-1": [0.0, 0.0, 0.0, 2496.0, 0.0, 0.0]}
    assert supervisors == {"a": [0.0, 0.0, 1664.0, 0.0], "b": [0.0, 0.0, 832.0, 0.0]}
    # per worker, as 1.2.4's TopologyPageInfo.workers and the supervisor page show it
    slot = WorkerResources(mem_on_heap=832.0, mem_off_heap=0.0, cpu=0.0)
    assert workers == {"t-1-1": {("a", 6700): slot, ("a", 6701): slot, ("b", 6700): slot}}


def test_unplaced_topology_requests_the_defaults_per_executor():
    """cannot_fit in the 1.2.4 goldens: 4 executors x 128 MB on-heap, x 10 % cpu."""
    from pynimbus.generated.storm.ttypes import StormTopology
    conf = {"topology.component.resources.onheap.memory.mb": 128.0,
            "topology.component.resources.offheap.memory.mb": 0.0,
            "topology.component.cpu.pcore.percent": 10.0}
    executors = {(1, 1): "a", (2, 2): "b", (3, 3): "c", (4, 4): "__acker"}
    figures = resources.topology_resources_1x(StormTopology(spouts={}, bolts={}), conf,
                                              executors, None)
    assert figures == [512.0, 0.0, 40.0, 0.0, 0.0, 0.0]
    assigned = resources.topology_resources_1x(
        StormTopology(spouts={}, bolts={}), conf, executors,
        {"slot": WorkerResources(mem_on_heap=5.0, mem_off_heap=1.0, cpu=2.0)})
    assert assigned[3:] == [5.0, 1.0, 2.0]


def test_cleanup_waits_for_the_deletion_delay():
    detected = cleanup.CleanupDetected(now_ms=0)
    conf = {"nimbus.topology.blobstore.deletion.delay.ms": 1000}
    assert cleanup.expired_topology_ids({"t"}, detected, conf, now_ms=10) == set()
    assert cleanup.expired_topology_ids({"t"}, detected, conf, now_ms=900) == set()
    assert cleanup.expired_topology_ids({"t"}, detected, conf, now_ms=1010) == {"t"}
    assert cleanup.expired_topology_ids({"u"}, detected, {}, now_ms=2000) == set()
