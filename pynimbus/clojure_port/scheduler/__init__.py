"""Ports of Storm's schedulers (pure): the cluster model, the even and the default scheduler.

``cluster``: TopologyDetails, SupervisorDetails, WorkerSlot and Cluster; ``even``:
``sort_slots`` and ``schedule_topologies_evenly`` (EvenScheduler); ``default``:
``slots_can_reassign``, ``bad_slots`` and ``default_schedule`` (DefaultScheduler, the default in
both Storm generations).
"""

from pynimbus.clojure_port.scheduler.cluster import (  # noqa: F401
    Cluster, ResourceRequest, SupervisorDetails, TopologyDetails, WorkerSlot)
from pynimbus.clojure_port.scheduler.default import (  # noqa: F401
    bad_slots, default_schedule, slots_can_reassign)
from pynimbus.clojure_port.scheduler.even import (  # noqa: F401
    schedule_topologies_evenly, sort_slots)
