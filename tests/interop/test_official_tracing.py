"""OpenTelemetry trace context against the official SDK's server (tests/interop/official_server.py).

The official ``mcp`` server reads ``traceparent`` from each request's ``params._meta`` and makes
its own SERVER span a child of it (its ``OpenTelemetryMiddleware``, on by default). The server's
``trace_context`` tool says which span it runs in: the trace is mcpsync's caller's, and the
parent is mcpsync's CLIENT span for that call. Over stdio and Streamable HTTP, in both eras.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

import mcpsync
from tests.interop.official import SERVER_SCRIPT, TIMEOUT, start_server, stop

pytestmark = [
    pytest.mark.official,
    pytest.mark.skipif(sys.version_info < (3, 10), reason="the official SDK needs Python 3.10+"),
]


@pytest.fixture(scope="module", params=("stdio", "sse-replies"))
def target(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    if request.param == "stdio":
        yield {"command": sys.executable, "args": [str(SERVER_SCRIPT), "stdio"]}
        return
    running = start_server(request.param, tmp_path_factory.mktemp("official-tracing"))
    try:
        yield running.url
    finally:
        stop(running.process, 5)


@pytest.mark.parametrize("protocol", ["legacy", "modern"])
def test_the_official_server_continues_the_callers_trace_under_mcpsyncs_client_span(target: Any, protocol: str) -> None:
    """A call inside the caller's span: the official server's span for it is in the caller's trace,
    and its parent is mcpsync's client span "tools/call trace_context" (no other process in between)."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    try:
        with mcpsync.connect(target, timeout=TIMEOUT, protocol=protocol, tracing=provider) as client:
            with provider.get_tracer("app").start_as_current_span("outer") as outer:
                seen = client.call_tool("trace_context", timeout=TIMEOUT).structured_content
            session_id = getattr(client.transport, "session_id", None)
        (call,) = [s for s in exporter.get_finished_spans() if s.name == "tools/call trace_context"]
    finally:
        provider.shutdown()
    assert call.kind is SpanKind.CLIENT
    assert isinstance(seen, dict)
    assert seen["trace_id"] == f"{outer.get_span_context().trace_id:032x}"
    assert seen["recording"] is True and seen["name"] == "tools/call trace_context"  # the SDK's server span
    assert seen["parent_span_id"] == f"{call.context.span_id:016x}"
    attributes = dict(call.attributes or {})
    assert attributes["mcp.protocol.version"] == ("2026-07-28" if protocol == "modern" else "2025-11-25")
    if isinstance(target, str):  # Streamable HTTP: where the server is, and the session (legacy only)
        assert attributes["network.transport"] == "tcp"
        assert attributes["server.address"] == "127.0.0.1"
        assert isinstance(attributes["server.port"], int)
        assert attributes.get("mcp.session.id") == session_id
        assert (session_id is not None) is (protocol == "legacy")
    else:
        assert attributes["network.transport"] == "pipe"
