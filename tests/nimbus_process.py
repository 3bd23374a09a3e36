"""Start and stop a real ``python -m pynimbus.cli dev`` process, and talk to it over loopback.

Used by the wire tests (``tests/compat``) and by ``bench/bench_server.py``:

* :func:`free_port` - a loopback TCP port nobody listens on (bind port 0, read it, close);
* :func:`zookeeper_options` - the ``-c`` options that put its cluster state on a ZooKeeper;
* :func:`nimbus_on_zookeeper` - a fixture body: a started daemon on a ZooKeeper, stopped after;
* :class:`NimbusProcess` - ``start()`` launches the daemon with a temp ``storm.local.dir`` and
  polls, with a deadline, until a Thrift ``getClusterInfo`` is answered; ``stop()`` sends SIGTERM,
  waits with a deadline and returns the exit code (SIGKILL and :class:`NimbusDidNotStop` if it
  hangs);
* :class:`RawClient` - a minimal synchronous framed/binary Thrift client over one socket, using
  the generated ``<method>_args`` / ``<method>_result`` structs, so probing needs no compiler.
"""

import collections
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import time

from thrift.protocol.TBinaryProtocol import TBinaryProtocol
from thrift.Thrift import TApplicationException, TMessageType
from thrift.transport.TTransport import TMemoryBuffer

from pynimbus_path import REPO, child_env, put_checkout_on_path

LOOPBACK = "127.0.0.1"

put_checkout_on_path()  # so `pynimbus` imports when run as a script (bench) or from tests/

RunningNimbus = collections.namedtuple(
    "RunningNimbus", "host port process local_dir log_path handle")


class NimbusDidNotStart(RuntimeError):
    pass


class NimbusDidNotStop(RuntimeError):
    pass


