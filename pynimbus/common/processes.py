"""Processes by pid: alive or not, and signals that tolerate one gone meanwhile."""

import logging
import os
import signal

log = logging.getLogger(__name__)


def process_alive(pid):
    """The process exists and is no zombie (an exited child that nobody reaped yet)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, but not ours to signal
        return True
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True  # no /proc: os.kill said it exists


def send_signal(pid, signum):
    """Signal ``pid``, ignoring one that is gone already."""
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        pass
    except PermissionError as e:
        log.warning("pid %d: cannot send %s: %s", pid, signal.Signals(signum).name, e)
