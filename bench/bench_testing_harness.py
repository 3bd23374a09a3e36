"""pynimbus.testing on a word count: how many tuples per second a test can push through.

Prints figures, asserts nothing.  The finite word count of tests/sparse_projects.py (a spout
emitting each word with a message id, two count tasks on a fields grouping) is generated in a
temporary directory and run with ``run_topology(..., spout_calls=N)``: every word is emitted,
delivered, counted, emitted again by the bolt, auto-acked and acked back to the spout.  Figures:
spout tuples fully acked per second (median of R runs), and for one bolt alone,
``run_bolt`` input tuples per second.

Usage: python bench/bench_testing_harness.py [--words N] [--runs R]
"""

import argparse
import importlib
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "tests"))
sys.path.append(REPO)  # an installed pynimbus (maybe compiled: pynimbus.common.compiled) first

from sparse_projects import finite_word_count  # noqa: E402
from pynimbus.testing import run_bolt, run_topology  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=int, default=20000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    corpus = ["the cow jumped over the moon and an apple a day"] * (args.words // 11 + 1)
    with tempfile.TemporaryDirectory() as directory:
        root = finite_word_count(directory, package="bench_harness", corpus=corpus)
        sys.path[:0] = [os.path.join(root, "src"), os.path.join(root, "topologies")]
        topology_class = importlib.import_module("bench_harness_count").FiniteWordCount
        bolt_class = importlib.import_module("bench_harness.bolts").CountBolt
        words = sum(len(line.split()) for line in corpus)
        topology_rates, bolt_rates = [], []
        for _ in range(args.runs):
            start = time.perf_counter()
            topology = run_topology(topology_class, spout_calls=words)
            elapsed = time.perf_counter() - start
            assert len(topology["word_spout"].acked) == words
            topology_rates.append(words / elapsed)
            inputs = [[w] for line in corpus for w in line.split()]
            start = time.perf_counter()
            run_bolt(bolt_class, inputs, input_fields=["word"])
            bolt_rates.append(len(inputs) / (time.perf_counter() - start))
    print("pynimbus.testing, %d words, median of %d runs (python %s)"
          % (words, args.runs, sys.version.split()[0]))
    print("  run_topology word count: %8.0f spout tuples acked/s" % statistics.median(
        topology_rates))
    print("  run_bolt count bolt:     %8.0f input tuples/s" % statistics.median(bolt_rates))


if __name__ == "__main__":
    main()
