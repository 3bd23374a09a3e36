"""The DRPC server's requests: queued per function, handed to the topologies that fetch them,
answered with their result, their failure, or a timeout (pure: time is given).

Ports 2.8.8 ``daemon/drpc/DRPC`` (and 1.2.4 ``daemon/drpc.clj``'s ``service-handler``, which
behaves the same but for its messages):

* ``execute(function, args)`` makes a request with the next id (a decimal string counting from
  1) and queues it on its function; the caller waits for it;
* ``fetch_request(function)`` takes the oldest request of that function off its queue, or
  returns the empty request ``("", "")`` when none waits;
* ``result(id, value)`` and ``fail_request(id, error)`` answer a request whether it was
  fetched or not; an id that no longer waits (answered, timed out, never made) is ignored;
* every request older than ``drpc.request.timeout.secs`` is answered with a timeout by
  :meth:`DRPCRequests.expire` (Storm checks every half of the timeout), and taken off its
  queue if it was not fetched; closing the server answers every waiting request.

The errors are ``DRPCExecutionException`` with 2.x's ``type`` (1.x clients skip the field):
"Request failed" (``FAILED_REQUEST``) for a failure without its own, "Request timed out" as
1.x says it (2.x: "Timed Out") with ``SERVER_TIMEOUT``, "Server Shutting Down" with
``SERVER_SHUTDOWN``.  Authorization (``drpc.authorizer``) is asked before each operation, as
Storm asks it: ``execute`` and ``fetchRequest`` by the function asked, ``result`` and
``failRequest`` by the function of the request (an unknown id is not checked: it is ignored).
"""

import collections

from pynimbus.generated.storm.ttypes import (
    AuthorizationException, DRPCExceptionType, DRPCExecutionException)

TIMED_OUT = {"1.x": "Request timed out", "2.x": "Timed Out"}
SHUT_DOWN = "Server Shutting Down"
DEFAULT_FAILED = "Request failed"
NOTHING_REQUEST = ("", "")


def drpc_error(message, kind):
    return DRPCExecutionException(msg=message, type=kind)


class OutstandingRequest(object):
    """One request: its function, arguments and id, when it was made, whether it was fetched,
    and ``on_answer(result_or_exception)``, called once: answering takes the request out of
    :attr:`DRPCRequests.requests`, and only what is there is answered."""

    __slots__ = ("function", "args", "id", "start_ms", "fetched", "on_answer")

    def __init__(self, function, args, request_id, start_ms, on_answer):
        self.function = function
        self.args = args
        self.id = request_id
        self.start_ms = start_ms
        self.fetched = False
        self.on_answer = on_answer


class DRPCRequests(object):
    """The requests of one DRPC server.

    :param timeout_ms: ``drpc.request.timeout.secs`` in milliseconds.
    :param permit: ``permit(operation, function)`` -> bool, the authorizer's answer (None:
        everything is permitted).
    :param compat: ``"1.x"`` or ``"2.x"``: the wording of a timeout.
    :param principal: the caller's principal a refusal names (None: "unknown").
    """

    def __init__(self, timeout_ms, permit=None, compat="1.x", principal=None):
        self.timeout_ms = timeout_ms
        self.permit = permit
        self.principal = principal
        self.compat = compat
        self.queues = collections.defaultdict(collections.deque)  # function -> waiting
        self.requests = {}  # id -> OutstandingRequest, until answered
        self.counter = 0

    def _check(self, operation, function):
        """:raises AuthorizationException: the authorizer refuses ``operation`` on
        ``function`` (Storm's message, for an unauthenticated user)."""
        if self.permit is not None and not self.permit(operation, function):
            raise AuthorizationException(
                msg="DRPC request '%s' for '%s' user is not authorized"
                    % (operation, self.principal or "unknown"))

    def execute(self, function, args, now_ms, on_answer):
        """Queue a request of ``function`` with ``args``; ``on_answer`` gets its result (a
        string) or its ``DRPCExecutionException``.  Returns the request.

        :raises AuthorizationException: ``execute`` of ``function`` is not permitted."""
        self._check("execute", function)
        self.counter += 1
        request = OutstandingRequest(function, args, str(self.counter), now_ms, on_answer)
        self.requests[request.id] = request
        self.queues[function].append(request)
        return request

    def fetch_request(self, function):
        """The oldest request of ``function`` not fetched yet, as ``(args, id)``, or
        ``("", "")``.

        :raises AuthorizationException: ``fetchRequest`` of ``function`` is not permitted."""
        self._check("fetchRequest", function)
        queue = self.queues.get(function)
        if not queue:  # (an answered request is no longer queued)
            return NOTHING_REQUEST
        request = queue.popleft()
        if not queue:
            del self.queues[function]
        request.fetched = True
        return request.args, request.id

    def result(self, request_id, value):
        """Answer ``request_id`` with ``value`` (ignored when it no longer waits).

        :raises AuthorizationException: ``result`` of its function is not permitted."""
        request = self.requests.get(request_id)
        if request is not None:
            self._check("result", request.function)
            self._finish(request, value)

    def fail_request(self, request_id, error=None):
        """Answer ``request_id`` with ``error`` (a ``DRPCExecutionException``; None: "Request
        failed"), ignored when it no longer waits.

        :raises AuthorizationException: ``failRequest`` of its function is not permitted."""
        request = self.requests.get(request_id)
        if request is not None:
            self._check("failRequest", request.function)
            if error is None:
                error = drpc_error(DEFAULT_FAILED, DRPCExceptionType.FAILED_REQUEST)
            self._finish(request, error)

    def expire(self, now_ms):
        """Answer every request older than the timeout with a timeout; returns their ids."""
        expired = [r for r in self.requests.values()
                   if now_ms - r.start_ms > self.timeout_ms]
        for request in expired:
            self._finish(request, drpc_error(TIMED_OUT[self.compat],
                                             DRPCExceptionType.SERVER_TIMEOUT))
        return [r.id for r in expired]

    def close(self):
        """Answer every waiting request: the server is shutting down."""
        for request in list(self.requests.values()):
            self._finish(request, drpc_error(SHUT_DOWN, DRPCExceptionType.SERVER_SHUTDOWN))

    def _finish(self, request, value):
        del self.requests[request.id]
        if not request.fetched:
            queue = self.queues[request.function]
            queue.remove(request)
            if not queue:
                del self.queues[request.function]
        request.on_answer(value)

    def waiting(self, function=None):
        """How many requests wait for an answer (of ``function``, or of all)."""
        if function is None:
            return len(self.requests)
        return sum(1 for r in self.requests.values() if r.function == function)
