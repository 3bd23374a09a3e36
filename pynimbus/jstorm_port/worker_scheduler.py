# -*- test-case-name: tests.test_jstorm_port -*-
"""Port of JStorm 2.2.1's ``WorkerScheduler.getAvailableWorkers``: choose the topology's worker
slots (user-defined workers first, then old ones, then the rest spread over the supervisors)."""

import logging

from pynimbus.jstorm_port import config_extension
from pynimbus.jstorm_port.java_collections import JavaRuntimeError
from pynimbus.jstorm_port.model import (
    ASSIGN_TYPE_NEW, ASSIGN_TYPE_REBALANCE, FailedAssignTopologyException, ResourceWorkerSlot,
    host_equals)

log = logging.getLogger(__name__)


def _java_int_div(a, b):
    """Java's ``int / int`` (truncates toward zero; ``ArithmeticException`` on zero)."""
    if b == 0:
        raise JavaRuntimeError("ArithmeticException")
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _by_available_ports_descending(supervisors):
    """``Collections.sort`` (stable) by free ports, most first."""
    supervisors.sort(key=lambda s: -len(s.available_worker_ports))


def get_available_workers(context, need_assign, alloc_worker_num):
    """Port of ``getAvailableWorkers``: ``alloc_worker_num`` slots, each with a supervisor, host,
    port, memory and cpu; the user-defined and old workers among them keep their tasks, which
    leave ``need_assign`` (a :class:`JavaIntSet`, changed in place).

    :raises FailedAssignTopologyException: fewer free slots than workers to place, or more
        user-defined/old workers than that.
    """
    workers_num = get_available_workers_num(context)
    if workers_num < alloc_worker_num:
        raise FailedAssignTopologyException(
            "there's no enough worker. allocWorkerNum=%d, availableWorkerNum=%d"
            % (alloc_worker_num, workers_num))
    workers_num = alloc_worker_num
    assigned_workers = []
    get_right_workers(context, need_assign, assigned_workers, workers_num,
                      get_user_define_workers(
                          context, config_extension.get_user_define_assignment(context.storm_conf)))
    if config_extension.is_use_old_assignment(context.storm_conf):
        get_right_workers(context, need_assign, assigned_workers, workers_num, context.old_workers)
    elif context.assign_type == ASSIGN_TYPE_REBALANCE and not context.is_reassign:
        # the old slots, empty, in the old set's order: the tasks go back in TaskScheduler
        for worker in list(context.old_workers)[:workers_num]:
            assigned_workers.append(ResourceWorkerSlot(worker.node_id, worker.port,
                                                       worker.hostname))
    # (JStorm counts the topology master's own workers here and never uses the count)
    rest_worker_num = workers_num - len(assigned_workers)
    if rest_worker_num < 0:
        raise FailedAssignTopologyException(
            "Too much workers are needed for user define or old assignments. workersNum=%d, "
            "assignedWokersNum=%d" % (workers_num, len(assigned_workers)))
    assigned_workers.extend(ResourceWorkerSlot() for _ in range(rest_worker_num))
    isolation_supervisors = get_isolation_supervisors(context)
    if isolation_supervisors:
        put_all_worker_to_supervisor(assigned_workers,
                                     get_res_avail_supervisors(isolation_supervisors))
    else:
        put_all_worker_to_supervisor(assigned_workers,
                                     get_res_avail_supervisors(context.cluster_in_order()))
    set_all_worker_mem_and_cpu(context.storm_conf, assigned_workers)
    return assigned_workers


def set_all_worker_mem_and_cpu(conf, assigned_workers):
    """Port of ``setAllWorkerMemAndCpu``: the conf's memory and cpu where a worker has none."""
    default_size = config_extension.get_mem_size_per_worker(conf)
    default_cpu = config_extension.get_cpu_slot_per_worker(conf)
    for worker in assigned_workers:
        if worker.mem_size <= 0:
            worker.mem_size = default_size
        if worker.cpu <= 0:
            worker.cpu = default_cpu


def put_all_worker_to_supervisor(assigned_workers, supervisors):
    """Port of ``putAllWorkerToSupervisor``: a worker naming a host goes to that host's first
    supervisor with a free port; the others are spread by :func:`put_worker_to_supervisors`
    over the supervisors with free ports, most free first."""
    for worker in assigned_workers:
        if worker.hostname is not None:
            for supervisor in supervisors:
                if (host_equals(supervisor.hostname, worker.hostname)
                        and len(supervisor.available_worker_ports) > 0):
                    put_worker_to_supervisor(supervisor, worker)
                    break
    supervisors = get_res_avail_supervisors(supervisors)
    _by_available_ports_descending(supervisors)
    put_worker_to_supervisors(assigned_workers, supervisors)


def put_worker_to_supervisor(supervisor, worker):
    """Port of ``putWorkerToSupervisor(SupervisorInfo, ResourceWorkerSlot)``: its own port if
    free there, else the supervisor's first free one."""
    port = worker.port
    if port not in supervisor.available_worker_ports:
        port = supervisor.available_worker_ports.first()
    worker.port = port
    supervisor.available_worker_ports.remove(port)
    worker.node_id = supervisor.supervisor_id


