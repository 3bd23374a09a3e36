"""What Storm's own Trident planner builds: golden plans of ``TridentTopology.build()``.

``pynimbus.topologies.TridentPlans`` (``tests/compat/java``, in the reference topology jar built
by :mod:`.topology_jars`) defines a dozen Trident programs, builds each with Storm's planner and
writes ``<outdir>/<scenario>.json``: per spout and bolt of the resulting ``StormTopology`` its
parallelism hint, component conf (``json_conf`` parsed), declared streams, inputs with their
groupings, the class of the deserialized component object and, read from it by reflection, the
Trident coordination state (batch group of each input stream, coordination specs, the master
batch coordinator's managed spouts, the spout executors' transactional state ids).  The committed
copies live in ``tests/compat/goldens/<version>/trident_plans/`` (checked against a fresh run by
``test_trident_plan_goldens.py``); pynimbus's Python planner is compared with them.

:func:`java_plans` runs the generator once for all scenarios (one JVM).
"""

import json
import os
import subprocess

from . import topology_jars
from .oracle import REPO, maven
from .oracle.java_daemon import NO_JAVA, java_executable

MAIN_CLASS = topology_jars.PACKAGE + ".TridentPlans"
SCENARIOS = (
    "seed_example", "seed_example_uncapped", "word_count", "word_count_uncapped", "join",
    "merge", "named", "state_query_beside_persist", "two_batch_groups", "operations",
    "aggregations", "persist_and_values", "drpc_word_count", "drpc_streams",
)
GOLDENS_DIR = os.path.join(REPO, "tests", "compat", "goldens")


class JavaUnavailable(RuntimeError):
    """No ``java`` to run the generator with; ``str()`` is the reason."""


def goldens_dir(version=maven.STORM_1X):
    """The directory of the committed plans of Storm ``version``."""
    return os.path.join(GOLDENS_DIR, version, "trident_plans")


def java_plans(outdir, version=maven.STORM_1X, timeout=300.0):
    """Write ``<outdir>/<scenario>.json`` for every scenario (:data:`SCENARIOS`) with Storm
    ``version``'s planner; returns ``{scenario: parsed JSON}``.

    :raises JavaUnavailable: no ``java`` executable.
    :raises maven.MavenUnavailable: the Storm jars or the reference topology jar cannot be had.
    :raises RuntimeError: the generator failed (its output is in the message).
    """
    java = java_executable()
    if java is None:
        raise JavaUnavailable(NO_JAVA)
    if maven.generation(version) != "1.x":
        raise ValueError("the Trident plan generator is written against Storm 1.x, not %s"
                         % version)
    jar = topology_jars.topology_jar(version)
    classpath = [jar] + maven.resolve_classpath(version)
    os.makedirs(outdir, exist_ok=True)
    cmd = [java, "-cp", os.pathsep.join(classpath), MAIN_CLASS, outdir]
    try:
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise RuntimeError("%s did not finish within %.0f s" % (MAIN_CLASS, timeout))
    output = proc.stdout.decode("utf-8", "replace")
    if proc.returncode != 0:
        raise RuntimeError("%s failed (exit %s):\n%s" % (MAIN_CLASS, proc.returncode,
                                                         output[-5000:]))
    plans = {}
    for name in SCENARIOS:
        path = os.path.join(outdir, name + ".json")
        if not os.path.isfile(path):
            raise RuntimeError("%s wrote no %s:\n%s" % (MAIN_CLASS, path, output[-5000:]))
        with open(path, encoding="utf-8") as f:
            plans[name] = json.load(f)
    return plans


def golden_plans(version=maven.STORM_1X):
    """The committed plans, ``{scenario: parsed JSON}``."""
    plans = {}
    for name in SCENARIOS:
        with open(os.path.join(goldens_dir(version), name + ".json"), encoding="utf-8") as f:
            plans[name] = json.load(f)
    return plans
