"""OpenTelemetry: a client span per request (semantic conventions for MCP 1.41.0), and the caller's
trace context in each request's ``params._meta`` (``traceparent``, ``tracestate``, ``baggage``), in both
eras, against the bundled test server. Spans are recorded with the SDK's in-memory exporter.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry import baggage, context, trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import NonRecordingSpan, SpanContext, SpanKind, StatusCode, TraceFlags

import mcpsync
from mcpsync import RequestTimeout, ServerError
from mcpsync.testing import server_config

pytestmark = pytest.mark.usefixtures("server_in_thread")

T = 20


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    found = InMemorySpanExporter()
    yield found
    found.clear()


@pytest.fixture
def provider(exporter: InMemorySpanExporter) -> Iterator[TracerProvider]:
    made = TracerProvider()
    made.add_span_processor(SimpleSpanProcessor(exporter))
    yield made
    made.shutdown()


@pytest.fixture
def sent(caplog: pytest.LogCaptureFixture) -> Iterator[list[dict[str, Any]]]:
    """The requests mcpsync sends during the test (from its traffic log), as they go."""
    messages: list[dict[str, Any]] = []

    class Sent(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            text = record.getMessage()
            if " --> " in text:
                message = json.loads(text.split(" --> ", 1)[1])
                if "id" in message and "method" in message:
                    messages.append(message)

    handler = Sent(logging.DEBUG)
    traffic = logging.getLogger("mcpsync.traffic")
    traffic.addHandler(handler)
    with caplog.at_level(logging.DEBUG, logger="mcpsync.traffic"):
        yield messages
    traffic.removeHandler(handler)


def meta_of(sent: list[dict[str, Any]], method: str) -> dict[str, Any]:
    """The ``_meta`` of the last ``method`` request sent."""
    message = [m for m in sent if m["method"] == method][-1]
    return dict(message.get("params", {}).get("_meta") or {})


def spans(exporter: InMemorySpanExporter, name: str) -> list[ReadableSpan]:
    return [s for s in exporter.get_finished_spans() if s.name == name]


def traceparent(span: Any) -> str:
    ctx = span.get_span_context() if hasattr(span, "get_span_context") else span.context
    return f"00-{ctx.trace_id:032x}-{ctx.span_id:016x}-{int(ctx.trace_flags):02x}"


@pytest.mark.parametrize("protocol", ["legacy", "modern"])
def test_each_request_has_a_client_span_whose_context_travels_in_meta(
    protocol: str, provider: TracerProvider, exporter: InMemorySpanExporter, sent: list[dict[str, Any]]
) -> None:
    """A tool call inside the caller's span: a CLIENT span named "tools/call echo", child of the
    caller's span, with the conventions' attributes; the request's ``_meta`` carries that span's
    ``traceparent`` beside the caller's own ``_meta`` (and, in the modern era, the revision's keys)."""
    app = provider.get_tracer("app")
    with mcpsync.connect(server_config(timeout=T), protocol=protocol, tracing=provider) as client:
        with app.start_as_current_span("outer") as outer:
            client.call_tool("echo", {"text": "hi"}, meta={"mine": 1})
    (call,) = spans(exporter, "tools/call echo")
    assert call.kind is SpanKind.CLIENT
    assert call.parent is not None and call.parent.span_id == outer.get_span_context().span_id
    assert call.context.trace_id == outer.get_span_context().trace_id
    assert call.status.status_code is StatusCode.UNSET
    attributes = dict(call.attributes or {})
    expected_version = "2026-07-28" if protocol == "modern" else "2025-11-25"
    request = [m for m in sent if m["method"] == "tools/call"][-1]
    assert attributes == {
        "mcp.method.name": "tools/call",
        "gen_ai.tool.name": "echo",
        "gen_ai.operation.name": "execute_tool",
        "mcp.protocol.version": expected_version,
        "network.transport": "pipe",
        "jsonrpc.request.id": str(request["id"]),
    }
    meta = meta_of(sent, "tools/call")
    assert meta["traceparent"] == traceparent(call)
    assert meta["mine"] == 1
    assert ("io.modelcontextprotocol/protocolVersion" in meta) is (protocol == "modern")


def test_a_json_rpc_error_sets_the_span_status_and_error_type(
    provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    """An unknown tool (-32602, which the client raises as an UnknownNameError caused by the server's
    error): the span's status is ERROR with the server's message, ``error.type`` and
    ``rpc.response.status_code`` the code; a tool's own failure (``isError``) is ``tool_error``."""
    with mcpsync.connect(server_config(timeout=T), tracing=provider) as client:
        with pytest.raises(mcpsync.UnknownNameError) as caught:
            client.call_tool("no_such_tool", {})
        assert client.call_tool("fail", {"message": "nope"}).is_error
    server_error = caught.value.__cause__
    assert isinstance(server_error, ServerError)
    (unknown,) = spans(exporter, "tools/call no_such_tool")
    assert unknown.status.status_code is StatusCode.ERROR
    assert unknown.status.description == server_error.message
    assert unknown.attributes is not None
    assert unknown.attributes["error.type"] == unknown.attributes["rpc.response.status_code"] == str(server_error.code)
    (failed,) = spans(exporter, "tools/call fail")
    assert failed.status.status_code is StatusCode.ERROR
    assert failed.attributes is not None and failed.attributes["error.type"] == "tool_error"


