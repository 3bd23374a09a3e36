"""A worker's log levels from Nimbus's LogConfig (pynimbus.worker.log_levels, the ports of
worker.clj process-log-config-change and reset-log-levels); then on ``pynimbus dev``,
``setLogConfig`` turning a running worker's root logger to DEBUG, and its reset timer turning it
back to INFO."""
# test-case-name: tests.test_worker_log_levels

import logging
import re
import uuid

from pynimbus.generated.storm.ttypes import LogConfig, LogLevel, LogLevelAction
from pynimbus.worker.log_levels import (
    TRACE, LoggerSetting, WorkerLogLevels, apply_levels, original_levels,
    process_log_config_change, python_level, reset_log_levels)

UPDATE, REMOVE = LogLevelAction.UPDATE, LogLevelAction.REMOVE


def config(**loggers):
    return LogConfig(named_logger_level={
        name.replace("_", "."): LogLevel(action=action, target_log_level=level,
                                         reset_log_level_timeout_epoch=epoch)
        for name, (action, level, epoch) in loggers.items()})


def test_log4j_level_names_as_level_to_level_reads_them():
    assert [python_level(n) for n in ("DEBUG", "info", " Warn ", "ERROR", "FATAL")] == [
        logging.DEBUG, logging.INFO, logging.WARNING, logging.ERROR, logging.CRITICAL]
    assert python_level("TRACE") == TRACE < logging.DEBUG
    assert python_level("OFF") > logging.CRITICAL and python_level("ALL") < TRACE
    assert python_level("VERBOSE") == logging.DEBUG and python_level(None) == logging.DEBUG


def test_an_update_with_a_reset_time_is_set_and_remembered_with_the_level_to_go_back_to():
    """ROOT is the root logger; the level to go back to is the one the logger started with,
    else INFO; an update without a reset time is set but not remembered."""
    latest, changes = process_log_config_change(
        {}, {"": logging.WARNING, "app": logging.ERROR},
        config(ROOT=(UPDATE, "DEBUG", 5000), app=(UPDATE, "TRACE", 6000),
               app_db=(UPDATE, "DEBUG", 7000), other=(UPDATE, "ERROR", None)))
    assert latest == {"": LoggerSetting(UPDATE, logging.DEBUG, logging.WARNING, 5000),
                      "app": LoggerSetting(UPDATE, TRACE, logging.ERROR, 6000),
                      "app.db": LoggerSetting(UPDATE, logging.DEBUG, logging.INFO, 7000)}
    assert changes == [("", logging.DEBUG), ("app", TRACE), ("app.db", logging.DEBUG),
                       ("other", logging.ERROR)]


def test_a_logger_gone_from_the_config_goes_back_at_once():
    remembered = {"app": LoggerSetting(UPDATE, logging.DEBUG, logging.INFO, 9000)}
    latest, changes = process_log_config_change(
        remembered, {}, config(other=(UPDATE, "WARN", 9000)))
    assert changes == [("app", logging.INFO), ("other", logging.WARNING)]
    assert set(latest) == {"other"}


def test_a_removal_is_not_applied_and_no_config_changes_nothing():
    latest, changes = process_log_config_change({}, {}, config(app=(REMOVE, "DEBUG", 9000)))
    assert changes == [] and set(latest) == {"app"}
    assert process_log_config_change({"x": 1}, {}, None) == ({"x": 1}, [])


def test_the_reset_timer_sets_back_what_has_expired():
    latest = {"a": LoggerSetting(UPDATE, logging.DEBUG, logging.INFO, 1000),
              "b": LoggerSetting(UPDATE, logging.DEBUG, logging.WARNING, 2000)}
    assert reset_log_levels(latest, 1000) == (latest, [])  # not before the time has passed
    assert reset_log_levels(latest, 1001) == ({"b": latest["b"]}, [("a", logging.INFO)])
    assert reset_log_levels(latest, 5000) == ({}, [("a", logging.INFO),
                                                   ("b", logging.WARNING)])


def test_original_levels_are_the_root_and_the_loggers_with_a_level_of_their_own():
    name = "test-log-levels-%s" % uuid.uuid4().hex
    logging.getLogger(name).setLevel(logging.ERROR)
    logging.getLogger(name + ".child")  # no level of its own
    levels = original_levels()
    assert levels[""] == logging.getLogger().level
    assert levels[name] == logging.ERROR and name + ".child" not in levels


def test_a_config_is_processed_once_and_the_levels_are_really_set():
    name = "test-log-levels-%s" % uuid.uuid4().hex
    now = [1000]
    applied = []

    def apply(changes):
        applied.append(changes)
        apply_levels(changes)
    levels = WorkerLogLevels(lambda: now[0], {}, apply)
    wanted = config(**{name: (UPDATE, "DEBUG", 3000)})
    levels.config_read(wanted)
    assert logging.getLogger(name).level == logging.DEBUG
    levels.config_read(config(**{name: (UPDATE, "DEBUG", 3000)}))  # read again, unchanged
    levels.reset()
    assert applied == [[(name, logging.DEBUG)], []]
    now[0] = 3001
    levels.reset()
    assert logging.getLogger(name).level == logging.INFO and levels.latest == {}


def test_set_log_config_turns_a_running_workers_root_logger_to_debug_and_back(
        tmp_path, monkeypatch, wait_until):
    """On dev, ``setLogConfig`` (what ``storm set_log_level -l ROOT=DEBUG:4`` sends) reaches
    the worker at its next refresh: DEBUG lines appear in its log; once the 4 s have passed,
    its reset timer sets the root logger back to INFO."""
    from dev_word_count import word_count_on_dev

    with word_count_on_dev(tmp_path, monkeypatch, wait_until, "log-levels", {
            "worker.log.level.reset.poll.secs": 1}) as running:
        with running.client() as client:
            client.setLogConfig(running.storm_id, LogConfig(named_logger_level={
                "ROOT": LogLevel(action=UPDATE, target_log_level="DEBUG",
                                 reset_log_level_timeout_secs=4)}))
        wait_until(lambda: "ROOT: setting log level to INFO" in running.worker_log(),
                   timeout=60, interval=0.5, what="the root logger set back to INFO")
        log = running.worker_log()
        set_at = log.index("ROOT: setting log level to DEBUG")
        reset_at = log.index("ROOT: setting log level to INFO")
        assert set_at < reset_at
        assert re.search(r"^\S+ \S+ DEBUG ", log[set_at:reset_at], re.M)  # while at DEBUG
        assert not re.search(r"^\S+ \S+ DEBUG ", log[:set_at], re.M)  # none before
