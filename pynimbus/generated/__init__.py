"""Thrift code generated from ``storm.thrift`` (the subpackage ``storm`` is compiler output).

``pynimbus/generated/storm/`` is written by ``python -m pynimbus.thrift_codegen`` and never
edited by hand; ``tests/test_generated_code.py`` regenerates it and fails on any difference.

This module is ours.  It applies, once, the fixes the stock Python generator needs.

Hashable keys.  Storm keys maps by containers and structs (``Assignment.executor_node_port`` is a
``map<list<i64>, NodeInfo>``, ``Assignment.worker_resources`` a ``map<NodeInfo, ...>``,
``ClusterWorkerHeartbeat.executor_stats`` a ``map<ExecutorInfo, ...>``).  The generated readers
build a ``list`` key and the generated structs define ``__eq__`` without ``__hash__``, so
decoding such a map raises ``TypeError: unhashable``.  :func:`make_map_keys_hashable` marks
container map keys immutable in ``thrift_spec`` (list -> tuple, set -> frozenset, honoured by
both the C accelerator and the pure-Python spec reader), routes the affected structs' pure-Python
``read`` through that spec reader, and gives key structs a value hash.

Exceptions that can travel.  The generated exceptions are immutable: their ``__setattr__``
refuses every attribute, including the ``__traceback__``/``__context__`` that Python code such as
``contextlib`` sets while an exception passes through a ``with`` block, which then turns the
Thrift exception into a TypeError.  :func:`let_exceptions_travel` lets those dunder attributes
through and keeps the Thrift fields immutable.
"""

import operator

from thrift.Thrift import TType
from thrift.transport import TTransport

_CONTAINERS = (TType.LIST, TType.SET, TType.MAP)


def _frozen_typeargs(ttype, typeargs):
    """Return ``typeargs`` of a container value with every nested container marked immutable."""
    if ttype in (TType.LIST, TType.SET):
        etype, espec, _ = typeargs
        return (etype, _frozen_typeargs(etype, espec), True)
    if ttype == TType.MAP:
        ktype, kspec, vtype, vspec, _ = typeargs
        return (ktype, _frozen_typeargs(ktype, kspec), vtype, _frozen_typeargs(vtype, vspec), True)
    return typeargs


def _fix_typeargs(ttype, typeargs, key_structs):
    """Return ``typeargs`` with hashable map keys; collect struct classes used as keys."""
    if ttype in (TType.LIST, TType.SET):
        etype, espec, immutable = typeargs
        if ttype == TType.SET and etype == TType.STRUCT:
            key_structs.add(espec[0])
        return (etype, _fix_typeargs(etype, espec, key_structs), immutable)
    if ttype == TType.MAP:
        ktype, kspec, vtype, vspec, immutable = typeargs
        if ktype in _CONTAINERS:
            kspec = _frozen_typeargs(ktype, kspec)
        elif ktype == TType.STRUCT:
            key_structs.add(kspec[0])
        return (ktype, kspec, vtype, _fix_typeargs(vtype, vspec, key_structs), immutable)
    return typeargs


def _hashable(value):
    if isinstance(value, (list, tuple)):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, (set, frozenset)):
        return frozenset(_hashable(v) for v in value)
    if isinstance(value, dict):
        return frozenset((_hashable(k), _hashable(v)) for k, v in value.items())
    return value


def _struct_hash(self):
    return hash((type(self).__name__,) + tuple(
        _hashable(getattr(self, field[2])) for field in self.thrift_spec if field is not None))


def _mk_struct_hash(cls):
    """``__hash__`` for a key struct: the generic one, or, when every field is a plain value
    (``ExecutorInfo``, ``GlobalStreamId``: the keys of every heartbeat's stats maps), one that
    reads the fields without inspecting them (decoding a heartbeat hashes thousands)."""
    fields = [field for field in cls.thrift_spec if field is not None]
    if any(field[1] in _CONTAINERS or field[1] == TType.STRUCT for field in fields):
        return _struct_hash
    read_fields = operator.attrgetter(*[field[2] for field in fields] or ["__class__"])
    tag = cls.__name__

    def plain_struct_hash(self):
        return hash((tag, read_fields(self)))
    return plain_struct_hash


def _spec_read(self, iprot):
    """Read through the (fixed) spec: the generated ``read`` would build unhashable keys."""
    if (iprot._fast_decode is not None and isinstance(iprot.trans, TTransport.CReadableTransport)):
        iprot._fast_decode(self, iprot, [self.__class__, self.thrift_spec])
    else:
        iprot.readStruct(self, self.thrift_spec)


def _struct_classes(modules):
    for module in modules:
        for cls in list(vars(module).values()):
            if isinstance(cls, type) and getattr(cls, "thrift_spec", None):
                yield cls


def _relink_struct_specs(ttype, typeargs):
    """Point nested ``[cls, spec]`` struct references at ``cls``'s current spec.

    The generated modules resolved these references (``fix_spec``) before we replaced some
    specs, and the C accelerator decodes nested structs with the referenced spec.
    """
    if ttype == TType.STRUCT:
        typeargs[1] = typeargs[0].thrift_spec
    elif ttype in (TType.LIST, TType.SET):
        _relink_struct_specs(typeargs[0], typeargs[1])
    elif ttype == TType.MAP:
        _relink_struct_specs(typeargs[0], typeargs[1])
        _relink_struct_specs(typeargs[2], typeargs[3])


def make_map_keys_hashable(modules):
    """Apply the fix to every Thrift struct class in ``modules``; return the fixed classes."""
    classes = list(_struct_classes(modules))
    key_structs, fixed = set(), []
    for cls in classes:
        spec = cls.thrift_spec
        new_spec = tuple(
            None if field is None
            else field[:3] + (_fix_typeargs(field[1], field[3], key_structs),) + field[4:]
            for field in spec)
        if new_spec != spec:
            cls.thrift_spec = new_spec
            cls.read = _spec_read
            fixed.append(cls)
    for cls in key_structs:
        cls.__hash__ = _mk_struct_hash(cls)
    for cls in classes:
        for field in cls.thrift_spec:
            if field is not None:
                _relink_struct_specs(field[1], field[3])
    return fixed


def _exception_setattr(self, name, value):
    if name.startswith("__") and name.endswith("__"):
        BaseException.__setattr__(self, name, value)
    else:
        raise TypeError("can't modify immutable instance")


def let_exceptions_travel(module):
    """Allow Python's exception machinery to set dunder attributes on immutable exceptions."""
    fixed = []
    for cls in list(vars(module).values()):
        if (isinstance(cls, type) and issubclass(cls, BaseException)
                and getattr(cls, "thrift_spec", None) is not None):
            cls.__setattr__ = _exception_setattr
            fixed.append(cls)
    return fixed


# Only ttypes is fixed here: the service modules (which import Twisted) link their argument and
# result structs to these fixed specs when they are imported, and none of them keys a map by a
# container or a struct itself.  So importing the types never loads Twisted.
from .storm import ttypes as _ttypes  # noqa: E402  (the fix must follow the helpers)

make_map_keys_hashable((_ttypes,))
let_exceptions_travel(_ttypes)
