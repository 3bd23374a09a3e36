"""Shared fixtures: configurations, a real ZooKeeper, and cluster-state backends.

``cluster_conf`` is parametrized over the two backends, so a test that uses it (or
``open_backend`` / ``cluster_state``) runs once on the embedded store and once on a real
ZooKeeper.  The ZooKeeper server starts once per session (see ``zookeeper_server.py``) and each
test gets its own ``storm.zookeeper.root``; without the ``zookeeper`` package those runs are
skipped with the reason.
"""

import os
import sys
import time
import uuid

import pytest

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
if TESTS_DIR not in sys.path:  # also under --import-mode=importlib
    sys.path.insert(0, TESTS_DIR)

from pynimbus_path import put_checkout_on_path, stale_installed_sources  # noqa: E402

put_checkout_on_path()  # an installed pynimbus (tox's, maybe compiled) before the checkout

from zookeeper_server import ZooKeeperServer, unavailable_reason  # noqa: E402

from pynimbus.common.config import default_config  # noqa: E402
from fake_clock import FakeClock  # noqa: E402


def pytest_configure(config):
    """Stop before any test if the installed pynimbus is not the checkout's code."""
    stale = stale_installed_sources()
    if stale:
        import pynimbus
        pytest.exit("the installed pynimbus (%s) differs from the checkout in %s: reinstall it "
                    "(pip install .) or run the tests in a virtualenv without it"
                    % (os.path.dirname(pynimbus.__file__), ", ".join(stale[:5])), returncode=4)


BACKENDS = ["embedded", pytest.param("zookeeper", marks=pytest.mark.zookeeper)]


def _running_zookeeper():
    """Start a standalone ZooKeeper on 127.0.0.1, yield it, stop it (skip where it can't run)."""
    reason = unavailable_reason()
    if reason:
        pytest.skip("needs a real ZooKeeper: " + reason)
    server = ZooKeeperServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def zookeeper_server():
    """A standalone ZooKeeper on 127.0.0.1 for the whole test session."""
    yield from _running_zookeeper()


@pytest.fixture
def own_zookeeper():
    """A ZooKeeper of this test's own, which the test may pause and resume (an outage)."""
    yield from _running_zookeeper()


def _test_conf(tmp_path, **overrides):
    conf = default_config()
    conf.update({
        "storm.local.dir": str(tmp_path / "storm-local"),
        "storm.zookeeper.servers": [],
        "storm.zookeeper.root": "/storm",
    })
    conf.update(overrides)
    return conf


@pytest.fixture
def embedded_conf(tmp_path):
    """Configuration selecting the embedded store in a fresh directory."""
    return _test_conf(tmp_path, **{"pynimbus.embedded.state.dir": str(tmp_path / "state")})


@pytest.fixture
def zookeeper_conf(zookeeper_server, tmp_path):
    """Configuration selecting the session's ZooKeeper, under a root of this test's own."""
    return _test_conf(tmp_path, **dict(
        zookeeper_server.storm_conf(),
        **{"storm.zookeeper.root": "/pynimbus-test-%s" % uuid.uuid4().hex,
           "storm.zookeeper.connection.timeout": 10000}))


@pytest.fixture(params=BACKENDS)
def cluster_conf(request):
    """The configuration of one backend; tests using it run on each."""
    return request.getfixturevalue(request.param + "_conf")


@pytest.fixture
def backend_kind(cluster_conf):
    """``"zookeeper"`` or ``"embedded"``: which backend ``cluster_conf`` selects."""
    return "zookeeper" if cluster_conf["storm.zookeeper.servers"] else "embedded"


@pytest.fixture
def open_backend(cluster_conf):
    """A function opening a new backend session on ``cluster_conf`` (closed after the test)."""
    from pynimbus.cluster import make_backend
    opened = []

    def open_(conf=None):
        backend = make_backend(conf or cluster_conf)
        opened.append(backend)
        return backend

    yield open_
    for backend in opened:
        backend.close()


@pytest.fixture
def cluster_state(open_backend):
    """A StormClusterState on a fresh backend of each kind."""
    from pynimbus.cluster import StormClusterState
    return StormClusterState(open_backend())


@pytest.fixture
def clock():
    """A settable clock (Unix seconds) for code that takes ``clock``."""
    return FakeClock()


def poll_until(predicate, timeout=10.0, what="condition", interval=0.02):
    """Poll ``predicate`` until true; fail the test with ``what`` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        if predicate():
            return
        if time.monotonic() > deadline:
            pytest.fail("timed out after %.1f s waiting for %s" % (timeout, what))
        time.sleep(interval)


@pytest.fixture
def wait_until():
    """``wait_until(predicate, timeout, what)``: poll until true; fail with ``what`` on timeout."""
    return poll_until


def dump_tree(backend, path="/"):
    """Every node under ``path`` as ``{path: data}`` (for checking nothing changed)."""
    from pynimbus.cluster.paths import join_path
    tree = {path: backend.get(path)}
    for child in backend.get_children(path):
        tree.update(dump_tree(backend, join_path(path, child)))
    return tree


@pytest.fixture
def tree_of():
    """``tree_of(backend)``: the whole tree as ``{path: data}``."""
    return dump_tree
