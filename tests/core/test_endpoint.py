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


# -- exact values the tests above leave loose (found by mutation testing) ---------------------------------


def test_every_counter_counts_each_event_and_as_dict_gives_them_all():
    """Two of each thing the endpoint counts: each counter says 2, not 1 (``client.stats`` is how a user
    sees what a connection went through), and ``as_dict`` gives every counter by its name."""
    endpoint = Endpoint("srv", max_message_size=100)
    for _ in range(2):
        endpoint.receive(b"junk")
        endpoint.receive(wire({"jsonrpc": "2.0", "id": 999, "result": {}}))
        endpoint.receive(wire({"jsonrpc": "2.0", "id": "x", "result": [1]}))
        abandoned, _ = endpoint.request("tools/call")
        endpoint.abandon(abandoned, "timed out")
        endpoint.receive(wire({"jsonrpc": "2.0", "id": abandoned.request_id, "result": {}}))
        _, data = endpoint.request("tools/list")
        endpoint.receive(data)
        endpoint.oversized(b'{"jsonrpc":"2.0","method":"m","params":{"x":"')
    assert endpoint.stats.as_dict() == {
        "sent": 0,
        "received": 8,
        "malformed": 2,
        "invalid": 2,
        "unmatched_responses": 2,
        "late_responses": 2,
        "cancelled": 0,
        "oversized": 2,
        "dropped": 0,
        "echoed": 2,
    }


def test_each_problem_says_which_counter_it_is_in_and_carries_its_error():
    """``Problem.kind`` names the ``stats`` counter the transport's warning points to; ``error`` is what
    was wrong, with the offending text."""
    endpoint = Endpoint("srv", max_message_size=100)
    (junk,) = endpoint.receive(b"hello")
    assert junk.kind == "malformed" and junk.error.raw == "'hello'"
    future, _ = endpoint.request("ping")
    salvaged = endpoint.receive(b'oops{"jsonrpc":"2.0","id":%d,"result":{}}' % future.request_id)
    assert [(p.kind, p.error.reason, p.error.raw) for p in salvaged] == [
        ("malformed", "not JSON (junk before a response, which was read)", "'oops'")
    ]
    (invalid,) = endpoint.receive(wire({"jsonrpc": "2.0", "id": 12345, "result": [1]}))
    assert invalid.kind == "invalid" and isinstance(invalid.error, InvalidMessage) and invalid.request_id is None
    waiting, _ = endpoint.request("tools/list")
    (failed,) = endpoint.receive(wire({"jsonrpc": "2.0", "id": waiting.request_id, "result": [1]}))
    assert (failed.kind, failed.request_id) == ("invalid", waiting.request_id)
    assert failed.error is waiting.exception(0)
    (unmatched,) = endpoint.receive(wire({"jsonrpc": "2.0", "id": 999, "result": {}}))
    assert unmatched.kind == "unmatched_responses"
    assert unmatched.error.raw == shown({"jsonrpc": "2.0", "id": 999, "result": {}})
    (oversized,) = endpoint.oversized(b'{"jsonrpc":"2.0","method":"m"', tail=b"}", size=500, complete=True)
    assert oversized.kind == "oversized" and (oversized.error.size, oversized.error.limit) == (500, 100)


def shown(message: dict) -> str:
    """How a problem quotes a short message: its compact JSON, without the line end, quoted."""
    return repr(json.dumps(message, separators=(",", ":")))


def test_an_error_response_without_an_id_is_said_so():
    """An error response whose ``id`` is null answers nothing: a problem saying so (not "a wrong id");
    one with an id we do not know is a wrong id, quoted."""
    endpoint = Endpoint("srv")
    (problem,) = endpoint.receive(wire({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "x"}}))
    assert problem.error.reason == "error response without id" and problem.kind == "unmatched_responses"
    unknown = {"jsonrpc": "2.0", "id": 5, "error": {"code": -1, "message": "x"}}
    (problem,) = endpoint.receive(wire(unknown))
    assert problem.error.reason == "response to no request we sent or still wait for (a wrong or repeated id)"
    assert problem.error.raw == shown(unknown)


