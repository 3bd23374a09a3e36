# -*- test-case-name: tests.test_cluster_paths -*-
"""Storm 1.2.4's ZooKeeper paths, as pure functions of strings.

Port of the ``*-ROOT``/``*-SUBTREE`` constants and ``*-path`` functions of cluster.clj
(Storm 1.2.4); ``/blobstoremaxkeysequencenumber`` follows ``KeySequenceNumber.java`` and
``/leader-lock`` follows zookeeper.clj ``zk-leader-elector``.  Every path is relative to the
``storm.zookeeper.root`` chroot.

Deliberate difference: every name that comes from outside (topology ids, blob keys, supervisor
ids, hosts, component ids after URL encoding) is checked by :func:`path_component` so that no
name can reach outside its parent.  Storm concatenates them unchecked.
"""

from urllib.parse import quote, quote_plus

ASSIGNMENTS_ROOT = "assignments"
CODE_ROOT = "code"  # declared by 1.2.4, never used
STORMS_ROOT = "storms"
SUPERVISORS_ROOT = "supervisors"
WORKERBEATS_ROOT = "workerbeats"
BACKPRESSURE_ROOT = "backpressure"
ERRORS_ROOT = "errors"
BLOBSTORE_ROOT = "blobstore"
BLOBSTORE_MAX_KEY_SEQUENCE_NUMBER_ROOT = "blobstoremaxkeysequencenumber"
NIMBUSES_ROOT = "nimbuses"
CREDENTIALS_ROOT = "credentials"
LOGCONFIG_ROOT = "logconfigs"
PROFILERCONFIG_ROOT = "profilerconfigs"
LEADER_LOCK_ROOT = "leader-lock"

ASSIGNMENTS_SUBTREE = "/" + ASSIGNMENTS_ROOT
STORMS_SUBTREE = "/" + STORMS_ROOT
SUPERVISORS_SUBTREE = "/" + SUPERVISORS_ROOT
WORKERBEATS_SUBTREE = "/" + WORKERBEATS_ROOT
BACKPRESSURE_SUBTREE = "/" + BACKPRESSURE_ROOT
ERRORS_SUBTREE = "/" + ERRORS_ROOT
BLOBSTORE_SUBTREE = "/" + BLOBSTORE_ROOT
BLOBSTORE_MAX_KEY_SEQUENCE_NUMBER_SUBTREE = "/" + BLOBSTORE_MAX_KEY_SEQUENCE_NUMBER_ROOT
NIMBUSES_SUBTREE = "/" + NIMBUSES_ROOT
CREDENTIALS_SUBTREE = "/" + CREDENTIALS_ROOT
LOGCONFIG_SUBTREE = "/" + LOGCONFIG_ROOT
PROFILERCONFIG_SUBTREE = "/" + PROFILERCONFIG_ROOT
LEADER_LOCK_SUBTREE = "/" + LEADER_LOCK_ROOT

# What Storm's mk-storm-cluster-state creates when it starts, in its order.
STARTUP_SUBTREES = (
    ASSIGNMENTS_SUBTREE, STORMS_SUBTREE, SUPERVISORS_SUBTREE, WORKERBEATS_SUBTREE,
    ERRORS_SUBTREE, BLOBSTORE_SUBTREE, NIMBUSES_SUBTREE, LOGCONFIG_SUBTREE,
    BACKPRESSURE_SUBTREE,
)

LAST_ERROR_PATH_SEG = "last-error"
ERROR_NODE_PREFIX = "e"


def path_component(name, what="name"):
    """Return ``name`` if it can be one path segment; ``what`` names it in the error.

    :raises ValueError: when ``name`` is not a string, is empty, contains ``/``, or is ``.``
        or ``..``.
    """
    if not isinstance(name, str):
        raise ValueError("%s must be a string, not %s" % (what, type(name).__name__))
    if not name:
        raise ValueError("%s must not be empty" % what)
    if "/" in name:
        raise ValueError("%s %r must not contain '/'" % (what, name))
    if name in (".", ".."):
        raise ValueError("%s %r is not a valid path segment" % (what, name))
    return name


