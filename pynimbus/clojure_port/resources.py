"""Resource bookkeeping Nimbus shows in summaries (pure): the memory and cpu a topology asked
for and was given, and the memory each supervisor has in use.

1.x (non-resource-aware schedulers): after each scheduling round Nimbus charges every used slot
with the heap of one worker plus its log writer (:func:`assigned_memory_for_slot`) and keeps,
per topology, ``[requested on-heap, requested off-heap, requested cpu, assigned on-heap,
assigned off-heap, assigned cpu]``, per topology and slot a ``WorkerResources`` and, per
supervisor, ``[total mem, total cpu, used mem, used cpu]``
(:func:`update_assigned_memory`).  A topology the rounds never placed gets its figures from
its executors' requests (:func:`requested_resources`).

2.x: requested figures are the executors' normalized requests and assigned figures those of the
executors that hold a slot (:func:`topology_resources_2x`); supervisors carry no used figures.
"""

import collections
import re

from pynimbus.clojure_port import stats
from pynimbus.generated.storm.ttypes import WorkerResources

ONHEAP_MEMORY_MB = "topology.component.resources.onheap.memory.mb"
OFFHEAP_MEMORY_MB = "topology.component.resources.offheap.memory.mb"
CPU_PCORE_PERCENT = "topology.component.cpu.pcore.percent"
NORMALIZED_ONHEAP = "onheap.memory.mb"
NORMALIZED_OFFHEAP = "offheap.memory.mb"
NORMALIZED_CPU = "cpu.pcore.percent"

WORKER_DEFAULT_MEMORY_MB = 768
_XMX = re.compile(r"Xmx([0-9]+)([mkgMKG])")
_UNITS = {"k": 1024, "m": 1024 * 1024, "g": 1024 * 1024 * 1024}


def value_as_list(conf, key):
    """Port of ``ConfigUtils.getValueAsList`` (1.2.4): a list's items as strings, a string
    split on whitespace, None when unset."""
    value = conf.get(key)
    if value is None:
        return None
    if isinstance(value, (list, tuple, set)):
        return [None if v is None else str(v) for v in value]
    return re.split(r"\s+", str(value))


def parse_jvm_heap_mem_by_child_opts(options, default=None):
    """Port of ``Utils.parseJvmHeapMemByChildOpts`` (1.2.4): the MB of the first ``-Xmx`` in
    ``options`` (at least 1.0), else ``default``."""
    if options is None:
        return default
    for option in options:
        if option is None:
            continue
        m = _XMX.search(option)
        if m:
            result = int(m.group(1)) * _UNITS[m.group(2).lower()] / 1024.0 / 1024.0
            return 1.0 if result < 1.0 else result
    return default


def assigned_memory_for_slot(topology_conf):
    """Port of ``Cluster.getAssignedMemoryForSlot`` (1.2.4): the heap of one worker (from the
    GC childopts, topology worker childopts, worker childopts or ``worker.heap.memory.mb``, the
    first that gives one) plus the log writer's ``-Xmx``."""
    total = 0.0
    gc = parse_jvm_heap_mem_by_child_opts(
        value_as_list(topology_conf, "topology.worker.gc.childopts"))
    if gc is None:
        gc = parse_jvm_heap_mem_by_child_opts(value_as_list(topology_conf, "worker.gc.childopts"))
    topology_worker = parse_jvm_heap_mem_by_child_opts(
        value_as_list(topology_conf, "topology.worker.childopts"))
    worker = parse_jvm_heap_mem_by_child_opts(value_as_list(topology_conf, "worker.childopts"))
    if gc is not None:
        total += gc
    elif topology_worker is not None:
        total += topology_worker
    elif worker is not None:
        total += worker
    else:
        total += _int_or(topology_conf.get("worker.heap.memory.mb"), WORKER_DEFAULT_MEMORY_MB)
    logwriter = value_as_list(topology_conf, "topology.worker.logwriter.childopts")
    if logwriter is not None:
        total += parse_jvm_heap_mem_by_child_opts(logwriter, 0.0)
    return float(total)


def _int_or(value, default):
    if value is None:
        return default
    if isinstance(value, bool):
        raise ValueError("not an integer: %r" % (value,))
    if isinstance(value, (int, float)):
        return int(value)
    return int(str(value))


