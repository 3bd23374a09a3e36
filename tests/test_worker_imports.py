"""What a worker process loads: its own room, the floors and the pure ports, never another
program (Nimbus with its handlers and blob store, the supervisor, the tools) nor the door.

A supervisor starts one ``python -m pynimbus.worker`` per slot, so whatever the worker imports
is paid for in every worker's resident memory (bench/bench_worker_startup.py prints it).
"""
# test-case-name: tests.test_worker_imports

import subprocess
import sys

import layout_rules
from nimbus_process import REPO

# what a worker's process may load, by room kind (tests/layout_rules.py)
WORKER_MAY_LOAD = {("program", "worker"), ("root", "pynimbus")}


def loaded_by(statement):
    """The modules a fresh interpreter holds after ``statement``."""
    return subprocess.run(
        [sys.executable, "-c", statement + "; import sys; print('\\n'.join(sorted(sys.modules)))"],
        cwd=REPO, check=True, capture_output=True, text=True, timeout=60).stdout.split()


def test_a_worker_process_loads_no_other_program():
    """Importing the worker's entry point in a fresh interpreter loads only pynimbus modules
    of the worker's room, the floors and the pure ports."""
    ours = [name for name in loaded_by("import pynimbus.worker.__main__")
            if name.split(".")[0] == "pynimbus"]
    unwanted = [name for name in ours
                if layout_rules.room_of(name)[0] not in ("floor", "pure")
                and layout_rules.room_of(name) not in WORKER_MAY_LOAD]
    assert ours and unwanted == []


# floor modules only Nimbus or a daemon reading storm.yaml uses: the leader latch, Storm's conf
# validators (the schema of every Config key) and the YAML reader
NOT_FOR_WORKERS = ("pynimbus.cluster.leader", "pynimbus.clojure_port.conf_validation", "yaml")


def test_a_worker_process_loads_neither_the_leader_latch_nor_the_conf_validators():
    loaded = loaded_by("import pynimbus.worker.__main__")
    assert [name for name in NOT_FOR_WORKERS if name in loaded] == []


def test_the_check_sees_another_program_loaded():
    """The same check flags a module of the supervisor when one is loaded beside."""
    loaded = loaded_by("import pynimbus.worker.__main__, pynimbus.supervisor.code")
    assert [name for name in loaded if layout_rules.room_of(name) == ("program", "supervisor")
            and name.split(".")[0] == "pynimbus"]
