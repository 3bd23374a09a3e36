"""Python Trident programs on a ``pynimbus dev`` cluster (a :class:`NimbusProcess` with its
supervisor), as a user runs them: submitted with ``pynimbus submit module:attr`` from a
project directory holding the program's module (from ``tests/trident_programs``)."""

import json
import os
import shutil
import subprocess
import sys

from pynimbus.thrift.client import NimbusClient
from pynimbus_path import child_env

PROGRAMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "trident_programs")


def submit(dev, tmp_path, program, name, environment, *options):
    """``pynimbus submit program --name name`` from a project directory holding the
    program's module, as a user runs it; ``environment`` is the submitter's and the
    topology's (``topology.environment``: the program reads it in its workers)."""
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    module = program.partition(":")[0]
    shutil.copy(os.path.join(PROGRAMS, module + ".py"), project / (module + ".py"))
    command = [sys.executable, "-m", "pynimbus.cli", "submit", program, "--name", name,
               "--nimbus", "127.0.0.1:%d" % dev.port, "-c", "topology.workers=2",
               "-c", "topology.trident.batch.emit.interval.millis=50",
               "-c", "topology.environment=%s" % json.dumps(environment)]
    for option in options:
        command += ["-c", option]
    result = subprocess.run(command, cwd=str(project), env=dict(child_env(), **environment),
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Submitted topology: %s" % name in result.stdout


def kill_topology(dev, name):
    with NimbusClient("127.0.0.1", dev.port, timeout=10) as client:
        from pynimbus.generated.storm.ttypes import KillOptions
        client.killTopologyWithOpts(name, KillOptions(wait_secs=0))


def worker_logs(dev, name):
    root = os.path.join(dev.conf["storm.local.dir"], "logs", "workers-artifacts")
    text = []
    for storm_id in os.listdir(root) if os.path.isdir(root) else ():
        if storm_id.startswith(name + "-"):
            for port in os.listdir(os.path.join(root, storm_id)):
                with open(os.path.join(root, storm_id, port, "worker.log")) as f:
                    text.append(f.read())
    return "\n".join(text)


def topology_errors(dev, name):
    with NimbusClient("127.0.0.1", dev.port, timeout=10) as client:
        [summary] = [t for t in client.getClusterInfo().topologies if t.name == name]
        info = client.getTopologyInfo(summary.id)
        return [e.error for errors in (info.errors or {}).values() for e in errors]
