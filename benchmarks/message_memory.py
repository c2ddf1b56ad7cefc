"""What one large message costs the client in memory, per MiB of message, on each path.

    python benchmarks/message_memory.py [--mib 30] [--json]

Paths (each measured in a fresh process of its own, against a server in another process,
so that the server's memory is not counted):

stdio_text    a tools/call over stdio answered with a text of N MiB
stdio_state   a 2026-07-28 tools/call over stdio answered ``input_required`` with a
              ``requestState`` of N MiB, which the client sends back as it came
http_json     a tools/call over Streamable HTTP answered with a JSON body of N MiB
http_sse      the same answered as one SSE event of N MiB
http_*_state  the requestState of stdio_state over each HTTP path (sent back as a POST body)

Two numbers per path, each from its own fresh process: the peak of what Python allocated
during the call (``tracemalloc``: exact, and the same from run to run) and the growth of the
process's peak RSS during the call (``VmHWM``, reset just before it through
``/proc/self/clear_refs``; the allocator's own habits show there too), both divided by the
message's size. The message's own result (about 1x: the text the call returns, or the state
held while it is sent back) is part of both.
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import subprocess
import sys
import time
from typing import Any, Optional

PATHS = ("stdio_text", "stdio_state", "http_json", "http_sse", "http_json_state", "http_sse_state")
MIB = 1 << 20
DISCOVER = {
    "supportedVersions": ["2026-07-28"],
    "capabilities": {"tools": {}},
    "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "big", "version": "1.0"}},
    "resultType": "complete",
}


# -- the server (another process) --------------------------------------------------------


def answer(message: dict[str, Any], size: int) -> Optional[bytes]:
    """The bytes of the answer to ``message`` (``None`` for a notification)."""
    if "id" not in message:
        return None
    method, params = message.get("method"), message.get("params") or {}
    if method == "server/discover":
        result: dict[str, Any] = DISCOVER
    elif method == "tools/call" and params.get("name") == "state" and "requestState" not in params:
        result = {"resultType": "input_required", "inputRequests": {}, "requestState": "s" * size}
    elif method == "tools/call" and params.get("name") == "text":
        result = {"content": [{"type": "text", "text": "t" * size}], "resultType": "complete"}
    else:
        result = {"content": [{"type": "text", "text": "ok"}], "resultType": "complete"}
    return json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode()


def serve_stdio(size: int) -> None:
    for line in sys.stdin.buffer:
        data = answer(json.loads(line), size)
        if data is not None:
            sys.stdout.buffer.write(data + b"\n")
            sys.stdout.buffer.flush()


def serve_http(size: int, sse: bool) -> None:
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            data = answer(json.loads(body), size)
            if data is None:
                self.send_response(202)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if sse:
                data = b"event: message\ndata: " + data + b"\n\n"
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream" if sse else "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_DELETE(self) -> None:
            self.send_response(405)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


# -- the client (a fresh process per measurement) ----------------------------------------


def _peak_rss_kib() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def measure(path: str, size: int, metric: str) -> float:
    """Bytes of peak growth during one call on ``path``, per byte of message."""
    import mcpsync

    me = [sys.executable, os.path.abspath(__file__)]
    server: Optional[subprocess.Popen[bytes]] = None
    if path.startswith("stdio"):
        target: Any = mcpsync.StdioServerConfig(command=me[0], args=[*me[1:], "--serve", "stdio", "--size", str(size)])
    else:
        kind = "sse" if path.startswith("http_sse") else "json"
        server = subprocess.Popen([*me, "--serve", kind, "--size", str(size)], stdout=subprocess.PIPE)
        assert server.stdout is not None
        target = f"http://127.0.0.1:{int(server.stdout.readline())}/mcp"
    name = "state" if path.endswith("_state") else "text"
    try:
        options = {} if path.startswith("stdio") else {"auth": False}
        with mcpsync.connect(target, protocol="modern", timeout=120, **options) as client:
            client.call_tool("warm-up", {}, timeout=120)
            if metric == "tracemalloc":
                import tracemalloc

                tracemalloc.start()
                before = tracemalloc.get_traced_memory()[0]
                result = client.call_tool(name, {}, timeout=120)
                peak = tracemalloc.get_traced_memory()[1] - before
                tracemalloc.stop()
            else:
                with open("/proc/self/clear_refs", "w") as clear:
                    clear.write("5")  # VmHWM := VmRSS
                before = _peak_rss_kib()
                result = client.call_tool(name, {}, timeout=120)
                peak = (_peak_rss_kib() - before) * 1024
            assert result.text in ("ok", "t" * size), "a wrong answer"
            del result
    finally:
        if server is not None:
            server.kill()
            server.wait(10)
    return peak / size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mib", type=int, default=30, help="the message's size in MiB (default 30)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--only", default=",".join(PATHS), help="a subset of " + ",".join(PATHS))
    parser.add_argument("--serve", choices=("stdio", "json", "sse"), help=argparse.SUPPRESS)
    parser.add_argument("--measure", choices=PATHS, help=argparse.SUPPRESS)
    parser.add_argument("--metric", choices=("tracemalloc", "rss"), default="tracemalloc", help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve == "stdio":
        serve_stdio(args.size)
        return 0
    if args.serve is not None:
        serve_http(args.size, args.serve == "sse")
        return 0
    size = args.mib * MIB
    if args.measure is not None:
        print(json.dumps(measure(args.measure, size, args.metric)))
        return 0
    import mcpsync

    rows = {}
    started = time.monotonic()
    for path in args.only.split(","):
        row = {}
        for metric in ("tracemalloc", "rss"):
            command = [sys.executable, os.path.abspath(__file__), "--measure", path, "--metric", metric]
            done = subprocess.run(
                [*command, "--mib", str(args.mib)],
                capture_output=True,
                text=True,
                check=True,
                timeout=600,
            )
            row[metric] = round(float(done.stdout.strip().splitlines()[-1]), 2)
        rows[path] = row
    if args.json:
        print(json.dumps(rows))
        return 0
    print(f"mcpsync {mcpsync.__version__} from {mcpsync.__file__}; one message of {args.mib} MiB per path")
    print(f"{'path':<16} {'tracemalloc peak/MiB':>21} {'peak RSS growth/MiB':>20}")
    for path, row in rows.items():
        print(f"{path:<16} {row['tracemalloc']:>20.2f}x {row['rss']:>19.2f}x")
    print(f"({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
