"""How a map state's values are written as bytes (pure).

Ports of 1.2.4 ``trident/state/{Serializer,JSONTransactionalSerializer,JSONOpaqueSerializer,
JSONNonTransactionalSerializer}``: UTF-8 JSON as json-simple writes it (no spaces, ``/`` as
``\\/``; :func:`pynimbus.clojure_port.java_json.to_json`), so a store written by Storm's
serializers reads here and the other way round.  A transactional value is ``[txid,val]``, an
opaque one ``[currTxid,curr,prev]``, a non-transactional one the bare value.

Values must be JSON: None, bool, int, float, str, lists or tuples (read back as lists) and
dicts with string keys.  json-simple writes anything else as its ``toString``, which does not
read back as the object; here :func:`require_json` refuses it instead.
"""

import json

from pynimbus.clojure_port.java_json import to_json
from pynimbus.trident.state.values import OpaqueValue, TransactionalValue


def require_json(value, what="value"):
    """Raise :class:`TypeError` naming the first part of ``value`` that is not JSON."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            require_json(item, "%s[%d]" % (what, i))
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(
                    "Trident's JSON state serializers store JSON-serializable values only; %s "
                    "has the key %r of type %s, and JSON object keys are strings"
                    % (what, key, type(key).__name__))
            require_json(item, "%s[%r]" % (what, key))
        return
    raise TypeError(
        "Trident's JSON state serializers store JSON-serializable values only (None, bool, "
        "int, float, str, list, tuple, dict with str keys); %s is %r of type %s"
        % (what, value, type(value).__name__))


def _to_bytes(value):
    require_json(value)
    return to_json(value).encode("utf-8")


def _from_bytes(data):
    return json.loads(bytes(data).decode("utf-8"))


class Serializer(object):
    """``Serializer``: ``serialize(value) -> bytes``, ``deserialize(bytes) -> value``."""

    def serialize(self, value):
        raise NotImplementedError

    def deserialize(self, data):
        raise NotImplementedError


class JSONTransactionalSerializer(Serializer):
    """``JSONTransactionalSerializer``: a :class:`TransactionalValue` as ``[txid,val]``."""

    def serialize(self, value):
        return _to_bytes([value.txid, value.val])

    def deserialize(self, data):
        txid, val = _from_bytes(data)
        return TransactionalValue(txid, val)


class JSONOpaqueSerializer(Serializer):
    """``JSONOpaqueSerializer``: an :class:`OpaqueValue` as ``[currTxid,curr,prev]``."""

    def serialize(self, value):
        return _to_bytes([value.curr_txid, value.curr, value.prev])

    def deserialize(self, data):
        curr_txid, curr, prev = _from_bytes(data)
        return OpaqueValue(curr_txid, curr, prev)


class JSONNonTransactionalSerializer(Serializer):
    """``JSONNonTransactionalSerializer``: the value itself."""

    def serialize(self, value):
        return _to_bytes(value)

    def deserialize(self, data):
        return _from_bytes(data)
