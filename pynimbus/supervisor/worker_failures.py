# -*- test-case-name: tests.test_supervisor_worker_failures -*-
"""What a supervisor tells of a worker that exited by itself, and how soon it starts it again.

A worker that cannot start (a missing file, an import that fails) or that dies says why only in its
own ``worker.log``.  The supervisor that saw it exit reports it where a user looks: as an error of
the worker's components in cluster state (``/errors/<storm id>/<component>``), which
``getTopologyInfo``, ``pynimbus status`` and the UI show, naming the exit code, the last exception
line of its log and the log's path (but for :data:`pynimbus.common.exit_codes.EXIT_CODE_CHILD_DIED`,
whose cause the worker reported before it exited).  Storm 2.x leaves such failures in the
supervisor's own log; this is a deliberate difference.

A worker that keeps dying is started again after a growing delay (:class:`RestartBackoff`),
where Storm's supervisor relaunches at once on every sync: a worker that fails at start would
otherwise be launched every ``supervisor.monitor.frequency.secs`` for ever.

Pure: functions of text and numbers, and the back-off's state.
"""

import re


# A line that names an exception, as Python's traceback module ends one: "module.Error: text",
# or a bare exception class name.
_EXCEPTION_LINE = re.compile(r"^(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Exit|Interrupt)\b")
# Log records start with a date; a traceback's last line does not.
_LOG_RECORD = re.compile(r"^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d")


def failure_reason(log_tail):
    """The last exception line of a worker log's tail (``log_tail``, text), else its last
    ERROR record, else its last line; ``""`` for an empty log."""
    lines = [line.strip() for line in log_tail.splitlines() if line.strip()]
    for line in reversed(lines):
        if _EXCEPTION_LINE.match(line):
            return line
    for line in reversed(lines):
        if _LOG_RECORD.match(line) and " ERROR " in line:
            return line
    return lines[-1] if lines else ""


def worker_exit_message(host, port, exit_code, uptime_secs, reason, log_path):
    """The error reported for a worker that exited by itself (one line)."""
    if exit_code is not None and exit_code < 0:
        how = "was killed by signal %d" % -exit_code
    else:
        how = "exited with code %s" % exit_code
    text = "Worker on %s:%d %s after %d s" % (host, port, how, max(0, int(uptime_secs)))
    if reason:
        text += ": %s" % reason
    return text + " (worker log: %s)" % log_path


def reported_components(task_to_component, executors):
    """The components to report a worker's failure under: those of its ``executors``
    (``(start, end)`` task ranges) that the user wrote, or when it runs none, its system ones
    (``__acker``...), sorted."""
    components = {task_to_component[task]
                  for start, end in executors for task in range(start, end + 1)
                  if task in task_to_component}
    user = {c for c in components if not c.startswith("__")}
    return sorted(user or components)


class RestartBackoff:
    """When each port's worker may be launched again after it died by itself.

    A first death costs no delay (the next sync relaunches, as Storm's supervisor does, so a
    worker lost to ``kill -9`` comes back at once); each further death in a row doubles the
    delay from ``first_delay_secs`` up to ``max_delay_secs``.  A worker that ran for at least
    ``max_delay_secs`` before it died starts the count again.

    :param first_delay_secs: the delay after the second death in a row.
    :param max_delay_secs: the longest delay, and the run that resets the count.
    """

    def __init__(self, first_delay_secs=2.0, max_delay_secs=60.0):
        self.first_delay_secs = float(first_delay_secs)
        self.max_delay_secs = float(max_delay_secs)
        self._deaths = {}       # {port: deaths in a row}
        self._not_before = {}   # {port: earliest launch time (seconds)}

    def died(self, port, now, uptime_secs):
        """Note that ``port``'s worker died at ``now`` after running ``uptime_secs``; return
        the delay before it may be launched again."""
        deaths = 1 if uptime_secs >= self.max_delay_secs else self._deaths.get(port, 0) + 1
        self._deaths[port] = deaths
        delay = 0.0 if deaths == 1 else min(
            self.max_delay_secs, self.first_delay_secs * 2 ** (deaths - 2))
        self._not_before[port] = now + delay
        return delay

    def deaths(self, port):
        """How many times in a row ``port``'s worker died."""
        return self._deaths.get(port, 0)

    def wait_secs(self, port, now):
        """Seconds until ``port`` may be launched (0: now)."""
        return max(0.0, self._not_before.get(port, now) - now)

    def ports(self):
        """The ports with a death noted."""
        return set(self._deaths)

    def forget(self, port):
        """``port`` no longer runs what died there (unassigned, or assigned anew)."""
        self._deaths.pop(port, None)
        self._not_before.pop(port, None)
