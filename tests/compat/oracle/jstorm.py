"""JStorm 2.2.1's own placement, run on pynimbus's placement cases (the oracle of
``pynimbus.jstorm_port``).

``com.alibaba.jstorm:jstorm-core:2.2.1`` and its runtime dependencies are resolved from Maven
Central into ``.cache/maven`` (:func:`.maven.resolve_artifacts`, cached), our harness
``tests/compat/jstorm_oracle/PlacementOracle.java`` is compiled against them into
``.cache/jstorm-oracle/<digest of the source>/``, and :func:`jstorm_placements` runs it once on a
list of cases (one JVM for all).  :class:`OracleUnavailable` says why it cannot run (no Java, no
mvn, Maven Central unreachable, javac failing); tests turn it into a skip.
"""

import hashlib
import json
import os
import shutil
import subprocess
import tempfile

from . import COMPAT_DIR, REPO, maven

JSTORM_VERSION = "2.2.1"
HARNESS_SOURCE = os.path.join(COMPAT_DIR, "jstorm_oracle", "PlacementOracle.java")
BUILD_ROOT = os.path.join(REPO, ".cache", "jstorm-oracle")


class OracleUnavailable(RuntimeError):
    """JStorm's placement cannot be run here; ``str()`` is the reason."""


def jstorm_classpath():
    """The jars of jstorm-core 2.2.1 and its runtime dependencies."""
    try:
        return maven.resolve_artifacts(
            "jstorm-%s" % JSTORM_VERSION,
            [maven.Artifact("com.alibaba.jstorm", "jstorm-core", JSTORM_VERSION, [])],
            "JStorm %s" % JSTORM_VERSION)
    except maven.MavenUnavailable as e:
        raise OracleUnavailable(str(e))


def _java_tool(name):
    home = os.environ.get("JAVA_HOME")
    if home and os.access(os.path.join(home, "bin", name), os.X_OK):
        return os.path.join(home, "bin", name)
    found = shutil.which(name)
    if found is None:
        raise OracleUnavailable("no %s on PATH (a JDK is needed for the JStorm oracle)" % name)
    return found


def compiled_harness(classpath, timeout=300.0):
    """The directory of the compiled harness (compiled once per source digest)."""
    with open(HARNESS_SOURCE, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:16]
    out_dir = os.path.join(BUILD_ROOT, digest)
    if os.path.isfile(os.path.join(out_dir, "PlacementOracle.class")):
        return out_dir
    os.makedirs(BUILD_ROOT, exist_ok=True)
    tmp_dir = tempfile.mkdtemp(prefix="build-", dir=BUILD_ROOT)
    cmd = [_java_tool("javac"), "-nowarn", "-encoding", "UTF-8", "-cp", os.pathsep.join(classpath),
           "-d", tmp_dir, HARNESS_SOURCE]
    try:
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=timeout)
    except subprocess.TimeoutExpired:
        shutil.rmtree(tmp_dir, ignore_errors=True)
        raise OracleUnavailable("javac did not compile the JStorm harness within %.0f s" % timeout)
    if proc.returncode != 0:
        shutil.rmtree(tmp_dir, ignore_errors=True)
        raise OracleUnavailable("javac failed on the JStorm harness:\n%s"
                                % proc.stdout.decode("utf-8", "replace")[-2000:])
    try:
        os.rename(tmp_dir, out_dir)
    except OSError:  # another run compiled it meanwhile
        shutil.rmtree(tmp_dir, ignore_errors=True)
    return out_dir


def jstorm_placements(cases, timeout=300.0):
    """JStorm 2.2.1's placement of each case (as :func:`pynimbus.jstorm_port.case_json.place_case`
    returns it: a sorted worker list, or ``{"error": ..., "message": ...}``).

    :raises OracleUnavailable: no JDK, jstorm-core not resolvable, the harness failing.
    """
    classpath = jstorm_classpath()
    harness = compiled_harness(classpath)
    with tempfile.TemporaryDirectory(prefix="pynimbus-jstorm-oracle-") as tmp:
        cases_file = os.path.join(tmp, "cases.json")
        out_file = os.path.join(tmp, "placements.json")
        with open(cases_file, "w") as f:
            json.dump(cases, f)
        cmd = [_java_tool("java"), "-Xmx256m", "-cp", os.pathsep.join([harness] + classpath),
               "PlacementOracle", cases_file, out_file]
        try:
            proc = subprocess.run(cmd, cwd=tmp, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise OracleUnavailable("the JStorm harness did not finish within %.0f s" % timeout)
        if proc.returncode != 0 or not os.path.exists(out_file):
            raise OracleUnavailable("the JStorm harness failed (exit %s):\n%s" % (
                proc.returncode, proc.stdout.decode("utf-8", "replace")[-2000:]))
        with open(out_file) as f:
            return json.load(f)
