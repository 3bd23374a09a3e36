# -*- test-case-name: tests.test_jstorm_port -*-
"""Port of JStorm 2.2.1's ``TaskScheduler``: deal the tasks to the chosen workers, the same
number to each (the first ``leftTaskNum`` workers to fill get one more), each task to the worker
the selectors rank first."""

from pynimbus.clojure_port.java_hash_map import JavaHashMap, integer_hash, java_hash

from pynimbus.jstorm_port import config_extension
from pynimbus.jstorm_port.common import (
    build_spout_outoput_and_bolt_input_map, get_component_map, is_system_component)
from pynimbus.jstorm_port.java_collections import JavaIntSet, JavaRuntimeError, WorkerSlotSet
from pynimbus.jstorm_port.model import ASSIGN_TYPE_REBALANCE, FailedAssignTopologyException
from pynimbus.jstorm_port.task_assign_context import (
    ComponentNumSelector, InputComponentNumSelector, TaskAssignContext, TotalTaskNumSelector)


class TaskScheduler(object):
    """Port of ``TaskScheduler``: built on the workers ``WorkerScheduler`` chose (some already
    holding user-defined or old tasks); :meth:`assign` returns the filled workers."""

    def __init__(self, context, tasks, workers):
        """Port of the constructor: the topology master first when it gets a worker of its own,
        then the pre-filled workers that are already full leave the pool, then (a rebalance that
        is not a reassign) the old assignment is kept where it fits.

        :param tasks: the :class:`JavaIntSet` of tasks to place (changed in place).
        """
        self.context = context
        self.tasks = tasks
        self.assignments = []
        self.avg_task_num = self.left_task_num = 0
        self.task_context = TaskAssignContext(
            self.build_supervisor_to_worker(workers),
            build_spout_outoput_and_bolt_input_map(context), context.task_to_component)
        self.component_selector = ComponentNumSelector(self.task_context)
        self.input_component_selector = InputComponentNumSelector(self.task_context)
        self.total_task_num_selector = TotalTaskNumSelector(self.task_context)
        if len(tasks) == 0:
            return
        if context.assign_type != ASSIGN_TYPE_REBALANCE or context.is_reassign:
            if context.assign_single_worker_for_tm and context.topology_master_task_id in tasks:
                self.assign_for_topology_master()

        task_num = len(tasks)
        worker_to_task_num = self.task_context.worker_to_task_num
        pre_assign_workers = WorkerSlotSet()
        for worker, num in worker_to_task_num.items():
            if num > 0:
                task_num += num
                pre_assign_workers.add(worker)
        self.set_task_num(task_num, self.worker_num)

        # pre-filled (user-defined, old) workers already holding their share are done
        for worker in pre_assign_workers:
            if worker in worker_to_task_num:
                done_workers = self.remove_worker_from_src_pool(
                    worker_to_task_num.get(worker), worker)
                for done_worker in done_workers:
                    task_num -= len(done_worker.tasks)
                    self.worker_num -= 1
        self.set_task_num(task_num, self.worker_num)

        if context.assign_type == ASSIGN_TYPE_REBALANCE and not context.is_reassign:
            self.keep_assignment(task_num, context.old_assignment.workers)

    def keep_assignment(self, task_num, keep_assignments):
        """Port of ``keepAssignment``: each task still to place goes back to its old worker's
        host and port where that worker is among the chosen ones (the topology master alone, when
        it has a worker of its own); workers then full leave the pool, round after round."""
        context, task_context = self.context, self.task_context
        tm_task_id = context.topology_master_task_id
        keep_tasks = JavaIntSet()
        tm_worker = None
        for worker in keep_assignments:
            if tm_task_id in worker.tasks:
                tm_worker = worker
            for task_id in worker.tasks:
                if task_id not in self.tasks:
                    continue
                context_worker = task_context.get_worker(worker)
                if context_worker is None:
                    continue
                if (tm_worker is not None and task_id in tm_worker.tasks
                        and context.assign_single_worker_for_tm):
                    if task_id == tm_task_id:
                        self.update_assigned_tasks_of_worker(task_id, context_worker)
                        task_context.worker_to_task_num.remove(context_worker)
                        context_worker.tasks.clear()
                        context_worker.tasks.add(task_id)
                        self.assignments.append(context_worker)
                        self.tasks.remove(task_id)
                        task_num -= 1
                        self.worker_num -= 1
                else:
                    name = context.task_to_component.get(task_id)
                    self.update_assigned_tasks_of_worker(task_id, context_worker)
                    self.update_components_num_of_worker(name, context_worker)
                    keep_tasks.add(task_id)
        if tm_worker is not None:
            self.set_task_num(task_num, self.worker_num)
            keep_assignments.remove(tm_worker)

        # JStorm's running total is never reset between rounds; kept as it is.
        done_assigned_task_num = 0
        while True:
            found = False
            done_assigned_workers = WorkerSlotSet()
            for worker in keep_assignments:
                context_worker = task_context.get_worker(worker)
                if context_worker is not None and self.is_task_full_for_worker(context_worker):
                    found = True
                    self.worker_num -= 1
                    task_context.worker_to_task_num.remove(context_worker)
                    self.assignments.append(context_worker)
                    done_assigned_workers.add(worker)
                    done_assigned_task_num += len(context_worker.tasks)
            if not found:
                break
            task_num -= done_assigned_task_num
            self.set_task_num(task_num, self.worker_num)
            keep_assignments.remove_all(done_assigned_workers)
        self.tasks.remove_all(keep_tasks)

    def is_task_full_for_worker(self, worker):
        """Port of ``isTaskFullForWorker``: it holds its share (one more while some remain)."""
        if worker.tasks is None:
            return False
        size = len(worker.tasks)
        return ((self.left_task_num <= 0 and size >= self.avg_task_num)
                or (self.left_task_num > 0 and size >= self.avg_task_num + 1))

    def get_rest_assigned_workers(self):
        """Port of ``getRestAssignedWorkers``: the workers still in the pool that hold tasks."""
        return [w for w in self.task_context.worker_to_task_num.keys()
                if w.tasks is not None and len(w.tasks) > 0]

    def assign(self):
        """Port of ``assign``: the ``task.on.differ.node`` tasks first, then every other task in
        the set's order, the system tasks (ackers, topology master) last."""
        if len(self.tasks) == 0:
            self.assignments.extend(self.get_rest_assigned_workers())
            return self.assignments
        assigned_tasks = self.assign_for_differ_node_task()
        self.tasks.remove_all(assigned_tasks)
        system_tasks = JavaHashMap(key_hash=integer_hash)
        for task in self.tasks:
            name = self.context.task_to_component.get(task)
            if is_system_component(name):
                system_tasks.put(task, name)
                continue
            self.assign_for_task(name, task)
        for task, name in system_tasks.items():
            self.assign_for_task(name, task)
        self.assignments.extend(self.get_rest_assigned_workers())
        return self.assignments

    def assign_for_topology_master(self):
        """Port of ``assignForTopologyMaster``: an empty worker on the supervisor with the most
        chosen workers (the first such in the pool's order)."""
        task_id = self.context.topology_master_task_id
        worker_assigned = None
        worker_num_of_superv = 0
        for worker_slot in self.task_context.worker_to_task_num.keys():
            workers = self.task_context.supervisor_to_worker.get(worker_slot.node_id)
            if workers is not None and len(workers) > worker_num_of_superv:
                for worker in workers:
                    if worker.tasks is None or len(worker.tasks) == 0:
                        worker_assigned = worker
                        worker_num_of_superv = len(workers)
                        break
        if worker_assigned is None:
            raise FailedAssignTopologyException(
                "there's no enough workers for the assignment of topology master")
        self.update_assigned_tasks_of_worker(task_id, worker_assigned)
        self.task_context.worker_to_task_num.remove(worker_assigned)
        self.assignments.append(worker_assigned)
        self.tasks.remove(task_id)
        self.worker_num -= 1

    def assign_for_task(self, name, task):
        """Port of ``assignForTask``."""
        worker = self.choose_worker(name, list(self.task_context.worker_to_task_num.keys()))
        self.push_task_to_worker(task, name, worker)

    def assign_for_differ_node_task(self):
        """Port of ``assignForDifferNodeTask``: each task of a component whose conf sets
        ``task.on.differ.node`` goes to a supervisor holding none of that component yet."""
        differ_node_tasks = JavaIntSet()
        for task in self.tasks:
            if config_extension.is_task_on_different_node(get_component_map(self.context, task)):
                differ_node_tasks.add(task)
        for task in differ_node_tasks:
            name = self.context.task_to_component.get(task)
            worker = self.choose_worker(name, self.get_differ_node_task_wokers(name))
            self.push_task_to_worker(task, name, worker)
        return differ_node_tasks

    def build_supervisor_to_worker(self, workers):
        """Port of ``buildSupervisorToWorker`` (a ``HashMap`` by node id); also counts the
        workers."""
        supervisor_to_worker = JavaHashMap(key_hash=java_hash)
        for worker in workers:
            on_supervisor = supervisor_to_worker.get(worker.node_id)
            if on_supervisor is None:
                on_supervisor = []
                supervisor_to_worker.put(worker.node_id, on_supervisor)
            on_supervisor.append(worker)
        self.worker_num = len(workers)
        return supervisor_to_worker

    def choose_worker(self, name, workers):
        """Port of ``chooseWorker``: fewest of this component, then fewest tasks, then (not for
        system components) most of its input components; the first of the rest."""
        result = self.component_selector.select(workers, name)
        result = self.total_task_num_selector.select(result, name)
        if not is_system_component(name):
            result = self.input_component_selector.select(result, name)
        if not result:
            raise JavaRuntimeError("NoSuchElementException")
        return result[0]

    def push_task_to_worker(self, task, name, worker):
        """Port of ``pushTaskToWorker``."""
        task_num = self.update_assigned_tasks_of_worker(task, worker)
        self.remove_worker_from_src_pool(task_num, worker)
        self.update_components_num_of_worker(name, worker)

    def update_assigned_tasks_of_worker(self, task, worker):
        """Port of ``updateAssignedTasksOfWorker``: the worker's new task count."""
        if worker.tasks is None:
            worker.tasks = JavaIntSet()
        worker.tasks.add(task)
        num = self.task_context.worker_to_task_num.get(worker)
        if num is None:  # unboxing Java's null
            raise JavaRuntimeError("NullPointerException")
        self.task_context.worker_to_task_num.put(worker, num + 1)
        return num + 1

    def remove_worker_from_src_pool(self, task_num, worker):
        """Port of ``removeWorkerFromSrcPool``: a worker holding its share leaves the pool; once
        no worker may take one more, so does every worker holding exactly the average."""
        done = []
        worker_to_task_num = self.task_context.worker_to_task_num
        if self.left_task_num <= 0:
            if task_num >= self.avg_task_num:
                worker_to_task_num.remove(worker)
                self.assignments.append(worker)
                done.append(worker)
        else:
            if task_num > self.avg_task_num:
                worker_to_task_num.remove(worker)
                self.left_task_num -= task_num - self.avg_task_num
                self.assignments.append(worker)
                done.append(worker)
            if self.left_task_num <= 0:
                need_delete = [w for w, num in worker_to_task_num.items()
                               if self.avg_task_num != 0 and num == self.avg_task_num]
                for worker_to_delete in need_delete:
                    worker_to_task_num.remove(worker_to_delete)
                    self.assignments.append(worker_to_delete)
                    done.append(worker_to_delete)
        return WorkerSlotSet(done)

    def update_components_num_of_worker(self, name, worker):
        """Port of ``updateComponentsNumOfWorker``."""
        components = self.task_context.worker_to_component_num.get(worker)
        if components is None:
            components = {}
            self.task_context.worker_to_component_num.put(worker, components)
        components[name] = components.get(name, 0) + 1

    def set_task_num(self, task_num, worker_num):
        """Port of ``setTaskNum``: the average share and how many workers take one more."""
        if task_num >= 0 and worker_num > 0:
            self.avg_task_num = task_num // worker_num
            self.left_task_num = task_num % worker_num

    def get_differ_node_task_wokers(self, name):
        """Port of ``getDifferNodeTaskWokers`` (upstream's spelling): the pool's workers on
        supervisors holding none of the component."""
        workers = list(self.task_context.worker_to_task_num.keys())
        for node_id, on_supervisor in self.task_context.supervisor_to_worker.items():
            if self.task_context.get_component_num_on_supervisor(node_id, name) != 0:
                workers = [w for w in workers
                           if not any(w.node_id == s.node_id and w.port == s.port
                                      for s in on_supervisor)]
        if not workers:
            raise FailedAssignTopologyException(
                "there's no enough supervisor for making component: " + name
                + " 's tasks on different node", component_id=name)
        return workers
