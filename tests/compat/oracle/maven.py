"""Resolve the jars of a Storm release into a classpath, cached under ``<repo>/.cache/maven``.

The first call for a version writes a throwaway ``pom.xml`` into a temporary directory and runs
``mvn dependency:build-classpath`` with ``-Dmaven.repo.local=<repo>/.cache/maven/repo``: Maven
downloads the artifacts and their runtime dependencies from Maven Central into that local
repository and prints the classpath, which is kept in
``<repo>/.cache/maven/classpaths/storm-<version>.txt``.  Later calls read that file and only check
that every jar is still there, so they need neither Maven nor the network.  ``.cache/`` is in
``.gitignore``: nothing downloaded is ever committed.

Artifacts:

* Storm 1.x: ``org.apache.storm:storm-core`` (one shaded jar + clojure, log4j2, kryo...).  Its
  pom names ``ring-cors:ring-cors:0.1.5``, which lives on Clojars only (it is the UI's CORS
  middleware, unused by Nimbus), so it is excluded; the storm-core jar carries that namespace
  AOT-compiled and relocated anyway, so the UI runs from this classpath.
* Storm 2.x: ``org.apache.storm:storm-server`` + ``org.apache.storm:storm-client``.

The stock ``storm`` client (``compat/storm_cli.py``) needs the classpaths of a binary
distribution's ``lib`` directories, which Maven Central does not serve as such
(:func:`client_classpath`):

* 1.x ``lib``: ``storm-core`` and its dependencies, i.e. the Nimbus classpath above.
* 2.x ``lib`` (every command but ``storm jar``): ``org.apache.storm:storm-core`` (the commands
  ``KillTopology``, ``ListTopologies``... live there) and its dependencies, without
  ``org.clojars.bipinprasad:carbonite`` (Clojars only; storm-clojure's serializers, unused by the
  commands).  2.x ``lib-worker`` (``storm jar``): ``org.apache.storm:storm-client`` and its
  dependencies (upstream ``storm-dist/binary``: ``lib`` = storm-core's dependency set,
  ``lib-worker`` = storm-client's).
* 2.x ``lib-webapp`` (``WEBAPP``, for the UI built from source by ``compat/storm_ui.py``):
  storm-core (without carbonite), storm-server, storm-client and storm-webapp's own
  dependencies; storm-webapp itself is not served by Maven Central in any version.

Single jars without dependencies (``multilang-python``, whose ``resources/storm.py`` the
reference topologies ship) come from :func:`artifact_jar`.

:class:`MavenUnavailable` says why a classpath cannot be had (no ``mvn``, Maven Central
unreachable, a version that is not served); tests turn it into a skip reason.
"""

import collections
import os
import re
import shutil
import subprocess
import tempfile

from . import REPO

CACHE_DIR = os.environ.get("PYNIMBUS_ORACLE_MAVEN_CACHE") or os.path.join(REPO, ".cache", "maven")
LOCAL_REPO = os.path.join(CACHE_DIR, "repo")
CLASSPATH_DIR = os.path.join(CACHE_DIR, "classpaths")

# The maven-dependency-plugin that Maven 3.8's super-POM binds by default; pinned so a run never
# has to look up "the newest" plugin version.
DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:2.8"

# Storm 2.8.8 is what pynimbus targets, but Maven Central as reachable from here does not serve
# storm-server/storm-client/storm-core 2.8.8 (404; 2.8.4 has no parent POM, 2.8.5-2.8.7 are not
# served either); 2.8.3 is the newest 2.x whose artifacts resolve.  Between the v2.8.3 and v2.8.8
# tags the Nimbus paths this harness exercises are unchanged: two NPE guards (mkAssignments on
# an assignment deleted meanwhile, getSupervisorPageInfo for an unknown host), a HeartbeatCache
# fix (RPC heartbeats whose time does not advance), two new optional eventlogger conf keys, the
# commons-lang3 migration.  Override with PYNIMBUS_ORACLE_VERSIONS=1.2.4,2.8.8 once it is served.
STORM_1X = "1.2.4"
STORM_2X = "2.8.3"
TARGET_2X = "2.8.8"
DEFAULT_VERSIONS = (STORM_1X, STORM_2X)

