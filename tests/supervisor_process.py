"""One ``pynimbus supervisor`` subprocess beside a ``pynimbus dev`` (tests/nimbus_process.py),
sharing its embedded cluster-state store, with its own ``storm.local.dir`` and slot ports."""

import json
import os
import signal
import subprocess
import sys

from nimbus_process import REPO, free_port
from pynimbus_path import child_env


def shared_store_option(nimbus_local_dir):
    """The ``-c`` option pointing a dev Nimbus and its supervisors at one embedded store."""
    return "pynimbus.embedded.state.dir=%s" % os.path.join(str(nimbus_local_dir), "state")


class SupervisorProcess:
    """``python -m pynimbus.cli supervisor`` for the dev Nimbus at 127.0.0.1:``nimbus_port``.

    :param local_dir: its ``storm.local.dir`` (created; its log goes under it).
    :param ports: its ``supervisor.slots.ports``; two free ports when None.
    :param options: extra ``-c key=value`` strings.
    :param env: extra environment variables (its workers inherit them).
    """

    def __init__(self, local_dir, nimbus_local_dir, nimbus_port, ports=None, options=(),
                 env=None):
        self.local_dir = str(local_dir)
        os.makedirs(self.local_dir, exist_ok=True)
        self.ports = list(ports or (free_port(), free_port()))
        self.options = [
            "storm.local.dir=%s" % self.local_dir, shared_store_option(nimbus_local_dir),
            "nimbus.seeds=[\"127.0.0.1\"]", "nimbus.thrift.port=%d" % nimbus_port,
            "storm.local.hostname=localhost", "storm.zookeeper.servers=[]",
            "supervisor.slots.ports=%s" % json.dumps(self.ports),
            "pynimbus.supervisor.logviewer=false"] + list(options)
        self.log_path = os.path.join(self.local_dir, "supervisor.out")
        self.env = dict(env or {})
        self.process = None

    def command(self):
        cmd = [sys.executable, "-m", "pynimbus.cli", "supervisor"]
        for option in self.options:
            cmd += ["-c", option]
        return cmd

    def start(self):
        env = child_env(dict(os.environ, **self.env))
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(self.command(), cwd=REPO, env=env,
                                            stdin=subprocess.DEVNULL, stdout=log,
                                            stderr=subprocess.STDOUT)
        return self

    def stop(self, timeout=15.0):
        """SIGTERM and wait; return the exit code (SIGKILL if it does not exit in time)."""
        if self.process is None or self.process.poll() is not None:
            return None if self.process is None else self.process.returncode
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
            raise

    def log_tail(self, lines=40):
        try:
            with open(self.log_path, "rb") as f:
                return "\n".join(f.read().decode("utf-8", "replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"
