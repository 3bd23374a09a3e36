"""Which file a request names, and whether the logviewer may serve it.

A request names a file relative to a root: worker logs under
``<storm.log.dir>/workers-artifacts`` as ``<topology id>/<port>/<file>``, daemon logs in
``storm.log.dir`` by their name.  Storm decodes the ``file`` parameter once more after the
query's own decoding (``url-decode``), so a doubly encoded ``..`` is decoded here too, and
then refused by the checks.  The checks follow Storm's, made on the canonical path (symlinks
resolved, ``os.path.realpath`` for ``getCanonicalFile``): a symlink inside the root that
points inside the root is served, one that leads out of it is not.  Names with a NUL byte,
absolute names and names with ``.`` or ``..`` parts are refused outright, never turned into
paths.
"""

import os
from urllib.parse import unquote

FILE_PATH_SEPARATOR = "/"


def url_decode(text):
    """ring's ``url-decode``: ``%XX`` sequences decoded as UTF-8 (``+`` kept)."""
    return unquote(text, encoding="utf-8", errors="replace")


def is_plain_relative(fname):
    """A name that stays below its root on its face: not empty, no NUL, not absolute, no
    ``.`` or ``..`` part (Storm's ``no-dots``: the name equals its normalized form)."""
    if not fname or "\0" in fname or fname.startswith(FILE_PATH_SEPARATOR):
        return False
    parts = fname.split(FILE_PATH_SEPARATOR)
    return all(part not in (".", "..") for part in parts) and "" not in parts[:-1]


def canonical_root(root):
    return os.path.realpath(root)


def is_under(path, root):
    """``Path.startsWith``: ``path`` is ``root`` or below it, part by part."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def canonical_under(root, fname):
    """The canonical path ``fname`` names under ``root``, or None when it is no plain
    relative name or resolves outside ``root`` (``is-in-root-dir`` and ``no-dots``)."""
    if not is_plain_relative(fname):
        return None
    root = canonical_root(root)
    path = os.path.realpath(os.path.join(root, fname))
    return path if is_under(path, root) else None


def worker_log_file(root, fname):
    """Port of ``log-page``'s check: an existing file exactly two directories below the
    root (``<topology id>/<port>/<file>``), after symlinks; else None."""
    path = canonical_under(root, fname)
    if path is None or not os.path.isfile(path):
        return None
    topo_dir = os.path.dirname(os.path.dirname(path))
    return path if os.path.dirname(topo_dir) == canonical_root(root) else None


def daemon_log_file(root, fname):
    """Port of ``daemonlog-page``'s check: an existing file directly in the root."""
    if FILE_PATH_SEPARATOR in (fname or ""):
        return None
    path = canonical_under(root, fname)
    if path is None or not os.path.isfile(path):
        return None
    return path if os.path.dirname(path) == canonical_root(root) else None


def servable_file(root, fname, is_daemon=False):
    """Port of ``download-log-file``'s and ``search-log-file``'s check: an existing file
    under the root (a daemon's: one name, no directory); else None."""
    if is_daemon and FILE_PATH_SEPARATOR in (fname or ""):
        return None  # has-daemon-traversal
    path = canonical_under(root, fname)
    return path if path is not None and os.path.isfile(path) else None


def existing_dir_under(root, *names):
    """The canonical directory ``root/names...`` when each name is plain and it is an
    existing directory under the root; else None."""
    if not all(is_plain_relative(n) and FILE_PATH_SEPARATOR not in n for n in names):
        return None
    path = canonical_under(root, FILE_PATH_SEPARATOR.join(names))
    return path if path is not None and os.path.isdir(path) else None


def worker_metadata_path(root, fname):
    """Port of ``get-log-metadata-file``: the ``worker.yaml`` of the worker whose log
    ``fname`` (``<topology id>/<port>/...``) names, or None when the names are not plain."""
    parts = (fname or "").split(FILE_PATH_SEPARATOR)
    if len(parts) < 2 or not all(is_plain_relative(p) for p in parts[:2]):
        return None
    return os.path.join(root, parts[0], parts[1], "worker.yaml")
