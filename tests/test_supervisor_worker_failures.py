"""What a supervisor says of a worker that exited by itself, and the back-off of its restarts
(pure: pynimbus.supervisor.worker_failures)."""

import pytest

from pynimbus.supervisor.worker_failures import (
    RestartBackoff, failure_reason, reported_components, worker_exit_message)

START_FAILURE_LOG = """\
2026-12-04 16:09:38,601 INFO pynimbus.worker: worker c72 of wc-1-1 on port 6700; its hot modules: none
2026-12-04 16:09:38,960 ERROR pynimbus.worker.daemon: worker failed to start: Traceback (most recent call last):
  File "/venv/lib/python3.11/site-packages/pynimbus/worker/daemon.py", line 78, in read_supervisor_storm_conf
    with open(supervisor_stormconf_path(stormroot), "rb") as f:
builtins.FileNotFoundError: [Errno 2] No such file or directory: '/x/stormconf.ser'

2026-12-04 16:09:38,990 INFO twisted: Main loop terminated.
"""


def test_the_reason_is_the_last_exception_line_of_the_log():
    assert failure_reason(START_FAILURE_LOG) == (
        "builtins.FileNotFoundError: [Errno 2] No such file or directory: '/x/stormconf.ser'")
    assert failure_reason("boom\nValueError\nthe end\n") == "ValueError"
    assert failure_reason("twisted.internet.error.CannotListenError: Couldn't listen on "
                          "127.0.0.1:6700: [Errno 98] Address already in use.\n").startswith(
        "twisted.internet.error.CannotListenError: ")


def test_without_an_exception_line_the_reason_is_the_last_error_record_or_line():
    log = ("2026-12-04 16:09:38,601 ERROR pynimbus.worker: component x: it broke\n"
           "2026-12-04 16:09:39,601 INFO twisted: Main loop terminated.\n")
    assert failure_reason(log) == "2026-12-04 16:09:38,601 ERROR pynimbus.worker: component x: " \
                                  "it broke"
    assert failure_reason("just a line\n\n") == "just a line"
    assert failure_reason("") == ""


def test_the_message_names_where_how_how_long_why_and_the_log():
    assert worker_exit_message("localhost", 6700, 1, 0.4, "ValueError: x", "/l/worker.log") == (
        "Worker on localhost:6700 exited with code 1 after 0 s: ValueError: x "
        "(worker log: /l/worker.log)")
    assert worker_exit_message("h", 6701, -9, 75.9, "", "/l/w.log") == (
        "Worker on h:6701 was killed by signal 9 after 75 s (worker log: /l/w.log)")


def test_failures_go_to_the_workers_user_components_else_its_system_ones():
    task_to_component = {1: "__acker", 2: "count", 3: "count", 4: "split", 5: "words",
                         6: "__system"}
    assert reported_components(task_to_component, [(2, 2), (4, 4), (1, 1)]) == [
        "count", "split"]
    assert reported_components(task_to_component, [(1, 1)]) == ["__acker"]
    assert reported_components(task_to_component, [(2, 3)]) == ["count"]
    assert reported_components(task_to_component, [(40, 41)]) == []


def test_a_first_death_is_restarted_at_once_and_deaths_in_a_row_wait_twice_as_long():
    backoff = RestartBackoff(first_delay_secs=2, max_delay_secs=20)
    delays = [backoff.died(6700, now=100.0 + i, uptime_secs=1) for i in range(7)]
    assert delays == [0, 2, 4, 8, 16, 20, 20]
    assert backoff.deaths(6700) == 7
    assert backoff.wait_secs(6700, now=106.0) == 20
    assert backoff.wait_secs(6700, now=130.0) == 0
    assert backoff.wait_secs(6701, now=106.0) == 0  # other ports are not held back


def test_a_worker_that_ran_long_enough_starts_the_count_again():
    backoff = RestartBackoff(first_delay_secs=2, max_delay_secs=20)
    assert [backoff.died(6700, 0, 1), backoff.died(6700, 5, 1)] == [0, 2]
    assert backoff.died(6700, now=50, uptime_secs=20) == 0
    assert backoff.deaths(6700) == 1
    assert backoff.died(6700, now=51, uptime_secs=1) == 2


def test_a_forgotten_port_starts_afresh():
    backoff = RestartBackoff()
    backoff.died(6700, 0, 1)
    backoff.died(6700, 1, 1)
    assert backoff.ports() == {6700}
    backoff.forget(6700)
    assert backoff.ports() == set() and backoff.wait_secs(6700, 1) == 0
    assert backoff.died(6700, 2, 1) == 0


@pytest.mark.parametrize("first, cap", [(0.5, 4), (3, 3)])
def test_the_delay_never_passes_the_cap(first, cap):
    backoff = RestartBackoff(first, cap)
    assert max(backoff.died(1, i, 0) for i in range(20)) == cap
