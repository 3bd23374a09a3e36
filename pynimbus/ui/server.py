"""``pynimbus ui``: Storm's UI REST API on Twisted web, on ``ui.port`` (8080).

The answers of 1.2.4's ``ui/core.clj`` routes: ``/api/v1/cluster/configuration``
(Nimbus's conf as Nimbus gives it), ``/api/v1/cluster/summary``, ``/api/v1/nimbus/summary``,
``/api/v1/history/summary``, ``/api/v1/supervisor/summary``, ``/api/v1/topology/summary``
and ``/api/v1/topology/<id>`` (``window``, ``sys``),
computed from the leader Nimbus's Thrift answers by :mod:`pynimbus.clojure_port.ui_summaries`.
Responses as ``json-response`` writes them (``Cache-Control: no-cache, no-store``, JSON, or
JavaScript ``callback(...);`` with a ``callback`` parameter); a failure as ``catch-errors``
answers it (500, or 403 for an ``AuthorizationException``, with ``{"error", "errorMessage"}``);
an unknown path 404 "Page not found".  The Nimbus calls block, so they run in threads: the
reactor serves other requests meanwhile.
"""

import logging
import traceback

from twisted.internet import defer, threads
from twisted.internet.error import CannotListenError
from twisted.web import resource, server

from pynimbus import STORM_VERSION, STORM_VERSION_2X
from pynimbus.clojure_port import ui_summaries
from pynimbus.clojure_port.java_json import to_json
from pynimbus.common.ports import PortInUse, port_in_use_message
from pynimbus.generated.storm.ttypes import AuthorizationException
from pynimbus.thrift.client import call_leader_nimbus

log = logging.getLogger(__name__)

UI_PORT, UI_HOST = "ui.port", "ui.host"
HTTP_STATUS_MESSAGES = {403: "Forbidden", 404: "Not Found", 500: "Server Error"}
API = b"api"


class NimbusCalls(object):
    """The leader Nimbus's Thrift calls, each in a thread (a Deferred)."""

    def __init__(self, conf, call=call_leader_nimbus):
        self.conf = conf
        self.call = call

    def __call__(self, method, *args):
        return threads.deferToThread(self.call, self.conf, method, *args)


class UIApi(object):
    """The REST API's answers: ``path`` (after ``/api/v1/``) to a Deferred JSON value (or
    JSON text), or None for a path it does not know."""

    def __init__(self, conf, nimbus, clock):
        self.conf = conf
        self.nimbus = nimbus
        self.clock = clock
        self.storm_version = (STORM_VERSION_2X if conf.get("pynimbus.storm.compat") == "2.x"
                              else STORM_VERSION)
        self.routes = {
            "cluster/configuration": self.cluster_configuration,
            "cluster/summary": self.cluster_summary,
            "nimbus/summary": self.nimbus_summary,
            "history/summary": self.history_summary,
            "supervisor/summary": self.supervisor_summary,
            "topology/summary": self.topology_summary,
        }

    def answer(self, path, params, user=None):
        """``params``: the query's ``{name: text}``."""
        route = self.routes.get(path)
        if route is not None:
            return defer.maybeDeferred(route, user)
        parts = path.split("/")
        if len(parts) == 2 and parts[0] == "topology" and parts[1]:
            return defer.maybeDeferred(self.topology, parts[1], params, user)
        return None

    def cluster_configuration(self, user):
        # ``:serialize-fn identity``: Nimbus's JSON text as it is
        return self.nimbus("getNimbusConf").addCallback(RawJSON)

    @defer.inlineCallbacks
    def cluster_summary(self, user):
        summary = yield self.nimbus("getClusterInfo")
        body = ui_summaries.cluster_summary(self.conf, summary, user, self.storm_version)
        body["bugtracker-url"] = self.conf.get("ui.project.bugtracker.url")
        body["central-log-url"] = self.conf.get("ui.central.logging.url")
        return body

    @defer.inlineCallbacks
    def nimbus_summary(self, user):
        summary = yield self.nimbus("getClusterInfo")
        return ui_summaries.nimbus_summary(self.conf, summary.nimbuses or [])

    @defer.inlineCallbacks
    def history_summary(self, user):
        history = yield self.nimbus("getTopologyHistory", user)
        return ui_summaries.topology_history_info(history)

    @defer.inlineCallbacks
    def supervisor_summary(self, user):
        summary = yield self.nimbus("getClusterInfo")
        body = ui_summaries.supervisor_summary(self.conf, summary.supervisors or [])
        body["logviewerPort"] = self.conf.get(ui_summaries.LOGVIEWER_PORT)
        return body

    @defer.inlineCallbacks
    def topology_summary(self, user):
        summary = yield self.nimbus("getClusterInfo")
        return ui_summaries.all_topologies_summary(self.conf, summary.topologies or [])

    @defer.inlineCallbacks
    def topology(self, topology_id, params, user):
        """``/api/v1/topology/:id`` with ``window`` (default all-time) and ``sys``."""
        window = params.get("window") or ui_summaries.ALL_TIME
        info = yield self.nimbus("getTopologyPageInfo", topology_id, window,
                                 include_sys(params.get("sys")))
        return ui_summaries.topology_page(self.conf, info, window, user,
                                          int(self.clock.seconds()))


