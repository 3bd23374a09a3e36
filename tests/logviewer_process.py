"""``pynimbus logviewer`` as a process for tests, and its HTTP answers."""

import http.client
import json
import subprocess
import sys

from nimbus_process import LOOPBACK, free_port
from pynimbus_path import child_env
from ui_process import UIProcess


class LogviewerProcess(UIProcess):
    """``python -m pynimbus.cli logviewer`` on a free loopback port with
    ``storm.local.dir`` and ``storm.log.dir`` under ``tmp_path``, with ``-c`` ``options``
    (waited for, its log read and stopped as :class:`UIProcess` does)."""

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