def port_component(port):
    """Return ``port`` as a decimal string.

    :raises ValueError: when ``port`` is not a non-negative int.
    """
    if isinstance(port, bool) or not isinstance(port, int) or port < 0:
        raise ValueError("port must be a non-negative int, not %r" % (port,))
    return str(port)


def url_encode(s):
    """Port of util.clj ``url-encode`` (ring-codec): keep ``A-Za-z0-9_~.+-``, %XX the rest.

    Each other character becomes its UTF-8 bytes as upper-case ``%XX`` (space is ``%20``).
    """
    return quote(s, safe="+")


def url_encode_2x(s):
    """Port of 2.8.8 ``Utils.urlEncodeUtf8`` (Java ``URLEncoder``, UTF-8): keep
    ``A-Za-z0-9.-*_``, space becomes ``+``, each other character its UTF-8 bytes as upper-case
    ``%XX`` (``~`` too)."""
    return quote_plus(s, safe="*").replace("~", "%7E")


def _child(parent, name, what):
    return parent + "/" + path_component(name, what)


def supervisor_path(supervisor_id):
    """Port of cluster.clj ``supervisor-path``: ``/supervisors/<id>``."""
    return _child(SUPERVISORS_SUBTREE, supervisor_id, "supervisor id")


def assignment_path(storm_id):
    """Port of cluster.clj ``assignment-path``: ``/assignments/<storm-id>``."""
    return _child(ASSIGNMENTS_SUBTREE, storm_id, "topology id")


def blobstore_path(key):
    """Port of cluster.clj ``blobstore-path``: ``/blobstore/<key>``."""
    return _child(BLOBSTORE_SUBTREE, key, "blob key")


def blobstore_max_key_sequence_number_path(key):
    """Port of cluster.clj ``blobstore-max-key-sequence-number-path``."""
    return _child(BLOBSTORE_MAX_KEY_SEQUENCE_NUMBER_SUBTREE, key, "blob key")


def blobstore_nimbus_path(key, nimbus_host_port, version):
    """``/blobstore/<key>/<host>:<port>-<version>``, as cluster.clj ``setup-blobstore!`` has it."""
    name = "%s-%s" % (path_component(nimbus_host_port, "nimbus host:port"),
                      port_component(version))
    return blobstore_path(key) + "/" + name


def nimbus_path(nimbus_id):
    """Port of cluster.clj ``nimbus-path``: ``/nimbuses/<host>:<port>``."""
    return _child(NIMBUSES_SUBTREE, nimbus_id, "nimbus id")


def storm_path(storm_id):
    """Port of cluster.clj ``storm-path``: ``/storms/<storm-id>``."""
    return _child(STORMS_SUBTREE, storm_id, "topology id")


def workerbeat_storm_root(storm_id):
    """Port of cluster.clj ``workerbeat-storm-root``: ``/workerbeats/<storm-id>``."""
    return _child(WORKERBEATS_SUBTREE, storm_id, "topology id")


def workerbeat_path(storm_id, node, port):
    """Port of cluster.clj ``workerbeat-path``: ``/workerbeats/<storm-id>/<node>-<port>``."""
    return "%s/%s-%s" % (workerbeat_storm_root(storm_id),
                         path_component(node, "supervisor id"), port_component(port))


def backpressure_storm_root(storm_id):
    """Port of cluster.clj ``backpressure-storm-root``: ``/backpressure/<storm-id>``."""
    return _child(BACKPRESSURE_SUBTREE, storm_id, "topology id")


def backpressure_path(storm_id, node, port):
    """Port of cluster.clj ``backpressure-path``: ``/backpressure/<storm-id>/<node>-<port>``."""
    return "%s/%s-%s" % (backpressure_storm_root(storm_id),
                         path_component(node, "supervisor id"), port_component(port))


def backpressure_full_path(storm_id, short_path):
    """Port of cluster.clj ``backpressure-full-path``: a child of the topology's root."""
    return _child(backpressure_storm_root(storm_id), short_path, "backpressure node")