def include_sys(sys_param):
    """``check-include-sys?``: absent or "false" is false, anything else true."""
    return sys_param is not None and sys_param != "false"


class RawJSON(str):
    """JSON text written as it is."""


def json_body(value):
    return str(value) if isinstance(value, RawJSON) else to_json(value)


def exception_json(error, status):
    """``exception->json``: the status and its message, and the error's trace."""
    return {"error": "%d %s" % (status, HTTP_STATUS_MESSAGES.get(status, "")),
            "errorMessage": "".join(traceback.format_exception(
                type(error), error, error.__traceback__))}


class ApiResource(resource.Resource):
    """``/api/v1/...``."""

    isLeaf = True

    def __init__(self, api):
        super().__init__()
        self.api = api

    def render_GET(self, request):
        path = "/".join(p.decode("utf-8", "replace") for p in request.postpath)
        params = {k.decode("utf-8", "replace"): v[0].decode("utf-8", "replace")
                  for k, v in request.args.items() if v}
        callback = params.get("callback") or None
        d = self.api.answer(path, params)
        if d is None:
            return NotFound().render(request)
        finished = []
        request.notifyFinish().addBoth(finished.append)
        d.addCallbacks(self._respond, self._fail, callbackArgs=(request, callback, finished),
                       errbackArgs=(request, callback, finished))
        return server.NOT_DONE_YET

    @staticmethod
    def _respond(value, request, callback, finished, status=200):
        if finished:
            return  # the caller went away
        request.setResponseCode(status)
        request.setHeader(b"cache-control", b"no-cache, no-store")
        origin = request.getHeader(b"origin")
        if origin:  # ring-cors with the any-origin pattern echoes the origin
            request.setHeader(b"access-control-allow-origin", origin)
        body = json_body(value)
        if callback is not None:
            request.setHeader(b"content-type", b"application/javascript;charset=utf-8")
            body = "%s(%s);" % (callback, body)
        else:
            request.setHeader(b"content-type", b"application/json;charset=utf-8")
        request.write(body.encode("utf-8"))
        request.finish()

    def _fail(self, failure, request, callback, finished):
        error = failure.value
        status = 403 if isinstance(error, AuthorizationException) else 500
        if status == 500:
            log.error("UI request %s failed: %s", request.uri, failure.getTraceback())
        self._respond(exception_json(error, status), request, callback, finished, status)


class NotFound(resource.Resource):
    """``route/not-found``: 404 "Page not found"."""

    isLeaf = True

    def render(self, request):
        request.setResponseCode(404)
        request.setHeader(b"content-type", b"text/html;charset=utf-8")
        return b"Page not found"


class UIRoot(resource.Resource):
    """``/``: the API under ``/api/v1``; anything else "Page not found"."""

    def __init__(self, api):
        super().__init__()
        version = NotFoundParent()
        version.putChild(b"v1", ApiResource(api))
        self.putChild(API, version)

    def getChild(self, path, request):
        return NotFound()


class NotFoundParent(resource.Resource):
    """A path segment with children: what is not one of them is not found."""

    def getChild(self, path, request):
        return NotFound()


class UIDaemon(object):
    """The UI server of ``conf`` on ``reactor``: ``start()`` listens on ``ui.port`` at
    ``ui.host``, ``stop()`` closes it."""

    def __init__(self, conf, reactor, nimbus=None):
        self.conf = conf
        self.reactor = reactor
        self.api = UIApi(conf, nimbus or NimbusCalls(conf), reactor)
        self.port = None

    def start(self):
        return defer.maybeDeferred(self._start)

    def _start(self):
        """:raises PortInUse: ``ui.port`` is held by another program."""
        site = server.Site(UIRoot(self.api))
        site.noisy = False
        interface = self.conf.get(UI_HOST) or "0.0.0.0"
        try:
            self.port = self.reactor.listenTCP(int(self.conf[UI_PORT]), site,
                                               interface=interface)
        except CannotListenError as e:
            raise PortInUse(port_in_use_message(
                UI_PORT, [int(e.port)], interface,
                getattr(e.socketError, "strerror", None) or e.socketError))
        log.info("UI serving Storm's REST API on http://%s:%d/api/v1/", interface,
                 self.port.getHost().port)

    def stop(self):
        if self.port is None:
            return defer.succeed(None)
        return defer.maybeDeferred(self.port.stopListening)
