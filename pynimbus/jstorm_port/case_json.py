# -*- test-case-name: tests.test_jstorm_port -*-
"""One placement problem as JSON (a "case"), the form the port's tests and the Java oracle
harness share, and the placement as JSON.

A case::

    {"assign_type": 0 | 1 | 2, "is_reassign": false,
     "storm_conf": {...},
     "topology": {"spouts": {id: {"parallelism": n, "conf": {...}}},
                  "bolts": {id: {"parallelism": n, "inputs": [component ids], "conf": {...}}}},
     "task_to_component": {"1": "spout", ...},
     "topology_master_task_id": 0,
     "supervisors": [{"id": ..., "hostname": ..., "ports": [...], "used_ports": [...]}],
     "old_assignment": null | {"workers": [{"node_id", "hostname", "port", "tasks": [...],
                                            "mem", "cpu", "jvm"}]},
     "dead_tasks": [...], "unstopped_tasks": [...]}

Lists that fill a Java ``HashSet`` (ports, tasks, old workers, dead and unstopped tasks) are in
the order the set was filled.  The placement is a sorted list of workers
(:meth:`~.model.ResourceWorkerSlot.to_json`), or ``{"error": class name, "message": ...}``.
"""

from pynimbus.jstorm_port.java_collections import JavaRuntimeError
from pynimbus.jstorm_port.model import (
    Assignment, FailedAssignTopologyException, ResourceWorkerSlot, SupervisorInfo,
    TopologyAssignContext)
from pynimbus.jstorm_port.topology_scheduler import assign_tasks


def context_from_case(case):
    """The :class:`~.model.TopologyAssignContext` a case describes."""
    cluster = {}
    for s in case["supervisors"]:
        cluster[s["id"]] = SupervisorInfo(s["id"], s["hostname"], s["ports"],
                                          s.get("used_ports", ()))
    old = case.get("old_assignment")
    old_assignment = None
    if old is not None:
        old_assignment = Assignment(
            [ResourceWorkerSlot(w["node_id"], w["port"], w.get("hostname"), w["tasks"],
                                w.get("mem", 0), w.get("cpu", 0), w.get("jvm"))
             for w in old["workers"]])
    return TopologyAssignContext(
        case["assign_type"], case["topology"], case.get("storm_conf", {}), cluster,
        dict((int(k), v) for k, v in case["task_to_component"].items()),
        old_assignment=old_assignment, dead_task_ids=case.get("dead_tasks", ()),
        unstopped_task_ids=case.get("unstopped_tasks", ()),
        is_reassign=case.get("is_reassign", False),
        topology_master_task_id=case.get("topology_master_task_id", 0))


def placement_json(workers):
    """Workers as the oracle prints them: sorted by node id, then port."""
    return sorted((w.to_json() for w in workers),
                  key=lambda w: ("" if w["node_id"] is None else w["node_id"], w["port"]))


def place_case(case):
    """The port's placement of a case, or the error JStorm's would end in."""
    try:
        return placement_json(assign_tasks(context_from_case(case)))
    except FailedAssignTopologyException as e:
        return {"error": "FailedAssignTopologyException", "message": str(e)}
    except JavaRuntimeError as e:
        return {"error": str(e)}
