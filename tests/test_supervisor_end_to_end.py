"""``pynimbus supervisor`` processes beside ``pynimbus dev`` run real workers.

Two supervisors share the dev Nimbus's embedded store (one host), the pystorm word count of
:mod:`worker_topologies` is submitted, and the supervisors launch ``python -m pynimbus.worker``
for it: the assigned ports listen, the counts are exact, a worker killed with SIGKILL is
launched again, and ``killTopology`` leaves no worker or multilang child and no worker or code
directory.  The counting alone is run again with pystorm's msgpack serializer, and with a spout
and bolts written against Storm's own ``storm.py`` (the ``multilang-python`` artifact,
fetched once into ``.cache`` by Maven; skipped with the reason where Maven cannot serve it).
"""
# test-case-name: tests.test_supervisor_end_to_end

import os
import signal
import socket

import pytest

from nimbus_process import free_port
from supervisor_process import SupervisorProcess
from test_supervisor_daemon import dev_nimbus, supervisor_summaries  # noqa: F401 (a fixture)
from test_worker_process import MSGPACK_SERIALIZER, submit
from worker_topologies import (
    CORPUS, STORM_PY_SCRIPTS, WORD_COUNT_SCRIPTS, expected_counts, final_counts,
    storm_py_or_skip, word_count, word_count_jar)
from pynimbus.common import local_dirs
from pynimbus.generated.storm.ttypes import KillOptions
from pynimbus.supervisor import daemon, worker_dirs
from pynimbus.supervisor.daemon import process_alive
from pynimbus.thrift.client import NimbusClient

# tens of seconds (tox -e slow, which CI runs, not the default run)
pytestmark = pytest.mark.slow


def listening(port):
    with socket.socket() as s:
        s.settimeout(1.0)
        return s.connect_ex(("127.0.0.1", port)) == 0


def worker_pids_of(local_dir):
    conf = {"storm.local.dir": local_dir}
    return {pid for worker_id in worker_dirs.worker_ids(conf)
            for pid in worker_dirs.worker_pids(conf, worker_id)}


def two_supervisors(dev_nimbus, tmp_path, **env):
    """Two supervisors of one slot each, not started; their workers (and so the multilang
    children) get ``env`` and the word count's output files under ``tmp_path``."""
    options = ["supervisor.monitor.frequency.secs=1", "supervisor.worker.shutdown.sleep.secs=1",
               "supervisor.heartbeat.frequency.secs=1"]
    env = dict(env, WORDCOUNT_OUTPUT=str(tmp_path / "counts.txt"),
               WORDCOUNT_ACKED=str(tmp_path / "acked.txt"))
    return [SupervisorProcess(tmp_path / name, dev_nimbus.local_dir, dev_nimbus.port,
                              ports=[free_port()], options=options, env=env)
            for name in ("sup-a", "sup-b")]


def start_and_list(supervisors, nimbus_port, wait_until):
    for supervisor in supervisors:
        supervisor.start()
    wait_until(lambda: len(supervisor_summaries(nimbus_port)) == len(supervisors), timeout=30,
               what="both supervisors listed")


