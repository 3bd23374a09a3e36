# -*- test-case-name: tests.test_nimbus_topology_history -*-
"""Nimbus's ``:topo-history-state`` (``<storm.local.dir>/nimbus/history``) with its
``topology-history-lock``: the topologies killed lately, kept in a LocalState over the pure
:mod:`pynimbus.clojure_port.topology_history`.  Blocking: call from a thread."""

import logging
import os
import threading
import time

from pynimbus.clojure_port import topology_history as history
from pynimbus.clojure_port.authorization import merged_conf
from pynimbus.common.local_state import LocalState
from pynimbus.generated.storm import ttypes
from pynimbus.generated.storm.ttypes import NotAliveException
from pynimbus.nimbus.topology_store import read_storm_conf

log = logging.getLogger(__name__)


LS_TOPO_HISTORY = "topo-hist"


def nimbus_topo_history_dir(conf):
    """Port of ``nimbus-topo-history-state``'s path: ``<storm.local.dir>/nimbus/history``."""
    return os.path.join(os.path.abspath(conf["storm.local.dir"]), "nimbus", "history")


class TopologyHistory:
    """Nimbus's ``:topo-history-state`` with its ``topology-history-lock``: the
    ``LSTopoHistoryList`` under LocalState key ``topo-hist``, read-modified-written under the
    lock.  Blocking.

    :param conf: nimbus's conf (``storm.local.dir``; 2.x merges it under a killed topology's
        conf, as 2.8.8's ``killTopologyWithOpts`` does).
    """

    def __init__(self, conf, clock=time.time):
        self.conf = conf
        self.clock = clock
        self.state = LocalState(nimbus_topo_history_dir(conf), clock)
        self.lock = threading.Lock()

    def entries(self):
        """Port of ``getTopoHistoryList``: the ``LSTopoHistory`` entries, oldest first."""
        found = self.state.get(LS_TOPO_HISTORY)
        return list(found.topo_history or []) if found is not None else []

    def update(self, change):
        """Replace the entries with ``change(entries)``; returns the new entries."""
        with self.lock:
            entries = change(self.entries())
            self.state.put(LS_TOPO_HISTORY, ttypes.LSTopoHistoryList(topo_history=entries))
            return entries

    def add(self, storm_id, topology_conf):
        """Port of ``add-topology-to-history-log``: remember a killed topology now."""
        log.info("Adding topo to history log: %s", storm_id)
        if self.conf.get("pynimbus.storm.compat") == "2.x":
            topology_conf = merged_conf(self.conf, topology_conf)
        now = self.clock()
        return self.update(lambda entries: history.add_topology_to_history(
            entries, storm_id, now, topology_conf))

    def add_killed(self, blob_store, storm_id):
        """:meth:`add` with the topology's stored conf (logged and skipped when it is gone)."""
        try:
            topology_conf = read_storm_conf(blob_store, storm_id)
        except NotAliveException:
            log.warning("Not adding %s to the topology history: its conf is gone", storm_id)
            return None
        return self.add(storm_id, topology_conf)

    def clean(self, mins):
        """Port of ``clean-topology-history``: forget topologies killed over ``mins`` ago."""
        now = self.clock()
        return self.update(lambda entries: history.clean_topology_history(entries, now, mins))
