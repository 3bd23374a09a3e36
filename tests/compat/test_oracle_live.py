"""Opt-in: the real Storm Nimbus daemons vs the goldens, and pynimbus vs the real daemons.

Runs only with ``PYNIMBUS_ORACLE=1`` (``tox -e oracle`` sets it): it needs Java, Maven Central
(first run only; jars are cached in ``.cache/maven``) and Debian's ZooKeeper, and takes a few
minutes per Storm version.

* ``test_java_nimbus_matches_goldens``: a fresh capture from the real Nimbus equals the committed
  golden (the harness is deterministic and the goldens are current);
* ``test_pynimbus_matches_java``: pynimbus (``pynimbus dev`` on the same ZooKeeper, with
  ``pynimbus.storm.compat`` 1.x or 2.x) captured the same way equals the real Nimbus of that
  generation, ignoring only pynimbus's documented deliberate differences
  (``compare.pynimbus_ignores``).

One capture per target (all references, in order) is made on first use and shared by the tests.
Assignments are compared exactly in both generations (1.x reproduces Java's HashMap order).
"""

import os

import pytest

from compat import reference_topologies as refs
from compat.oracle import maven
from compat.oracle.capture import Capturer
from compat.oracle.compare import (ALWAYS_IGNORED, differences, format_differences,
                                   golden_versions, load_goldens, pynimbus_ignores)
from compat.oracle.java_daemon import java_executable
from compat.oracle.targets import java_target, pynimbus_target

ENABLED = os.environ.get("PYNIMBUS_ORACLE") == "1"

pytestmark = [
    pytest.mark.oracle,
    pytest.mark.skipif(not ENABLED, reason="oracle tests run with PYNIMBUS_ORACLE=1 "
                                           "(tox -e oracle): they start real Storm daemons"),
]

VERSIONS = list(maven.configured_versions())
REF_IDS = [r.id for r in refs.REFERENCES]
CAPTURE_IDS = ["_nimbus"] + REF_IDS


class Runs:
    """Captures made so far in this session, keyed by target label."""

    def __init__(self, zookeeper):
        self.zookeeper = zookeeper
        self.captures = {}
        self.failures = {}

    def _run(self, label, make_target):
        if label in self.failures:
            pytest.skip(self.failures[label])
        if label not in self.captures:
            try:
                with make_target() as target, Capturer(target) as capturer:
                    self.captures[label] = capturer.capture_all(refs.REFERENCES)
            except maven.MavenUnavailable as e:
                self.failures[label] = "Storm %s unavailable: %s" % (label, e)
                pytest.skip(self.failures[label])
        return self.captures[label]

    def java(self, version):
        if java_executable() is None:
            pytest.skip("no java executable")
        return self._run(version, lambda: java_target(version, self.zookeeper))

    def pynimbus(self, generation):
        return self._run("pynimbus-" + generation,
                         lambda: pynimbus_target(generation, self.zookeeper))


@pytest.fixture(scope="session")
def oracle_runs(zookeeper_server):
    return Runs(zookeeper_server)


@pytest.mark.parametrize("ref_id", CAPTURE_IDS)
@pytest.mark.parametrize("version", VERSIONS)
def test_java_nimbus_matches_goldens(oracle_runs, version, ref_id):
    if version not in golden_versions():
        pytest.skip("no goldens for Storm %s (scripts/recapture_goldens.py)" % version)
    goldens = load_goldens(version)
    if ref_id not in goldens:
        pytest.fail("no golden %s/%s.json: recapture the goldens" % (version, ref_id))
    capture = oracle_runs.java(version)[ref_id]
    diffs = differences(goldens[ref_id], capture, ignore=ALWAYS_IGNORED)
    assert not diffs, "Storm %s, %s differs from its golden:\n%s" % (
        version, ref_id, format_differences(diffs))



@pytest.mark.parametrize("ref_id", CAPTURE_IDS)
@pytest.mark.parametrize("version", VERSIONS)
def test_pynimbus_matches_java(oracle_runs, version, ref_id):
    generation = maven.generation(version)
    expected = oracle_runs.java(version)[ref_id]
    actual = oracle_runs.pynimbus(generation)[ref_id]
    ignore = pynimbus_ignores(generation, ref_id)
    if ref_id == "_nimbus":
        # Nimbus-wide defaults: compared key by key too, but pynimbus adds its own keys.
        ignore += ("/nimbus_conf/pynimbus.*",)
    diffs = differences(expected, actual, ignore=ignore, assignment="exact")
    assert not diffs, "pynimbus (%s) vs Storm %s, %s:\n%s" % (
        generation, version, ref_id, format_differences(diffs))
