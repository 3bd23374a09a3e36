"""pynimbus's own web UI: the HTML, CSS and JavaScript files shipped in ``pynimbus/ui/web/``.

The pages draw everything from the REST API in the browser, so serving them is only handing
out files: ``/`` is the cluster page, ``/<name>`` one shipped file.  The files are read once,
when the UI starts, into a table of name to bytes; a request names a key of that table or gets
nothing, so no request path ever becomes a file path (``..``, ``%2e%2e``, sub-directories and
unknown names are not found).  Our own design, not a port: Storm's UI serves its
``public/`` directory through ring's resource route instead.
"""

import os

from twisted.web import resource

from pynimbus.common.static_files import read_static_files

WEB_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "web")
INDEX = "index.html"


def read_web_files(directory=WEB_DIR):
    """``{name: (content type, bytes)}`` of the web UI's files (:func:`read_static_files`)."""
    return read_static_files(directory)


class WebFile(resource.Resource):
    """One shipped file: GET or HEAD gives it; anything below it is not found."""

    isLeaf = True

    def __init__(self, kind, body):
        super().__init__()
        self.kind = kind
        self.body = body

    def render_GET(self, request):
        if request.postpath:  # /app.js/more names no file
            return not_found(request)
        request.setHeader(b"content-type", self.kind)
        # the files change with the installed version: revalidate rather than guess an age
        request.setHeader(b"cache-control", b"no-cache")
        request.setHeader(b"x-content-type-options", b"nosniff")
        return self.body

    def render_HEAD(self, request):
        return self.render_GET(request)


def not_found(request):
    request.setResponseCode(404)
    request.setHeader(b"content-type", b"text/html;charset=utf-8")
    return b"Page not found"


class WebPages(object):
    """The shipped files by name (read once, at start), each a :class:`WebFile`."""

    def __init__(self, files=None):
        if files is None:
            files = read_web_files()
        self.resources = {name: WebFile(kind, body) for name, (kind, body) in files.items()}

    def child(self, segment):
        """The resource of one URL path ``segment`` (bytes; ``b""`` is ``/``, the cluster
        page), or None when no shipped file has that name."""
        try:
            name = segment.decode("utf-8") if segment else INDEX
        except UnicodeDecodeError:
            return None
        return self.resources.get(name)

    def names(self):
        return sorted(self.resources)
