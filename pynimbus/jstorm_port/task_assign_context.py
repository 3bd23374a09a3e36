# -*- test-case-name: tests.test_jstorm_port -*-
"""Port of JStorm 2.2.1's ``TaskAssignContext`` and the three selectors of
``schedule.default_assign.Selector`` (``ComponentNumSelector``, ``TotalTaskNumSelector``,
``InputComponentNumSelector``): the counts a task's worker is chosen by."""

from pynimbus.jstorm_port.java_collections import WorkerSlotMap


class TaskAssignContext(object):
    """Port of ``TaskAssignContext``: the workers being filled (per supervisor, and each one's
    task count and per-component counts) and the component relationship."""

    def __init__(self, supervisor_to_worker, relationship, task_to_component):
        """:param supervisor_to_worker: a ``HashMap`` (JavaHashMap) node id -> workers."""
        self.task_to_component = task_to_component
        self.supervisor_to_worker = supervisor_to_worker
        self.relationship = relationship
        self.worker_to_component_num = WorkerSlotMap()
        self.worker_to_task_num = WorkerSlotMap()
        self.host_port_to_worker_map = {}
        for _node_id, workers in supervisor_to_worker.items():
            for worker in workers:
                self.worker_to_task_num.put(
                    worker, len(worker.tasks) if worker.tasks is not None else 0)
                self.host_port_to_worker_map[worker.get_host_port()] = worker
                if worker.tasks is not None:
                    component_to_num = {}
                    for task in worker.tasks:
                        component = task_to_component.get(task)
                        component_to_num[component] = component_to_num.get(component, 0) + 1
                    self.worker_to_component_num.put(worker, component_to_num)

    def get_component_num_on_supervisor(self, supervisor, name):
        return sum(self.get_component_num_on_worker(w, name)
                   for w in self.supervisor_to_worker.get(supervisor) or ())

    def get_component_num_on_worker(self, worker, name):
        component_num = self.worker_to_component_num.get(worker)
        return (component_num or {}).get(name, 0)

    def get_task_num_on_supervisor(self, supervisor):
        return sum(self.get_task_num_on_worker(w)
                   for w in self.supervisor_to_worker.get(supervisor) or ())

    @staticmethod
    def get_task_num_on_worker(worker):
        return 0 if worker.tasks is None else len(worker.tasks)

    def get_input_component_num_on_supervisor(self, supervisor, name):
        return sum(self.get_input_component_num_on_worker(w, name)
                   for w in self.supervisor_to_worker.get(supervisor) or ())

    def get_input_component_num_on_worker(self, worker, name):
        return sum(self.get_component_num_on_worker(worker, component)
                   for component in self.relationship[name])

    def get_worker(self, worker):
        """Port of ``getWorker``: the worker being filled on the same host and port."""
        return self.host_port_to_worker_map.get(worker.get_host_port())


def select_worker(workers, key):
    """Port of ``AbstractSelector.selectWorker`` for a comparator that compares ``key``: every
    worker of the least key, in list order."""
    if not workers:
        return []
    keys = [key(w) for w in workers]
    least = min(keys)
    return [w for w, k in zip(workers, keys) if k == least]


class AbstractSelector(object):
    """Port of ``AbstractSelector.select``: narrow by the worker count, then, still tied, by the
    supervisor count."""

    def __init__(self, context):
        self.context = context

    def worker_key(self, worker, name):
        raise NotImplementedError

    def supervisor_key(self, worker, name):
        raise NotImplementedError

    def select(self, result, name):
        if len(result) == 1:
            return result
        result = select_worker(result, lambda w: self.worker_key(w, name))
        if len(result) == 1:
            return result
        return select_worker(result, lambda w: self.supervisor_key(w, name))


class ComponentNumSelector(AbstractSelector):
    """Port of ``ComponentNumSelector``: fewest tasks of this component."""

    def worker_key(self, worker, name):
        return self.context.get_component_num_on_worker(worker, name)

    def supervisor_key(self, worker, name):
        return self.context.get_component_num_on_supervisor(worker.node_id, name)


class TotalTaskNumSelector(AbstractSelector):
    """Port of ``TotalTaskNumSelector``: fewest tasks."""

    def worker_key(self, worker, name):
        return self.context.get_task_num_on_worker(worker)

    def supervisor_key(self, worker, name):
        return self.context.get_task_num_on_supervisor(worker.node_id)


class InputComponentNumSelector(AbstractSelector):
    """Port of ``InputComponentNumSelector``: most tasks of the components this one talks to."""

    def worker_key(self, worker, name):
        return -self.context.get_input_component_num_on_worker(worker, name)

    def supervisor_key(self, worker, name):
        return -self.context.get_input_component_num_on_supervisor(worker.node_id, name)
