"""A worker that cannot start is seen where a user looks, and its restarts back off.

A `pynimbus dev` with its own supervisor on one slot; before the submission another program
takes the slot's port (a listening socket on 127.0.0.1, where dev's workers bind), so every
worker launched for the topology fails at start.  Within 30 s the failure is in
``getTopologyInfo``'s errors and in ``pynimbus status`` / ``list``, naming the exception and
the worker's log; the supervisor launches again after 0, 2, 4, 8 s (measured from its own log)
and logs each death once; once the port is free the topology runs.
"""

import datetime
import glob
import os
import re
import signal
import socket
import subprocess
import sys

import pytest

from nimbus_process import NimbusProcess, free_port
from sparse_projects import quickstart
from pynimbus_path import child_env
from pynimbus.generated.storm.ttypes import KillOptions
from pynimbus.supervisor import worker_dirs
from pynimbus.supervisor.daemon import process_alive, send_signal
from pynimbus.thrift.client import NimbusClient

# tens of seconds (tox -e slow, which CI runs, not the default run)
pytestmark = pytest.mark.slow

LAUNCHED = re.compile(r"^(\S+ \S+) INFO pynimbus\.supervisor\.daemon: Launching worker \S+ of "
                      r"(\S+) on port (\d+) ", re.M)
RUN_SECS = 120


def cli(*argv, cwd):
    done = subprocess.run([sys.executable, "-m", "pynimbus.cli"] + list(argv), cwd=str(cwd),
                          capture_output=True, text=True, timeout=60, env=child_env())
    return done.returncode, done.stdout, done.stderr


def launch_times(log_text, port):
    """When the supervisor launched a worker on ``port``, in seconds, in order."""
    return [datetime.datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S,%f").timestamp()
            for stamp, _storm_id, launched_port in LAUNCHED.findall(log_text)
            if int(launched_port) == port]


def started_dev(local, log_level="INFO"):
    """`pynimbus dev` with its own supervisor on one free slot, syncing every second."""
    local.mkdir()
    slot = free_port()
    proc = NimbusProcess(local, dev_supervisor=True, log_level=log_level, options=[
        "supervisor.slots.ports=[%d]" % slot, "nimbus.monitor.freq.secs=1",
        "supervisor.monitor.frequency.secs=1", "supervisor.heartbeat.frequency.secs=1",
        "supervisor.worker.shutdown.sleep.secs=1"])
    proc.start(timeout=60)
    proc.slot = slot
    return proc


def stopped(proc):
    """Stop dev (asserting a clean exit) and any worker it left."""
    try:
        assert proc.stop(timeout=60) == 0, proc.log_tail()
    finally:
        proc.kill()
        conf = {"storm.local.dir": proc.local_dir}
        for worker_id in worker_dirs.worker_ids(conf):
            for pid in worker_dirs.worker_pids(conf, worker_id):
                if process_alive(pid):
                    send_signal(pid, signal.SIGKILL)


@pytest.fixture
def dev(tmp_path):
    proc = started_dev(tmp_path / "dev")
    yield proc
    stopped(proc)


@pytest.fixture
def debug_dev(tmp_path):
    """The same at DEBUG: its log shows every sync's decisions."""
    proc = started_dev(tmp_path / "dev", log_level="DEBUG")
    yield proc
    stopped(proc)


def dev_log(dev):
    with open(dev.log_path, errors="replace") as f:
        return f.read()


def errors_of(dev, name):
    """``[ErrorInfo]`` of every component of the topology ``name``, newest first."""
    with NimbusClient("127.0.0.1", dev.port, timeout=10) as client:
        [storm_id] = [t.id for t in client.getClusterInfo().topologies if t.name == name]
        info = client.getTopologyInfo(storm_id)
    found = [e for errors in (info.errors or {}).values() for e in errors or ()]
    return sorted(found, key=lambda e: -e.error_time_secs)


def executors_beating(dev, name):
    with NimbusClient("127.0.0.1", dev.port, timeout=10) as client:
        [storm_id] = [t.id for t in client.getClusterInfo().topologies if t.name == name]
        executors = client.getTopologyInfo(storm_id).executors or []
    return executors and all(e.stats is not None for e in executors)


