"""The DRPC server's HTTP endpoint on ``drpc.http.port`` (Storm's ``DRPCResource``, 2.8.8):

* ``POST /drpc/<function>``: the request's body (UTF-8) is the argument;
* ``GET /drpc/<function>/<argument>``: the argument is the path's last segment (decoded);
* ``GET /drpc/<function>``: the argument is empty.

The answer is the result as text (200); a failure is Storm's ``DRPCExceptionMapper`` body,
``{"error": <type>, "errorMessage": <message>}`` as JSON with 400 (a failed request), 503
(the server is shutting down), 504 (timed out) or 500.  Any other path is 404.
"""

import json
import logging

from twisted.internet import defer
from twisted.web import resource, server

from pynimbus.generated.storm.ttypes import DRPCExceptionType, DRPCExecutionException

log = logging.getLogger(__name__)

ERROR_STATUS = {DRPCExceptionType.FAILED_REQUEST: 400, DRPCExceptionType.SERVER_SHUTDOWN: 503,
                DRPCExceptionType.SERVER_TIMEOUT: 504}


def error_response(error):
    """``(status, JSON body)`` of a ``DRPCExecutionException`` (``DRPCExceptionMapper``)."""
    kind = error.type
    name = (DRPCExceptionType._VALUES_TO_NAMES.get(kind, "INTERNAL_ERROR")
            if kind is not None else "Internal Error")
    body = json.dumps({"error": name, "errorMessage": error.msg}).encode("utf-8")
    return ERROR_STATUS.get(kind, 500), body


def request_of(method, segments, body):
    """``(function, argument)`` of an HTTP request under ``/drpc/``, or None (not found)."""
    segments = [s.decode("utf-8", "replace") for s in segments]
    if segments and segments[-1] == "" and len(segments) > 1:
        segments = segments[:-1]  # a trailing slash
    if not segments or not segments[0]:
        return None
    if method == b"POST" and len(segments) == 1:
        return segments[0], body.decode("utf-8", "replace")
    if method == b"GET" and len(segments) in (1, 2):
        return segments[0], segments[1] if len(segments) == 2 else ""
    return None


class DRPCResource(resource.Resource):
    """``/drpc/...``: each request an ``execute`` of the handler, answered when it is."""

    isLeaf = True

    def __init__(self, handler):
        super().__init__()
        self.handler = handler

    def render(self, request):
        body = request.content.read() if request.method == b"POST" else b""
        asked = request_of(request.method, request.postpath, body)
        if asked is None:
            request.setResponseCode(404)
            return b"Not Found"
        function, argument = asked
        finished = []
        request.notifyFinish().addBoth(finished.append)  # the caller may go away first
        # refused at once (busy, not authorized): the same errback as a failure later
        d = defer.maybeDeferred(self.handler.execute, function, argument)
        d.addCallbacks(self._answer, self._fail, callbackArgs=(request, finished),
                       errbackArgs=(request, finished))
        return server.NOT_DONE_YET

    @staticmethod
    def _answer(result, request, finished):
        if finished:
            return
        request.setHeader(b"content-type", b"text/plain; charset=utf-8")
        request.write((result or "").encode("utf-8"))
        request.finish()

    @staticmethod
    def _fail(failure, request, finished):
        if finished:
            return
        error = failure.value
        if not isinstance(error, DRPCExecutionException):
            log.error("DRPC over HTTP failed: %s", failure.getTraceback())
            error = DRPCExecutionException(msg=str(error), type=DRPCExceptionType.INTERNAL_ERROR)
        status, body = error_response(error)
        request.setResponseCode(status)
        request.setHeader(b"content-type", b"application/json")
        request.write(body)
        request.finish()


def drpc_site(handler):
    """The HTTP site: ``DRPCResource`` at ``/drpc``."""
    root = resource.Resource()
    root.putChild(b"drpc", DRPCResource(handler))
    site = server.Site(root)
    site.noisy = False
    return site
