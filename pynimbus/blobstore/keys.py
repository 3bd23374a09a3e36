"""Blob keys: which keys Storm accepts, and how a key is named on nimbus's disk.

Port of ``Utils.isValidKey`` and ``BlobStore.validateKey`` (Storm 1.2.4).  Storm 1.2.4 allows
``^[\\w \\t\\.:_-]+$`` (Unicode word characters) and rejects "", "." and ".."; 2.8.8 drops the
colon.  We accept the 1.2.4 set, the larger of the two, so keys either generation of client
made are served.

An invalid key raises ``AuthorizationException``, as 1.2.4's ``validateKey`` does (2.8.8 raises
IllegalArgumentException, which reaches the client as an internal error).  Every Thrift method
that takes a key declares ``AuthorizationException``, so the client sees the message, which says
what a valid key looks like.

A key never becomes a path: :func:`storage_name` names a key's directory by the SHA-256 of the
key's UTF-8 bytes, so no key, valid or not, can reach outside the blob store's directory.
"""

import hashlib
import re
import unicodedata

from pynimbus.generated.storm.ttypes import AuthorizationException, InvalidTopologyException

# The characters Java's \w matches under UNICODE_CHARACTER_CLASS, by general category:
# letters and letter numbers (Alphabetic), combining marks, decimal digits and connector
# punctuation (which holds "_").
_WORD_CATEGORIES = frozenset(
    ("Lu", "Ll", "Lt", "Lm", "Lo", "Nl", "Mn", "Mc", "Me", "Nd", "Pc"))
# Join_Control (ZWNJ, ZWJ) and the symbols Unicode counts as Other_Alphabetic (circled and
# squared Latin letters), which Java's \w also matches.
_WORD_EXTRA = frozenset(("\u200c", "\u200d"))
_WORD_EXTRA_RANGES = ((0x24B6, 0x24E9), (0x1F130, 0x1F149), (0x1F150, 0x1F169),
                      (0x1F170, 0x1F189))
_PUNCTUATION = frozenset(" \t.:_-")

KEY_RULE = ("it must be non-empty, not \".\" or \"..\", and contain only letters, digits, "
            "'_', '-', '.', ':', spaces or tabs")

# The common case, an ASCII key, in one match: in ASCII Java's \w is exactly [A-Za-z0-9_].
_ASCII_KEY = re.compile(r"[A-Za-z0-9_ \t.:-]+")

_TOPOLOGY_KEY = re.compile(r"(.*)(-stormjar\.jar|-stormcode\.ser|-stormconf\.ser)", re.DOTALL)


def _is_key_char(ch):
    if ch in _PUNCTUATION or ch in _WORD_EXTRA:
        return True
    if unicodedata.category(ch) in _WORD_CATEGORIES:
        return True
    code = ord(ch)
    return any(low <= code <= high for low, high in _WORD_EXTRA_RANGES)


def is_valid_key(key):
    """Port of ``Utils.isValidKey`` (1.2.4): True when Storm accepts ``key`` as a blob key."""
    if not isinstance(key, str) or key in ("", ".", ".."):
        return False
    return _ASCII_KEY.fullmatch(key) is not None or all(_is_key_char(ch) for ch in key)


def validate_key(key):
    """Port of ``BlobStore.validateKey`` (1.2.4).

    :raises AuthorizationException: when ``key`` is not a valid blob key; the message names the
        key and the rule.
    """
    if not is_valid_key(key):
        raise AuthorizationException(msg="Blob key %r is not valid: %s" % (key, KEY_RULE))


def validate_dependency_keys(topology):
    """The blob keys a ``StormTopology`` names in ``dependency_jars`` and
    ``dependency_artifacts`` must be valid blob keys (:func:`is_valid_key`).

    Deliberate difference: Storm checks these keys only when a supervisor fetches them or
    cleanup deletes them (1.2.4 ``blob-rm-dependency-jars-in-topology`` logs the failure);
    pynimbus refuses them at submit, so no stored topology names a key no blob can have.

    :raises InvalidTopologyException: naming the first invalid key, its field and the rule.
    """
    for field in ("dependency_jars", "dependency_artifacts"):
        for key in getattr(topology, field, None) or ():
            if not is_valid_key(key):
                raise InvalidTopologyException(
                    msg="%s names %r, which is not a valid blob key: %s"
                        % (field, key, KEY_RULE))


def storage_name(key):
    """The name of ``key``'s directory in the blob store: 64 lower-case hex digits."""
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def is_storage_name(name):
    """True when ``name`` has the shape :func:`storage_name` gives."""
    return len(name) == 64 and all(c in "0123456789abcdef" for c in name)


def get_id_from_blob_key(key):
    """Port of config.clj ``get-id-from-blob-key``: the topology id of a topology blob key, or
    None for any other key."""
    match = _TOPOLOGY_KEY.fullmatch(key or "")
    return match.group(1) if match else None