def _take_first_free_port(supervisor, worker):
    worker.hostname = supervisor.hostname
    worker.node_id = supervisor.supervisor_id
    worker.port = supervisor.available_worker_ports.first()
    supervisor.available_worker_ports.remove(worker.port)


def put_worker_to_supervisors(assigned_workers, supervisors):
    """Port of ``putWorkerToSupervisor(List, List)``: round robin over the supervisors for the
    workers without one; a supervisor already using more than the even share of all used ports
    drops out, and takes the workers left over afterwards, round robin again.  (As upstream, a
    worker that already has a supervisor is skipped without moving the round on.)"""
    all_used_ports = sum(len(s.worker_ports) - len(s.available_worker_ports)
                         for s in supervisors)
    theory_average_ports = _java_int_div(all_used_ports + len(assigned_workers),
                                         len(supervisors)) + 1
    over_load_supervisors = []
    key = 0
    next_worker = 0
    while next_worker < len(assigned_workers):
        if not supervisors:
            break
        if key >= len(supervisors):
            key = 0
        supervisor = supervisors[key]
        used_ports = len(supervisor.worker_ports) - len(supervisor.available_worker_ports)
        if used_ports < theory_average_ports:
            worker = assigned_workers[next_worker]
            next_worker += 1
            if worker.node_id is not None:
                continue
            _take_first_free_port(supervisor, worker)
            if len(supervisor.available_worker_ports) == 0:
                supervisors.remove(supervisor)
            key += 1
        else:
            over_load_supervisors.append(supervisor)
            supervisors.remove(supervisor)
    _by_available_ports_descending(over_load_supervisors)
    key = 0
    while next_worker < len(assigned_workers):
        if not over_load_supervisors:
            break
        if key >= len(over_load_supervisors):
            key = 0
        worker = assigned_workers[next_worker]
        next_worker += 1
        if worker.node_id is not None:
            continue
        supervisor = over_load_supervisors[key]
        _take_first_free_port(supervisor, worker)
        if len(supervisor.available_worker_ports) == 0:
            over_load_supervisors.remove(supervisor)
        key += 1


def get_right_workers(context, need_assign, assigned_workers, workers_num, workers):
    """Port of ``getRightWorkers``: of ``workers`` (user-defined or old), those whose tasks all
    still need placing and were not claimed by an earlier one are taken as they are, unless
    that makes too many workers (then none is)."""
    if workers is None:
        return
    assigned = set()
    users = []
    for worker in workers:
        tasks = worker.tasks
        if tasks is None:
            continue
        if all(task in need_assign and task not in assigned for task in tasks):
            assigned.update(tasks)
            users.append(worker)
    if len(users) + len(assigned_workers) > workers_num:
        log.warning("There are no enough workers for user define scheduler / keeping old "
                    "assignment, userdefineWorkers=%s, assignedWorkers=%s, workerNum=%s",
                    users, assigned_workers, workers_num)
        return
    assigned_workers.extend(users)
    need_assign.remove_all(assigned)


def get_available_workers_num(context):
    """Port of ``getAvailableWorkersNum``: free ports on the isolation supervisors, or on all."""
    supervisors = get_isolation_supervisors(context) or context.cluster_in_order()
    return sum(len(s.available_worker_ports) for s in supervisors)


def get_user_define_workers(context, workers):
    """Port of ``getUserDefineWorkers``: each ``use.userdefine.assignment`` entry as a worker
    holding its components' first tasks (entries already running as asked are dropped first,
    except for a new topology)."""
    ret = []
    if workers is None:
        return ret
    component_to_task = dict(context.component_tasks)  # HashMap.clone: the lists are shared
    if context.assign_type != ASSIGN_TYPE_NEW:
        check_user_define_workers(context, workers, context.task_to_component)
    for worker in workers:
        worker_slot = ResourceWorkerSlot.from_worker_assignment(worker, component_to_task)
        if len(worker_slot.tasks) != 0:
            ret.append(worker_slot)
    return ret


def check_user_define_workers(context, workers, task_to_component):
    """Port of ``checkUserDefineWorkers``: drop (in place) the entries a worker of a lost
    supervisor still runs as asked."""
    running = []
    for worker in workers:
        for unstopped in context.unstopped_workers:
            if worker is None:
                raise JavaRuntimeError("NullPointerException")
            if unstopped.compare_to_user_define_worker(worker, task_to_component):
                running.append(worker)
    workers[:] = [w for w in workers
                  if not any(w is not None and w.java_equals(r) for r in running)]


def get_res_avail_supervisors(supervisors):
    """Port of ``getResAvailSupervisors``: the supervisors with a free port, in order."""
    return [s for s in supervisors if len(s.available_worker_ports) > 0]


def get_isolation_supervisors(context):
    """Port of ``getIsolationSupervisors``: the supervisors on the hosts listed by
    ``isolation.scheduler.machines`` (a list), in the cluster's order; none when unset."""
    isolation_hosts = context.storm_conf.get(config_extension.ISOLATION_SCHEDULER_MACHINES)
    if isolation_hosts is None:
        return []
    return [s for s in context.cluster_in_order()
            if any(host_equals(host, s.hostname) for host in isolation_hosts)]
