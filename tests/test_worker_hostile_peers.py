"""A peer on the network that sends a worker tuples that do not fit its topology: they are
refused, the worker and its components go on, and its log grows by a line or two.

A `pynimbus dev` with one slot runs the quickstart word count.  A raw TCP client that does not
know the topology's transport secret sends a forged tuple: its connection is closed before a
frame is read.  One that knows it (an insider with the supervisor's copy of the conf) sends the
worker's tuple port well-framed messages with the wrong number of values for the count bolt,
on a stream it does not subscribe to, from a task that does not send to it, and for a task the
worker does not run, a thousand of each.  (Before issue 28 the wrong arity crashed the bolt
and restarted the worker, and each frame for an unknown task was a log line.)
"""

import glob
import os
import socket

import msgpack
import pytest

from sparse_projects import quickstart
from test_worker_failures_visible import cli, dev_log, errors_of, started_dev, stopped
from pynimbus.common.stored_topology import from_compressed_json_conf
from pynimbus.common.transport_secret import transport_key
from pynimbus.generated.storm.ttypes import KillOptions
from pynimbus.thrift.client import NimbusClient
from pynimbus.worker import wire_auth
from pynimbus.worker.wire import encode_message, frame

# tens of seconds (tox -e slow, which CI runs, not the default run)
pytestmark = pytest.mark.slow

RUN_SECS = 120


@pytest.fixture
def dev(tmp_path):
    proc = started_dev(tmp_path / "dev")
    yield proc
    stopped(proc)


def component_tasks(dev, name):
    with NimbusClient("127.0.0.1", dev.port, timeout=10) as client:
        [storm_id] = [t.id for t in client.getClusterInfo().topologies if t.name == name]
        info = client.getTopologyInfo(storm_id)
    tasks = {}
    for e in info.executors or ():
        tasks.setdefault(e.component_id, []).extend(
            range(e.executor_info.task_start, e.executor_info.task_end + 1))
    beating = bool(info.executors) and all(e.stats is not None for e in info.executors)
    return tasks, beating


def worker_log(dev):
    [path] = glob.glob(os.path.join(dev.local_dir, "logs", "workers-artifacts", "*",
                                    str(dev.slot), "worker.log"))
    with open(path, errors="replace") as f:
        return f.read()


def stored_transport_key(dev):
    """The topology id and transport key from the supervisor's copy of the stored conf."""
    [path] = glob.glob(os.path.join(dev.local_dir, "supervisor", "stormdist", "*",
                                    "stormconf.ser"))
    with open(path, "rb") as f:
        conf = from_compressed_json_conf(f.read())
    return conf["storm.id"], transport_key(conf)


def test_tuples_that_do_not_fit_the_topology_are_refused_and_the_worker_goes_on(
        dev, tmp_path, wait_until):
    root = quickstart(tmp_path)
    code, _, err = cli("submit", "topologies/wordcount.py",
                       "--nimbus", "127.0.0.1:%d" % dev.port, cwd=root)
    assert code == 0, err
    wait_until(lambda: component_tasks(dev, "wordcount")[1], timeout=RUN_SECS, interval=0.5,
               what="every executor beating")
    tasks, _ = component_tasks(dev, "wordcount")
    count, spout = tasks["count_bolt"][0], tasks["word_spout"][0]
    packer = msgpack.Packer()
    hostile = [
        (count, spout, "default", ["dog", "extra"]),    # wrong arity
        (count, spout, "not-declared", ["dog"]),        # a stream it does not subscribe to
        (count, tasks["count_bolt"][-1], "default", ["dog"]),  # a task that sends it nothing
        (9999, spout, "default", ["dog"]),              # a task this worker does not run
    ]
    # a peer that does not know the topology's secret: closed before any frame is read
    with socket.create_connection(("127.0.0.1", dev.slot), timeout=10) as peer:
        assert peer.recv(wire_auth.HELLO_BYTES, socket.MSG_WAITALL).startswith(b"PNA1")
        forged = frame([encode_message(packer, count, spout, "default", {}, ["forged"])])
        try:
            peer.sendall(forged * 1000)
            assert peer.recv(1) == b""  # closed
        except ConnectionResetError:  # closed with unread bytes: aborted
            pass
    wait_until(lambda: "do not prove it knows the transport secret" in worker_log(dev),
               timeout=30, interval=0.2, what="the refused connection in the worker log")
    # one that does (an insider: the secret is in the supervisor's copy of the conf)
    storm_id, key = stored_transport_key(dev)
    with socket.create_connection(("127.0.0.1", dev.slot), timeout=10) as peer:
        hello = peer.recv(wire_auth.HELLO_BYTES, socket.MSG_WAITALL)
        peer.sendall(wire_auth.response(key, storm_id, wire_auth.nonce_of(hello)))
        for dest, source, stream, values in hostile:
            one = frame([encode_message(packer, dest, source, stream, {}, values)])
            peer.sendall(one * 1000)
    wait_until(lambda: worker_log(dev).count("refused a tuple") >= 1
               and "dropping 1 tuples for task 9999" in worker_log(dev),
               timeout=30, interval=0.2, what="the refusals in the worker log")
    # the worker still runs its components: its executors beat on, nothing was reported
    first_beat = component_tasks(dev, "wordcount")
    wait_until(lambda: component_tasks(dev, "wordcount")[1], timeout=30, what="beats")
    assert first_beat[0] == tasks
    assert errors_of(dev, "wordcount") == []
    assert dev_log(dev).count("Launching worker") == 1
    log = worker_log(dev)
    assert log.count("refused a tuple") <= 2 and log.count("dropping ") <= 2, log
    assert log.count("do not prove it knows the transport secret") == 1, log
    assert "forged" not in log
    for reason in ("stream 'default' declares 1 fields, the tuple has 2 values",):
        assert reason in log
    with NimbusClient("127.0.0.1", dev.port, timeout=10) as client:
        client.killTopologyWithOpts("wordcount", KillOptions(wait_secs=0))