def test_an_echo_fails_the_request_it_repeats_with_the_echo_error():
    """The problem reported for an echo carries the error the request failed with, and its id."""
    endpoint = Endpoint("srv")
    future, data = endpoint.request("tools/list")
    (problem,) = endpoint.receive(data)
    assert problem.request_id == future.request_id and problem.error is future.exception(0)
    assert "the server echoed our messages back (tools/list came back)" in str(problem.error)


@pytest.mark.parametrize("request_id", [True, 1.5, None, [1]])
def test_an_invalid_request_with_an_id_that_is_no_id_gets_no_reply(request_id):
    """JSON-RPC's -32600 goes only to a request whose id is a string or an integer (not a boolean, a
    float, null or a list): there is nothing else to address it to."""
    endpoint = Endpoint("srv")
    events = endpoint.receive(wire({"jsonrpc": "2.0", "id": request_id, "method": "x", "params": [1]}))
    assert [type(e) for e in events] == [Problem]


def test_the_32600_reply_says_what_was_invalid():
    """The reply to an invalid request: ``Invalid Request: <reason>``, the request's id, JSON-RPC 2.0."""
    endpoint = Endpoint("srv")
    reply, problem = endpoint.receive(wire({"jsonrpc": "2.0", "id": "r1", "method": "x", "params": [1]}))
    assert json.loads(reply.data) == {
        "jsonrpc": "2.0",
        "id": "r1",
        "error": {"code": -32600, "message": f"Invalid Request: {problem.error.reason}"},
    }


def test_an_invalid_request_of_the_peer_never_fails_our_request_of_the_same_id():
    """The peer's invalid request carries an id of its own numbering, even when it equals one of ours:
    ours keeps waiting. A batch item that is not an object is an invalid message, not a crash."""
    endpoint = Endpoint("srv")
    future, _ = endpoint.request("tools/list")
    endpoint.receive(wire({"jsonrpc": "2.0", "id": future.request_id, "method": "x", "params": [1]}))
    assert not future.settled
    (problem,) = endpoint.receive(b"[1]")
    assert problem.kind == "invalid" and problem.request_id is None and not future.settled


def test_a_response_after_one_junk_byte_or_after_a_broken_response_is_still_read():
    """One stray byte before a response; a response cut off mid-way and followed by a whole one on the
    same line: the whole one answers its request."""
    endpoint = Endpoint("srv")
    first, _ = endpoint.request("a")
    endpoint.receive(b'x{"jsonrpc":"2.0","id":%d,"result":{"n":1}}' % first.request_id)
    assert first.result(0) == {"n": 1}
    second, _ = endpoint.request("b")
    line = b'junk {"jsonrpc":"2.0","id":%d,"res{"jsonrpc":"2.0","id":%d,"result":{"n":2}}'
    endpoint.receive(line % (second.request_id, second.request_id))
    assert second.result(0) == {"n": 2}


def test_salvage_tries_three_places_after_the_start_of_the_line():
    """Up to three places where a message may start, after the line's first character, are tried: a
    response at the third is read; at the fourth, the line is junk."""
    endpoint = Endpoint("srv")
    future, _ = endpoint.request("a")
    good = b'{"jsonrpc":"2.0","id":%d,"result":{}}' % future.request_id
    assert [p.kind for p in endpoint.receive(b'{"id": {"id": {"id": ' + good)] == ["malformed"]
    assert future.settled
    other, _ = endpoint.request("b")
    good = b'{"jsonrpc":"2.0","id":%d,"result":{}}' % other.request_id
    (problem,) = endpoint.receive(b'{"id": {"id": {"id": {"id": ' + good)
    assert problem.error.reason.startswith("not JSON (Expecting") and not other.settled


def test_a_request_after_junk_is_not_salvaged():
    """Only a response is taken out of junk: a request or a notification there is not acted on."""
    endpoint = Endpoint("srv")
    for message in (b'{"jsonrpc":"2.0","id":1,"method":"roots/list"}', b'{"jsonrpc":"2.0","method":"x"}'):
        (problem,) = endpoint.receive(b"junk" + message)
        assert isinstance(problem, Problem) and problem.kind == "malformed"


