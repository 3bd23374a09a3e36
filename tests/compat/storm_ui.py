"""Run the real Storm UI daemon against a Nimbus, and read its REST API.

Storm 1.2.4's UI is ``org.apache.storm.ui.core`` (Clojure, AOT-compiled inside storm-core 1.2.4,
which :mod:`compat.oracle.maven` resolves from Maven Central into ``.cache/maven``).
:class:`StormUI` starts it the way ``bin/storm.py ui`` of v1.2.4 does:

    java -server -Ddaemon.name=ui -Dstorm.home=<home> -Dstorm.log.dir=<home>/logs
         -Dstorm.conf.file=<home>/storm.yaml -cp <storm jars>:<home>:<home>/conf
         -Dlogfile.name=ui.log
         -DLog4jContextSelector=org.apache.logging.log4j.core.async.AsyncLoggerContextSelector
         -Dlog4j.configurationFile=<home>/log4j2.xml  org.apache.storm.ui.core

(``storm.py`` puts ``STORM_DIR`` and ``conf/`` after the jars; ``ui.childopts`` and
``java.library.path`` are left at their defaults) with a generated ``storm.yaml`` holding
``ui.host: 127.0.0.1``, ``ui.port`` (a free port) and ``nimbus.seeds`` / ``nimbus.thrift.port``
naming the Nimbus under test.  The UI opens a new Nimbus connection (``getLeader`` first) for
every request; it does not use ZooKeeper.

ring-cors: storm-core 1.2.4's POM names ``ring-cors:ring-cors:0.1.5`` (Clojars only, excluded by
``maven.py``), but the storm-core jar already carries that namespace AOT-compiled and relocated
(``org/apache/storm/shade/ring/middleware/cors__init.class``), which is the one ``ui.core``
requires.  So nothing has to stand in for it; :func:`bundled_cors` checks it is there.

:func:`get_json` reads one endpoint: the HTTP status and the decoded JSON body (Storm answers
errors as JSON too: ``{"error": ..., "errorMessage": <stack trace>}`` with status 500).
"""

import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
import zipfile

from compat.oracle import maven
from compat.oracle.java_nimbus import LOG4J2_XML, java_executable, yaml_lines
from nimbus_process import LOOPBACK, free_port

UI_VERSION = maven.STORM_1X
UI_MAIN_CLASS = "org.apache.storm.ui.core"
CORS_INIT_CLASS = "org/apache/storm/shade/ring/middleware/cors__init.class"
ASYNC_SELECTOR = "org.apache.logging.log4j.core.async.AsyncLoggerContextSelector"

# The UI's ring/Jetty log lines that name a failure while rendering a request.
LOG_ERROR_MARKERS = ("ERROR", "Exception", "Caused by")


class StormUIError(RuntimeError):
    pass


def storm_core_jar(classpath):
    for jar in classpath:
        if os.path.basename(jar).startswith("storm-core-"):
            return jar
    raise StormUIError("no storm-core jar in the Storm %s classpath" % UI_VERSION)


def bundled_cors(classpath):
    """True when storm-core carries the relocated ring-cors namespace ``ui.core`` requires."""
    with zipfile.ZipFile(storm_core_jar(classpath)) as jar:
        return CORS_INIT_CLASS in jar.namelist()


def unavailable_reason():
    """Why the Storm 1.2.4 UI cannot run here (resolving its jars if needed), or None."""
    java = java_executable()
    if java is None:
        return "no java executable (set JAVA_HOME or PYNIMBUS_ORACLE_JAVA)"
    try:
        classpath = maven.resolve_classpath(UI_VERSION)
    except maven.MavenUnavailable as e:
        return "Storm %s jars unavailable: %s" % (UI_VERSION, e)
    if not bundled_cors(classpath):
        return ("%s lacks %s (the UI's CORS middleware); cannot start the UI"
                % (storm_core_jar(classpath), CORS_INIT_CLASS))
    return None


