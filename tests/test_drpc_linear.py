"""Linear DRPC topologies built by the Python ``LinearDRPCTopologyBuilder`` on ``pynimbus
dev``'s Python workers, answering through its DRPC server: storm-starter's BasicDRPCTopology
and ReachTopology (tests/drpc_programs/basic_drpc.py, reach.py), both submitted to one dev
cluster, asked with :class:`pynimbus.drpc.DRPCClient`; and BasicDRPCTopology once more with
its components as multilang subprocesses (``pynimbus.worker.inprocess: false``), answering
another function name (the function is the topology conf's ``pynimbus.drpc.function``)."""

import glob
import os
import shutil
import subprocess
import sys
import threading

import pytest

from nimbus_process import NimbusProcess, free_port
from pynimbus.drpc import DRPCClient
from pynimbus.generated.storm.ttypes import KillOptions
from pynimbus.thrift.client import NimbusClient
from pynimbus_path import child_env

PROGRAMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "drpc_programs")
TOPOLOGIES = (("basic_drpc:BasicDRPCTopology", "basic-drpc", ()),
              ("reach:ReachTopology", "reach-drpc", ()),
              ("basic_drpc:BasicDRPCTopology", "basic-drpc-multilang",
               ("-c", "pynimbus.worker.inprocess=false",
                "-c", "pynimbus.drpc.function=exclamation-multilang")))


def submit(dev, project, program, name, options):
    result = subprocess.run(
        [sys.executable, "-m", "pynimbus.cli", "submit", program, "--name", name,
         "--nimbus", "127.0.0.1:%d" % dev.port, "--wait"] + list(options),
        cwd=str(project), env=child_env(), capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stdout + result.stderr + dev.log_tail()


@pytest.fixture(scope="module")
def dev(tmp_path_factory):
    """One dev cluster (a worker slot per topology) running the topologies, submitted from
    one streamparse project holding both programs in ``src/``."""
    local = tmp_path_factory.mktemp("drpc-linear-dev")
    nimbus = NimbusProcess(local, dev_supervisor=True, drpc=True, options=[
        "supervisor.slots.ports=[%s]" % ",".join(str(free_port()) for _ in TOPOLOGIES),
        "nimbus.monitor.freq.secs=1", "supervisor.monitor.frequency.secs=1",
        "supervisor.heartbeat.frequency.secs=1", "drpc.request.timeout.secs=60"])
    nimbus.start(timeout=60)
    try:
        project = tmp_path_factory.mktemp("drpc-linear-project")
        (project / "src").mkdir()
        for module in ("basic_drpc", "reach"):
            shutil.copy(os.path.join(PROGRAMS, module + ".py"), str(project / "src"))
        for program, name, options in TOPOLOGIES:
            submit(nimbus, project, program, name, options)
        yield nimbus
    finally:
        try:
            with NimbusClient("127.0.0.1", nimbus.port, timeout=10) as client:
                for _, name, _ in TOPOLOGIES:
                    client.killTopologyWithOpts(name, KillOptions(wait_secs=0))
        finally:
            nimbus.stop()


def worker_log_text(dev, topology):
    """The worker logs of ``topology`` (its storm id starts with its name)."""
    text = []
    for path in glob.glob(os.path.join(dev.local_dir, "logs", "workers-artifacts",
                                       topology + "-*", "*", "worker.log")):
        with open(path, errors="replace") as f:
            text.append(f.read())
    return "\n".join(text)


def ask_together(dev, calls):
    """``{(function, args): answer}`` of ``calls`` asked at once, each on its own client."""
    answers = {}

    def ask(function, args):
        with DRPCClient("127.0.0.1", dev.drpc_port, timeout=60) as client:
            answers[(function, args)] = client.execute(function, args)
    threads = [threading.Thread(target=ask, args=call) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(90)
    return answers


def test_basic_drpc_topology_answers_through_pynimbus_drpc(dev):
    with DRPCClient("127.0.0.1", dev.drpc_port, timeout=60) as client:
        assert client.execute("exclamation", "hello") == "hello!"
        assert client.execute("exclamation", "goodbye") == "goodbye!"
    words = ["w%d" % n for n in range(6)]
    assert ask_together(dev, [("exclamation", w) for w in words]) == {
        ("exclamation", w): w + "!" for w in words}


def test_reach_topology_answers_through_pynimbus_drpc(dev):
    with DRPCClient("127.0.0.1", dev.drpc_port, timeout=60) as client:
        assert client.execute("reach", "engineering.twitter.com/blog/5") == "14"
        assert client.execute("reach", "foo.com/blog/1") == "16"
        assert client.execute("reach", "notaurl.com") == "0"
    urls = {"foo.com/blog/1": "16", "engineering.twitter.com/blog/5": "14",
            "tech.backtype.com/blog/123": "7", "notaurl.com": "0"}
    assert ask_together(dev, [("reach", url) for url in urls]) == {
        ("reach", url): reach for url, reach in urls.items()}
    # every component ran inside the Python worker (no multilang subprocess)
    log = worker_log_text(dev, "reach-drpc")
    for component in ("spout", "prepare-request", "bolt0", "bolt1", "bolt2", "bolt3", "bolt4",
                      "bolt5"):
        assert "component %s runs in process" % component in log
    assert "multilang subprocess" not in log


def test_coordinated_bolts_run_as_multilang_subprocesses_too(dev):
    with DRPCClient("127.0.0.1", dev.drpc_port, timeout=60) as client:
        assert client.execute("exclamation-multilang", "hello") == "hello!"
    words = ["m%d" % n for n in range(4)]
    assert ask_together(dev, [("exclamation-multilang", w) for w in words]) == {
        ("exclamation-multilang", w): w + "!" for w in words}
    # the cluster's multilang children: three tasks of the coordinated bolt among them
    children = []
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            cwd = os.readlink("/proc/%s/cwd" % name)
            with open("/proc/%s/cmdline" % name, "rb") as f:
                command = f.read().decode("utf-8", "replace").rstrip("\0").split("\0")
        except OSError:
            continue
        if cwd.startswith(str(dev.local_dir)) and any("streamparse_run" in a for a in command):
            children.append(command[-1])
    assert sorted(children) == sorted(
        ["pynimbus.drpc.linear.CoordinatedBolt"] * 3 + [
            "pynimbus.drpc.components.DRPCSpout", "pynimbus.drpc.linear.PrepareRequest",
            "pynimbus.drpc.linear.JoinResult", "pynimbus.drpc.components.ReturnResults"])