def acked_ids(path):
    """The message ids the word count's spout appended to ``$WORDCOUNT_ACKED``, sorted."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return sorted(int(line) for line in f)


def kill_and_wait_gone(nimbus_port, supervisors, storm_id, seen_pids, wait_until):
    """killTopology, then every worker and code directory removed and every process in
    ``seen_pids`` (workers and multilang children) gone."""
    with NimbusClient("127.0.0.1", nimbus_port, timeout=10) as client:
        client.killTopologyWithOpts("wc", KillOptions(wait_secs=0))

    def all_gone():
        return all(worker_dirs.worker_ids({"storm.local.dir": s.local_dir}) == [] and
                   not os.path.exists(local_dirs.supervisor_stormdist_root(
                       {"storm.local.dir": s.local_dir}, storm_id))
                   for s in supervisors)
    wait_until(all_gone, timeout=60, what="every worker and code dir removed")
    wait_until(lambda: not any(process_alive(pid) for pid in seen_pids), timeout=30,
               what="every worker and multilang child process gone")


def stop_all(supervisors, seen_pids):
    """Stop the supervisors and SIGKILL any worker or child a failed test left behind."""
    for supervisor in supervisors:
        supervisor.stop()
    for pid in seen_pids | set().union(*(worker_pids_of(s.local_dir) for s in supervisors)):
        daemon.send_signal(pid, signal.SIGKILL)


def test_supervisors_run_restart_and_kill_a_topologys_workers(dev_nimbus, tmp_path,
                                                              wait_until):
    """Two ``pynimbus supervisor`` processes run the word count's two workers (their ports
    listen, the counts are exact), a worker killed with SIGKILL is launched again, and after
    killTopology no worker or multilang child is left and every worker and code directory is
    gone."""
    output = str(tmp_path / "counts.txt")
    supervisors = two_supervisors(dev_nimbus, tmp_path)
    seen_pids = set()
    try:
        start_and_list(supervisors, dev_nimbus.port, wait_until)
        with NimbusClient("127.0.0.1", dev_nimbus.port, timeout=10) as client:
            storm_id = submit(client, "wc", word_count_jar(), word_count(),
                              {"topology.workers": 2})
        ports = [s.ports[0] for s in supervisors]

        def all_listening():
            seen_pids.update(*(worker_pids_of(s.local_dir) for s in supervisors))
            return all(listening(port) for port in ports)
        wait_until(all_listening, timeout=90, what="both workers' ports listening:\n%s" % (
            "\n".join(s.log_tail() for s in supervisors)))
        wait_until(lambda: final_counts(output)[0] == expected_counts(), timeout=60,
                   what="exact word counts from the supervised workers")

        # kill -9 of one worker: its supervisor launches another
        conf_a = {"storm.local.dir": supervisors[0].local_dir}
        [old_id] = worker_dirs.worker_ids(conf_a)
        [worker_pid] = [pid for pid in worker_dirs.worker_pids(conf_a, old_id)
                        if b"pynimbus.worker" in open("/proc/%d/cmdline" % pid, "rb").read()]
        os.kill(worker_pid, signal.SIGKILL)

        def relaunched():
            seen_pids.update(worker_pids_of(supervisors[0].local_dir))
            ids = worker_dirs.worker_ids(conf_a)
            return ids and old_id not in ids and listening(ports[0])
        wait_until(relaunched, timeout=90, what="a new worker on the killed one's port")

        kill_and_wait_gone(dev_nimbus.port, supervisors, storm_id, seen_pids, wait_until)
        assert not any(listening(port) for port in ports)
    finally:
        stop_all(supervisors, seen_pids)


def msgpack_word_count():
    """The pystorm word count with pystorm's msgpack serializer on both sides."""
    return (word_count_jar(), word_count(),
            {"topology.multilang.serializer": MSGPACK_SERIALIZER},
            {"MULTILANG_TEST_SERIALIZER": "msgpack"})


def storm_py_word_count():
    """The word count with its spout and bolts written against Storm's storm.py (JSON, the
    only serializer storm.py speaks); skips the test where Maven cannot serve
    multilang-python."""
    jar = word_count_jar(scripts=WORD_COUNT_SCRIPTS + STORM_PY_SCRIPTS,
                         files={"storm.py": storm_py_or_skip()})
    topology = word_count(spout_script="wc_storm_py_sentence_spout.py",
                          split_script="wc_storm_py_split_bolt.py",
                          count_script="wc_storm_py_count_bolt.py")
    return jar, topology, {}, {}


@pytest.mark.parametrize("make_word_count", [msgpack_word_count, storm_py_word_count],
                         ids=["pystorm-msgpack", "storm.py"])
def test_supervisors_count_every_word_exactly(dev_nimbus, tmp_path, wait_until,
                                              make_word_count):
    """On two supervisors' workers, acking on, the word count counts every word exactly, each
    word on one task, every sentence is acked and no component reports an error: with
    pystorm's msgpack serializer, and with a spout and bolts written against Storm's own
    storm.py."""
    jar, topology, topo_conf, env = make_word_count()
    supervisors = two_supervisors(dev_nimbus, tmp_path, **env)
    output, acked = str(tmp_path / "counts.txt"), str(tmp_path / "acked.txt")
    seen_pids = set()
    try:
        start_and_list(supervisors, dev_nimbus.port, wait_until)
        with NimbusClient("127.0.0.1", dev_nimbus.port, timeout=10) as client:
            storm_id = submit(client, "wc", jar, topology, dict(topo_conf, **{
                "topology.workers": 2, "topology.acker.executors": 2}))

        def counted():
            seen_pids.update(*(worker_pids_of(s.local_dir) for s in supervisors))
            return final_counts(output)[0] == expected_counts()
        wait_until(counted, timeout=90, what="exact word counts from the supervised workers:\n"
                   + "\n".join(s.log_tail() for s in supervisors))
        assert all(len(tasks) == 1 for tasks in final_counts(output)[1].values())
        wait_until(lambda: acked_ids(acked) == list(range(len(CORPUS))), timeout=60,
                   what="every sentence acked once")
        # both supervisors ran a worker of it
        assert all(worker_pids_of(s.local_dir) for s in supervisors)
        with NimbusClient("127.0.0.1", dev_nimbus.port, timeout=10) as client:
            assert not any(client.getTopologyInfo(storm_id).errors.values())
        kill_and_wait_gone(dev_nimbus.port, supervisors, storm_id, seen_pids, wait_until)
    finally:
        stop_all(supervisors, seen_pids)
