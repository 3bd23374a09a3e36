"""``pynimbus ui``: Storm's UI REST API on Twisted web, on ``ui.port`` (8080).

The answers of 1.2.4's ``ui/core.clj`` routes: ``/api/v1/cluster/configuration``
(Nimbus's conf as Nimbus gives it), ``/api/v1/cluster/summary``, ``/api/v1/nimbus/summary``,
``/api/v1/history/summary``, ``/api/v1/supervisor/summary``, ``/api/v1/topology/summary``,
``/api/v1/topology/<id>`` and ``/api/v1/topology/<id>/component/<component>`` (``window``,
``sys``), ``/api/v1/supervisor`` (``id`` or ``host``), ``/api/v1/topology-workers/<id>``,
``/api/v1/topology/<id>/logconfig``, the graph (``/visualization``, ``/visualization-init``), the
per-stream ``/metrics`` and the Kafka ``/lag`` (:mod:`pynimbus.clojure_port.ui_visualization`), and
the actions (POST ``/api/v1/topology/<id>/logconfig``,
``activate``, ``deactivate``, ``rebalance/<wait>`` with its ``rebalanceOptions``,
``kill/<wait>``, ``debug/<action>/<pct>`` and ``component/<id>/debug/<action>/<pct>``), and
the profiling requests (GET ``/api/v1/topology/<id>/profiling/...``),
computed from the leader Nimbus's Thrift answers by :mod:`pynimbus.clojure_port.ui_summaries`.
Responses as ``json-response`` writes them (``Cache-Control: no-cache, no-store``, JSON, or
JavaScript ``callback(...);`` with a ``callback`` parameter); a failure as ``catch-errors``
answers it (500, or 403 for an ``AuthorizationException``, with ``{"error", "errorMessage"}``);
an unknown path 404 "Page not found".  The Nimbus calls block, so they run in threads
(:mod:`pynimbus.ui.nimbus_calls`, which remembers the leader for a few seconds): the
reactor serves other requests meanwhile.
"""

import json
import logging
import re
import traceback

from thrift.Thrift import TException
from twisted.internet import defer
from twisted.internet.error import CannotListenError
from twisted.web import resource, server

from pynimbus import STORM_VERSION, STORM_VERSION_2X
from pynimbus.clojure_port import ui_summaries, ui_summaries_2x, ui_visualization
from pynimbus.clojure_port.java_json import to_json
from pynimbus.common.ports import PortInUse, port_in_use_message
from pynimbus.generated.storm.ttypes import (
    AuthorizationException, GetInfoOptions, KillOptions, NodeInfo, NumErrorsChoice,
    ProfileAction, ProfileRequest, RebalanceOptions)
from pynimbus.ui.forgery import ANTI_FORGERY, FORBIDDEN, ForgeryGuard
from pynimbus.ui.nimbus_calls import NimbusCalls
from pynimbus.ui.prometheus import PrometheusResource
from pynimbus.ui.web import WebPages

log = logging.getLogger(__name__)

UI_PORT, UI_HOST = "ui.port", "ui.host"
UI_BIND_ADDRESS = "pynimbus.ui.bind.address"  # over ui.host when set
HTTP_STATUS_MESSAGES = {401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
                        500: "Server Error"}
JSONP_CALLBACK = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*$")
TTYPES_MODULE = "pynimbus.generated.storm.ttypes"
# 2.8.8's JSON answers' CORS headers (getJsonResponseHeaders)
ALLOW_HEADERS_2X = (b"Content-Type, Access-Control-Allow-Headers, Access-Controler-Allow-Origin, "
                    b"X-Requested-By, X-Csrf-Token, Authorization, X-Requested-With")
API = b"api"


