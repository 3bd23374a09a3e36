# -*- test-case-name: tests.test_jstorm_port -*-
"""The values JStorm 2.2.1's scheduler reads and writes: ``ResourceWorkerSlot``,
``WorkerAssignment``, ``SupervisorInfo``, ``Assignment`` and ``TopologyAssignContext``.

Plain mutable objects, as in JStorm: the scheduler moves a slot to another port or fills its task
set in place.  A slot's Python identity is its entry in the Java-ordered collections
(:mod:`.java_collections`), so none of these classes defines ``__eq__``/``__hash__``.
"""

from pynimbus.clojure_port.java_hash_map import JavaHashMap, string_hash

from pynimbus.jstorm_port import config_extension
from pynimbus.jstorm_port.java_collections import JavaIntSet, JavaRuntimeError, WorkerSlotSet

ASSIGN_TYPE_NEW = 0        # a topology's first assignment
ASSIGN_TYPE_REBALANCE = 1  # a rebalance: place again, keeping what can be kept
ASSIGN_TYPE_MONITOR = 2    # some tasks are dead: place only those

TOPOLOGY_MASTER_COMPONENT_ID = "__topology_master"
ACKER_COMPONENT_ID = "__acker"


class FailedAssignTopologyException(Exception):
    """JStorm's ``FailedAssignTopologyException``: the topology cannot be placed; ``str()`` is
    JStorm's message, ``component_id`` the component it names (None when it names none)."""

    def __init__(self, message, component_id=None):
        Exception.__init__(self, message)
        self.component_id = component_id


def java_equals_ignore_case(a, b):
    """``String.equalsIgnoreCase`` (``StringUtils.equalsIgnoreCase``: two nulls are equal)."""
    if a is None or b is None:
        return a is b
    return len(a) == len(b) and all(
        x == y or x.upper() == y.upper() or x.lower() == y.lower() for x, y in zip(a, b))


def host_equals(host1, host2):
    """``NetWorkUtils.equals`` without its DNS step: the names equal ignoring case.

    JStorm also calls two different names equal when they resolve to one IP address; a pure
    function cannot resolve names, so that case is not equal here."""
    return java_equals_ignore_case(host1, host2)


class ResourceWorkerSlot(object):
    """One worker of an assignment (``ResourceWorkerSlot``): its supervisor, host, port, memory,
    cpu slots, jvm options and task set (None until a task is given, as in JStorm)."""

    def __init__(self, node_id=None, port=0, hostname=None, tasks=None, mem_size=0, cpu=0,
                 jvm=None):
        self.node_id = node_id
        self.port = port
        self.hostname = hostname
        self.tasks = None if tasks is None else JavaIntSet(tasks)
        self.mem_size = mem_size
        self.cpu = cpu
        self.jvm = jvm

    @classmethod
    def from_worker_assignment(cls, worker, component_to_task):
        """Port of ``ResourceWorkerSlot(WorkerAssignment, Map)``: the first ``num`` tasks of each
        named component, taken off ``component_to_task``'s lists (shared with the caller's map,
        as the shallow ``HashMap.clone`` shares them in JStorm)."""
        if worker is None:
            raise JavaRuntimeError("NullPointerException")
        slot = cls(worker.node_id, worker.port, worker.hostname, (), worker.mem, worker.cpu,
                   worker.jvm)
        for name, num in worker.component_to_num.items():
            tasks = component_to_task.get(name)
            if not tasks:
                continue
            num = min(len(tasks), num)
            if num < 0:
                raise JavaRuntimeError("IllegalArgumentException")
            taken = tasks[:num]
            slot.tasks.add_all(taken)
            tasks[:] = [t for t in tasks if t not in taken]
        return slot

    def get_host_port(self):
        """Port of ``getHostPort``: ``hostname:port`` (Java writes a null host as "null")."""
        return "%s:%d" % ("null" if self.hostname is None else self.hostname, self.port)

    def compare_to_user_define_worker(self, worker, task_to_component):
        """Port of ``compareToUserDefineWorker``: this (running) worker is what ``worker`` asks
        for (cpu, memory, jvm, port where given; host; the same count of each component)."""
        if worker.cpu != 0 and self.cpu != worker.cpu:
            return False
        if worker.mem != 0 and self.mem_size != worker.mem:
            return False
        if worker.jvm is not None and worker.jvm != self.jvm:
            return False
        if not host_equals(self.hostname, worker.hostname):
            return False
        if worker.port != 0 and worker.port != self.port:
            return False
        component_to_num = {}
        for task in self.tasks:
            component = task_to_component.get(task)
            component_to_num[component] = component_to_num.get(component, 0) + 1
        return component_to_num == dict(worker.component_to_num.items())

    def to_json(self):
        """The worker as the oracle prints it: tasks sorted."""
        return {"node_id": self.node_id, "hostname": self.hostname, "port": self.port,
                "tasks": sorted(self.tasks or ()), "mem": self.mem_size, "cpu": self.cpu,
                "jvm": self.jvm}

    def __repr__(self):
        return "ResourceWorkerSlot(%s:%s %s)" % (self.node_id, self.port, sorted(self.tasks or ()))


