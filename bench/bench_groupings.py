"""What choosing a tuple's tasks costs: nanoseconds per tuple for each of Storm's groupings.

Each grouper of :mod:`pynimbus.worker.groupings` is built once (as ``mk-grouper`` is, per
stream and target) over 8 target tasks and called on N tuples of ``[word, count]`` (words from
a vocabulary of 1000, so the fields grouping's string hashes are cached as in a word count);
``out_tasks`` is the whole routing of a regular emit to one fields-grouped subscriber.  Prints
ns/tuple, the best of 3 passes; asserts nothing.

Run: ``python bench/bench_groupings.py [N]`` (default 100000)
"""

import os
import random
import sys
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.append(REPO_ROOT)  # an installed pynimbus (maybe compiled: pynimbus.common.compiled) first

TARGETS = list(range(1, 9))


def groupers():
    """(name, grouper) for each grouping."""
    from pynimbus.generated.storm.ttypes import Grouping, NullStruct
    from pynimbus.worker import groupings

    def mk(grouping, **topo_conf):
        context = groupings.mk_grouper_context(
            TARGETS[:4], topo_conf, random.Random(1), lambda: 0)
        return groupings.mk_grouper(context, "words", "default", ["word", "count"], grouping,
                                    TARGETS)

    return [
        ("fields [word]", mk(Grouping(fields=["word"]))),
        ("fields [word, count]", mk(Grouping(fields=["word", "count"]))),
        ("global", mk(Grouping(fields=[]))),
        ("all (8 tasks)", mk(Grouping(all=NullStruct()))),
        ("none", mk(Grouping(none=NullStruct()))),
        ("shuffle (load-aware, default)", mk(Grouping(shuffle=NullStruct()))),
        ("shuffle (loadaware messaging off)",
         mk(Grouping(shuffle=NullStruct()), **{"topology.disable.loadaware.messaging": True})),
        ("local-or-shuffle (4 local)", mk(Grouping(local_or_shuffle=NullStruct()))),
        ("partial-key [word] (1.2.4)", groupings.PartialKeyGrouping(["word"], ["word", "count"],
                                                                    TARGETS)),
        ("partial-key [word] (2.8.8)", groupings.PartialKeyGrouping2x(
            ["word"], ["word", "count"], TARGETS)),
    ]


def per_tuple_ns(grouper, tuples, runs=3):
    """The best of ``runs`` passes (the machine is shared: the best is the least disturbed)."""
    best = None
    for _ in range(runs):
        start = time.perf_counter_ns()
        for values in tuples:
            grouper(1, values, None)
        elapsed = time.perf_counter_ns() - start
        best = elapsed if best is None else min(best, elapsed)
    return best / len(tuples)


def main(n):
    from pynimbus.worker import groupings

    rng = random.Random(0)
    vocabulary = ["word%d" % i for i in range(1000)]
    tuples = [[rng.choice(vocabulary), i] for i in range(n)]
    print("groupings: %d tuples, %d target tasks" % (n, len(TARGETS)))
    for name, grouper in groupers():
        per_tuple_ns(grouper, tuples[:1000])  # warm the string hash cache
        print("  %-36s %8.0f ns/tuple" % (name, per_tuple_ns(grouper, tuples)))
    routes = {"default": {"count": groupers()[0][1]}}

    def emit(task_id, values, load):
        return groupings.out_tasks(routes, task_id, "default", values, load)

    print("  %-36s %8.0f ns/tuple" % ("out_tasks (one fields subscriber)",
                                      per_tuple_ns(emit, tuples)))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100000)
