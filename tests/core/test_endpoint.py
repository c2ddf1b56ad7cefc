"""mcpsync._core.endpoint with plain function calls: no thread, no socket, no process.

Bytes go in, events and settled futures come out; every rule of the
endpoint (registration before writing, matching answers, the problems it
counts, the answers it owes, oversized messages) is checked here on values.
"""

import json

import pytest

from mcpsync import InvalidMessage, MessageTooLarge, ProtocolError, ServerError, TransportClosed
from mcpsync._core.endpoint import Endpoint, Incoming, Problem, Reply
from mcpsync._core.jsonrpc import Kind


def wire(message: dict) -> bytes:
    return (json.dumps(message) + "\n").encode()


def test_a_request_is_registered_before_its_bytes_exist_and_ids_never_repeat():
    """The answer may come before the caller looks: the future must already be in the table."""
    endpoint = Endpoint("srv")
    first, data = endpoint.request("tools/list", {"cursor": "c"})
    second, _ = endpoint.request("ping")
    assert json.loads(data) == {
        "jsonrpc": "2.0",
        "id": first.request_id,
        "method": "tools/list",
        "params": {"cursor": "c"},
    }
    assert second.request_id == first.request_id + 1
    assert endpoint.in_flight() == [first, second]


def test_params_must_be_a_dict():
    """A list of params is valid JSON-RPC but not MCP: refused before anything is registered."""
    endpoint = Endpoint("srv")
    with pytest.raises(TypeError, match="params must be a dict"):
        endpoint.request("x", [1, 2])  # type: ignore[arg-type]
    assert endpoint.in_flight() == []


def test_a_success_response_resolves_its_future_and_returns_no_event():
    endpoint = Endpoint("srv")
    future, _ = endpoint.request("ping")
    assert endpoint.receive(wire({"jsonrpc": "2.0", "id": future.request_id, "result": {"ok": True}})) == []
    assert future.settled and future.result(0) == {"ok": True}
    assert endpoint.stats.received == 1 and endpoint.in_flight() == []


def test_ids_the_server_echoes_as_strings_or_floats_find_their_request():
    """Some servers echo an integer id as "3" or 3.0: both still match."""
    endpoint = Endpoint("srv")
    one, _ = endpoint.request("a")
    two, _ = endpoint.request("b")
    endpoint.receive(wire({"jsonrpc": "2.0", "id": str(one.request_id), "result": {}}))
    endpoint.receive(wire({"jsonrpc": "2.0", "id": float(two.request_id), "result": {}}))
    assert one.result(0) == {} and two.result(0) == {}


def test_an_error_response_rejects_its_future_with_the_server_error():
    endpoint = Endpoint("srv")
    future, _ = endpoint.request("tools/call")
    endpoint.receive(wire({"jsonrpc": "2.0", "id": future.request_id, "error": {"code": -32602, "message": "bad"}}))
    with pytest.raises(ServerError, match="MCP error -32602: bad") as raised:
        future.result(0)
    assert raised.value.code == -32602


def test_requests_and_notifications_from_the_server_come_out_as_incoming_events():
    endpoint = Endpoint("srv")
    events = endpoint.receive(wire({"jsonrpc": "2.0", "method": "notifications/progress", "params": {}}))
    assert events == [Incoming({"jsonrpc": "2.0", "method": "notifications/progress", "params": {}}, Kind.NOTIFICATION)]
    (event,) = endpoint.receive(wire({"jsonrpc": "2.0", "id": "s1", "method": "roots/list"}))
    assert isinstance(event, Incoming) and event.kind is Kind.REQUEST


def test_our_own_request_coming_back_fails_it_as_an_echo():
    """A "server" that echoes its input (``cat``): our request comes back as a request, same id and
    method. It fails the request (no Incoming: we would answer our own request with an error, and
    the echo of that error would look like the server's answer)."""
    endpoint = Endpoint("srv")
    future, data = endpoint.request("initialize", {"protocolVersion": "2025-11-25"})
    (event,) = endpoint.receive(data)
    assert isinstance(event, Problem) and event.request_id == future.request_id
    with pytest.raises(ProtocolError, match=r"srv: the server echoed our messages back \(initialize came back\)"):
        future.result(timeout=0)
    assert endpoint.stats.echoed == 1 and len(endpoint.pending) == 0


