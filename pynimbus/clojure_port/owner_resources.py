# -*- test-case-name: tests.test_port_owner_resources -*-
"""``getOwnerResourceSummaries`` (pure): per topology owner, what their topologies asked for and
were given.

Port of 2.8.8 ``Nimbus.getOwnerResourceSummaries``.  With no ``owner`` every owner of a
running topology is summarized (2.8.8 adds the owners the resource-aware scheduler guarantees
resources to; pynimbus runs the default and even schedulers, whose ``config()`` is empty, so
there are none, and the guarantee fields stay unset); with an owner, only that one, even with
no topology.  A topology whose figures cannot be computed (its code is gone: Storm's
NotAliveException) still counts in ``total_topologies`` but adds nothing else.

Deliberate differences: owners come out sorted (Storm's come in HashMap order), and a
topology without an owner is left out of the all-owners listing (Storm would fail to send an
OwnerResourceSummary with a null owner).
"""

from pynimbus.generated.storm.ttypes import OwnerResourceSummary


def executor_task_count(executor):
    """Port of ``StormCommon.executorIdToTasks(...).size()``: tasks of ``[start, end]``."""
    start, end = executor
    return end - start + 1


def owner_bases(owner, bases):
    """``{owner: [storm_id, ...]}`` of the topologies to summarize (ids sorted)."""
    grouped = {}
    if owner is None:
        for storm_id, base in sorted(bases.items()):
            if base.owner is not None:
                grouped.setdefault(base.owner, []).append(storm_id)
    else:
        grouped[owner] = [storm_id for storm_id, base in sorted(bases.items())
                          if base.owner == owner]
    return grouped


def owner_resource_summaries(owner, bases, assignments, resources):
    """The OwnerResourceSummary list 2.8.8 returns.

    :param bases: ``{storm_id: StormBase}`` of the running topologies.
    :param assignments: ``{storm_id: Assignment}``.
    :param resources: ``{storm_id: [req on-heap, req off-heap, req cpu, assigned on-heap,
        assigned off-heap, assigned cpu]}``; an id missing or None is a topology that is not
        alive any more.
    """
    summaries = []
    for the_owner, storm_ids in sorted(owner_bases(owner, bases).items()):
        totals = [0.0] * 6
        executors = workers = tasks = 0
        for storm_id in storm_ids:
            figures = resources.get(storm_id)
            if figures is None:
                continue
            totals = [a + float(b or 0.0) for a, b in zip(totals, figures)]
            assignment = assignments.get(storm_id)
            if assignment is not None and assignment.executor_node_port is not None:
                enp = assignment.executor_node_port
                executors += len(enp)
                workers += len({(ni.node, tuple(sorted(ni.port or ()))) for ni in enp.values()})
                tasks += sum(executor_task_count(e) for e in enp)
        req_on, req_off, req_cpu, as_on, as_off, as_cpu = totals
        summaries.append(OwnerResourceSummary(
            owner=the_owner, total_topologies=len(storm_ids), total_executors=executors,
            total_workers=workers, total_tasks=tasks, memory_usage=as_on + as_off,
            cpu_usage=as_cpu, requested_on_heap_memory=req_on,
            requested_off_heap_memory=req_off, requested_total_memory=req_on + req_off,
            requested_cpu=req_cpu, assigned_on_heap_memory=as_on,
            assigned_off_heap_memory=as_off))
    return summaries
