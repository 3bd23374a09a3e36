"""A tuple bigger than a frame between workers is its emitter's error; raised, it crosses.

A `pynimbus dev` with one supervisor of two slots runs a spout that emits one 20 MB tuple and
then a small one, to a bolt of two tasks (all grouping) over two workers, so at least one
task is in the other worker.  With the default frame limit (16 MiB) the big tuple reaches only
the tasks in the spout's own worker, the spout's error in ``getTopologyInfo`` says its size,
the limit and the setting, and the small tuple after it crosses all the same (before issue 28
the exception left the emit path, the spout was killed as hung and replayed for ever).  With
``pynimbus.worker.transport.max_frame_bytes`` raised in the topology's conf, it reaches every
task.
"""

import collections
import os

import pytest

from nimbus_process import NimbusProcess, free_port
from test_worker_failures_visible import errors_of, stopped
from test_worker_process import submit
from worker_topologies import common, shell, word_count_jar
from pynimbus.generated.storm.ttypes import (
    Bolt, GlobalStreamId, Grouping, KillOptions, NullStruct, SpoutSpec, StormTopology)
from pynimbus.thrift.client import NimbusClient

# tens of seconds (tox -e slow, which CI runs, not the default run)
pytestmark = pytest.mark.slow

BIG = 20 * 1000 * 1000
SCRIPTS = ("big_tuple_spout.py", "size_recorder_bolt.py")


@pytest.fixture
def dev(tmp_path):
    local = tmp_path / "dev"
    local.mkdir()
    proc = NimbusProcess(local, dev_supervisor=True, options=[
        "supervisor.slots.ports=[%d,%d]" % (free_port(), free_port()),
        "nimbus.monitor.freq.secs=1", "supervisor.monitor.frequency.secs=1",
        "supervisor.heartbeat.frequency.secs=1", "supervisor.worker.shutdown.sleep.secs=1"])
    proc.start(timeout=60)
    yield proc
    stopped(proc)


def big_into_two_tasks():
    return StormTopology(
        spouts={"big": SpoutSpec(shell("big_tuple_spout.py"), common({}, ["value"], 1))},
        bolts={"sizes": Bolt(shell("size_recorder_bolt.py"), common(
            {GlobalStreamId("big", "default"): Grouping(all=NullStruct())}, ["value"], 2))},
        state_spouts={})


def sizes_by_task(path):
    by_task = collections.defaultdict(list)
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                task, size = line.split()
                by_task[int(task)].append(int(size))
    return by_task


def run(dev, name, output, wait_until, **conf):
    """Submit, and wait until both tasks have the small tuple (which follows the big one)."""
    with NimbusClient("127.0.0.1", dev.port, timeout=10) as client:
        submit(client, name, word_count_jar(scripts=SCRIPTS), big_into_two_tasks(),
               dict(conf, **{"topology.workers": 2, "topology.acker.executors": 0,
                             "test.big.tuple.bytes": BIG, "test.output": output}))
    wait_until(lambda: len(sizes_by_task(output)) == 2
               and all(5 in sizes for sizes in sizes_by_task(output).values()),
               timeout=120, interval=0.5, what="the small tuple at both of the bolt's tasks")


def kill(dev, name):
    with NimbusClient("127.0.0.1", dev.port, timeout=10) as client:
        client.killTopologyWithOpts(name, KillOptions(wait_secs=0))


def test_a_tuple_over_the_frame_limit_is_the_spouts_error_and_a_raised_limit_carries_it(
        dev, tmp_path, wait_until):
    output = str(tmp_path / "sizes-default.txt")
    run(dev, "bigdefault", output, wait_until)
    wait_until(lambda: errors_of(dev, "bigdefault"), timeout=30, what="the spout's error")
    [error] = errors_of(dev, "bigdefault")
    assert "a tuple on stream 'default' from task " in error.error
    assert ("more than a frame between workers may hold (16777216, pynimbus.worker.transport."
            "max_frame_bytes in the topology's conf raises it)") in error.error
    by_task = sizes_by_task(output)
    # remote tasks got only the small tuple, each in order; the spout was never replayed
    assert all(sizes in ([BIG, 5], [5]) for sizes in by_task.values()), by_task
    assert [5] in by_task.values()
    kill(dev, "bigdefault")

    output = str(tmp_path / "sizes-raised.txt")
    run(dev, "bigraised", output, wait_until, **{"pynimbus.worker.transport.max_frame_bytes": 32 * 1048576})
    assert sorted(sizes_by_task(output).values()) == [[BIG, 5], [BIG, 5]]
    assert errors_of(dev, "bigraised") == []
    kill(dev, "bigraised")
