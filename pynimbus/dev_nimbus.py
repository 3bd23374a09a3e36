"""The Nimbus of ``pynimbus dev``: a whole cluster on one machine, or says why it is not.

With ``pynimbus.dev.supervisor`` (the default), :class:`DevNimbusDaemon` runs one Python
supervisor in the same process, on the same store, with the slots of
``supervisor.slots.ports``, so what is submitted runs; stopping dev stops the workers too (as
Storm's local mode does).  Without it, a developer's first topology would be accepted and
assigned nowhere, silently, so at start and after each submission, while no supervisor is
registered, it logs a warning that says so and how to get one.  What it says follows the store
in use: Storm supervisors find their assignments in ZooKeeper, so none can join dev's default
embedded store, while ``pynimbus supervisor`` can.
"""

import json
import logging

from twisted.internet import defer
from twisted.internet.threads import deferToThread

from pynimbus import STORM_VERSION, STORM_VERSION_2X
from pynimbus.config import embedded_state_dir, uses_zookeeper
from pynimbus.nimbus import NimbusDaemon
from pynimbus.supervisor.daemon import SupervisorDaemon

log = logging.getLogger(__name__)


def _yaml_settings(pairs):
    """``key: value`` pairs as storm.yaml lines would hold them (JSON is YAML)."""
    return ", ".join("%s: %s" % (key, json.dumps(value)) for key, value in pairs)


def no_supervisor_message(conf):
    """What to tell a developer when no supervisor is registered (pure: a function of conf)."""
    generation = STORM_VERSION_2X if conf.get("pynimbus.storm.compat") == "2.x" else \
        STORM_VERSION
    nimbus = [("nimbus.seeds", [conf.get("storm.local.hostname") or "localhost"]),
              ("nimbus.thrift.port", int(conf["nimbus.thrift.port"]))]
    supervisor = "Storm %s's `storm supervisor` on this machine with, in its storm.yaml, " \
        % generation
    if uses_zookeeper(conf):
        zookeeper = [("storm.zookeeper.servers", list(conf["storm.zookeeper.servers"])),
                     ("storm.zookeeper.port", int(conf["storm.zookeeper.port"])),
                     ("storm.zookeeper.root", conf["storm.zookeeper.root"])]
        how = "To run them, start " + supervisor + _yaml_settings(zookeeper + nimbus)
    else:
        state_dir = embedded_state_dir(conf)
        how = ("To run them, start `pynimbus supervisor -c pynimbus.embedded.state.dir=%s -c "
               "storm.local.dir=DIR` (any other DIR) on this machine, or leave "
               "pynimbus.dev.supervisor on. Storm supervisors find their assignments in "
               "ZooKeeper and cannot join this nimbus's embedded store: for them, start a "
               "ZooKeeper on this machine, restart with -c "
               "'storm.zookeeper.servers=[\"localhost\"]' and submit again, then start "
               % state_dir + supervisor + _yaml_settings(
                   [("storm.zookeeper.servers", ["localhost"])] + nimbus))
    return ("No supervisor is registered, so nothing will run the topologies submitted here. "
            + how)


class DevNimbusDaemon(NimbusDaemon):
    """A NimbusDaemon with, under ``pynimbus.dev.supervisor``, a Python supervisor beside it;
    otherwise it warns, at start and after each submission, while no supervisor is registered
    (:func:`no_supervisor_message`)."""

    supervisor = None

    @defer.inlineCallbacks
    def start(self):
        started = yield super().start()
        if self.conf.get("pynimbus.dev.supervisor"):
            self.supervisor = SupervisorDaemon(self.conf, self.reactor)
            yield self.supervisor.start()
        else:
            self.notice_if_no_supervisor()
        return started

    @defer.inlineCallbacks
    def stop(self):
        """The supervisor's workers, the supervisor, then Nimbus."""
        if self.supervisor is not None:
            yield self.supervisor.stop()
            yield self.supervisor.shutdown_all_workers()
        yield super().stop()

    def request_mk_assignments(self):
        """Called by each submission once it is written: also the notice."""
        if self.supervisor is None:
            self.notice_if_no_supervisor()
        super().request_mk_assignments()

    def notice_if_no_supervisor(self):
        """Read the registered supervisors (in a thread) and warn if there are none."""
        d = deferToThread(self.state.supervisors)
        d.addCallback(self._warn_if_none)
        # the notice is advice: a store that cannot be read now is another log's business
        d.addErrback(lambda failure: log.debug("supervisors not read: %s",
                                               failure.getErrorMessage()))
        return d

    def _warn_if_none(self, supervisor_ids):
        if not supervisor_ids:
            log.warning("%s", no_supervisor_message(self.conf))
