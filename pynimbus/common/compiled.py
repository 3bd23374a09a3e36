"""Which of pynimbus's modules run compiled.

setup.py compiles, with Cython, every module that has a ``.pxd`` beside its ``.py`` (the
worker's hot path), except in editable installs and where Cython or a C compiler is missing:
then the same ``.py`` runs.  The figures of a benchmark depend on it, so they say which.
"""

import importlib
import importlib.machinery
import os

PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # pynimbus/


def compilable_modules():
    """Sorted names of the modules setup.py compiles when it can."""
    names = []
    for folder, _, files in os.walk(PACKAGE_DIR):
        package = os.path.relpath(folder, os.path.dirname(PACKAGE_DIR)).replace(os.sep, ".")
        names.extend("%s.%s" % (package, name[:-len(".pxd")])
                     for name in files if name.endswith(".pxd"))
    return sorted(names)


def is_compiled(module):
    """The module was loaded from an extension module, not from its ``.py``."""
    return (module.__file__ or "").endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


def compiled_modules():
    """``{name: compiled?}`` of every compilable module (importing each)."""
    return {name: is_compiled(importlib.import_module(name)) for name in compilable_modules()}


def describe():
    """One line for logs and benchmark headers: how many of the modules run compiled."""
    state = compiled_modules()
    compiled = sum(state.values())
    if compiled == len(state):
        return "compiled (Cython): all %d hot modules" % compiled
    if not compiled:
        return "pure Python (no hot module compiled)"
    return "partly compiled: %s pure Python" % ", ".join(
        name for name, done in sorted(state.items()) if not done)
