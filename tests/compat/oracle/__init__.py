"""The oracle harness: run the real Storm Nimbus daemons and capture what they produce.

Modules:

* :mod:`.maven` -- resolve the Storm jars (and their runtime dependencies) from Maven Central
  into ``<repo>/.cache/maven`` and return classpaths; cached, so later runs need no network;
* :mod:`.java_daemon` -- what every Java daemon of the harness shares: find ``java``, launch in
  a session of its own with its output in a file, wait for readiness with a deadline, stop
  (SIGTERM then SIGKILL) and remove the work directory;
* :mod:`.java_nimbus` -- start and stop a real Nimbus (1.2.4 or 2.x) as a subprocess with a
  generated ``storm.yaml`` pointing at a test ZooKeeper;
* :mod:`.supervisors` -- fake supervisors: ``SupervisorInfo`` ephemeral nodes in ZooKeeper;
* :mod:`.targets` -- "a Nimbus to capture from": a Java Nimbus or ``pynimbus`` on the same
  ZooKeeper, behind one interface;
* :mod:`.thrift_json` -- Thrift structs to plain JSON values;
* :mod:`.capture` -- submit each reference topology (``compat/reference_topologies.py``) through
  our Python Thrift client and capture the replies, the ZooKeeper state and the blobs as JSON;
* :mod:`.compare` -- field-by-field comparison of two captures (the deterministic fields).

Goldens live in ``tests/compat/goldens/<storm version>/<reference id>.json`` and are rewritten by
``scripts/recapture_goldens.py``.
"""

import os
import sys

ORACLE_DIR = os.path.dirname(os.path.abspath(__file__))
COMPAT_DIR = os.path.dirname(ORACLE_DIR)
TESTS_DIR = os.path.dirname(COMPAT_DIR)
REPO = os.path.dirname(TESTS_DIR)
GOLDENS_DIR = os.path.join(COMPAT_DIR, "goldens")

# tests/ holds nimbus_process.py and zookeeper_server.py; the repository holds pynimbus (after
# an installed one: pynimbus_path).
if TESTS_DIR not in sys.path:
    sys.path.insert(0, TESTS_DIR)
from pynimbus_path import put_checkout_on_path  # noqa: E402

put_checkout_on_path()
