"""Listing and deep search over the worker log root: port of 1.2.4 logviewer.clj
``list-log-files``, ``logs-for-port``, ``deep-search-logs-for-topology`` and
``get-profiler-dump-files``.  Directories are read in the order the file system gives
(Java's ``File.listFiles`` and ``DirectoryCleaner/getFilesForDir``, at most 1024 entries
per worker directory), so the answers come in Storm's order.  Blocking.
"""

import os
import re

from pynimbus.logviewer.paths import canonical_root, existing_dir_under, is_under
from pynimbus.logviewer.search import find_n_matches, topo_port_workerlog

MAX_FILES_PER_DIR = 1024
WORKER_LOG_NAME = re.compile(r"^worker.log(.*)")


def listdir(path):
    try:
        return os.listdir(path)
    except OSError:  # not a directory, or gone meanwhile
        return []


def files_for_dir(path):
    """``DirectoryCleaner/getFilesForDir``: the first 1024 entries' paths."""
    return [os.path.join(path, n) for n in listdir(path)[:MAX_FILES_PER_DIR]]


def all_worker_dirs(root):
    """``get-all-worker-dirs``: every ``<topology>/<port>`` directory."""
    found = []
    for topo in listdir(root):
        topo_dir = os.path.join(root, topo)
        found.extend(os.path.join(topo_dir, port) for port in listdir(topo_dir))
    return sorted(found)


def list_log_files(root, topology_id=None, port=None):
    """Port of ``list-log-files``: the sorted ``<topology>/<port>/<file>`` names of the
    files of a topology, a port, both or all."""
    root = canonical_root(root)
    if topology_id is None:
        if port is None:
            dirs = all_worker_dirs(root)
        else:
            dirs = [os.path.join(root, topo, port) for topo in listdir(root)
                    if port in listdir(os.path.join(root, topo))]
    elif port is None:
        topo_dir = existing_dir_under(root, topology_id)
        dirs = [os.path.join(topo_dir, p) for p in listdir(topo_dir)] if topo_dir else []
    else:
        port_dir = existing_dir_under(root, topology_id, port)
        dirs = [port_dir] if port_dir else []
    # a symlink leading out of the root is not the logviewer's to name
    return sorted(topo_port_workerlog(f) for d in dirs for f in files_for_dir(d)
                  if is_under(os.path.realpath(f), root))


def logs_for_port(port_dir, may_read):
    """Port of ``logs-for-port``: the port directory's ``worker.log*`` files the user may
    read (``may_read(<topology>/<port>/<file>)``), newest first."""
    logs = [f for f in files_for_dir(port_dir)
            if WORKER_LOG_NAME.search(os.path.basename(f)) and os.path.isfile(f)
            and is_under(os.path.realpath(f), os.path.dirname(os.path.dirname(port_dir)))
            and may_read(topo_port_workerlog(f))]
    return sorted(logs, key=os.path.getmtime, reverse=True)


def parse_int(name, value):
    """``Integer/parseInt`` of a parameter, with an answer a user can act on.

    :raises ValueError: naming the parameter.
    """
    try:
        return int(value)
    except (TypeError, ValueError):
        raise ValueError("Could not parse %s to an integer: %r" % (name, value))


def deep_search_logs_for_topology(root, topology_id, search, num_matches, port, file_offset,
                                  offset, search_archived, slot_ports, may_read, links):
    """Port of ``deep-search-logs-for-topology``: the JSON value (a list for all ports, one
    ``find-n-matches`` answer for one port).  ``search_archived`` is whether the parameter
    was given (any value, as in Storm); ``slot_ports``: ``supervisor.slots.ports``."""
    topo_dir = existing_dir_under(root, topology_id) if topology_id else None
    if not search or topo_dir is None:
        return []
    file_offset = parse_int("start-file-offset", file_offset) if file_offset else 0
    offset = parse_int("start-byte-offset", offset) if offset else 0
    num_matches = parse_int("num-matches", num_matches)
    if not port or port == "*":
        per_port = [logs_for_port(os.path.join(topo_dir, p), may_read)
                    for p in listdir(topo_dir) if os.path.isdir(os.path.join(topo_dir, p))]
        return [find_n_matches(logs if search_archived else logs[:1], num_matches, 0, 0,
                               search, links)
                for logs in per_port if logs]
    if port not in {str(p) for p in slot_ports or ()}:
        return []
    port_dir = existing_dir_under(root, topology_id, port)
    logs = logs_for_port(port_dir, may_read) if port_dir else []
    if not logs:
        return []
    if search_archived:
        return find_n_matches(logs, num_matches, file_offset, offset, search, links)
    return find_n_matches(logs[:1], num_matches, 0, offset, search, links)


PROFILER_DUMP = (".txt", ".jfr", ".bin")


def profiler_dump_files(port_dir):
    """Port of ``get-profiler-dump-files``: the names of the dumps in a worker's directory."""
    return [os.path.basename(f) for f in files_for_dir(port_dir)
            if f.endswith(PROFILER_DUMP)]
