"""The modules a Python source file imports, read from its AST (for the purity tests)."""

import ast


def imported_modules(module_or_path):
    """Return the set of module names a module (or a ``.py`` path) imports, at any depth.

    ``import a.b`` gives ``"a.b"``, ``from a.b import c`` gives ``"a.b"``; a relative import
    keeps its leading dots (``from .x import y`` gives ``".x"``, ``from . import y`` ``"."``).
    """
    path = getattr(module_or_path, "__file__", module_or_path)
    with open(path) as source:
        tree = ast.parse(source.read(), path)
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            imported.add("." * node.level + (node.module or ""))
    return imported