class UIApi(object):
    """The REST API's answers: ``path`` (after ``/api/v1/``) to a Deferred JSON value (or
    JSON text), or None for a path it does not know.

    With ``pynimbus.storm.compat: "2.x"`` they are Storm 2.8.8's UI's
    (:mod:`pynimbus.clojure_port.ui_summaries_2x`, the ``_2x`` graph): its fields and
    orders, ``/metrics`` answered with the topology page, profiling as POSTs (never 501),
    ``/owner-resources``, one ``setLogConfig`` per logger; ``/visualization-init``, which
    2.8.8 fails, gives the stream boxes it meant."""

    def __init__(self, conf, nimbus, clock):
        self.conf = conf
        self.nimbus = nimbus
        self.clock = clock
        # 2.x: Storm 2.8.8's UI answers (ui_summaries_2x), else 1.2.4's (ui_summaries)
        self.v2 = conf.get("pynimbus.storm.compat") == "2.x"
        self.summaries = ui_summaries_2x if self.v2 else ui_summaries
        self.storm_version = STORM_VERSION_2X if self.v2 else STORM_VERSION
        self.routes = {
            "cluster/configuration": self.cluster_configuration,
            "cluster/summary": self.cluster_summary,
            "nimbus/summary": self.nimbus_summary,
            "history/summary": self.history_summary,
            "supervisor/summary": self.supervisor_summary,
            "topology/summary": self.topology_summary,
        }
        # ``/api/v1/topology/<id>/<page>``: pages drawn from the executors' own stats
        # page -> (its answer, the errors getTopologyInfoWithOpts is asked for: 1.2.4's
        # table of streams wants the last one, the others none; 2.8.8 always asks for one)
        one, none = NumErrorsChoice.ONE, NumErrorsChoice.NONE
        self.graph_routes = {
            "visualization": (ui_visualization.visualization_data, none),
            "visualization-init": (ui_visualization.build_visualization, one),
            "metrics": (metrics_page, none),
        }
        if self.v2:  # 2.8.8's /metrics answers the topology page
            self.graph_routes = {
                "visualization": (ui_visualization.visualization_data_2x, one),
                "visualization-init": (ui_visualization.build_visualization_2x, one)}

    def answer(self, path, params, user=None):
        """A GET of ``path``; ``params``: the query's ``{name: text}``."""
        route = self.routes.get(path)
        if route is not None:
            return defer.maybeDeferred(route, user)
        parts = path.split("/")
        if path == "supervisor":
            return defer.maybeDeferred(self.supervisor, params)
        if self.v2 and parts[0] == "owner-resources" and len(parts) <= 2:
            owner = parts[1] if len(parts) == 2 and parts[1] else None
            return defer.maybeDeferred(self.owner_resources, owner)
        if len(parts) == 2 and parts[0] == "topology-workers" and parts[1]:
            return defer.maybeDeferred(self.topology_workers, parts[1])
        if len(parts) >= 2 and parts[0] == "topology" and parts[1]:
            if len(parts) == 2:
                return defer.maybeDeferred(self.topology, parts[1], params, user)
            if parts[2:] == ["logconfig"]:
                return defer.maybeDeferred(self.log_config, parts[1])
            if self.v2 and parts[2:] == ["metrics"]:
                return defer.maybeDeferred(self.topology, parts[1], params, user)
            if len(parts) == 3 and parts[2] in self.graph_routes:
                return defer.maybeDeferred(self.graph_page, *self.graph_routes[parts[2]],
                                           topology_id=parts[1], params=params)
            if parts[2:] == ["lag"]:
                return defer.maybeDeferred(self.lag, parts[1])
            if len(parts) == 4 and parts[2] == "component" and parts[3]:
                return defer.maybeDeferred(self.component, parts[1], parts[3], params, user)
            if len(parts) in (5, 6) and parts[2] == "profiling" and not self.v2:
                return self.profiling_request(parts)
        return None

    def profiling_request(self, parts):
        """``topology/<id>/profiling/<verb>/<host:port>[/<timeout>]``, or None."""
        action = PROFILING_ACTIONS.get((parts[3], len(parts)))
        if action is None:
            return None
        return self.profiling(parts[1], parts[3], action, *parts[4:])

    def act(self, path, params):
        """A POST of ``path`` (a lifecycle or debug action), or None for no action."""
        parts = path.split("/")
        if len(parts) < 3 or parts[0] != "topology" or not parts[1]:
            return None
        topology_id, action = parts[1], parts[2:]
        if self.v2 and len(parts) in (5, 6) and action[0] == "profiling":
            return self.profiling_request(parts)  # 2.8.8's profiling is a POST
        if action == ["logconfig"]:
            return defer.maybeDeferred(self.set_log_config, topology_id, params)
        if action in (["activate"], ["deactivate"]):
            return defer.maybeDeferred(self.activation, topology_id, action[0])
        if len(action) == 2 and action[0] in ("rebalance", "kill"):
            return defer.maybeDeferred(
                self.rebalance if action[0] == "rebalance" else self.kill, topology_id,
                action[1], params)
        if len(action) == 3 and action[0] == "debug":
            return defer.maybeDeferred(self.debug, topology_id, "", action[1], action[2])
        if len(action) == 5 and action[0] == "component" and action[2] == "debug":
            return defer.maybeDeferred(self.debug, topology_id, action[1], action[3],
                                       action[4])
        return None

    def cluster_configuration(self, user):
        # ``:serialize-fn identity``: Nimbus's JSON text as it is
        return self.nimbus("getNimbusConf").addCallback(RawJSON)

    @defer.inlineCallbacks
    def cluster_summary(self, user):
        summary = yield self.nimbus("getClusterInfo")
        if self.v2:
            return ui_summaries_2x.cluster_summary(self.conf, summary, user, self.storm_version)
        body = ui_summaries.cluster_summary(self.conf, summary, user, self.storm_version)
        body["bugtracker-url"] = self.conf.get("ui.project.bugtracker.url")
        body["central-log-url"] = self.conf.get("ui.central.logging.url")
        return body

    @defer.inlineCallbacks
    def nimbus_summary(self, user):
        summary = yield self.nimbus("getClusterInfo")
        return self.summaries.nimbus_summary(self.conf, summary.nimbuses or [])

    @defer.inlineCallbacks
    def history_summary(self, user):
        history = yield self.nimbus("getTopologyHistory", user)
        return ui_summaries.topology_history_info(history)

    @defer.inlineCallbacks
    def supervisor_summary(self, user):
        summary = yield self.nimbus("getClusterInfo")
        if self.v2:
            return ui_summaries_2x.supervisor_summary(self.conf, summary.supervisors or [])
        body = ui_summaries.supervisor_summary(self.conf, summary.supervisors or [])
        body["logviewerPort"] = self.conf.get(ui_summaries.LOGVIEWER_PORT)
        return body

    @defer.inlineCallbacks
    def topology_summary(self, user):
        if self.v2:
            topologies = yield self.nimbus("getTopologySummaries")
            return ui_summaries_2x.all_topologies_summary(self.conf, topologies or [])
        summary = yield self.nimbus("getClusterInfo")
        return ui_summaries.all_topologies_summary(self.conf, summary.topologies or [])

    @defer.inlineCallbacks
    def owner_resources(self, owner=None):
        """2.x's ``/owner-resources`` (every owner) and ``/owner-resources/<owner>``."""
        summaries = yield self.nimbus("getOwnerResourceSummaries", owner)
        if owner is None:
            return ui_summaries_2x.owner_resource_summaries(self.conf, summaries or [])
        topologies = []
        if summaries:
            topologies = yield self.nimbus("getTopologySummaries")
        return ui_summaries_2x.owner_resource_summary(self.conf, owner, summaries or [],
                                                      topologies or [])

    @defer.inlineCallbacks
    def topology(self, topology_id, params, user):
        """``/api/v1/topology/:id`` with ``window`` (default all-time) and ``sys``."""
        window = params.get("window") or ui_summaries.ALL_TIME
        info = yield self.nimbus("getTopologyPageInfo", topology_id, window,
                                 include_sys(params.get("sys")))
        if self.v2:
            return ui_summaries_2x.topology_page(
                self.conf, info, json.loads(info.topology_conf or "{}"), window, user,
                int(self.clock.seconds()))
        return ui_summaries.topology_page(self.conf, info, window, user,
                                          int(self.clock.seconds()))

    @defer.inlineCallbacks
    def graph_page(self, page, errors, topology_id, params):
        """``/visualization``, ``/visualization-init`` and ``/metrics``: the system topology
        and its executors' stats (``window``, ``sys``)."""
        yield self.nimbus("getTopologyConf", topology_id)  # assert-authorized-user's read
        topology = yield self.nimbus("getTopology", topology_id)
        info = yield self.nimbus("getTopologyInfoWithOpts", topology_id,
                                 GetInfoOptions(num_err_choice=errors))
        return page(topology, info.executors, params.get("window"),
                    include_sys(params.get("sys")), topology_id)

    @defer.inlineCallbacks
    def lag(self, topology_id):
        """``/lag``: the Kafka spouts' offset lag (``getUserTopology``)."""
        yield self.nimbus("getTopologyConf", topology_id)  # assert-authorized-user's read
        if self.v2 and ui_summaries_2x.lag_monitoring_disabled(self.conf):
            return {}
        topology = yield self.nimbus("getUserTopology", topology_id)
        if self.v2:
            return ui_visualization.topology_lag(topology, kinds=("new",))
        return NoCallback(ui_visualization.topology_lag(topology))

    @defer.inlineCallbacks
    def component(self, topology_id, component_id, params, user):
        """``/api/v1/topology/:id/component/:component`` with ``window`` and ``sys``."""
        yield self.nimbus("getTopologyConf", topology_id)  # assert-authorized-user's read
        window = params.get("window") or ui_summaries.ALL_TIME
        info = yield self.nimbus("getComponentPageInfo", topology_id, component_id, window,
                                 include_sys(params.get("sys")))
        pending = []
        if self.v2 or self.conf.get("worker.profiler.enabled"):
            pending = yield self.nimbus("getComponentPendingProfileActions", topology_id,
                                        component_id, ProfileAction.JPROFILE_STOP)
        now = self.clock.seconds()
        return self.summaries.component_page(self.conf, info, topology_id, component_id,
                                             window, user, int(now), pending or [],
                                             int(now * 1000))

    def profiling(self, topology_id, verb, action, host_port, timeout=None):
        """``/profiling/<verb>/<host:port>[/<timeout>]``: a ``ProfileRequest`` to the worker
        through Nimbus; start, stop and dumpprofile only with ``worker.profiler.enabled``
        (else 501), as 1.2.4's UI; 2.8.8's asks the worker whatever the setting."""
        if (verb in NEED_PROFILER and not self.v2
                and not self.conf.get("worker.profiler.enabled")):
            return defer.succeed(Status(501, {
                "status": "disabled", "message": "Profiling is not enabled on this server"}))
        return defer.maybeDeferred(self._profile, topology_id, verb, action, host_port,
                                   timeout)

    @defer.inlineCallbacks
    def _profile(self, topology_id, verb, action, host_port, timeout):
        yield self.nimbus("getTopologyConf", topology_id)  # assert-authorized-user's read
        host, _, port = host_port.partition(":")
        now_ms = int(self.clock.seconds() * 1000)
        if verb == "start":
            stamp = now_ms + 60000 * java_parse_int(timeout, 64)
        else:
            stamp = 0 if verb == "stop" else now_ms
        request = ProfileRequest(nodeInfo=NodeInfo(node=host, port={java_parse_int(port, 64)}),
                                 action=action, time_stamp=stamp)
        yield self.nimbus("setWorkerProfiler", topology_id, request)
        body = {"status": "ok", "id": host_port}
        if verb == "start":
            body.update({"timeout": timeout, "dumplink": self.summaries.worker_dump_link(
                self.conf, host, port, topology_id)})
        return body

    @defer.inlineCallbacks
    def supervisor(self, params):
        """``/api/v1/supervisor?id=`` (or ``host=``; the id wins), ``sys``."""
        info = yield self.nimbus("getSupervisorPageInfo", params.get("id"), params.get("host"),
                                 include_sys(params.get("sys")))
        if self.v2:
            return ui_summaries_2x.supervisor_page(self.conf, info)
        body = ui_summaries.supervisor_page(self.conf, info)
        body["logviewerPort"] = self.conf.get(ui_summaries.LOGVIEWER_PORT)
        return body

    @defer.inlineCallbacks
    def topology_workers(self, topology_id):
        info = yield self.nimbus("getTopologyInfo", topology_id)
        if self.v2:
            return ui_summaries_2x.topology_workers(self.conf, info.executors)
        return {"hostPortList": ui_summaries.worker_host_port(info.executors),
                "logviewerPort": self.conf.get(ui_summaries.LOGVIEWER_PORT)}

    @defer.inlineCallbacks
    def log_config(self, topology_id):
        yield self.nimbus("getTopologyConf", topology_id)  # assert-authorized-user's read
        config = yield self.nimbus("getLogConfig", topology_id)
        return self.summaries.log_config(config)

    @defer.inlineCallbacks
    def set_log_config(self, topology_id, params):
        """POST ``/logconfig`` with ``namedLoggerLevels``; answers the config as it is
        after."""
        yield self.nimbus("getTopologyConf", topology_id)  # assert-authorized-user's read
        if self.v2:  # one setLogConfig per logger, as 2.8.8's putTopologyLogLevel
            configs = ui_summaries_2x.new_log_configs(params.get("namedLoggerLevels"))
        else:
            configs = [ui_summaries.new_log_config(params.get("namedLoggerLevels"))]
        for config in configs:
            log.info("Setting topology %s log config %s", topology_id, config)
            yield self.nimbus("setLogConfig", topology_id, config)
        return (yield self.log_config(topology_id))

    @defer.inlineCallbacks
    def topology_name(self, topology_id):
        """The name an action goes to (``getTopologyInfoWithOpts`` without errors), after
        the conf read ``assert-authorized-user`` makes."""
        yield self.nimbus("getTopologyConf", topology_id)
        info = yield self.nimbus("getTopologyInfoWithOpts", topology_id,
                                 GetInfoOptions(num_err_choice=NumErrorsChoice.NONE))
        return info.name

    @defer.inlineCallbacks
    def activation(self, topology_id, action):
        name = yield self.topology_name(topology_id)
        yield self.nimbus(action, name)
        log.info("%s topology '%s'", "Activating" if action == "activate" else "Deactivating",
                 name)
        return ui_summaries.topology_op_response(topology_id, action)

    @defer.inlineCallbacks
    def rebalance(self, topology_id, wait_time, params):
        """``rebalance/:wait-time`` with the body's ``rebalanceOptions`` (``numWorkers``,
        ``executors``)."""
        options = RebalanceOptions(wait_secs=java_parse_int(wait_time))
        asked = params.get("rebalanceOptions") or {}
        if "numWorkers" in asked:
            options.num_workers = java_parse_int(str(asked["numWorkers"]))
        if "executors" in asked:
            options.num_executors = {str(c): java_parse_int(str(n))
                                     for c, n in asked["executors"].items()}
        name = yield self.topology_name(topology_id)
        yield self.nimbus("rebalance", name, options)
        log.info("Rebalancing topology '%s' with wait time: %s secs", name, wait_time)
        return ui_summaries.topology_op_response(topology_id, "rebalance")

    @defer.inlineCallbacks
    def kill(self, topology_id, wait_time, params):
        options = KillOptions(wait_secs=java_parse_int(wait_time))
        name = yield self.topology_name(topology_id)
        yield self.nimbus("killTopologyWithOpts", name, options)
        log.info("Killing topology '%s' with wait time: %s secs", name, wait_time)
        return ui_summaries.topology_op_response(topology_id, "kill")

    @defer.inlineCallbacks
    def debug(self, topology_id, component_id, action, sampling_pct):
        pct = java_parse_int(sampling_pct)
        name = yield self.topology_name(topology_id)
        yield self.nimbus("debug", name, component_id, action == "enable", pct)
        log.info("Debug topology [%s] component [%s] action [%s] sampling pct [%s]", name,
                 component_id, action, sampling_pct)
        if component_id and self.v2:
            return ui_summaries_2x.component_debug_response(topology_id, action)
        if component_id:
            return ui_summaries.component_op_response(topology_id, component_id,
                                                      "/debug/" + action)
        return ui_summaries.topology_op_response(topology_id, "debug/" + action)


