# -*- test-case-name: tests.test_thrift_encoded_reply -*-
"""Replies whose Thrift encoding is made ahead, from encodings kept between calls.

``getClusterInfo`` on a large cluster hands out ~2,000 summaries, most of them unchanged since
the last call; encoding them all again on the reactor thread cost more than the rest of the
call.  A handler may instead return :func:`with_encoding` of its struct: the same struct (equal
to a plain one, readable field by field), carrying its binary encoding, which the server's
reply protocol writes as it is (:func:`reply_fast_encode`).  :func:`compose_struct` makes that
encoding from kept encodings of its list elements; it is byte for byte what the accelerated
encoder would write for the whole struct.
"""

import struct

from thrift.Thrift import TType
from thrift.protocol import fastbinary

_STOP = b"\x00"
_SUCCESS_STRUCT_HEADER = struct.pack(">bh", TType.STRUCT, 0)  # a result's field 0


def encode_binary(value):
    """The Thrift binary encoding of the struct ``value`` (the accelerated encoder's)."""
    return fastbinary.encode_binary(value, [value.__class__, value.thrift_spec])


def _field_bytes(cls, name, value):
    """The bytes of one field of a ``cls`` struct: its header and value, as the encoder writes
    them within the struct."""
    alone = cls.__new__(cls)  # every field unset (the constructor would set defaults) ...
    alone.__dict__.update((spec[2], None) for spec in cls.thrift_spec if spec is not None)
    setattr(alone, name, value)  # ... but this one
    return encode_binary(alone)[:-1]  # no STOP


def compose_struct(value, element_encodings):
    """The binary encoding of the struct ``value`` where each field named in
    ``element_encodings`` (a list of structs) is written from the given encodings of its
    elements, in order, instead of encoding them again; the other fields are encoded.  Fields
    follow ``thrift_spec``'s order, as the encoder writes them."""
    cls = value.__class__
    parts = []
    for spec in cls.thrift_spec:
        if spec is None:
            continue
        field_id, field_type, name = spec[0], spec[1], spec[2]
        field_value = getattr(value, name)
        if field_value is None:
            continue
        encodings = element_encodings.get(name)
        if encodings is None:
            parts.append(_field_bytes(cls, name, field_value))
            continue
        if field_type != TType.LIST or spec[3][0] != TType.STRUCT:
            raise TypeError("%s.%s is not a list of structs" % (cls.__name__, name))
        if len(encodings) != len(field_value):
            raise ValueError("%s.%s has %d elements, %d encodings given"
                             % (cls.__name__, name, len(field_value), len(encodings)))
        parts.append(struct.pack(">bhbi", TType.LIST, field_id, TType.STRUCT, len(encodings)))
        parts.extend(encodings)
    parts.append(_STOP)
    return b"".join(parts)


_ENCODED_CLASSES = {}


def _encoded_class(cls):
    """A subclass of the Thrift struct ``cls`` with a slot for its encoding (outside
    ``__dict__``, so that equality and the encoder see only the fields)."""
    encoded_cls = _ENCODED_CLASSES.get(cls)
    if encoded_cls is None:
        def __eq__(self, other):
            return isinstance(other, cls) and self.__dict__ == other.__dict__

        def __ne__(self, other):
            return not self == other

        encoded_cls = _ENCODED_CLASSES[cls] = type(cls.__name__, (cls,), {
            "__slots__": ("thrift_encoding",), "__eq__": __eq__, "__ne__": __ne__,
            "__hash__": None, "__module__": cls.__module__})
    return encoded_cls


def with_encoding(value, encoding):
    """``value`` (a Thrift struct) as an equal struct that carries ``encoding``, its binary
    encoding, for the server to write as it is."""
    encoded = _encoded_class(value.__class__).__new__(_encoded_class(value.__class__))
    encoded.__dict__.update(value.__dict__)
    encoded.thrift_encoding = encoding
    return encoded


def encoding_of(value):
    """The encoding :func:`with_encoding` gave ``value``, or None."""
    return getattr(value, "thrift_encoding", None)


def reply_fast_encode(encode):
    """An accelerated protocol's ``_fast_encode`` that writes a result struct whose success
    value carries its encoding (:func:`with_encoding`) from that encoding, and calls
    ``encode`` for anything else."""
    def fast_encode(value, spec):
        success = getattr(value, "success", None)
        encoding = encoding_of(success) if success is not None else None
        if encoding is None:
            return encode(value, spec)
        return _SUCCESS_STRUCT_HEADER + encoding + _STOP
    return fast_encode
