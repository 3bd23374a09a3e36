"""pynimbus against the committed goldens of the real Storm Nimbus (default run, no JVM).

Once per module, ``pynimbus dev`` runs in 1.x mode and in 2.x mode (at the same time, each on its
own root of the session's ZooKeeper) and every reference topology of
``compat/reference_topologies.py`` is captured from it exactly as the oracle harness captures a
real Nimbus (:mod:`compat.oracle.capture`).  Each capture is then compared with the golden of
Storm 1.2.4 (1.x) or 2.8.3 (2.x; 2.8.8 is not on the Maven mirror) under
``tests/compat/goldens/``, one test per reference and generation.

Assignments are compared exactly in both generations (node ids and ports included: pynimbus
reproduces 1.2.4's Java HashMap slot order).  What is not compared:

* what never can be (:data:`compat.oracle.compare.LOOSE_IGNORED`: upload paths, gzip bytes);
* the deliberate differences (:data:`compat.oracle.compare.DELIBERATE_DIFFERENCES`);
* :data:`GOLDEN_VERSION_ARTEFACTS`: what differs only because the 2.x goldens are 2.8.3's;
* :data:`KNOWN_GAPS`: differences not fixed yet, each listed with what is missing.

Needs a real ZooKeeper (skipped with the reason otherwise).  The waits of the capture are
shortened (pynimbus runs a monitor round every second and on every submission).
"""

import threading
import time

import pytest

from compat import reference_topologies as refs
from compat.oracle.capture import Capturer
from compat.oracle.compare import (
    differences, format_differences, load_goldens, pynimbus_ignores)
from compat.oracle.targets import pynimbus_target

# tens of seconds (tox -e slow, which CI runs, not the default run)
pytestmark = pytest.mark.slow

GOLDEN_VERSION = {"1.x": "1.2.4", "2.x": "2.8.3"}
# Both exact: pynimbus reproduces 1.2.4's HashMap slot order (clojure_port.java_order) too.
ASSIGNMENT_MODE = {"1.x": "exact", "2.x": "exact"}
REF_IDS = ["_nimbus"] + [r.id for r in refs.REFERENCES]

# The 2.x goldens come from Storm 2.8.3 (2.8.8 is not on the Maven mirror) while pynimbus
# follows 2.8.8: the Nimbus's own version differs by construction.
GOLDEN_VERSION_ARTEFACTS = {
    "1.x": (),
    "2.x": ("/leader/ok/version",),
}

# Differences that remain to be fixed (not deliberate), per generation: fnmatch patterns over
# "/"-joined capture paths, as in compare.differences.  Empty: everything else matches.
KNOWN_GAPS = {
    "1.x": (),
    "2.x": (),
}

# Faster than the oracle defaults (a Java Nimbus needs the longer waits).
CAPTURE_WAITS = dict(settle_secs=1.5, unassigned_wait=2.5, cleanup_wait=1.5)


class Captures:
    """The captures of both generations, made concurrently on first use."""

    def __init__(self, zookeeper):
        self.zookeeper = zookeeper
        self.results = {}
        self.errors = {}
        self.seconds = None

    def _capture(self, generation):
        try:
            with pynimbus_target(generation, self.zookeeper) as target, \
                    Capturer(target, **CAPTURE_WAITS) as capturer:
                self.results[generation] = capturer.capture_all(refs.REFERENCES)
        except Exception as e:  # reported by each test of the generation
            self.errors[generation] = "%s: %s" % (type(e).__name__, e)

    def run(self):
        started = time.monotonic()
        threads = [threading.Thread(target=self._capture, args=(g,), daemon=True)
                   for g in GOLDEN_VERSION]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.seconds = time.monotonic() - started
        return self

    def of(self, generation):
        if generation in self.errors:
            pytest.fail("capturing pynimbus %s failed: %s" % (generation, self.errors[generation]))
        return self.results[generation]


@pytest.fixture(scope="module")
def pynimbus_captures(zookeeper_server):
    return Captures(zookeeper_server).run()


@pytest.fixture(scope="module")
def goldens():
    return {generation: load_goldens(version) for generation, version in GOLDEN_VERSION.items()}


@pytest.mark.parametrize("ref_id", REF_IDS)
@pytest.mark.parametrize("generation", sorted(GOLDEN_VERSION))
def test_pynimbus_matches_golden(pynimbus_captures, goldens, generation, ref_id):
    version = GOLDEN_VERSION[generation]
    golden = goldens[generation].get(ref_id)
    assert golden is not None, "no golden %s/%s.json" % (version, ref_id)
    capture = pynimbus_captures.of(generation).get(ref_id)
    assert capture is not None, "pynimbus %s produced no capture of %s" % (generation, ref_id)
    ignore = (pynimbus_ignores(generation, ref_id) + GOLDEN_VERSION_ARTEFACTS[generation]
              + tuple(KNOWN_GAPS[generation]))
    if ref_id == "_nimbus":
        ignore += ("/nimbus_conf/pynimbus.*",)  # pynimbus's own keys
    diffs = differences(golden, capture, ignore=ignore,
                        assignment=ASSIGNMENT_MODE[generation])
    assert not diffs, "pynimbus %s vs Storm %s, reference %s: %d difference(s)\n%s" % (
        generation, version, ref_id, len(diffs),
        format_differences(diffs, limit=60, width=300))
