# -*- test-case-name: tests.test_authorization -*-
"""The authorization hook every handler calls: the shell around
:mod:`pynimbus.clojure_port.authorization`.

:class:`Authorization` is made once at start-up from nimbus's conf (an unknown
``nimbus.authorizer`` fails start-up there).  Handlers call :meth:`Authorization.check` with
their Thrift method name, the topology name and conf, before they read further or write
anything; :meth:`Authorization.check_stored` first reads the topology's stored conf (only when
an authorizer is configured, so the default costs nothing).

A denial raises Storm's ``AuthorizationException("<op>[ on topology <name>] is not
authorized")``.  Where the IDL declares no AuthorizationException for the method
(``setLogConfig``, ``getLogConfig``, ``setWorkerProfiler``, ``getComponentPendingProfileActions``,
``processWorkerMetrics``), Java's Thrift processor turns Storm's exception into
``TApplicationException`` INTERNAL_ERROR; pynimbus sends that too, with the denial's message.

Deliberate difference: the principal's groups (``storm.group.mapping.service``, read by
SimpleACLAuthorizer) are looked up once at start-up, not every 120 s; the principal itself
(``debug.simple.transport.user``) never changes while nimbus runs.
"""

import logging

from pynimbus.clojure_port import authorization as port_auth
from pynimbus.common.config import ConfigError
from pynimbus.common.user_groups import unix_groups
from pynimbus.generated.storm.ttypes import AuthorizationException
from pynimbus.handlers import declared_exceptions
from pynimbus.nimbus.topology_store import read_storm_conf
from pynimbus.thrift.errors import as_application_error

log = logging.getLogger(__name__)


def _declares_authorization_exception(method):
    try:
        return AuthorizationException in declared_exceptions(method)
    except AttributeError:  # not a Thrift method
        return True


class Authorization(port_auth.AuthorizationHandler):
    """Nimbus's ``:authorization-handler`` and the request's principal.

    :param authorizer: a ``resolve_authorizer`` result; None allows every call.
    """

    def __init__(self, compat="1.x", authorizer=None, nimbus_conf=None, acl=None,
                 principal=None, user=None, user_groups=frozenset()):
        super().__init__(authorizer, acl, principal, user, user_groups)
        self.compat = compat
        self.nimbus_conf = nimbus_conf or {}

    @classmethod
    def from_conf(cls, conf, groups_of=unix_groups):
        """Port of ``mk-authorization-handler (conf NIMBUS-AUTHORIZER)``.  Blocking (groups).

        :raises ConfigError: ``nimbus.authorizer`` or ``storm.principal.tolocal`` names a
            class pynimbus does not have.
        """
        compat = conf.get("pynimbus.storm.compat", "1.x")
        try:
            authorizer = port_auth.resolve_authorizer(conf.get("nimbus.authorizer"))
            acl = None
            groups = frozenset()
            # the transport names the caller whatever the authorizer (submitTopology records
            # it as the submitter)
            to_local = port_auth.resolve_principal_to_local(conf.get("storm.principal.tolocal"))
            principal = port_auth.request_principal(conf)
            user = port_auth.principal_to_local(to_local, principal)
            if authorizer == port_auth.SIMPLE_ACL_AUTHORIZER:
                acl = port_auth.prepare_simple_acl(conf, compat)
                groups = groups_of(user) if user else frozenset()
        except port_auth.UnknownAuthorizerError as e:
            raise ConfigError(str(e))
        if authorizer is not None:
            log.info("Nimbus authorizer %s (request principal %s)", authorizer, principal)
        return cls(compat, authorizer, conf, acl, principal, user, groups)

    def operation(self, method):
        return port_auth.operation_of(method, self.compat)

    def permitted(self, method, storm_name=None, topology_conf=None):
        """Port of ``is-authorized?`` / ``isAuthorized``: the verdict, without raising for a
        denial.

        :raises TApplicationException: SimpleACLAuthorizer without a principal.
        """
        operation = self.operation(method)
        if operation is None or not self.enabled:
            return True
        storm_name = port_auth.checked_name(method, storm_name, self.compat)
        conf = port_auth.check_conf(storm_name, topology_conf)
        try:
            return port_auth.permit(self.authorizer, operation, conf, self.acl, self.principal,
                                    self.user, self.user_groups, self.compat)
        except port_auth.NoPrincipalError as e:
            raise as_application_error(e)

    def check(self, method, storm_name=None, topology_conf=None):
        """Port of ``check-authorization!`` / ``checkAuthorization`` for Thrift ``method``.

        :raises AuthorizationException: denied (TApplicationException INTERNAL_ERROR with the
            same message for a method whose IDL does not declare AuthorizationException).
        """
        if self.permitted(method, storm_name, topology_conf):
            if self.enabled and self.operation(method) is not None:
                log.debug("access-granted: principal %s operation %s topology %s",
                          self.principal, self.operation(method), storm_name)
            return
        operation = self.operation(method)
        storm_name = port_auth.checked_name(method, storm_name, self.compat)
        log.info("access-denied: principal %s operation %s topology %s",
                 self.principal, operation, storm_name)
        error = port_auth.authorization_error(operation, storm_name)
        if _declares_authorization_exception(method):
            raise error
        raise as_application_error(error.msg)

    def topology_conf_for(self, method, stored_conf):
        """The conf Storm checks ``method`` against: 2.8.8 merges nimbus's conf under the
        stored one for some methods (:data:`MERGED_CONF_METHODS_2X`)."""
        if self.compat == "2.x" and method in port_auth.MERGED_CONF_METHODS_2X:
            return port_auth.merged_conf(self.nimbus_conf, stored_conf)
        return stored_conf

    def reads_stored_conf(self, method):
        """Whether :meth:`check_stored` reads the topology's stored conf for ``method`` (an
        authorizer is configured and rules the method)."""
        return self.enabled and self.operation(method) is not None

    def check_stored(self, method, blob_store, storm_id, storm_name=None):
        """Read ``storm_id``'s stored conf and :meth:`check` ``method`` against it; nothing is
        read when no authorizer is configured.  Blocking.

        :raises NotAliveException: the topology has no stored conf (Storm's
            ``try-read-storm-conf``).
        :raises AuthorizationException: denied.
        """
        if not self.reads_stored_conf(method):
            return
        conf = self.topology_conf_for(method, read_storm_conf(blob_store, storm_id))
        name = storm_name if storm_name is not None else conf.get("topology.name")
        self.check(method, name, conf)


# What a handler holds until the daemon gives it the configured one: allows every call.
ALLOW_ALL = Authorization()
