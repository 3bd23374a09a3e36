"""What a Python worker does when its supervisor passes on a worker-profiler request.

Storm's supervisor runs ``worker.profiler.command`` (1.2.4 ``bin/flight.bash``: ``jstack``,
``jmap``, Java Flight Recorder) against the worker's pid, and writes the dumps into the
worker's artifacts directory, where the logviewer lists them (``/dumps``).  Those tools read a
JVM; a Python process can only be read from inside.  So pynimbus's supervisor writes one
request file per action into ``<worker root>/profiler-requests`` and sends the worker
``SIGUSR1`` (:mod:`pynimbus.common.profiler_requests`), and the worker writes, into the
same artifacts directory, under the names ``flight.bash`` gives:

- ``jstack``: ``jstack-<pid>-<yyyyMMdd-HHmmss>.txt``, every thread's Python stack, taken in
  the signal handler itself, so that a worker whose reactor is stuck still answers;
- ``jmap``: ``jmap-<pid>-<time>.txt``, a histogram of the objects the garbage collector
  tracks, by type (as ``jmap -histo``): a JVM heap dump has no Python counterpart;
- ``start`` / ``dump`` / ``stop``: ``cProfile`` on the reactor thread, where the executors
  run, in place of a flight recording; ``dump`` and ``stop`` write
  ``recording-<pid>-<time>.txt`` (``pstats``, by internal time); ``stop`` ends it.

The restart action needs no worker: the supervisor shuts the worker down and starts it again.
"""

import cProfile
import gc
import io
import logging
import os
import pstats
import signal
import sys
import threading
import time
import traceback

from pynimbus.common.profiler_requests import (
    JMAP, JSTACK, PROFILER_SIGNAL, request_action, requests_dir)
from pynimbus.worker.metrics import rss_bytes

log = logging.getLogger(__name__)

# the lines of a profile or histogram written (the rest summed up in one line)
HISTOGRAM_TYPES = 200
PROFILE_FUNCTIONS = 200


