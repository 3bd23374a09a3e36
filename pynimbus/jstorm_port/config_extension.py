# -*- test-case-name: tests.test_jstorm_port -*-
"""The JStorm 2.2.1 conf keys that steer placement, read as ``ConfigExtension`` and
``JStormUtils.parse*`` read them (same key names, same defaults)."""

import json
import re

from pynimbus.jstorm_port.java_collections import JavaRuntimeError

TASK_ON_DIFFERENT_NODE = "task.on.differ.node"
USE_OLD_ASSIGNMENT = "use.old.assignment"
USE_USERDEFINE_ASSIGNMENT = "use.userdefine.assignment"
MEMSIZE_PER_WORKER = "worker.memory.size"
MEMSIZE_PER_TOPOLOGY_MASTER_WORKER = "topology.master.worker.memory.size"
CPU_SLOT_PER_WORKER = "worker.cpu.slot.num"
TOPOLOGY_MASTER_SINGLE_WORKER = "topology.master.single.worker"
ISOLATION_SCHEDULER_MACHINES = "isolation.scheduler.machines"
TOPOLOGY_WORKERS = "topology.workers"
TOPOLOGY_ACKER_EXECUTORS = "topology.acker.executors"

SIZE_1_G = 1024 * 1024 * 1024

_JAVA_INT = re.compile(r"\A[+-]?[0-9]+\Z")  # what Integer.parseInt accepts


def parse_int(value, default=None):
    """Port of ``JStormUtils.parseInt``: a number (truncated to a Java int), a decimal string,
    or null (``default``)."""
    if value is None:
        return default
    if isinstance(value, bool):
        raise JavaRuntimeError("RuntimeException")
    if isinstance(value, (int, float)):
        return int(value)
    if isinstance(value, str):
        if not _JAVA_INT.match(value):
            raise JavaRuntimeError("NumberFormatException")
        return int(value)
    raise JavaRuntimeError("RuntimeException")


def parse_long(value, default=None):
    """Port of ``JStormUtils.parseLong``: an integer or a decimal string, or null (``default``)."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise JavaRuntimeError("RuntimeException")
    return parse_int(value)


def parse_boolean(value, default=None):
    """Port of ``JStormUtils.parseBoolean``: a boolean, or a string (``Boolean.valueOf``: only
    "true" in any case is true), or null (``default``)."""
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return value.lower() == "true"
    raise JavaRuntimeError("RuntimeException")


def is_task_on_different_node(conf):
    """Port of ``ConfigExtension.isTaskOnDifferentNode``."""
    return parse_boolean(conf.get(TASK_ON_DIFFERENT_NODE), False)


def is_use_old_assignment(conf):
    """Port of ``ConfigExtension.isUseOldAssignment``."""
    return parse_boolean(conf.get(USE_OLD_ASSIGNMENT), False)


def get_mem_size_per_worker(conf):
    """Port of ``ConfigExtension.getMemSizePerWorker`` (2 GB unless a positive size is set)."""
    size = parse_long(conf.get(MEMSIZE_PER_WORKER), SIZE_1_G * 2)
    return size if size > 0 else SIZE_1_G * 2


def get_mem_size_per_topology_master_worker(conf):
    """Port of ``ConfigExtension.getMemSizePerTopologyMasterWorker`` (None when unset)."""
    return parse_long(conf.get(MEMSIZE_PER_TOPOLOGY_MASTER_WORKER))


def get_cpu_slot_per_worker(conf):
    """Port of ``ConfigExtension.getCpuSlotPerWorker``."""
    return parse_int(conf.get(CPU_SLOT_PER_WORKER), 1)


def get_topology_master_single_worker(conf):
    """Port of ``ConfigExtension.getTopologyMasterSingleWorker``: True, False or None (unset)."""
    return parse_boolean(conf.get(TOPOLOGY_MASTER_SINGLE_WORKER))


def get_user_define_assignment(conf):
    """Port of ``ConfigExtension.getUserDefineAssignment``: each string of the list parsed by
    ``WorkerAssignment.parseFromObj`` (None where that fails, as in JStorm)."""
    from pynimbus.jstorm_port.model import WorkerAssignment
    workers = conf.get(USE_USERDEFINE_ASSIGNMENT)
    if workers is None:
        return []
    return [WorkerAssignment.parse_from_obj(from_json(text)) for text in workers]


def from_json(text):
    """``Utils.from_json`` (json-simple's ``JSONValue.parse``): the value, or None where the text
    is null or does not parse."""
    if text is None:
        return None
    if not isinstance(text, str):
        raise JavaRuntimeError("ClassCastException")
    try:
        return json.loads(text, object_pairs_hook=JsonPairs)
    except ValueError:
        return None


class JsonPairs(list):
    """A JSON object as its ``(key, value)`` pairs in document order (json-simple fills a
    ``HashMap`` in that order, which decides its iteration order)."""

    def __init__(self, pairs):
        super(JsonPairs, self).__init__(pairs)

    def get(self, key, default=None):
        for k, v in reversed(self):
            if k == key:
                return v
        return default
