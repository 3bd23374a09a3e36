"""Storm's distributed RPC: the server (:mod:`.server`, ``pynimbus drpc``), its requests
(:mod:`.requests`, pure), the blocking clients::

    from pynimbus.drpc import DRPCClient

    with DRPCClient("localhost", 3772) as drpc:
        print(drpc.execute("words", "the cat"))

and, for Python topologies answering through it, Storm's linear DRPC topologies
(:mod:`.linear`: ``LinearDRPCTopologyBuilder``, ``BaseBatchBolt``), imported on first use.
"""

import importlib

from pynimbus.thrift.client import DRPCClient, DRPCInvocationsClient  # noqa: F401

# Names of pynimbus.drpc.linear (which imports streamparse): imported on first use (PEP 562),
# so that the DRPC server and its clients load none of it.
_LINEAR = ("BaseBatchBolt", "BatchOutputCollector", "FailedException",
           "LinearDRPCTopologyBuilder", "ReportedFailedException")


def __getattr__(name):
    if name not in _LINEAR:
        raise AttributeError("module %r has no attribute %r" % (__name__, name))
    value = getattr(importlib.import_module("pynimbus.drpc.linear"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(list(globals()) + list(_LINEAR))


__all__ = ["BaseBatchBolt", "BatchOutputCollector", "DRPCClient", "DRPCInvocationsClient",
           "FailedException", "LinearDRPCTopologyBuilder", "ReportedFailedException"]
