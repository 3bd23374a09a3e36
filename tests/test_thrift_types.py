"""Every struct of storm.thrift survives encoding and decoding, container keys included."""

import os
import re

import pytest
from thrift.protocol.TBinaryProtocol import (
    TBinaryProtocolAcceleratedFactory, TBinaryProtocolFactory)
from thrift.Thrift import TType
from thrift.TSerialization import serialize
from thrift.transport.TTransport import TMemoryBuffer

from pynimbus.generated.storm import ttypes
from pynimbus_path import REPO

with open(os.path.join(REPO, "storm.thrift")) as _f:  # the checkout's (an install has none)
    _IDL = _f.read()
STRUCT_NAMES = re.findall(r"^(?:struct|exception|union) (\w+)", _IDL, re.M)
UNION_NAMES = set(re.findall(r"^union (\w+)", _IDL, re.M))
PROTOCOLS = {"accelerated": TBinaryProtocolAcceleratedFactory(), "pure": TBinaryProtocolFactory()}


def sample(ttype, typeargs, depth, seed):
    """A deterministic non-default value of a Thrift type (containers of two elements)."""
    if ttype == TType.BOOL:
        return seed % 2 == 0
    if ttype in (TType.BYTE, TType.I16, TType.I32, TType.I64):
        return seed + 3
    if ttype == TType.DOUBLE:
        return seed + 0.5
    if ttype == TType.STRING:
        return b"\x00\xffbin" if typeargs == "BINARY" else "s%d-\u00e9" % seed
    if ttype == TType.STRUCT:
        return sample_struct(typeargs[0], depth + 1, seed)
    if ttype == TType.LIST:
        return [sample(typeargs[0], typeargs[1], depth, seed + i) for i in range(2)]
    if ttype == TType.SET:
        return {_key(sample(typeargs[0], typeargs[1], depth, seed + i)) for i in range(2)}
    if ttype == TType.MAP:
        return {_key(sample(typeargs[0], typeargs[1], depth, seed + i)):
                sample(typeargs[2], typeargs[3], depth, seed + i) for i in range(2)}
    raise AssertionError("unexpected type %r" % ttype)


def _key(value):
    return tuple(value) if isinstance(value, list) else value


def sample_struct(cls, depth=0, seed=0):
    """An instance of ``cls`` with every field set (one field for a union), nesting bounded."""
    fields = [f for f in cls.thrift_spec if f is not None]
    if cls.__name__ in UNION_NAMES:
        fields = fields[seed % len(fields):][:1]
    elif depth > 3:
        fields = [f for f in fields if f[1] != TType.STRUCT]
    # Generated exceptions are immutable: build every struct from keyword arguments.
    return cls(**{name: sample(ttype, typeargs, depth, seed + field_id)
                  for field_id, ttype, name, typeargs, _default in fields})


def decode(cls, data, factory):
    """Decode ``data`` as ``cls`` (exceptions are immutable: their ``read`` builds a new one)."""
    transport = TMemoryBuffer(data)
    obj = cls()
    made = obj.read(factory.getProtocol(transport))
    return obj if made is None else made


@pytest.mark.parametrize("protocol", sorted(PROTOCOLS))
@pytest.mark.parametrize("name", STRUCT_NAMES)
def test_every_struct_round_trips(name, protocol):
    """Each struct, fully populated, decodes back equal through both codecs."""
    cls = getattr(ttypes, name)
    original = sample_struct(cls)
    data = serialize(original, PROTOCOLS[protocol])
    decoded = decode(cls, data, PROTOCOLS[protocol])
    assert decoded == original
    # Sets iterate in hash order, so compare re-encoded values, not bytes.
    again = decode(cls, serialize(decoded, PROTOCOLS[protocol]), PROTOCOLS[protocol])
    assert again == original


def test_idl_lists_every_generated_struct():
    """The test covers all structs: the IDL's list matches the generated module's classes."""
    generated = {n for n, v in vars(ttypes).items()
                 if isinstance(v, type) and getattr(v, "thrift_spec", None) is not None}
    assert set(STRUCT_NAMES) == generated
    assert len(STRUCT_NAMES) > 90


@pytest.mark.parametrize("protocol", sorted(PROTOCOLS))
def test_assignment_with_list_keys_and_struct_keys_round_trips(protocol):
    """Assignment's list<i64>-keyed maps and NodeInfo-keyed map decode to hashable keys."""
    node = ttypes.NodeInfo(node="sup-1", port={6700})
    assignment = ttypes.Assignment(
        master_code_dir="/storm-local",
        node_host={"sup-1": "host1"},
        executor_node_port={(1, 1): node, (2, 3): node},
        executor_start_time_secs={(1, 1): 1700000000, (2, 3): 1700000001},
        worker_resources={node: ttypes.WorkerResources(0.0, 0.0, 0.0)})
    decoded = decode(ttypes.Assignment, serialize(assignment, PROTOCOLS[protocol]),
                     PROTOCOLS[protocol])
    assert decoded.executor_node_port[(2, 3)] == node
    assert decoded.worker_resources[ttypes.NodeInfo(node="sup-1", port={6700})].mem_on_heap == 0.0
    assert decoded == assignment


def test_key_structs_hash_by_value():
    """Equal NodeInfo/ExecutorInfo values hash equally, so they work as dict keys."""
    assert hash(ttypes.NodeInfo("a", {1})) == hash(ttypes.NodeInfo("a", {1}))
    assert {ttypes.ExecutorInfo(1, 2): "x"}[ttypes.ExecutorInfo(1, 2)] == "x"


def test_thrift_exceptions_pass_through_context_managers():
    """A Thrift exception raised in a contextmanager's with-block reaches the caller as itself."""
    import contextlib

    @contextlib.contextmanager
    def passing():
        yield

    with pytest.raises(ttypes.NotAliveException) as caught:
        with passing():
            raise ttypes.NotAliveException(msg="gone")
    assert caught.value.msg == "gone"
    with pytest.raises(TypeError):
        caught.value.msg = "changed"


def test_importing_the_types_does_not_load_twisted():
    """The pure core can use the Thrift types without pulling in Twisted."""
    import subprocess
    import sys
    code = ("import sys; from pynimbus.generated.storm import ttypes; "
            "print('twisted' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=REPO).stdout.strip()
    assert out == "False"
