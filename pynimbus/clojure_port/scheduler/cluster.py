# -*- test-case-name: tests.test_port_scheduler_cluster -*-
"""The scheduler's view of the cluster: topologies, supervisors, slots and assignments (pure).

Ports of the parts of ``TopologyDetails``, ``SupervisorDetails``, ``WorkerSlot``,
``SchedulerAssignmentImpl`` and ``Cluster`` (1.2.4 ``storm-core/src/jvm``, 2.8.8
``storm-server``) that the default scheduler uses.  Shapes:

- an *executor* is a ``(start_task, end_task)`` tuple (``ExecutorDetails``);
- a :class:`WorkerSlot` is a ``(node_id, port)`` named tuple; plain ``(node, port)`` tuples
  compare and hash equal to it;
- a topology's *scheduler assignment* is a dict ``{executor: WorkerSlot}``.

:class:`Cluster` is the one mutable object of the scheduler, as upstream: the schedulers work on
a copy (``Cluster.copy``) and return it, so arguments are never changed.
"""

import collections

from pynimbus.clojure_port import java_order
from pynimbus.generated.storm import ttypes

WorkerSlot = collections.namedtuple("WorkerSlot", "node_id port")
WorkerSlot.__doc__ = "Port of ``WorkerSlot``: a supervisor id and a port (resources kept apart)."

SupervisorDetails = collections.namedtuple(
    "SupervisorDetails", "id host scheduler_meta all_ports resources_map")
SupervisorDetails.__doc__ = """Port of ``SupervisorDetails``: one alive supervisor.

``all_ports``: the usable ports (``SupervisorInfo.meta`` minus this round's dead ports) as a
tuple in the order the Java ``HashSet`` iterates them (1.x) or ascending (2.x).
"""

ResourceRequest = collections.namedtuple("ResourceRequest", "on_heap off_heap cpu generic")
ResourceRequest.__new__.__defaults__ = (None,)
ResourceRequest.__doc__ = """One executor's resource request (2.x ``NormalizedResourceRequest``).

``on_heap``/``off_heap`` in MB, ``cpu`` in percent of a core, ``generic``: other resources by
name (or None).
"""

COMMON_CPU_RESOURCE_NAME = "cpu.pcore.percent"
COMMON_ONHEAP_MEMORY_RESOURCE_NAME = "onheap.memory.mb"
COMMON_OFFHEAP_MEMORY_RESOURCE_NAME = "offheap.memory.mb"
STORM_WORKER_MIN_CPU_PCORE_PERCENT = "storm.worker.min.cpu.pcore.percent"


class TopologyDetails(object):
    """Port of ``TopologyDetails``: what the scheduler knows of one topology.

    :param topology_id: the storm id.
    :param conf: the topology conf (dict).
    :param num_workers: ``StormBase.num_workers``.
    :param executor_to_component: ``{executor: component_id}`` (``compute-executor->component``).
    :param executors: the executors, when ``executor_to_component`` is not given (its keys
        otherwise); lists are accepted and turned into tuples.
    :param launch_time_secs: ``StormBase.launch_time_secs``.
    :param owner: ``StormBase.owner`` (the submitter; written as ``Assignment.owner``).
    :param storm_version: ``StormTopology.storm_version`` (2.x: decides RPC heartbeats).
    :param executor_resources: 2.x only, ``{executor: ResourceRequest}`` for executors whose
        component sets resources in its ``json_conf``; the others request the topology conf's
        defaults (see :func:`default_resource_request`).
    :param raw_topology: the submitted components as ``pynimbus.jstorm_port`` reads them
        (``storm_scheduler.raw_topology_of``), for ``pynimbus.scheduler: jstorm``; or None.
    """

    __slots__ = ("topology_id", "conf", "num_workers", "executor_to_component", "executors",
                 "executor_set", "launch_time_secs", "owner", "storm_version",
                 "executor_resources", "raw_topology")

    def __init__(self, topology_id, conf=None, num_workers=0, executor_to_component=None,
                 executors=None, launch_time_secs=None, owner=None, storm_version=None,
                 executor_resources=None, raw_topology=None):
        self.topology_id = topology_id
        self.conf = conf or {}
        self.num_workers = num_workers or 0
        if executor_to_component is not None:
            executor_to_component = {tuple(e): c for e, c in executor_to_component.items()}
            if executors is None:
                executors = list(executor_to_component)
        self.executor_to_component = executor_to_component or {}
        self.executors = tuple(tuple(e) for e in (executors or ()))
        self.executor_set = frozenset(self.executors)
        self.launch_time_secs = launch_time_secs
        self.owner = owner
        self.storm_version = storm_version
        self.executor_resources = executor_resources or {}
        self.raw_topology = raw_topology

    @property
    def name(self):
        """The topology name (``topology.name`` of its conf)."""
        return self.conf.get("topology.name")

    def __repr__(self):
        return "TopologyDetails(%r, num_workers=%r, executors=%d)" % (
            self.topology_id, self.num_workers, len(self.executors))