# /profiling/<verb>: (verb, path segments) -> the ProfileAction asked of the worker
PROFILING_ACTIONS = {
    ("start", 6): ProfileAction.JPROFILE_STOP, ("stop", 5): ProfileAction.JPROFILE_STOP,
    ("dumpprofile", 5): ProfileAction.JPROFILE_DUMP, ("dumpjstack", 5): ProfileAction.JSTACK_DUMP,
    ("restartworker", 5): ProfileAction.JVM_RESTART, ("dumpheap", 5): ProfileAction.JMAP_DUMP,
}
NEED_PROFILER = ("start", "stop", "dumpprofile")


class Status(object):
    """An answer with another status than 200."""

    def __init__(self, code, body):
        self.code = code
        self.body = body


def java_parse_int(text, bits=32):
    """``Integer/parseInt`` (``bits=64``: ``Long``'s parse).

    :raises ValueError: not a decimal number of that size (Storm's NumberFormatException, a
        500)."""
    if not re.match(r"^[+-]?[0-9]+$", text or ""):
        raise ValueError('For input string: "%s"' % text)
    value = int(text)
    if not -2 ** (bits - 1) <= value < 2 ** (bits - 1):
        raise ValueError('For input string: "%s"' % text)
    return value


def include_sys(sys_param):
    """``check-include-sys?``: absent or "false" is false, anything else true."""
    return sys_param is not None and sys_param != "false"


