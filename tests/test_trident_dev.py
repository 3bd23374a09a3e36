"""Trident programs in Python on ``pynimbus dev``: submitted with ``pynimbus submit
module:attr``, planned again by each worker and run with Storm's batch semantics.

* the issue's seed example gives each user's count and total per batch of its input;
* word count with a ``MemoryMapState`` counts a known corpus exactly although a function fails
  some batches (``FailedException`` the first time it meets a word): the batches replay, and
  the master coordinator logs each failed attempt;
* partitioned spouts (opaque and transactional) over a fixed corpus into a ``SQLiteMapState``
  (opaque and transactional) count exactly across ``kill -9`` of each worker in turn (the
  master coordinator's, the spouts', the states'), and of one again while it starts.
"""

import json
import os
import signal

import pytest

from nimbus_process import NimbusProcess, free_port
from pynimbus.supervisor import worker_dirs
from pynimbus.supervisor.daemon import process_alive, send_signal
from pynimbus.thrift.client import NimbusClient
from trident_cluster import kill_topology, submit, topology_errors, worker_logs
from trident_programs import exactly_once, operations, seed, wordcount


@pytest.fixture(scope="module")
def dev(tmp_path_factory):
    local = tmp_path_factory.mktemp("trident-dev")
    ports = [free_port(), free_port()]
    nimbus = NimbusProcess(local, dev_supervisor=True, options=[
        "supervisor.slots.ports=[%d, %d]" % tuple(ports), "nimbus.monitor.freq.secs=1",
        "supervisor.monitor.frequency.secs=1", "supervisor.heartbeat.frequency.secs=1",
        "supervisor.worker.shutdown.sleep.secs=1", "nimbus.task.timeout.secs=10",
        "supervisor.worker.timeout.secs=10"])
    nimbus.start(timeout=60)
    nimbus.conf = {"storm.local.dir": str(local)}
    try:
        yield nimbus
    finally:
        nimbus.kill()
        for worker_id in worker_dirs.worker_ids(nimbus.conf):
            for pid in worker_dirs.worker_pids(nimbus.conf, worker_id):
                if process_alive(pid):
                    send_signal(pid, signal.SIGKILL)


def test_the_seed_example_gives_each_users_count_per_batch(dev, tmp_path, wait_until):
    output = tmp_path / "seed.txt"
    submit(dev, tmp_path, "seed:topology", "seed", {"TRIDENT_OUTPUT": str(output)})
    try:
        def printed():
            return sorted(output.read_text().splitlines()) if output.exists() else []
        wait_until(lambda: printed() == seed.expected_lines(), timeout=90,
                   what="one line per user per batch in %s (got %s)\n%s"
                   % (output, printed(), dev.log_tail()))
        assert topology_errors(dev, "seed") == []
    finally:
        kill_topology(dev, "seed")


def test_word_count_is_exact_although_batches_fail_and_replay(dev, tmp_path, wait_until):
    output = tmp_path / "counts.txt"
    submit(dev, tmp_path, "wordcount:topology", "trident-wc", {"TRIDENT_OUTPUT": str(output)})
    try:
        def counts():
            return wordcount.final_counts(str(output)) if output.exists() else {}
        wait_until(lambda: counts() == wordcount.expected_counts(), timeout=90,
                   what="exact counts in %s (got %s)\n%s"
                   % (output, counts(), dev.log_tail()))
        logs = worker_logs(dev, "trident-wc")
        # each word of FAIL_ONCE failed one batch's first attempt, which was replayed
        assert "of $mastercoord-bg0 failed: it is replayed" in logs, logs
        assert "replayed, attempt 1" in logs, logs
        assert topology_errors(dev, "trident-wc") == []
    finally:
        kill_topology(dev, "trident-wc")


def storm_id_of(dev, name):
    with NimbusClient("127.0.0.1", dev.port, timeout=10) as client:
        return next((t.id for t in client.getClusterInfo().topologies if t.name == name), None)


