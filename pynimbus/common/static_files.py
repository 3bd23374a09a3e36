"""Files a daemon ships and serves as they are (the web UI's pages, the logviewer's search
page): read once, at start, into a table of name to content type and bytes, so a request names
a key of that table or gets nothing, and no request path ever becomes a file path."""

import os

# extension -> Content-Type; a file of another kind is not served
CONTENT_TYPES = {
    ".html": b"text/html; charset=utf-8",
    ".css": b"text/css; charset=utf-8",
    ".js": b"text/javascript; charset=utf-8",
    ".svg": b"image/svg+xml",
    ".png": b"image/png",
    ".ico": b"image/x-icon",
}


def content_type(name):
    """The Content-Type of a shipped file's ``name``, or None for a kind not shipped."""
    return CONTENT_TYPES.get(os.path.splitext(name)[1].lower())


def read_static_files(directory):
    """``{name: (content type, bytes)}`` of the servable files directly in ``directory``.

    :raises OSError: ``directory`` cannot be listed or a file in it cannot be read (a broken
        install: the daemon should not start half-dressed)."""
    files = {}
    for name in sorted(os.listdir(directory)):
        kind = content_type(name)
        path = os.path.join(directory, name)
        if kind is None or name.startswith(".") or not os.path.isfile(path):
            continue
        with open(path, "rb") as f:
            files[name] = (kind, f.read())
    return files
