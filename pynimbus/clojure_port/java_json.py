"""JSON and printed values as Storm's JVM writes them (pure).

Storm writes JSON with json-simple (1.2.4) or json-smart (2.8.8): ``{"k":v,...}`` without
spaces, ``/`` escaped as ``\\/``, maps in the order the Java or Clojure map iterates
(:mod:`pynimbus.clojure_port.java_hash_map`, :mod:`pynimbus.clojure_port.java_order`).  The
validators' messages print values as Clojure's ``pr`` (1.x) or Java's ``toString`` (2.x) does.
"""

import collections
import decimal
import math
import re

from pynimbus.clojure_port.java_hash_map import JavaHashMap, java_hashmap_order
from pynimbus.clojure_port.java_order import clojure_map_order

# Java's int and long ranges
INT_MIN, INT_MAX = -2 ** 31, 2 ** 31 - 1
LONG_MIN, LONG_MAX = -2 ** 63, 2 ** 63 - 1


def as_read_by(value, compat):
    """``value`` (parsed JSON in document order) with every map in the order Storm iterates it.

    1.x: json-simple fills a HashMap, ``clojurify-structure`` copies it into a Clojure map.
    2.x: json-smart fills a HashMap.
    """
    if isinstance(value, dict):
        java_keys = java_hashmap_order(value)
        keys = clojure_map_order(java_keys) if compat != "2.x" else java_keys
        return {k: as_read_by(value[k], compat) for k in keys}
    if isinstance(value, list):
        return [as_read_by(v, compat) for v in value]
    return value


def java_double_to_string(x):
    """Java ``Double.toString(x)`` (shortest round-trip digits, as JDK 19+ and usually before)."""
    if x != x:
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    if 1e-3 <= abs(x) < 1e7:  # Python's repr is Java's here: plain, shortest digits
        return repr(x)
    sign, digits, exp = decimal.Decimal(repr(x)).as_tuple()
    digits = list(digits)
    while len(digits) > 1 and digits[-1] == 0:
        digits.pop()
        exp += 1
    point = len(digits) - 1 + exp  # scientific exponent
    text = "".join(str(d) for d in digits)
    prefix = "-" if sign else ""
    if 1e-3 <= abs(x) < 1e7:
        if point >= 0:
            whole = text[:point + 1].ljust(point + 1, "0")
            frac = text[point + 1:] or "0"
            return "%s%s.%s" % (prefix, whole, frac)
        return "%s0.%s%s" % (prefix, "0" * (-point - 1), text)
    return "%s%s.%sE%d" % (prefix, text[0], text[1:] or "0", point)


# what json-simple escapes: quotes, backslash, slash, controls, and U+007F-9F and U+2000-20FF
_JSON_ESCAPED = re.compile("[\"\\\\/\x00-\x1f\x7f-\x9f\u2000-\u20ff]")
_JSON_ESCAPES = {'"': '\\"', "\\": "\\\\", "/": "\\/", "\b": "\\b", "\f": "\\f",
                 "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape_char(match):
    ch = match.group()
    return _JSON_ESCAPES.get(ch) or "\\u%04X" % ord(ch)


def _escape_json(s):
    return _JSON_ESCAPED.sub(_escape_char, s)


def to_json(value):
    """JSON text as json-simple's / json-smart's ``JSONValue.toJSONString`` writes it.

    Maps are written in their (Python insertion) order: build them in Storm's order first
    (:class:`JavaHashMap`, :func:`clojure_map_order`).  Floats are written as Java doubles.
    """
    kind = type(value)  # the common kinds first: the UI writes large answers with this
    if kind is str:
        return '"%s"' % _escape_json(value)
    if kind is dict:
        return "{%s}" % ",".join(
            '"%s":%s' % (_escape_json(k if type(k) is str else str(k)), to_json(v))
            if k is not None else "null:%s" % to_json(v) for k, v in value.items())
    if kind is int:
        return str(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if kind is list or kind is tuple:
        return "[%s]" % ",".join(map(to_json, value))
    if isinstance(value, float):
        return "null" if (value != value or math.isinf(value)) else java_double_to_string(value)
    if isinstance(value, str):
        return '"%s"' % _escape_json(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, JavaHashMap):
        value = value.to_dict()
    if isinstance(value, dict):
        return to_json(dict(value))
    if isinstance(value, (list, tuple)):
        return "[%s]" % ",".join(map(to_json, value))
    return '"%s"' % _escape_json(str(value))


class MapEntry(collections.namedtuple("MapEntry", "key value")):
    """An entry of a Clojure map met while iterating it as a list (1.2.4 only)."""


def _clj_pr(value):
    """Clojure ``pr-str`` of a parsed value (how 1.2.4 prints collections)."""
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"%s"' % "".join(_CLJ_CHAR_ESCAPES.get(c, c) for c in value)
    if isinstance(value, float):
        return java_double_to_string(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, MapEntry):
        return "[%s %s]" % (_clj_pr(value.key), _clj_pr(value.value))
    if isinstance(value, dict):
        return "{%s}" % ", ".join(
            "%s %s" % (_clj_pr(k), _clj_pr(value[k]))
            for k in clojure_map_order(java_hashmap_order(value)))
    if isinstance(value, list):
        return "[%s]" % " ".join(_clj_pr(v) for v in value)
    return str(value)


_CLJ_CHAR_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r",
                     "\f": "\\f", "\b": "\\b"}


def java_str(value, compat):
    """``String.valueOf`` of a parsed conf value as Storm holds it (1.x Clojure, 2.x JSON)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, float):
        return java_double_to_string(value)
    if isinstance(value, int):
        return str(value)
    if compat == "2.x":
        return to_json(as_read_by(value, compat))
    return _clj_pr(value)


def java_class(value, compat):
    """``getClass()`` (as ``Class.toString`` prints it) of a parsed conf value."""
    if isinstance(value, bool):
        name = "java.lang.Boolean"
    elif isinstance(value, str):
        name = "java.lang.String"
    elif isinstance(value, float):
        name = "java.lang.Double"
    elif isinstance(value, int):
        if compat == "2.x":
            name = ("java.lang.Integer" if INT_MIN <= value <= INT_MAX else
                    "java.lang.Long" if LONG_MIN <= value <= LONG_MAX else
                    "java.math.BigInteger")
        else:
            name = "java.lang.Long"
    elif isinstance(value, MapEntry):
        name = "clojure.lang.MapEntry"
    elif isinstance(value, dict):
        if compat == "2.x":
            name = "net.minidev.json.JSONObject"
        else:
            name = ("clojure.lang.PersistentArrayMap" if len(value) <= 8 else
                    "clojure.lang.PersistentHashMap")
    elif isinstance(value, list):
        name = "net.minidev.json.JSONArray" if compat == "2.x" else "clojure.lang.PersistentVector"
    else:
        name = type(value).__name__
    return "class " + name
