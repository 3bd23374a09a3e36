"""Tests for pynimbus.clojure_port.log_config: setLogConfig's merge and expiry times."""
# test-case-name: tests.test_port_log_config

import pytest

from pynimbus.clojure_port.log_config import InvalidLogConfig, merge_log_config
from pynimbus.generated.storm.ttypes import LogConfig, LogLevel, LogLevelAction

NOW_MS = 1700000000000
UPDATE, REMOVE, UNCHANGED = LogLevelAction.UPDATE, LogLevelAction.REMOVE, LogLevelAction.UNCHANGED


def level(action, target="DEBUG", timeout=None):
    return LogLevel(action=action, target_log_level=target, reset_log_level_timeout_secs=timeout)


def test_update_stores_the_level_with_an_expiry_from_the_timeout():
    """UPDATE with a 30 s timeout expires at now + 30000 ms; the request is not changed."""
    request = LogConfig(named_logger_level={"ROOT": level(UPDATE, "DEBUG", 30)})
    merged = merge_log_config(None, request, NOW_MS)
    root = merged.named_logger_level["ROOT"]
    assert (root.action, root.target_log_level, root.reset_log_level_timeout_secs,
            root.reset_log_level_timeout_epoch) == (UPDATE, "DEBUG", 30, NOW_MS + 30000)
    assert request.named_logger_level["ROOT"].reset_log_level_timeout_epoch is None


def test_no_or_negative_timeout_leaves_the_expiry_unset():
    """A timeout of 0, negative or unset clears any epoch the client sent."""
    sent = level(UPDATE, "INFO", 0)
    sent.reset_log_level_timeout_epoch = 123
    merged = merge_log_config(None, LogConfig(named_logger_level={
        "a": sent, "b": level(UPDATE, "INFO", -5), "c": level(UPDATE, "INFO")}), NOW_MS)
    assert [merged.named_logger_level[k].reset_log_level_timeout_epoch for k in "abc"] == [
        None, None, None]


def test_stored_loggers_become_unchanged_and_remove_drops_one():
    """Existing loggers are kept as UNCHANGED; REMOVE deletes; a new UPDATE is added."""
    stored = LogConfig(named_logger_level={"a": level(UPDATE, "DEBUG"),
                                           "b": level(UPDATE, "WARN")})
    merged = merge_log_config(stored, LogConfig(named_logger_level={
        "b": level(REMOVE), "c": level(UPDATE, "ERROR", 10)}), NOW_MS)
    assert sorted(merged.named_logger_level) == ["a", "c"]
    assert merged.named_logger_level["a"].action == UNCHANGED
    assert merged.named_logger_level["a"].target_log_level == "DEBUG"
    assert merged.named_logger_level["c"].action == UPDATE
    assert stored.named_logger_level["a"].action == UPDATE  # argument untouched


def test_empty_or_missing_target_level_is_stored_as_sent():
    """Nimbus does not interpret the level: "" and unset are kept for the workers."""
    merged = merge_log_config(None, LogConfig(named_logger_level={
        "x": level(UPDATE, ""), "y": level(UPDATE, None)}), NOW_MS)
    assert merged.named_logger_level["x"].target_log_level == ""
    assert merged.named_logger_level["y"].target_log_level is None


def test_nothing_stored_and_nothing_named_gives_an_empty_config():
    """An empty request over nothing stored writes a LogConfig without loggers."""
    assert merge_log_config(None, LogConfig(), NOW_MS) == LogConfig()
    assert merge_log_config(None, LogConfig(named_logger_level={"z": level(REMOVE)}),
                            NOW_MS) == LogConfig()


@pytest.mark.parametrize("compat,name,refused", [
    ("1.x", "", True), ("1.x", "  ", True), ("2.x", "", True), ("2.x", "  ", False)])
def test_blank_logger_names_are_refused(compat, name, refused):
    """1.2.4 refuses empty and whitespace names (blank?), 2.8.8 only empty ones (isEmpty)."""
    request = LogConfig(named_logger_level={name: level(UPDATE)})
    if refused:
        with pytest.raises(InvalidLogConfig, match="Use ROOT for the root logger"):
            merge_log_config(None, request, NOW_MS, compat)
    else:
        assert name in merge_log_config(None, request, NOW_MS, compat).named_logger_level


def test_unchanged_action_is_an_error_in_1x_and_a_no_op_in_2x():
    """1.2.4's condp has no UNCHANGED clause; 2.8.8's switch ignores it; no action fails both."""
    request = LogConfig(named_logger_level={"a": level(UNCHANGED)})
    with pytest.raises(InvalidLogConfig, match="UPDATE or REMOVE"):
        merge_log_config(None, request, NOW_MS, "1.x")
    assert merge_log_config(None, request, NOW_MS, "2.x") == LogConfig()
    with pytest.raises(InvalidLogConfig):
        merge_log_config(None, LogConfig(named_logger_level={"a": level(None)}), NOW_MS, "2.x")
