"""Task counts of a submitted topology (pure).

Port of nimbus.clj ``normalize-topology`` and ``component-parallelism`` (1.2.4); 2.8.8
``Nimbus.normalizeTopology`` and ``ServerUtils.getComponentParallelism`` (submit-path.md
section 4).

The json_conf strings written here are stored in the code blob and returned by
``getUserTopology``, so they are written as Storm writes them: compact JSON, ``/`` escaped,
keys in the order of the map Storm serializes (1.x: the parsed component conf as a Clojure map,
then ``topology.tasks`` appended or replaced in place, hash order past 8 keys; 2.x: a Java
HashMap of the parsed conf plus ``topology.tasks``).  See :mod:`pynimbus.clojure_port.conf`.
"""

import copy

from pynimbus.clojure_port.conf import (
    TOPOLOGY_MAX_TASK_PARALLELISM, TOPOLOGY_TASKS, compat_of, get_int)
from pynimbus.clojure_port.conf_validation import validate_component_counts
from pynimbus.clojure_port.normalize_conf import parse_component_json
from pynimbus.clojure_port.system_topology import (
    all_components, json_conf_with)


def _num_start_executors(component_common):
    return 1 if component_common.parallelism_hint is None else component_common.parallelism_hint


def component_parallelism(total_conf, component_common, compat=None):
    """Port of nimbus.clj ``component-parallelism`` (1.2.4); 2.8.8
    ``ServerUtils.getComponentParallelism``: the number of tasks of one component.

    The component's json_conf overlays ``total_conf``; the tasks are its ``topology.tasks``,
    else the parallelism hint (unset means 1), capped by ``topology.max.task.parallelism`` when
    that is set.  A topology-level ``topology.tasks`` applies to every component without its own.
    2.x reads numbers with ``ObjectReader.getInt`` (numeric strings allowed, doubles refused).
    """
    compat = compat_of(total_conf, compat)
    merged = dict(total_conf)
    merged.update(parse_component_json(component_common.json_conf) or {})
    hint = _num_start_executors(component_common)
    if compat == "2.x":
        num_tasks = get_int(merged.get(TOPOLOGY_TASKS), hint)
        max_parallelism = get_int(merged.get(TOPOLOGY_MAX_TASK_PARALLELISM))
        return num_tasks if max_parallelism is None else min(max_parallelism, num_tasks)
    num_tasks = merged.get(TOPOLOGY_TASKS)
    if num_tasks is None or num_tasks is False:  # Clojure's `or`
        num_tasks = hint
    max_parallelism = merged.get(TOPOLOGY_MAX_TASK_PARALLELISM)
    if max_parallelism is None or max_parallelism is False:
        return num_tasks
    return min(max_parallelism, num_tasks)


def normalize_topology(total_conf, topology, compat=None):
    """Port of nimbus.clj ``normalize-topology`` (1.2.4); 2.8.8 ``Nimbus.normalizeTopology``.

    Returns a copy of ``topology`` in which every spout, bolt and state spout's json_conf is its
    own conf plus ``"topology.tasks": component_parallelism(...)``.  Executor counts (the
    parallelism hints) are left alone.  Like Storm, when an id is both a spout and a bolt only
    the component :func:`all_components` keeps is normalized.
    """
    compat = compat_of(total_conf, compat)
    ret = copy.deepcopy(topology)
    for component in all_components(ret).values():
        common = component.common
        tasks = component_parallelism(total_conf, common, compat)
        common.json_conf = json_conf_with(common.json_conf, {TOPOLOGY_TASKS: tasks}, compat)
    return ret


def validate_component_confs(topology, compat="1.x"):
    """Storm's validators of the counts :func:`component_parallelism` reads from a component's
    own conf, on every component the topology normalizes
    (:func:`~pynimbus.clojure_port.conf.validate_component_counts`; Storm validates only the
    topology conf, so this is a deliberate difference).

    :raises InvalidTopologyException: naming the first component whose count fails.
    """
    for component_id, component in all_components(topology).items():
        validate_component_counts(
            component_id, parse_component_json(component.common.json_conf) or {}, compat)


__all__ = ["component_parallelism", "normalize_topology", "validate_component_confs"]
