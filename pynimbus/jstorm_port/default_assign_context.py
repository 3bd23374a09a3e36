# -*- test-case-name: tests.test_jstorm_port -*-
"""Port of JStorm 2.2.1's ``DefaultTopologyAssignContext``: what the default scheduler derives
from a :class:`~.model.TopologyAssignContext` before placing (the old workers, the dead tasks
widened to whole workers, each component's sorted tasks, how many workers the topology gets, the
workers of tasks still running on a lost supervisor)."""

from pynimbus.jstorm_port import config_extension
from pynimbus.jstorm_port.common import system_topology_parallelism_hints
from pynimbus.jstorm_port.java_collections import JavaIntSet, WorkerSlotSet
from pynimbus.jstorm_port.model import TOPOLOGY_MASTER_COMPONENT_ID


class DefaultTopologyAssignContext(object):
    """Port of ``DefaultTopologyAssignContext(TopologyAssignContext)``: the context's fields (the
    same objects: the scheduler changes the supervisors' free ports and the old assignment's
    sets in place, as JStorm does) plus the derived ones."""

    def __init__(self, context):
        self.assign_type = context.assign_type
        self.raw_topology = context.raw_topology
        self.storm_conf = context.storm_conf
        self.old_assignment = context.old_assignment
        self.cluster = context.cluster
        self.task_to_component = context.task_to_component
        self.all_task_ids = context.all_task_ids
        self.dead_task_ids = context.dead_task_ids
        self.unstopped_task_ids = context.unstopped_task_ids
        self.is_reassign = context.is_reassign
        self.topology_master_task_id = context.topology_master_task_id
        self.assign_single_worker_for_tm = context.assign_single_worker_for_tm
        self.cluster_in_order = context.cluster_in_order

        if self.old_assignment is not None and self.old_assignment.workers is not None:
            self.old_workers = self.old_assignment.workers
        else:
            self.old_workers = WorkerSlotSet()
        self.refine_dead_tasks()
        self.component_tasks = {}
        for task, component in self.task_to_component.items():  # reverse_map, then sorted
            self.component_tasks.setdefault(component, []).append(task)
        for tasks in self.component_tasks.values():
            tasks.sort()
        self.total_worker_num = self.compute_worker_num()
        self.unstopped_workers = WorkerSlotSet()
        self.unstopped_worker_num = self.compute_unstopped_assignments()

    def compute_worker_num(self):
        """Port of ``computeWorkerNum``: ``topology.workers`` capped by the sum of the system
        topology's hints (the topology master's aside), plus a worker of its own for the topology
        master when ``topology.master.single.worker`` says so, or, unset, from 10 workers up."""
        setting_num = config_extension.parse_int(
            self.storm_conf.get(config_extension.TOPOLOGY_WORKERS))
        hint_sum = tm_count = 0
        for component_id, hint in system_topology_parallelism_hints(
                self.storm_conf, self.raw_topology).items():
            if component_id == TOPOLOGY_MASTER_COMPONENT_ID:
                tm_count += hint
            else:
                hint_sum += hint
        worker_num = hint_sum if setting_num is None else min(setting_num, hint_sum)
        tm_single_worker = config_extension.get_topology_master_single_worker(self.storm_conf)
        if tm_single_worker is True or (tm_single_worker is None and worker_num >= 10):
            worker_num += tm_count
            self.assign_single_worker_for_tm = True
        return worker_num

    def compute_unstopped_assignments(self):
        """Port of ``computeUnstoppedAssignments``: the old workers of the unstopped tasks."""
        for task in self.unstopped_task_ids:
            worker = self.old_assignment.get_worker_by_task_id(task)
            if worker is None:
                raise ValueError("unstopped task %s is in no worker of the old assignment" % task)
            self.unstopped_workers.add(worker)
        return len(self.unstopped_workers)

    def refine_dead_tasks(self):
        """Port of ``refineDeadTasks``: a dead task (not one still running on a lost
        supervisor) takes every task of its old worker with it."""
        refined = JavaIntSet(self.dead_task_ids)
        for task in self.dead_task_ids:
            if task in self.unstopped_task_ids:
                continue
            for worker in self.old_workers:
                if task in worker.tasks:
                    refined.add_all(worker.tasks)
        self.dead_task_ids = refined