Artifact = collections.namedtuple("Artifact", "group artifact version exclusions")
Release = collections.namedtuple("Release", "version generation artifacts nimbus_class")

# Output of Maven that means "could not reach the repository" rather than "no such artifact".
_OFFLINE_PATTERNS = re.compile(
    r"Unknown host|UnknownHostException|Connection refused|Network is unreachable|"
    r"connect timed out|Connect to .* failed|No route to host|"
    r"Temporary failure in name resolution|cannot access central .* in offline mode", re.I)
_NOT_FOUND_PATTERNS = re.compile(r"Could not find artifact|was not found in", re.I)


class MavenUnavailable(RuntimeError):
    """The classpath of a release cannot be resolved here; ``str()`` is the reason."""


def configured_versions():
    """Storm versions to run: ``$PYNIMBUS_ORACLE_VERSIONS`` (comma-separated) or the default."""
    value = os.environ.get("PYNIMBUS_ORACLE_VERSIONS", "").strip()
    if not value:
        return DEFAULT_VERSIONS
    return tuple(v.strip() for v in value.split(",") if v.strip())


def generation(version):
    """``"1.x"`` or ``"2.x"`` for a Storm version string."""
    major = version.split(".", 1)[0]
    if major not in ("1", "2"):
        raise ValueError("unsupported Storm version %r (only 1.x and 2.x)" % version)
    return major + ".x"


def release(version):
    """The :class:`Release` (artifacts, Nimbus main class) of a Storm version."""
    if generation(version) == "1.x":
        return Release(version, "1.x",
                       [Artifact("org.apache.storm", "storm-core", version,
                                 [("ring-cors", "ring-cors")])],
                       "org.apache.storm.daemon.nimbus")
    return Release(version, "2.x",
                   [Artifact("org.apache.storm", "storm-server", version, []),
                    Artifact("org.apache.storm", "storm-client", version, [])],
                   "org.apache.storm.daemon.nimbus.Nimbus")


def pom_xml(rel, artifacts=None, name=None):
    """A minimal POM whose dependencies are the release's artifacts (or ``artifacts``)."""
    deps = []
    for a in rel.artifacts if artifacts is None else artifacts:
        exclusions = "".join(
            "<exclusion><groupId>%s</groupId><artifactId>%s</artifactId></exclusion>" % ex
            for ex in a.exclusions)
        deps.append(
            "    <dependency><groupId>%s</groupId><artifactId>%s</artifactId>"
            "<version>%s</version>%s</dependency>"
            % (a.group, a.artifact, a.version,
               "<exclusions>%s</exclusions>" % exclusions if exclusions else ""))
    return "\n".join([
        '<project xmlns="http://maven.apache.org/POM/4.0.0">',
        "  <modelVersion>4.0.0</modelVersion>",
        "  <groupId>pynimbus.oracle</groupId>",
        "  <artifactId>%s</artifactId>" % (name or "storm-" + rel.version).replace(".", "-"),
        "  <version>0</version>",
        "  <packaging>pom</packaging>",
        "  <dependencies>",
    ] + deps + ["  </dependencies>", "</project>", ""])


# Which classpath of a release: the Nimbus one, or a client distribution directory.
NIMBUS = "nimbus"
CLIENT_LIB = "lib"
CLIENT_LIB_WORKER = "lib-worker"
WEBAPP = "webapp"  # 2.x lib-webapp: what storm-webapp (the UI) compiles and runs against

CLOJARS_ONLY_2X = [("org.clojars.bipinprasad", "carbonite")]
LOGBACK = [("ch.qos.logback", "logback-classic"), ("ch.qos.logback", "logback-core"),
           ("ch.qos.logback", "logback-access")]