class WorkerAssignment(object):
    """A user-defined worker (``com.alibaba.jstorm.client.WorkerAssignment``): where it should run
    and how many tasks of each component it holds (a ``HashMap`` in Java's order)."""

    def __init__(self, node_id, port, hostname=None, jvm=None, mem=0, cpu=0,
                 component_to_num=None):
        self.node_id = node_id
        self.port = port
        self.hostname = hostname
        self.jvm = jvm
        self.mem = mem
        self.cpu = cpu
        self.component_to_num = JavaHashMap(key_hash=string_hash) \
            if component_to_num is None else component_to_num

    @classmethod
    def parse_from_obj(cls, obj):
        """Port of ``WorkerAssignment.parseFromObj`` over the JSON object of one
        ``use.userdefine.assignment`` entry: None where JStorm's parse fails (not an object, no
        port, a bad number, ``componentToNum`` not a JSON object in a string)."""
        if not isinstance(obj, config_extension.JsonPairs):
            return None
        try:
            port = config_extension.parse_int(obj.get("port"))
            mem = config_extension.parse_long(obj.get("mem"))
            cpu = config_extension.parse_int(obj.get("cpu"))
            components = config_extension.from_json(obj.get("componentToNum"))
            if port is None or not isinstance(components, config_extension.JsonPairs):
                return None  # a NullPointerException inside the parse's try
            parsed = JavaHashMap(key_hash=string_hash)  # json-simple's JSONObject
            parsed.put_each(components)
            worker = cls(obj.get("nodeId"), port, obj.get("hostName"), obj.get("jvm"),
                         0 if mem is None else mem, 0 if cpu is None else cpu)
            for name, num in parsed.items():
                worker.component_to_num.put(name, config_extension.parse_int(num))
            return worker
        except JavaRuntimeError:
            return None

    def java_equals(self, other):
        """``WorkerAssignment.equals``: every field."""
        return (self.node_id == other.node_id and self.port == other.port
                and self.hostname == other.hostname and self.jvm == other.jvm
                and self.mem == other.mem and self.cpu == other.cpu
                and dict(self.component_to_num.items()) == dict(other.component_to_num.items()))


class SupervisorInfo(object):
    """A live supervisor as the scheduler sees it (``SupervisorInfo``): its id, host, every
    worker port and the ports still free (both ``HashSet<Integer>``)."""

    def __init__(self, supervisor_id, hostname, worker_ports, used_ports=()):
        """Built as ``prepareTopologyAssign`` builds it: the free ports are a new set filled from
        the worker ports, minus the ports any assignment uses (``getFreeSlots``)."""
        self.supervisor_id = supervisor_id
        self.hostname = hostname
        self.worker_ports = JavaIntSet(worker_ports)
        self.available_worker_ports = JavaIntSet(self.worker_ports)
        for port in used_ports:
            self.available_worker_ports.remove(port)

    def __repr__(self):
        return "SupervisorInfo(%s %s free %s)" % (self.supervisor_id, self.hostname,
                                                  list(self.available_worker_ports))


class Assignment(object):
    """A topology's stored assignment (``Assignment``): its workers, a ``HashSet``."""

    def __init__(self, workers=(), node_host=None):
        self.workers = WorkerSlotSet(workers)
        self.node_host = dict(node_host or {})

    def get_worker_by_task_id(self, task_id):
        """Port of ``getWorkerByTaskId``: the first worker (in the set's order) holding it."""
        for worker in self.workers:
            if task_id in worker.tasks:
                return worker
        return None


class TopologyAssignContext(object):
    """What ``TopologyAssign.prepareTopologyAssign`` hands the scheduler.

    :param assign_type: ``ASSIGN_TYPE_NEW``, ``_REBALANCE`` or ``_MONITOR``.
    :param raw_topology: ``{"spouts": {id: component}, "bolts": {id: component}}``, a component
        being ``{"parallelism": hint, "inputs": [component ids], "conf": {...}}`` (the component's
        JSON conf); the topology as submitted, without acker or topology master.
    :param storm_conf: nimbus conf merged with the topology conf.
    :param cluster: supervisor id -> :class:`SupervisorInfo` (JStorm's ``TreeMap``: iterated in
        id order).
    :param task_to_component: task id -> component id, every task (topology master and ackers
        included).
    :param old_assignment: the topology's :class:`Assignment` (NEW: the last one of a topology
        of that name, or None).
    :param dead_task_ids, unstopped_task_ids: iterables in the order their ``HashSet`` was filled.
    :param topology_master_task_id: the ``__topology_master`` task (0 when there is none).
    """

    def __init__(self, assign_type, raw_topology, storm_conf, cluster, task_to_component,
                 old_assignment=None, dead_task_ids=(), unstopped_task_ids=(), is_reassign=False,
                 topology_master_task_id=0, assign_single_worker_for_tm=False):
        self.assign_type = assign_type
        self.raw_topology = raw_topology
        self.storm_conf = storm_conf
        self.cluster = cluster
        self.task_to_component = dict(sorted(task_to_component.items()))
        self.old_assignment = old_assignment
        self.dead_task_ids = JavaIntSet(dead_task_ids)
        self.unstopped_task_ids = JavaIntSet(unstopped_task_ids)
        self.is_reassign = is_reassign
        self.topology_master_task_id = topology_master_task_id
        self.assign_single_worker_for_tm = assign_single_worker_for_tm
        self._cluster_order = None  # the supervisors never change within a placement

    @property
    def all_task_ids(self):
        """``taskToComponent.keySet()`` of JStorm's ``TreeMap``: ascending."""
        return list(self.task_to_component)

    def cluster_in_order(self):
        """The supervisors as JStorm's ``TreeMap`` iterates them: by id, as ``String`` compares."""
        if self._cluster_order is None:
            self._cluster_order = sorted(self.cluster, key=_java_string_order)
        return [self.cluster[k] for k in self._cluster_order]


def _java_string_order(s):
    return s.encode("utf-16-be")