def zero_worker_resources():
    """The ``WorkerResources`` 1.2.4 writes for a slot of the default scheduler: 0.0 x 3."""
    return ttypes.WorkerResources(mem_on_heap=0.0, mem_off_heap=0.0, cpu=0.0)


_RESOURCE_NAMES = {
    "topology.component.cpu.pcore.percent": COMMON_CPU_RESOURCE_NAME,
    "supervisor.cpu.capacity": COMMON_CPU_RESOURCE_NAME,
    "topology.component.resources.onheap.memory.mb": COMMON_ONHEAP_MEMORY_RESOURCE_NAME,
    "topology.component.resources.offheap.memory.mb": COMMON_OFFHEAP_MEMORY_RESOURCE_NAME,
    "supervisor.memory.capacity.mb": "memory.mb",
}
_ACKER_COMPONENT_ID = "__acker"
_METRICS_COMPONENT_ID_PREFIX = "__metrics_"
_COMPONENT_DEFAULTS = (
    (COMMON_CPU_RESOURCE_NAME, "topology.component.cpu.pcore.percent"),
    (COMMON_OFFHEAP_MEMORY_RESOURCE_NAME, "topology.component.resources.offheap.memory.mb"),
    (COMMON_ONHEAP_MEMORY_RESOURCE_NAME, "topology.component.resources.onheap.memory.mb"),
)
_SYSTEM_OVERRIDES = {
    "acker": (("topology.acker.resources.onheap.memory.mb", COMMON_ONHEAP_MEMORY_RESOURCE_NAME),
              ("topology.acker.resources.offheap.memory.mb", COMMON_OFFHEAP_MEMORY_RESOURCE_NAME),
              ("topology.acker.cpu.pcore.percent", COMMON_CPU_RESOURCE_NAME)),
    "metrics": (("topology.metrics.consumer.resources.onheap.memory.mb",
                 COMMON_ONHEAP_MEMORY_RESOURCE_NAME),
                ("topology.metrics.consumer.resources.offheap.memory.mb",
                 COMMON_OFFHEAP_MEMORY_RESOURCE_NAME),
                ("topology.metrics.consumer.cpu.pcore.percent", COMMON_CPU_RESOURCE_NAME)),
}


def default_resource_request(topology_conf, component_id):
    """Port of ``NormalizedResourceRequest(topoConf, componentId)`` (2.8.8): the request of an
    executor whose component sets no resources in its ``json_conf``.

    ``topology.component.resources.map``, then the acker's or metrics consumers' own settings,
    then ``topology.component.cpu.pcore.percent`` and the on/off-heap defaults (10.0, 0.0 and
    128.0 in a conf merged with defaults.yaml) where still missing.
    """
    conf = topology_conf or {}
    resources = {_RESOURCE_NAMES.get(k, k): float(v)
                 for k, v in (conf.get("topology.component.resources.map") or {}).items()}
    kind = None
    if component_id == _ACKER_COMPONENT_ID:
        kind = "acker"
    elif component_id is not None and component_id.startswith(_METRICS_COMPONENT_ID_PREFIX):
        kind = "metrics"
    for key, name in _SYSTEM_OVERRIDES.get(kind, ()):
        if key in conf:
            resources[name] = float(conf[key])
    for name, key in _COMPONENT_DEFAULTS:
        if name not in resources and conf.get(key) is not None:
            resources[name] = float(conf[key])
    generic = {k: v for k, v in resources.items()
               if k not in (COMMON_CPU_RESOURCE_NAME, COMMON_ONHEAP_MEMORY_RESOURCE_NAME,
                            COMMON_OFFHEAP_MEMORY_RESOURCE_NAME, "memory.mb")}
    return ResourceRequest(resources.get(COMMON_ONHEAP_MEMORY_RESOURCE_NAME, 0.0),
                           resources.get(COMMON_OFFHEAP_MEMORY_RESOURCE_NAME, 0.0),
                           resources.get(COMMON_CPU_RESOURCE_NAME, 0.0), generic)


