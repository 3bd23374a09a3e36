"""Build the reference topology jar (``tests/compat/java``) for a Storm version, cached.

:func:`topology_jar` runs Maven once per Storm version and source state: the module is compiled
against ``storm-core`` (1.x) or ``storm-client`` (2.x) as a ``provided`` dependency, and
``resources/storm.py`` -- Storm's multilang helper, which the ``split`` ShellBolt imports -- is
copied at build time from ``org.apache.storm:multilang-python:2.8.3`` (:func:`storm_py`; Maven
Central serves no 1.2.4 multilang-python, and the storm.py of 1.2.3, the newest 1.x it serves,
differs from 2.8.3's only in blank lines, comments and the shebang).  Output goes to
``.cache/topology-jars/<version>-<digest>/`` (``.cache/`` is in ``.gitignore``), where the
digest covers the sources, the pom and the Storm version, so an edit rebuilds and an unchanged
tree never does.  Maven's plugins are named with fixed versions, so a build never asks for
"the newest" of anything, and they land in the same local repository as the Storm jars
(:mod:`.oracle.maven`).

Main classes (package ``pynimbus.topologies``; each takes ``<topology name> [num workers]`` and
submits with ``StormSubmitter.submitTopology``): ``ExclamationTopology``, ``WordCountTopology``
(its ``split`` bolt is the multilang ShellBolt), ``TridentWordCount``, ``AllGroupingsTopology``
(every TopologyBuilder grouping), ``UserScoreTopology`` (the seed Trident example:
groupBy/aggregate/toStream/each).
"""

import hashlib
import os
import shutil
import subprocess
import tempfile
import zipfile

from .oracle import REPO, maven

JAVA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "java")
BUILD_ROOT = os.path.join(REPO, ".cache", "topology-jars")

PACKAGE = "pynimbus.topologies"
EXCLAMATION = PACKAGE + ".ExclamationTopology"
WORD_COUNT = PACKAGE + ".WordCountTopology"
TRIDENT_WORD_COUNT = PACKAGE + ".TridentWordCount"
ALL_GROUPINGS = PACKAGE + ".AllGroupingsTopology"
USER_SCORE = PACKAGE + ".UserScoreTopology"
MAIN_CLASSES = (EXCLAMATION, WORD_COUNT, TRIDENT_WORD_COUNT, ALL_GROUPINGS, USER_SCORE)

# Storm's storm.py for the ShellBolt, from this artifact (see the module docstring).
MULTILANG_PYTHON = ("org.apache.storm", "multilang-python", maven.STORM_2X)
STORM_PY_ENTRY = "resources/storm.py"

PLUGINS = (
    "org.apache.maven.plugins:maven-resources-plugin:3.3.1:resources",
    "org.apache.maven.plugins:maven-compiler-plugin:3.13.0:compile",
    "org.apache.maven.plugins:maven-jar-plugin:3.4.2:jar",
)


def storm_py():
    """The bytes of Storm's ``storm.py`` (``resources/storm.py`` of :data:`MULTILANG_PYTHON`),
    the jar fetched once into the local Maven repository under ``.cache``; never committed.

    :raises maven.MavenUnavailable: no mvn, Maven Central unreachable or the artifact not served.
    """
    with zipfile.ZipFile(maven.artifact_jar(*MULTILANG_PYTHON)) as z:
        return z.read(STORM_PY_ENTRY)


def storm_artifact(version):
    """The artifact the topologies compile against: storm-core (1.x) or storm-client (2.x)."""
    return "storm-core" if maven.generation(version) == "1.x" else "storm-client"


def _source_files():
    files = []
    for base, dirs, names in os.walk(JAVA_DIR):
        dirs[:] = sorted(d for d in dirs if d not in ("target",))
        files.extend(os.path.join(base, n) for n in sorted(names)
                     if not n.endswith((".class", ".pyc")))
    return sorted(files)


def source_digest(version):
    """Digest of the module's files and the Storm version (names the build directory)."""
    h = hashlib.sha256(("%s\n%s\n" % (version, "\n".join(PLUGINS))).encode("utf-8"))
    for path in _source_files():
        h.update(os.path.relpath(path, JAVA_DIR).encode("utf-8") + b"\0")
        with open(path, "rb") as f:
            h.update(f.read())
        h.update(b"\0")
    return h.hexdigest()[:16]


def jar_name(version):
    return "pynimbus-topologies-%s.jar" % version


def cached_jar(version):
    """The jar of the current sources if already built, else None."""
    path = os.path.join(BUILD_ROOT, "%s-%s" % (version, source_digest(version)), jar_name(version))
    return path if os.path.isfile(path) else None


def topology_jar(version, timeout=900.0, log=None):
    """Path of the reference topology jar for Storm ``version``, building it if needed.

    :raises maven.MavenUnavailable: no mvn, Maven Central unreachable, or the build failed
        (the message has Maven's errors).
    """
    found = cached_jar(version)
    if found:
        return found
    out_dir = os.path.join(BUILD_ROOT, "%s-%s" % (version, source_digest(version)))
    mvn = shutil.which("mvn")
    if mvn is None:
        raise maven.MavenUnavailable("mvn is not installed (apt-get install maven); it builds "
                                     "the reference topologies of tests/compat/java")
    # The Storm API the module compiles against, resolved like the clients' classpaths.
    maven.resolve_classpath(version, kind=maven.CLIENT_LIB_WORKER)
    storm_py_bytes = storm_py()
    os.makedirs(BUILD_ROOT, exist_ok=True)
    build_dir = tempfile.mkdtemp(prefix=".build-%s-" % version, dir=BUILD_ROOT)
    try:
        multilang = os.path.join(build_dir, "multilang", "resources")
        os.makedirs(multilang)
        with open(os.path.join(multilang, "storm.py"), "wb") as f:
            f.write(storm_py_bytes)
        cmd = [mvn, "-B", "-q", "-f", os.path.join(JAVA_DIR, "pom.xml"),
               "-Dmaven.repo.local=" + maven.LOCAL_REPO,
               "-Dstorm.artifact=" + storm_artifact(version), "-Dstorm.version=" + version,
               "-Dpynimbus.build.dir=" + build_dir,
               "-Dpynimbus.multilang.dir=" + os.path.join(build_dir, "multilang")] + list(PLUGINS)
        if log:
            log("building the reference topologies for Storm %s: %s" % (version, " ".join(cmd)))
        try:
            proc = subprocess.run(cmd, cwd=build_dir, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  timeout=timeout)
        except subprocess.TimeoutExpired:
            raise maven.MavenUnavailable("mvn did not build the reference topologies for Storm "
                                         "%s within %.0f s" % (version, timeout))
        built = os.path.join(build_dir, jar_name(version))
        if proc.returncode != 0 or not os.path.isfile(built):
            output = proc.stdout.decode("utf-8", "replace")
            raise maven.MavenUnavailable("mvn failed (exit %s) building the reference topologies "
                                         "for Storm %s:\n%s" % (proc.returncode, version,
                                                                output[-3000:]))
        os.makedirs(out_dir, exist_ok=True)
        tmp = os.path.join(out_dir, ".%s.%d" % (jar_name(version), os.getpid()))
        shutil.copyfile(built, tmp)
        os.replace(tmp, os.path.join(out_dir, jar_name(version)))
    finally:
        shutil.rmtree(build_dir, ignore_errors=True)
    return os.path.join(out_dir, jar_name(version))
