"""Executors of a topology: task ranges per component (pure).

Port of nimbus.clj ``compute-executors`` and ``compute-executor->component`` (1.2.4), with
util.clj ``partition-fixed`` and ``Utils.integerDivided``; 2.8.8 ``Nimbus.computeExecutors`` and
``Utils.partitionFixed``.  An executor is the pair ``(first_task, last_task)`` of consecutive
task ids (scheduling.md section 2).
"""


def integer_divided(total, parts):
    """Port of ``Utils.integerDivided`` (both generations): ``{size: how_many}``, sizes ascending.

    ``total`` split into ``parts`` nearly equal sizes: ``parts - r`` of ``total // parts`` and
    ``r`` of one more, where ``r = total % parts`` (the bigger size only when ``r`` > 0).

    :raises ZeroDivisionError: for ``parts == 0`` (Java: ArithmeticException).
    """
    base, extra = divmod(total, parts)
    ret = {base: parts - extra}
    if extra:
        ret[base + 1] = extra
    return ret


def partition_fixed(max_num_chunks, items):
    """Port of util.clj ``partition-fixed`` (1.2.4); 2.8.8 ``Utils.partitionFixed``.

    Cut ``items`` (in order) into at most ``max_num_chunks`` chunks whose sizes differ by at
    most one, bigger chunks first: 5 items in 2 -> sizes 3, 2; 2 items in 5 -> 1, 1.
    """
    items = list(items)
    if max_num_chunks == 0:
        return []
    sizes = []
    for size, count in sorted(integer_divided(len(items), max_num_chunks).items(),
                              reverse=True):
        if size > 0:
            sizes.extend([size] * count)
    chunks, start = [], 0
    for size in sizes:
        chunks.append(items[start:start + size])
        start += size
    return chunks


def java_string_order(component_id):
    """Sort key of Java ``String.compareTo``: UTF-16 code units, compared one by one."""
    return component_id.encode("utf-16-be")


def compute_executors(task_info, component_executors):
    """Port of nimbus.clj ``compute-executors`` (1.2.4); 2.8.8 ``Nimbus.computeExecutors``.

    ``task_info`` is ``{task_id: component_id}`` (:func:`pynimbus.clojure_port.tasks.
    storm_task_info`), ``component_executors`` the StormBase's ``{component_id: executors}``.
    Returns ``{component_id: [(first_task, last_task), ...]}`` for every component with tasks,
    components in Java string order and executors in task order; a component whose executor
    count is 0 gets an empty list.

    Deliberate difference (1.x): a component with tasks but no entry in
    ``component_executors`` is skipped, as 2.8.8 does; 1.2.4 throws a NullPointerException
    there (unreachable: start-storm writes an entry for every component).
    """
    if component_executors is None:
        return {}
    component_tasks = {}
    for task_id in sorted(task_info):
        component_tasks.setdefault(task_info[task_id], []).append(task_id)
    ret = {}
    for component_id in sorted(component_tasks, key=java_string_order):
        count = component_executors.get(component_id)
        if count is None:
            continue
        ret[component_id] = [(chunk[0], chunk[-1])
                             for chunk in partition_fixed(count, component_tasks[component_id])]
    return ret


def executor_to_component(component_to_executors):
    """Port of nimbus.clj ``compute-executor->component`` (1.2.4); 2.8.8
    ``Nimbus.computeExecutorToComponent``: ``{(first, last): component_id}`` from
    :func:`compute_executors`'s result (the component of an executor is that of its first task).
    """
    return {executor: component_id
            for component_id, executors in component_to_executors.items()
            for executor in executors}


def all_executors(component_to_executors):
    """Every executor of :func:`compute_executors`'s result, sorted by (first, last) task."""
    return sorted(executor_to_component(component_to_executors))


def executor_tasks(executor):
    """Port of common.clj ``executor-id->tasks`` (1.2.4); 2.8.8 ``StormCommon.executorIdToTasks``:
    the task ids ``first..last`` of the executor ``(first, last)``."""
    first, last = executor
    return list(range(first, last + 1))
