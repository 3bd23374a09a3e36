"""Benchmark of the transport between workers (prints figures, asserts nothing).

For frames of 1, 10 and 100 tuples: tuples per second from ``TupleClient.send`` to the
receiving ``TupleServerFactory``'s callback over loopback TCP, and bytes on the wire per tuple
(frame prefix and header included).  Tuples are word-count sized: stream "default", a message
id of one root, values ``["word<n>", n]``.  Sender and receiver share one process, one reactor
and one core, so the rate is for both ends together.  When the sender's flag goes up, the
reactor is turned until it comes down, as an executor would stop calling nextTuple; otherwise
it is turned once per 100 tuples whatever the frame size, so the figures compare framing, not
reactor turns.

Each frame size runs twice: "bare" (no handshake, the receiver counts every tuple) and
"checked" (as a worker runs since issue 28: the connection answers the topology's
challenge first, and the receiver checks each tuple's source task, stream and arity against
the topology as ``WorkerDaemon._receiver`` does), so the last column is what those cost.  The
two are run alternately ``--repeats`` times and the best of each is printed.

    python bench/bench_transport.py [--tuples 100000] [--repeats 3]
"""

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "tests"))
sys.path.append(REPO)  # an installed pynimbus (maybe compiled: pynimbus.common.compiled) first

from loopback_reactor import LOOPBACK, close_reactor, new_reactor, spin_until  # noqa: E402
from pynimbus.worker.transport import TupleClient, TupleServerFactory  # noqa: E402


KEY = b"a topology's transport secret"
STORM_ID = "bench-1-1"


def bare_receiver(received):
    """As ``WorkerDaemon._receiver`` before issue 28: each tuple handed on, unchecked."""
    def receive(task_tuples):
        for _addressed in task_tuples:
            received[0] += 1
        return True
    return receive


def checked_receiver(received):
    """As ``WorkerDaemon._receiver``: each tuple's (source task, stream) must be one the task
    subscribes to, with the stream's number of fields."""
    allowed = {2: {"default": 2}}
    streams_of = allowed.get
    empty = {}

    def receive(task_tuples):
        for addressed in task_tuples:
            if streams_of(addressed.source_task, empty).get(
                    addressed.stream_id) != len(addressed.values):
                continue
            received[0] += 1
        return True
    return receive


def run(tuples, batch, checked):
    reactor = new_reactor()
    received = [0]
    receive = (checked_receiver if checked else bare_receiver)(received)
    auth = {"key": KEY, "storm_id": STORM_ID} if checked else {}
    listening = reactor.listenTCP(0, TupleServerFactory({1: receive}, clock=reactor, **auth),
                                  interface=LOOPBACK)
    client = TupleClient(reactor, LOOPBACK, listening.getHost().port, **auth)
    client.start()
    spin_until(reactor, lambda: client.writable, what="the connection")
    start = time.perf_counter()
    for n in range(tuples):
        client.send(1, 2, "default", {n: n}, ["word%d" % (n % 1000), n])
        if (n + 1) % batch == 0:
            client.flush()
        if (n + 1) % 100 == 0:
            reactor.iterate(0)
            while client.backpressure:
                reactor.iterate(0.001)
    client.flush()
    spin_until(reactor, lambda: received[0] == tuples, timeout=300, what="every tuple")
    seconds = time.perf_counter() - start
    figures = (tuples / seconds, client.bytes_sent / tuples, client.messages_lost)
    client.close()
    listening.stopListening()
    close_reactor(reactor)
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tuples", type=int, default=100000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print("%-18s %14s %14s %16s %6s %10s" % ("tuples per frame", "bare t/s", "checked t/s",
                                             "bytes/tuple", "lost", "checked/bare"))
    for batch in (1, 10, 100):
        # alternated, best of each: the first runs of a process are the slowest
        bare_runs, checked_runs = [], []
        for _ in range(args.repeats):
            bare_runs.append(run(args.tuples, batch, checked=False))
            checked_runs.append(run(args.tuples, batch, checked=True))
        bare, bytes_per_tuple, _ = max(bare_runs)
        checked = max(checked_runs)[0]
        lost = sum(figures[2] for figures in bare_runs + checked_runs)
        print("%-18d %14.0f %14.0f %16.1f %6d %10.2f" % (batch, bare, checked, bytes_per_tuple,
                                                         lost, checked / bare))


if __name__ == "__main__":
    main()
