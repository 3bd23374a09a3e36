# -*- test-case-name: tests.test_worker_log_levels -*-
"""A worker's log levels as Nimbus's ``LogConfig`` sets them (``storm set_log_level``, the UI's
"Change Log Level"), on Python's ``logging`` (pure, with :func:`apply_levels` the one place
that touches the loggers).

Ports of 1.2.4 worker.clj ``process-log-config-change`` and ``reset-log-levels`` (2.8.8
``LogConfigManager`` the same): every logger of the config that has a reset time is
remembered with the level to go back to (its level when the worker started, else INFO); a
logger remembered before and no longer in the config goes back at once; each ``UPDATE`` is
applied; and every ``worker.log.level.reset.poll.secs`` the loggers whose time has passed go
back.  ``ROOT`` names the root logger; other names are ``logging`` names (a Java name such as
``org.apache.storm`` is a logger here too, which no Python code writes to).  Levels are
Log4j's names, read as ``Level.toLevel`` reads them: any case, DEBUG when unknown.
"""

import collections
import logging

from pynimbus.clojure_port.log_config import to_log4j_level
from pynimbus.generated.storm.ttypes import LogLevelAction

ROOT = "ROOT"
TRACE = 5
OFF = logging.CRITICAL + 10

# log4j2's standard levels as Python's (TRACE below DEBUG, ALL below everything)
PYTHON_LEVELS = {"OFF": OFF, "FATAL": logging.CRITICAL, "ERROR": logging.ERROR,
                 "WARN": logging.WARNING, "INFO": logging.INFO, "DEBUG": logging.DEBUG,
                 "TRACE": TRACE, "ALL": 1}

LoggerSetting = collections.namedtuple("LoggerSetting", "action target_level reset_level timeout")
LoggerSetting.__doc__ = """A logger set with a reset time: the ``LogLevelAction``, the level
set, the level to go back to and when (milliseconds since the epoch)."""


def python_level(log4j_name):
    """``Level.toLevel(name)``: the Python level of a Log4j level name, DEBUG when unknown."""
    return PYTHON_LEVELS[to_log4j_level(None if log4j_name is None else str(log4j_name))]


def logging_name(name):
    """The ``logging`` name of a logger the config names (``ROOT``: the root's, ``""``)."""
    return "" if name == ROOT else name


def original_levels(manager=logging.root.manager, root=logging.root):
    """``get-logger-levels``: ``{logging name: level}`` of the loggers with a level of their
    own when the worker starts (the root's under ``""``)."""
    levels = {"": root.level}
    for name, logger in manager.loggerDict.items():
        if isinstance(logger, logging.Logger) and logger.level != logging.NOTSET:
            levels[name] = logger.level
    return levels


def process_log_config_change(latest, original, log_config):
    """Port of ``process-log-config-change``.

    :param latest: ``{logging name: LoggerSetting}`` remembered so far.
    :param original: :func:`original_levels`.
    :param log_config: the topology's ``LogConfig`` (None: nothing changes).
    :returns: ``(latest, changes)``: what to remember now, and ``[(logging name, level)]``
        to set, in order.
    """
    if log_config is None:
        return latest, []
    loggers = log_config.named_logger_level or {}
    remembered = {}
    for name, level in loggers.items():
        if level.reset_log_level_timeout_epoch is not None:
            name = logging_name(name)
            remembered[name] = LoggerSetting(
                level.action, python_level(level.target_log_level),
                original.get(name, logging.INFO), level.reset_log_level_timeout_epoch)
    changes = [(name, setting.reset_level) for name, setting in sorted(latest.items())
               if name not in remembered]
    changes += [(logging_name(name), python_level(loggers[name].target_log_level))
                for name in sorted(loggers) if loggers[name].action == LogLevelAction.UPDATE]
    return remembered, changes


def reset_log_levels(latest, now_ms):
    """Port of ``reset-log-levels``: ``(latest, changes)`` with the loggers whose reset time
    has passed set back and forgotten."""
    expired = sorted(name for name, setting in latest.items() if now_ms > setting.timeout)
    return ({name: s for name, s in latest.items() if name not in expired},
            [(name, latest[name].reset_level) for name in expired])


def level_name(level):
    """A level as Log4j names it (for the log lines)."""
    for name, value in PYTHON_LEVELS.items():
        if value == level:
            return name
    return logging.getLevelName(level)


def apply_levels(changes, get_logger=logging.getLogger, log=None):
    """Set each ``(logging name, level)`` (``set-logger-level``)."""
    for name, level in changes:
        if log is not None:
            log.info("%s: setting log level to %s", name or ROOT, level_name(level))
        get_logger(name or None).setLevel(level)


class WorkerLogLevels:
    """One worker's log levels: the config last read, what is remembered, and the levels
    set (worker.clj's ``latest-log-config`` and ``original-log-levels`` atoms).

    :param now_ms: the time in milliseconds since the epoch.
    :param original: :func:`original_levels` when the worker started.
    :param apply: sets ``[(logging name, level)]`` (:func:`apply_levels`).
    """

    def __init__(self, now_ms, original, apply=apply_levels):
        self.now_ms = now_ms
        self.original = original
        self.apply = apply
        self.latest = {}
        self.seen = None  # the LogConfig last processed

    def config_read(self, log_config):
        """A ``LogConfig`` read from cluster state: processed when it changed (Storm
        processes it when its watch fires)."""
        if log_config == self.seen:
            return
        self.seen = log_config
        self.latest, changes = process_log_config_change(self.latest, self.original,
                                                         log_config)
        self.apply(changes)

    def reset(self):
        """The ``reset-log-levels-timer``'s call."""
        self.latest, changes = reset_log_levels(self.latest, self.now_ms())
        self.apply(changes)