def get_json(base_url, path, timeout=30.0):
    """``(status, body)``: GET ``base_url + path``; body is decoded JSON (or the raw text when
    it is not JSON)."""
    request = urllib.request.Request(base_url + path, headers={"Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as e:
        status, raw = e.code, e.read()
    text = raw.decode("utf-8", "replace")
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


class StormUI:
    """One ``org.apache.storm.ui.core`` process on 127.0.0.1, talking to ``nimbus_host:port``.

    :param conf: extra ``storm.yaml`` keys.
    :param workdir: ``storm.home`` (storm.yaml, log4j2.xml, logs/); a temp dir by default,
        deleted by :meth:`stop` unless ``$PYNIMBUS_ORACLE_KEEP`` is set.
    """

    def __init__(self, nimbus_host, nimbus_port, conf=None, workdir=None, java=None):
        self.nimbus_host = nimbus_host
        self.nimbus_port = nimbus_port
        self.extra_conf = dict(conf or {})
        self._own_workdir = workdir is None
        self.workdir = workdir or tempfile.mkdtemp(prefix="pynimbus-storm-ui-")
        self.keep_workdir = bool(os.environ.get("PYNIMBUS_ORACLE_KEEP"))
        self.java = java or java_executable()
        self.port = free_port()
        self.log_dir = os.path.join(self.workdir, "logs")
        self.log_path = os.path.join(self.log_dir, "ui.log")
        self.out_path = os.path.join(self.workdir, "ui.out")
        self.process = None
        self.command = None
        self.started_in = None

    @property
    def base_url(self):
        return "http://%s:%d" % (LOOPBACK, self.port)

    def storm_conf(self):
        conf = {
            "ui.host": LOOPBACK,
            "ui.port": self.port,
            "nimbus.seeds": [self.nimbus_host],
            "nimbus.thrift.port": self.nimbus_port,
            "storm.local.dir": os.path.join(self.workdir, "storm-local"),
            # A dead Nimbus should fail a request in seconds, not after 5 backed-off retries.
            "storm.nimbus.retry.times": 1,
            "storm.nimbus.retry.interval.millis": 200,
        }
        conf.update(self.extra_conf)
        return conf

    def _write_files(self):
        os.makedirs(self.log_dir, exist_ok=True)
        os.makedirs(os.path.join(self.workdir, "conf"), exist_ok=True)
        with open(os.path.join(self.workdir, "storm.yaml"), "w") as f:
            f.write(yaml_lines(self.storm_conf()))
        with open(os.path.join(self.workdir, "log4j2.xml"), "w") as f:
            f.write(LOG4J2_XML % {"log": self.log_path})

    def build_command(self, classpath):
        """The ``storm ui`` command line of bin/storm.py v1.2.4 (see the module docstring)."""
        home = self.workdir
        log4j2 = os.path.join(home, "log4j2.xml")
        cp = list(classpath) + [home, os.path.join(home, "conf")]
        return [self.java, "-server", "-Ddaemon.name=ui",
                "-Dstorm.home=" + home,
                "-Dstorm.log.dir=" + self.log_dir,
                "-Dstorm.conf.file=" + os.path.join(home, "storm.yaml"),
                "-cp", os.pathsep.join(cp),
                # ui.childopts (default -Xmx768m) made smaller for a test machine.
                "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Djava.net.preferIPv4Stack=true",
                "-Dlogfile.name=ui.log",
                "-DLog4jContextSelector=" + ASYNC_SELECTOR,
                "-Dlog4j.configurationFile=" + log4j2,
                "-Dlog4j2.configurationFile=" + log4j2,
                UI_MAIN_CLASS]

    def start(self, timeout=90.0):
        """Start the UI; return once ``/api/v1/cluster/summary`` answers 200 (or raise)."""
        if self.java is None:
            raise StormUIError("no java executable (set JAVA_HOME or PYNIMBUS_ORACLE_JAVA)")
        classpath = maven.resolve_classpath(UI_VERSION)
        self._write_files()
        self.command = self.build_command(classpath)
        started = time.monotonic()
        with open(self.out_path, "ab") as out:
            self.process = subprocess.Popen(self.command, cwd=self.workdir, stdout=out,
                                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                            start_new_session=True)
        try:
            self.wait_until_serving(timeout)
        except BaseException:
            self.stop()
            raise
        self.started_in = time.monotonic() - started
        return self

    def wait_until_serving(self, timeout):
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise StormUIError("Storm UI exited with code %s during start-up:\n%s"
                                   % (self.process.returncode, self.log_tail()))
            try:
                status, body = get_json(self.base_url, "/api/v1/cluster/summary", timeout=10.0)
                if status == 200:
                    return
                last = "HTTP %s: %s" % (status, str(body)[:500])
            except OSError as e:
                last = repr(e)
            time.sleep(0.25)
        raise StormUIError("Storm UI did not serve /api/v1/cluster/summary within %.0f s "
                           "(last: %s):\n%s" % (timeout, last, self.log_tail()))

    def get(self, path):
        return get_json(self.base_url, path)

    def stop(self, timeout=20.0):
        """SIGTERM (SIGKILL after ``timeout``); the work directory is deleted unless kept."""
        code = None
        try:
            if self.process is not None:
                if self.process.poll() is None:
                    self.process.send_signal(signal.SIGTERM)
                    try:
                        self.process.wait(timeout)
                    except subprocess.TimeoutExpired:
                        self.process.kill()
                        self.process.wait(30)
                code = self.process.returncode
        finally:
            if self._own_workdir and not self.keep_workdir:
                shutil.rmtree(self.workdir, ignore_errors=True)
        return code

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc_info):
        self.stop()

    # Diagnostics

    def read_log(self):
        chunks = []
        for path in (self.out_path, self.log_path):
            try:
                with open(path, "rb") as f:
                    chunks.append(f.read().decode("utf-8", "replace"))
            except OSError:
                pass
        return "\n".join(chunks)

    def error_lines(self):
        """Log lines naming an error or exception (what a failed page leaves behind)."""
        return [line for line in self.read_log().splitlines()
                if any(marker in line for marker in LOG_ERROR_MARKERS)]

    def log_tail(self, lines=60):
        return "\n".join(self.read_log().splitlines()[-lines:]) or "(no log)"
