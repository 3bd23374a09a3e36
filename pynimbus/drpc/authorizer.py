"""The DRPC server's authorizers (``drpc.authorizer``): ``permit(operation, function)``.

* none (the default): every call is permitted;
* ``org.apache.storm.security.auth.authorizer.NoopAuthorizer``: the same;
* ``...DenyAuthorizer``: every call is refused;
* ``...DRPCSimpleACLAuthorizer`` (port of 1.2.4's, with ``DRPCAuthorizerBase``): ``execute``
  is a client request, ``fetchRequest``, ``result`` and ``failRequest`` are invocation
  requests, any other operation is refused.  The ACL is ``drpc.authorizer.acl`` of the YAML
  file ``drpc.authorizer.acl.filename`` (read again at most every 5 s): per function its
  ``client.users`` and its ``invocation.user``.  A client request is permitted when the caller's
  principal or local user is one of the function's client users, an invocation request when it
  is the invocation user; a function without an entry is refused unless
  ``drpc.authorizer.acl.strict`` is false (its default in Storm's defaults), which permits it.

The caller is SimpleTransportPlugin's one principal (``debug.simple.transport.user``, else
anonymous), mapped by ``storm.principal.tolocal``, as the Nimbus authorizers see it.  The ACL
file is found as Storm finds it on the classpath, here: a relative name in ``$STORM_CONF_DIR``
then in the daemon's working directory.  A file that cannot be read refuses every call, with
the reason logged.
"""

import logging
import os

import yaml

from pynimbus.clojure_port.authorization import (
    principal_to_local, request_principal, resolve_principal_to_local)
from pynimbus.common.config import ConfigError

log = logging.getLogger(__name__)

_PACKAGE = "org.apache.storm.security.auth.authorizer."
NOOP_AUTHORIZER = _PACKAGE + "NoopAuthorizer"
DENY_AUTHORIZER = _PACKAGE + "DenyAuthorizer"
DRPC_SIMPLE_ACL_AUTHORIZER = _PACKAGE + "DRPCSimpleACLAuthorizer"
KNOWN_DRPC_AUTHORIZERS = (NOOP_AUTHORIZER, DENY_AUTHORIZER, DRPC_SIMPLE_ACL_AUTHORIZER)

CLIENT_OPERATIONS = ("execute",)
INVOCATION_OPERATIONS = ("failRequest", "fetchRequest", "result")
ACL_RELOAD_SECS = 5.0


def find_acl_file(name, conf_dir=None, cwd=None):
    """The path of the ACL file ``name``: as given when absolute, else in the conf dir, else
    in the working directory (None when nowhere)."""
    if os.path.isabs(name):
        return name if os.path.exists(name) else None
    for directory in (conf_dir, cwd or os.getcwd()):
        if directory and os.path.exists(os.path.join(directory, name)):
            return os.path.join(directory, name)
    return None


def read_acl(path):
    """``{function: (client users, invocation user)}`` of an ACL file's
    ``drpc.authorizer.acl``.

    :raises OSError, yaml.YAMLError, ValueError: the file cannot be read as an ACL."""
    with open(path) as f:
        conf = yaml.safe_load(f) or {}
    entries = conf.get("drpc.authorizer.acl") if isinstance(conf, dict) else None
    if entries is None:
        return None
    if not isinstance(entries, dict):
        raise ValueError("drpc.authorizer.acl in %s is not a map of functions" % path)
    acl = {}
    for function, entry in entries.items():
        entry = entry if isinstance(entry, dict) else {}
        users = entry.get("client.users")
        acl[str(function)] = (frozenset(str(u) for u in users or ()),
                              entry.get("invocation.user"))
    return acl


class DRPCSimpleACL(object):
    """``DRPCSimpleACLAuthorizer``: see the module docstring.  ``clock()`` gives seconds."""

    def __init__(self, conf, clock, conf_dir=None):
        strict = conf.get("drpc.authorizer.acl.strict")
        self.permit_when_missing = strict is not None and not strict
        self.file_name = conf.get("drpc.authorizer.acl.filename") or "drpc-auth-acl.yaml"
        self.conf_dir = conf_dir
        self.principal = request_principal(conf)
        self.user = principal_to_local(
            resolve_principal_to_local(conf.get("storm.principal.tolocal")), self.principal)
        self.clock = clock
        self.acl = None
        self.read_at = None

    def current_acl(self):
        """The ACL, read again when older than 5 s; None when the file cannot be read."""
        now = self.clock()
        if self.read_at is None or now - self.read_at > ACL_RELOAD_SECS:
            self.read_at = now
            path = find_acl_file(self.file_name, self.conf_dir)
            try:
                if path is None:
                    raise OSError("%s is not in $STORM_CONF_DIR nor the working directory"
                                  % self.file_name)
                acl = read_acl(path)
            except (OSError, yaml.YAMLError, ValueError) as e:
                log.error("DRPC ACL %s cannot be read, every call is refused: %s",
                          self.file_name, e)
                self.acl = None
                return None
            if acl is None and not self.permit_when_missing:
                log.warning("Requiring explicit ACL entries, but none given. Therefore, all "
                            "operations will be denied.")
            self.acl = acl or {}
        return self.acl

    def permit(self, operation, function):
        if operation in CLIENT_OPERATIONS:
            client = True
        elif operation in INVOCATION_OPERATIONS:
            client = False
        else:
            log.warning('Denying unsupported operation "%s"', operation)
            return False
        acl = self.current_acl()
        if acl is None or not function:
            return False
        entry = acl.get(function)
        if entry is None:
            return self.permit_when_missing
        users, invocation_user = entry
        allowed = users if client else {invocation_user} - {None}
        if not allowed and not client:
            log.warning("Configuration for function '%s' is invalid: it should have both an "
                        "invocation user and a list of client users defined.", function)
        return bool({self.principal, self.user} & set(allowed) - {None})


def drpc_permit(conf, clock, conf_dir=None):
    """``permit(operation, function)`` of ``drpc.authorizer``, or None (every call permitted).

    :raises ConfigError: an authorizer pynimbus does not have."""
    name = conf.get("drpc.authorizer")
    if name is None or name == NOOP_AUTHORIZER:
        return None
    if name == DENY_AUTHORIZER:
        return lambda operation, function: False
    if name == DRPC_SIMPLE_ACL_AUTHORIZER:
        return DRPCSimpleACL(conf, clock, conf_dir).permit
    raise ConfigError("drpc.authorizer %r is not an authorizer pynimbus has; use one of %s, "
                      "or leave it unset to allow every call"
                      % (name, ", ".join(KNOWN_DRPC_AUTHORIZERS)))
