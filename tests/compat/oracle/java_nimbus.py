"""Start and stop a real Storm Nimbus (1.2.4 or 2.x) as a subprocess, on loopback.

How each version finds its configuration: both read ``defaults.yaml`` from the storm jar, then
the file named by the system property ``storm.conf.file`` (a path is read as a file), then
``-Dstorm.options``.  We pass ``-Dstorm.conf.file=<workdir>/storm.yaml`` (written here),
``-Dstorm.home=<workdir>``, ``-Dstorm.log.dir=<workdir>/logs`` and
``-Dlog4j.configurationFile=<workdir>/log4j2.xml`` so that nothing is written outside the
work directory.

Storm 1.2.4 on Java 17: its shaded ZooKeeper 3.4.14 client cannot connect on Java 14+
(ZOOKEEPER-3779: ``StaticHostProvider`` re-resolves the server through
``InetSocketAddress.toString()``, which Java 14 changed to ``host/<unresolved>:port``, so the
lookup is for the name ``host/<unresolved>``; the log shows ``Unable to canonicalize address
127.0.0.1/<unresolved>:PORT because it's not resolvable`` or, with
``-Dzookeeper.sasl.client.canonicalize.hostname=false``, ``UnresolvedAddressException``).
Workaround used here: ZooKeeper is named ``localhost`` in ``storm.zookeeper.servers`` and the JVM
gets ``-Djdk.net.hosts.file=<workdir>/hosts`` whose line ``127.0.0.1 localhost
localhost/<unresolved>`` (plus this machine's host name) makes that odd name resolve to loopback.
No other flag (no ``--add-opens``) is needed for Nimbus.  Storm 2.x runs on Java 17 as is.
"""

import getpass
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

from . import maven
from nimbus_process import LOOPBACK, RawClient, RemoteError, free_port

LOG4J2_XML = """<?xml version="1.0" encoding="UTF-8"?>
<Configuration status="WARN" monitorInterval="0">
  <Appenders>
    <File name="file" fileName="%(log)s" append="true">
      <PatternLayout pattern="%%d{HH:mm:ss.SSS} %%-5level [%%t] %%c{1.} - %%msg%%n"/>
    </File>
  </Appenders>
  <Loggers>
    <Logger name="org.apache.storm.shade.org.apache.zookeeper" level="WARN"/>
    <Logger name="org.apache.storm.shade.org.apache.curator" level="WARN"/>
    <Logger name="org.apache.zookeeper" level="WARN"/>
    <Root level="INFO"><AppenderRef ref="file"/></Root>
  </Loggers>
</Configuration>
"""

# Keys the harness sets for every Java Nimbus (besides ports, paths and ZooKeeper).
BASE_CONF = {
    "nimbus.seeds": [LOOPBACK],
    "storm.local.hostname": LOOPBACK,
    # Assignments appear about a second after a submission (default 10 s).
    "nimbus.monitor.freq.secs": 1,
}

JVM_FLAGS = ["-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
             "-Djava.net.preferIPv4Stack=true"]


class JavaNimbusError(RuntimeError):
    pass


def java_executable():
    """The ``java`` to run Storm with: ``$PYNIMBUS_ORACLE_JAVA``, ``$JAVA_HOME/bin/java``, PATH."""
    explicit = os.environ.get("PYNIMBUS_ORACLE_JAVA")
    if explicit:
        return explicit
    home = os.environ.get("JAVA_HOME")
    if home and os.access(os.path.join(home, "bin", "java"), os.X_OK):
        return os.path.join(home, "bin", "java")
    return shutil.which("java")


