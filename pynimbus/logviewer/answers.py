"""The logviewer's answers to its routes, as 1.2.4 logviewer.clj's ``log-routes`` give them:
each a function of the request's already decoded values returning an :class:`Answer` (a
status, a content type, a body or a file to send, headers).  No Twisted; blocking (reads
files): the server calls them in threads.

Deliberate differences: a file that is not found or not allowed answers its status (404,
403) where Storm's HTML pages embed the status in a 200 page; a deep search's bad
``num-matches`` or offsets answer 400 with the parameter's name (Storm: a 500 trace).
"""

import collections
import json
import os
import re
import traceback

from pynimbus.common.config import storm_log_dir
from pynimbus.common.hostname import hostname
from pynimbus.logviewer import authorization, listing, pages, paths
from pynimbus.logviewer.search import (
    GREP_MAX_SEARCH_SIZE, InvalidRequest, LinkMaker, substring_search)

Answer = collections.namedtuple("Answer", "status content_type body file headers")
HTML = "text/html;charset=utf-8"
JSON = "application/json;charset=utf-8"
JAVASCRIPT = "application/javascript;charset=utf-8"
OCTET_STREAM = "application/octet-stream"
STATUS_MESSAGES = {400: "Bad Request", 403: "Forbidden", 404: "Not Found",
                   500: "Server Error"}
JAVA_LONG = re.compile(r"^[+-]?[0-9]+$")
PAGE_NOT_FOUND = "Page not found"


def text_answer(status, text, content_type=HTML):
    return Answer(status, content_type, text.encode("utf-8"), None, {})


def json_answer(value, callback=None, status=200, origin=None):
    """``json-response``, with the CORS headers the search routes add."""
    body = json.dumps(value, ensure_ascii=False)
    headers = {"Cache-Control": "no-cache, no-store",
               "Access-Control-Allow-Credentials": "true"}
    if origin:
        headers["Access-Control-Allow-Origin"] = origin
    if callback:
        return Answer(status, JAVASCRIPT, ("%s(%s);" % (callback, body)).encode("utf-8"),
                      None, headers)
    return Answer(status, JSON, body.encode("utf-8"), None, headers)


def exception_json(error, status):
    """``exception->json``."""
    return {"error": "%d %s" % (status, STATUS_MESSAGES.get(status, "")),
            "errorMessage": "".join(traceback.format_exception(
                type(error), error, error.__traceback__))}


def unauthorized_html(user):
    return text_answer(403, "User '%s' is not authorized." % (user or ""))


def unauthorized_json(user):
    return {"error": "No Authorization", "errorMessage": "User %s is not authorized." % user}


def file_not_found_json():
    return {"error": "Not Found", "errorMessage": "The file was not found on this node."}


def parse_long(name, value):
    """``parse-long-from-map``.

    :raises InvalidRequest: naming the parameter.
    """
    if value is None:
        return None
    if not JAVA_LONG.match(value):
        raise InvalidRequest("Could not make an integer out of the query parameter '%s'"
                             % name)
    return int(value)


def parse_int(name, value):
    """``try-parse-int-param``.

    :raises InvalidRequest: naming the parameter.
    """
    if value is None:
        return None
    if not JAVA_LONG.match(value) or not -2 ** 31 <= int(value) < 2 ** 31:
        raise InvalidRequest("Could not parse %s to an integer" % name)
    return int(value)


