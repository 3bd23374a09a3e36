"""What a worker process loads: its own modules, not the Nimbus daemon's.

A supervisor starts one ``python -m pynimbus.worker`` per slot, so whatever the worker imports
is paid for in every worker's resident memory (bench/bench_worker_wordcount.py prints it).
"""
# test-case-name: tests.test_worker_imports

import subprocess
import sys

from nimbus_process import REPO

# Nimbus's daemon, its handlers, its Thrift server and its monitor: none has a use in a worker.
NIMBUS_ONLY = ("pynimbus.nimbus", "pynimbus.handlers", "pynimbus.server", "pynimbus.monitor")


def test_a_worker_process_does_not_load_the_nimbus_daemon():
    """Importing the worker's entry point in a fresh interpreter loads none of Nimbus's
    daemon, handlers, Thrift server or monitor."""
    loaded = subprocess.run(
        [sys.executable, "-c",
         "import sys, pynimbus.worker.__main__; print('\\n'.join(sorted(sys.modules)))"],
        cwd=REPO, check=True, capture_output=True, text=True, timeout=60).stdout.split()
    unwanted = [name for name in loaded
                if any(name == prefix or name.startswith(prefix + ".")
                       for prefix in NIMBUS_ONLY)]
    assert unwanted == []
