"""The pure core imports no Twisted, kazoo or sqlite3 and touches no file when imported."""
# test-case-name: tests.test_port_is_pure

import json
import os
import pkgutil
import subprocess
import sys

import pytest

import pynimbus.clojure_port
from purity import imported_modules

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FORBIDDEN = ("twisted", "kazoo", "sqlite3", "_sqlite3")
PACKAGE_DIR = os.path.dirname(pynimbus.clojure_port.__file__)


def _modules():
    names = ["pynimbus.clojure_port"]
    for info in pkgutil.walk_packages([PACKAGE_DIR], "pynimbus.clojure_port."):
        names.append(info.name)
    return sorted(names)


def _sources():
    for root, _dirs, files in os.walk(PACKAGE_DIR):
        for name in files:
            if name.endswith(".py"):
                yield os.path.join(root, name)


# Runs in a fresh interpreter: import the generated Thrift types first (their package imports
# the Twisted flavour of the Nimbus service, which is not ours to fix here), note the modules
# loaded, then forbid opening files and import the module under test.
_PROBE = r"""
import builtins, io, json, os, sys
import pynimbus.generated.storm.ttypes
before = set(sys.modules)
opened = []
def _no_open(*args, **kwargs):
    opened.append(repr(args[:1]))
    raise OSError("the pure core must not open files at import")
builtins.open = io.open = os.open = _no_open
import importlib
importlib.import_module(sys.argv[1])
new = sorted(m for m in set(sys.modules) - before if m.split(".")[0] in %r)
print(json.dumps({"new": new, "opened": opened}))
""" % (FORBIDDEN,)


@pytest.mark.parametrize("module", _modules())
def test_importing_a_core_module_loads_no_io_library_and_opens_no_file(module):
    """Importing each clojure_port module in a fresh interpreter adds no forbidden module and
    opens no file."""
    result = subprocess.run([sys.executable, "-c", _PROBE, module], cwd=REPO_ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report == {"new": [], "opened": []}


@pytest.mark.parametrize("path", sorted(_sources()), ids=os.path.basename)
def test_core_sources_import_no_io_library(path):
    """No clojure_port source file imports Twisted, kazoo or sqlite3, even lazily."""
    imported = sorted(imported_modules(path))
    assert [m for m in imported if m.split(".")[0] in FORBIDDEN] == []
