"""``pynimbus dev`` is a whole cluster: its own Python supervisor runs what is submitted.

README's run command starts ``pynimbus dev``; with ``pynimbus.dev.supervisor`` (the default) it
registers one supervisor on ``supervisor.slots.ports`` beside Nimbus, so the pystorm word count
of :mod:`worker_topologies` runs on two workers with exact counts, and stopping dev stops every
worker and multilang child with it.
"""

import signal
import socket

import pytest

from nimbus_process import NimbusDidNotStart, NimbusProcess, free_port
from test_worker_process import submit
from worker_topologies import expected_counts, final_counts, word_count, word_count_jar
from pynimbus.supervisor import worker_dirs
from pynimbus.supervisor.daemon import process_alive, send_signal
from pynimbus.thrift.client import NimbusClient


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_dev_runs_a_submitted_topology_and_stops_its_workers(tmp_path, monkeypatch, wait_until,
                                                             compat):
    """Submitted to a bare `pynimbus dev`, the word count counts every word exactly on dev's
    own supervisor; SIGTERM stops dev with code 0 and leaves no worker or multilang child.
    In 2.x mode too, where Nimbus pushes to the supervisor's Thrift service and the
    supervisor reports its workers' heartbeats over RPC."""
    output = tmp_path / "counts.txt"
    monkeypatch.setenv("WORDCOUNT_OUTPUT", str(output))
    monkeypatch.setenv("WORDCOUNT_ACKED", str(tmp_path / "acked.txt"))
    ports = [free_port(), free_port()]
    local = tmp_path / "dev"
    local.mkdir()
    generation = ["pynimbus.storm.compat=2.x", "supervisor.thrift.port=%d" % free_port()] \
        if compat == "2.x" else []
    dev = NimbusProcess(local, dev_supervisor=True, options=[
        "supervisor.slots.ports=[%d, %d]" % tuple(ports), "nimbus.monitor.freq.secs=1",
        "supervisor.monitor.frequency.secs=1", "supervisor.heartbeat.frequency.secs=1",
        "supervisor.worker.shutdown.sleep.secs=1"] + generation)
    dev.start(timeout=60)
    conf = {"storm.local.dir": str(local)}
    seen_pids = set()
    try:
        def supervisor_slots():
            with NimbusClient("127.0.0.1", dev.port, timeout=10) as client:
                return [s.num_workers for s in client.getClusterInfo().supervisors]
        wait_until(lambda: supervisor_slots() == [2], timeout=30, what="dev's supervisor")
        with NimbusClient("127.0.0.1", dev.port, timeout=10) as client:
            submit(client, "wc", word_count_jar(), word_count(), {"topology.workers": 2})

        def counted():
            seen_pids.update(pid for w in worker_dirs.worker_ids(conf)
                             for pid in worker_dirs.worker_pids(conf, w))
            return output.exists() and final_counts(str(output))[0] == expected_counts()
        wait_until(counted, timeout=120, what="exact counts from dev's workers:\n%s"
                   % dev.log_tail())
        assert len(worker_dirs.worker_ids(conf)) == 2
        assert dev.stop(timeout=30) == 0, dev.log_tail()
        assert seen_pids and not any(process_alive(pid) for pid in seen_pids)
        assert worker_dirs.worker_ids(conf) == []
    finally:
        dev.kill()
        for pid in seen_pids:  # leave nothing behind, whatever failed
            if process_alive(pid):
                send_signal(pid, signal.SIGKILL)


@pytest.mark.parametrize("taken", ["slot", "nimbus"])
def test_a_dev_whose_ports_are_taken_says_which_at_start_and_exits_1(tmp_path, taken):
    """Another program holds one of dev's ports (a second dev would): dev exits 1 at start,
    its log naming the port, its setting and how to choose another."""
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen(1)
    held = holder.getsockname()[1]
    slot = held if taken == "slot" else free_port()
    nimbus_port = held if taken == "nimbus" else free_port()
    try:
        dev = NimbusProcess(tmp_path, port=nimbus_port, dev_supervisor=True,
                            options=["supervisor.slots.ports=[%d]" % slot])
        with pytest.raises(NimbusDidNotStart):
            dev.start(timeout=60)
        assert dev.process.returncode == 1
    finally:
        holder.close()
    if taken == "slot":
        setting, example = "supervisor.slots.ports", "'supervisor.slots.ports=[%d]'" % (held + 10)
    else:
        setting, example = "nimbus.thrift.port", "nimbus.thrift.port=%d" % (held + 1)
    said = ("Port %d on 127.0.0.1 (%s) is in use (Address already in use): is another "
            "pynimbus dev, Nimbus or Storm daemon running? Stop it, or choose other ports with "
            "-c %s" % (held, setting, example))
    assert said in dev.log_tail(), dev.log_tail()
