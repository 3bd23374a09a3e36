"""The HTML pages of a log: port of 1.2.4 logviewer.clj ``page-file``, ``pager-links``,
``log-page``/``daemonlog-page`` (their page part) and ``log-template``.

A page shows ``length`` bytes (51200 by default, at most 10 MB) from ``start``, or the file's
last ``length`` bytes without a start, with Storm's Prev, First, Last and Next links, a
download link, the other files of the topology (or the daemon logs) to switch to, and
``grep`` keeping only the lines that contain it.  Blocking (reads the file).
"""

import html
import os
import re

from pynimbus.clojure_port.ui_summaries import url_format
from pynimbus.logviewer import files
from pynimbus.logviewer.search import DEFAULT_BYTES_PER_PAGE, InvalidRequest, hiccup_url

MAX_PAGE_LENGTH = 10485760
TEXT_FILE = re.compile(r"\.(log.*|txt|yaml|pid)$")
BINARY_NOTE = "This is a binary file and cannot display! You may download the full file."


def is_txt_file(fname):
    return TEXT_FILE.search(fname) is not None


def page_file(path, start, length):
    """Port of ``page-file``: ``length`` bytes of the file's text from ``start`` (the last
    ``length`` bytes when ``start`` is None).

    :raises InvalidRequest: ``start`` is at or past the end of the file.
    """
    file_len = files.file_length(path)
    if start is None:
        start = file_len - length
    if start >= file_len:
        raise InvalidRequest("Cannot start past the end of the file")
    with files.open_log(path) as stream:
        if start > 0:
            stream.seek(start)
        return files.read_fully(stream, length).decode("utf-8", "replace")


def page_length(length):
    return DEFAULT_BYTES_PER_PAGE if length is None else min(MAX_PAGE_LENGTH, length)


def btn_link(url, text, enabled=True):
    """``to-btn-link``."""
    return '<a class="btn btn-default %s" href="%s">%s</a>' % (
        "enabled" if enabled else "disabled", html.escape(url), html.escape(text))


def pager_links(fname, start, length, file_size, kind):
    """Port of ``pager-links``: Prev, First, Last, Next."""
    prev_start = max(0, start - length)
    next_start = (min(max(0, file_size - length), start + length) if file_size > 0
                  else start + length)
    base = "/" + kind
    return "<div>%s</div>" % "".join([
        btn_link(hiccup_url(base, [("file", fname), ("start", prev_start),
                                   ("length", length)]), "Prev", prev_start < start),
        btn_link(hiccup_url(base, [("file", fname), ("start", 0), ("length", length)]),
                 "First"),
        btn_link(hiccup_url(base, [("file", fname), ("length", length)]), "Last"),
        btn_link(hiccup_url(base, [("file", fname),
                                   ("start", min(max(0, file_size - length), start + length)),
                                   ("length", length)]), "Next", next_start > start)])


def search_file_form(fname, is_daemon):
    return ('<form action="logviewer_search.html" id="search-box">Search this file:'
            '<input name="search" type="text">'
            '<input name="is-daemon" type="hidden" value="%s">'
            '<input name="file" type="hidden" value="%s">'
            '<input type="submit" value="Search"></form>'
            % ("yes" if is_daemon else "no", html.escape(fname)))


def file_selection_form(names, kind):
    options = "".join('<option value="%s">%s</option>' % (html.escape(n), html.escape(n))
                      for n in names)
    return ('<form action="%s" id="list-of-files"><select id="file" name="file">%s</select>'
            '<input type="submit" value="Switch file"></form>' % (kind, options))


def log_page_body(path, fname, start, length, grep, other_files, is_daemon):
    """The body of ``log-page`` (``daemonlog-page`` with ``is_daemon``) for the checked
    file at ``path``."""
    kind = "daemonlog" if is_daemon else "log"
    file_len = files.file_length(path)
    length = page_length(length)
    text = page_file(path, start, length) if is_txt_file(fname) else BINARY_NOTE
    if grep is not None:
        lines = [line for line in text.split("\n") if grep in line]
        return '<pre id="logContent">%s</pre>' % html.escape("\n".join(lines))
    start = file_len - length if start is None else start
    names = [n for n in other_files if n != fname]
    pager = pager_links(fname, start, length, file_len, kind) if is_txt_file(fname) else ""
    download = (url_format("/daemondownload/%s", fname) if is_daemon
                else url_format("/download?file=%s", fname))
    return "".join([search_file_form(fname, is_daemon),
                    file_selection_form([fname] + names, kind), pager,
                    '<p><a href="%s">Download Full File</a></p>' % html.escape(download),
                    '<pre id="logContent">%s</pre>' % html.escape(text), pager])


def log_template(body, fname, user=None):
    """Port of ``log-template``: the page around ``body``."""
    user_note = ('<div class="ui-user"><p>User: %s</p></div>' % html.escape(user)
                 if user else "")
    return ("<!DOCTYPE html>\n<html><head><title>%s - Storm Log Viewer</title>"
            '<link href="/css/style.css" rel="stylesheet" type="text/css">'
            '<link rel="icon" href="data:,"></head><body>'
            '%s<div class="ui-note"><p>Note: the drop-list shows at most 1024 files for each '
            'worker directory.</p></div><h3>%s</h3>%s</body></html>'
            % (html.escape(fname or ""), user_note, html.escape(fname or ""), body))


def dump_files_page(topology_id, host_port, names):
    """The ``/dumps/<topology>/<host:port>`` list."""
    items = "".join('<li><a href="%s">%s</a></li>' % (
        html.escape("/dumps/%s/%s/%s" % (topology_id, host_port, n)), html.escape(n))
        for n in names)
    # an empty icon: the logviewer serves no favicon, which a browser would ask for
    return ("<!DOCTYPE html>\n<html><head><title>File Dumps - Storm Log Viewer</title>"
            '<link rel="icon" href="data:,"></head><body><ul>%s</ul></body></html>' % items)


def worker_files_of_topology(topo_dir):
    """The ``<topology>/<port>/<file>`` names of the files in the topology's port
    directories (``log-page``'s file list), sorted."""
    names = set()
    for port in _listdir(topo_dir):
        port_dir = os.path.join(topo_dir, port)
        for name in _listdir(port_dir)[:1024]:
            if os.path.isfile(os.path.join(port_dir, name)):
                names.add("/".join([os.path.basename(topo_dir), port, name]))
    return sorted(names)


def daemon_files(root):
    """The names of the files in the daemon log directory."""
    return [n for n in _listdir(root) if os.path.isfile(os.path.join(root, n))]


def _listdir(path):
    try:
        return os.listdir(path)
    except OSError:  # not a directory, or gone meanwhile
        return []
