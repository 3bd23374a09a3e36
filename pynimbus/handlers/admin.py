"""Per-topology administration: new credentials and debug (event logging) switches.

Ports of nimbus.clj (1.2.4) ``uploadNewCredentials`` and ``debug``.  Log levels, the worker
profiler and authorization are not implemented yet (they answer "not supported yet").
"""

import logging

from twisted.internet import defer
from twisted.internet.threads import deferToThread

from pynimbus.generated.storm.ttypes import Credentials, DebugOptions, NotAliveException
from pynimbus.handlers.lifecycle import storm_id_of

log = logging.getLogger(__name__)


class AdminHandler:
    """``uploadNewCredentials`` and ``debug``.

    :param nimbus: the daemon (``state``, ``submit_lock``).
    """

    def __init__(self, conf, nimbus, run_blocking=deferToThread):
        self.conf = conf
        self.nimbus = nimbus
        self.run_blocking = run_blocking
        self.cred_update_lock = defer.DeferredLock()

    def _storm_id(self, name):
        storm_id = storm_id_of(self.nimbus.state, name)
        if storm_id is None:
            raise NotAliveException(msg="%s is not alive" % name)
        return storm_id

    @defer.inlineCallbacks
    def uploadNewCredentials(self, name, creds):
        """:raises NotAliveException: no topology has that name."""
        storm_id = yield self.run_blocking(self._storm_id, name)
        new = Credentials(creds=dict(creds.creds or {}) if creds is not None else {})
        yield self.cred_update_lock.acquire()
        try:
            yield self.run_blocking(self.nimbus.state.set_credentials, storm_id, new)
        finally:
            self.cred_update_lock.release()

    @defer.inlineCallbacks
    def debug(self, name, component, enable, samplingPercentage):
        """Port of ``debug``: ``component_debug[component or the topology id]``.

        :raises NotAliveException: no topology has that name.
        """
        storm_id = yield self.run_blocking(self._storm_id, name)
        options = DebugOptions(enable=bool(enable))
        if enable:  # while disabling Storm keeps the sampling percentage it had
            options.samplingpct = max(min(float(samplingPercentage or 0.0), 100.0), 0.0)
        key = component if component else storm_id
        log.info("Nimbus setting debug to %s for storm-name '%s' storm-id '%s' sampling pct '%s'%s",
                 enable, name, storm_id, options.samplingpct,
                 " component-id '%s'" % component if component else "")
        lock = self.nimbus.submit_lock
        yield lock.acquire()
        try:
            yield self.run_blocking(self.nimbus.state.update_storm, storm_id,
                                    {"component_debug": {key: options}})
        finally:
            lock.release()