def metrics_page(topology, executors, window, sys, _storm_id):
    """``/metrics`` (1.x) as the other graph pages are called."""
    return ui_visualization.topology_metrics_page(topology, executors, window, sys)


class NoCallback(object):
    """An answer written as JSON even with a ``callback`` (``/lag``'s ``json-response``)."""

    def __init__(self, body):
        self.body = body


class RawJSON(str):
    """JSON text written as it is."""


def json_body(value):
    return str(value) if isinstance(value, RawJSON) else to_json(value)


def exception_json(error, status):
    """``exception->json``: the status and its message, and the error's trace."""
    return {"error": "%d %s" % (status, HTTP_STATUS_MESSAGES.get(status, "")),
            "errorMessage": "".join(traceback.format_exception(
                type(error), error, error.__traceback__))}


def exception_json_2x(error, status):
    """2.8.8 ``UIHelpers.exceptionToJson``: the status and the exception's message.  A Thrift
    exception's Java message is empty, so Storm shows its class; ours adds its ``msg``, which
    says what went wrong."""
    if isinstance(error, TException) and type(error).__module__ == TTYPES_MODULE:
        message = "org.apache.storm.generated." + type(error).__name__
        if getattr(error, "msg", None):
            message += ": " + error.msg
    else:
        message = str(error) or type(error).__name__
    return {"error": "%d %s" % (status, HTTP_STATUS_MESSAGES.get(status, "")),
            "errorMessage": message}


