"""A throwaway standalone ZooKeeper for tests and benchmarks.

Runs the server of Debian's ``zookeeper`` package (jars in ``/usr/share/java``; the main jar's
manifest names its dependencies) on 127.0.0.1, on a free port, with data in a temporary
directory, and waits until it answers ``srvr`` as a serving standalone server.
"""

import os
import shutil
import socket
import subprocess
import tempfile
import time

JAR_DIR = "/usr/share/java"
ZOOKEEPER_JAR = os.path.join(JAR_DIR, "zookeeper.jar")
# A logging binding, so the server logs to its log file instead of warning about none.
SLF4J_BINDINGS = ("slf4j-simple.jar", "slf4j-nop.jar")
MAIN_CLASS = "org.apache.zookeeper.server.ZooKeeperServerMain"

# Short ticks make session expiry (the ephemeral-node tests) quick and precise.
TICK_TIME_MS = 200


def unavailable_reason():
    """Return why a server cannot be started here, or None when it can."""
    if shutil.which("java") is None:
        return "no java executable on PATH (needed by the zookeeper package)"
    if not os.path.exists(ZOOKEEPER_JAR):
        return "%s is missing: install Debian's zookeeper package" % ZOOKEEPER_JAR
    return None


def free_port(host="127.0.0.1"):
    """Return a TCP port nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def four_letter_word(host, port, word, timeout=1.0):
    """Send a ZooKeeper four-letter command; return the reply text ('' when refused)."""
    with socket.create_connection((host, port), timeout=timeout) as s:
        s.sendall(word.encode("ascii"))
        chunks = []
        while True:
            chunk = s.recv(4096)
            if not chunk:
                break
            chunks.append(chunk)
    return b"".join(chunks).decode("utf-8", "replace")


class ZooKeeperServer:
    """One standalone ZooKeeper process; use :meth:`start` and :meth:`stop` (or ``with``)."""

    def __init__(self, host="127.0.0.1", workdir=None):
        self.host = host
        self.port = None
        self.process = None
        self._own_workdir = workdir is None
        self.workdir = workdir or tempfile.mkdtemp(prefix="pynimbus-zk-")
        self.log_path = os.path.join(self.workdir, "zookeeper.log")

    @property
    def servers(self):
        """The ``storm.zookeeper.servers`` list for this server."""
        return [self.host]

    def storm_conf(self):
        """The ``storm.zookeeper.*`` settings that point at this server."""
        return {"storm.zookeeper.servers": self.servers, "storm.zookeeper.port": self.port}

    def _write_config(self):
        data_dir = os.path.join(self.workdir, "data")
        os.makedirs(data_dir, exist_ok=True)
        path = os.path.join(self.workdir, "zoo.cfg")
        with open(path, "w") as f:
            f.write("\n".join([
                "tickTime=%d" % TICK_TIME_MS,
                "dataDir=%s" % data_dir,
                "clientPort=%d" % self.port,
                "clientPortAddress=%s" % self.host,
                "maxClientCnxns=0",
                "minSessionTimeout=%d" % (2 * TICK_TIME_MS),
                "maxSessionTimeout=60000",
                "admin.enableServer=false",
                "4lw.commands.whitelist=srvr,ruok",
                "",
            ]))
        return path

    def _classpath(self):
        entries = [ZOOKEEPER_JAR]
        for binding in SLF4J_BINDINGS:
            candidate = os.path.join(JAR_DIR, binding)
            if os.path.exists(candidate):
                entries.append(candidate)
                break
        return ":".join(entries)

    def _serving(self):
        try:
            reply = four_letter_word(self.host, self.port, "srvr")
        except OSError:
            return False
        return "Mode: standalone" in reply

    def start(self, timeout=60.0):
        """Start the server and wait until it serves requests.

        :raises RuntimeError: with the end of the server log when it does not come up.
        """
        reason = unavailable_reason()
        if reason:
            raise RuntimeError(reason)
        for attempt in range(3):
            self.port = free_port(self.host)
            if self._launch(self._write_config(), timeout):
                return self
        raise RuntimeError("ZooKeeper did not start; end of %s:\n%s"
                           % (self.log_path, self.log_tail()))

    def _launch(self, config, timeout):
        """Run the server on ``config``; True once it serves, False (killed) if it did not."""
        log = open(self.log_path, "ab")
        self.process = subprocess.Popen(
            ["java", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
             "-Dzookeeper.admin.enableServer=false", "-cp", self._classpath(), MAIN_CLASS,
             config],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break  # exited: maybe the port was taken meanwhile
            if self._serving():
                return True
            time.sleep(0.05)
        self._kill()
        return False

    def pause(self):
        """An outage: stop the server process, keeping its port, data and sessions."""
        self._kill()

    def resume(self, timeout=60.0):
        """End an outage: run the server again on the same port and data.

        :raises RuntimeError: when it does not serve again (e.g. the port was taken).
        """
        if not self._launch(os.path.join(self.workdir, "zoo.cfg"), timeout):
            raise RuntimeError("ZooKeeper did not come back on port %d; end of %s:\n%s"
                               % (self.port, self.log_path, self.log_tail()))

    def log_tail(self, lines=30):
        try:
            with open(self.log_path, "rb") as f:
                return b"\n".join(f.read().splitlines()[-lines:]).decode("utf-8", "replace")
        except OSError:
            return "(no log)"

    def _kill(self):
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def stop(self):
        """Stop the server and delete its data."""
        self._kill()
        if self._own_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc_info):
        self.stop()
