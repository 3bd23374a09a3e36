"""DRPC topologies in Python on ``pynimbus dev``'s Python workers, answering through its DRPC
server: storm-starter's ManualDRPC (the DRPC spout, a bolt, the return bolt) in Python."""

import os
import shutil
import subprocess
import sys
import threading

import pytest

from nimbus_process import NimbusProcess
from pynimbus.drpc import DRPCClient
from pynimbus.generated.storm.ttypes import DRPCExecutionException, KillOptions
from pynimbus.thrift.client import NimbusClient
from pynimbus_path import child_env

PROGRAMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "drpc_programs")


@pytest.fixture(scope="module")
def dev(tmp_path_factory):
    local = tmp_path_factory.mktemp("drpc-dev")
    from nimbus_process import free_port
    nimbus = NimbusProcess(local, dev_supervisor=True, drpc=True, options=[
        "supervisor.slots.ports=[%d]" % free_port(), "nimbus.monitor.freq.secs=1",
        "supervisor.monitor.frequency.secs=1", "supervisor.heartbeat.frequency.secs=1",
        "drpc.request.timeout.secs=30"])
    nimbus.start(timeout=60)
    try:
        yield nimbus
    finally:
        nimbus.stop()


def submit(dev, tmp_path, program, name, *options):
    """``pynimbus submit program --name name --wait`` (and ``options``) from a streamparse
    project holding the program's module in ``src/``."""
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)  # a streamparse project: its components in src/
    module = program.partition(":")[0]
    shutil.copy(os.path.join(PROGRAMS, module + ".py"), str(project / "src" / (module + ".py")))
    result = subprocess.run(
        [sys.executable, "-m", "pynimbus.cli", "submit", program, "--name", name,
         "--nimbus", "127.0.0.1:%d" % dev.port, "--wait"] + list(options),
        cwd=str(project), env=child_env(), capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_python_drpc_topology_answers_through_pynimbus_drpc(dev, tmp_path):
    submit(dev, tmp_path, "exclamation:ExclamationDRPC", "exclamation")
    try:
        with DRPCClient("127.0.0.1", dev.drpc_port, timeout=60) as client:
            assert client.execute("exclamation", "hello") == "hello!"
        answers = {}

        def ask(word):
            with DRPCClient("127.0.0.1", dev.drpc_port, timeout=60) as client:
                answers[word] = client.execute("exclamation", word)
        threads = [threading.Thread(target=ask, args=(w,)) for w in ("a", "b", "c", "d")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert answers == {"a": "a!", "b": "b!", "c": "c!", "d": "d!"}
        with DRPCClient("127.0.0.1", dev.drpc_port, timeout=60) as client:
            with pytest.raises(DRPCExecutionException) as failed:
                client.execute("exclamation", "fail")  # its tuple is failed by the bolt
        assert failed.value.msg == "Request failed"
    finally:
        with NimbusClient("127.0.0.1", dev.port, timeout=10) as client:
            client.killTopologyWithOpts("exclamation", KillOptions(wait_secs=0))
