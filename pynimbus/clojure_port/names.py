"""Topology-name rules of both Storm generations (pure).

1.x: port of nimbus.clj ``validate-topology-name!`` (1.2.4): a name may not contain any of
``/ . : \\``.  Storm 1.2.4 meant to reject a blank name with "Topology name cannot be blank" but
crashes building the exception; pynimbus raises it as intended.
2.x: port of ``Utils.validateTopologyName`` (2.8.8): the name must match ``^[^/.:\\\\]+$``.
"""

import re

from pynimbus.generated.storm.ttypes import InvalidTopologyException

DISALLOWED_TOPOLOGY_NAME_STRS = ("/", ".", ":", "\\")
TOPOLOGY_NAME_REGEX_2X = "^[^/.:\\\\]+$"
_TOPOLOGY_NAME_2X = re.compile(r"[^/.:\\]+")

# How Clojure prints the 1.2.4 set of disallowed substrings in its message (a hash set: this
# order is the one the real 1.2.4 Nimbus prints, tests/compat/goldens/1.2.4/bad_name_*.json).
_DISALLOWED_PR_STR = '#{"/" ":" "." "\\\\"}'


def validate_topology_name(name, compat="1.x"):
    """Raise ``InvalidTopologyException`` unless ``name`` is allowed in the ``compat`` generation."""
    if compat == "2.x":
        if name is None or not _TOPOLOGY_NAME_2X.fullmatch(name):
            raise InvalidTopologyException(
                msg="Topology name '%s' is not valid. It can't be null and it must match %s"
                % (name, TOPOLOGY_NAME_REGEX_2X))
        return
    if name is None or not name.strip():
        raise InvalidTopologyException(msg="Topology name cannot be blank")
    if any(s in name for s in DISALLOWED_TOPOLOGY_NAME_STRS):
        raise InvalidTopologyException(
            msg="Topology name cannot contain any of the following: " + _DISALLOWED_PR_STR)


def invalid_name_characters(name):
    """The characters of ``name`` that both generations' rules refuse, in their order of first
    appearance (for messages; the rules themselves are :func:`validate_topology_name`)."""
    return list(dict.fromkeys(c for c in name or "" if c in DISALLOWED_TOPOLOGY_NAME_STRS))
