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
import os
import socket
import subprocess
import time

from . import maven
from .java_daemon import LOG4J2_XML, JavaDaemon, write_storm_yaml
from nimbus_process import LOOPBACK, RawClient, RemoteError, free_port

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


def java_version(java):
    out = subprocess.run([java, "-version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         timeout=30).stdout.decode("utf-8", "replace")
    return out.splitlines()[0] if out else "?"


def write_hosts_file(path):
    """Write the ``-Djdk.net.hosts.file`` of the 1.2.4 workaround (module docstring) at ``path``."""
    names = ["localhost", "localhost/<unresolved>"]
    hostname = socket.gethostname()
    if hostname and hostname not in names:
        names.append(hostname)
    with open(path, "w") as f:
        f.write("127.0.0.1 %s\n" % " ".join(names))


class JavaNimbus(JavaDaemon):
    """One real Nimbus process (:class:`.java_daemon.JavaDaemon`): ready once
    ``getClusterInfo`` answers and ``getLeader`` names it.

    :param version: Storm version, e.g. ``"1.2.4"`` or ``"2.8.3"``.
    :param zk_port: port of the ZooKeeper on 127.0.0.1.
    :param zk_root: ``storm.zookeeper.root`` (a fresh one by default).
    :param workdir: where storm.yaml, logs and ``storm.local.dir`` go (a temp dir by default,
        deleted by :meth:`stop` unless ``keep_workdir`` or ``$PYNIMBUS_ORACLE_KEEP`` is set).
    :param conf: extra Nimbus configuration.
    """

    name = "nimbus"
    error = JavaNimbusError
    start_timeout = 120.0
    stop_timeout = 30.0
    not_ready = "not leader"

    def __init__(self, version, zk_port, zk_root=None, workdir=None, conf=None, port=None,
                 keep_workdir=None, java=None):
        self.version = version
        self.release = maven.release(version)
        self.generation = self.release.generation
        super().__init__("Storm %s Nimbus" % version, workdir=workdir,
                         workdir_prefix="pynimbus-oracle-%s-" % version,
                         keep_workdir=keep_workdir, java=java)
        self.zk_port = zk_port
        self.zk_root = zk_root or "/oracle-%s-%d-%d" % (version.replace(".", ""), os.getpid(),
                                                       int(time.time() * 1000) % 10 ** 9)
        self.extra_conf = dict(conf or {})
        self.host = LOOPBACK
        self.port = port or free_port()
        self.local_dir = os.path.join(self.workdir, "storm-local")

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
        write_storm_yaml(self.workdir, self.storm_conf())
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

    def prepare(self):
        classpath = maven.resolve_classpath(self.version)
        self._write_files()
        return self.build_command(classpath)

    def readiness(self):
        try:
            with RawClient(self.host, self.port, timeout=10.0) as client:
                client.call("getClusterInfo")
                leader = client.call("getLeader")
        except (OSError, RemoteError) as e:
            return repr(e)
        if leader is not None and leader.host == self.host and leader.port == self.port:
            return None
        return "getLeader returned %r" % (leader,)

    # Diagnostics

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