def error_storm_root(storm_id):
    """Port of cluster.clj ``error-storm-root``: ``/errors/<storm-id>``."""
    return _child(ERRORS_SUBTREE, storm_id, "topology id")


def error_path(storm_id, component_id, compat="1.x"):
    """Port of cluster.clj ``error-path`` (1.2.4) / ``ClusterUtils.errorPath`` (2.8.8):
    ``/errors/<storm-id>/<url-encoded component>``, encoded as each generation does
    (:func:`url_encode`, :func:`url_encode_2x`).

    Storm's ZooKeeper calls drop empty path segments (``normalize-path``), so the empty
    component's errors live in ``/errors/<storm-id>`` itself, beside the other components'
    directories, where Storm's workers write them.  Deliberate difference: "." and ".." (which
    url-encoding keeps) become ``%2E`` and ``%2E%2E``: ZooKeeper refuses them as segments, so
    Storm can store no error of such a component, and url-encoding never yields ``%2E``.
    """
    root = error_storm_root(storm_id)
    segment = _url_encoded_component(component_id, compat)
    if not segment:
        return root
    if segment in (".", ".."):
        segment = segment.replace(".", "%2E")
    return root + "/" + segment


def last_error_path(storm_id, component_id, compat="1.x"):
    """Port of cluster.clj ``last-error-path`` / ``ClusterUtils.lastErrorPath``:
    ``/errors/<storm-id>/<component>-last-error`` (``/errors/<storm-id>/-last-error`` for the
    empty component, as Storm writes it)."""
    return "%s/%s-%s" % (error_storm_root(storm_id),
                         _url_encoded_component(component_id, compat), LAST_ERROR_PATH_SEG)


def is_error_node(name):
    """True for the name of one error (``e`` and its sequence number) in an error directory;
    the empty component's directory also holds the other components' nodes."""
    number = name[len(ERROR_NODE_PREFIX):]
    return name.startswith(ERROR_NODE_PREFIX) and number.isascii() and number.isdigit()


def _url_encoded_component(component_id, compat):
    if not isinstance(component_id, str):
        raise ValueError("component id must be a string, not %s" % type(component_id).__name__)
    return url_encode_2x(component_id) if compat == "2.x" else url_encode(component_id)


def credentials_path(storm_id):
    """Port of cluster.clj ``credentials-path``: ``/credentials/<storm-id>``."""
    return _child(CREDENTIALS_SUBTREE, storm_id, "topology id")


def log_config_path(storm_id):
    """Port of cluster.clj ``log-config-path``: ``/logconfigs/<storm-id>``."""
    return _child(LOGCONFIG_SUBTREE, storm_id, "topology id")


def profiler_config_path(storm_id, host=None, port=None, request_type=None):
    """Port of cluster.clj ``profiler-config-path`` (both arities).

    With only ``storm_id``: ``/profilerconfigs/<storm-id>``; with all four:
    ``/profilerconfigs/<storm-id>/<host>_<port>_<request-type>``, where ``request_type`` is the
    ProfileAction name (``JSTACK_DUMP``).
    """
    root = _child(PROFILERCONFIG_SUBTREE, storm_id, "topology id")
    if host is None and port is None and request_type is None:
        return root
    name = "%s_%s_%s" % (path_component(host, "host"), port_component(port),
                         path_component(request_type, "profile action"))
    return root + "/" + name


def leader_lock_path():
    """``/leader-lock``: the Curator LeaderLatch path of zookeeper.clj ``zk-leader-elector``."""
    return LEADER_LOCK_SUBTREE


def parent_path(path):
    """Port of util.clj ``parent-path``: the parent of an absolute path (``/`` for top level)."""
    tokens = [t for t in path.split("/") if t]
    return "/" + "/".join(tokens[:-1])


def join_path(parent, child):
    """Return ``parent/child`` for an absolute ``parent`` and one checked segment ``child``."""
    name = path_component(child, "child name")
    return ("" if parent == "/" else parent) + "/" + name
