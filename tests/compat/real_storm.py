"""Real Storm supervisors (and the Java workers they launch) run against pynimbus, on loopback.

What a supervisor needs, read from Storm 1.2.4's sources (2.8.3's differ where said):

* ``storm.home`` (``-Dstorm.home``): ``BasicContainer`` builds each worker's classpath from
  ``<storm.home>/lib/*`` (2.x: ``<storm.home>/lib-worker/*``), ``<storm.home>/extlib/*`` and
  ``<storm.home>/conf``, then the topology jar; the worker's log4j2 configuration is
  ``<storm.home>/log4j2/worker.xml`` (``storm.log4j2.conf.dir``).  :class:`StormHome` builds
  that layout in a temporary directory: ``lib`` holds symlinks to the jars Maven resolved
  (:mod:`.oracle.maven`), the log4j2 files are ours.
* Its ``storm.yaml`` (``-Dstorm.conf.file``), which the supervisor hands on to every worker it
  launches (``-Dstorm.conf.file=<same path>``), so workers reach the same ZooKeeper:
  ``storm.zookeeper.*`` (named ``localhost`` with the ``-Djdk.net.hosts.file`` workaround of
  :mod:`.oracle.java_nimbus` for 1.2.4 on Java 17), ``nimbus.seeds`` / ``nimbus.thrift.port``
  (the supervisor downloads the topology jar, code and conf through Nimbus's blob API:
  ``NimbusBlobStore.getBlob`` = ``beginBlobDownload`` + ``downloadBlobChunk``),
  ``supervisor.slots.ports`` (free loopback ports) and ``worker.childopts``.
* ``worker.childopts``: the 1.2.4 default names ``-XX:+PrintGCDateStamps`` and friends, which
  Java 9+ refuses ("Unrecognized VM option"), so we replace it: a small heap, the hosts-file
  workaround (the worker's own ZooKeeper client has the same Java 14+ bug) and IPv4.
* 2.x only: ``supervisor.thrift.port`` (a free port: Nimbus pushes assignments there, workers
  send their heartbeats there) and a short ``executor.metrics.frequency.secs`` (how often a 2.x
  worker writes its statistics to ``/workerbeats``; 60 s upstream).
* ``JAVA_HOME``: ``BasicContainer.javaCmd`` runs ``$JAVA_HOME/bin/java`` for the LogWriter and
  the worker; we set it to the Java that runs the supervisor.

Network: everything is reached through 127.0.0.1 (ZooKeeper, pynimbus, ``storm.local.hostname``
for the worker-to-worker transport), but the workers' Netty servers (on the slot ports) and the
2.x supervisor's Thrift server bind the wildcard address: Storm has no setting for their bind
address.

Processes: the supervisor runs in a new session (its own process group); the LogWriter and worker
JVMs it launches inherit that group, and a supervisor does not kill its workers when it stops
(upstream ``Supervisor.close``), so :meth:`RealSupervisor.stop` sends SIGTERM to the supervisor,
then SIGKILL to the whole group.  Worker processes are found through ``/proc`` (process group and
command line: the worker main class followed by ``<storm id> <supervisor id> [<supervisor
port>] <port> <worker id>``).

:func:`storm_jar` submits a topology with the real ``StormSubmitter``: the topology's ``main``
run by the stock ``storm jar`` (:mod:`.storm_cli`); :func:`exclamation_topology` says which.
"""

import collections
import json
import os
import shutil
import signal
import time

from thrift.protocol.TBinaryProtocol import TBinaryProtocol
from thrift.transport.TTransport import TMemoryBuffer

from . import storm_cli, topology_jars
from .oracle import maven
from .oracle.java_daemon import (LOG4J2_XML, QUIET_LOGGERS, JavaDaemon, java_executable,
                                 read_text, terminate, yaml_lines)
from .oracle.java_nimbus import write_hosts_file
from nimbus_process import LOOPBACK, free_port
from pynimbus.generated.storm import ttypes

