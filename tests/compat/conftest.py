"""Fixtures for the wire tests: one ``pynimbus dev`` process per session, on a free loopback port.

The process is started once (start-up is polled with a deadline until ``getClusterInfo`` is
answered), shared by every test of ``tests/compat``, and stopped at the end of the session with
SIGTERM; a non-zero exit code, or a process that has to be killed, fails the session.
"""

import os
import sys

import pytest

from nimbus_process import NimbusDidNotStop, NimbusProcess


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "/compat/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.compat)


@pytest.fixture(scope="session")
def nimbus(tmp_path_factory):
    """A running ``pynimbus dev`` on 127.0.0.1: ``RunningNimbus(host, port, process, ...)``."""
    local_dir = tmp_path_factory.mktemp("nimbus-local")
    # PYNIMBUS_TEST_PYTHON: run the daemon with another interpreter (default: this one).
    proc = NimbusProcess(local_dir, python=os.environ.get("PYNIMBUS_TEST_PYTHON", sys.executable))
    running = proc.start(timeout=30)
    yield running
    try:
        code = proc.stop(timeout=15)
    except NimbusDidNotStop as e:
        pytest.fail(str(e))
    assert code == 0, "pynimbus dev exited with code %s after SIGTERM:\n%s" % (
        code, proc.log_tail())


@pytest.fixture
def nimbus_alive(nimbus):
    """The session nimbus, checked to still be running before the test."""
    assert nimbus.process.poll() is None, "pynimbus dev died:\n" + nimbus.handle.log_tail()
    return nimbus