# storm-webapp's own dependencies (its v2.8.8 pom), at the versions of the Storm 2.x release
# resolved (v2.8.3's root pom): 2.8.8's jetty-ee10-servlets 12.1.9 is not served here.
WEBAPP_DEPENDENCIES_2X = [
    ("net.minidev", "json-smart", "2.6.0", []),
    ("org.apache.logging.log4j", "log4j-slf4j2-impl", "2.25.2", []),
    ("org.apache.logging.log4j", "log4j-core", "2.25.2", []),
    ("io.dropwizard.metrics", "metrics-core", "4.2.37", []),
    ("org.slf4j", "slf4j-api", "2.0.17", []),
    ("com.fasterxml.jackson.core", "jackson-databind", "2.20.0", []),
    ("io.dropwizard", "dropwizard-core", "5.0.0", LOGBACK),
    ("io.dropwizard", "dropwizard-assets", "5.0.0", []),
    ("com.j2html", "j2html", "1.6.0", []),
    ("jakarta.ws.rs", "jakarta.ws.rs-api", "3.1.0", []),
    ("org.eclipse.jetty.ee10", "jetty-ee10-servlet", "12.1.1", []),
    ("org.eclipse.jetty.ee10", "jetty-ee10-servlets", "12.1.1", []),
    ("org.glassfish.jersey.containers", "jersey-container-grizzly2-http", "3.1.11", []),
    ("org.glassfish.jersey.inject", "jersey-hk2", "3.1.11", []),
    ("org.glassfish.jersey.containers", "jersey-container-grizzly2-servlet", "3.1.11", []),
]


def classpath_artifacts(version, kind=NIMBUS):
    """``(cache name, [Artifact])`` of one classpath of Storm ``version`` (see the docstring)."""
    rel = release(version)
    if kind == NIMBUS or rel.generation == "1.x":
        if kind not in (NIMBUS, CLIENT_LIB, CLIENT_LIB_WORKER):
            raise ValueError("unknown classpath kind %r" % (kind,))
        return "storm-%s" % version, rel.artifacts
    if kind == CLIENT_LIB:
        return ("storm-%s-client-lib" % version,
                [Artifact("org.apache.storm", "storm-core", version, CLOJARS_ONLY_2X)])
    if kind == CLIENT_LIB_WORKER:
        return ("storm-%s-client-lib-worker" % version,
                [Artifact("org.apache.storm", "storm-client", version, [])])
    if kind == WEBAPP:
        return ("storm-%s-webapp" % version,
                [Artifact("org.apache.storm", "storm-core", version, CLOJARS_ONLY_2X),
                 Artifact("org.apache.storm", "storm-server", version, []),
                 Artifact("org.apache.storm", "storm-client", version, [])]
                + [Artifact(*dep) for dep in WEBAPP_DEPENDENCIES_2X])
    raise ValueError("unknown classpath kind %r" % (kind,))


def classpath_file(version, name=None):
    return os.path.join(CLASSPATH_DIR, "%s.txt" % (name or "storm-%s" % version))


def cached_classpath(version, name=None):
    """The cached classpath of ``version`` if every jar in it is present, else None."""
    path = classpath_file(version, name)
    try:
        with open(path) as f:
            jars = [line.strip() for line in f if line.strip()]
    except OSError:
        return None
    if jars and all(os.path.isfile(jar) for jar in jars):
        return jars
    return None


def resolve_classpath(version, timeout=900.0, log=None, kind=NIMBUS):
    """Return the list of jar paths making up the classpath of Storm ``version``'s Nimbus
    (``kind`` NIMBUS) or of a client distribution directory (CLIENT_LIB, CLIENT_LIB_WORKER).

    :raises MavenUnavailable: with the reason (no mvn, Maven Central unreachable, not served).
    """
    name, artifacts = classpath_artifacts(version, kind)
    return resolve_artifacts(name, artifacts, "Storm %s" % version, timeout, log)