def dump_file_name(kind, pid, now_secs):
    """flight.bash's names: ``<kind>-<pid>-<yyyyMMdd-HHmmss>.txt`` (local time)."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now_secs))
    return "%s-%d-%s.txt" % (kind, pid, stamp)


def thread_dump_text(frames, threads, now_secs, pid):
    """Every thread's stack, innermost call last, threads by name (as ``jstack`` lists
    them).

    :param frames: ``{thread ident: its current frame}`` (``sys._current_frames()``).
    :param threads: the live ``threading.Thread`` objects (for names and daemon flags).
    """
    names = {t.ident: t for t in threads}
    out = ["Python thread dump of worker pid %d at %s" % (
        pid, time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(now_secs))), ""]
    for ident, frame in sorted(frames.items(), key=lambda item: _thread_order(names, item[0])):
        thread = names.get(ident)
        name = thread.name if thread is not None else "<unknown thread>"
        daemon = " daemon" if thread is not None and thread.daemon else ""
        out.append('"%s"%s ident=%d' % (name, daemon, ident))
        out.extend(line.rstrip("\n") for line in traceback.format_stack(frame))
        out.append("")
    return "\n".join(out)


def _thread_order(names, ident):
    thread = names.get(ident)
    is_main = thread is threading.main_thread()
    return (not is_main, thread.name if thread is not None else "", ident)


def heap_histogram_text(objects, pid, rss_kib=None, limit=HISTOGRAM_TYPES):
    """A histogram of ``objects`` by type, the largest total shallow size first: rank, count,
    bytes and the qualified type name, as ``jmap -histo`` prints classes."""
    by_type = {}
    for obj in objects:
        kind = type(obj)
        count, size = by_type.get(kind, (0, 0))
        by_type[kind] = (count + 1, size + sys.getsizeof(obj, 0))
    ranked = sorted(by_type.items(), key=lambda item: (-item[1][1], -item[1][0],
                                                       _type_name(item[0])))
    out = ["Python heap histogram of worker pid %d: the objects the garbage collector "
           "tracks (containers; not ints, floats or strings), shallow sizes" % pid]
    if rss_kib is not None:
        out.append("resident set size: %d KiB" % rss_kib)
    out += ["", "%5s %12s %14s  %s" % ("num", "#instances", "#bytes", "type"),
            "-" * 60]
    for rank, (kind, (count, size)) in enumerate(ranked[:limit], 1):
        out.append("%4d: %12d %14d  %s" % (rank, count, size, _type_name(kind)))
    rest = ranked[limit:]
    if rest:
        out.append("%4s  %12d %14d  (%d more types)" % (
            "", sum(c for _, (c, _s) in rest), sum(s for _, (_c, s) in rest), len(rest)))
    out.append("Total %12d %14d" % (sum(c for c, _ in by_type.values()),
                                    sum(s for _, s in by_type.values())))
    return "\n".join(out) + "\n"


def _type_name(kind):
    module = getattr(kind, "__module__", None)
    name = getattr(kind, "__qualname__", kind.__name__)
    return name if module in (None, "builtins") else "%s.%s" % (module, name)


def profile_text(profile, pid, started_secs, now_secs, limit=PROFILE_FUNCTIONS):
    """A ``pstats`` report of ``profile`` so far, functions by internal time."""
    stream = io.StringIO()
    stream.write("Python profile (cProfile, the reactor thread) of worker pid %d, "
                 "%.1f s from %s\n" % (pid, now_secs - started_secs, time.strftime(
                     "%Y-%m-%d %H:%M:%S", time.localtime(started_secs))))
    stats = pstats.Stats(profile, stream=stream)
    stats.sort_stats("tottime", "cumulative").print_stats(limit)
    return stream.getvalue()


class WorkerProfiler:
    """A worker's side of the profiler requests (see the module docstring).

    :param reactor: runs the actions other than ``jstack`` on the reactor thread
        (``callFromThread``, which a signal handler may call).
    :param worker_root: the worker's directory under the supervisor's ``workers``.
    :param artifacts_dir: where the dumps go (beside ``worker.log``).
    :param clock: seconds since the epoch.
    """

    def __init__(self, reactor, worker_root, artifacts_dir, clock=time.time,
                 pid=os.getpid):
        self.reactor = reactor
        self.requests_dir = requests_dir(worker_root)
        self.artifacts_dir = artifacts_dir
        self.clock = clock
        self.pid = pid
        self.profile = None          # the cProfile.Profile recording, if one is
        self.profile_started = None  # when it started (seconds)
        self._previous_handler = None

    def install(self):
        """Handle ``SIGUSR1`` (before the worker's first heartbeat, so that the supervisor
        never signals a worker that would die of it)."""
        os.makedirs(self.requests_dir, exist_ok=True)
        self._previous_handler = signal.signal(PROFILER_SIGNAL, self._signalled)

    def uninstall(self):
        if self._previous_handler is not None:
            signal.signal(PROFILER_SIGNAL, self._previous_handler)
            self._previous_handler = None

    def _signalled(self, _signum, frame):
        """In the signal handler: take the requests; a ``jstack`` is written now (no locks
        are taken, so an interrupted thread holding one cannot block it), the others on the
        reactor thread."""
        actions = self.take_requests()
        later = []
        for action in actions:
            if action == JSTACK:
                self._write_safely(JSTACK, self.thread_dump(frame))
            else:
                later.append(action)
        if later:
            self.reactor.callFromThread(self.run_actions, later)

    def take_requests(self):
        """The actions requested, in the order written; their files (and files that name
        no action) removed."""
        try:
            names = sorted(os.listdir(self.requests_dir))
        except OSError:
            return []
        actions = []
        for name in names:
            if name.startswith("."):
                continue  # still being written
            action = request_action(name)
            try:
                os.remove(os.path.join(self.requests_dir, name))
            except OSError:
                continue  # taken already
            if action is not None:
                actions.append(action)
        return actions

    def run_actions(self, actions):
        """Run ``jmap``, ``start``, ``dump`` and ``stop`` requests (on the reactor thread)."""
        for action in actions:
            try:
                getattr(self, "_" + action)()
            except Exception:
                log.exception("profiler action %s failed", action)

    def thread_dump(self, main_frame=None):
        """The text of a ``jstack``; ``main_frame`` (the frame a signal interrupted) stands
        for the main thread's, which would show this handler."""
        frames = sys._current_frames()
        if main_frame is not None:
            frames[threading.main_thread().ident] = main_frame
        return thread_dump_text(frames, threading.enumerate(), self.clock(), self.pid())

    def _jmap(self):
        # the objects the worker froze at start (settle_garbage_collector) are invisible to
        # gc.get_objects until unfrozen; they are frozen again after
        frozen = gc.get_freeze_count()
        if frozen:
            gc.unfreeze()
        try:
            text = heap_histogram_text(gc.get_objects(), self.pid(), rss_bytes() // 1024)
        finally:
            if frozen:
                gc.freeze()
        path = self._write(JMAP, text)
        log.info("heap histogram written to %s", path)

    def _start(self):
        if self.profile is not None:
            log.info("profiling already under way since %s", time.ctime(self.profile_started))
            return
        self.profile = cProfile.Profile()
        self.profile_started = self.clock()
        self.profile.enable()
        log.info("profiling started (cProfile on the reactor thread)")

    def _dump(self):
        if self.profile is None:
            log.info("profile dump requested, but no profiling is under way")
            return
        self.profile.disable()
        try:
            path = self._write("recording", profile_text(
                self.profile, self.pid(), self.profile_started, self.clock()))
        finally:
            self.profile.enable()
        log.info("profile so far written to %s", path)

    def _stop(self):
        if self.profile is None:
            log.info("profile stop requested, but no profiling is under way")
            return
        self.profile.disable()
        profile, self.profile = self.profile, None
        path = self._write("recording", profile_text(profile, self.pid(),
                                                     self.profile_started, self.clock()))
        log.info("profiling stopped; written to %s", path)

    def _write(self, kind, text):
        os.makedirs(self.artifacts_dir, exist_ok=True)
        path = os.path.join(self.artifacts_dir, dump_file_name(kind, self.pid(), self.clock()))
        if os.path.exists(path):  # two in one second: keep both
            root, ext = os.path.splitext(path)
            path = "%s-%d%s" % (root, time.monotonic_ns(), ext)
        with open(path, "w") as f:
            f.write(text)
        return path

    def _write_safely(self, kind, text):
        try:
            self._write(kind, text)
        except OSError as e:  # in a signal handler: nothing must escape
            sys.stderr.write("profiler: %s dump not written: %s\n" % (kind, e))
