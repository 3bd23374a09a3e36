"""The import rule of the layout (tests/layout_rules.py), on the package and on a small package
built here with one breach of each kind, so that the rule is seen to catch what it forbids."""
# test-case-name: tests.test_layout

import os
import textwrap

import layout_rules
from nimbus_process import REPO

PACKAGE = os.path.join(REPO, "pynimbus")


def write_package(root, sources):
    """A package ``pynimbus`` under ``root`` with ``{relative path: source}``; every folder
    gets an ``__init__.py``."""
    package = os.path.join(str(root), "pynimbus")
    for rel, source in sources.items():
        path = os.path.join(package, rel)
        folder = os.path.dirname(path)
        os.makedirs(folder, exist_ok=True)
        while folder.startswith(package):
            open(os.path.join(folder, "__init__.py"), "a").close()
            folder = os.path.dirname(folder)
        with open(path, "w") as f:
            f.write(textwrap.dedent(source))
    return package


def test_the_package_keeps_the_import_rule():
    assert layout_rules.violations(PACKAGE) == []


def test_every_module_of_the_package_is_in_a_room():
    rooms = {layout_rules.room_of(name)[0] for name in layout_rules.modules(PACKAGE)}
    assert "unknown" not in rooms


def test_a_program_importing_another_program_is_a_breach(tmp_path):
    package = write_package(tmp_path, {
        "worker/daemon.py": "from pynimbus.supervisor.code import download\n",
        "supervisor/code.py": "def download(): pass\n"})
    assert layout_rules.violations(package) == [
        "pynimbus/worker/daemon.py:1: pynimbus.worker.daemon imports pynimbus.supervisor.code:"
        " the worker program imports the supervisor program"]


def test_a_module_of_the_same_program_and_the_floors_are_allowed(tmp_path):
    package = write_package(tmp_path, {
        "handlers/pages.py": "from pynimbus.nimbus import store\nfrom pynimbus.common import x\n"
                             "from pynimbus.clojure_port import stats\n",
        "nimbus/store.py": "", "common/x.py": "from pynimbus.cluster import paths\n",
        "cluster/paths.py": "", "clojure_port/stats.py": "from pynimbus.generated import t\n",
        "generated/t.py": ""})
    assert layout_rules.violations(package) == []


def test_a_private_name_taken_from_another_module_is_a_breach(tmp_path):
    package = write_package(tmp_path, {
        "worker/groupings.py": "def _fields(): pass\n",
        "worker/components.py": """\
            from pynimbus.worker.groupings import _fields
            from pynimbus.worker import groupings
            groupings._fields()
            """})
    assert layout_rules.violations(package) == [
        "pynimbus/worker/components.py:1: imports the private name _fields of "
        "pynimbus.worker.groupings",
        "pynimbus/worker/components.py:3: imports the private name _fields of "
        "pynimbus.worker.groupings"]


def test_a_pure_port_importing_io_or_a_floor_is_a_breach(tmp_path):
    package = write_package(tmp_path, {
        "clojure_port/status.py": "import twisted.internet.task\nfrom kazoo import client\n"
                                  "from pynimbus.cluster import state\n",
        "cluster/state.py": ""})
    assert layout_rules.violations(package) == [
        "pynimbus/clojure_port/status.py:1: a pure port imports twisted.internet.task",
        "pynimbus/clojure_port/status.py:2: a pure port imports kazoo",
        "pynimbus/clojure_port/status.py:3: pynimbus.clojure_port.status imports "
        "pynimbus.cluster.state: a pure port imports floor (cluster)"]


def test_a_floor_importing_a_program_or_a_program_importing_the_door_is_a_breach(tmp_path):
    package = write_package(tmp_path, {
        "common/config.py": "from pynimbus.nimbus import daemon\n",
        "nimbus/daemon.py": "from pynimbus import cli\n",
        "cli.py": "from pynimbus.nimbus import daemon\n"})
    assert layout_rules.violations(package) == [
        "pynimbus/common/config.py:1: pynimbus.common.config imports pynimbus.nimbus.daemon: "
        "a floor (common) imports the nimbus program",
        "pynimbus/nimbus/daemon.py:1: pynimbus.nimbus.daemon imports pynimbus.cli: only the "
        "door imports the door (cli)"]


def test_a_module_outside_every_room_is_a_breach(tmp_path):
    package = write_package(tmp_path, {"loose.py": "from pynimbus.common import x\n",
                                       "common/x.py": ""})
    assert layout_rules.violations(package) == [
        "pynimbus/loose.py:1: pynimbus.loose imports pynimbus.common.x: pynimbus.loose is in no "
        "room of the layout (pynimbus.loose)"]
