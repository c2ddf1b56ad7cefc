"""OpenTelemetry for every request: a client span, and the caller's trace context in ``params._meta``.

The 2026-07-28 revision reserves the ``_meta`` keys ``traceparent``,
``tracestate`` and ``baggage`` for W3C Trace Context and Baggage
(basic/index.mdx); in 2025-11-25 and earlier ``_meta`` is open to any key of
that form, and the official SDKs read them there in every era. The span
follows OpenTelemetry's semantic conventions for MCP, version
``SEMCONV_VERSION`` (docs/gen-ai/mcp.md, "span.mcp.client"): named
``"{mcp.method.name} {target}"`` (the tool's or the prompt's name), kind
``CLIENT``, the attributes below, status ``ERROR`` with the JSON-RPC error's
message when the request fails (``error.type``: the error code, ``timeout``,
``tool_error`` for a tool result with ``isError``, else the exception's class).

Nothing here is a dependency. mcpsync never imports OpenTelemetry on its own:
only a program that imported ``opentelemetry.trace`` can have a span going or
a tracer provider set, so until it has, a request pays one dict lookup. Then:

- a tracer provider that records (the SDK's, set globally or passed as
  ``Client(tracing=provider)``) gets a client span per request, child of the
  caller's current span, and the span's own context goes in ``_meta``;
- without one, the caller's current span context, if any, goes in ``_meta``
  as it is (a server downstream still joins the caller's trace);
- with neither, nothing is added and nothing is allocated.

What the caller put in ``_meta`` under these keys stays: the caller's word wins.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from concurrent.futures import CancelledError, Future
from typing import Any, Optional

from .._core.errors import ServerError
from .._version import __version__
from .._wire.base import Transport
from .._wire.stdio import StdioTransport

__all__ = ["SEMCONV_VERSION", "TRACE_KEYS", "RequestSpan", "Tracing"]

#: The version of OpenTelemetry's semantic conventions the spans follow (the last release with the MCP
#: conventions in open-telemetry/semantic-conventions; they have since moved to semantic-conventions-genai).
SEMCONV_VERSION = "1.41.0"
SCHEMA_URL = f"https://opentelemetry.io/schemas/{SEMCONV_VERSION}"
#: The ``_meta`` keys of trace context (W3C Trace Context and Baggage).
TRACE_KEYS = ("traceparent", "tracestate", "baggage")
#: The methods whose target (a tool's or a prompt's name) is in the span name, and the attribute naming it.
_TARGETS = {"tools/call": "gen_ai.tool.name", "prompts/get": "gen_ai.prompt.name"}
#: The methods that name a resource (``mcp.resource.uri``; kept out of the span name: high cardinality).
_RESOURCE_METHODS = frozenset({"resources/read", "resources/subscribe", "resources/unsubscribe"})

_api: Any = None  # (trace, propagate) once the program has imported OpenTelemetry


def _opentelemetry() -> Any:
    """OpenTelemetry's ``trace`` and ``propagate`` modules if the program imported the API, else ``None``."""
    global _api
    if _api is None:
        trace = sys.modules.get("opentelemetry.trace")
        if trace is None:
            return None  # nobody traces in this process (yet): nothing to join, nothing to record
        from opentelemetry import propagate  # the API's own, cheap once trace is loaded

        _api = (trace, propagate)
    return _api


_global: Any = None  # OpenTelemetry's global tracer provider, once one is set (it is set once per process)
_proxy: Any = None  # the API's proxy provider, which stands in for it until then


def _global_provider(trace: Any) -> Any:
    """OpenTelemetry's global tracer provider, or ``None`` while none is set.

    ``trace.get_tracer_provider()`` looks at the environment on every call while no provider is set
    (0.8 µs, a KeyError raised and caught): in a process with the API loaded that traces nothing (the
    official SDK beside mcpsync in ``make bench``), the 100-in-flight row fell from 1.1x the floor to
    0.76x when every request asked it (median of three runs, 2026-12-05). So it is
    asked once (the environment variable naming a provider is read then, as OpenTelemetry reads it);
    after that the proxy provider it gave says whether a provider has been set: its ``get_tracer``
    gives a ``ProxyTracer`` until then (0.3 µs), and the provider, once set, is kept.
    """
    global _global, _proxy
    if _global is not None:
        return _global
    if _proxy is None:
        provider = trace.get_tracer_provider()
        if not isinstance(provider, trace.ProxyTracerProvider):
            _global = provider
            return provider
        _proxy = provider
    if type(_proxy.get_tracer("mcpsync")) is trace.ProxyTracer:
        return None
    _global = trace.get_tracer_provider()
    return _global


