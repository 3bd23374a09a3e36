"""``pynimbus submit`` of streamparse projects to a ``pynimbus dev`` whose own supervisor runs
them: the ``sparse quickstart`` word count unchanged, and a finite-corpus word count whose
counts must come out exact.  Components run inside the worker (pynimbus.worker.inprocess, the
default: no child process), or with ``pynimbus.worker.inprocess=false`` through the multilang
subprocess path: ``streamparse_run`` from the worker's ``PATH``, on which dev put its own
virtualenv's bin directory."""

import glob
import json
import os
import signal
import subprocess
import sys

import pytest

from nimbus_process import NimbusProcess, free_port
from sparse_projects import expected_counts, final_counts, finite_word_count, quickstart
from pynimbus_path import child_env
from pynimbus.generated.storm.ttypes import KillOptions
from pynimbus.supervisor import worker_dirs
from pynimbus.supervisor.daemon import process_alive, send_signal
from pynimbus.thrift.client import NimbusClient

VENV_BIN = os.path.dirname(sys.executable)  # where pip put streamparse_run


def submit_cli(dev, root, topology, *options):
    """`pynimbus submit topology --nimbus dev --wait options...` in ``root``: (code, out, err)."""
    done = subprocess.run(
        [sys.executable, "-m", "pynimbus.cli", "submit", topology,
         "--nimbus", "127.0.0.1:%d" % dev.port, "--wait", "--wait-timeout", "180"]
        + list(options), cwd=root, capture_output=True, text=True, timeout=300,
        env=child_env())
    return done.returncode, done.stdout, done.stderr


@pytest.fixture(scope="module")
def dev(tmp_path_factory):
    """`pynimbus dev` with its own supervisor on two slots, started with the virtualenv's bin
    directory not on PATH (a virtualenv not activated: dev puts it there for its workers);
    every pid seen is gone after."""
    local = tmp_path_factory.mktemp("dev")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PATH", os.pathsep.join(
            d for d in os.environ.get("PATH", "").split(os.pathsep)
            if os.path.abspath(d) != VENV_BIN))
        proc = NimbusProcess(local, dev_supervisor=True, options=[
            "supervisor.slots.ports=[%d, %d]" % (free_port(), free_port()),
            "nimbus.monitor.freq.secs=1", "supervisor.monitor.frequency.secs=1",
            "supervisor.heartbeat.frequency.secs=1", "supervisor.worker.shutdown.sleep.secs=1"])
        proc.start(timeout=60)
    proc.conf = {"storm.local.dir": str(local)}
    proc.seen_pids = set()
    try:
        yield proc
        assert proc.stop(timeout=60) == 0, proc.log_tail()
    finally:
        proc.kill()
        for pid in proc.seen_pids:  # leave nothing behind, whatever failed
            if process_alive(pid):
                send_signal(pid, signal.SIGKILL)


def worker_commands(dev):
    """The argv of every live process in the dev's workers' pid directories."""
    commands = []
    for worker_id in worker_dirs.worker_ids(dev.conf):
        for pid in worker_dirs.worker_pids(dev.conf, worker_id):
            dev.seen_pids.add(pid)
            try:
                with open("/proc/%d/cmdline" % pid, "rb") as f:
                    commands.append(f.read().decode().rstrip("\0").split("\0"))
            except OSError:
                pass
    return commands


def worker_log_text(dev):
    text = []
    for path in glob.glob(os.path.join(dev.local_dir, "logs", "workers-artifacts", "*", "*",
                                       "worker.log")):
        with open(path, errors="replace") as f:
            text.append(f.read())
    return "\n".join(text)


def kill(dev, name, wait_until):
    with NimbusClient("127.0.0.1", dev.port, timeout=10) as client:
        client.killTopologyWithOpts(name, KillOptions(wait_secs=0))

    def gone():
        with NimbusClient("127.0.0.1", dev.port, timeout=10) as client:
            return name not in [t.name for t in client.getClusterInfo().topologies]
    wait_until(gone, timeout=60, what="%s removed" % name)


def test_the_quickstart_word_count_runs_in_process(dev, tmp_path, wait_until):
    """The project `sparse quickstart` generates, submitted as is: --wait returns once every
    executor beats, its spout and bolts run inside the worker (no streamparse_run process, no
    pid in the workers' pids dirs but the workers'), and the count bolt logs its running
    totals to the worker log."""
    root = quickstart(tmp_path)
    code, out, err = submit_cli(dev, root, "topologies/wordcount.py")
    assert code == 0, err + dev.log_tail()
    assert "Topology wordcount is running: " in out
    commands = worker_commands(dev)
    assert commands and all("pynimbus.worker" in command for command in commands), commands
    assert children_of(dev.seen_pids) == []
    log = worker_log_text(dev)
    for component in ("count_bolt", "word_spout"):
        assert "component %s runs in process" % component in log
    wait_until(lambda: "counted [1,000] words" in worker_log_text(dev), timeout=120,
               what="the count bolt's running total")
    kill(dev, "wordcount", wait_until)


def children_of(pids):
    """The live processes whose parent is one of ``pids``, as ``(pid, command line)``."""
    children = []
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/stat" % name) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open("/proc/%s/cmdline" % name, "rb") as f:
                command = f.read().decode("utf-8", "replace").replace("\0", " ")
        except OSError:
            continue
        if ppid in pids:
            children.append((int(name), command))
    return children


def test_the_quickstart_word_count_runs_as_subprocesses(dev, tmp_path, wait_until):
    """The same project with pynimbus.worker.inprocess=false: its spout and bolts run as the
    virtualenv's streamparse_run, and the count bolt logs its running totals."""
    root = quickstart(tmp_path)
    code, out, err = submit_cli(dev, root, "topologies/wordcount.py",
                                "-c", "pynimbus.worker.inprocess=false")
    assert code == 0, err + dev.log_tail()
    assert "Topology wordcount is running: " in out
    streamparse_run = os.path.join(VENV_BIN, "streamparse_run")
    scripts = sorted(" ".join(c[c.index(streamparse_run) + 1:])
                     for c in worker_commands(dev) if streamparse_run in c)
    assert scripts == ["-s json bolts.wordcount.WordCountBolt"] * 2 + [
        "-s json spouts.words.WordSpout"]
    wait_until(lambda: "counted [1,000] words" in worker_log_text(dev), timeout=120,
               what="the count bolt's running total")
    kill(dev, "wordcount", wait_until)


@pytest.mark.parametrize("inprocess", [True, False])
def test_a_finite_corpus_is_counted_exactly(dev, tmp_path, wait_until, inprocess):
    """Every word of the corpus, emitted once with a message id and counted by two tasks on a
    fields grouping, ends with its exact count, in process and as subprocesses."""
    root = finite_word_count(tmp_path, package="e2e")
    output = tmp_path / "counts.txt"
    code, out, err = submit_cli(dev, root, "topologies/e2e_count.py", "--name", "finite",
                                "-c", "wordcount.output=%s" % output,
                                "-c", "pynimbus.worker.inprocess=%s" % json.dumps(inprocess))
    assert code == 0, err + dev.log_tail()
    children = [c for c in worker_commands(dev) if "pynimbus.worker" not in c]
    assert bool(children) is not inprocess, children
    wait_until(lambda: final_counts(str(output)) == expected_counts(), timeout=180,
               what="exact counts:\n%s" % dev.log_tail())
    kill(dev, "finite", wait_until)
