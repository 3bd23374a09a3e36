"""The ``Nimbus`` Thrift service, composed from one handler object per concern.

:class:`NimbusHandler` answers every method of the union IDL.  Each method is served by the
first concern object (queries, files, blobs, ...) that defines it; a method no concern
implements yet raises the exception Storm declares for it, saying it is not supported yet
(:func:`not_supported`).  Every call goes through :func:`_guarded`, which maps failures the way
libthrift's processor does for Java Nimbus: a declared Thrift exception reaches the client as
itself; anything else is logged and becomes ``TApplicationException`` INTERNAL_ERROR
"Internal error processing <method>".
"""

import logging

from thrift.Thrift import TApplicationException
from twisted.internet import defer
from zope.interface import implementer

from pynimbus.cluster.backend import ConnectionLostError
from pynimbus.generated.storm import Nimbus
from pynimbus.generated.storm import ttypes
from pynimbus.thrift.errors import as_application_error

log = logging.getLogger(__name__)

NIMBUS_METHODS = tuple(sorted(Nimbus.Iface.names()))

# Which declared exception says "not supported yet" best, when a method declares several.
_NOT_SUPPORTED_PREFERENCE = (
    ttypes.InvalidTopologyException,
    ttypes.IllegalStateException,
    ttypes.AuthorizationException,
    ttypes.NotAliveException,
    ttypes.KeyNotFoundException,
    ttypes.AlreadyAliveException,
    ttypes.KeyAlreadyExistsException,
)


def declared_exceptions(method):
    """Return the exception classes ``service Nimbus`` declares for ``method``, in field order."""
    spec = getattr(Nimbus, method + "_result").thrift_spec
    return tuple(field[3][0] for field in spec if field is not None and field[0] > 0)


def not_supported(method):
    """Return a callable that fails ``method`` with its declared exception, saying why."""
    declared = declared_exceptions(method)
    message = "%s is not supported yet by pynimbus" % method
    for exc_class in _NOT_SUPPORTED_PREFERENCE:
        if exc_class in declared:
            def fail(*args, _exc_class=exc_class):
                raise _exc_class(msg=message)
            return fail

    def fail_undeclared(*args):
        raise TApplicationException(TApplicationException.UNKNOWN, message)
    return fail_undeclared


def _guarded(method, implementation):
    declared = declared_exceptions(method) + (TApplicationException,)

    def call(*args):
        d = defer.maybeDeferred(implementation, *args)
        d.addErrback(_map_failure, method, declared)
        return d
    call.__name__ = method
    return call


def _map_failure(failure, method, declared):
    if failure.check(*declared):
        return failure
    if failure.check(ConnectionLostError):
        # An outage, not a bug: the client learns why (a refusal, logged as one line).
        raise as_application_error(failure.getErrorMessage())
    log.error("Internal error processing %s: %s", method, failure.getTraceback())
    raise TApplicationException(TApplicationException.INTERNAL_ERROR,
                                "Internal error processing %s" % method)


@implementer(Nimbus.Iface)
class NimbusHandler:
    """Every ``service Nimbus`` method, each taken from the first concern that defines it."""

    def __init__(self, *concerns):
        self.implemented = {}
        for method in NIMBUS_METHODS:
            implementation = next(
                (getattr(c, method) for c in concerns if callable(getattr(c, method, None))), None)
            if implementation is not None:
                self.implemented[method] = implementation
            else:
                implementation = not_supported(method)
            setattr(self, method, _guarded(method, implementation))