def free_port(host=LOOPBACK):
    """Return a TCP port on ``host`` that was free a moment ago (bind 0, read it, close)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def zookeeper_options(servers, port, root):
    """The ``-c`` strings for a :class:`NimbusProcess` keeping its state on a ZooKeeper:
    ``storm.zookeeper.servers`` (a JSON list), ``storm.zookeeper.port`` and ``.root``."""
    return ["storm.zookeeper.servers=%s" % json.dumps(servers),
            "storm.zookeeper.port=%d" % port,
            "storm.zookeeper.root=%s" % root]


class RemoteError(Exception):
    """A reply that was a TApplicationException (``.app``) rather than a result."""

    def __init__(self, app):
        super().__init__("TApplicationException type %s: %s" % (app.type, app.message))
        self.app = app


class RawClient:
    """A synchronous framed/binary Thrift client for ``service Nimbus`` over one socket.

    ``call(method, **args)`` returns the result's ``success`` (None for void), raises the
    declared exception found in the result, or :class:`RemoteError` for an EXCEPTION message.
    ``protocol_class`` defaults to the pure-Python binary protocol (what a foreign client writes).
    """

    def __init__(self, host, port, timeout=10.0, protocol_class=TBinaryProtocol, nimbus=None):
        if nimbus is None:
            from pynimbus.generated.storm import Nimbus as nimbus
        self.nimbus = nimbus
        self.protocol_class = protocol_class
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.seqid = 0

    def close(self):
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def encode_call(self, method, seqid, **kwargs):
        buf = TMemoryBuffer()
        prot = self.protocol_class(buf)
        prot.writeMessageBegin(method, TMessageType.CALL, seqid)
        getattr(self.nimbus, method + "_args")(**kwargs).write(prot)
        prot.writeMessageEnd()
        payload = buf.getvalue()
        return struct.pack("!i", len(payload)) + payload

    def read_frame(self):
        (length,) = struct.unpack("!i", recv_exactly(self.sock, 4))
        return recv_exactly(self.sock, length)

    def call(self, method, **kwargs):
        self.seqid += 1
        self.sock.sendall(self.encode_call(method, self.seqid, **kwargs))
        prot = self.protocol_class(TMemoryBuffer(self.read_frame()))
        name, mtype, seqid = prot.readMessageBegin()
        if seqid != self.seqid:
            raise AssertionError("reply seqid %d != call seqid %d" % (seqid, self.seqid))
        if mtype == TMessageType.EXCEPTION:
            app = TApplicationException()
            app.read(prot)
            raise RemoteError(app)
        result = getattr(self.nimbus, method + "_result")()
        result.read(prot)
        for field in result.thrift_spec[1:] if result.thrift_spec else ():
            if field is not None and getattr(result, field[2]) is not None:
                raise getattr(result, field[2])
        return getattr(result, "success", None)


def recv_exactly(sock, n):
    """Read exactly ``n`` bytes or raise ConnectionError when the peer closes first."""
    chunks = []
    while n:
        chunk = sock.recv(min(n, 1 << 20))
        if not chunk:
            raise ConnectionError("connection closed by the server")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _default_sigint():
    """Give the child Ctrl-C's default action even when this test run was started in the
    background (a shell's ``cmd &`` ignores SIGINT, the child would inherit it and a daemon
    rightly keeps an ignored SIGINT ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class NimbusProcess:
    """One ``pynimbus dev`` subprocess on 127.0.0.1, with its own ``storm.local.dir``.

    :param local_dir: an existing directory for ``storm.local.dir`` (logs go under it).
    :param port: ``nimbus.thrift.port``; a free port when None.
    :param options: extra ``-c key=value`` strings.
    :param dev_supervisor: run dev's own Python supervisor (``pynimbus.dev.supervisor``).
    :param drpc: run dev's DRPC server (``pynimbus.dev.drpc``) on free ports (``drpc_port``,
        ``drpc_invocations_port``, ``drpc_http_port``); off by default, so that tests run side
        by side.
    :param ui: run dev's UI (``pynimbus.dev.ui``) on a free ``ui_port``; off by default.
    :param logviewer: run dev's logviewer (``pynimbus.dev.logviewer``) on a free
        ``logviewer_port``; off by default.
    """

    def __init__(self, local_dir, port=None, options=(), python=sys.executable,
                 log_level="INFO", dev_supervisor=False, drpc=False, ui=False,
                 logviewer=False):
        self.local_dir = str(local_dir)
        self.dev_supervisor = dev_supervisor
        self.drpc = drpc
        self.ui = ui
        if ui:
            self.ui_port = free_port()
        self.logviewer = logviewer
        if logviewer:
            self.logviewer_port = free_port()
        if drpc:
            self.drpc_port, self.drpc_invocations_port = free_port(), free_port()
            self.drpc_http_port = free_port()
        self.port = port or free_port()
        self.options = list(options)
        self.python = python
        self.log_level = log_level
        self.log_path = os.path.join(self.local_dir, "pynimbus-dev.out")
        self.process = None
        self._log_file = None

    def command(self):
        cmd = [self.python, "-m", "pynimbus.cli", "dev",
               "-c", "nimbus.thrift.port=%d" % self.port,
               "-c", "storm.local.dir=%s" % self.local_dir, "--log-level", self.log_level]
        if not self.dev_supervisor:  # tests bring their own (simulated or real) supervisors
            cmd += ["-c", "pynimbus.dev.supervisor=false"]
        if self.drpc:
            cmd += ["-c", "drpc.port=%d" % self.drpc_port,
                    "-c", "drpc.invocations.port=%d" % self.drpc_invocations_port,
                    "-c", "drpc.http.port=%d" % self.drpc_http_port]
        else:
            cmd += ["-c", "pynimbus.dev.drpc=false"]
        if self.ui:
            cmd += ["-c", "ui.port=%d" % self.ui_port]
        else:
            cmd += ["-c", "pynimbus.dev.ui=false"]
        if self.logviewer:
            cmd += ["-c", "logviewer.port=%d" % self.logviewer_port]
        else:
            cmd += ["-c", "pynimbus.dev.logviewer=false"]
        for option in self.options:
            cmd += ["-c", option]
        return cmd

    def start(self, timeout=30.0):
        """Launch the daemon; return once ``getClusterInfo`` is answered (or raise)."""
        self._log_file = open(self.log_path, "ab")
        env = child_env()
        self.process = subprocess.Popen(
            self.command(), cwd=REPO, env=env, stdin=subprocess.DEVNULL,
            stdout=self._log_file, stderr=subprocess.STDOUT,
            preexec_fn=_default_sigint)
        try:
            self.wait_until_serving(timeout)
        except BaseException:
            self.kill()
            raise
        return RunningNimbus(LOOPBACK, self.port, self.process, self.local_dir, self.log_path,
                             self)

    def wait_until_serving(self, timeout):
        """Poll ``getClusterInfo`` until it is answered, the process dies or time is up."""
        deadline = time.monotonic() + timeout
        last_error = None
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise NimbusDidNotStart("pynimbus dev exited with code %s during start-up:\n%s"
                                        % (self.process.returncode, self.log_tail()))
            try:
                with RawClient(LOOPBACK, self.port, timeout=5.0) as client:
                    client.call("getClusterInfo")
                return
            except (OSError, RemoteError) as e:
                last_error = e
            # Not listening yet: the only condition to wait on is the port answering.
            time.sleep(0.02)
        raise NimbusDidNotStart("no getClusterInfo answer within %.0fs (last error: %r):\n%s"
                                % (timeout, last_error, self.log_tail()))

    def stop(self, timeout=15.0):
        """SIGTERM, wait at most ``timeout`` s; return the exit code, or SIGKILL and raise."""
        if self.process is None:
            return None
        try:
            if self.process.poll() is None:
                self.process.send_signal(signal.SIGTERM)
            try:
                return self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
                raise NimbusDidNotStop("pynimbus dev did not exit within %.0fs of SIGTERM; "
                                       "killed:\n%s" % (timeout, self.log_tail()))
        finally:
            self._close_log()

    def kill(self):
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        self._close_log()

    def _close_log(self):
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None

    def log_tail(self, lines=40):
        try:
            with open(self.log_path, "rb") as f:
                text = f.read().decode("utf-8", "replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])

    def rss_kib(self):
        """Resident memory of the process (VmRSS from /proc/<pid>/status), in KiB."""
        with open("/proc/%d/status" % self.process.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return None


def nimbus_on_zookeeper(zookeeper_conf, tmp_path, *options):
    """A fixture body: yield a started :class:`NimbusProcess` in ``tmp_path / "nimbus"`` on the
    ZooKeeper of ``zookeeper_conf`` (its servers, port and root) with the extra ``options``,
    and stop it afterwards."""
    (tmp_path / "nimbus").mkdir()
    proc = NimbusProcess(tmp_path / "nimbus", options=zookeeper_options(
        zookeeper_conf["storm.zookeeper.servers"], zookeeper_conf["storm.zookeeper.port"],
        zookeeper_conf["storm.zookeeper.root"]) + list(options))
    proc.start(timeout=60)
    yield proc
    proc.stop()
