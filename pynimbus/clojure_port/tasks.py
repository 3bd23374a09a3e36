"""Task ids of a topology (pure).

Port of common.clj ``storm-task-info`` (1.2.4); 2.8.8 ``StormCommon.stormTaskInfo``
(scheduling.md section 1), and pynimbus's cap on how many tasks one topology may have.
"""

import json

from pynimbus.clojure_port.executors import java_string_order
from pynimbus.clojure_port.system_topology import all_components, system_topology
from pynimbus.generated.storm.ttypes import InvalidTopologyException

MAX_TASKS_PER_TOPOLOGY = "pynimbus.topology.max.tasks"


def storm_task_info(user_topology, storm_conf, compat=None):
    """Return ``{task_id: component_id}`` for the stored user topology and stored conf.

    Builds the system topology, reads every component's ``topology.tasks`` from its json_conf,
    sorts components by id in Java ``String.compareTo`` order (UTF-16 code units, so ``$``, digits
    and capitals sort before ``__acker``) and hands out consecutive task ids from 1.
    Example: spout ``words`` p 2, bolt ``count`` p 3, 2 workers -> ``__acker`` 1-2, ``count``
    3-5, ``words`` 6-7.

    :raises InvalidTopologyException: the topology is not valid (from ``system_topology``).
    :raises ValueError: a component has no ``topology.tasks`` (the topology was not normalized;
        Storm fails with an undeclared exception too).
    """
    components = all_components(system_topology(storm_conf, user_topology, compat))
    ret = {}
    task_id = 1
    for component_id in sorted(components, key=java_string_order):
        for _ in range(_num_tasks(component_id, components[component_id])):
            ret[task_id] = component_id
            task_id += 1
    return ret


def _num_tasks(component_id, component):
    """The component's ``topology.tasks`` as a count (a negative count hands out no ids)."""
    common = component.common
    conf = json.loads(common.json_conf) if common.json_conf else {}
    num_tasks = conf.get("topology.tasks")
    if num_tasks is None or isinstance(num_tasks, bool):
        raise ValueError("component %s has no topology.tasks in its json_conf" % component_id)
    return max(0, int(num_tasks))


def num_storm_tasks(topology):
    """How many task ids :func:`storm_task_info` hands out for ``topology`` (a system
    topology built from a normalized user topology), counted without listing them."""
    return sum(_num_tasks(component_id, component)
               for component_id, component in all_components(topology).items())


def validate_num_tasks(topology, nimbus_conf):
    """pynimbus's guard, no Storm counterpart: refuse a topology with more tasks than
    ``pynimbus.topology.max.tasks`` (nimbus's conf; None means no cap).

    Everything nimbus holds per topology - task ids, executors (each a range of at least one
    task, so never more than the tasks), the Assignment - grows with the task count, which a
    client chooses (parallelism hints, ``topology.tasks``, ``topology.workers`` sizing the
    ackers and event loggers).  Checked on counts only, before anything is that big.

    :raises InvalidTopologyException: "Failed to submit topology. Topology requests N tasks,
        more than the M allowed per topology (pynimbus.topology.max.tasks)."
    Deliberate difference: Storm has no such cap; past what the JVM can hold its nimbus fails
    every scheduling round.
    """
    limit = nimbus_conf.get(MAX_TASKS_PER_TOPOLOGY)
    if limit is None:
        return
    count = num_storm_tasks(topology)
    if count > limit:
        raise InvalidTopologyException(
            msg="Failed to submit topology. Topology requests %d tasks, more than the %d "
                "allowed per topology (%s)." % (count, limit, MAX_TASKS_PER_TOPOLOGY))
