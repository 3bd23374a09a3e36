# -*- test-case-name: tests.test_port_profiling -*-
"""Which worker-profiler requests are pending for a component (pure).

Ports of stats.clj ``extract-nodeinfos-from-hb-for-comp`` (1.2.4; 2.8.8
``StatsUtil.extractNodeInfosFromHbForComp``) and of the filter in nimbus.clj
``getComponentPendingProfileActions`` (2.8.8 the same): for every worker (host, port) running
the component, the newest stored ProfileRequest of that action for that host and port.
A ProfileRequest names its worker by host (``nodeInfo.node``), not by supervisor id.
"""

from pynimbus.clojure_port.stats import is_system_id


def node_infos_for_component(executor_host_port, task_to_component, include_sys,
                             component_id):
    """Port of ``extract-nodeinfos-from-hb-for-comp``: the distinct ``(host, port)`` of the
    executors of ``component_id`` (of every component when None), in executor order."""
    found = []
    for (start, _end), (host, port) in sorted(executor_host_port.items()):
        component = task_to_component.get(start)
        if component_id is not None and component != component_id:
            continue
        if not include_sys and is_system_id(component):
            continue
        if (host, port) not in found:
            found.append((host, port))
    return found


def request_port(request):
    """The port of a ProfileRequest's NodeInfo (its first, as Storm takes it)."""
    ports = sorted(request.nodeInfo.port or ())
    return ports[0] if ports else None


def latest_profile_actions(requests, node_infos, action):
    """For each ``(host, port)`` the newest request of ``action`` for it (largest
    ``time_stamp``, the first listed on a tie); workers without one are skipped."""
    latest = []
    for host, port in node_infos:
        newest = None
        for request in requests:
            if (request.nodeInfo.node == host and request_port(request) == port
                    and request.action == action):
                if newest is None or (request.time_stamp or 0) > (newest.time_stamp or 0):
                    newest = request
        if newest is not None:
            latest.append(newest)
    return latest
