"""A Storm daemon JVM run by the compat harness: what the real Nimbus (:mod:`.java_nimbus`), the
real UI (``compat/storm_ui.py``) and the real supervisor (``compat/real_storm.py``) share.

:class:`JavaDaemon` owns the process's life: a work directory (a temp dir unless given, deleted
on :meth:`~JavaDaemon.stop` unless ``$PYNIMBUS_ORACLE_KEEP`` is set), the ``java`` command run in
a new session (its own process group) with stdout and stderr appended to
``<workdir>/<name>.out``, a bounded wait until the daemon is ready that fails with the log tail
as soon as the process exits, SIGTERM then SIGKILL on stop, and the context-manager protocol.
A subclass says how: :meth:`~JavaDaemon.prepare` writes its files and returns the command line,
:meth:`~JavaDaemon.readiness` says what it is still waiting for.
"""

import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

from . import maven

KEEP_ENV = "PYNIMBUS_ORACLE_KEEP"
NO_JAVA = "no java executable (set JAVA_HOME or PYNIMBUS_ORACLE_JAVA)"
# log4j2's asynchronous loggers, as bin/storm.py starts the UI and the logviewer
ASYNC_SELECTOR = "org.apache.logging.log4j.core.async.AsyncLoggerContextSelector"

# log4j2 loggers that keep ZooKeeper's and Curator's (shaded or not) INFO chatter out of a log.
QUIET_LOGGERS = """\
    <Logger name="org.apache.storm.shade.org.apache.zookeeper" level="WARN"/>
    <Logger name="org.apache.storm.shade.org.apache.curator" level="WARN"/>
    <Logger name="org.apache.zookeeper" level="WARN"/>
"""

# The log4j2 configuration of a daemon: everything from INFO up (ZooKeeper/Curator from WARN) to
# one file, ``%(log)s``.
LOG4J2_XML = """<?xml version="1.0" encoding="UTF-8"?>
<Configuration status="WARN" monitorInterval="0">
  <Appenders>
    <File name="file" fileName="%(log)s" append="true">
      <PatternLayout pattern="%%d{HH:mm:ss.SSS} %%-5level [%%t] %%c{1.} - %%msg%%n"/>
    </File>
  </Appenders>
  <Loggers>
""" + QUIET_LOGGERS + """\
    <Root level="INFO"><AppenderRef ref="file"/></Root>
  </Loggers>
</Configuration>
"""


def java_executable():
    """The ``java`` to run Storm with: ``$PYNIMBUS_ORACLE_JAVA``, ``$JAVA_HOME/bin/java``, PATH."""
    explicit = os.environ.get("PYNIMBUS_ORACLE_JAVA")
    if explicit:
        return explicit
    home = os.environ.get("JAVA_HOME")
    if home and os.access(os.path.join(home, "bin", "java"), os.X_OK):
        return os.path.join(home, "bin", "java")
    return shutil.which("java")


def yaml_lines(conf):
    """``key: <JSON value>`` lines: JSON scalars, lists and maps are valid YAML flow values."""
    return "".join("%s: %s\n" % (key, json.dumps(value)) for key, value in sorted(conf.items()))


def write_storm_yaml(directory, conf):
    """``<directory>/storm.yaml`` with ``conf`` (:func:`yaml_lines`); its path."""
    path = os.path.join(directory, "storm.yaml")
    with open(path, "w") as f:
        f.write(yaml_lines(conf))
    return path


def storm_1x_unavailable_reason(what="storm-core 1.2.4"):
    """Why a Storm 1.2.4 daemon cannot run here (no java, or ``what``'s jars not served), or
    None."""
    if java_executable() is None:
        return NO_JAVA
    try:
        maven.resolve_classpath(maven.STORM_1X)
    except maven.MavenUnavailable as e:
        return "%s unavailable: %s" % (what, e)
    return None


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


def read_text(path):
    """The text of ``path`` (undecodable bytes replaced), or ``""`` when it cannot be read."""
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


