"""How a supervisor passes a worker-profiler request to its Python worker (the vocabulary both
programs share): a file ``<sequence>-<action>`` in ``<worker root>/profiler-requests``, then
``SIGUSR1`` to the worker.  The supervisor side is :mod:`pynimbus.supervisor.profiling`, the
worker side :mod:`pynimbus.worker.profiler`."""

import os
import signal

PROFILER_REQUESTS_SUBDIR = "profiler-requests"
PROFILER_SIGNAL = signal.SIGUSR1

JSTACK = "jstack"
JMAP = "jmap"
START = "start"
DUMP = "dump"
STOP = "stop"
WORKER_ACTIONS = (JSTACK, JMAP, START, DUMP, STOP)


def requests_dir(worker_root):
    """Where the supervisor leaves a worker's requests: ``<worker root>/profiler-requests``."""
    return os.path.join(worker_root, PROFILER_REQUESTS_SUBDIR)


def request_file_name(sequence, action):
    """``<sequence>-<action>``: names sort in the order the supervisor wrote them."""
    if action not in WORKER_ACTIONS:
        raise ValueError("%r is not a worker profiler action" % (action,))
    return "%020d-%s" % (sequence, action)


def request_action(name):
    """The action a request file names, or None for a name that is not a request."""
    sequence, _, action = name.partition("-")
    return action if sequence.isdigit() and action in WORKER_ACTIONS else None