def safe_jsonp_callback(callback):
    """2.8.8 ``sanitizeJsonpCallback``: a callback that is a (dotted) JavaScript name of at
    most 128 characters, else None (the answer is then plain JSON); 1.x mode does the same."""
    if callback is None or len(callback) > 128 or not JSONP_CALLBACK.match(callback):
        return None
    return callback


class ApiResource(resource.Resource):
    """``/api/v1/...``."""

    isLeaf = True

    def __init__(self, api, guard=None):
        super().__init__()
        self.api = api
        self.guard = guard if guard is not None else ForgeryGuard(False)
        self.v2 = api.v2

    @staticmethod
    def path_and_params(request):
        """The path after ``/api/v1/`` and the query's ``{name: text}``."""
        path = "/".join(p.decode("utf-8", "replace") for p in request.postpath)
        return path, {k.decode("utf-8", "replace"): v[0].decode("utf-8", "replace")
                      for k, v in request.args.items() if v}

    def render_GET(self, request):
        path, params = self.path_and_params(request)
        callback = params.get("callback") or None
        if self.guard.tokens_required and path == "token":
            d = defer.succeed({"antiForgeryToken": self.guard.token(request)})
        else:
            d = self.api.answer(path, params)
        if d is None:
            return NotFound().render(request)
        parts = path.split("/")
        if self.guard.tokens_required and len(parts) == 2 and parts[0] == "topology":
            token = self.guard.token(request)  # the cookie goes out before the answer
            d.addCallback(lambda body: dict(body, antiForgeryToken=token))
        return self._answer_later(d, request, callback)

    def render_POST(self, request):
        """An action; a JSON body's keys join the query's (ring's ``wrap-json-params``)."""
        path, params = self.path_and_params(request)
        refusal = self.guard.refusal(request)
        if refusal is not None:
            return self._answer_later(defer.succeed(Status(403, {
                "error": FORBIDDEN, "errorMessage": refusal})), request, None)
        content_type = (request.getHeader(b"content-type") or b"").decode("latin-1")
        if content_type.startswith("application/json"):
            try:
                body = json.loads(request.content.read() or b"null")
            except ValueError as e:
                body = e
            if isinstance(body, dict):
                params.update(body)
            elif isinstance(body, ValueError):
                return self._answer_later(defer.fail(body), request, params.get("callback"))
        d = self.api.act(path, params)
        if d is None:
            return NotFound().render(request)
        return self._answer_later(d, request, params.get("callback") or None)

    def _answer_later(self, d, request, callback):
        finished = []
        request.notifyFinish().addBoth(finished.append)
        d.addCallbacks(self._respond, self._fail, callbackArgs=(request, callback, finished),
                       errbackArgs=(request, callback, finished))
        return server.NOT_DONE_YET

    def _respond(self, value, request, callback, finished, status=200):
        if finished:
            return  # the caller went away
        if isinstance(value, Status):
            value, status = value.body, value.code
        if isinstance(value, NoCallback):
            value, callback = value.body, None
        request.setResponseCode(status)
        request.setHeader(b"cache-control", b"no-cache, no-store")
        request.setHeader(b"x-content-type-options", b"nosniff")
        origin = request.getHeader(b"origin")
        if self.v2 and self.guard.echoes_origin():
            request.setHeader(b"access-control-allow-origin", b"*")
            request.setHeader(b"access-control-allow-headers", ALLOW_HEADERS_2X)
        elif origin and self.guard.echoes_origin():  # 1.2.4's ring-cors, any origin
            request.setHeader(b"access-control-allow-origin", origin)
        callback = safe_jsonp_callback(callback)
        body = json_body(value)
        if callback is not None:
            request.setHeader(b"content-type", b"application/javascript;charset=utf-8")
            body = "%s(%s);" % (callback, body)
        else:
            request.setHeader(b"content-type", b"application/json;charset=utf-8")
        request.write(body.encode("utf-8"))
        request.finish()

    def _fail(self, failure, request, callback, finished):
        """Storm's answer to a failure: 1.2.4's ``catch-errors`` (403 for an
        AuthorizationException, else 500, with the trace); 2.8.8's exception mappers (401 for
        an AuthorizationException, else 500, with the message, never as JSONP)."""
        error = failure.value
        refused = isinstance(error, AuthorizationException)
        if not refused:
            log.error("UI request %s failed: %s", request.uri, failure.getTraceback())
        if self.v2:
            status = 401 if refused else 500
            self._respond(exception_json_2x(error, status), request, None, finished, status)
            return
        status = 403 if refused else 500
        self._respond(exception_json(error, status), request, callback, finished, status)