class JavaDaemon:
    """One daemon JVM.  Subclasses set :attr:`name` and :attr:`error`, and implement
    :meth:`prepare` (and :meth:`readiness`, :meth:`environment`, :meth:`shut_down` when the
    defaults do not fit).

    :param label: what error messages call the daemon (``"Storm 1.2.4 Nimbus"``).
    :param workdir: the daemon's directory (``<name>.out``, ``logs/<name>.log``); a temp dir
        named ``workdir_prefix...`` by default, deleted by :meth:`stop` unless ``keep_workdir``
        (default: ``$PYNIMBUS_ORACLE_KEEP`` is set).
    :param java: the ``java`` executable (default :func:`java_executable`).
    """

    name = "daemon"        # <workdir>/<name>.out, <workdir>/logs/<name>.log
    error = RuntimeError   # raised when the daemon cannot start
    start_timeout = 120.0
    stop_timeout = 30.0
    not_ready = "was not ready"  # "<label> <not_ready> within N s"
    poll_interval = 0.25

    def __init__(self, label, workdir=None, workdir_prefix=None, keep_workdir=None, java=None):
        self.label = label
        self._own_workdir = workdir is None
        self.workdir = workdir or tempfile.mkdtemp(prefix=workdir_prefix)
        self.keep_workdir = (bool(os.environ.get(KEEP_ENV)) if keep_workdir is None
                             else keep_workdir)
        self.java = java or java_executable()
        self.log_dir = os.path.join(self.workdir, "logs")
        self.out_path = os.path.join(self.workdir, self.name + ".out")
        self.log_path = os.path.join(self.log_dir, self.name + ".log")
        self.process = None
        self.command = None
        self.started_in = None

    # What a subclass provides

    def prepare(self):
        """Write the daemon's files; return its command line."""
        raise NotImplementedError

    def environment(self):
        """The daemon's environment (None: this process's)."""
        return None

    def readiness(self):
        """None once the daemon is ready, else what was seen instead (polled by :meth:`start`).
        By default a daemon is ready as soon as it is launched."""
        return None

    def shut_down(self, timeout):
        """Stop the process: SIGTERM, SIGKILL after ``timeout`` s; its exit code."""
        return terminate(self.process, timeout)

    # Life cycle

    def start(self, timeout=None):
        """Launch the daemon; return once :meth:`readiness` is None (within ``timeout`` s,
        :attr:`start_timeout` by default).

        :raises error: no java, the process exited during start-up, or not ready in time (the
            message ends with :meth:`log_tail`).  Whatever fails, the daemon is stopped first
            (:meth:`stop`: its work directory goes too unless kept).
        """
        try:
            if self.java is None:
                raise self.error(NO_JAVA)
            self.command = self.prepare()
            started = time.monotonic()
            with open(self.out_path, "ab") as out:
                self.process = subprocess.Popen(self.command, cwd=self.workdir,
                                                env=self.environment(), stdout=out,
                                                stderr=subprocess.STDOUT,
                                                stdin=subprocess.DEVNULL, start_new_session=True)
            self.wait_until_ready(self.start_timeout if timeout is None else timeout)
        except BaseException:
            self.stop()
            raise
        self.started_in = time.monotonic() - started
        return self

    def wait_until_ready(self, timeout):
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise self.error("%s exited with code %s during start-up:\n%s"
                                 % (self.label, self.process.returncode, self.log_tail()))
            last = self.readiness()
            if last is None:
                return
            if time.monotonic() >= deadline:
                raise self.error("%s %s within %.0f s (last: %s):\n%s"
                                 % (self.label, self.not_ready, timeout, last, self.log_tail()))
            time.sleep(self.poll_interval)

    def alive(self):
        return self.process is not None and self.process.poll() is None

    def stop(self, timeout=None):
        """:meth:`shut_down` (``timeout``: :attr:`stop_timeout` by default), then delete the
        work directory unless kept.  Returns the exit code (None if never started)."""
        try:
            return self.shut_down(self.stop_timeout if timeout is None else timeout)
        finally:
            if self._own_workdir and not self.keep_workdir:
                shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc_info):
        self.stop()

    # Diagnostics

    def log_files(self):
        return (self.out_path, self.log_path)

    def log_tail(self, lines=60):
        """The last ``lines`` lines of each non-empty log file, under its path."""
        chunks = []
        for path in self.log_files():
            text = read_text(path)
            if text:
                chunks.append("== %s ==\n%s" % (path, "\n".join(text.splitlines()[-lines:])))
        return "\n".join(chunks) or "(no %s log)" % self.name
