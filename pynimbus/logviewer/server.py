"""``pynimbus logviewer``: Storm 1.2.4's logviewer on Twisted web, on ``logviewer.port``
(8000), bound to ``pynimbus.logviewer.bind.address`` (all interfaces when unset, as Storm).

Routes (1.2.4 ``log-routes``; each also under ``/api/v1/``, where 2.x serves them, and there
``/search`` and ``/daemondownload`` also take ``file`` as a parameter, as 2.x does):
``/log``, ``/daemonlog``, ``/download``, ``/daemondownload/<file>``, ``/search/<file>``,
``/deepSearch/<topology>``, ``/searchLogs``, ``/listLogs``, ``/dumps/<topology>/<host:port>``
and ``/dumps/<topology>/<host:port>/<file>``; the shipped pages of ``static/`` (our search page
``/logviewer_search.html``, which the log page's form opens, and ``/css/style.css``); anything
else 404 "Page not found".

The answers are :mod:`pynimbus.logviewer.answers`, computed in threads; this module only
reads the request (the query as ring decodes it, path segments as compojure does, then
``file`` decoded once more as Storm does), writes the answer (a file is streamed) and runs
:func:`pynimbus.logviewer.cleanup.cleanup_fn` on a timer.

The requesting user: Storm takes it from ``ui.http.creds.plugin`` (by default the servlet
request's principal, set by the ``ui.filter`` servlet filter), and checks it only when
``ui.filter`` is set.  pynimbus runs no servlet filter, so with ``ui.filter`` set the user is
the value of the HTTP header named by ``pynimbus.logviewer.user.header`` (the name an
authenticating proxy in front sets, e.g. ``X-Remote-User``); without that setting there is
no user, and every worker log is refused, as Storm refuses a request its filter did not
authenticate.
"""

import logging
import os
from urllib.parse import unquote

from twisted.internet import defer, task, threads
from twisted.internet.error import CannotListenError
from twisted.web import resource, server

from pynimbus.common.ports import PortInUse, port_in_use_message
from pynimbus.common.static_files import read_static_files
from pynimbus.logviewer import cleanup
from pynimbus.logviewer.answers import PAGE_NOT_FOUND, LogviewerAnswers, text_answer
from pynimbus.logviewer.paths import url_decode

log = logging.getLogger(__name__)

LOGVIEWER_PORT = "logviewer.port"
BIND_ADDRESS = "pynimbus.logviewer.bind.address"
USER_HEADER = "pynimbus.logviewer.user.header"
API_PREFIX = "/api/v1"
STATIC_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")


def static_pages(directory=STATIC_DIR):
    """``{URL path: (content type, bytes)}`` of the shipped pages: the search page the log
    page's form opens, its script, and the stylesheet the pages name (Storm's path)."""
    files = read_static_files(directory)
    return {(b"/css/" if name.endswith(".css") else b"/") + name.encode("ascii"): file
            for name, file in files.items()}


def route_of(raw_path):
    """``(route, segments)`` of the request's raw path: the first part and the following
    parts, each percent-decoded once (compojure's route parameters); a leading ``/api/v1``
    is dropped."""
    path = raw_path.decode("latin-1")
    if path == API_PREFIX or path.startswith(API_PREFIX + "/"):
        path = path[len(API_PREFIX):]
    parts = path.split("/")[1:]
    if not parts:
        return "", []
    return parts[0], [unquote(p, encoding="utf-8", errors="replace") for p in parts[1:]]