def test_a_server_request_that_shares_an_id_with_ours_is_no_echo():
    """The server's own ids may equal ours: a request of another method, or a ping (both sides send
    those), with the id of one of ours is the server's, and goes to the client."""
    endpoint = Endpoint("srv")
    future, _ = endpoint.request("ping")
    other, _ = endpoint.request("tools/list")
    for message in (
        {"jsonrpc": "2.0", "id": future.request_id, "method": "ping"},
        {"jsonrpc": "2.0", "id": other.request_id, "method": "roots/list"},
    ):
        (event,) = endpoint.receive(wire(message))
        assert isinstance(event, Incoming) and event.kind is Kind.REQUEST
    assert not future.done() and not other.done() and endpoint.stats.echoed == 0


def test_the_first_line_that_is_not_json_is_kept_to_tell_what_the_server_sent():
    endpoint = Endpoint("srv")
    endpoint.receive(b"Server listening on stdio")
    endpoint.receive(b"hello")
    assert endpoint.stats.malformed == 2 and endpoint.first_malformed == "'Server listening on stdio'"


def test_a_response_to_no_request_is_a_counted_problem():
    endpoint = Endpoint("srv")
    (event,) = endpoint.receive(wire({"jsonrpc": "2.0", "id": 99, "result": {}}))
    assert isinstance(event, Problem) and "a wrong or repeated id" in str(event.error)
    assert endpoint.stats.unmatched_responses == 1


def test_a_late_answer_to_a_request_given_up_is_counted_as_late_not_as_a_problem():
    endpoint = Endpoint("srv")
    future, _ = endpoint.request("tools/call")
    waiting, notice = endpoint.abandon(future, "timed out after 1s")
    assert waiting and notice is not None
    assert json.loads(notice) == {
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": future.request_id, "reason": "timed out after 1s"},
    }
    assert endpoint.receive(wire({"jsonrpc": "2.0", "id": future.request_id, "result": {}})) == []
    assert endpoint.stats.late_responses == 1
    assert endpoint.stats.cancelled == 0, "counted by the transport once the notice is out, not here"
    with pytest.raises(TransportClosed, match="abandoned"):
        future.result(0)


def test_initialize_is_never_cancelled_and_a_settled_request_is_not_abandoned_twice():
    endpoint = Endpoint("srv")
    future, _ = endpoint.request("initialize", {})
    assert endpoint.abandon(future, "timed out") == (True, None)
    assert endpoint.abandon(future, "again") == (False, None)


def test_junk_is_a_malformed_problem_and_a_response_after_junk_on_its_line_is_still_read():
    """A server that printed half a line before its answer: the answer's caller must not wait for nothing."""
    endpoint = Endpoint("srv")
    (problem,) = endpoint.receive(b"hello world\n")
    assert isinstance(problem, Problem) and "not JSON" in str(problem.error)
    future, _ = endpoint.request("ping")
    events = endpoint.receive(b'partial output{"jsonrpc":"2.0","id":%d,"result":{"x":1}}\n' % future.request_id)
    assert future.result(0) == {"x": 1}
    assert [type(e) for e in events] == [Problem] and "junk before a response" in str(events[0].error)
    assert endpoint.stats.malformed == 2


def test_an_invalid_answer_fails_its_request_at_once_instead_of_letting_it_time_out():
    endpoint = Endpoint("srv")
    future, _ = endpoint.request("tools/list")
    (event,) = endpoint.receive(wire({"jsonrpc": "2.0", "id": future.request_id, "result": [1, 2]}))
    assert isinstance(event, Problem) and event.request_id == future.request_id
    with pytest.raises(InvalidMessage, match="success response"):
        future.result(0)
    assert endpoint.stats.invalid == 1


