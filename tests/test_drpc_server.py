"""``pynimbus drpc`` over the wire, as a process: callers on ``drpc.port`` get what the
topologies' side (``drpc.invocations.port``) answers, fails, or lets time out; bad frames and
unknown ids harm nobody; a stopping server answers its waiting callers, a crashed one's callers
get an error, and a topology's spout fetches from the server restarted in its place."""

import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

import pytest
from thrift.transport.TTransport import TTransportException

from drpc_process import LOOPBACK, DRPCPorts, DRPCProcess, fetch, serving
from nimbus_process import free_port
from pynimbus.common.drpc_invocations import RequestFetcher, ResultReturner
from pynimbus.generated.storm.ttypes import DRPCExceptionType, DRPCExecutionException
from pynimbus_path import child_env


@pytest.fixture
def drpc(tmp_path):
    with serving(tmp_path, "drpc.request.timeout.secs=2") as server:
        yield server


def call_in_thread(server, function, args):
    """``execute`` in a thread; returns (thread, outcome dict with "result" or "error")."""
    outcome = {}

    def call():
        try:
            with server.client() as client:
                outcome["result"] = client.execute(function, args)
        except Exception as e:
            outcome["error"] = e
    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    return thread, outcome


def test_a_caller_gets_the_result_a_topology_returns(drpc):
    thread, outcome = call_in_thread(drpc, "words", "the cat")
    request = fetch(drpc, "words")
    assert request.func_args == "the cat"
    with drpc.invocations() as invocations:
        invocations.result("no-such-id", "ignored")  # a reply for nobody harms nobody
        invocations.result(request.request_id, "2")
    thread.join(10)
    assert outcome == {"result": "2"}


def test_a_failed_request_fails_its_caller_with_the_reason(drpc):
    first, first_outcome = call_in_thread(drpc, "words", "a")
    second, second_outcome = call_in_thread(drpc, "words", "b")
    requests = {r.func_args: r.request_id for r in (fetch(drpc, "words"), fetch(drpc, "words"))}
    with drpc.invocations() as invocations:
        invocations.failRequest(requests["a"])
        invocations.failRequestV2(requests["b"], DRPCExecutionException(msg="no such user"))
    first.join(10)
    second.join(10)
    assert first_outcome["error"] == DRPCExecutionException(
        msg="Request failed", type=DRPCExceptionType.FAILED_REQUEST)
    assert second_outcome["error"].msg == "no such user"


def test_an_unanswered_request_times_out(drpc):
    started = time.monotonic()
    with drpc.client() as client:
        with pytest.raises(DRPCExecutionException) as timed_out:
            client.execute("nobody-serves-this", "x")
    assert timed_out.value.msg == "Request timed out"
    assert timed_out.value.type == DRPCExceptionType.SERVER_TIMEOUT
    assert time.monotonic() - started < 10  # 2 s, checked each second
    assert "Timeout DRPC request id: 1" in drpc.log_text()


def test_garbage_frames_and_huge_arguments_harm_no_one_else(drpc):
    with socket.create_connection((LOOPBACK, drpc.port), timeout=10) as garbage:
        garbage.sendall(struct.pack("!I", 12) + b"not thrift!!")
        try:
            assert garbage.recv(100) == b""  # closed, as libthrift does
        except ConnectionResetError:
            pass  # closed with the frame unread
    with drpc.client() as client:
        with pytest.raises(TTransportException):  # over drpc.max_buffer_size: refused
            client.execute("words", "x" * (2 * 1024 * 1024))
    thread, outcome = call_in_thread(drpc, "words", "y" * 100000)
    request = fetch(drpc, "words")
    assert len(request.func_args) == 100000
    with drpc.invocations() as invocations:
        invocations.result(request.request_id, "ok")
    thread.join(10)
    assert outcome == {"result": "ok"}