class LogviewerResource(resource.Resource):
    """Every path: the route's answer, computed in a thread."""

    isLeaf = True

    def __init__(self, answers, conf, run_blocking=threads.deferToThread, static=None):
        super().__init__()
        self.answers = answers
        self.conf = conf
        self.run_blocking = run_blocking
        self.static = static if static is not None else static_pages()

    def user_of(self, request):
        header = self.conf.get(USER_HEADER)
        if not header:
            return None
        value = request.getHeader(header.encode("latin-1"))
        return value.decode("utf-8", "replace") if value else None

    def render_GET(self, request):
        shipped = self.static.get(request.path)
        if shipped is not None:
            kind, body = shipped
            request.setHeader(b"content-type", kind)
            request.setHeader(b"x-content-type-options", b"nosniff")
            return body
        route, segments = route_of(request.path)
        params = {k.decode("utf-8", "replace"): v[0].decode("utf-8", "replace")
                  for k, v in request.args.items() if v}
        call = self.call_for(route, segments, params, self.user_of(request),
                             (request.getHeader(b"origin") or b"").decode("latin-1") or None)
        if call is None:
            request.setResponseCode(404)
            request.setHeader(b"content-type", b"text/html;charset=utf-8")
            return b"Page not found"
        finished = []
        request.notifyFinish().addBoth(finished.append)
        d = self.run_blocking(*call)
        d.addCallbacks(self.respond, self.fail, callbackArgs=(request, finished),
                       errbackArgs=(request, finished))
        return server.NOT_DONE_YET

    def call_for(self, route, segments, params, user, origin):
        """The answer function and its arguments for a route, or None (not found)."""
        a = self.answers
        get = params.get
        callback = get("callback")

        def file_param():
            value = get("file")
            return None if value is None else url_decode(value)

        if route in ("log", "daemonlog") and not segments:
            return (a.log, file_param() or "", get("start"), get("length"), get("grep"),
                    user, route == "daemonlog")
        if route == "download" and not segments:
            return a.download, file_param() or "", user
        if route == "daemondownload" and len(segments) <= 1:
            fname = url_decode(segments[0]) if segments else file_param() or ""
            return a.download, fname, user, True
        if route == "search" and len(segments) <= 1:
            fname = url_decode(segments[0]) if segments else file_param() or ""
            return (a.search, fname, user, get("is-daemon") == "yes", get("search-string"),
                    get("num-matches"), get("start-byte-offset"), callback, origin)
        if route == "deepSearch" and len(segments) == 1:
            return (a.deep_search, segments[0], user, get("search-string"),
                    get("num-matches"), get("port"), get("start-file-offset"),
                    get("start-byte-offset"), "search-archived" in params, callback, origin)
        if route in ("searchLogs", "listLogs") and not segments:
            return a.list_logs, get("topoId"), get("port"), callback, origin
        if route == "dumps" and len(segments) in (2, 3):
            return (a.dumps, segments[0], segments[1],
                    segments[2] if len(segments) == 3 else None, user)
        return None

    def respond(self, answer, request, finished):
        if finished:
            return  # the caller went away
        request.setResponseCode(answer.status)
        request.setHeader(b"content-type", answer.content_type.encode("latin-1"))
        for name, value in answer.headers.items():
            request.setHeader(name.encode("latin-1"), value.encode("utf-8"))
        if answer.file is None:
            request.write(answer.body)
            request.finish()
            return
        self.send_file(answer.file, request, finished)

    def send_file(self, path, request, finished):
        request.setHeader(b"content-disposition", b"attachment")
        request.registerProducer(FileProducer(path, request, finished, self.run_blocking),
                                 False)

    @staticmethod
    def fail(failure, request, finished):
        log.error("logviewer request %s failed: %s", request.uri, failure.getTraceback())
        if finished:
            return
        request.setResponseCode(500)
        request.setHeader(b"content-type", b"text/html;charset=utf-8")
        request.write(b"Server Error")
        request.finish()