def resolve_artifacts(name, artifacts, what, timeout=900.0, log=None):
    """The jar paths of ``artifacts`` (:class:`Artifact`) and their runtime dependencies, cached
    as the classpath ``name``; ``what`` names them in messages.

    :raises MavenUnavailable: with the reason (no mvn, Maven Central unreachable, not served).
    """
    jars = cached_classpath(None, name)
    if jars:
        return jars
    mvn = shutil.which("mvn")
    if mvn is None:
        raise MavenUnavailable("mvn is not installed (apt-get install maven) and %s is not "
                               "in the cache %s" % (what, CACHE_DIR))
    os.makedirs(LOCAL_REPO, exist_ok=True)
    os.makedirs(CLASSPATH_DIR, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="pynimbus-oracle-mvn-") as tmp:
        with open(os.path.join(tmp, "pom.xml"), "w") as f:
            f.write(pom_xml(None, artifacts, name))
        out_file = os.path.join(tmp, "classpath.txt")
        cmd = [mvn, "-B", "-q", "-Dmaven.repo.local=" + LOCAL_REPO,
               DEPENDENCY_PLUGIN + ":build-classpath", "-Dmdep.includeScope=runtime",
               "-Dmdep.outputFile=" + out_file]
        if log:
            log("resolving %s with: %s" % (what, " ".join(cmd)))
        try:
            proc = subprocess.run(cmd, cwd=tmp, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise MavenUnavailable("mvn did not finish resolving %s within %.0f s (Maven "
                                   "Central slow or unreachable)" % (what, timeout))
        output = proc.stdout.decode("utf-8", "replace")
        if proc.returncode != 0 or not os.path.exists(out_file):
            errors = "\n".join(line for line in output.splitlines() if "ERROR" in line)[:2000]
            if _OFFLINE_PATTERNS.search(output):
                raise MavenUnavailable("Maven Central is unreachable, cannot resolve %s:\n%s"
                                       % (what, errors))
            if _NOT_FOUND_PATTERNS.search(output):
                raise MavenUnavailable("%s is not served by Maven Central here:\n%s"
                                       % (what, errors))
            raise MavenUnavailable("mvn failed (exit %s) resolving %s:\n%s"
                                   % (proc.returncode, what, errors or output[-2000:]))
        with open(out_file) as f:
            jars = [j for j in f.read().strip().split(os.pathsep) if j]
    if not jars or not all(os.path.isfile(j) for j in jars):
        raise MavenUnavailable("mvn returned an incomplete classpath for %s" % what)
    tmp_cp = "%s.%d.tmp" % (classpath_file(None, name), os.getpid())
    with open(tmp_cp, "w") as f:
        f.write("\n".join(jars) + "\n")
    os.replace(tmp_cp, classpath_file(None, name))
    return jars


def client_classpath(version, kind=CLIENT_LIB):
    """The jars of a binary distribution's ``lib`` (or 2.x ``lib-worker``) directory."""
    return resolve_classpath(version, kind=kind)


def artifact_jar(group, artifact, version, timeout=600.0):
    """Path of one artifact's jar (no dependencies) in the local repository, fetched if needed.

    :raises MavenUnavailable: no mvn, Maven Central unreachable or the artifact not served.
    """
    path = os.path.join(LOCAL_REPO, *group.split("."), artifact, version,
                        "%s-%s.jar" % (artifact, version))
    if os.path.isfile(path):
        return path
    mvn = shutil.which("mvn")
    if mvn is None:
        raise MavenUnavailable("mvn is not installed (apt-get install maven) and %s is not in "
                               "the cache" % path)
    coordinates = "%s:%s:%s" % (group, artifact, version)
    cmd = [mvn, "-B", "-q", "-Dmaven.repo.local=" + LOCAL_REPO, DEPENDENCY_PLUGIN + ":get",
           "-Dartifact=" + coordinates, "-Dtransitive=false"]
    try:
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise MavenUnavailable("mvn did not fetch %s within %.0f s" % (coordinates, timeout))
    output = proc.stdout.decode("utf-8", "replace")
    if proc.returncode != 0 or not os.path.isfile(path):
        errors = "\n".join(line for line in output.splitlines() if "ERROR" in line)[:2000]
        if _OFFLINE_PATTERNS.search(output):
            raise MavenUnavailable("Maven Central is unreachable, cannot fetch %s:\n%s"
                                   % (coordinates, errors))
        raise MavenUnavailable("mvn could not fetch %s (exit %s):\n%s"
                               % (coordinates, proc.returncode, errors or output[-2000:]))
    return path


def unavailable_reason(version):
    """Why ``version`` cannot be run here (resolving it if needed), or None when it can."""
    try:
        resolve_classpath(version)
    except MavenUnavailable as e:
        return str(e)
    return None
