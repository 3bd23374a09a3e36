"""Run the real Storm UI daemon against a Nimbus, and read its REST API.

Storm 1.2.4 (``generation="1.x"``): the UI is ``org.apache.storm.ui.core`` (Clojure,
AOT-compiled inside storm-core 1.2.4, which :mod:`compat.oracle.maven` resolves from Maven
Central into ``.cache/maven``).  :class:`StormUI` starts it the way ``bin/storm.py ui`` of v1.2.4
does::

    java -server -Ddaemon.name=ui -Dstorm.home=<home> -Dstorm.log.dir=<home>/logs
         -Dstorm.conf.file=<home>/storm.yaml -cp <storm jars>:<home>:<home>/conf <ui.childopts>
         -Dlogfile.name=ui.log
         -DLog4jContextSelector=org.apache.logging.log4j.core.async.AsyncLoggerContextSelector
         -Dlog4j.configurationFile=<home>/log4j2.xml  org.apache.storm.ui.core

(``ui.childopts`` is replaced by a smaller heap; ``java.library.path`` is left at its default)
with a generated ``storm.yaml``: ``ui.host: 127.0.0.1``, ``ui.port`` a free port,
``nimbus.seeds`` / ``nimbus.thrift.port`` naming the Nimbus under test.  The UI opens a new Nimbus
connection (``getLeader`` first) for every request and does not use ZooKeeper.

ring-cors: storm-core 1.2.4's POM names ``ring-cors:ring-cors:0.1.5`` (Clojars only, excluded by
``maven.py``), but the storm-core jar already holds that namespace AOT-compiled and relocated
(``org/apache/storm/shade/ring/middleware/cors__init.class``), which is the name ``ui.core``
requires, so nothing has to stand in for it (:func:`bundled_cors` checks it is there).

Storm 2.x (``generation="2.x"``): the UI lives in ``org.apache.storm:storm-webapp``, which Maven
Central does not serve in any version, so it is built from an apache/storm source checkout named
by ``$PYNIMBUS_STORM_SRC`` (tag v2.8.8) with :func:`build_webapp`: ``mvn`` resolves the
dependencies (``maven.WEBAPP``: storm-core/storm-server/storm-client 2.8.3, the newest 2.x served,
and storm-webapp's own dependencies at v2.8.3's versions) and ``javac`` compiles
``storm-webapp/src/main/java`` into ``.cache/storm-webapp/<hash of the sources>/classes`` (about
20 s the first time; nothing is committed).  The HTML/JS bundle (a Node build) is not made: only
the REST API is exercised.  2.8.8's ``UIServer.main`` binds every interface (2.x has no
``ui.host``), so the process runs ``ui_shim/PynimbusLoopbackUIServer.java``, which wires the same
REST API onto 127.0.0.1; otherwise the command line is ``bin/storm.py ui`` of v2.8.8 (``-server
-Ddaemon.name=ui ... -Djava.deserialization.disabled=true -Dlogfile.name=ui.log
-Dlog4j.configurationFile=...``).

:func:`get_json` reads one endpoint: the HTTP status and the decoded JSON body (both UIs answer
errors as JSON too, ``{"error": ..., "errorMessage": ...}`` with status 500).
"""

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import urllib.error
import urllib.request
import zipfile

from compat.oracle import COMPAT_DIR, maven
from compat.oracle.java_daemon import (
    ASYNC_SELECTOR, LOG4J2_XML, JavaDaemon, java_executable, read_text, write_storm_yaml)
from nimbus_process import LOOPBACK, free_port

# The Storm release whose jars each UI runs on (and reports as its "stormVersion").
UI_VERSIONS = {"1.x": maven.STORM_1X, "2.x": maven.STORM_2X}
UI_LABELS = {"1.x": "Storm 1.2.4 UI", "2.x": "Storm 2.8.8 UI (storm-webapp)"}
MAIN_CLASSES = {"1.x": "org.apache.storm.ui.core", "2.x": "PynimbusLoopbackUIServer"}
CORS_INIT_CLASS = "org/apache/storm/shade/ring/middleware/cors__init.class"

SRC_ENV = "PYNIMBUS_STORM_SRC"
SHIM_DIR = os.path.join(COMPAT_DIR, "ui_shim")
LAUNCHER_SOURCE = os.path.join(SHIM_DIR, "PynimbusLoopbackUIServer.java")
WEBAPP_BUILD_DIR = os.path.join(os.path.dirname(maven.CACHE_DIR), "storm-webapp")
WEBAPP_SOURCES = os.path.join("storm-webapp", "src", "main", "java")
JAVAC_TIMEOUT = 600.0

# Log lines that name a failure inside the UI daemon.
LOG_ERROR_MARKERS = (" ERROR ", "Exception in thread")


class StormUIError(RuntimeError):
    pass


class WebappUnavailable(RuntimeError):
    """storm-webapp cannot be built here; ``str()`` is the reason."""


