"""Storm's distributed RPC: the server (:mod:`.server`, ``pynimbus drpc``), its requests
(:mod:`.requests`, pure) and the blocking clients::

    from pynimbus.drpc import DRPCClient

    with DRPCClient("localhost", 3772) as drpc:
        print(drpc.execute("words", "the cat"))
"""

from pynimbus.thrift.client import DRPCClient, DRPCInvocationsClient  # noqa: F401

__all__ = ["DRPCClient", "DRPCInvocationsClient"]
