"""``python -m pynimbus.cli drpc`` as a process on free loopback ports, and the calls the
tests make of it (shared by the DRPC tests and the compat tests of Storm's own clients)."""

import contextlib
import signal
import subprocess
import sys
import time

import pytest
from thrift.transport.TTransport import TTransportException

from nimbus_process import free_port
from pynimbus.drpc import DRPCClient, DRPCInvocationsClient
from pynimbus_path import child_env

LOOPBACK = "127.0.0.1"


class DRPCPorts(object):
    """A DRPC server's two ports, and clients of each."""

    def __init__(self, port, invocations_port, http_port=None):
        self.port, self.invocations_port, self.http_port = port, invocations_port, http_port

    def client(self, timeout=30.0):
        return DRPCClient(LOOPBACK, self.port, timeout=timeout)

    def invocations(self):
        return DRPCInvocationsClient(LOOPBACK, self.invocations_port, timeout=10.0)


class DRPCProcess(DRPCPorts):
    """``python -m pynimbus.cli drpc`` on free loopback ports (or on ``ports``: another
    server's, to stand for it restarted)."""

    def __init__(self, tmp_path, *options, ports=None):
        super().__init__(*(ports or (free_port(), free_port(), free_port())))
        self.log_path = str(tmp_path / "drpc.out")
        self.log = open(self.log_path, "ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "pynimbus.cli", "drpc",
             "-c", "drpc.port=%d" % self.port,
             "-c", "drpc.invocations.port=%d" % self.invocations_port,
             "-c", "drpc.http.port=%d" % self.http_port,
             "-c", "pynimbus.drpc.bind.address=127.0.0.1",
             "-c", "storm.local.dir=%s" % tmp_path] + [a for o in options for a in ("-c", o)],
            cwd=str(tmp_path), env=child_env(), stdin=subprocess.DEVNULL,
            stdout=self.log, stderr=subprocess.STDOUT)

    def wait_serving(self, timeout=30.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.log_text()
            try:
                with self.invocations() as invocations:
                    invocations.fetchRequest("nothing")
                with self.client():
                    return
            except TTransportException:
                time.sleep(0.02)  # not listening yet: the port answering is the condition
        pytest.fail("pynimbus drpc did not serve within %.0f s:\n%s"
                    % (timeout, self.log_text()))

    def log_text(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self.log.close()


def fetch(server, function, timeout=10.0):
    """The next request of ``function`` (polled as a DRPC spout does)."""
    deadline = time.monotonic() + timeout
    with server.invocations() as invocations:
        while time.monotonic() < deadline:
            request = invocations.fetchRequest(function)
            if request.request_id:
                return request
            time.sleep(0.01)
    pytest.fail("no request of %s came" % function)


@contextlib.contextmanager
def serving(directory, *options):
    """A :class:`DRPCProcess` in ``directory`` with ``-c`` ``options``, serving; stopped
    after."""
    server = DRPCProcess(directory, *options)
    try:
        server.wait_serving()
        yield server
    finally:
        server.stop()
