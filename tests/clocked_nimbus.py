"""A ``pynimbus`` process whose Nimbus clock a test sets: Nimbus time read from a file.

``python tests/clocked_nimbus.py CLOCK_FILE <pynimbus arguments>`` runs ``pynimbus.cli.main`` with
every ``NimbusDaemon`` built with a clock that returns the number in ``CLOCK_FILE`` (the real
time while the file is missing).  Timers still tick in real time (the monitor runs every
``nimbus.monitor.freq.secs``), but everything Nimbus decides with its clock - launch times,
heartbeat timeouts - follows the file, so a test can move Nimbus minutes ahead without
sleeping.  :class:`ClockedNimbusProcess` is the :class:`nimbus_process.NimbusProcess` that
runs it.
"""

import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from nimbus_process import NimbusProcess  # noqa: E402


def file_clock(path):
    """A clock returning the float in ``path``, or the real time when it cannot be read."""
    def clock():
        try:
            with open(path) as f:
                return float(f.read())
        except (OSError, ValueError):
            return time.time()
    return clock


class ClockedNimbusProcess(NimbusProcess):
    """A `pynimbus dev` process whose Nimbus clock is ``set_clock``'s last value."""

    def __init__(self, local_dir, **kwargs):
        super().__init__(local_dir, **kwargs)
        self.clock_file = os.path.join(self.local_dir, "nimbus-clock")

    def command(self):
        cmd = super().command()
        at = cmd.index("-m")
        cmd[at:at + 2] = [os.path.abspath(__file__), self.clock_file]
        return cmd

    def set_clock(self, now):
        """Nimbus's time is ``now`` (Unix seconds) from its next reading on."""
        tmp = self.clock_file + ".tmp"
        with open(tmp, "w") as f:
            f.write(repr(float(now)))
        os.replace(tmp, self.clock_file)


def main(argv):
    from pynimbus.cli import main as cli

    from pynimbus.nimbus import daemon as nimbus

    clock = file_clock(argv[0])
    base = nimbus.NimbusDaemon

    class ClockedDaemon(base):
        def __init__(self, conf, reactor, *args, **kwargs):
            kwargs["clock"] = clock
            super().__init__(conf, reactor, *args, **kwargs)

    nimbus.NimbusDaemon = ClockedDaemon
    return cli.main(argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
