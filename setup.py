"""Build of pynimbus: metadata in setup.cfg; here only the optional compiled modules.

Every module of the package with a ``.pxd`` beside its ``.py`` (the worker's hot path: its
acker, ids, groupers, stats, spout pending, executors) is compiled by Cython from that same
``.py`` source, the ``.pxd`` declaring its classes as extension types.  The ``.py`` stays
the one source of truth and runs as it is wherever the compiled module is absent:

- editable installs (``pip install -e .``) are never compiled, so an edited ``.py`` is what
  runs (a ``.so`` beside it would shadow it);
- without Cython or a C compiler the build warns and installs the pure-Python package.

``pynimbus.common.compiled.compiled_modules()`` tells at run time which modules are compiled.
"""

import importlib.util
import os
import sys

from setuptools import setup
from setuptools.command.build_ext import build_ext
from setuptools.extension import Extension

HERE = os.path.dirname(os.path.abspath(__file__))


def compiled_module_sources():
    """``{module name: .py path}`` of the modules pynimbus.common.compiled names (those with a
    ``.pxd`` beside their ``.py``); that module is loaded by its path, as the package's
    dependencies need not be installed yet."""
    spec = importlib.util.spec_from_file_location(
        "pynimbus_compiled", os.path.join(HERE, "pynimbus", "common", "compiled.py"))
    compiled = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(compiled)
    return {name: name.replace(".", os.sep) + ".py" for name in compiled.compilable_modules()}


class optional_build_ext(build_ext):
    """``build_ext`` that compiles the modules above with Cython when it can, and otherwise
    leaves the pure-Python package (never fails the install for want of a compiler)."""

    def run(self):
        if getattr(self, "editable_mode", False) or self.inplace:
            self._skip("an editable or in-place build runs the .py sources as they are")
            return
        try:
            from Cython.Build import cythonize
        except ImportError:
            self._skip("Cython is not installed")
            return
        if self.parallel is None:
            self.parallel = os.cpu_count() or 1
        try:
            for extension in self.extensions:  # .py -> .c, keeping setuptools' Extension
                (translated,) = cythonize(
                    [Extension(extension.name, extension.sources)],
                    build_dir=os.path.join(self.build_temp, "cython"),
                    compiler_directives={"language_level": 3}, quiet=True)
                extension.sources = translated.sources
            super().run()
        except Exception as error:  # no compiler, no headers: the pure package still works
            for output in self.get_outputs():  # all compiled or none (cimports tie them)
                if os.path.exists(output):
                    os.remove(output)
            self._skip("compiling failed: %s" % (error,))

    def _skip(self, reason):
        self.extensions = []
        sys.stderr.write("pynimbus: installing the pure-Python worker modules (%s)\n" % reason)


setup(
    ext_modules=[Extension(name, [source])
                 for name, source in compiled_module_sources().items()],
    cmdclass={"build_ext": optional_build_ext},
)