class Tracing:
    """The tracing of one client's requests (see the module docstring); ``provider``: a ``TracerProvider``,
    or ``None`` for OpenTelemetry's global one."""

    def __init__(self, transport: Transport, provider: Any = None) -> None:
        self.transport = transport
        self.provider = provider
        self._tracer: Any = None
        self._tracer_of: Any = None
        self._network: Optional[dict[str, Any]] = None

    def start(self, method: str, params: Optional[dict[str, Any]], version: Optional[str]) -> Optional[RequestSpan]:
        """The span of a request about to go out (with ``params`` carrying its context), or ``None``: untraced."""
        api = _api
        if api is None:
            if "opentelemetry.trace" not in sys.modules:
                return None  # nobody traces in this process (yet)
            api = _opentelemetry()
        trace, propagate = api
        provider = self.provider if self.provider is not None else _global_provider(trace)
        if provider is None or isinstance(provider, (trace.ProxyTracerProvider, trace.NoOpTracerProvider)):
            # Nothing records here: pass the caller's own context on, if there is one.
            if not trace.get_current_span().get_span_context().is_valid:
                return None
            return RequestSpan(None, method, _carried(params, propagate, None), None)
        tracer = self._tracer_for(provider)
        name, attributes = self._describe(method, params, version)
        span = tracer.start_span(name, kind=trace.SpanKind.CLIENT, attributes=attributes)
        carried = _carried(params, propagate, trace.set_span_in_context(span))
        return RequestSpan(span, method, carried, trace.StatusCode.ERROR)

    def _tracer_for(self, provider: Any) -> Any:
        if self._tracer_of is not provider:  # the global provider may be set after the client was made
            self._tracer = provider.get_tracer("mcpsync", __version__, schema_url=SCHEMA_URL)
            self._tracer_of = provider
        return self._tracer

    def _describe(
        self, method: str, params: Optional[dict[str, Any]], version: Optional[str]
    ) -> tuple[str, dict[str, Any]]:
        """The span's name and attributes (semantic conventions ``SEMCONV_VERSION``, span.mcp.client)."""
        attributes: dict[str, Any] = {"mcp.method.name": method}
        name = method
        params = params or {}
        target_key = _TARGETS.get(method)
        target = params.get("name") if target_key else None
        if target_key and isinstance(target, str):
            attributes[target_key] = target
            name = f"{method} {target}"
        if method == "tools/call":
            attributes["gen_ai.operation.name"] = "execute_tool"
        uri = params.get("uri") if method in _RESOURCE_METHODS else None
        if isinstance(uri, str):
            attributes["mcp.resource.uri"] = uri
        version = version or getattr(self.transport, "protocol_version", None)
        if isinstance(version, str):
            attributes["mcp.protocol.version"] = version
        session_id = getattr(self.transport, "session_id", None)
        if isinstance(session_id, str):
            attributes["mcp.session.id"] = session_id
        attributes.update(self._network_attributes())
        return name, attributes

    def _network_attributes(self) -> dict[str, Any]:
        """``network.transport``, ``server.address`` and ``server.port`` of the transport (computed once)."""
        if self._network is None:
            from .._wire.http.base import HTTPTransportBase  # loaded already for an HTTP transport; requests is heavy

            network: dict[str, Any] = {}
            if isinstance(self.transport, HTTPTransportBase):
                from urllib.parse import urlsplit  # lazily: only a traced HTTP request needs it

                parts = urlsplit(self.transport.url)
                network["network.transport"] = "tcp"
                network["network.protocol.name"] = "http"
                if parts.hostname:
                    network["server.address"] = parts.hostname
                    network["server.port"] = parts.port or (443 if parts.scheme == "https" else 80)
            elif isinstance(self.transport, StdioTransport):
                network["network.transport"] = "pipe"
            self._network = network
        return self._network


def _carried(params: Optional[dict[str, Any]], propagate: Any, context: Any) -> dict[str, Any]:
    """``params`` whose ``_meta`` carries the trace context of ``context`` (``None``: the current one);
    keys the caller set there stay as they are."""
    carrier: dict[str, str] = {}
    propagate.inject(carrier, context=context)
    merged = dict(params or {})
    own = merged.get("_meta")
    own = own if isinstance(own, Mapping) else {}
    merged["_meta"] = {**{k: v for k, v in carrier.items() if k in TRACE_KEYS}, **own}
    return merged


class RequestSpan:
    """One request's span (``None`` when only the context is passed on) and the params that carry it."""

    __slots__ = ("_error", "error_type", "method", "params", "span")

    def __init__(self, span: Any, method: str, params: dict[str, Any], error: Any) -> None:
        self.span = span
        self.method = method
        self.params = params
        self._error = error  # StatusCode.ERROR
        #: Set when the channel knows better than the future's exception (``"timeout"``).
        self.error_type: Optional[str] = None

    def follow(self, future: Future) -> None:  # type: ignore[type-arg]
        """Note the request's id, and end the span when its future settles (on whichever thread settles it)."""
        if self.span is None:
            return
        self.span.set_attribute("jsonrpc.request.id", str(future.request_id))  # type: ignore[attr-defined]
        future.add_done_callback(self._settled)

    def failed(self, error: BaseException) -> None:
        """End the span of a request that never got a future (it could not be encoded)."""
        if self.span is not None:
            self._end_with(error)

    def _settled(self, future: Future) -> None:  # type: ignore[type-arg]
        try:
            error = CancelledError() if future.cancelled() else future.exception()
        except CancelledError as exc:
            error = exc
        if error is None:
            result = future.result()
            if self.method == "tools/call" and isinstance(result, Mapping) and result.get("isError") is True:
                self.span.set_attribute("error.type", "tool_error")
                self.span.set_status(self._error)
            self.span.end()
            return
        self._end_with(error)

    def _end_with(self, error: BaseException) -> None:
        span = self.span
        if isinstance(error, ServerError):
            code = str(error.code)
            span.set_attribute("error.type", self.error_type or code)
            span.set_attribute("rpc.response.status_code", code)
            span.set_status(self._error, error.message)
        else:
            kind = type(error)
            described = "cancelled" if isinstance(error, CancelledError) else f"{kind.__module__}.{kind.__qualname__}"
            span.set_attribute("error.type", self.error_type or described)
            span.set_status(self._error, str(error) or self.error_type or described)
        span.end()