def topology_workers(dev, storm_id):
    """``{port: pid}`` of the live worker processes of ``storm_id`` (their command lines
    name it, the port after the supervisor's id)."""
    workers = {}
    for worker_id in worker_dirs.worker_ids(dev.conf):
        for pid in worker_dirs.worker_pids(dev.conf, worker_id):
            try:
                with open("/proc/%d/cmdline" % pid, "rb") as f:
                    argv = f.read().decode().split("\0")
            except OSError:
                continue
            if storm_id in argv:
                workers[int(argv[argv.index(storm_id) + 2])] = pid
    return workers


@pytest.mark.slow
@pytest.mark.parametrize("program, kind", [("exactly_once:opaque", "opaque"),
                                           ("exactly_once:transactional", "transactional")])
def test_partitioned_spouts_count_exactly_across_kill_9_of_each_worker(
        dev, tmp_path, wait_until, program, kind):
    """Each worker in turn (two: the master coordinator, the spout, the spout coordinator
    and the bolts are spread over them) is killed with SIGKILL while batches flow, then the
    first twice more, the second time while it starts (reading its states); the supervisor
    starts each again, the batches they held replay, and the counts stored in SQLite end
    exactly right."""
    db = str(tmp_path / "counts.sqlite3")
    name = "exactly-" + kind
    submit(dev, tmp_path, program, name, {"TRIDENT_DB": db},
           "topology.trident.batch.emit.interval.millis=250",
           "topology.message.timeout.secs=4", "topology.max.spout.pending=2")
    expected = exactly_once.expected_counts()
    try:
        storm_id = storm_id_of(dev, name)

        def total():
            return sum(exactly_once.stored_counts(db, kind).values())

        def restarted(port, pid):
            workers = topology_workers(dev, storm_id)
            return len(workers) == 2 and workers[port] != pid
        wait_until(lambda: len(topology_workers(dev, storm_id)) == 2, timeout=60,
                   what="the topology's two workers")
        ports = sorted(topology_workers(dev, storm_id))
        for port in ports:
            wait_until(lambda: total() > 0, timeout=60, what="counts in %s\n%s"
                       % (db, dev.log_tail()))
            pid = topology_workers(dev, storm_id)[port]
            before = total()
            os.kill(pid, signal.SIGKILL)
            wait_until(lambda: restarted(port, pid), timeout=60,
                       what="the killed worker started again")
            assert total() < sum(expected.values()), "the corpus ended before the kill"
            wait_until(lambda: total() > before, timeout=60,
                       what="counting going on after the kill\n%s" % dev.log_tail())
        pid = topology_workers(dev, storm_id)[ports[0]]
        os.kill(pid, signal.SIGKILL)
        wait_until(lambda: restarted(ports[0], pid), timeout=60,
                   what="the killed worker started again")
        os.kill(topology_workers(dev, storm_id)[ports[0]], signal.SIGKILL)  # while it starts
        wait_until(lambda: exactly_once.stored_counts(db, kind) == expected, timeout=120,
                   what="exact counts (got %s, want %s)\n%s"
                   % (exactly_once.stored_counts(db, kind), expected, dev.log_tail()))
    finally:
        kill_topology(dev, name)


def test_operations_joins_merges_aggregations_and_queries_give_storms_results(
        dev, tmp_path, wait_until):
    """One program with most of Trident's operations (lambdas among them), across two
    workers: every result as expected, and every global aggregation emits once per empty
    batch too (empty batches are started and finished)."""
    output = tmp_path / "operations.txt"
    submit(dev, tmp_path, "operations:topology", "trident-ops",
           {"TRIDENT_OUTPUT": str(output)})
    try:
        want = operations.expected()

        def done():
            got, empty = operations.recorded(str(output))
            return got == want and all(empty.get(tag) for tag in operations.GLOBAL)
        wait_until(done, timeout=90, what="every operation's result in %s: got %s, want %s"
                   "\n%s" % (output, operations.recorded(str(output)), want,
                             dev.log_tail()))
        assert topology_errors(dev, "trident-ops") == []
    finally:
        kill_topology(dev, "trident-ops")