class LogviewerAnswers(object):
    """The answers for one logviewer: worker logs under ``log_root``
    (``<storm.log.dir>/workers-artifacts``), daemon logs in ``daemonlog_root``
    (``storm.log.dir``)."""

    def __init__(self, conf, log_root=None, daemonlog_root=None, groups_of=None):
        self.conf = conf
        self.daemonlog_root = daemonlog_root or storm_log_dir(conf)
        self.log_root = log_root or worker_artifacts_dir(conf)
        self.links = LinkMaker(hostname(conf), conf.get("logviewer.port"))
        self.groups_of = groups_of or authorization.unix_groups

    def may_read(self, user, fname):
        return authorization.may_read_worker_log(user, fname, self.conf, self.log_root,
                                                 self.groups_of)

    def refusal_html(self, user, fname):
        """``log-page``'s refusal: 404 without the worker's ``worker.yaml``, else 403."""
        if authorization.log_user_group_whitelist(self.log_root, fname) is None:
            return text_answer(404, PAGE_NOT_FOUND)
        return unauthorized_html(user)

    def log(self, fname, start, length, grep, user, is_daemon=False):
        """``GET /log`` (``/daemonlog`` with ``is_daemon``): a page of the file."""
        try:
            start = parse_long("start", start)
            length = parse_long("length", length)
            if not is_daemon and not self.may_read(user, fname):
                return self.refusal_html(user, fname)
            if is_daemon:
                path = paths.daemon_log_file(self.daemonlog_root, fname)
                others = pages.daemon_files(self.daemonlog_root) if path else []
            else:
                path = paths.worker_log_file(self.log_root, fname)
                others = (pages.worker_files_of_topology(
                    paths.existing_dir_under(self.log_root, fname.split("/")[0]))
                    if path else [])
            if path is None:
                return text_answer(404, PAGE_NOT_FOUND)
            body = pages.log_page_body(path, fname, start, length, grep, others, is_daemon)
        except InvalidRequest as e:
            return text_answer(400, str(e))
        return text_answer(200, pages.log_template(body, fname, user))

    def download(self, fname, user, is_daemon=False):
        """``GET /download`` and ``/daemondownload/<file>``: the whole file."""
        root = self.daemonlog_root if is_daemon else self.log_root
        path = paths.servable_file(root, fname, is_daemon)
        if path is None:
            return text_answer(404, PAGE_NOT_FOUND)
        if not is_daemon and not self.may_read(user, fname):
            return unauthorized_html(user)
        return Answer(200, OCTET_STREAM, None, path, {})

    def search(self, fname, user, is_daemon, search, num_matches, offset, callback, origin):
        """``GET /search/<file>``: port of ``search-log-file``."""
        root = self.daemonlog_root if is_daemon else self.log_root
        path = paths.servable_file(root, fname, is_daemon)
        if path is None:
            return json_answer(file_not_found_json(), callback, 404)
        if not is_daemon and not self.may_read(user, fname):
            return json_answer(unauthorized_json(user), callback, 403)
        try:
            num_matches = parse_int("num-matches", num_matches)
            offset = parse_int("start-byte-offset", offset)
        except InvalidRequest as e:
            return json_answer(exception_json(e, 400), callback, 400)
        try:
            if not search or len(search.encode("utf-8")) > GREP_MAX_SEARCH_SIZE:
                raise InvalidRequest("Search substring must be between 1 and 1024 UTF-8 "
                                     "bytes in size (inclusive)")
            found = substring_search(path, search, self.links, is_daemon, num_matches,
                                     offset)
        except Exception as e:  # Storm answers every failure of the search as a 500
            return json_answer(exception_json(e, 500), callback, 500)
        return json_answer(found, callback, origin=origin)

    def deep_search(self, topology_id, user, search, num_matches, port, file_offset, offset,
                    search_archived, callback, origin):
        """``GET /deepSearch/<topology>``."""
        try:
            found = listing.deep_search_logs_for_topology(
                self.log_root, topology_id, search, num_matches, port, file_offset, offset,
                search_archived, self.conf.get("supervisor.slots.ports"),
                lambda fname: self.may_read(user, fname), self.links)
        except ValueError as e:
            return json_answer(exception_json(e, 400), callback, 400)
        return json_answer(found, callback, origin=origin)

    def list_logs(self, topology_id, port, callback, origin):
        """``GET /listLogs`` and ``/searchLogs``."""
        return json_answer(listing.list_log_files(self.log_root, topology_id, port),
                           callback, origin=origin)

    def dumps(self, topology_id, host_port, filename, user):
        """``GET /dumps/<topology>/<host:port>[/<file>]``: a worker's profiler dumps."""
        port = host_port.split(":")[1] if host_port.count(":") >= 1 else None
        port_dir = paths.existing_dir_under(self.log_root, topology_id, port) if port else None
        path = (paths.servable_file(self.log_root, "/".join([topology_id, port, filename]))
                if port_dir and filename is not None else None)
        if port_dir is None or (filename is not None and path is None):
            return text_answer(404, PAGE_NOT_FOUND)
        if not self.may_read(user, "/".join([topology_id, port, "worker.log"])):
            return unauthorized_html(user)
        if filename is not None:
            return Answer(200, OCTET_STREAM, None, path, {})
        return text_answer(200, pages.dump_files_page(
            topology_id, host_port, listing.profiler_dump_files(port_dir)))


def worker_artifacts_dir(conf):
    """``worker-artifacts-root``: ``storm.workers.artifacts.dir`` (absolute, or under
    ``storm.log.dir``; ``workers-artifacts`` by default)."""
    name = conf.get("storm.workers.artifacts.dir") or "workers-artifacts"
    return name if os.path.isabs(name) else os.path.join(storm_log_dir(conf), name)