def test_a_timed_out_request_ends_its_span_as_a_timeout(
    provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    """A call that times out: its span ends (no span is left open) with ``error.type`` ``timeout``."""
    with mcpsync.connect(server_config(timeout=T), tracing=provider) as client:
        with pytest.raises(RequestTimeout):
            client.call_tool("sleep", {"seconds": 10}, timeout=0.3)
    (slept,) = spans(exporter, "tools/call sleep")
    assert slept.status.status_code is StatusCode.ERROR
    assert slept.attributes is not None and slept.attributes["error.type"] == "timeout"


def test_a_send_request_future_ends_its_span_when_it_settles(
    provider: TracerProvider, exporter: InMemorySpanExporter, sent: list[dict[str, Any]]
) -> None:
    """``send_request``: the span starts when the request goes, ends when its future has the answer."""
    with mcpsync.connect(server_config(timeout=T), tracing=provider) as client:
        future = client.send_request("tools/call", {"name": "echo", "arguments": {"text": "later"}})
        future.result(timeout=T)
    (call,) = spans(exporter, "tools/call echo")
    assert meta_of(sent, "tools/call")["traceparent"] == traceparent(call)


def test_without_a_recording_provider_the_callers_context_is_passed_on_as_it_is(
    sent: list[dict[str, Any]],
) -> None:
    """No tracer provider set (OpenTelemetry's default does not record): no span is made, but the
    caller's current context, with its ``tracestate`` and ``baggage``, goes in ``_meta`` unchanged."""
    parent = SpanContext(
        trace_id=0x4BF92F3577B34DA6A3CE929D0E0E4736,
        span_id=0x00F067AA0BA902B7,
        is_remote=True,
        trace_flags=TraceFlags(TraceFlags.SAMPLED),
        trace_state=trace.TraceState([("rojo", "00f067aa0ba902b7")]),
    )
    ctx = baggage.set_baggage("user", "alice", trace.set_span_in_context(NonRecordingSpan(parent)))
    with mcpsync.connect(server_config(timeout=T)) as client:
        token = context.attach(ctx)
        try:
            client.call_tool("echo", {"text": "hi"})
        finally:
            context.detach(token)
        client.call_tool("echo", {"text": "outside"})
        outside = meta_of(sent, "tools/call")
    inside = [m for m in sent if m["method"] == "tools/call"][-2]["params"]["_meta"]
    assert inside["traceparent"] == "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    assert inside["tracestate"] == "rojo=00f067aa0ba902b7"
    assert inside["baggage"] == "user=alice"
    assert not set(outside) & {"traceparent", "tracestate", "baggage"}  # no context: nothing added


def test_tracing_false_sends_no_context_and_records_nothing(
    provider: TracerProvider, exporter: InMemorySpanExporter, sent: list[dict[str, Any]]
) -> None:
    """``Client(tracing=False)``: inside the caller's span, still no span of ours and no trace keys."""
    with mcpsync.connect(server_config(timeout=T), tracing=False) as client:
        with provider.get_tracer("app").start_as_current_span("outer"):
            client.call_tool("echo", {"text": "hi"})
    assert [s.name for s in exporter.get_finished_spans()] == ["outer"]
    assert "traceparent" not in meta_of(sent, "tools/call")


def test_trace_keys_the_caller_set_in_meta_stay(provider: TracerProvider, sent: list[dict[str, Any]]) -> None:
    """A ``traceparent`` the caller put in ``meta`` is sent as the caller wrote it."""
    own = "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01"
    with mcpsync.connect(server_config(timeout=T), tracing=provider) as client:
        with provider.get_tracer("app").start_as_current_span("outer"):
            client.call_tool("echo", {"text": "hi"}, meta={"traceparent": own})
    assert meta_of(sent, "tools/call")["traceparent"] == own


def test_the_global_tracer_provider_is_used_by_default(tmp_path: Any) -> None:
    """``tracing`` left at its default: a program that sets the SDK's provider globally gets the spans
    (in a fresh interpreter: the global provider can be set once per process)."""
    code = textwrap.dedent(
        """
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
        import mcpsync
        from mcpsync.testing import server_config

        exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        trace.set_tracer_provider(provider)
        with mcpsync.connect(server_config(timeout=20), protocol="legacy") as client:
            client.call_tool("echo", {"text": "hi"})
        print(sorted(s.name for s in exporter.get_finished_spans()))
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['initialize', 'tools/call echo']"


def test_a_global_provider_set_after_requests_were_untraced_takes_the_next_one() -> None:
    """The API loaded and no provider set: requests go untraced (the proxy provider says so, without a
    look at the environment each time); the program then sets the provider, and the very next request
    of the same client has its span."""
    code = textwrap.dedent(
        """
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
        import mcpsync
        from mcpsync.testing import server_config

        exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        with mcpsync.connect(server_config(timeout=20), protocol="legacy") as client:
            client.call_tool("echo", {"text": "before"})
            client.call_tool("echo", {"text": "before"})
            trace.set_tracer_provider(provider)
            client.call_tool("echo", {"text": "after"})
            client.ping()
        print(sorted(s.name for s in exporter.get_finished_spans()))
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['ping', 'tools/call echo']"


def test_a_program_that_never_imports_opentelemetry_does_not_load_it() -> None:
    """mcpsync never imports OpenTelemetry itself: a program that does not use it pays nothing (a fresh
    interpreter, where the API is installed, makes requests and has no ``opentelemetry`` module loaded)."""
    code = textwrap.dedent(
        """
        import sys
        import mcpsync
        from mcpsync.testing import server_config

        with mcpsync.connect(server_config(timeout=20)) as client:
            client.call_tool("echo", {"text": "hi"})
        print(sorted(m for m in sys.modules if m.startswith("opentelemetry")))
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