RoundResources = collections.namedtuple("RoundResources", "topologies supervisors workers")
RoundResources.__doc__ = """What a 1.2.4 scheduling round records (:func:`update_assigned_memory`).

``topologies``: ``{storm_id: [req on-heap, req off-heap, req cpu, assigned on-heap, assigned
off-heap, assigned cpu]}``; ``supervisors``: ``{node: [total mem, total cpu, used mem, used
cpu]}``; ``workers``: ``{storm_id: {(node, port): WorkerResources}}`` (the Cluster's
``getWorkerResourcesMap``, as nimbus.clj turns it into ``WorkerResources``).
"""


def update_assigned_memory(topology_slots, topology_confs):
    """Port of ``Cluster.updateAssignedMemoryForTopologyAndSupervisor`` (1.2.4) on a fresh
    Cluster's maps.

    :param topology_slots: ``{storm_id: iterable of (node, port)}`` of every topology the round
        assigned (the Cluster's assignments).
    :param topology_confs: ``{storm_id: topology conf}`` of the topologies being scheduled;
        assignments of others are skipped.
    :returns: a :class:`RoundResources`: each used slot charged the topology's
        :func:`assigned_memory_for_slot` (on-heap only), summed per topology and per node.
    """
    per_node = {}
    topologies = {}
    workers = {}
    for storm_id, slots in topology_slots.items():
        conf = topology_confs.get(storm_id)
        if conf is None:
            continue
        per_slot = assigned_memory_for_slot(conf)
        assigned = 0.0
        slot_resources = workers[storm_id] = {}
        for node, port in sorted(set(slots)):
            assigned += per_slot
            per_node[node] = per_node.get(node, 0.0) + per_slot
            slot_resources[(node, port)] = WorkerResources(
                mem_on_heap=per_slot, mem_off_heap=0.0, cpu=0.0)
        topologies[storm_id] = [0.0, 0.0, 0.0, assigned, 0.0, 0.0]
    supervisors = {node: [0.0, 0.0, used, 0.0] for node, used in per_node.items()}
    return RoundResources(topologies, supervisors, workers)


def _sum_requests(executor_to_component, resources_of, keys):
    totals = [0.0] * len(keys)
    for component in executor_to_component.values():
        res = resources_of(component)
        for i, key in enumerate(keys):
            value = res.get(key)
            if value is not None:
                totals[i] += value
    return totals


def _component_resources_once(topology, topology_conf, compat):
    """``component -> its resource requests`` (``stats.component_resources``), each
    component's computed once."""
    cache = {}

    def resources_of(component):
        if component not in cache:
            cache[component] = stats.component_resources(topology, topology_conf, component,
                                                         compat)
        return cache[component]
    return resources_of


def requested_resources(user_topology, topology_conf, executor_to_component):
    """Port of ``TopologyDetails.getTotalRequestedMemOnHeap``, ``...MemOffHeap`` and
    ``...Cpu`` (1.2.4): the sums over the executors of their component's requests (its own
    json_conf, else the topology conf's defaults; the added components take the defaults).
    """
    resources_of = _component_resources_once(user_topology, topology_conf, "1.x")
    return _sum_requests(executor_to_component, resources_of,
                         (ONHEAP_MEMORY_MB, OFFHEAP_MEMORY_MB, CPU_PCORE_PERCENT))


def topology_resources_1x(user_topology, topology_conf, executor_to_component,
                          worker_resources):
    """Port of nimbus.clj ``get-resources-for-topology``'s computation (1.2.4) for a topology
    without bookkeeping: requested from the executors, assigned summed over the Assignment's
    ``worker_resources`` (``[0, 0, 0]`` without any)."""
    requested = requested_resources(user_topology, topology_conf, executor_to_component)
    assigned = [0.0, 0.0, 0.0]
    for res in (worker_resources or {}).values():
        assigned[0] += res.mem_on_heap or 0.0
        assigned[1] += res.mem_off_heap or 0.0
        assigned[2] += res.cpu or 0.0
    return requested + assigned


def topology_resources_2x(system_topology, topology_conf, executor_to_component,
                          assigned_executors):
    """Port of 2.8.8 ``TopologyResources`` as ``getResourcesForTopology`` fills it with the
    even scheduler: requested = the executors' normalized requests (on-heap, off-heap, cpu),
    assigned = those of the executors that hold a slot."""
    resources_of = _component_resources_once(system_topology, topology_conf, "2.x")
    keys = (NORMALIZED_ONHEAP, NORMALIZED_OFFHEAP, NORMALIZED_CPU)
    requested = _sum_requests(executor_to_component, resources_of, keys)
    assigned = _sum_requests({e: c for e, c in executor_to_component.items()
                              if e in assigned_executors}, resources_of, keys)
    return requested + assigned
