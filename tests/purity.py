"""The modules a Python source file imports, read from its AST (for the purity tests)."""

import ast
import os


def imported_modules(module_or_path):
    """Return the set of module names a module (or a ``.py`` path) imports, at any depth.

    ``import a.b`` gives ``"a.b"``, ``from a.b import c`` gives ``"a.b"``; a relative import
    keeps its leading dots (``from .x import y`` gives ``".x"``, ``from . import y`` ``"."``).
    """
    path = module_or_path if isinstance(module_or_path, str) else source_path(module_or_path)
    with open(path) as source:
        tree = ast.parse(source.read(), path)
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            imported.add("." * node.level + (node.module or ""))
    return imported


def source_path(module):
    """The ``.py`` a module was loaded from, or was compiled from (pynimbus.common.compiled): an
    installed package has it beside the extension module."""
    return os.path.join(os.path.dirname(module.__file__),
                        module.__name__.rpartition(".")[2] + ".py")
