"""In-process DRPC services, found by id: what lets a DRPC topology run in the test's own
process (:class:`pynimbus.testing.LocalDRPC`) take its requests from, and return its results
to, an object of the same process instead of a server.

Port of 1.2.4 ``utils/ServiceRegistry`` (a process-wide map from a random id to a service) and
of the local half of ``drpc/DRPCSpout`` and ``drpc/ReturnResults``: a component whose conf
names a service under :data:`LOCAL_DRPC_ID` calls that service's ``fetchRequest``,
``result`` and ``failRequest`` (the names of Storm's ``DistributedRPCInvocations``) directly;
the return info it emits names the service id as ``host`` and ``0`` as ``port``, as Storm's
local spout does.

Deliberate difference: Storm hands the local DRPC to the spout's constructor; a pystorm
component is built by its class alone, so the id travels in the topology's conf.
"""

import threading
import uuid

# The conf key naming the in-process DRPC service a topology's DRPC spout and return bolt use.
LOCAL_DRPC_ID = "pynimbus.drpc.local.id"

_services = {}
_lock = threading.Lock()


def register_service(service):
    """Register ``service``; returns its new id (a random UUID's text, as Storm's)."""
    service_id = str(uuid.uuid4())
    with _lock:
        _services[service_id] = service
    return service_id


def get_service(service_id):
    """The service registered as ``service_id``, or None (unregistered, or never was)."""
    with _lock:
        return _services.get(service_id)


def unregister_service(service_id):
    with _lock:
        _services.pop(service_id, None)


__all__ = ["LOCAL_DRPC_ID", "get_service", "register_service", "unregister_service"]
