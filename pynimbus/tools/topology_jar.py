"""The topology jar of a streamparse project, built without lein or a JVM.

``sparse submit`` copies the project's ``src/`` to ``_resources/resources/`` and has lein
jar ``_resources`` (streamparse 5.0.1 ``util.prepare_topology``, ``cli/jar.py``
``jar_for_deploy`` and its ``project.clj``), so the jar holds ``resources/<path under src>``:
what a supervisor extracts into the topology's ``resources`` directory and what
``streamparse_run`` imports from.  This writes the same layout directly as a zip, with a
manifest so Java tools take it for a jar.

Deliberate differences from lein's jar: no ``__pycache__`` directories or ``.pyc`` files
(bytecode of the submitter's Python), entries in sorted order with a fixed timestamp (the same
project gives the same bytes), and none of project.clj's ``:jar-exclusions`` (they drop any
path containing ``trident`` or ``.yaml``, which only matters to Java classes in the jar).
"""

import os
import zipfile

MANIFEST = "META-INF/MANIFEST.MF"
MANIFEST_TEXT = "Manifest-Version: 1.0\r\nCreated-By: pynimbus\r\n\r\n"
RESOURCES = "resources"
ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)  # the earliest time a zip entry can carry
SKIPPED_DIRECTORIES = frozenset(["__pycache__"])
SKIPPED_SUFFIXES = (".pyc", ".pyo")


class JarError(ValueError):
    """A project whose jar cannot be built; the message says why."""


def jar_entries(project_root, module=None):
    """``[(name in the jar, file path)]`` of ``project_root``'s ``src/``, sorted by name; for
    a project without one, of ``module``'s top-level module or package in ``project_root``
    (a Trident program run as ``module:attr`` from its directory).

    :raises JarError: the project has no ``src`` directory (as sparse requires one), and no
        such module.
    """
    src = os.path.join(project_root, "src")
    if not os.path.isdir(src) and module is not None:
        return module_entries(project_root, module)
    if not os.path.isdir(src):
        raise JarError('%s has no "src" directory: a streamparse project keeps its '
                       'spouts and bolts there' % os.path.abspath(project_root))
    return tree_entries(src, src)


def module_entries(project_root, module):
    """The jar entries of ``module``'s top-level module (``<top>.py``) or package
    (``<top>/``) in ``project_root``.

    :raises JarError: neither exists."""
    top = module.split(".")[0]
    package = os.path.join(project_root, top)
    if os.path.isfile(os.path.join(package, "__init__.py")):
        return tree_entries(package, project_root)
    path = os.path.join(project_root, top + ".py")
    if os.path.isfile(path):
        return [(RESOURCES + "/" + top + ".py", path)]
    raise JarError('%s has neither a "src" directory nor the module %s (%s.py or the package '
                   '%s/)' % (os.path.abspath(project_root), top, top, top))


def tree_entries(tree, base):
    """The jar entries of the files under ``tree``, named by their path from ``base``."""
    entries = []
    for directory, subdirectories, files in os.walk(tree):
        subdirectories[:] = [d for d in subdirectories if d not in SKIPPED_DIRECTORIES]
        for name in files:
            if name.endswith(SKIPPED_SUFFIXES):
                continue
            path = os.path.join(directory, name)
            relative = os.path.relpath(path, base).replace(os.sep, "/")
            entries.append((RESOURCES + "/" + relative, path))
    return sorted(entries)


def build_topology_jar(project_root, jar_path, module=None):
    """Write the jar of ``project_root`` (or of ``module`` in it, see :func:`jar_entries`) to
    ``jar_path``; return its entry names.

    :raises JarError: no ``src`` directory (and no such module).
    """
    entries = jar_entries(project_root, module)
    with zipfile.ZipFile(jar_path, "w", zipfile.ZIP_DEFLATED) as jar:
        jar.writestr(zip_info(MANIFEST, 0o644), MANIFEST_TEXT)
        for name, path in entries:
            with open(path, "rb") as f:
                jar.writestr(zip_info(name, os.stat(path).st_mode), f.read())
    return [MANIFEST] + [name for name, _ in entries]


def zip_info(name, mode):
    info = zipfile.ZipInfo(name, date_time=ZIP_EPOCH)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = (mode & 0o777 | 0o100000) << 16  # a regular file, its permissions
    return info
