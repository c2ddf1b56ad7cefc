"""mcpsync.schema: the envelope schema is the truth; the fast path must agree with it exactly."""

import json

import pytest
from hypothesis import given, settings, strategies as st

from mcpsync import InvalidMessage
from mcpsync._core import envelope as schema
from mcpsync._core.jsonrpc import Kind, classify


def full_validator():
    from jsonschema import Draft202012Validator

    return Draft202012Validator(schema.envelope_schema())


def test_schema_document_is_a_valid_draft_2020_12_schema():
    from jsonschema import Draft202012Validator

    document = schema.envelope_schema()
    Draft202012Validator.check_schema(document)
    assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema"


# Values chosen to hit every boundary of the rules: ints vs integral floats vs
# bools, strings that look like versions, null, arrays and objects.
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**64), max_value=2**64),
    st.sampled_from([1.0, -3.0, 1.5, 0.0, float("inf")]),
    st.sampled_from(["2.0", "1.0", "", "x", "tools/list", "2.0 "]),
    st.text(max_size=5),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["code", "message", "data", "a"]), inner, max_size=4),
    ),
    max_leaves=6,
)
error_objects = st.fixed_dictionaries(
    {},
    optional={
        "code": st.one_of(st.integers(-40000, 40000), st.sampled_from([1.0, 2.5, "1", True])),
        "message": st.one_of(st.text(max_size=3), st.integers(), st.none()),
        "data": values,
    },
)
envelopes = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.one_of(st.just("2.0"), scalars),
        "id": st.one_of(scalars, st.just(None)),
        "method": st.one_of(st.sampled_from(["ping", "tools/call"]), scalars),
        "params": st.one_of(st.dictionaries(st.text(max_size=3), values, max_size=2), values),
        "result": st.one_of(st.dictionaries(st.text(max_size=3), values, max_size=2), values),
        "error": st.one_of(error_objects, values),
        "extra": values,
    },
)


# Messages that are valid, or one step from it, so both verdicts get tested often.
good_ids = st.one_of(st.integers(-(2**63), 2**63), st.text(max_size=4))
any_ids = st.one_of(good_ids, good_ids, st.sampled_from([1.0, 1.5, True, None, [1], {}]))
versions = st.sampled_from(["2.0", "2.0", "2.0", "2.0", "1.0", 2.0, None])
objects = st.dictionaries(st.text(max_size=3), values, max_size=2)
maybe_objects = st.one_of(objects, objects, objects, values)
good_errors = st.fixed_dictionaries(
    {"code": st.integers(-40000, 40000), "message": st.text(max_size=3)}, optional={"data": values}
)
maybe_errors = st.one_of(good_errors, good_errors, error_objects, values)
methods = st.one_of(st.just("ping"), st.just("ping"), scalars)
near_valid = st.one_of(
    st.fixed_dictionaries(
        {"jsonrpc": versions, "id": any_ids, "method": methods},
        optional={"params": maybe_objects, "result": maybe_objects, "extra": values},
    ),
    st.fixed_dictionaries(
        {"jsonrpc": versions, "method": methods},
        optional={"params": maybe_objects, "error": maybe_errors},
    ),
    st.fixed_dictionaries(
        {"jsonrpc": versions, "id": any_ids, "result": maybe_objects},
        optional={"error": maybe_errors, "method": scalars},
    ),
    st.fixed_dictionaries(
        {"jsonrpc": versions, "error": maybe_errors}, optional={"id": any_ids, "result": maybe_objects}
    ),
)


@pytest.mark.slow("300 Hypothesis examples, each checked by the full jsonschema validator")
@settings(deadline=None)
@given(st.one_of(envelopes, values, near_valid, near_valid))
def test_fast_path_accepts_exactly_what_the_schema_accepts(message):
    """The property the speed-up rests on: same verdict, same kind, for any message (as many examples as
    the Hypothesis profile of tests/conftest.py gives: 300, or 4000 in the thorough and long runs)."""
    fast = schema._fast_kind(message)
    assert (fast is not None) == full_validator_cached.is_valid(message), message
    if fast is not None:
        assert fast is classify(message)


full_validator_cached = full_validator()


@pytest.mark.parametrize(
    "message, kind",
    [
        ({"jsonrpc": "2.0", "id": "a", "method": "x", "params": {}}, Kind.REQUEST),
        ({"jsonrpc": "2.0", "id": 1.0, "method": "x"}, Kind.REQUEST),
        ({"jsonrpc": "2.0", "method": "x", "extra": 1}, Kind.NOTIFICATION),
        ({"jsonrpc": "2.0", "id": 3, "result": {"a": 1}}, Kind.SUCCESS),
        ({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "m"}}, Kind.ERROR),
        ({"jsonrpc": "2.0", "error": {"code": -1, "message": "m", "data": [1]}}, Kind.ERROR),
    ],
)
def test_valid_messages(message, kind):
    assert schema.validate(message) is kind


@pytest.mark.parametrize(
    "message, words",
    [
        ([1, 2], "expected a JSON object, got list"),
        ({"jsonrpc": "2.0", "id": 1}, "none of 'method', 'result', 'error'"),
        ({"jsonrpc": "1.0", "method": "x"}, "notification: '2.0' was expected (at $.jsonrpc)"),
        ({"jsonrpc": "2.0", "id": True, "result": {}}, "success response: True is not of type"),
        (
            {"jsonrpc": "2.0", "id": 1, "method": "x", "params": [1]},
            "request: [1] is not of type 'object' (at $.params)",
        ),
        (
            {"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": "m"}},
            "error response must not also have 'result'",
        ),
        ({"jsonrpc": "2.0", "id": 1, "method": "m", "result": {}}, "request must not also have 'result'"),
        ({"jsonrpc": "2.0", "id": 1, "error": {"code": "x", "message": "m"}}, "(at $.error.code)"),
        (
            {"jsonrpc": "2.0", "id": 1, "result": "text"},
            "success response: 'text' is not of type 'object' (at $.result)",
        ),
    ],
)
def test_invalid_messages_say_what_is_wrong_and_where(message, words):
    with pytest.raises(InvalidMessage) as info:
        schema.validate(message)
    assert words in str(info.value)
    assert json.dumps(message)[:20] in info.value.raw  # the offending text is quoted