def calculate_worker_resources(topology, executors, min_worker_cpu=0.0):
    """Port of ``Cluster.calculateWorkerResources`` (2.8.8): the sum of the executors' requests.

    An executor's request is ``topology.executor_resources[executor]`` when given (a component
    with resources in its ``json_conf``), else :func:`default_resource_request` of the topology
    conf and its component (``TopologyDetails.addDefaultResforExec``).  Deliberate differences:
    the topology's shared-memory requests are not ported (shared fields are 0.0 / empty), nor
    is parsing the components' ``json_conf`` (the caller passes those requests).
    """
    on_heap = off_heap = cpu = 0.0
    generic = {}
    if topology is None:
        executors = ()
        requests = {}
    else:
        requests = topology.executor_resources
    defaults = {}
    for executor in executors:
        request = requests.get(executor)
        if request is None:
            component = topology.executor_to_component.get(executor)
            request = defaults.get(component)
            if request is None:
                request = defaults[component] = default_resource_request(topology.conf,
                                                                         component)
        on_heap += request.on_heap or 0.0
        off_heap += request.off_heap or 0.0
        cpu += request.cpu or 0.0
        for name, amount in (request.generic or {}).items():
            generic[name] = generic.get(name, 0.0) + amount
    resources = dict(generic)
    resources[COMMON_CPU_RESOURCE_NAME] = cpu
    if cpu < min_worker_cpu:
        cpu = min_worker_cpu
        resources[COMMON_CPU_RESOURCE_NAME] = cpu
    resources[COMMON_OFFHEAP_MEMORY_RESOURCE_NAME] = off_heap
    resources[COMMON_ONHEAP_MEMORY_RESOURCE_NAME] = on_heap
    return ttypes.WorkerResources(
        mem_on_heap=on_heap, mem_off_heap=off_heap, cpu=cpu, shared_mem_on_heap=0.0,
        shared_mem_off_heap=0.0, resources=resources, shared_resources={})