def test_an_invalid_request_whose_id_can_be_read_gets_a_32600_reply():
    endpoint = Endpoint("srv")
    events = endpoint.receive(wire({"jsonrpc": "2.0", "id": 7, "method": "x", "params": [1]}))
    replies = [e for e in events if isinstance(e, Reply)]
    assert len(replies) == 1
    answer = json.loads(replies[0].data)
    assert answer["id"] == 7 and answer["error"]["code"] == -32600
    assert any(isinstance(e, Problem) for e in events)


def test_a_batch_is_taken_apart():
    """Batches existed only in 2025-03-26; reading one costs nothing."""
    endpoint = Endpoint("srv")
    one, _ = endpoint.request("a")
    two, _ = endpoint.request("b")
    batch = [
        {"jsonrpc": "2.0", "id": one.request_id, "result": {}},
        {"jsonrpc": "2.0", "id": two.request_id, "result": {}},
    ]
    assert endpoint.receive(json.dumps(batch).encode()) == []
    assert one.settled and two.settled and endpoint.stats.received == 2


def test_fail_all_fails_every_waiting_request_and_refuses_new_ones():
    endpoint = Endpoint("srv")
    futures = [endpoint.request("x")[0] for _ in range(3)]
    assert endpoint.fail_all(lambda: TransportClosed("srv: gone")) == 3
    for future in futures:
        with pytest.raises(TransportClosed, match="gone"):
            future.result(0)
    with pytest.raises(TransportClosed, match="gone"):
        endpoint.request("y")


def test_an_oversized_answer_fails_the_request_its_first_bytes_name():
    endpoint = Endpoint("srv", max_message_size=100)
    future, _ = endpoint.request("tools/call")
    head = b'{"jsonrpc":"2.0","id":%d,"result":{"content":[' % future.request_id
    (event,) = endpoint.oversized(head)
    assert isinstance(event, Problem) and isinstance(event.error, MessageTooLarge)
    assert endpoint.oversized(head, tail=b"]}}", size=5000, complete=True, failed=True) == []
    with pytest.raises(MessageTooLarge, match="max_message_size"):
        future.result(0)
    assert endpoint.stats.oversized == 1


def test_an_oversized_answer_whose_id_comes_last_fails_its_request_at_its_end():
    """TypeScript servers write the id last: only the message's last bytes tell whose answer it was."""
    endpoint = Endpoint("srv", max_message_size=100)
    future, _ = endpoint.request("tools/call")
    head = b'{"result":{"content":[{"type":"text","text":"xxxx'
    assert endpoint.oversized(head) == []
    assert not future.settled
    tail = b'xxxx"}]},"jsonrpc":"2.0","id":%d}' % future.request_id
    (event,) = endpoint.oversized(head, tail=tail, size=10_000, complete=True)
    assert event.request_id == future.request_id and future.settled


def test_an_oversized_message_on_a_request_stream_fails_that_request_and_an_unknown_one_is_a_problem():
    endpoint = Endpoint("srv", max_message_size=100)
    future, _ = endpoint.request("tools/call")
    assert endpoint.oversized(b'{"result":{"big":"', stream_of=future)[0].request_id == future.request_id
    notification = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"'
    assert endpoint.oversized(notification) == []
    (problem,) = endpoint.oversized(notification, tail=b'"}}', size=500, complete=True)
    assert problem.request_id is None and "a message (500 bytes)" in str(problem.error)


def test_nan_and_infinity_are_not_json_and_are_malformed():
    """Python's json module would read them; JSON (and so JSON-RPC) has no such values."""
    endpoint = Endpoint("srv")
    future, _ = endpoint.request("x")
    (event,) = endpoint.receive(b'{"jsonrpc":"2.0","id":%d,"result":{"x":NaN}}' % future.request_id)
    assert isinstance(event, Problem) and "NaN is not JSON" in str(event.error)
    assert endpoint.stats.malformed == 1 and not future.settled