class FileProducer(object):
    """Sends a file to a request, each chunk read in a thread when the connection wants more
    (a pull producer): the reactor never reads the disk, and a slow client holds at most a
    chunk in memory."""

    CHUNK = 1 << 16

    def __init__(self, path, request, finished, run_blocking):
        self.path = path
        self.request = request
        self.finished = finished
        self.run_blocking = run_blocking
        self.file = None
        self.sent = False  # a chunk went out (the status and headers with it)

    def read_chunk(self):
        if self.file is None:
            self.file = open(self.path, "rb")
        return self.file.read(self.CHUNK)

    reading = False

    def resumeProducing(self):
        if self.reading:  # one read at a time, so that chunks go out in order
            return
        self.reading = True
        d = self.run_blocking(self.read_chunk)
        d.addCallbacks(self.send, self.failed)

    def send(self, chunk):
        self.reading = False
        if self.finished:
            self.close()
        elif chunk:
            self.sent = True
            self.request.write(chunk)
        else:
            self.done()

    def failed(self, failure):
        self.reading = False
        log.warning("sending %s stopped: %s", self.path, failure.getErrorMessage())
        if not self.sent and not self.finished:
            # gone between the answer and its first chunk (a cleanup, a rotation): answer
            # what the request would have got a moment later
            gone = text_answer(404, PAGE_NOT_FOUND)
            self.request.setResponseCode(gone.status)
            self.request.responseHeaders.removeHeader(b"content-disposition")
            self.request.setHeader(b"content-type", gone.content_type.encode("latin-1"))
            self.request.write(gone.body)
        self.done()

    def done(self):
        self.close()
        if not self.finished:
            self.request.unregisterProducer()
            self.request.finish()

    def close(self):
        if self.file is not None:
            self.file.close()
            self.file = None

    def stopProducing(self):
        self.close()


class QuietSite(server.Site):
    """A site that writes no access log line per request (Storm's logviewer writes none)."""

    def log(self, request):
        pass


class LogCleaner(object):
    """Port of ``start-log-cleaner!``: :func:`cleanup.cleanup_fn` at once and then every
    ``logviewer.cleanup.interval.secs`` on ``reactor``'s clock, each round in a thread
    (``run_blocking``); none when the interval is unset."""

    def __init__(self, conf, root, reactor, run_blocking=threads.deferToThread):
        self.conf = conf
        self.root = root
        self.reactor = reactor
        self.run_blocking = run_blocking
        self.loop = None

    def start(self):
        interval = self.conf.get("logviewer.cleanup.interval.secs")
        if not interval:
            return
        self.loop = task.LoopingCall(self.round)
        self.loop.clock = self.reactor
        self.loop.start(float(interval), now=True)

    def round(self):
        d = self.run_blocking(cleanup.cleanup_fn, self.conf, self.root, self.reactor.seconds())
        d.addErrback(lambda failure: log.error("log cleanup failed: %s",
                                               failure.getTraceback()))
        return d

    def stop(self):
        if self.loop is not None and self.loop.running:
            self.loop.stop()


class LogviewerDaemon(object):
    """The logviewer of ``conf`` on ``reactor``: ``start()`` listens on ``logviewer.port``
    and starts the cleaner, ``stop()`` stops both."""

    def __init__(self, conf, reactor):
        self.conf = conf
        self.reactor = reactor
        self.answers = LogviewerAnswers(conf)
        self.cleaner = LogCleaner(conf, self.answers.log_root, reactor)
        self.port = None

    def start(self):
        return defer.maybeDeferred(self._start)

    def _start(self):
        """:raises PortInUse: ``logviewer.port`` is held by another program."""
        site = QuietSite(LogviewerResource(self.answers, self.conf))
        site.noisy = False
        interface = self.conf.get(BIND_ADDRESS) or ""
        try:
            self.port = self.reactor.listenTCP(int(self.conf[LOGVIEWER_PORT]), site,
                                               interface=interface)
        except CannotListenError as e:
            raise PortInUse(port_in_use_message(
                LOGVIEWER_PORT, [int(e.port)], interface or "0.0.0.0",
                getattr(e.socketError, "strerror", None) or e.socketError))
        self.cleaner.start()
        log.info("logviewer serving worker logs of %s and daemon logs of %s on "
                 "http://%s:%d/", self.answers.log_root, self.answers.daemonlog_root,
                 interface or "0.0.0.0", self.port.getHost().port)

    def stop(self):
        self.cleaner.stop()
        if self.port is None:
            return defer.succeed(None)
        return defer.maybeDeferred(self.port.stopListening)

    def start_beside(self):
        """Start as a companion of another daemon (``pynimbus dev``'s, ``pynimbus
        supervisor``'s): a port held by another program is a warning, not a failure."""
        d = self.start()

        def port_taken(failure):
            failure.trap(PortInUse)
            log.warning("logviewer not started: %s", failure.getErrorMessage())
            self.port = None

        return d.addErrback(port_taken)