def test_the_bytes_of_a_notification_a_response_and_an_error_response():
    """What the client sends for its notifications and its answers to the server's requests: exact."""
    assert json.loads(Endpoint.notification("notifications/x", {"a": 1})) == {
        "jsonrpc": "2.0",
        "method": "notifications/x",
        "params": {"a": 1},
    }
    assert json.loads(Endpoint.notification("notifications/y")) == {"jsonrpc": "2.0", "method": "notifications/y"}
    assert json.loads(Endpoint.response(4)) == {"jsonrpc": "2.0", "id": 4, "result": {}}
    assert json.loads(Endpoint.response("r", {"roots": []})) == {"jsonrpc": "2.0", "id": "r", "result": {"roots": []}}
    error = ServerError(-32601, "no such method", {"method": "x"})
    assert json.loads(Endpoint.error_response(4, error)) == {
        "jsonrpc": "2.0",
        "id": 4,
        "error": {"code": -32601, "message": "no such method", "data": {"method": "x"}},
    }
    assert json.loads(Endpoint.error_response(5, {"code": -1, "message": "m"})) == {
        "jsonrpc": "2.0",
        "id": 5,
        "error": {"code": -1, "message": "m"},
    }


def test_fail_fails_one_waiting_request_with_the_error_given():
    """``fail``: that request fails with that error (``True``); a request no longer waiting: ``False``."""
    endpoint = Endpoint("srv")
    future, _ = endpoint.request("x")
    other, _ = endpoint.request("y")
    error = TransportClosed("srv: could not send")
    assert endpoint.fail(future, error) is True
    assert future.exception(0) is error and not other.settled
    assert endpoint.fail(future, error) is False


def test_params_that_are_not_a_dict_are_named_by_their_type():
    """The ``TypeError`` says which type was given."""
    with pytest.raises(TypeError, match="params must be a dict or None, not list"):
        Endpoint("srv").request("x", [1])  # type: ignore[arg-type]


def test_an_oversized_http_body_fails_the_one_request_it_answers_whatever_it_shows():
    """``answer_to``: an HTTP JSON body can only be its request's answer: that request fails, even when
    the first bytes show no id; the error names the request and the limit."""
    endpoint = Endpoint("srv", max_message_size=100)
    future, _ = endpoint.request("tools/call")
    (problem,) = endpoint.oversized(b"[", answer_to=future)
    assert problem.request_id == future.request_id and future.exception(0) is problem.error
    assert (problem.error.size, problem.error.limit) == (None, 100)
    assert f"srv: the answer to request {future.request_id}" in str(problem.error)


def test_the_tail_is_read_only_at_the_messages_end():
    """While a message is still coming (``complete=False``), bytes given as ``tail`` are not its end:
    an id there fails nothing yet."""
    endpoint = Endpoint("srv", max_message_size=100)
    future, _ = endpoint.request("tools/call")
    tail = b'"jsonrpc":"2.0","id":%d}' % future.request_id
    assert endpoint.oversized(b'{"result":{"x":"', tail=tail) == []
    assert not future.settled


def test_a_long_line_that_is_not_json_says_its_size_in_the_unit_it_is_known_in():
    """A long line handed over as text says its size in bytes when it is ASCII (as many bytes as
    characters), in characters when it is not (its bytes are not known any more)."""
    endpoint = Endpoint("srv")
    (ascii_line,) = endpoint.receive("x" * 3000)
    (other,) = endpoint.receive("é" * 3000)
    assert ascii_line.error.raw.endswith("... (3000 bytes in all)")
    assert other.error.raw.endswith("... (3000 characters in all)")


def test_an_invalid_message_in_a_batch_leaves_the_rest_of_the_batch_read():
    """A batch whose first element is invalid: the next one still answers its request."""
    endpoint = Endpoint("srv")
    future, _ = endpoint.request("a")
    batch = [{"jsonrpc": "2.0", "id": 999, "result": [1]}, {"jsonrpc": "2.0", "id": future.request_id, "result": {}}]
    (problem,) = endpoint.receive(json.dumps(batch).encode())
    assert problem.kind == "invalid" and future.result(0) == {}
