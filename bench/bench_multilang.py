"""Round trips per second through the multilang host: tuple in, emit + ack out.

Prints figures, asserts nothing.  Launches the tests' pystorm bolt (upper-cases a word, emits
it anchored, acks) through ShellProcess, once with JSON and once with pystorm's msgpack
serializer, and counts completed round trips (the ack arrived) in two ways: one tuple at a
time (latency-bound), and with up to ``--pending`` tuples in flight (Storm's
``topology.shellbolt.max.pending``, 100 by default).

Usage: python bench/bench_multilang.py [--tuples N] [--pending P]
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.append(REPO)  # an installed pynimbus (maybe compiled: pynimbus.common.compiled) first

from twisted.internet import reactor, task  # noqa: E402

from pynimbus.worker.multilang.serializers import JsonSerializer, MsgpackSerializer  # noqa: E402
from pynimbus.worker.multilang.shell_msg import Ack  # noqa: E402
from pynimbus.worker.multilang.shell_process import BOLT, ShellProcess, child_env  # noqa: E402

BOLT_SCRIPT = os.path.join(REPO, "tests", "multilang_components", "upper_bolt.py")


class RoundTrips:
    """Feeds the bolt ``tuples`` tuples, keeping at most ``pending`` unacked; fires ``done``."""

    def __init__(self, serializer, tuples, pending, pid_dir):
        self.tuples = tuples
        self.pending = pending
        self.sent = 0
        self.acked = 0
        self.elapsed = None
        self.failure = None
        self.shell = ShellProcess("bench", serializer, BOLT, self.on_action, self.on_died,
                                  task.Clock(), 30)
        env = child_env(os.environ, {"MULTILANG_TEST_SERIALIZER": serializer.name})
        self.shell.launch(reactor, [sys.executable, BOLT_SCRIPT], os.path.dirname(BOLT_SCRIPT),
                          env, pid_dir, {"topology.name": "bench"},
                          {"taskid": 1, "componentid": "bench", "task->component": {"1": "bench"}})
        self.shell.handshake.addCallbacks(self.start, self.on_died)

    def start(self, _pid):
        self.started = time.perf_counter()
        self.fill()

    def fill(self):
        while self.sent < self.tuples and self.sent - self.acked < self.pending:
            self.sent += 1
            self.shell.write_bolt_msg(str(self.sent), "words", "default", 1, ["word%d" % self.sent])

    def on_action(self, action):
        if isinstance(action, Ack):
            self.acked += 1
            if self.acked == self.tuples:
                self.elapsed = time.perf_counter() - self.started
                self.shell.kill().addBoth(lambda _: reactor.stop())
            else:
                self.fill()

    def on_died(self, reason):
        self.failure = reason
        reactor.callLater(0, reactor.stop)


def measure(serializer, tuples, pending, workdir):
    """Runs one measurement in this process's reactor (stopped at the end; run once per mode
    by re-executing this script, since a Twisted reactor does not restart)."""
    pid_dir = tempfile.mkdtemp(dir=workdir)
    rounds = RoundTrips(serializer, tuples, pending, pid_dir)
    reactor.run()
    if rounds.failure is not None:
        raise SystemExit("bench failed: %s" % rounds.failure)
    return rounds.elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tuples", type=int, default=5000)
    parser.add_argument("--pending", type=int, default=100)
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        name, pending = args.one.split(":")
        serializer = {"json": JsonSerializer, "msgpack": MsgpackSerializer}[name]
        with tempfile.TemporaryDirectory() as workdir:
            print(measure(serializer, args.tuples, int(pending), workdir))
        return
    print("pystorm bolt through ShellProcess, %d tuples per run" % args.tuples)
    for name in ("json", "msgpack"):
        for pending in (1, args.pending):
            out = subprocess.run(
                [sys.executable, __file__, "--tuples", str(args.tuples), "--one",
                 "%s:%d" % (name, pending)],
                check=True, capture_output=True, text=True,
            ).stdout
            elapsed = float(out.strip().splitlines()[-1])
            print("  %-8s in flight %-4d %9.0f round trips/s  (%.1f us per tuple)"
                  % (name, pending, args.tuples / elapsed, elapsed / args.tuples * 1e6))


if __name__ == "__main__":
    main()