def storm_core_jar(classpath):
    for jar in classpath:
        if os.path.basename(jar).startswith("storm-core-"):
            return jar
    raise StormUIError("no storm-core jar in the classpath")


def bundled_cors(classpath):
    """True when storm-core carries the relocated ring-cors namespace ``ui.core`` requires."""
    with zipfile.ZipFile(storm_core_jar(classpath)) as jar:
        return CORS_INIT_CLASS in jar.namelist()


# Storm 2.x: storm-webapp built from a source checkout


def webapp_source_files(src):
    """The ``.java`` files of storm-webapp in checkout ``src``, sorted."""
    root = os.path.join(src, WEBAPP_SOURCES)
    found = []
    for dirpath, _dirs, files in os.walk(root):
        found.extend(os.path.join(dirpath, f) for f in files if f.endswith(".java"))
    return sorted(found)


def _digest(paths, classpath):
    h = hashlib.sha256()
    for path in paths:
        h.update(path.encode("utf-8") + b"\0")
        with open(path, "rb") as f:
            h.update(f.read())
    h.update("\n".join(classpath).encode("utf-8"))
    return h.hexdigest()[:16]


def build_webapp(src, log=None):
    """Compile storm-webapp of checkout ``src`` plus the loopback launcher; return the classes
    directory (reused while the sources and classpath are unchanged).

    :raises WebappUnavailable: no sources, a dependency that cannot be resolved, javac failing.
    """
    sources = webapp_source_files(src)
    if not sources:
        raise WebappUnavailable("%s has no storm-webapp sources (%s); point %s at an "
                                "apache/storm v2.8.8 checkout" % (src, WEBAPP_SOURCES, SRC_ENV))
    try:
        classpath = maven.resolve_classpath(maven.STORM_2X, kind=maven.WEBAPP, log=log)
    except maven.MavenUnavailable as e:
        raise WebappUnavailable("storm-webapp's dependencies cannot be resolved: %s" % e)
    sources.append(LAUNCHER_SOURCE)
    out = os.path.join(WEBAPP_BUILD_DIR, _digest(sources, classpath))
    classes = os.path.join(out, "classes")
    if os.path.isdir(classes):
        return classes
    javac = shutil.which("javac")
    java = java_executable()
    if java and os.access(os.path.join(os.path.dirname(java), "javac"), os.X_OK):
        javac = os.path.join(os.path.dirname(java), "javac")
    if javac is None:
        raise WebappUnavailable("no javac (a JDK is needed to build storm-webapp)")
    os.makedirs(WEBAPP_BUILD_DIR, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="build-", dir=WEBAPP_BUILD_DIR)
    try:
        argfile = os.path.join(tmp, "sources.txt")
        with open(argfile, "w") as f:
            f.write("\n".join('"%s"' % s for s in sources) + "\n")
        cmd = [javac, "--release", "17", "-nowarn", "-encoding", "UTF-8",
               "-cp", os.pathsep.join(classpath), "-d", os.path.join(tmp, "classes"),
               "@" + argfile]
        if log:
            log("building storm-webapp from %s" % src)
        try:
            proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, timeout=JAVAC_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise WebappUnavailable("javac did not compile storm-webapp within %.0f s"
                                    % JAVAC_TIMEOUT)
        if proc.returncode != 0:
            raise WebappUnavailable("javac failed on storm-webapp of %s:\n%s" % (
                src, proc.stdout.decode("utf-8", "replace")[-3000:]))
        os.makedirs(out, exist_ok=True)
        try:
            os.rename(os.path.join(tmp, "classes"), classes)
        except OSError:
            if not os.path.isdir(classes):  # else another run finished the same build first
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return classes


def ui_classpath(generation):
    """The classpath of the UI of ``generation`` (building storm-webapp for 2.x)."""
    if generation == "1.x":
        return maven.resolve_classpath(maven.STORM_1X)
    src = os.environ.get(SRC_ENV)
    if not src:
        raise WebappUnavailable(
            "storm-webapp (the 2.x UI) is not served by Maven Central; set %s to an "
            "apache/storm v2.8.8 checkout to build it" % SRC_ENV)
    classes = build_webapp(src)
    return maven.resolve_classpath(maven.STORM_2X, kind=maven.WEBAPP) + [classes]


def unavailable_reason(generation="1.x"):
    """Why the UI of ``generation`` cannot run here (resolving / building it if needed)."""
    if java_executable() is None:
        return "no java executable (set JAVA_HOME or PYNIMBUS_ORACLE_JAVA)"
    try:
        classpath = ui_classpath(generation)
    except (maven.MavenUnavailable, WebappUnavailable) as e:
        return "%s unavailable: %s" % (UI_LABELS[generation], e)
    if generation == "1.x" and not bundled_cors(classpath):
        return ("%s lacks %s (the UI's CORS middleware)"
                % (storm_core_jar(classpath), CORS_INIT_CLASS))
    return None


