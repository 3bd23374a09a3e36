"""Acker operations per second (pynimbus.worker.acker), and the whole ack bookkeeping of a tree.

Shapes, for trees of N = 1, 3 and 10 tuples:

- *acker*: one ``__ack_init`` plus N ``__ack_ack`` per tree, through ``Acker.execute``, in
  1.x and 2.x mode; 5,000 trees in flight at a time (acked in the order they were started,
  the init first), so the RotatingMap holds as many entries as a busy acker task.  Prints
  acker messages per second and trees per second, the best of 3 runs (the machine is
  shared).
- *round trip*: everything a reliable tree costs in one process besides the user's code: the
  spout's ``send_spout_msg`` to N tasks, each bolt's ``bolt_ack``, the acker's messages, and the
  spout's ``execute`` of the acker's answer.  Prints trees per second, the best of 3.

Ids come from a seeded ``random.Random``.  Prints figures; asserts nothing (benchmarks never
assert timings).

Run: ``python bench/bench_acker.py``
"""

import os
import random
import sys
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.append(REPO_ROOT)  # an installed pynimbus (maybe compiled: pynimbus.common.compiled) first

from pynimbus.worker.acker import Acker, bolt_ack  # noqa: E402
from pynimbus.worker.message_id import TupleIds, bit_xor_vals, mk_id_source  # noqa: E402
from pynimbus.worker.spout_pending import SpoutPending  # noqa: E402

TREES = 50000
IN_FLIGHT = 5000
REPEATS = 3
SPOUT_TASK = 7


def acker_messages(generate_id, trees, tuples):
    """Per tree: the init, then one ack per tuple, as literal (stream, values) pairs."""
    ret = []
    for _ in range(trees):
        root_id = generate_id()
        edge_ids = [generate_id() for _ in range(tuples)]
        ret.append([("__ack_init", [root_id, bit_xor_vals(edge_ids), SPOUT_TASK])]
                   + [("__ack_ack", [root_id, edge_id]) for edge_id in edge_ids])
    return ret


def acker_order(tuples):
    """Start IN_FLIGHT trees, then finish one and start one, so that many are pending."""
    trees = acker_messages(mk_id_source(random.Random(1)), TREES, tuples)
    order = []
    for i in range(TREES):
        order.extend(trees[i][:1])
        if i >= IN_FLIGHT:
            order.extend(trees[i - IN_FLIGHT][1:])
    for i in range(TREES - IN_FLIGHT, TREES):
        order.extend(trees[i][1:])
    return order


def run_acker(compat, order):
    """Seconds to feed ``order`` to a new acker."""
    acker = Acker(compat)
    execute = acker.execute
    done = 0
    start = time.perf_counter()
    def zero_ms():
        return 0

    for stream_id, values in order:
        if execute(stream_id, values, zero_ms):
            done += 1
    seconds = time.perf_counter() - start
    assert done == TREES and acker.pending_count() == 0, "bench is wrong"
    return seconds


def bench_acker(tuples):
    order = acker_order(tuples)
    for compat in ("1.x", "2.x"):
        seconds = min(run_acker(compat, order) for _ in range(REPEATS))
        print("acker %s, 1 init + %2d acks a tree: %9.0f messages/s  %8.0f trees/s"
              % (compat, tuples, len(order) / seconds, TREES / seconds))


def run_round_trip(tuples, trees):
    """Seconds for ``trees`` reliable trees of ``tuples`` tuples, from emit to spout ack."""
    generate_id = mk_id_source(random.Random(2))
    spout = SpoutPending(None, True, generate_id)
    acker = Acker()
    out_tasks = list(range(10, 10 + tuples))
    start = time.perf_counter()
    acked = 0
    def one_ms():
        return 1

    for n in range(trees):
        sent = spout.send_spout_msg(SPOUT_TASK, "default", n, out_tasks, start_time_ms=0)
        messages = list(sent.acker_emits)
        for message_id in sent.message_ids:
            messages.extend(bolt_ack(TupleIds(message_id)))
        for message in messages:
            for answer in acker.execute(message.stream, message.values, one_ms):
                acked += len(spout.execute(answer.task, answer.stream, answer.values, 1))
    seconds = time.perf_counter() - start
    assert acked == trees, "bench is wrong"
    return seconds


def bench_round_trip(tuples):
    trees = TREES // 5
    seconds = min(run_round_trip(tuples, trees) for _ in range(REPEATS))
    print("round trip, spout to %2d tasks: %8.0f trees/s" % (tuples, trees / seconds))


def main():
    for tuples in (1, 3, 10):
        bench_acker(tuples)
    for tuples in (1, 3, 10):
        bench_round_trip(tuples)


if __name__ == "__main__":
    main()
