# -*- test-case-name: tests.test_jstorm_port -*-
"""Port of JStorm 2.2.1's ``DefaultTopologyScheduler.assignTasks``: the whole placement of one
topology for a NEW, REBALANCE or MONITOR round."""

from pynimbus.jstorm_port import config_extension
from pynimbus.jstorm_port.default_assign_context import DefaultTopologyAssignContext
from pynimbus.jstorm_port.java_collections import JavaIntSet, WorkerSlotSet
from pynimbus.jstorm_port.model import (ASSIGN_TYPE_MONITOR, ASSIGN_TYPE_NEW, ASSIGN_TYPE_REBALANCE,
                                        FailedAssignTopologyException)
from pynimbus.jstorm_port.task_scheduler import TaskScheduler
from pynimbus.jstorm_port.worker_scheduler import get_available_workers


def free_used(context):
    """Port of ``freeUsed``: a rebalance gives the topology's old ports (but those of tasks
    still running on a lost supervisor) back to their supervisors."""
    can_free = JavaIntSet(context.all_task_ids)
    can_free.remove_all(context.unstopped_task_ids)
    for task in can_free:
        worker = context.old_assignment.get_worker_by_task_id(task)
        if worker is None:
            continue
        supervisor = context.cluster.get(worker.node_id)
        if supervisor is None:
            continue
        supervisor.available_worker_ports.add(worker.port)


def get_need_assign_tasks(context):
    """Port of ``getNeedAssignTasks``: NEW every task, REBALANCE every task not running on a
    lost supervisor, MONITOR the dead ones (whole workers)."""
    need_assign = JavaIntSet()
    if context.assign_type == ASSIGN_TYPE_NEW:
        need_assign.add_all(context.all_task_ids)
    elif context.assign_type == ASSIGN_TYPE_REBALANCE:
        need_assign.add_all(context.all_task_ids)
        need_assign.remove_all(context.unstopped_task_ids)
    else:
        need_assign.add_all(context.dead_task_ids)
    return need_assign


def get_keep_assign(context, need_assigns):
    """Port of ``getKeepAssign``: the old workers every task of which stays (MONITOR: the
    healthy workers)."""
    keep_assign_ids = JavaIntSet(context.all_task_ids)
    keep_assign_ids.remove_all(context.unstopped_task_ids)
    keep_assign_ids.remove_all(need_assigns)
    keeps = WorkerSlotSet()
    if len(keep_assign_ids) == 0 or context.old_assignment is None:
        return keeps
    keeps.add_all(context.old_workers)
    for worker in context.old_workers:
        if any(task not in keep_assign_ids for task in worker.tasks):
            keeps.remove(worker)
    return keeps


def assign_tasks(context):
    """Port of ``DefaultTopologyScheduler.assignTasks``: the topology's workers after this round
    (kept ones, those of lost supervisors, and the newly filled ones), in no particular order.

    :param context: a :class:`~.model.TopologyAssignContext`; its supervisors' free ports and its
        old assignment's sets are changed in place, as JStorm changes them.
    :raises FailedAssignTopologyException: with JStorm's message: an invalid assign type, nothing
        to place, too few free slots, too few supervisors for ``task.on.differ.node``, no empty
        worker for the topology master.
    :raises JavaRuntimeError: where JStorm fails with a Java runtime exception.
    """
    if context.assign_type not in (ASSIGN_TYPE_NEW, ASSIGN_TYPE_REBALANCE, ASSIGN_TYPE_MONITOR):
        raise FailedAssignTopologyException("Invalide Assign Type %s" % context.assign_type)
    default_context = DefaultTopologyAssignContext(context)
    if context.assign_type == ASSIGN_TYPE_REBALANCE:
        free_used(default_context)
    need_assign_tasks = get_need_assign_tasks(default_context)
    keep_assigns = get_keep_assign(default_context, need_assign_tasks)
    ret = WorkerSlotSet(keep_assigns)
    ret.add_all(default_context.unstopped_workers)
    alloc_worker_num = (default_context.total_worker_num - default_context.unstopped_worker_num
                        - len(keep_assigns))
    if alloc_worker_num <= 0:
        raise FailedAssignTopologyException(
            "Don't need assign worker, all workers are fine ")
    available_workers = get_available_workers(default_context, need_assign_tasks,
                                              alloc_worker_num)
    task_scheduler = TaskScheduler(default_context, need_assign_tasks, available_workers)
    assignment = WorkerSlotSet(task_scheduler.assign())
    tm_worker_mem = config_extension.get_mem_size_per_topology_master_worker(
        default_context.storm_conf)
    if tm_worker_mem is not None:
        for worker in assignment:
            if default_context.topology_master_task_id in worker.tasks:
                worker.mem_size = tm_worker_mem
    ret.add_all(assignment)
    return list(ret)
