"""The worker's hot modules, compiled by setup.py where it can (pynimbus.common.compiled).

``PYNIMBUS_EXPECT_COMPILED`` says what this run must find: 1 (CI, which has a compiler: tox's
``py`` env) or 0 (tox's ``pure`` env, an editable install); unset, either is fine, but never a
mix.
"""

import os

import pytest

import pynimbus
import pynimbus.common.compiled as compiled
from pynimbus.worker import acker, daemon


def test_the_compilable_modules_are_those_with_declarations():
    names = compiled.compilable_modules()
    assert "pynimbus.worker.acker" in names and "pynimbus.worker.inprocess.bolt_host" in names
    package_root = os.path.dirname(os.path.dirname(pynimbus.__file__))
    for name in names:
        path = os.path.join(package_root, *name.split("."))
        assert os.path.exists(path + ".pxd") and os.path.exists(path + ".py"), name
        assert name.startswith("pynimbus.worker."), name  # the worker's hot path only
    assert "pynimbus.worker.daemon" not in names  # Twisted's inlineCallbacks: stays Python


def test_a_module_loaded_from_its_py_is_not_compiled():
    assert not compiled.is_compiled(daemon)
    assert compiled.is_compiled(acker) == (not acker.__file__.endswith(".py"))


def test_the_hot_modules_are_all_compiled_or_none():
    state = compiled.compiled_modules()
    assert len(set(state.values())) == 1, state  # acker cimports RotatingMap: no mix works
    assert compiled.describe().startswith("compiled" if all(state.values()) else "pure Python")


@pytest.mark.skipif("PYNIMBUS_EXPECT_COMPILED" not in os.environ,
                    reason="PYNIMBUS_EXPECT_COMPILED unset: this run may be compiled or not")
def test_the_hot_modules_are_compiled_as_this_run_expects():
    expected = os.environ["PYNIMBUS_EXPECT_COMPILED"] == "1"
    assert compiled.compiled_modules() == dict.fromkeys(compiled.compilable_modules(), expected)