# HTTP


def get_json(base_url, path, timeout=30.0):
    """``(status, body)`` of GET ``base_url + path``; body is decoded JSON, or the raw text
    when it is not JSON."""
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


class StormUI(JavaDaemon):
    """One Storm UI process on 127.0.0.1 (:class:`.oracle.java_daemon.JavaDaemon`), talking to
    the Nimbus at ``nimbus_host:port``; ready once ``/api/v1/cluster/summary`` answers 200.

    :param generation: ``"1.x"`` (1.2.4's ``ui.core``) or ``"2.x"`` (storm-webapp, built).
    :param conf: extra ``storm.yaml`` keys.
    :param workdir: ``storm.home`` (storm.yaml, log4j2.xml, logs/); a temp dir by default,
        deleted by :meth:`stop` unless ``$PYNIMBUS_ORACLE_KEEP`` is set.
    """

    name = "ui"
    error = StormUIError
    start_timeout = 90.0
    stop_timeout = 20.0
    not_ready = "did not serve /api/v1/cluster/summary"

    def __init__(self, nimbus_host, nimbus_port, generation="1.x", conf=None, workdir=None,
                 java=None):
        if generation not in UI_VERSIONS:
            raise ValueError("generation must be 1.x or 2.x, not %r" % (generation,))
        super().__init__(UI_LABELS[generation], workdir=workdir,
                         workdir_prefix="pynimbus-storm-ui-", java=java)
        self.generation = generation
        self.version = UI_VERSIONS[generation]
        self.nimbus_host = nimbus_host
        self.nimbus_port = nimbus_port
        self.extra_conf = dict(conf or {})
        self.port = free_port()

    @property
    def base_url(self):
        return "http://%s:%d" % (LOOPBACK, self.port)

    def storm_conf(self):
        conf = {
            "ui.port": self.port,
            "nimbus.seeds": [self.nimbus_host],
            "nimbus.thrift.port": self.nimbus_port,
            "storm.local.dir": os.path.join(self.workdir, "storm-local"),
            # A dead Nimbus should fail a request in seconds, not after 5 backed-off retries.
            "storm.nimbus.retry.times": 1,
            "storm.nimbus.retry.interval.millis": 200,
        }
        if self.generation == "1.x":
            conf["ui.host"] = LOOPBACK  # 2.x has no ui.host: its launcher binds loopback
        conf.update(self.extra_conf)
        return conf

    def _write_files(self):
        os.makedirs(self.log_dir, exist_ok=True)
        os.makedirs(os.path.join(self.workdir, "conf"), exist_ok=True)
        write_storm_yaml(self.workdir, self.storm_conf())
        with open(os.path.join(self.workdir, "log4j2.xml"), "w") as f:
            f.write(LOG4J2_XML % {"log": self.log_path})

    def build_command(self, classpath):
        """``bin/storm.py ui`` of the generation's release (see the module docstring)."""
        home = self.workdir
        log4j2 = os.path.join(home, "log4j2.xml")
        cp = list(classpath) + [home, os.path.join(home, "conf")]
        cmd = [self.java, "-server", "-Ddaemon.name=ui",
               "-Dstorm.home=" + home,
               "-Dstorm.log.dir=" + self.log_dir,
               "-Dstorm.conf.file=" + os.path.join(home, "storm.yaml"),
               "-cp", os.pathsep.join(cp),
               # ui.childopts (default -Xmx768m), smaller for a test machine
               "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
               "-Djava.net.preferIPv4Stack=true"]
        if self.generation == "2.x":
            cmd.append("-Djava.deserialization.disabled=true")
        cmd.append("-Dlogfile.name=ui.log")
        if self.generation == "1.x":
            cmd.append("-DLog4jContextSelector=" + ASYNC_SELECTOR)
        cmd += ["-Dlog4j.configurationFile=" + log4j2, "-Dlog4j2.configurationFile=" + log4j2,
                MAIN_CLASSES[self.generation]]
        return cmd

    def prepare(self):
        classpath = ui_classpath(self.generation)
        self._write_files()
        return self.build_command(classpath)

    def readiness(self):
        try:
            status, body = get_json(self.base_url, "/api/v1/cluster/summary", timeout=10.0)
        except OSError as e:
            return repr(e)
        return None if status == 200 else "HTTP %s: %s" % (status, str(body)[:500])

    def get(self, path):
        return get_json(self.base_url, path)

    # Diagnostics

    def read_log(self):
        return "\n".join(text for text in map(read_text, self.log_files()) if text)

    def error_blocks(self, context=3):
        """Each log line naming a failure, with the ``context`` lines after it (the exception
        and the top of its stack)."""
        lines = self.read_log().splitlines()
        return ["\n".join(lines[i:i + 1 + context]) for i, line in enumerate(lines)
                if any(marker in line for marker in LOG_ERROR_MARKERS)]
