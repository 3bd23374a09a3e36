# -*- test-case-name: tests.test_port_supervisor_assignments -*-
"""Which supervisor is told which assignments after a 2.x scheduling round (pure).

Storm 2.x Nimbus does not leave its supervisors to watch ``/assignments``: after each
mk-assignments round (and after a topology is removed) it sends every node whose assignments
changed the assignments of its host, through the ``Supervisor`` Thrift service at the node's
hostname and ``SupervisorInfo.server_port``.  Ports of ``Nimbus.assignmentChangedNodes``,
``assignmentsForHost``, ``notifySupervisorsAssignments`` and ``notifySupervisorsAsKilled``
(2.8.8), minus the sending (``pynimbus.nimbus.supervisor_push``).  1.x Nimbus never pushes.
"""

import collections

from pynimbus.generated.storm.ttypes import SupervisorAssignments

NodeAssignments = collections.namedtuple("NodeAssignments", "node host server_port assignments")
NodeAssignments.__doc__ = """One push: supervisor id ``node`` at ``host``:``server_port``
(None when its SupervisorInfo has none: nothing can be sent) gets ``assignments``, a
``SupervisorAssignments``.  Port of ``AssignmentDistributionService.NodeAssignments``."""


def assignment_changed_nodes(old, new):
    """Port of ``Nimbus.assignmentChangedNodes`` (2.8.8): ``{node: host}`` of the nodes whose
    share of a topology changed between Assignment ``old`` and ``new`` (either may be None).

    A topology that appears or goes away (one side None) changes every node of the other side.
    Otherwise a node counts when one of its executors moved: the node that held it and the
    node that holds it now, or the new node of an executor ``old`` did not have.  Nodes that
    only lost executors nobody took over do not count (as upstream).  Hosts come from both
    ``node_host`` maps, ``new`` winning.
    """
    node_host = {}
    if old is not None:
        node_host.update(old.node_host or {})
    if new is not None:
        node_host.update(new.node_host or {})
    if old is None or new is None:
        return node_host
    old_executors = {tuple(e): ni for e, ni in (old.executor_node_port or {}).items()}
    changed = {}
    for executor, new_info in (new.executor_node_port or {}).items():
        old_info = old_executors.get(tuple(executor))
        if old_info is not None and old_info == new_info:
            continue
        if old_info is not None:
            changed[old_info.node] = node_host.get(old_info.node)
        changed[new_info.node] = node_host.get(new_info.node)
    return changed


def assignments_for_host(assignments, hostname):
    """Port of ``Nimbus.assignmentsForHost`` (2.8.8): the ``{storm_id: Assignment}`` whose
    ``node_host`` has ``hostname`` among its hosts (every supervisor of a host - NUMA zones
    are supervisors of one host - gets the host's assignments)."""
    return {storm_id: assignment for storm_id, assignment in assignments.items()
            if hostname in (assignment.node_host or {}).values()}


def node_assignments(assignments, node_host, supervisors):
    """Port of ``Nimbus.notifySupervisorsAssignments`` (2.8.8), minus the sending: one
    :class:`NodeAssignments` per node of ``node_host``.

    :param assignments: ``{storm_id: Assignment}`` to pick from (the round's new assignments,
        or every remaining assignment after a removal).
    :param node_host: ``{node: host}`` of the nodes to tell.
    :param supervisors: ``{supervisor_id: SupervisorInfo}``; a node missing from it, or whose
        info has no ``server_port``, gets ``server_port`` None.
    :returns: a list sorted by node id.
    """
    pushes = []
    for node, host in sorted(node_host.items()):
        info = supervisors.get(node)
        server_port = getattr(info, "server_port", None)
        pushes.append(NodeAssignments(node, host, server_port, SupervisorAssignments(
            storm_assignment=assignments_for_host(assignments, host))))
    return pushes


def round_node_assignments(existing_assignments, new_assignments, supervisors):
    """What one mk-assignments round pushes (the end of ``lockingMkAssignments``, 2.8.8).

    :param existing_assignments: ``{storm_id: Assignment}`` the round started from (the
        scratch topology of a rebalance left out, as upstream: all its new nodes are told).
    :param new_assignments: ``{storm_id: Assignment}`` the round computed, changed or not.
    :param supervisors: ``{supervisor_id: SupervisorInfo}`` read in the round.
    :returns: the list of :class:`NodeAssignments`; empty when no node's share changed.
    """
    node_host = {}
    for storm_id, assignment in new_assignments.items():
        node_host.update(assignment_changed_nodes(existing_assignments.get(storm_id),
                                                  assignment))
    return node_assignments(new_assignments, node_host, supervisors)


def killed_node_assignments(old_assignment, remaining_assignments, supervisors):
    """Port of ``Nimbus.notifySupervisorsAsKilled`` (2.8.8): after a topology is removed,
    every node of its last Assignment gets what remains for its host.

    :param old_assignment: the removed topology's Assignment, or None (nothing to tell).
    :param remaining_assignments: ``{storm_id: Assignment}`` read after the removal.
    """
    return node_assignments(remaining_assignments,
                            assignment_changed_nodes(old_assignment, None), supervisors)
