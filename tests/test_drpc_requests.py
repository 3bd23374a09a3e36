"""The DRPC server's requests (:mod:`pynimbus.drpc.requests`, pure): Storm 2.8.8 ``DRPC``'s
queues, answers, timeouts and authorization, with 1.2.4's messages by default."""

import pytest

from pynimbus.drpc.requests import DRPCRequests
from pynimbus.generated.storm.ttypes import (
    AuthorizationException, DRPCExceptionType, DRPCExecutionException)


def table(**kwargs):
    requests = DRPCRequests(timeout_ms=1000, **kwargs)
    answers = {}

    def execute(function, args, now_ms=0):
        request = requests.execute(function, args, now_ms,
                                   lambda value: answers.setdefault(request.id, value))
        return request.id
    return requests, answers, execute


def test_requests_are_fetched_in_order_per_function_and_answered_by_id():
    requests, answers, execute = table()
    assert [execute("words", "a"), execute("reach", "b"), execute("words", "c")] == \
        ["1", "2", "3"]
    assert requests.fetch_request("words") == ("a", "1")
    assert requests.fetch_request("words") == ("c", "3")
    assert requests.fetch_request("words") == ("", "")  # Storm's empty request
    requests.result("3", "three")
    assert answers == {"3": "three"}
    requests.result("3", "again")  # answered already: ignored
    requests.result("99", "never made")
    assert answers == {"3": "three"} and requests.waiting() == 2


def test_a_request_answered_before_it_was_fetched_leaves_its_queue():
    requests, answers, execute = table()
    execute("words", "a")
    requests.result("1", "early")
    assert requests.fetch_request("words") == ("", "") and answers == {"1": "early"}


def test_failures_carry_storms_message_or_the_topologys_own():
    requests, answers, execute = table()
    execute("words", "a")
    execute("words", "b")
    requests.fail_request("1")
    requests.fail_request("2", DRPCExecutionException(msg="bad input", type=None))
    assert answers["1"] == DRPCExecutionException(
        msg="Request failed", type=DRPCExceptionType.FAILED_REQUEST)
    assert answers["2"].msg == "bad input"
    assert requests.waiting() == 0


@pytest.mark.parametrize("compat, message", [("1.x", "Request timed out"),
                                             ("2.x", "Timed Out")])
def test_requests_older_than_the_timeout_time_out_and_leave_their_queue(compat, message):
    requests, answers, execute = table(compat=compat)
    execute("words", "old", now_ms=0)
    execute("words", "new", now_ms=600)
    assert requests.expire(1000) == []  # not older than the timeout yet
    assert requests.expire(1001) == ["1"]
    assert answers == {"1": DRPCExecutionException(
        msg=message, type=DRPCExceptionType.SERVER_TIMEOUT)}
    assert requests.fetch_request("words") == ("new", "2")


def test_closing_answers_every_waiting_request():
    requests, answers, execute = table()
    execute("words", "a")
    execute("reach", "b")
    requests.fetch_request("reach")
    requests.close()
    assert {a.type for a in answers.values()} == {DRPCExceptionType.SERVER_SHUTDOWN}
    assert len(answers) == 2 and requests.waiting() == 0


def test_the_authorizer_is_asked_per_operation_and_a_refusal_changes_nothing():
    asked = []

    def permit(operation, function):
        asked.append((operation, function))
        return function != "secret" and operation != "failRequest"
    requests, answers, execute = table(permit=permit)
    with pytest.raises(AuthorizationException) as refused:
        execute("secret", "x")
    assert "DRPC request 'execute' for 'unknown' user is not authorized" in refused.value.msg
    assert requests.waiting() == 0 and requests.counter == 0
    execute("words", "a")
    with pytest.raises(AuthorizationException):
        requests.fetch_request("secret")
    with pytest.raises(AuthorizationException):
        requests.fail_request("1")
    assert requests.waiting() == 1 and answers == {}
    requests.fail_request("7")  # an unknown id is ignored before any check
    assert asked == [("execute", "secret"), ("execute", "words"), ("fetchRequest", "secret"),
                     ("failRequest", "words")]


def test_a_request_nobody_fetches_times_out_and_leaves_no_queue_behind():
    """1.2.4 drpc_test.clj's test-dequeue-req-after-timeout: no topology serves the function;
    its caller gets the timeout and the function's queue is empty (here: gone)."""
    requests, answers, execute = table()
    execute("ArbitraryDRPCFunctionName", "")
    assert {f: len(q) for f, q in requests.queues.items()} == {"ArbitraryDRPCFunctionName": 1}
    assert requests.expire(1001) == ["1"]
    assert isinstance(answers["1"], DRPCExecutionException)
    assert dict(requests.queues) == {} and requests.waiting() == 0