class Cluster(object):
    """Port of ``Cluster`` (1.2.4 / 2.8.8), reduced to what the default scheduler uses.

    :param supervisors: ``{supervisor_id: SupervisorDetails}``, iterated in the given order
        (callers pass 1.x's ``HashMap`` order, see ``java_order.supervisor_order_1x``).
    :param assignments: ``{topology_id: {executor: slot}}``, the alive part of the current
        assignments.
    :param topologies: ``{topology_id: TopologyDetails}`` in ``Topologies`` order (2.x
        computes resources from them and its even scheduler walks them all).
    :param compat: ``"1.x"`` or ``"2.x"``.
    :param slot_resources: ``{topology_id: {slot: WorkerResources}}`` of the current slots
        (1.x keeps them; 2.x recomputes every slot's resources, as its constructor re-assigns
        each slot).
    :param wire_orders: ``{topology_id: ((executor, slot), ...)}``, the stored Assignment's
        entries in wire order (only used to reproduce upstream's map order); defaults to the
        order of ``assignments``.
    :param blacklisted_hosts: hosts whose supervisors offer no slot (2.x blacklisting; empty
        unless given).
    :param conf: Nimbus conf (2.x: ``storm.worker.min.cpu.pcore.percent``).
    """

    def __init__(self, supervisors, assignments=None, topologies=None, compat="1.x",
                 slot_resources=None, wire_orders=None, blacklisted_hosts=(), conf=None):
        self.compat = compat
        self.supervisors = dict(supervisors)
        self.topologies = dict(topologies or {})
        self.blacklisted_hosts = frozenset(blacklisted_hosts)
        self.conf = conf or {}
        self._slots_of = {sid: tuple(WorkerSlot(sid, p) for p in sup.all_ports)
                          for sid, sup in self.supervisors.items()}
        self._assignments = {}
        self._resources = {}
        self._slot_index = {}
        self._used_ports = {}
        self._topology_slots = {}
        self._available = None
        self._wire_orders = {}
        self._initial_executors = {}
        for topology_id, pairs in (wire_orders or {}).items():
            self._wire_orders[topology_id] = tuple(
                (tuple(e), WorkerSlot(*s)) for e, s in pairs)
        assignments = {t: {tuple(e): WorkerSlot(*s) for e, s in a.items()}
                       for t, a in (assignments or {}).items()}
        if compat == "2.x":
            self._reassign_2x(assignments)
            return
        for topology_id, executor_to_slot in assignments.items():
            self._assignments[topology_id] = executor_to_slot
            self._initial_executors[topology_id] = frozenset(executor_to_slot)
            for executor, slot in executor_to_slot.items():
                self._index(topology_id, executor, slot)
            resources = (slot_resources or {}).get(topology_id) or {}
            self._resources[topology_id] = {WorkerSlot(*s): r for s, r in resources.items()}

    def _reassign_2x(self, assignments):
        """2.8.8's constructor (``setAssignments``): ``assign`` every slot of every assignment
        again, skipping what fails (an occupied slot, an unknown topology), so the slots'
        resources are recomputed and a topology left with no slot has no assignment."""
        for topology_id in java_order.java_hash_map_order(list(assignments),
                                                          java_order.string_hash):
            executor_to_slot = assignments[topology_id]
            wire = self._wire_orders.get(topology_id) or tuple(executor_to_slot.items())
            in_wire = {e for e, _ in wire}
            wire = wire + tuple((e, s) for e, s in executor_to_slot.items() if e not in in_wire)
            for slot, executors in java_order.scheduler_slots_2x(wire, set(executor_to_slot)):
                if topology_id not in self.topologies:
                    continue
                try:
                    self.assign(slot, topology_id, executors)
                except RuntimeError:
                    pass
            self._initial_executors[topology_id] = frozenset(
                self._assignments.get(topology_id) or ())

    def copy(self):
        """Port of the copy constructor ``Cluster(Cluster)``: an independent copy."""
        new = Cluster.__new__(Cluster)
        new.compat = self.compat
        new.supervisors = self.supervisors
        new.topologies = self.topologies
        new.blacklisted_hosts = self.blacklisted_hosts
        new.conf = self.conf
        new._slots_of = self._slots_of
        new._assignments = {t: dict(a) for t, a in self._assignments.items()}
        new._resources = {t: dict(r) for t, r in self._resources.items()}
        new._slot_index = {s: {t: list(es) for t, es in owners.items()}
                           for s, owners in self._slot_index.items()}
        new._used_ports = {n: dict(ports) for n, ports in self._used_ports.items()}
        new._topology_slots = {t: set(slots) for t, slots in self._topology_slots.items()}
        new._available = self._available
        new._wire_orders = self._wire_orders
        new._initial_executors = self._initial_executors
        return new

    # index of slot -> topology -> executors, and node -> port -> number of holders

    def _index(self, topology_id, executor, slot):
        owners = self._slot_index.setdefault(slot, {})
        if not owners:
            ports = self._used_ports.setdefault(slot.node_id, {})
            ports[slot.port] = ports.get(slot.port, 0) + 1
            self._available = None
        owners.setdefault(topology_id, []).append(executor)
        self._topology_slots.setdefault(topology_id, set()).add(slot)

    def _unindex_slot(self, slot):
        owners = self._slot_index.pop(slot, None)
        if owners:
            ports = self._used_ports[slot.node_id]
            ports[slot.port] -= 1
            if not ports[slot.port]:
                del ports[slot.port]
            self._available = None
            for topology_id in owners:
                self._topology_slots[topology_id].discard(slot)
        return owners or {}

    # supervisors

    def get_supervisor_by_id(self, node_id):
        """Port of ``getSupervisorById``: the SupervisorDetails, or None."""
        return self.supervisors.get(node_id)

    def get_host(self, supervisor_id):
        """Port of ``getHost`` with the standalone INimbus: the supervisor's host, or None."""
        supervisor = self.supervisors.get(supervisor_id)
        return None if supervisor is None else supervisor.host

    def is_blacklisted(self, supervisor_id):
        """Port of ``isBlackListed``: the supervisor's host is blacklisted."""
        return bool(self.blacklisted_hosts) and \
            self.get_host(supervisor_id) in self.blacklisted_hosts

    # assignments

    def get_assignment_by_id(self, topology_id):
        """Port of ``getAssignmentById``: ``{executor: WorkerSlot}`` or None (do not modify)."""
        return self._assignments.get(topology_id)

    def get_assignments(self):
        """Port of ``getAssignments``: ``{topology_id: {executor: WorkerSlot}}`` (copies)."""
        return {t: dict(a) for t, a in self._assignments.items()}

    def get_slot_resources(self, topology_id):
        """``{WorkerSlot: WorkerResources}`` of the topology's slots (``getScheduledResources``
        in 2.x, the resources carried by ``WorkerSlot`` in 1.x)."""
        return dict(self._resources.get(topology_id) or {})

    def wire_order(self, topology_id):
        """The stored Assignment's ``(executor, slot)`` pairs in wire order (see the class)."""
        pairs = self._wire_orders.get(topology_id)
        if pairs is None:
            pairs = tuple((self._assignments.get(topology_id) or {}).items())
        return pairs

    def initial_executors(self, topology_id):
        """The executors the topology's assignment held when the cluster was made."""
        return self._initial_executors.get(topology_id, frozenset())

    def get_assigned_num_workers(self, topology):
        """Port of ``getAssignedNumWorkers``: the number of distinct slots assigned."""
        return len(self._topology_slots.get(topology.topology_id) or ())

    def get_unassigned_executors(self, topology):
        """Port of ``getUnassignedExecutors``: the topology's executors without a slot."""
        assignment = self._assignments.get(topology.topology_id)
        if not assignment:
            return set(topology.executor_set)
        return {e for e in topology.executors if e not in assignment}

    def needs_scheduling(self, topology):
        """Port of ``needsScheduling``: fewer slots than workers wanted, or an executor
        without a slot."""
        return (topology.num_workers > self.get_assigned_num_workers(topology)
                or bool(self.get_unassigned_executors(topology)))

    def needs_scheduling_topologies(self, topologies):
        """Port of ``needsSchedulingTopologies``: those of ``topologies`` (in order) that need
        scheduling."""
        return [t for t in topologies if self.needs_scheduling(t)]

    # slots

    def get_used_ports(self, supervisor):
        """Port of ``getUsedPorts``: ports of the supervisor held by any assignment."""
        return set(self._used_ports.get(supervisor.id) or ())

    def get_assignable_ports(self, supervisor):
        """Port of ``getAssignablePorts``: all ports, none when blacklisted."""
        return () if self.is_blacklisted(supervisor.id) else supervisor.all_ports

    def get_available_ports(self, supervisor):
        """Port of ``getAvailablePorts``: assignable ports no assignment holds, in order."""
        used = self._used_ports.get(supervisor.id) or ()
        return [p for p in self.get_assignable_ports(supervisor) if p not in used]

    def get_available_slots(self, supervisor=None):
        """Port of ``getAvailableSlots``: free slots of one supervisor, or of all supervisors in
        supervisor order then port order (a list the caller must not change)."""
        if supervisor is not None:
            supervisors = (supervisor,)
        elif self._available is not None:
            return self._available
        else:
            supervisors = self.supervisors.values()
        slots = []
        for sup in supervisors:
            if self.blacklisted_hosts and self.is_blacklisted(sup.id):
                continue
            used = self._used_ports.get(sup.id)
            if used:
                slots.extend(s for s in self._slots_of.get(sup.id, ()) if s.port not in used)
            else:
                slots.extend(self._slots_of.get(sup.id, ()))
        if supervisor is None:
            self._available = slots
        return slots

    def is_slot_occupied(self, slot):
        """Port of ``isSlotOccupied``: some assignment holds the slot."""
        return WorkerSlot(*slot) in self._slot_index

    def assign(self, slot, topology_id, executors):
        """Port of ``assign``: give ``executors`` of the topology the slot.

        The slot's ``WorkerResources`` are 0.0 in 1.x and computed from the topology's requests
        in 2.x (``calculateWorkerResources``).

        :raises RuntimeError: when the slot is occupied or an executor already has a slot
            (upstream's messages).
        """
        slot = WorkerSlot(*slot)
        executors = [tuple(e) for e in executors]
        if slot in self._slot_index:
            raise RuntimeError("slot: [%s, %s] is already occupied." % (slot.node_id, slot.port))
        assignment = self._assignments.get(topology_id)
        if assignment is None:
            assignment = self._assignments[topology_id] = {}
            self._resources[topology_id] = {}
        for executor in executors:
            if executor in assignment:
                raise RuntimeError(
                    "Attempting to assign executor: [%s, %s] of topology: %s to workerslot: "
                    "%s:%s. The executor is already assigned to workerslot: %s:%s. The executor "
                    "must unassigned before it can be assigned to another slot!"
                    % (executor[0], executor[1], topology_id, slot.node_id, slot.port,
                       assignment[executor].node_id, assignment[executor].port))
        for executor in executors:
            assignment[executor] = slot
            self._index(topology_id, executor, slot)
        if self.compat == "2.x":
            min_cpu = float(self.conf.get(STORM_WORKER_MIN_CPU_PCORE_PERCENT) or 0.0)
            resources = calculate_worker_resources(
                self.topologies.get(topology_id), executors, min_cpu)
        else:
            resources = zero_worker_resources()
        self._resources[topology_id][slot] = resources

    def free_slot(self, slot):
        """Port of ``freeSlot``: remove the slot from every assignment."""
        slot = WorkerSlot(*slot)
        for topology_id, executors in self._unindex_slot(slot).items():
            assignment = self._assignments[topology_id]
            for executor in executors:
                del assignment[executor]
            self._resources.get(topology_id, {}).pop(slot, None)

    def free_slots(self, slots):
        """Port of ``freeSlots``."""
        for slot in slots or ():
            self.free_slot(slot)
