"""Searching log files: port of 1.2.4 logviewer.clj ``substring-search`` (with
``buffer-substring-search!``, ``mk-match-data``, ``rotate-grep-buffer!`` and
``try-read-ahead!``) and ``find-n-matches``.

Storm reads a file through a 2048-byte buffer, half of it (1024 bytes) new at each turn, and
looks for the search bytes in the whole buffer; each match carries up to 128 bytes of context
either side, taken from the buffer, from the bytes kept of the previous buffer, or read ahead.
The answers (offsets, context strings, ``nextByteOffset``) follow that buffer exactly, its
quirks included, so that they equal Storm's answers.  Blocking: call from a thread.
"""

import os

from pynimbus.logviewer import files

GREP_MAX_SEARCH_SIZE = 1024
GREP_BUF_SIZE = 2048
GREP_CONTEXT_SIZE = 128
DEFAULT_BYTES_PER_PAGE = 51200


class InvalidRequest(ValueError):
    """Storm's ``InvalidRequestException``: a request the user can correct (400 where the
    route catches it)."""


def java_url_encode(text):
    """``java.net.URLEncoder.encode(text, "UTF-8")``, which hiccup's ``url`` uses: letters,
    digits and ``.-*_`` kept, space as ``+``, every other byte as ``%XX``."""
    out = []
    for byte in str(text).encode("utf-8"):
        char = chr(byte)
        if char.isascii() and (char.isalnum() or char in ".-*_"):
            out.append(char)
        elif char == " ":
            out.append("+")
        else:
            out.append("%%%02X" % byte)
    return "".join(out)


def hiccup_url(base, params):
    """hiccup's ``(url base {k v ...})``: the parameters in the given order."""
    return base + "?" + "&".join(
        "%s=%s" % (java_url_encode(k), java_url_encode(v)) for k, v in params)