def txid_values(client, path):
    """The values of the txid-named children of *path*, by txid as a number.  The topology
    runs on while the test reads, and RotatingTransactionalState removes old txids, so a
    child listed may be gone when it is read: such children are left out."""
    from kazoo.exceptions import NoNodeError

    values = {}
    for child in client.get_children(path):
        if child.isdigit():
            try:
                values[int(child)] = client.get(path + "/" + child)[0]
            except NoNodeError:
                continue
    return values


@pytest.mark.slow
def test_the_transactional_state_is_kept_in_storms_layout_on_zookeeper(
        zookeeper_server, tmp_path, wait_until):
    """On a real ZooKeeper, what the master coordinator, the spout coordinator and the
    partitioned spout store is where and how Storm stores it: under
    ``transactional.zookeeper.root``, ``<txId>/coordinator/currtx`` (a JSON number),
    ``currattempts`` (a JSON object of txid to attempt), ``meta/<txid>`` (the coordinator's
    metadata) and ``<txId>/user/<partition id>/<txid>`` (each partition's metadata)."""
    import uuid

    from kazoo.client import KazooClient

    from nimbus_process import zookeeper_options

    zk = zookeeper_server.storm_conf()
    root = "/transactional-%s" % uuid.uuid4().hex
    local = tmp_path / "zk-dev"
    local.mkdir()
    ports = [free_port(), free_port()]
    nimbus = NimbusProcess(local, dev_supervisor=True, options=zookeeper_options(
        zk["storm.zookeeper.servers"], zk["storm.zookeeper.port"],
        "/pynimbus-%s" % uuid.uuid4().hex) + [
        "supervisor.slots.ports=[%d, %d]" % tuple(ports), "nimbus.monitor.freq.secs=1",
        "supervisor.monitor.frequency.secs=1", "transactional.zookeeper.root=%s" % root])
    nimbus.start(timeout=60)
    nimbus.conf = {"storm.local.dir": str(local)}
    client = KazooClient(hosts="127.0.0.1:%d" % zk["storm.zookeeper.port"])
    client.start(timeout=30)
    db = str(tmp_path / "counts.sqlite3")
    try:
        submit(nimbus, tmp_path, "exactly_once:opaque", "zk-layout", {"TRIDENT_DB": db})

        def currtx():
            path = root + "/corpus-opaque/coordinator/currtx"
            return json.loads(client.get(path)[0]) if client.exists(path) else 0
        wait_until(lambda: currtx() >= 4, timeout=60,
                   what="batches committed on ZooKeeper\n%s" % nimbus.log_tail())
        coordinator = root + "/corpus-opaque/coordinator"
        assert set(client.get_children(coordinator)) >= {"currtx", "currattempts", "meta"}
        assert isinstance(currtx(), int)
        attempts = json.loads(client.get(coordinator + "/currattempts")[0])
        assert all(k.isdigit() and isinstance(v, int) for k, v in attempts.items())
        metas = txid_values(client, coordinator + "/meta")
        assert metas and set(map(json.loads, metas.values())) == {exactly_once.PARTITIONS}
        user = root + "/corpus-opaque/user"
        partitions = sorted(client.get_children(user))
        assert partitions == ["partition-%d" % i for i in range(exactly_once.PARTITIONS)]
        for partition in partitions:
            stored = txid_values(client, user + "/" + partition)
            assert stored
            latest = json.loads(stored[max(stored)])
            assert set(latest) == {"offset", "next"} and latest["next"] > latest["offset"]
    finally:
        client.stop()
        nimbus.kill()
        for worker_id in worker_dirs.worker_ids(nimbus.conf):
            for pid in worker_dirs.worker_pids(nimbus.conf, worker_id):
                if process_alive(pid):
                    send_signal(pid, signal.SIGKILL)
