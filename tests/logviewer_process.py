"""``pynimbus logviewer`` as a process for tests, and its HTTP answers."""

import http.client
import json
import subprocess
import sys
import time

import pytest

from nimbus_process import LOOPBACK, free_port
from pynimbus_path import child_env


class LogviewerProcess(object):
    """``python -m pynimbus.cli logviewer`` on a free loopback port with
    ``storm.local.dir`` and ``storm.log.dir`` under ``tmp_path``, with ``-c`` ``options``."""

    def __init__(self, tmp_path, log_dir, options=()):
        self.port = free_port()
        self.log_path = str(tmp_path / "logviewer.out")
        self.log = open(self.log_path, "ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "pynimbus.cli", "logviewer",
             "-c", "logviewer.port=%d" % self.port,
             "-c", "pynimbus.logviewer.bind.address=%s" % LOOPBACK,
             "-c", "storm.local.dir=%s" % (tmp_path / "local"),
             "-c", "storm.log.dir=%s" % log_dir]
            + [a for option in options for a in ("-c", option)],
            cwd=str(tmp_path), env=child_env(), stdin=subprocess.DEVNULL, stdout=self.log,
            stderr=subprocess.STDOUT)

    def get(self, path, headers=None):
        """``(status, headers dict, body bytes)``."""
        return http_get(LOOPBACK, self.port, path, headers)

    def json(self, path, headers=None):
        status, _headers, body = self.get(path, headers)
        assert status == 200, body
        return json.loads(body)

    def wait_serving(self, timeout=30.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.log_text()
            try:
                self.get("/nothing")
                return
            except OSError:
                time.sleep(0.02)  # not listening yet: the port answering is the condition
        pytest.fail("pynimbus logviewer did not serve:\n" + self.log_text())

    def log_text(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
        self.log.close()


def http_get(host, port, path, headers=None):
    """``(status, headers dict with lower-case names, body bytes)`` of a GET."""
    connection = http.client.HTTPConnection(host, port, timeout=60)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        return (response.status, {k.lower(): v for k, v in response.getheaders()},
                response.read())
    finally:
        connection.close()