def test_a_worker_that_cannot_start_is_reported_and_its_restarts_back_off(
        dev, tmp_path, wait_until):
    holder = socket.socket()
    holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    holder.bind(("127.0.0.1", dev.slot))
    holder.listen(1)
    try:
        root = quickstart(tmp_path)
        code, out, err = cli("submit", "topologies/wordcount.py",
                             "--nimbus", "127.0.0.1:%d" % dev.port, cwd=root)
        assert code == 0, err + dev.log_tail()

        wait_until(lambda: errors_of(dev, "wordcount"), timeout=30,
                   what="the worker's failure among the topology's errors")
        error = errors_of(dev, "wordcount")[0]
        assert (error.host, error.port) == ("localhost", dev.slot)
        match = re.fullmatch(
            r"Worker on localhost:%d exited with code 1 after \d+ s: "
            r"twisted\.internet\.error\.CannotListenError: Couldn't listen on "
            r"127\.0\.0\.1:%d: \[Errno 98\] Address already in use\. "
            r"\(worker log: (\S+)\)" % (dev.slot, dev.slot), error.error)
        assert match, error.error
        assert os.path.isfile(match.group(1))

        code, out, err = cli("status", "wordcount", "--nimbus", "127.0.0.1:%d" % dev.port,
                             cwd=tmp_path)
        assert code == 0, err
        assert "Errors (" in out and "CannotListenError" in out, out
        code, out, err = cli("list", "--nimbus", "127.0.0.1:%d" % dev.port, cwd=tmp_path)
        assert code == 0, err
        assert "Newest errors" in out and "wordcount: count_bolt " in out, out

        # five launches: delays of 0, 2, 4 and 8 s after the deaths between them
        wait_until(lambda: len(launch_times(dev_log(dev), dev.slot)) >= 5, timeout=RUN_SECS,
                   interval=0.2, what="five launches on the slot")
        launches = launch_times(dev_log(dev), dev.slot)[:5]
        gaps = [b - a for a, b in zip(launches, launches[1:])]
        for gap, delay in zip(gaps, [0, 2, 4, 8]):
            assert gap >= delay, gaps
        assert gaps[3] > gaps[0] + 4, gaps
        log = dev_log(dev)
        deaths = re.findall(r"worker \S+ exited with code 1 after \d+ s \(its log: ", log)
        assert 4 <= len(deaths) <= len(launch_times(log, dev.slot)), log
        with open(match.group(1), errors="replace") as f:
            worker_log = f.read()
        assert worker_log.count("Traceback") == worker_log.count("worker failed to start")
    finally:
        holder.close()

    # the port free again: the next launch runs the topology
    wait_until(lambda: executors_beating(dev, "wordcount"), timeout=RUN_SECS, interval=0.5,
               what="the topology running once its port is free")
    with NimbusClient("127.0.0.1", dev.port, timeout=10) as client:
        client.killTopologyWithOpts("wordcount", KillOptions(wait_secs=0))


def test_a_crashing_bolts_restarts_back_off_and_each_crash_logs_one_traceback(
        dev, tmp_path, wait_until):
    """The quickstart with a count bolt that raises on every word: its worker dies (code 11)
    about a second after each start; the supervisor starts it again after 0, 2 and 4 s, the
    bolt's error (its exception, not the worker's exit) is in getTopologyInfo, and the worker
    log holds one traceback per crash of a bolt task, the one its own logger wrote."""
    root = quickstart(tmp_path)
    bolt_file = os.path.join(root, "src", "bolts", "wordcount.py")
    with open(bolt_file) as f:
        text = f.read()
    assert "        word = tup.values[0]\n" in text
    with open(bolt_file, "w") as f:
        f.write(text.replace("        word = tup.values[0]\n",
                             "        raise ValueError('no %s today' % tup.values[0])\n"))
    code, out, err = cli("submit", "topologies/wordcount.py",
                         "--nimbus", "127.0.0.1:%d" % dev.port, cwd=root)
    assert code == 0, err + dev.log_tail()

    wait_until(lambda: len(launch_times(dev_log(dev), dev.slot)) >= 4, timeout=RUN_SECS,
               interval=0.2, what="four launches on the slot")
    launches = launch_times(dev_log(dev), dev.slot)[:4]
    gaps = [b - a for a, b in zip(launches, launches[1:])]
    for gap, delay in zip(gaps, [0, 2, 4]):
        assert gap >= delay, gaps
    assert gaps[2] > gaps[0] + 2, gaps
    errors = errors_of(dev, "wordcount")
    assert errors and all("ValueError: no " in e.error for e in errors), [
        e.error for e in errors]
    assert not [e for e in errors if e.error.startswith("Worker on ")]
    [worker_log] = glob.glob(os.path.join(dev.local_dir, "logs", "workers-artifacts", "*",
                                          str(dev.slot), "worker.log"))
    with open(worker_log, errors="replace") as f:
        logged = f.read()
    crashes = logged.count("Exception in WordCountBolt.run()")
    assert crashes >= 3 and logged.count("Traceback") == crashes, logged
    with NimbusClient("127.0.0.1", dev.port, timeout=10) as client:
        client.killTopologyWithOpts("wordcount", KillOptions(wait_secs=0))


def test_a_zip_bomb_jar_is_refused_once_and_reported(debug_dev, tmp_path, wait_until):
    """A project whose resources hold 2 MB of zeros (about 1000 to 1 in the jar): the
    supervisor refuses the jar, says why in getTopologyInfo (naming the setting that raises
    the limit) once, and through five more syncs neither downloads it again nor launches a
    worker for it."""
    dev = debug_dev
    root = quickstart(tmp_path)
    with open(os.path.join(root, "src", "zeros.bin"), "wb") as f:
        f.write(bytes(2 << 20))
    code, out, err = cli("submit", "topologies/wordcount.py",
                         "--nimbus", "127.0.0.1:%d" % dev.port, cwd=root)
    assert code == 0, err + dev.log_tail()
    wait_until(lambda: errors_of(dev, "wordcount"), timeout=30,
               what="the refusal among the topology's errors")
    errors = errors_of(dev, "wordcount")
    assert len(errors) == 2 and errors[0].error == errors[1].error  # both components
    assert errors[0].error.startswith(
        "Supervisor on localhost refused the topology's code, so port(s) %d will not run it: "
        "the topology's jar entry 'resources/zeros.bin' expands " % dev.slot), errors[0].error
    assert "pynimbus.supervisor.jar.max.ratio" in errors[0].error
    refused_syncs = "port %d does not run wordcount-" % dev.slot
    wait_until(lambda: dev_log(dev).count(refused_syncs) >= 5, timeout=30, interval=0.2,
               what="five syncs with the code refused")
    log = dev_log(dev)
    assert log.count("-stormjar.jar with id") == 1, log
    assert "Launching worker" not in log
    assert len(errors_of(dev, "wordcount")) == 2
    with NimbusClient("127.0.0.1", dev.port, timeout=10) as client:
        client.killTopologyWithOpts("wordcount", KillOptions(wait_secs=0))
