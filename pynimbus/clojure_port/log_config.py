# -*- test-case-name: tests.test_port_log_config -*-
"""``setLogConfig``'s merge of named loggers (pure).

Port of the body of nimbus.clj ``setLogConfig`` and ``set-logger-timeouts`` (1.2.4) and of
``Nimbus.setLogConfig`` / ``setLoggerTimeouts`` (2.8.8).  Every logger already stored becomes
UNCHANGED; each requested logger with action UPDATE is stored as sent, with
``reset_log_level_timeout_epoch`` = now + ``reset_log_level_timeout_secs`` (ms) when the
timeout is positive and unset otherwise; REMOVE drops the stored logger.  The target level is
stored as sent, even "" or unset: workers interpret it, nimbus does not.

Failures, before anything is written, as Storm's RuntimeExceptions:

* a blank logger name (1.2.4: empty or whitespace; 2.8.8: empty);
* an action other than UPDATE or REMOVE in 1.2.4 (``condp`` has no clause for UNCHANGED), and
  no action at all in either generation (2.8.8 switches on null).
"""

from pynimbus.generated.storm.ttypes import LogConfig, LogLevel, LogLevelAction


# log4j2's standard levels, the most severe first
LOG4J_LEVELS = ("OFF", "FATAL", "ERROR", "WARN", "INFO", "DEBUG", "TRACE", "ALL")


def to_log4j_level(name):
    """log4j2's ``Level.toLevel(name).toString()``: the level's name (any case, spaces
    around it ignored), DEBUG for an unknown one or none."""
    upper = (name or "").strip().upper()
    return upper if upper in LOG4J_LEVELS else "DEBUG"


class InvalidLogConfig(ValueError):
    """A requested LogConfig Storm refuses (its message says which logger and why)."""


def _copy_level(level):
    copy = LogLevel()
    copy.__dict__.update(level.__dict__)
    return copy


def set_logger_timeouts(level, now_ms):
    """Port of ``set-logger-timeouts`` / ``setLoggerTimeouts``: a copy of ``level`` whose
    expiry epoch (ms) is ``now_ms`` plus the timeout, or unset for a timeout <= 0."""
    level = _copy_level(level)
    timeout_secs = level.reset_log_level_timeout_secs or 0
    if timeout_secs > 0:
        level.reset_log_level_timeout_epoch = int(now_ms) + timeout_secs * 1000
    else:
        level.reset_log_level_timeout_epoch = None
    return level


def _blank(name, compat):
    return name is None or (not name.strip() if compat == "1.x" else not name)


def merge_log_config(stored, requested, now_ms, compat="1.x"):
    """The LogConfig ``setLogConfig`` writes: ``stored`` (or a new one) with ``requested``'s
    named loggers applied.  Neither argument is changed.

    :raises InvalidLogConfig: see the module docstring.
    """
    named = None
    if stored is not None and stored.named_logger_level is not None:
        named = {}
        for name, level in stored.named_logger_level.items():
            level = _copy_level(level)
            level.action = LogLevelAction.UNCHANGED
            named[name] = level
    requested_levels = requested.named_logger_level if requested is not None else None
    for name, level in (requested_levels or {}).items():
        if _blank(name, compat):
            raise InvalidLogConfig("Named loggers need a valid name. Use ROOT for the root logger")
        action = level.action if level is not None else None
        if action == LogLevelAction.UPDATE:
            if named is None:
                named = {}
            named[name] = set_logger_timeouts(level, now_ms)
        elif action == LogLevelAction.REMOVE:
            if named is not None:
                named.pop(name, None)
        elif action is None or compat == "1.x":
            raise InvalidLogConfig(
                "logger %r: action must be UPDATE or REMOVE, not %s"
                % (name, LogLevelAction._VALUES_TO_NAMES.get(action, action)))
    return LogConfig(named_logger_level=named)
