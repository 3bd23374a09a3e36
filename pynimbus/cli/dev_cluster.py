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
import os

from twisted.internet import defer
from twisted.internet.threads import deferToThread

from pynimbus import STORM_VERSION, STORM_VERSION_2X
from pynimbus.common.config import embedded_state_dir, storm_log_dir, uses_zookeeper
from pynimbus.common.ports import PortInUse, port_in_use_message, ports_in_use
from pynimbus.nimbus.daemon import NimbusDaemon
from pynimbus.drpc.server import DRPC_INVOCATIONS_PORT, DRPC_PORT, DRPCDaemon
from pynimbus.logviewer.server import LogviewerDaemon
from pynimbus.supervisor.daemon import SupervisorDaemon
from pynimbus.supervisor.worker_dirs import ApprovedWorkers
from pynimbus.ui.server import UIDaemon

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


def check_slot_ports(conf):
    """Refuse to start dev's supervisor on slot ports held by another program (ports of the
    workers this storm.local.dir's supervisor approved are its own: it adopts them).

    :raises PortInUse: naming the ports and how to choose others.
    """
    own = set(ApprovedWorkers(conf).get().values())
    interface = conf.get("pynimbus.worker.bind.address") or ""
    ports = [int(p) for p in conf.get("supervisor.slots.ports") or () if int(p) not in own]
    taken = ports_in_use(ports, interface)
    if taken:
        raise PortInUse(port_in_use_message("supervisor.slots.ports", taken, interface,
                                            listed=True))


def started_message(conf, nimbus_port, drpc_ports=None, ui_port=None, logviewer_port=None):
    """What dev tells a developer once it runs: where things are, how to look at them."""
    ports = sorted(int(p) for p in conf.get("supervisor.slots.ports") or ())
    log_dir = storm_log_dir(conf)
    logs = os.path.join(log_dir, "workers-artifacts", "<topology-id>", "<port>", "worker.log")
    drpc = ("" if not drpc_ports else ", DRPC on %d (invocations %d)"
            % (drpc_ports[DRPC_PORT], drpc_ports[DRPC_INVOCATIONS_PORT]))
    lines = [
        "pynimbus dev is running: Nimbus on %s:%d%s, a Python supervisor with %d slots (%s)."
        % (conf.get("pynimbus.thrift.bind.address"), nimbus_port, drpc, len(ports),
           ", ".join(map(str, ports))),
        "  submit a streamparse project:  pynimbus submit topologies/NAME.py  (in the project)",
        "  see what runs, and errors:     pynimbus list;  pynimbus status NAME --watch"]
    if ui_port is not None:
        ui_host = conf.get("pynimbus.ui.bind.address") or conf.get("ui.host")
        lines.append("  the UI, in a browser:          http://%s:%d/" % (ui_host, ui_port))
        lines.append("  Storm's UI REST API:           http://%s:%d/api/v1/topology/summary"
                     "  (Prometheus: /metrics)" % (ui_host, ui_port))
    if logviewer_port is not None:
        lines.append("  worker logs in the logviewer:  http://%s:%d/listLogs"
                     % (conf.get("pynimbus.logviewer.bind.address") or "localhost",
                        logviewer_port))
    return "\n".join(lines + [
        "  with Storm's own UI:           nimbus.seeds: [\"localhost\"] in its storm.yaml",
        "  worker logs:                   %s" % logs,
        "  this log:                      %s" % os.path.join(log_dir, "nimbus.log"),
        "  stop it (and its workers):     Ctrl-C"])


class DevNimbusDaemon(NimbusDaemon):
    """A NimbusDaemon with, under ``pynimbus.dev.supervisor``, a Python supervisor beside it;
    otherwise it warns, at start and after each submission, while no supervisor is registered
    (:func:`no_supervisor_message`)."""

    supervisor = None
    drpc = None
    ui = None
    logviewer = None

    @defer.inlineCallbacks
    def start(self):
        if self.conf.get("pynimbus.dev.supervisor"):
            yield deferToThread(check_slot_ports, self.conf)
        started = yield super().start()
        if self.conf.get("pynimbus.dev.drpc"):
            # the workers' DRPC spouts and return bolts find it in drpc.servers
            if not self.conf.get("drpc.servers"):
                self.conf["drpc.servers"] = ["localhost"]
            self.drpc = DRPCDaemon(self.conf, self.reactor)
            yield self.drpc.start()
        if self.conf.get("pynimbus.dev.ui"):
            self.ui = UIDaemon(self.conf, self.reactor)
            yield self.ui.start()
        if self.conf.get("pynimbus.dev.logviewer"):
            self.logviewer = LogviewerDaemon(self.conf, self.reactor)
            yield self.logviewer.start_beside()
        if self.conf.get("pynimbus.dev.supervisor"):
            self.supervisor = SupervisorDaemon(self.conf, self.reactor)
            yield self.supervisor.start()
            log.info("%s", started_message(
                self.conf, self.bound_port, self.drpc.ports if self.drpc else None,
                self.ui.port.getHost().port if self.ui else None,
                self.logviewer.port.getHost().port if self.logviewer and self.logviewer.port
                else None))
        else:
            self.notice_if_no_supervisor()
        return started

    @defer.inlineCallbacks
    def stop(self):
        """The supervisor's workers, the supervisor, then Nimbus."""
        if self.supervisor is not None:
            yield self.supervisor.stop()
            yield self.supervisor.shutdown_all_workers()
        if self.drpc is not None:
            yield self.drpc.stop()
        if self.ui is not None:
            yield self.ui.stop()
        if self.logviewer is not None:
            yield self.logviewer.stop()
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
