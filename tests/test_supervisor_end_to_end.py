"""``pynimbus supervisor`` processes beside ``pynimbus dev`` run real workers.

Two supervisors share the dev Nimbus's embedded store (one host), the pystorm word count of
:mod:`worker_topologies` is submitted, and the supervisors launch ``python -m pynimbus.worker``
for it: the assigned ports listen, the counts are exact, a worker killed with SIGKILL is launched again, and
``killTopology`` leaves no worker or multilang child and no worker or code directory.
"""
# test-case-name: tests.test_supervisor_end_to_end

import os
import signal
import socket

from nimbus_process import free_port
from supervisor_process import SupervisorProcess
from test_supervisor_daemon import dev_nimbus, supervisor_summaries  # noqa: F401 (a fixture)
from test_worker_process import submit
from worker_topologies import expected_counts, final_counts, word_count, word_count_jar
from pynimbus.client import NimbusClient
from pynimbus.generated.storm.ttypes import KillOptions
from pynimbus.supervisor import code, daemon, worker_dirs
from pynimbus.supervisor.daemon import process_alive


def listening(port):
    with socket.socket() as s:
        s.settimeout(1.0)
        return s.connect_ex(("127.0.0.1", port)) == 0


def worker_pids_of(local_dir):
    conf = {"storm.local.dir": local_dir}
    return {pid for worker_id in worker_dirs.worker_ids(conf)
            for pid in worker_dirs.worker_pids(conf, worker_id)}


def test_supervisors_run_restart_and_kill_a_topologys_workers(dev_nimbus, tmp_path,
                                                                 wait_until):
    """Two ``pynimbus supervisor`` processes run the word count's two workers (their ports
    listen, the counts are exact), a worker killed with SIGKILL is launched again, and after killTopology no worker
    or multilang child is left and every worker and code directory is gone."""
    options = ["supervisor.monitor.frequency.secs=1", "supervisor.worker.shutdown.sleep.secs=1",
               "supervisor.heartbeat.frequency.secs=1"]
    output = str(tmp_path / "counts.txt")
    supervisors = [SupervisorProcess(tmp_path / name, dev_nimbus.local_dir, dev_nimbus.port,
                                     ports=[port], options=options,
                                     env={"WORDCOUNT_OUTPUT": output,
                                          "WORDCOUNT_ACKED": str(tmp_path / "acked.txt")})
                   for name, port in (("sup-a", free_port()),
                                      ("sup-b", free_port()))]
    seen_pids = set()
    try:
        for supervisor in supervisors:
            supervisor.start()
        wait_until(lambda: len(supervisor_summaries(dev_nimbus.port)) == 2, timeout=30,
                   what="both supervisors listed")
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

        with NimbusClient("127.0.0.1", dev_nimbus.port, timeout=10) as client:
            client.killTopologyWithOpts("wc", KillOptions(wait_secs=0))

        def all_gone():
            return all(worker_dirs.worker_ids({"storm.local.dir": s.local_dir}) == [] and
                       not os.path.exists(code.supervisor_stormdist_root(
                           {"storm.local.dir": s.local_dir}, storm_id))
                       for s in supervisors)
        wait_until(all_gone, timeout=60, what="every worker and code dir removed")
        wait_until(lambda: not any(process_alive(pid) for pid in seen_pids), timeout=30,
                   what="every worker and multilang child process gone")
        assert not any(listening(port) for port in ports)
    finally:
        for supervisor in supervisors:
            supervisor.stop()
        for pid in seen_pids | set().union(*(worker_pids_of(s.local_dir) for s in supervisors)):
            daemon.send_signal(pid, signal.SIGKILL)
