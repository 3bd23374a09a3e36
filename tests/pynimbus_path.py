"""Which pynimbus the tests, and the Python processes they start, run.

An installed pynimbus comes first (tox installs the package, its worker modules compiled where
setup.py can: :mod:`pynimbus.common.compiled`), the checkout otherwise; the children get the same
one.  An installed copy whose sources differ from the checkout's would have the tests check
other code than the checkout's: :func:`stale_installed_sources` finds that, and conftest stops.
"""

import filecmp
import os
import sys

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(TESTS_DIR)


def put_checkout_on_path():
    """tests/ first; the checkout last, so that an installed pynimbus is the one imported."""
    if TESTS_DIR not in sys.path:
        sys.path.insert(0, TESTS_DIR)
    if REPO not in sys.path:
        sys.path.append(REPO)


def package_dir():
    """The directory of the pynimbus this process imports."""
    import pynimbus
    return os.path.dirname(os.path.abspath(pynimbus.__file__))


def imported_from_checkout():
    return package_dir() == os.path.join(REPO, "pynimbus")


def child_env(env=None):
    """``env`` (this process's by default) for a child Python that must import the pynimbus
    this process imports: the checkout first on its PYTHONPATH when it is that one."""
    env = dict(os.environ if env is None else env)
    if imported_from_checkout():
        env["PYTHONPATH"] = os.pathsep.join(p for p in (REPO, env.get("PYTHONPATH")) if p)
    return env


def stale_installed_sources():
    """The checkout's ``.py``/``.pxd`` files (relative paths) that an installed pynimbus lacks
    or has otherwise; empty when the checkout is what is imported."""
    if imported_from_checkout():
        return []
    source_root, installed_root = os.path.join(REPO, "pynimbus"), package_dir()
    stale = []
    for folder, _, files in os.walk(source_root):
        for name in files:
            if name.endswith((".py", ".pxd")):
                relative = os.path.relpath(os.path.join(folder, name), source_root)
                installed = os.path.join(installed_root, relative)
                if not (os.path.exists(installed)
                        and filecmp.cmp(os.path.join(folder, name), installed, shallow=False)):
                    stale.append(relative)
    return sorted(stale)
