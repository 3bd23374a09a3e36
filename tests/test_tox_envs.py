"""tox's compat environment runs every compat test that waits for it: a test module gated on
``PYNIMBUS_COMPAT`` that tox does not name would skip everywhere, CI included."""

import configparser
import os
import re

from pynimbus_path import REPO

COMPAT_DIR = os.path.join(REPO, "tests", "compat")


def compat_command_modules():
    tox = configparser.ConfigParser(interpolation=None)
    tox.read(os.path.join(REPO, "tox.ini"))
    return set(re.findall(r"tests/compat/(test_\w+\.py)", tox["testenv:compat"]["commands"]))


def gated_modules():
    gated = set()
    for name in os.listdir(COMPAT_DIR):
        if name.startswith("test_") and name.endswith(".py"):
            with open(os.path.join(COMPAT_DIR, name), encoding="utf-8") as f:
                text = f.read()
            # gated directly, or through another module's ENABLED flag
            if "PYNIMBUS_COMPAT" in text or re.search(r"import .*\bENABLED\b", text):
                gated.add(name)
    return gated


def test_tox_compat_runs_every_module_gated_on_pynimbus_compat():
    missing = gated_modules() - compat_command_modules()
    assert not missing, "tox.ini's [testenv:compat] does not run: %s" % ", ".join(
        sorted(missing))
