"""What the ports of the topology conf share (pure): its key names, the Storm generation a conf
is read as, and ``ObjectReader``'s readings of a value.

The conf's own ports are apart: parsing and validation in
:mod:`pynimbus.clojure_port.conf_validation`, normalize-conf in
:mod:`pynimbus.clojure_port.normalize_conf`, the submitter in
:mod:`pynimbus.clojure_port.submitter`, JSON and printed values as Storm writes them in
:mod:`pynimbus.clojure_port.java_json`.
"""

import re

from pynimbus.clojure_port.java_json import INT_MAX, INT_MIN, java_str

COMPAT_KEY = "pynimbus.storm.compat"
TOPOLOGY_TASKS = "topology.tasks"
TOPOLOGY_WORKERS = "topology.workers"
TOPOLOGY_KRYO_DECORATORS = "topology.kryo.decorators"
TOPOLOGY_KRYO_REGISTER = "topology.kryo.register"
TOPOLOGY_ACKER_EXECUTORS = "topology.acker.executors"
TOPOLOGY_EVENTLOGGER_EXECUTORS = "topology.eventlogger.executors"
TOPOLOGY_MAX_TASK_PARALLELISM = "topology.max.task.parallelism"
TOPOLOGY_USERS = "topology.users"


def compat_of(conf, compat=None):
    """Return ``compat`` if given, else the conf's ``pynimbus.storm.compat`` ("1.x" default)."""
    if compat:
        return compat
    return (conf or {}).get(COMPAT_KEY) or "1.x"


def get_int(value, default=None):
    """Port of ``ObjectReader.getInt`` (2.8.8): ``default`` for None, else an int, a long in
    int range or a numeric string as an int.

    :raises ValueError: Storm's IllegalArgumentException / NumberFormatException (both reach
        the client as INTERNAL_ERROR).
    """
    if value is None:
        return default
    if isinstance(value, int) and not isinstance(value, bool) and INT_MIN <= value <= INT_MAX:
        return value
    if isinstance(value, str):
        if re.fullmatch(r"[+-]?[0-9]+", value) and INT_MIN <= int(value) <= INT_MAX:
            return int(value)
        raise ValueError('For input string: "%s"' % value)
    raise ValueError("Don't know how to convert %s to int" % java_str(value, "2.x"))


def require_int(value):
    """``ObjectReader.getInt(value)`` without a default: None is an error too."""
    result = get_int(value)
    if result is None:
        raise ValueError("Don't know how to convert null to int")
    return result


def as_list(value, key):
    """A list-valued key's value, [] for None.

    :raises TypeError: not a list (Storm's ClassCastException, INTERNAL_ERROR)."""
    if value is None:
        return []
    if not isinstance(value, list):  # Storm: ClassCastException (INTERNAL_ERROR)
        raise TypeError("%s must be a list, not %r" % (key, value))
    return value
