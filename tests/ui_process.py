"""``pynimbus ui`` as a process for tests, and its HTTP answers."""

import http.client
import json
import subprocess
import sys
import time

import pytest

from nimbus_process import LOOPBACK, free_port
from pynimbus_path import child_env


class UIProcess(object):
    """``python -m pynimbus.cli ui`` on a free loopback port, for the Nimbus on
    ``nimbus_host:nimbus_port`` (``nimbus.seeds``), with ``-c`` ``options``."""

    def __init__(self, tmp_path, nimbus_port, nimbus_host="localhost", options=()):
        self.port = free_port()
        self.log_path = str(tmp_path / "ui.out")
        self.log = open(self.log_path, "ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "pynimbus.cli", "ui", "-c", "ui.port=%d" % self.port,
             "-c", "ui.host=127.0.0.1", "-c", 'nimbus.seeds=["%s"]' % nimbus_host,
             "-c", "nimbus.thrift.port=%d" % nimbus_port, "-c", "storm.local.dir=%s" % tmp_path]
            + [a for option in options for a in ("-c", option)],
            cwd=str(tmp_path), env=child_env(), stdin=subprocess.DEVNULL, stdout=self.log,
            stderr=subprocess.STDOUT)

    def get(self, path):
        """``(status, content type, body text)``."""
        connection = http.client.HTTPConnection(LOOPBACK, self.port, timeout=30)
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            return (response.status, response.getheader("content-type"),
                    response.read().decode("utf-8"))
        finally:
            connection.close()

    def post(self, path, body=None, headers=None):
        """``(status, parsed JSON or text)`` of a POST (``body`` sent as JSON)."""
        headers = dict(headers or {})
        if body is not None:
            headers["Content-Type"] = "application/json"
        status, _headers, text = self.exchange(
            "POST", path, json.dumps(body) if body is not None else None, headers)
        try:
            return status, json.loads(text)
        except ValueError:
            return status, text

    def exchange(self, method, path, body=None, headers=None):
        """``(status, response headers, body text)`` of one request."""
        connection = http.client.HTTPConnection(LOOPBACK, self.port, timeout=60)
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            return (response.status, response.headers,
                    response.read().decode("utf-8"))
        finally:
            connection.close()

    def json(self, path):
        status, _type, body = self.get(path)
        assert status == 200, body
        return json.loads(body)

    def wait_serving(self, timeout=30.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.log_text()
            try:
                self.get("/api/v1/nothing")
                return
            except OSError:
                time.sleep(0.02)  # not listening yet: the port answering is the condition
        pytest.fail("pynimbus ui did not serve:\n" + self.log_text())

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
