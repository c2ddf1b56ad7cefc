"""What a handler of the server's requests returns is checked before it is sent (issue 23, point 9).

Legacy era: the server's request gets -32603 saying what was wrong, and the handler's author a
warning (and a log line) naming the handler. Modern era: the caller's own traceback has a
``HandlerResultError``. The hand-kept definitions agree with the published schemas of both eras.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

import mcpsync
from mcpsync._session.handler_results import RESULT_SCHEMAS, _problem
from mcpsync.testing import server_config
from tests.published_schemas import published

pytestmark = pytest.mark.usefixtures("server_in_thread")

T = 20


def lazy_sampler(params: Any) -> Any:
    return {"text": "hi"}


def test_a_legacy_sampling_answer_the_schema_refuses_is_not_sent_and_everyone_is_told(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The handler returns ``{"text": "hi"}``: the server gets -32603 naming what is missing, the
    author a RuntimeWarning and an error log line naming ``lazy_sampler``."""
    with mcpsync.connect(server_config(), protocol="legacy", sampling=lazy_sampler, timeout=T) as client:
        with pytest.warns(RuntimeWarning, match=r"sampling/createMessage handler lazy_sampler returned") as seen:
            with caplog.at_level(logging.ERROR, logger="mcpsync.client"):
                answer = client.call_tool("ask_client", {"method": "sampling/createMessage"}).structured_content
    error = answer["error"]
    assert error["code"] == -32603
    assert error["message"].startswith("the client's sampling/createMessage handler returned an answer the schema")
    assert "'role' is a required property" in error["message"] and "'model' is a required property" in error["message"]
    assert "result" not in answer
    assert "'content' is a required property" in str(seen[0].message)
    assert any("lazy_sampler" in record.getMessage() for record in caplog.records)


@pytest.mark.parametrize(
    ("options", "method", "wrong"),
    [
        ({"elicitation": lambda params: {"action": "ok"}}, "elicitation/create", "action: 'ok' is not one of"),
        ({"roots": [{"name": "no uri"}]}, "roots/list", "roots.0: 'uri' is a required property"),
        ({"request_handlers": {"x/list": lambda params: [1, 2]}}, "x/list", "it must be a dict"),
    ],
)
def test_each_kind_of_handler_is_checked(options: dict[str, Any], method: str, wrong: str) -> None:
    """Elicitation, roots (the list given as roots=), and any request_handlers entry."""
    with mcpsync.connect(server_config(), protocol="legacy", timeout=T, **options) as client:
        with pytest.warns(RuntimeWarning, match=method):
            answer = client.call_tool("ask_client", {"method": method}).structured_content
    assert answer["error"]["code"] == -32603 and wrong in answer["error"]["message"]


def test_a_modern_input_answer_the_schema_refuses_raises_in_the_callers_traceback() -> None:
    """2026-07-28: the handler answers an ``input_required`` round on the caller's thread: the call
    raises ``HandlerResultError`` (a TypeError) naming the handler and the problem; nothing is sent."""

    def sampler(params: Any) -> Any:
        return {"role": "assistant", "content": {"type": "text", "text": 42}, "model": "m"}

    with mcpsync.connect(server_config(), protocol="modern", sampling=sampler, timeout=T) as client:
        with pytest.raises(mcpsync.HandlerResultError) as info:
            client.call_tool("ask_in_rounds", {"kinds": ["sampling"]})
        assert info.value.method == "sampling/createMessage"
        assert "sampler" in info.value.handler
        assert info.value.problem == "content.text: 42 is not of type 'string'"
        assert isinstance(info.value, TypeError)
        assert client.call_tool("echo", {"text": "still here"}).text == "still here"


# -- the hand-kept definitions against the published ones ---------------------------------------------

TEXT = {"type": "text", "text": "hi"}
#: An answer to a form with ``"type": "number"`` fields (NumberSchema): the published JSON of
#: ElicitResult types a value ``string | integer | boolean``, yet the form's own schema asks for any
#: number, and the conformance suite's elicitation-sep1034 scenario expects 95.5 back. The one place
#: the check is deliberately looser than the published definition: a legal form answer is never refused.
FRACTIONS = {"action": "accept", "content": {"score": 95.5, "ratio": -0.25, "big": 1e300}}
ANSWERS = {
    "sampling/createMessage": [
        {"role": "assistant", "content": TEXT, "model": "m"},
        {"role": "assistant", "content": TEXT, "model": "m", "stopReason": "endTurn", "_meta": {}},
        {"role": "user", "content": [TEXT, {"type": "image", "data": "AA==", "mimeType": "image/png"}], "model": "m"},
        {"role": "assistant", "content": {"type": "tool_use", "id": "1", "name": "f", "input": {}}, "model": "m"},
        {"role": "assistant", "content": {"type": "tool_result", "toolUseId": "1", "content": []}, "model": "m"},
        {"role": "assistant", "content": {"type": "audio", "data": "AA==", "mimeType": "audio/wav"}, "model": "m"},
        {"text": "hi"},
        {"role": "robot", "content": TEXT, "model": "m"},
        {"role": "assistant", "content": {"type": "text"}, "model": "m"},
        {"role": "assistant", "content": {"type": "text", "text": 1}, "model": "m"},
        {"role": "assistant", "content": {"type": "image", "data": "AA=="}, "model": "m"},
        {"role": "assistant", "content": {"type": "tool_use", "id": "1", "name": "f"}, "model": "m"},
        {"role": "assistant", "content": [{"text": "no type"}], "model": "m"},
        {"role": "assistant", "content": TEXT, "model": 3},
        {"role": "assistant", "content": TEXT},
    ],
    "elicitation/create": [
        {"action": "accept", "content": {"name": "Ada", "age": 36, "ok": True, "tags": ["a"]}},
        FRACTIONS,
        {"action": "accept", "content": {"none": None}},
        {"action": "decline"},
        {"action": "cancel"},
        {"action": "ok"},
        {},
        {"action": "accept", "content": {"nested": {"a": 1}}},
        {"action": "accept", "content": {"tags": [1]}},
        {"action": "accept", "content": "Ada"},
    ],
    "roots/list": [
        {"roots": []},
        {"roots": [{"uri": "file:///work", "name": "work"}]},
        {"roots": ["file:///work"]},
        {"roots": [{"name": "no uri"}]},
        {"roots": [{"uri": 3}]},
        {},
    ],
}
#: The published definition of each method's answer.
DEFINITIONS = {
    "sampling/createMessage": "CreateMessageResult",
    "elicitation/create": "ElicitResult",
    "roots/list": "ListRootsResult",
}


@pytest.mark.parametrize("revision", ["2025-11-25", "2026-07-28"])
def test_the_checks_agree_with_the_published_schema(revision: str) -> None:
    """Every sample answer is refused by the hand-kept check exactly when the published definition
    refuses it (jsonschema over the revision's own schema, from the conformance package)."""
    from jsonschema import Draft7Validator, Draft202012Validator

    schema = published()[revision]
    kind = Draft202012Validator if "2020-12" in schema.get("$schema", "2020-12") else Draft7Validator
    assert set(RESULT_SCHEMAS) == set(DEFINITIONS)
    for method, answers in ANSWERS.items():
        definition = {**schema, "$ref": f"#/$defs/{DEFINITIONS[method]}"}
        validator = kind(definition)
        for answer in answers:
            theirs = validator.is_valid(answer)
            ours = _problem(method, answer) is None
            if answer is FRACTIONS:
                assert ours and not theirs, "the published schema now takes any number: drop FRACTIONS' exception"
                continue
            assert ours == theirs, (revision, method, json.dumps(answer))
