"""The endless multilang word count on a bare ``pynimbus dev`` (its own supervisor, one slot),
for the tests of what a running worker writes beside its log: ``events.log`` and
``worker.log.metrics`` (tests/test_worker_eventlogger.py, tests/test_worker_metrics.py).

:func:`word_count_on_dev` starts dev, submits the word count (``wc_endless_spout.py`` paced at
``wordcount.sentences.per.sec``) with the given conf and ``{name: bytes}`` of extra files in
the jar's resources, on ``workers`` workers, waits until it counts, and yields a
:class:`RunningWordCount`; dev and every worker it started are stopped after."""

import contextlib
import os
import signal

from nimbus_process import NimbusProcess, free_port
from test_worker_process import submit
from worker_topologies import WORD_COUNT_SCRIPTS, word_count, word_count_jar
from pynimbus.supervisor import worker_dirs
from pynimbus.supervisor.daemon import process_alive, send_signal
from pynimbus.thrift.client import NimbusClient

START_SECS = 120


class RunningWordCount(object):
    def __init__(self, dev, local, storm_id, ports, output):
        self.dev = dev
        self.output = output
        self.local = local
        self.storm_id = storm_id
        self.ports = ports

    def artifacts_dir(self, port):
        return os.path.join(self.local, "logs", "workers-artifacts", self.storm_id, str(port))

    def counted(self):
        """Words the count bolt counted so far (lines it appended to its output)."""
        try:
            with open(self.output) as f:
                return sum(1 for _ in f)
        except FileNotFoundError:
            return 0

    def client(self):
        return NimbusClient("127.0.0.1", self.dev.port, timeout=10)

    def artifact(self, name):
        """The text of a file in the workers' artifacts directories, one worker after the
        other ("" while there is none)."""
        text = ""
        for port in self.ports:
            try:
                with open(os.path.join(self.artifacts_dir(port), name), encoding="utf-8") as f:
                    text += f.read()
            except FileNotFoundError:
                pass
        return text

    def worker_log(self):
        return self.artifact("worker.log")

    def errors(self):
        """``{component: [error text]}`` of the topology's errors (getTopologyInfo)."""
        with self.client() as client:
            info = client.getTopologyInfo(self.storm_id)
        return {component: [e.error for e in errors]
                for component, errors in (info.errors or {}).items() if errors}


@contextlib.contextmanager
def word_count_on_dev(tmp_path, monkeypatch, wait_until, name, conf, files=None, workers=1):
    output = str(tmp_path / "counts.txt")
    monkeypatch.setenv("WORDCOUNT_OUTPUT", output)  # dev's workers inherit its environment
    monkeypatch.setenv("WORDCOUNT_ACKED", str(tmp_path / "acked.txt"))
    ports = [free_port() for _ in range(workers)]
    local = str(tmp_path / "dev")
    os.makedirs(local)
    dev = NimbusProcess(local, dev_supervisor=True, options=[
        "supervisor.slots.ports=%s" % ports, "nimbus.monitor.freq.secs=1",
        "supervisor.monitor.frequency.secs=1", "supervisor.heartbeat.frequency.secs=1",
        "supervisor.worker.shutdown.sleep.secs=1"])
    dev.start(timeout=60)
    seen_pids = set()
    try:
        def supervisor_slots():
            with NimbusClient("127.0.0.1", dev.port, timeout=10) as client:
                return [s.num_workers for s in client.getClusterInfo().supervisors]
        wait_until(lambda: supervisor_slots() == [workers], timeout=60,
                   what="dev's supervisor")
        topo_conf = {"topology.workers": workers, "task.refresh.poll.secs": 1,
                     "wordcount.sentences.per.sec": 50}
        topo_conf.update(conf)
        with NimbusClient("127.0.0.1", dev.port, timeout=10) as client:
            storm_id = submit(client, name, word_count_jar(
                scripts=WORD_COUNT_SCRIPTS + ("wc_endless_spout.py",),
                files=files), word_count(spout_script="wc_endless_spout.py"), topo_conf)
        running = RunningWordCount(dev, local, storm_id, ports, output)
        wait_until(lambda: running.counted() > 0, timeout=START_SECS, interval=0.5,
                   what="the word count to count:\n%s" % dev.log_tail())
        yield running
    finally:
        conf_dir = {"storm.local.dir": local}
        seen_pids.update(pid for w in worker_dirs.worker_ids(conf_dir)
                         for pid in worker_dirs.worker_pids(conf_dir, w))
        dev.kill()
        for pid in seen_pids:  # leave nothing behind, whatever failed
            if process_alive(pid):
                send_signal(pid, signal.SIGKILL)