def test_a_stopping_server_answers_its_waiting_callers(drpc):
    thread, outcome = call_in_thread(drpc, "words", "a")
    fetch(drpc, "words")
    os.kill(drpc.process.pid, signal.SIGTERM)
    thread.join(10)
    assert not thread.is_alive()
    error = outcome["error"]
    assert (isinstance(error, DRPCExecutionException) and error.msg == "Server Shutting Down"
            or isinstance(error, TTransportException)), error
    assert drpc.process.wait(15) == 0


def test_callers_past_the_threads_and_queue_storm_holds_are_told_the_server_is_busy(tmp_path):
    with serving(tmp_path, "drpc.worker.threads=1", "drpc.queue.size=1") as server:
        waiting = [call_in_thread(server, "words", str(n)) for n in range(2)]
        requests = [fetch(server, "words"), fetch(server, "words")]
        with server.client() as client:
            with pytest.raises(DRPCExecutionException) as busy:
                client.execute("words", "third")
        assert busy.value.msg.startswith("DRPC server busy: 2 requests are waiting")
        status, body = http(server, "GET", "/drpc/words/fourth")
        assert status == 500 and "DRPC server busy" in body
        with server.invocations() as invocations:
            invocations.result(requests[0].request_id, "one")
        waiting[int(requests[0].func_args)][0].join(10)  # its caller is answered: room
        thread, outcome = call_in_thread(server, "words", "later")
        later = fetch(server, "words")
        with server.invocations() as invocations:
            invocations.result(later.request_id, "answered")
            invocations.result(requests[1].request_id, "two")
        thread.join(10)
        assert outcome == {"result": "answered"}
        for t, _ in waiting:
            t.join(10)
        assert sorted(o["result"] for _, o in waiting) == ["one", "two"]


def test_a_crashed_servers_callers_get_an_error_and_its_restart_serves_the_topology_again(
        tmp_path, wait_until):
    first = DRPCProcess(tmp_path, "drpc.request.timeout.secs=30")
    second = None
    first.wait_serving()
    spout = RequestFetcher("words", [LOOPBACK], first.invocations_port)  # a DRPC spout's
    returner = ResultReturner()
    try:
        thread, outcome = call_in_thread(first, "words", "before")
        fetched = []
        wait_until(lambda: fetched.append(spout.fetch()) or fetched[-1] is not None,
                   what="the spout to fetch the request")
        assert fetched[-1][0] == "before"
        first.process.kill()  # kill -9: no answer to anyone
        first.process.wait(10)
        thread.join(10)
        assert not thread.is_alive() and isinstance(outcome["error"], TTransportException)
        second = DRPCProcess(tmp_path, "drpc.request.timeout.secs=30",
                             ports=(first.port, first.invocations_port, first.http_port))
        second.wait_serving()
        thread, outcome = call_in_thread(second, "words", "after")
        wait_until(lambda: fetched.append(spout.fetch()) or fetched[-1] is not None,
                   timeout=30, what="the spout to fetch from the restarted server")
        args, _info, (request_id, _server) = fetched[-1]
        assert args == "after"
        returner.send(LOOPBACK, first.invocations_port, request_id, "answered")
        thread.join(10)
        assert outcome == {"result": "answered"}
    finally:
        spout.close()
        returner.close()
        first.stop()
        if second is not None:
            second.stop()


def test_pynimbus_dev_runs_a_drpc_server_on_loopback(tmp_path):
    from nimbus_process import NimbusProcess
    dev = NimbusProcess(tmp_path, drpc=True)
    dev.start(timeout=60)
    try:
        server = DRPCPorts(dev.drpc_port, dev.drpc_invocations_port)
        thread, outcome = call_in_thread(server, "words", "the cat")
        request = fetch(server, "words")
        with server.invocations() as invocations:
            invocations.result(request.request_id, "2")
        thread.join(10)
        assert outcome == {"result": "2"}
        assert "DRPC serving on 127.0.0.1" in dev.log_tail(80)
    finally:
        dev.stop()


