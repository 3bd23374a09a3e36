"""The import rule of pynimbus's layout, read from the sources (docs/architecture.md draws it).

Rooms, by the first part of a module's name under ``pynimbus``:

* **floors**: ``common``, ``cluster``, ``thrift``, ``generated``: what the programs share;
* **pure ports**: ``clojure_port``, ``jstorm_port``, ``trident`` (Trident's API, planner and
  batch logic): upstream logic on values, neither Twisted nor kazoo;
* **programs**: ``nimbus`` (with ``handlers`` and ``blobstore``, its Thrift handlers and blob
  store), ``supervisor``, ``worker``, ``tools``, ``drpc``, ``ui``;
* **the door**: ``cli`` (the ``pynimbus`` command, which starts the programs), ``testing`` (the
  public test API) and ``client`` (the public name of the blocking client), and the package's
  own ``__init__`` (its version).

The rule: a program imports the floors, the pure ports, its own room and the package's version,
never another program or the door; a floor imports floors and pure ports; a pure port imports
pure ports and the generated types only, and neither Twisted nor kazoo; only the door imports
the door.  And no module imports another module's private (``_``) names, by ``from m import _x``
or as ``m._x``.

:func:`violations` returns one line per breach, so a test shows them all at once.
"""

import ast
import os

FLOORS = ("common", "cluster", "thrift", "generated")
PURE_PORTS = ("clojure_port", "jstorm_port", "trident")
PROGRAMS = {"nimbus": "nimbus", "handlers": "nimbus", "blobstore": "nimbus",
            "supervisor": "supervisor", "worker": "worker", "tools": "tools", "drpc": "drpc",
            "ui": "ui", "logviewer": "logviewer"}
DOOR = ("cli", "testing", "client")
IO_LIBRARIES = ("twisted", "kazoo")


def room_of(module):
    """``(kind, name)`` of a ``pynimbus...`` module: kind is floor, pure, program, door or
    root (the package's ``__init__``)."""
    parts = module.split(".")
    if len(parts) == 1:
        return "root", "pynimbus"
    first = parts[1]
    if first in FLOORS:
        return "floor", first
    if first in PURE_PORTS:
        return "pure", first
    if first in PROGRAMS:
        return "program", PROGRAMS[first]
    if first in DOOR:
        return "door", first
    return "unknown", first


def module_name(package_dir, path):
    rel = os.path.relpath(path, os.path.dirname(package_dir))[:-len(".py")]
    name = rel.replace(os.sep, ".")
    return name[:-len(".__init__")] if name.endswith(".__init__") else name


def modules(package_dir):
    """``{module name: path}`` of every ``.py`` under ``package_dir``."""
    found = {}
    for folder, _, files in os.walk(package_dir):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                found[module_name(package_dir, path)] = path
    return found


def resolve(importer, is_package, node):
    """The absolute module an ``ImportFrom`` names (relative ones resolved)."""
    if not node.level:
        return node.module
    base = importer.split(".")
    if not is_package:
        base = base[:-1]
    base = base[:len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(importer, path, known):
    """``[(line, imported module, private name or None)]`` of one source file.

    ``from pkg import name`` counts as importing ``pkg.name`` when that is a module, else
    ``pkg``; ``mod._x`` counts as a private use of ``mod`` when ``mod`` is a name the file
    bound to a pynimbus module by an import.
    """
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    is_package = path.endswith("__init__.py")
    found, bound = [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.append((node.lineno, alias.name, None))
                if alias.asname:
                    bound[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom):
            source = resolve(importer, is_package, node)
            for alias in node.names:
                submodule = "%s.%s" % (source, alias.name)
                if submodule in known:
                    found.append((node.lineno, submodule, None))
                    bound[alias.asname or alias.name] = submodule
                else:
                    private = alias.name if is_private(alias.name) else None
                    found.append((node.lineno, source, private))
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in bound and is_private(node.attr)):
            found.append((node.lineno, bound[node.value.id], node.attr))
    return found


def is_private(name):
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def breach(importer, imported):
    """Why ``importer`` may not import ``imported`` (both pynimbus modules), or None."""
    kind, name = room_of(importer)
    to_kind, to_name = room_of(imported)
    if kind == "unknown":
        return "%s is in no room of the layout (pynimbus.%s)" % (importer, name)
    if to_kind == "unknown":
        return "%s is in no room of the layout" % imported
    if kind in ("door", "root"):
        return None
    if to_kind == "door":
        return "only the door imports the door (%s)" % to_name
    if kind == "program":
        if to_kind == "program" and to_name != name:
            return "the %s program imports the %s program" % (name, to_name)
        return None
    if kind == "floor":
        if to_kind == "program":
            return "a floor (%s) imports the %s program" % (name, to_name)
        return None
    if kind == "pure":
        if to_kind == "pure" or to_name == "generated":
            return None
        return "a pure port imports %s (%s)" % (to_kind, to_name)
    return None


def violations(package_dir):
    """One line per breach of the import rule in the package at ``package_dir``."""
    known = modules(package_dir)
    package = os.path.basename(os.path.normpath(package_dir))
    lines = []
    for importer, path in sorted(known.items()):
        if ".generated." in importer + ".":
            continue  # Thrift's code generator writes these
        rel = os.path.relpath(path, os.path.dirname(package_dir))
        kind, _ = room_of(importer)
        for line, imported, private in imports_of(importer, path, known):
            top = imported.split(".")[0]
            where = "%s:%d" % (rel, line)
            if kind == "pure" and top in IO_LIBRARIES:
                lines.append("%s: a pure port imports %s" % (where, imported))
            if top != package:
                continue
            if private and imported != importer:
                lines.append("%s: imports the private name %s of %s" % (where, private, imported))
            reason = breach(importer, imported)
            if reason:
                lines.append("%s: %s imports %s: %s" % (where, importer, imported, reason))
    return lines
