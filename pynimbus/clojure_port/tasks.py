"""Task ids of a topology (pure).

Port of common.clj ``storm-task-info`` (1.2.4); 2.8.8 ``StormCommon.stormTaskInfo``
(scheduling.md section 1).
"""

import json

from pynimbus.clojure_port.executors import java_string_order
from pynimbus.clojure_port.system_topology import all_components, system_topology


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
        common = components[component_id].common
        conf = json.loads(common.json_conf) if common.json_conf else {}
        num_tasks = conf.get("topology.tasks")
        if num_tasks is None or isinstance(num_tasks, bool):
            raise ValueError("component %s has no topology.tasks in its json_conf" % component_id)
        for _ in range(int(num_tasks)):
            ret[task_id] = component_id
            task_id += 1
    return ret
