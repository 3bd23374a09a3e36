# -*- test-case-name: tests.test_supervisor_profiler -*-
"""Which worker-profiler requests a supervisor carries out, and how (pure).

Ports of 1.2.4 ``ReadClusterState.run``'s filter (the requests of the assigned topologies whose
``nodeInfo`` names this host, by port) and of ``Slot.handleRunning``'s profiling part (2.8.8
the same): a request waits until the port's worker runs; a request for a topology the port
does not run is dropped; ``JPROFILE_STOP`` starts a recording that is stopped, and its request
deleted, once its ``time_stamp`` has passed (one already past when first seen stops the
recording at once, where Storm starts one to stop it a round later); ``JPROFILE_START`` is not
supported (Storm logs and drops it too); every other action runs once and its request is
deleted.

What an action runs is pynimbus's (``BasicContainer.mkProfileCommand`` runs ``flight.bash``
against a JVM): ``JVM_RESTART`` restarts the worker; the others are requests to the Python
worker (:mod:`pynimbus.common.profiler_requests`, :mod:`pynimbus.worker.profiler`).
"""

import collections

from pynimbus.clojure_port.profiling import request_port
from pynimbus.common import profiler_requests
from pynimbus.generated.storm.ttypes import ProfileAction

RESTART = "restart"

# what each action asks of the worker (JPROFILE_STOP: "start", then "stop" at its time)
WORKER_ACTION = {
    ProfileAction.JSTACK_DUMP: profiler_requests.JSTACK,
    ProfileAction.JMAP_DUMP: profiler_requests.JMAP,
    ProfileAction.JPROFILE_DUMP: profiler_requests.DUMP,
    ProfileAction.JVM_RESTART: RESTART,
}

TopoProfileAction = collections.namedtuple("TopoProfileAction", "storm_id request")
TopoProfileAction.__doc__ = """Port of ``Slot.TopoProfileAction``: a request and its topology."""

ProfilerStep = collections.namedtuple("ProfilerStep", "action command delete pending")
ProfilerStep.__doc__ = """One thing to do for a request.

``command``: ``"restart"``, a worker action of :mod:`pynimbus.common.profiler_requests`, or
None (only delete).  ``delete``: remove the request from cluster state once the command is
done.
``pending``: True to remember the recording as started, False to forget it, None to leave
as is."""


def action_key(action):
    """What tells requests apart (a ``ProfileRequest`` is not hashable): topology, host,
    port, action and time stamp, as ``TopoProfileAction.equals`` compares them."""
    request = action.request
    return (action.storm_id, request.nodeInfo.node, request_port(request), request.action,
            request.time_stamp)


def profile_actions_by_port(requests_by_storm_id, host):
    """Port of ``ReadClusterState.run``'s filter: ``{port: [TopoProfileAction]}`` of the
    requests naming ``host``, in topology order."""
    by_port = {}
    for storm_id in sorted(requests_by_storm_id):
        for request in requests_by_storm_id[storm_id] or ():
            if request.nodeInfo is None or request.nodeInfo.node != host:
                continue
            port = request_port(request)
            if port is not None:
                by_port.setdefault(port, []).append(TopoProfileAction(storm_id, request))
    return by_port


def profiler_steps(actions, assigned_storm_id, worker_running, pending, now_ms):
    """Port of ``Slot.handleRunning``'s profiling part (and ``handleEmpty``'s drop) for one
    port: the steps for its ``actions``.

    :param assigned_storm_id: the topology the port is assigned, None when it has none.
    :param worker_running: whether the port's worker runs (a valid heartbeat).
    :param pending: the :func:`action_key` of the recordings started on that worker.
    :param now_ms: the time in milliseconds, compared with a ``JPROFILE_STOP``'s
        ``time_stamp``.
    :returns: the steps in :data:`STEP_ORDER`.
    """
    steps = []
    for action in actions:
        if action.storm_id != assigned_storm_id:  # "wrong topology" or "no topology running"
            steps.append(ProfilerStep(action, None, True, None))
            continue
        if not worker_running:
            continue  # waits for the worker
        kind = action.request.action
        if action_key(action) in pending:
            if now_ms > (action.request.time_stamp or 0):
                steps.append(ProfilerStep(action, profiler_requests.STOP, True, False))
        elif kind == ProfileAction.JPROFILE_STOP and now_ms > (action.request.time_stamp or 0):
            # past its time when first seen (the UI's stop, or a supervisor restarted since
            # the start): Storm starts a recording to stop it a round later; stop at once
            steps.append(ProfilerStep(action, profiler_requests.STOP, True, False))
        elif kind == ProfileAction.JPROFILE_STOP:
            steps.append(ProfilerStep(action, profiler_requests.START, False, True))
        elif kind in WORKER_ACTION:
            steps.append(ProfilerStep(action, WORKER_ACTION[kind], True, None))
        else:  # JPROFILE_START: "PROFILING REQUEST NOT SUPPORTED ... IGNORED"
            steps.append(ProfilerStep(action, None, True, None))
    return sorted(steps, key=lambda step: STEP_ORDER.index(step.command))


# Storm runs one round's actions in a HashSet's order; here a recording starts before a dump
# of it, dumps come before a stop, and a restart comes last (after it no worker answers)
STEP_ORDER = (None, profiler_requests.START, profiler_requests.JSTACK, profiler_requests.JMAP,
              profiler_requests.DUMP, profiler_requests.STOP, RESTART)
