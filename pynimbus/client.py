"""The public name of pynimbus's blocking Thrift client: ``from pynimbus.client import
NimbusClient``.  The client lives in :mod:`pynimbus.thrift.client`; this module keeps the name
that scripts and the docs use."""

from pynimbus.thrift.client import (  # noqa: F401  (re-exported)
    LeaderNotFound, NimbusClient, SupervisorClient, find_leader_nimbus)

__all__ = ["LeaderNotFound", "NimbusClient", "SupervisorClient", "find_leader_nimbus"]
