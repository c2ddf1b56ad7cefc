"""The demo: start the bundled test server over stdio and show what mcpsync does.

Run it with ``make demo`` or ``python -m mcpsync demo``.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from typing import TextIO

from .._core.errors import RequestTimeout
from .._core.feature_errors import ToolError
from .._session.connect import connect
from .._session.models import parameters_signature
from ..testing import server_config
from .cli.format import table

__all__ = ["run_demo"]


def run_demo(out: TextIO = sys.stdout) -> int:
    """Run the demo, writing to ``out``; returns the exit status."""
    threads_before = threading.active_count()
    started = time.perf_counter()
    with connect(server_config(name="demo-server")) as client:  # protocol="auto", the default
        info = client.server_info
        assert info is not None
        how = "server/discover" if client.era == "modern" else "server/discover refused, so the initialize handshake"
        out.write(f"Connected to {info} over stdio ")
        out.write(f"(protocol {client.protocol_version}, {client.era} era: {how}) ")
        out.write(f"in {time.perf_counter() - started:.2f}s\n\n")

        tools = client.list_tools()
        out.write(f"{len(tools)} tools:\n")
        table(
            [("name", "parameters", "description")]
            + [(t.name, parameters_signature(t.input_schema), t.description or "") for t in tools],
            out,
        )

        out.write("\nCalls:\n")
        result = client.call_tool("echo", {"text": "Hello from mcpsync"})
        out.write(f"  echo(text='Hello from mcpsync')  -> {result.text!r}\n")
        result = client.call_tool("add", {"a": 2, "b": 40})
        out.write(f"  add(a=2, b=40)                   -> structured {json.dumps(result.structured_content)}\n")
        reports: list[str] = []
        result = client.call_tool(
            "progress",
            {"steps": 4, "delay": 0.05},
            on_progress=lambda done, total, message: reports.append(f"{done:g}/{total:g}"),
        )
        out.write(f"  progress(steps=4)                -> {result.text!r}, progress {' '.join(reports)}\n")
        result = client.call_tool("fail", {"message": "this tool always fails"})
        try:
            result.raise_for_error()
        except ToolError as exc:
            out.write(f"  fail(...)                        -> is_error={result.is_error}: {exc}\n")
        try:
            client.call_tool("sleep", {"seconds": 10}, timeout=0.5)
        except RequestTimeout as exc:
            out.write(f"  sleep(seconds=10), timeout=0.5   -> {type(exc).__name__}: {exc}\n")
        cancelled = client.call_tool("cancelled_requests").structured_content or {}
        out.write(
            f"  cancelled_requests()             -> the server saw cancellations of {cancelled.get('cancelled')}\n"
        )

        out.write("\nResources, prompts, completion:\n")
        resources = client.list_resources()
        out.write(f"  {len(resources)} resources: {', '.join(r.uri for r in resources)}\n")
        greeting = client.read_resource("text://greeting")
        out.write(f"  read_resource('text://greeting')  -> {greeting.text!r}\n")
        pixel = client.read_resource("binary://pixel").contents[0]
        out.write(f"  read_resource('binary://pixel')   -> {len(pixel.data)} bytes of {pixel.mime_type}\n")
        prompt = client.get_prompt("greet", {"name": "Ada"})
        out.write(f"  get_prompt('greet', name='Ada')   -> {prompt.messages[0].role}: {prompt.messages[0].text!r}\n")
        names = client.complete({"type": "ref/prompt", "name": "greet"}, ("name", "Al"))
        out.write(f"  complete(greet.name, 'Al')        -> {names.values}\n")

        started = time.perf_counter()
        calls = 1000
        for n in range(calls):
            client.call_tool("echo", {"text": str(n)})
        elapsed = time.perf_counter() - started
        out.write(f"\n{calls} sequential echo calls took {elapsed:.2f}s ({calls / elapsed:,.0f} calls/s).\n")
        out.write(f"Transport counters: {client.transport.stats.as_dict()}\n")
        transport = client.transport
    exit_code = getattr(transport, "returncode", None)
    left = threading.active_count() - threads_before
    out.write(f"\nClosed: server exit code {exit_code}, {left} threads left running.\n")
    return 0 if left == 0 and exit_code is not None else 1