def drpc_client_command(server, *argv):
    """``pynimbus drpc-client ARGV`` as a process (its stdout and stderr, exit code)."""
    return subprocess.Popen([sys.executable, "-m", "pynimbus.cli", "drpc-client"] + list(argv),
                            env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def answer(server, function, results):
    """Answer the next requests of ``function`` from ``results`` ({argument: result})."""
    for _ in range(len(results)):
        request = fetch(server, function)
        with server.invocations() as invocations:
            invocations.result(request.request_id, results[request.func_args])


def test_the_drpc_client_command_asks_as_storms_does(drpc):
    command = drpc_client_command(drpc, "-f", "words", "the cat", "a",
                                  "--server", "%s:%d" % (LOOPBACK, drpc.port))
    answer(drpc, "words", {"the cat": "2", "a": "1"})
    out, err = command.communicate(timeout=30)
    assert (command.returncode, out) == (0, 'words "the cat" => "2"\nwords "a" => "1"\n'), err
    command = drpc_client_command(drpc, "reach", "http://x", "-c", "drpc.port=%d" % drpc.port,
                                  "-c", 'drpc.servers=["%s"]' % LOOPBACK)
    answer(drpc, "reach", {"http://x": "7"})
    out, err = command.communicate(timeout=30)
    assert (command.returncode, out) == (0, 'reach "http://x" => "7"\n'), err


def test_the_drpc_client_command_says_what_went_wrong(drpc):
    server = ["--server", "%s:%d" % (LOOPBACK, drpc.port)]
    for argv, message in (
            (["words"] + server, "the arguments are pairs FUNCTION ARGUMENT; 1 given"),
            (["-f", "words", "x", "-c", "drpc.port=%d" % free_port()],
             "cannot reach the DRPC server at localhost:"),
            (["-f", "nobody", "x"] + server,
             "DRPCExecutionException: Request timed out")):
        command = drpc_client_command(drpc, *argv)
        out, err = command.communicate(timeout=30)
        assert command.returncode == 1 and out == "" and message in err, (argv, err)


def http(server, method, path, body=None):
    """``(status, body)`` of an HTTP request to the server's ``drpc.http.port``."""
    import http.client
    connection = http.client.HTTPConnection(LOOPBACK, server.http_port, timeout=30)
    try:
        connection.request(method, path, body=body)
        response = connection.getresponse()
        return response.status, response.read().decode("utf-8")
    finally:
        connection.close()


def http_in_thread(server, method, path, body=None):
    outcome = []
    thread = threading.Thread(target=lambda: outcome.append(http(server, method, path, body)),
                              daemon=True)
    thread.start()
    return thread, outcome


def test_the_http_endpoint_asks_as_storms_does(drpc):
    calls = [http_in_thread(drpc, "GET", "/drpc/words/the%20cat"),
             http_in_thread(drpc, "POST", "/drpc/words", body="a dog".encode()),
             http_in_thread(drpc, "GET", "/drpc/words")]
    answer(drpc, "words", {"the cat": "2", "a dog": "2 too", "": "0"})
    for thread, _ in calls:
        thread.join(10)
    assert [outcome[0] for _, outcome in calls] == [(200, "2"), (200, "2 too"), (200, "0")]
    assert http(drpc, "GET", "/drpc/words/a/b")[0] == 404
    assert http(drpc, "GET", "/elsewhere")[0] == 404


def test_the_http_endpoint_maps_failures_to_storms_statuses(drpc):
    import json
    thread, outcome = http_in_thread(drpc, "GET", "/drpc/words/x")
    request = fetch(drpc, "words")
    with drpc.invocations() as invocations:
        invocations.failRequest(request.request_id)
    thread.join(10)
    assert outcome[0][0] == 400
    assert json.loads(outcome[0][1]) == {"error": "FAILED_REQUEST",
                                         "errorMessage": "Request failed"}
    status, body = http(drpc, "GET", "/drpc/nobody/x")  # 2 s: the fixture's timeout
    assert (status, json.loads(body)["error"]) == (504, "SERVER_TIMEOUT")
