"""What envelope validation costs per incoming message, next to a stdio round trip.

    python benchmarks/bench_validation.py [--messages N]

Compares, on the messages a client receives most (a tools/call response, a
progress notification, an error response):
  - mcpsync.schema.validate (the fast path, as used on every message),
  - the full jsonschema Draft 2020-12 validation of the same schema,
  - json.loads of the same bytes (the decode that happens anyway),
and reports each as a share of one mcpsync stdio round trip, measured in the
same run against benchmarks/minimal_server.py.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import mcpsync
from mcpsync._core import envelope as schema

HERE = Path(__file__).resolve().parent

SAMPLES = {
    "tools/call response": {
        "jsonrpc": "2.0",
        "id": 42,
        "result": {"content": [{"type": "text", "text": "hello"}], "isError": False},
    },
    "progress notification": {
        "jsonrpc": "2.0",
        "method": "notifications/progress",
        "params": {"progressToken": "t", "progress": 1, "total": 3},
    },
    "error response": {"jsonrpc": "2.0", "id": 7, "error": {"code": -32601, "message": "Method not found"}},
}


def per_call(fn, arg, n: int) -> float:
    """Best of 5 runs of n calls, in microseconds per call."""
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(n):
            fn(arg)
        best = min(best, (time.perf_counter() - start) / n)
    return best * 1e6


def round_trip_us(calls: int) -> float:
    with mcpsync.connect([sys.executable, str(HERE / "minimal_server.py")]) as client:
        for _ in range(200):
            client.call_tool("echo", {"text": "w"}, timeout=30)
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            for _ in range(calls):
                client.call_tool("echo", {"text": "x"}, timeout=30)
            best = min(best, (time.perf_counter() - start) / calls)
    return best * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=20000, help="messages per timing run")
    parser.add_argument("--calls", type=int, default=2000, help="round trips per timing run")
    args = parser.parse_args()

    full = schema._get_validators()[None]
    trip = round_trip_us(args.calls)
    print(f"mcpsync stdio round trip: {trip:.1f} µs (best of 3 x {args.calls})\n")
    print("| message | json.loads µs | fast validate µs | full jsonschema µs | fast / round trip | full / round trip |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, message in SAMPLES.items():
        data = json.dumps(message).encode()
        decode = per_call(json.loads, data, args.messages)
        fast = per_call(schema.validate, message, args.messages)
        slow = per_call(full.validate, message, max(1, args.messages // 10))
        print(f"| {name} | {decode:.2f} | {fast:.2f} | {slow:.1f} | {fast / trip:.2%} | {slow / trip:.1%} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