class NotFound(resource.Resource):
    """``route/not-found``: 404 "Page not found"."""

    isLeaf = True

    def render(self, request):
        request.setResponseCode(404)
        request.setHeader(b"content-type", b"text/html;charset=utf-8")
        return b"Page not found"


class UIRoot(resource.Resource):
    """``/``: the API under ``/api/v1``, Prometheus's ``/metrics``
    (:mod:`pynimbus.ui.prometheus`), the web UI's shipped files (``/`` the cluster page, see
    :mod:`pynimbus.ui.web`); anything else "Page not found"."""

    def __init__(self, api, pages=None):
        super().__init__()
        version = NotFoundParent()
        version.putChild(b"v1", ApiResource(api, ForgeryGuard(bool(api.conf.get(ANTI_FORGERY)))))
        self.putChild(API, version)
        self.putChild(b"metrics", PrometheusResource(api.nimbus))
        self.pages = pages if pages is not None else WebPages()

    def getChild(self, path, request):
        return self.pages.child(path) or NotFound()


class NotFoundParent(resource.Resource):
    """A path segment with children: what is not one of them is not found."""

    def getChild(self, path, request):
        return NotFound()


class UIDaemon(object):
    """The UI server of ``conf`` on ``reactor``: ``start()`` listens on ``ui.port`` at
    ``pynimbus.ui.bind.address`` or else ``ui.host``, ``stop()`` closes it."""

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
        interface = self.conf.get(UI_BIND_ADDRESS) or self.conf.get(UI_HOST) or "0.0.0.0"
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
