"""Benchmark of the transport between workers (prints figures, asserts nothing).

For frames of 1, 10 and 100 tuples: tuples per second from ``TupleClient.send`` to the
receiving ``TupleServerFactory``'s callback over loopback TCP, and bytes on the wire per tuple
(frame prefix and header included).  Tuples are word-count sized: stream "default", a message
id of one root, values ``["word<n>", n]``.  Sender and receiver share one process, one reactor
and one core, so the rate is for both ends together.  When the sender's flag goes up, the
reactor is turned until it comes down, as an executor would stop calling nextTuple; otherwise it is turned once per 100 tuples
whatever the frame size, so the figures compare framing, not reactor turns.

    python bench/bench_transport.py [--tuples 100000]
"""

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "tests"))
sys.path.append(REPO)  # an installed pynimbus (maybe compiled: pynimbus.compiled) first

from loopback_reactor import LOOPBACK, close_reactor, new_reactor, spin_until  # noqa: E402
from pynimbus.worker.transport import TupleClient, TupleServerFactory  # noqa: E402


def run(tuples, batch):
    reactor = new_reactor()
    received = [0]

    def receive(task_tuples):
        received[0] += len(task_tuples)
        return True

    listening = reactor.listenTCP(0, TupleServerFactory({1: receive}, clock=reactor), interface=LOOPBACK)
    client = TupleClient(reactor, LOOPBACK, listening.getHost().port)
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
    args = parser.parse_args()
    print("%-18s %14s %16s %6s" % ("tuples per frame", "tuples/s", "bytes/tuple", "lost"))
    for batch in (1, 10, 100):
        rate, bytes_per_tuple, lost = run(args.tuples, batch)
        print("%-18d %14.0f %16.1f %6d" % (batch, rate, bytes_per_tuple, lost))


if __name__ == "__main__":
    main()