class LinkMaker(object):
    """The logviewer's own address, for the ``logviewerURL`` of matches (Storm's
    ``hostname`` and ``logviewer.port``)."""

    def __init__(self, host, port):
        self.host = host
        self.port = port

    def centered(self, needle, fname, offset, is_daemon=False):
        """Port of ``url-to-match-centered-in-log-page`` (``-daemon-file``): the page of the
        file with the match in its middle."""
        parts = fname.split(os.sep)
        name = "/".join(parts[-1:] if is_daemon else parts[-3:])
        # Clojure's (int (/ n -2)) truncates toward zero
        start = max(0, offset - DEFAULT_BYTES_PER_PAGE // 2 + len(needle) // 2)
        page = "daemonlog" if is_daemon else "log"
        return hiccup_url("http://%s:%s/%s" % (self.host, self.port, page),
                          [("file", name), ("start", start),
                           ("length", DEFAULT_BYTES_PER_PAGE)])


def java_string(data):
    """``new String(bytes, "UTF-8")``."""
    return bytes(data).decode("utf-8", "replace")


class ReadAheadStream(object):
    """A stream whose next bytes can be read ahead and read again (``BufferedInputStream``'s
    ``mark`` and ``reset`` as ``try-read-ahead!`` uses them)."""

    def __init__(self, raw):
        self.raw = raw
        self.pending = b""

    def read(self, size):
        """``BufferedInputStream.read(b, off, size)``: the bytes, or None at the end (-1)."""
        if size <= 0:
            return b""
        data = self.pending[:size]
        self.pending = self.pending[size:]
        if len(data) < size:
            data += files.read_fully(self.raw, size - len(data))
        return data or None

    def peek(self, size):
        data = self.read(size) or b""
        self.pending = data + self.pending
        return data

    def skip(self, size):
        """``skip-bytes``: skip exactly ``size`` bytes (fewer at the end)."""
        left = size
        while left > 0:
            data = self.read(min(left, 1 << 20))
            if not data:
                return
            left -= len(data)


def mk_match_data(needle, buf, limit, buf_offset, file_offset, path, links, is_daemon,
                  before_bytes=None, after_bytes=None):
    """Port of ``mk-match-data``: one match with its context either side."""
    if buf_offset >= GREP_CONTEXT_SIZE:
        before = java_string(buf[buf_offset - GREP_CONTEXT_SIZE:buf_offset])
    else:
        num_desired = max(0, GREP_CONTEXT_SIZE - buf_offset)
        before_size = len(before_bytes) if before_bytes else 0
        num_expected = min(before_size, num_desired)
        before = java_string(buf[0:buf_offset])
        if num_expected > 0:
            before = java_string(before_bytes[before_size - num_expected:]) + before
    after_offset = buf_offset + len(needle)
    if after_offset + GREP_CONTEXT_SIZE < limit:
        after = java_string(buf[after_offset:after_offset + GREP_CONTEXT_SIZE])
    else:
        num_desired = GREP_CONTEXT_SIZE - (limit - after_offset)
        after_size = len(after_bytes) if after_bytes else 0
        num_expected = min(after_size, num_desired)
        after = java_string(buf[after_offset:limit])
        if num_expected > 0:
            after += java_string(after_bytes[0:num_expected])
    return {"byteOffset": file_offset,
            "beforeString": before,
            "afterString": after,
            "matchString": java_string(needle),
            "logviewerURL": links.centered(needle, path, file_offset, is_daemon)}


class Haystack(object):
    """The 2048-byte search buffer, its limit and the bytes read into it so far."""

    def __init__(self, stream, file_len):
        self.stream = stream
        self.file_len = file_len
        self.buf = bytearray(GREP_BUF_SIZE)
        self.limit = 0
        self.total_read = 0

    def fill(self):
        """The first read: up to a whole buffer."""
        data = self.stream.read(min(self.file_len, GREP_BUF_SIZE))
        count = -1 if data is None else len(data)
        if count < 0:  # Storm's ByteBuffer.limit(-1) fails the request
            raise ValueError("newLimit > capacity: (-1 > %d)" % GREP_BUF_SIZE)
        self.buf[0:count] = data
        self.limit = count
        self.total_read += count

    def rotate(self):
        """Port of ``rotate-grep-buffer!``: the second half becomes the first, the second is
        zeroed and filled with the next bytes."""
        half = GREP_MAX_SEARCH_SIZE
        self.buf[0:half] = self.buf[half:]
        self.buf[half:] = bytes(len(self.buf) - half)
        data = self.stream.read(min(self.file_len, half))
        count = -1 if data is None else len(data)
        if count > 0:
            self.buf[half:half + count] = data
        self.limit = half + count
        self.total_read += count

    def read_ahead(self):
        """Port of ``try-read-ahead!``: the context after a match near the buffer's end, read
        once and given back to the stream (zeros where the read fell short, as Storm's
        array has them)."""
        num_expected = max(0, min(self.file_len - self.total_read, GREP_CONTEXT_SIZE))
        data = self.stream.peek(num_expected)
        return data + bytes(num_expected - len(data))


def buffer_substring_search(haystack, needle, path, links, is_daemon, offset_to_buf,
                            buf_offset, bytes_skipped, matches, num_matches, before_bytes):
    """Port of ``buffer-substring-search!``: the matches in the buffer from ``buf_offset``,
    the file offset the buffer's next turn starts at, and the bytes kept for the next
    buffer's first matches' context."""
    buf = haystack.buf
    bytes_read = haystack.total_read
    while len(matches) < num_matches:
        offset = buf.find(needle, buf_offset)
        if offset < 0:
            break
        needed_after = haystack.limit - GREP_CONTEXT_SIZE - len(needle)
        before_arg = before_bytes if offset < GREP_CONTEXT_SIZE else None
        after_arg = haystack.read_ahead() if offset > needed_after else None
        matches.append(mk_match_data(needle, buf, haystack.limit, offset,
                                     offset_to_buf + offset, path, links, is_daemon,
                                     before_arg, after_arg))
        buf_offset = offset + len(needle)
    to_offset = min(haystack.limit, GREP_MAX_SEARCH_SIZE)
    new_before = bytes(buf[max(0, to_offset - GREP_CONTEXT_SIZE):to_offset])
    if len(matches) >= num_matches:
        next_offset = matches[-1]["byteOffset"] + len(needle)
    else:  # negative for a small file: that is normal
        next_offset = bytes_skipped + bytes_read - GREP_MAX_SEARCH_SIZE
    return next_offset, new_before


def substring_search(path, search_string, links, is_daemon=False, num_matches=None,
                     start_byte_offset=None):
    """Port of ``substring-search``: up to ``num_matches`` (10) matches of ``search_string``
    in the file at ``path`` from ``start_byte_offset`` (0), as Storm's JSON answer.

    :raises InvalidRequest: the offset is past the end of the file.
    :raises ValueError: what Storm fails with a server error (a search string that is
        empty or longer than 1024 UTF-8 bytes is refused before, by the route).
    """
    needle = search_string.encode("utf-8")
    if not needle or len(needle) > GREP_MAX_SEARCH_SIZE:
        raise ValueError("the search string must be 1 to 1024 UTF-8 bytes")
    num_matches = 10 if num_matches is None else num_matches
    start = 0 if start_byte_offset is None else start_byte_offset
    file_len = files.file_length(path)
    if start > file_len:
        raise InvalidRequest("Cannot search past the end of the file")
    canonical = os.path.realpath(path)
    with files.open_log(path) as raw:
        stream = ReadAheadStream(raw)
        if start > 0:
            stream.skip(start)
        haystack = Haystack(stream, file_len)
        haystack.fill()
        matches, buf_offset, byte_offset, before_bytes = [], 0, start, None
        while True:
            byte_offset_next, before_bytes = buffer_substring_search(
                haystack, needle, canonical, links, is_daemon, byte_offset, buf_offset, start,
                matches, num_matches, before_bytes)
            if len(matches) < num_matches and haystack.total_read + start < file_len:
                buf_offset = min(haystack.limit, GREP_MAX_SEARCH_SIZE) - len(needle)
                haystack.rotate()
                if haystack.total_read < 0:
                    raise InvalidRequest("Cannot search past the end of the file")
                byte_offset = byte_offset_next
                continue
            break
    answer = {"isDaemon": "yes" if is_daemon else "no", "searchString": search_string,
              "startByteOffset": start, "matches": matches}
    if not (len(matches) < num_matches and haystack.total_read >= file_len):
        if not matches:  # Storm's (get (last matches) ...) is nil here: a server error
            raise ValueError("no match to continue the search after")
        next_byte_offset = matches[-1]["byteOffset"] + len(needle)
        if file_len > next_byte_offset:
            answer["nextByteOffset"] = next_byte_offset
    return answer


def topo_port_workerlog(path):
    """Port of ``get-topo-port-workerlog``: ``<topology id>/<port>/<file>`` of a worker's
    log file, from its canonical path."""
    return "/".join(os.path.realpath(path).split(os.sep)[-3:])


def find_n_matches(logs, n, file_offset, offset, search, links):
    """Port of ``find-n-matches``: up to ``n`` matches through the files ``logs`` (newest
    first), from the ``file_offset``-th file at byte ``offset``, one answer per file that
    had something to say (a file too short for the offset is skipped)."""
    found, count, first = [], 0, True
    for path in logs[file_offset:]:
        try:
            these = substring_search(path, search, links, num_matches=n - count,
                                     start_byte_offset=offset if first else 0)
        except InvalidRequest:
            these = None
        first = False
        if these is None:
            continue
        these["fileName"] = topo_port_workerlog(path)
        these["port"] = os.path.realpath(path).split(os.sep)[-2]
        found.append(these)
        count += len(these["matches"])
        if count >= n:
            break
    return {"fileOffset": file_offset, "searchString": search, "matches": found}