def java_version(java):
    out = subprocess.run([java, "-version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         timeout=30).stdout.decode("utf-8", "replace")
    return out.splitlines()[0] if out else "?"


def yaml_lines(conf):
    """``key: <JSON value>`` lines: JSON scalars, lists and maps are valid YAML flow values."""
    return "".join("%s: %s\n" % (key, json.dumps(value)) for key, value in sorted(conf.items()))


def terminate(process, timeout):
    """SIGTERM ``process`` (a Popen) if it runs, SIGKILL after ``timeout`` s; its exit code
    (None when it was never started)."""
    if process is None:
        return None
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(30)
    return process.returncode


def write_hosts_file(path):
    """Write the ``-Djdk.net.hosts.file`` of the 1.2.4 workaround (module docstring) at ``path``."""
    names = ["localhost", "localhost/<unresolved>"]
    hostname = socket.gethostname()
    if hostname and hostname not in names:
        names.append(hostname)
    with open(path, "w") as f:
        f.write("127.0.0.1 %s\n" % " ".join(names))


class JavaNimbus:
    """One real Nimbus process.

    :param version: Storm version, e.g. ``"1.2.4"`` or ``"2.8.3"``.
    :param zk_port: port of the ZooKeeper on 127.0.0.1.
    :param zk_root: ``storm.zookeeper.root`` (a fresh one by default).
    :param workdir: where storm.yaml, logs and ``storm.local.dir`` go (a temp dir by default,
        deleted by :meth:`stop` unless ``keep_workdir`` or ``$PYNIMBUS_ORACLE_KEEP`` is set).
    :param conf: extra Nimbus configuration.
    """

    def __init__(self, version, zk_port, zk_root=None, workdir=None, conf=None, port=None,
                 keep_workdir=None, java=None):
        self.version = version
        self.release = maven.release(version)
        self.generation = self.release.generation
        self.zk_port = zk_port
        self.zk_root = zk_root or "/oracle-%s-%d-%d" % (version.replace(".", ""), os.getpid(),
                                                       int(time.time() * 1000) % 10 ** 9)
        self._own_workdir = workdir is None
        self.workdir = workdir or tempfile.mkdtemp(prefix="pynimbus-oracle-%s-" % version)
        self.keep_workdir = (bool(os.environ.get("PYNIMBUS_ORACLE_KEEP"))
                             if keep_workdir is None else keep_workdir)
        self.extra_conf = dict(conf or {})
        self.host = LOOPBACK
        self.port = port or free_port()
        self.java = java or java_executable()
        self.local_dir = os.path.join(self.workdir, "storm-local")
        self.log_dir = os.path.join(self.workdir, "logs")
        self.out_path = os.path.join(self.workdir, "nimbus.out")
        self.log_path = os.path.join(self.log_dir, "nimbus.log")
        self.process = None
        self.command = None
        self.started_in = None

    # Configuration

    @property
    def zk_servers(self):
        # See the module docstring: 1.2.4's ZooKeeper client needs a host name on Java 14+.
        return ["localhost"] if self.generation == "1.x" else [LOOPBACK]

    def storm_conf(self):
        conf = dict(BASE_CONF)
        conf.update({
            "storm.zookeeper.servers": self.zk_servers,
            "storm.zookeeper.port": self.zk_port,
            "storm.zookeeper.root": self.zk_root,
            "nimbus.thrift.port": self.port,
            "storm.local.dir": self.local_dir,
        })
        conf.update(self.extra_conf)
        return conf

    def cluster_conf(self):
        """The conf our Python code uses to reach this Nimbus's ZooKeeper state."""
        return {"storm.zookeeper.servers": [LOOPBACK], "storm.zookeeper.port": self.zk_port,
                "storm.zookeeper.root": self.zk_root,
                "storm.zookeeper.connection.timeout": 15000,
                "storm.zookeeper.session.timeout": 20000}

    def _write_files(self):
        for d in (self.local_dir, self.log_dir):
            os.makedirs(d, exist_ok=True)
        with open(os.path.join(self.workdir, "storm.yaml"), "w") as f:
            f.write(yaml_lines(self.storm_conf()))
        with open(os.path.join(self.workdir, "log4j2.xml"), "w") as f:
            f.write(LOG4J2_XML % {"log": self.log_path})
        write_hosts_file(os.path.join(self.workdir, "hosts"))

    def build_command(self, classpath):
        cmd = [self.java] + JVM_FLAGS + [
            "-Dstorm.conf.file=" + os.path.join(self.workdir, "storm.yaml"),
            "-Dstorm.home=" + self.workdir,
            "-Dstorm.log.dir=" + self.log_dir,
            "-Dlogfile.name=nimbus.log",
            "-Dlog4j.configurationFile=" + os.path.join(self.workdir, "log4j2.xml"),
            "-Dlog4j2.configurationFile=" + os.path.join(self.workdir, "log4j2.xml"),
        ]
        if self.generation == "1.x":
            cmd.append("-Djdk.net.hosts.file=" + os.path.join(self.workdir, "hosts"))
        cmd += ["-cp", os.pathsep.join(classpath), self.release.nimbus_class]
        return cmd

    # Life cycle

    def start(self, timeout=120.0):
        """Start Nimbus; return once ``getClusterInfo`` answers and ``getLeader`` names it."""
        if self.java is None:
            raise JavaNimbusError("no java executable (set JAVA_HOME or PYNIMBUS_ORACLE_JAVA)")
        classpath = maven.resolve_classpath(self.version)
        self._write_files()
        self.command = self.build_command(classpath)
        started = time.monotonic()
        out = open(self.out_path, "ab")
        try:
            self.process = subprocess.Popen(self.command, cwd=self.workdir, stdout=out,
                                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                            start_new_session=True)
        finally:
            out.close()
        try:
            self.wait_until_leader(timeout)
        except BaseException:
            self.stop()
            raise
        self.started_in = time.monotonic() - started
        return self

    def wait_until_leader(self, timeout):
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise JavaNimbusError("Storm %s Nimbus exited with code %s during start-up:\n%s"
                                      % (self.version, self.process.returncode, self.log_tail()))
            try:
                with RawClient(self.host, self.port, timeout=10.0) as client:
                    client.call("getClusterInfo")
                    leader = client.call("getLeader")
                if leader is not None and leader.host == self.host and leader.port == self.port:
                    return
                last = "getLeader returned %r" % (leader,)
            except (OSError, RemoteError) as e:
                last = repr(e)
            time.sleep(0.25)
        raise JavaNimbusError("Storm %s Nimbus not leader within %.0f s (last: %s):\n%s"
                              % (self.version, timeout, last, self.log_tail()))

    def stop(self, timeout=30.0):
        """SIGTERM (then SIGKILL after ``timeout``); delete the work directory unless kept.

        Returns the exit code (None if never started).
        """
        try:
            return terminate(self.process, timeout)
        finally:
            if self._own_workdir and not self.keep_workdir:
                shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc_info):
        self.stop()

    # Diagnostics

    def log_tail(self, lines=40):
        chunks = []
        for path in (self.out_path, self.log_path):
            try:
                with open(path, "rb") as f:
                    text = f.read().decode("utf-8", "replace")
            except OSError:
                continue
            chunks.append("== %s ==\n%s" % (path, "\n".join(text.splitlines()[-lines:])))
        return "\n".join(chunks) or "(no log)"

    def describe(self):
        """What ran, for the record: version, java, flags, user."""
        return {
            "storm_version": self.version,
            "generation": self.generation,
            "java": self.java,
            "java_version": java_version(self.java) if self.java else None,
            "main_class": self.release.nimbus_class,
            "jvm_flags": [a for a in (self.command or []) if a.startswith("-")
                          and not a.startswith("-cp")],
            "os_user": getpass.getuser(),
        }