SUPERVISOR_CLASS = "org.apache.storm.daemon.supervisor.Supervisor"
LOG_WRITER_CLASS = "org.apache.storm.LogWriter"
WORKER_CLASS = {"1.x": "org.apache.storm.daemon.worker",
                "2.x": "org.apache.storm.daemon.worker.Worker"}

# storm-starter 1.2.4 is not published; 1.2.2's jar is (compiled against storm-core 1.2.2, whose
# API the topologies use unchanged in 1.2.4).  No 2.x storm-starter is served by Maven Central.
STARTER = ("org.apache.storm", "storm-starter", "1.2.2")
STARTER_EXCLAMATION = "org.apache.storm.starter.ExclamationTopology"

# How to submit an ExclamationTopology (word -> exclaim1 -> exclaim2) with one worker.
Topology = collections.namedtuple("Topology", "jar main_class args options executors")

WORKER_HEAP_MB = 256
SUPERVISOR_JVM_FLAGS = ["-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                        "-Djava.net.preferIPv4Stack=true"]

# Same file names as upstream's worker.xml (worker.log, worker.log.out/.err for the LogWriter's
# STDOUT/STDERR loggers), without rolling or syslog.
WORKER_XML = """<?xml version="1.0" encoding="UTF-8"?>
<Configuration status="WARN" monitorInterval="0" shutdownHook="disable">
  <Properties>
    <Property name="dir">${sys:workers.artifacts}/${sys:storm.id}/${sys:worker.port}</Property>
  </Properties>
  <Appenders>
    <File name="A1" fileName="${dir}/${sys:logfile.name}" append="true">
      <PatternLayout pattern="%d{HH:mm:ss.SSS} %-5level [%t] %c{1.} - %msg%n"/>
    </File>
    <File name="STDOUT" fileName="${dir}/${sys:logfile.name}.out" append="true">
      <PatternLayout pattern="%msg%n"/>
    </File>
    <File name="STDERR" fileName="${dir}/${sys:logfile.name}.err" append="true">
      <PatternLayout pattern="%msg%n"/>
    </File>
  </Appenders>
  <Loggers>
""" + QUIET_LOGGERS + """\
    <Logger name="STDOUT" level="INFO" additivity="false"><AppenderRef ref="STDOUT"/></Logger>
    <Logger name="STDERR" level="INFO" additivity="false"><AppenderRef ref="STDERR"/></Logger>
    <Root level="INFO"><AppenderRef ref="A1"/></Root>
  </Loggers>
</Configuration>
"""

WorkerProcess = collections.namedtuple("WorkerProcess", "pid storm_id supervisor_id port worker_id")


class RealStormError(RuntimeError):
    pass


def unavailable_reason(generation):
    """Why a real supervisor of ``generation`` cannot run here (resolving jars), or None."""
    if java_executable() is None:
        return "no java executable (set JAVA_HOME or PYNIMBUS_ORACLE_JAVA)"
    version = maven.STORM_1X if generation == "1.x" else maven.STORM_2X
    try:
        home_jars(version)
        exclamation_topology(generation, "probe")
    except maven.MavenUnavailable as e:
        return str(e)
    return storm_cli.unavailable_reason(version)


def starter_jar():
    """Path of storm-starter 1.2.2's jar (fetched into the Maven cache if needed).

    :raises maven.MavenUnavailable: no mvn, Maven Central unreachable or the jar not served.
    """
    return maven.artifact_jar(*STARTER)


def exclamation_topology(generation, name):
    """The :class:`Topology` submitting an ExclamationTopology named ``name`` (one worker).

    1.x: storm-starter 1.2.2's, its own ``main`` (10 spouts, 3 + 2 bolts and the acker: 16
    executors), with ``-c topology.workers=1 -c topology.debug=false`` (its ``main`` asks for 3
    workers and debug logging of every tuple).  2.x: the reference topologies'
    (``tests/compat/java``, built against storm-client 2.8.3 by :mod:`.topology_jars`), whose
    ``main`` takes the worker count (2 spouts, 3 + 2 bolts, the acker: 8 executors).

    :raises maven.MavenUnavailable: the jar cannot be fetched or built.
    """
    if generation == "1.x":
        return Topology(starter_jar(), STARTER_EXCLAMATION, [name],
                        {"topology.workers": 1, "topology.debug": False}, 16)
    return Topology(topology_jars.topology_jar(maven.STORM_2X), topology_jars.EXCLAMATION,
                    [name, "1"], {}, 8)


def reference_topology(generation, main_class, name, workers=1, options=None):
    """The :class:`Topology` submitting reference topology ``main_class`` (``tests/compat/java``,
    built by :mod:`.topology_jars` against the generation's Storm) as ``name`` on ``workers``
    workers, with ``options`` as ``-c`` settings; ``executors`` is not counted (None).

    :raises maven.MavenUnavailable: the jar cannot be built.
    """
    version = maven.STORM_1X if generation == "1.x" else maven.STORM_2X
    return Topology(topology_jars.topology_jar(version), main_class, [name, str(workers)],
                    dict(options or {}), None)


def java_home(java):
    """The JAVA_HOME of a ``java`` executable (``<home>/bin/java``)."""
    return os.path.dirname(os.path.dirname(os.path.realpath(shutil.which(java) or java)))


def home_jars(version):
    """``{lib directory name: [jars]}`` of a storm.home (:class:`StormHome`).

    :raises maven.MavenUnavailable: the jars cannot be resolved.
    """
    dirs = {"lib": maven.resolve_classpath(version)}
    if maven.generation(version) == "2.x":
        dirs["lib-worker"] = maven.client_classpath(version, maven.CLIENT_LIB_WORKER)
    return dirs


class StormHome:
    """A ``storm.home`` for one Storm version in ``root``: lib (symlinks), log4j2, conf, hosts.

    1.x: ``lib`` = storm-core and its dependencies, for the supervisor and the workers.  2.x:
    ``lib`` = storm-server + storm-client (the daemons), ``lib-worker`` = storm-client and its
    dependencies (what upstream's binary distribution puts there for workers).
    """

    def __init__(self, version, root):
        self.version = version
        self.generation = maven.generation(version)
        self.root = root
        self.lib_dir = os.path.join(root, "lib")
        self.conf_dir = os.path.join(root, "conf")
        self.log4j2_dir = os.path.join(root, "log4j2")
        self.hosts_file = os.path.join(root, "hosts")

    def build(self, daemon_log):
        """Create the layout; the daemon's log4j2 file (``cluster.xml``) logs to ``daemon_log``."""
        lib_dirs = {os.path.join(self.root, name): jars
                    for name, jars in home_jars(self.version).items()}
        for directory in sorted(lib_dirs) + [self.conf_dir, self.log4j2_dir,
                                             os.path.join(self.root, "extlib")]:
            os.makedirs(directory, exist_ok=True)
        for directory, jars in lib_dirs.items():
            for jar in jars:
                link = os.path.join(directory, os.path.basename(jar))
                if not os.path.lexists(link):
                    os.symlink(jar, link)
        for name, text in (("cluster.xml", LOG4J2_XML % {"log": daemon_log}),
                           ("worker.xml", WORKER_XML)):
            with open(os.path.join(self.log4j2_dir, name), "w") as f:
                f.write(text)
        write_hosts_file(self.hosts_file)
        return self

    @property
    def daemon_classpath(self):
        return os.path.join(self.lib_dir, "*") + os.pathsep + self.conf_dir


def supervisor_conf(generation, zk_port, zk_root, nimbus_port, slots, local_dir, hosts_file,
                    extra=None):
    """The storm.yaml of a real supervisor (and of its workers); see the module docstring."""
    worker_opts = ["-Xmx%dm" % WORKER_HEAP_MB, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                   "-Djava.net.preferIPv4Stack=true"]
    if generation == "1.x":
        worker_opts.append("-Djdk.net.hosts.file=" + hosts_file)
    else:
        extra = dict({
            # Nimbus pushes assignments to <storm.local.hostname>:<this port>; the workers send
            # their heartbeats to it.
            "supervisor.thrift.port": free_port(),
            # How often 2.x workers write their statistics to /workerbeats (a daemon key: the
            # worker reads it from this file, not from the topology conf); 60 s upstream.
            "executor.metrics.frequency.secs": 3,
        }, **(extra or {}))
    conf = {
        "storm.zookeeper.servers": ["localhost"] if generation == "1.x" else [LOOPBACK],
        "storm.zookeeper.port": zk_port,
        "storm.zookeeper.root": zk_root,
        "nimbus.seeds": [LOOPBACK],
        "nimbus.thrift.port": nimbus_port,
        "storm.local.dir": local_dir,
        "storm.local.hostname": LOOPBACK,
        "supervisor.slots.ports": list(slots),
        "worker.childopts": " ".join(worker_opts),
        "worker.heap.memory.mb": WORKER_HEAP_MB,
        # Workers of a rebalanced/killed topology are shut down sooner (default 3 s).
        "supervisor.worker.shutdown.sleep.secs": 1,
    }
    conf.update(extra or {})
    return conf


class RealSupervisor(JavaDaemon):
    """One real Storm supervisor process (``version``) on loopback, with ``slots`` free ports
    (:class:`.oracle.java_daemon.JavaDaemon`).  :meth:`start` returns as soon as it is launched:
    wait for its registration in ZooKeeper (:attr:`supervisor_id`).

    :param nimbus_port: pynimbus's Thrift port on 127.0.0.1 (``nimbus.seeds`` is 127.0.0.1).
    :param workdir: storm.home, storm.yaml, logs and storm.local.dir go there (a temp dir by
        default, deleted by :meth:`stop` unless ``$PYNIMBUS_ORACLE_KEEP`` is set).
    """

    name = "supervisor"
    error = RealStormError
    stop_timeout = 15.0

    def __init__(self, version, zk_port, zk_root, nimbus_port, slots=2, workdir=None,
                 conf=None, java=None):
        self.version = version
        self.generation = maven.generation(version)
        super().__init__("Storm %s supervisor" % version, workdir=workdir,
                         workdir_prefix="pynimbus-realsup-%s-" % version, java=java)
        self.home = StormHome(version, os.path.join(self.workdir, "storm-home"))
        self.ports = [free_port() for _ in range(slots)]
        self.local_dir = os.path.join(self.workdir, "storm-local")
        self.conf_path = os.path.join(self.home.conf_dir, "storm.yaml")
        self.conf = supervisor_conf(self.generation, zk_port, zk_root, nimbus_port, self.ports,
                                    self.local_dir, self.home.hosts_file, conf)

    def build_command(self):
        cmd = [self.java] + SUPERVISOR_JVM_FLAGS + [
            "-Dstorm.home=" + self.home.root,
            "-Dstorm.conf.file=" + self.conf_path,
            "-Dstorm.log.dir=" + self.log_dir,
            "-Dlog4j.configurationFile=" + os.path.join(self.home.log4j2_dir, "cluster.xml"),
        ]
        if self.generation == "1.x":
            cmd.append("-Djdk.net.hosts.file=" + self.home.hosts_file)
        return cmd + ["-cp", self.home.daemon_classpath, SUPERVISOR_CLASS]

    def prepare(self):
        self.home.build(self.log_path)
        for directory in (self.local_dir, self.log_dir):
            os.makedirs(directory, exist_ok=True)
        with open(self.conf_path, "w") as f:
            f.write(yaml_lines(self.conf))
        return self.build_command()

    def environment(self):
        env = dict(os.environ, JAVA_HOME=java_home(self.java))
        env.pop("STORM_CONF_DIR", None)
        env.pop("STORM_EXT_CLASSPATH", None)
        return env

    def shut_down(self, timeout):
        """SIGTERM the supervisor, then SIGKILL its process group (workers included)."""
        if self.process is None:
            return None
        pgid = self.process.pid
        code = terminate(self.process, timeout)
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        deadline = time.monotonic() + 30
        while group_members(pgid) and time.monotonic() < deadline:
            time.sleep(0.05)
        return code

    # Observation

    def worker_processes(self):
        """The worker JVMs (not their LogWriters) running in the supervisor's process group."""
        if self.process is None:
            return []
        main = WORKER_CLASS[self.generation]
        found = []
        for pid in group_members(self.process.pid):
            args = cmdline(pid)
            # A LogWriter's arguments hold its worker's whole command line.
            if main not in args or LOG_WRITER_CLASS in args:
                continue
            tail = args[args.index(main) + 1:]
            # 2.x adds the supervisor's Thrift port before the worker port.
            storm_id, supervisor_id = tail[0], tail[1]
            port, worker_id = tail[-2], tail[-1]
            found.append(WorkerProcess(pid, storm_id, supervisor_id, int(port), worker_id))
        return sorted(found, key=lambda w: w.port)

    def local_state(self, name="localstate"):
        """A LocalState of the supervisor, newest version: ``{key: Thrift struct}``.

        ``name``: ``localstate`` (local assignments, approved workers) or ``isupervisor``
        (``StandaloneSupervisor``'s id).  Port of what ``LocalState.deserializeLatestVersion``
        reads (1.2.4): the newest ``<n>`` file of ``<storm.local.dir>/supervisor/<name>`` that
        has its ``<n>.version`` marker holds a binary-encoded ``LocalStateData`` whose parts
        are binary-encoded structs named by their Java class.
        """
        directory = os.path.join(self.local_dir, "supervisor", name)
        try:
            names = os.listdir(directory)
        except OSError:
            return {}
        versions = [int(n[:-len(".version")]) for n in names
                    if n.endswith(".version") and n[:-len(".version")].isdigit()
                    and n[:-len(".version")] in names]
        if not versions:
            return {}
        with open(os.path.join(directory, str(max(versions))), "rb") as f:
            data = f.read()
        if not data:
            return {}
        parts = thrift_decode(ttypes.LocalStateData(), data).serialized_parts
        return {key: thrift_decode(getattr(ttypes, obj.name.rsplit(".", 1)[-1])(), obj.bits)
                for key, obj in parts.items()}

    @property
    def supervisor_id(self):
        """The id the supervisor made itself (None until it has started)."""
        part = self.local_state("isupervisor").get("supervisor-id")
        return part.supervisor_id if part is not None else None

    def local_assignments(self):
        """``{port: LocalAssignment}`` last stored (LocalState "local-assignments")."""
        part = self.local_state().get("local-assignments")
        return dict(part.assignments or {}) if part is not None else {}

    def worker_log(self, storm_id, port):
        path = os.path.join(self.log_dir, "workers-artifacts", storm_id, str(port), "worker.log")
        return read_text(path)

    def log_text(self):
        return read_text(self.log_path)


def thrift_decode(struct, data):
    """``struct`` filled from Thrift binary ``data`` (TDeserializer's default encoding)."""
    struct.read(TBinaryProtocol(TMemoryBuffer(data)))
    return struct


def group_members(pgid):
    """Pids of the live (non-zombie) processes whose process group is ``pgid``."""
    members = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name) as f:
                stat = f.read()
        except OSError:
            continue
        # Fields after the parenthesised command: state ppid pgrp ...
        fields = stat[stat.rfind(")") + 2:].split()
        if fields[0] != "Z" and int(fields[2]) == pgid:
            members.append(int(name))
    return members


def cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read().decode("utf-8", "replace").split("\0")[:-1]
    except OSError:
        return []


def storm_jar(version, nimbus_port, conf_dir, topology, timeout=300.0):
    """``storm jar <jar> <main class> <args> -c k=v...`` (Storm ``version``) for a
    :class:`Topology`, against the Nimbus on 127.0.0.1:``nimbus_port``.

    Returns the client's output; raises :class:`RealStormError` with it when it fails.
    """
    storm_cli.write_client_conf(conf_dir, nimbus_port)
    argv = ["jar", topology.jar, topology.main_class] + list(topology.args)
    for key, value in sorted(topology.options.items()):
        argv += ["-c", "%s=%s" % (key, json.dumps(value))]
    proc = storm_cli.storm(version, conf_dir, *argv, timeout=timeout)
    output = proc.stdout + proc.stderr
    if proc.returncode != 0:
        raise RealStormError("storm %s exited with %s:\n%s"
                             % (" ".join(argv), proc.returncode, output[-3000:]))
    return output
