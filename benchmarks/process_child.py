"""One client in a fresh process, for ``bench_process.py``: start-up to the first result, or peak memory.

    python benchmarks/process_child.py CLIENT TASK [CALLS]

CLIENT is raw, official or mcpsync (``bare`` imports nothing: the
interpreter's own footprint); TASK is

startup
    import the client, start ``minimal_server.py``, initialize, call ``echo``
    once, then print ``ok`` at once (the parent times from process start to
    that line), close;
memory
    the same, then CALLS more sequential ``echo`` calls (default 1000), close,
    and print ``maxrss <kB>``: this process's peak resident set size
    (``VmHWM``; the server is another process and not counted).

Each client is used idiomatically and imports only what it needs, so the
numbers show what a program using it pays.
"""

import sys

HERE = sys.path[0]  # this file's folder
SERVER = HERE + "/minimal_server.py"
PROTOCOL_VERSION = "2025-11-25"


def check(got, expected):
    if got != expected:
        raise SystemExit("wrong echo: expected %r, got %r" % (expected, got))


def run_raw(task, calls):
    """Popen + json, blocking line reads (sequential calls need nothing more)."""
    import json
    import subprocess

    proc = subprocess.Popen([sys.executable, SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    ids = iter(range(1, 1 << 62))

    def request(method, params):
        request_id = next(ids)
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}).encode())
        proc.stdin.write(b"\n")
        proc.stdin.flush()
        message = json.loads(proc.stdout.readline())
        if message.get("id") != request_id or "result" not in message:
            raise SystemExit("bad response %r" % (message,))
        return message["result"]

    def echo(text):
        check(request("tools/call", {"name": "echo", "arguments": {"text": text}})["content"][0]["text"], text)

    try:
        info = {"name": "raw", "version": "0"}
        request("initialize", {"protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": info})
        proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        proc.stdin.flush()
        echo("first")
        first_result()
        for i in range(calls):
            echo("m%d" % i)
    finally:
        proc.stdin.close()
        proc.wait(10)
        proc.stdout.close()


def run_official(task, calls):
    """``async with mcp.client.Client(StdioServerParameters(...))`` under ``asyncio.run``."""
    import asyncio

    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters

    async def main():
        async with Client(StdioServerParameters(command=sys.executable, args=[SERVER])) as client:
            check((await client.call_tool("echo", {"text": "first"})).content[0].text, "first")
            first_result()
            for i in range(calls):
                text = "m%d" % i
                check((await client.call_tool("echo", {"text": text})).content[0].text, text)

    asyncio.run(main())


def run_mcpsync(task, calls):
    """``mcpsync.connect([python, server])``, ``call_tool``."""
    sys.path.insert(0, HERE.rsplit("/", 1)[0])  # this checkout's mcpsync, installed or not
    import mcpsync

    with mcpsync.connect([sys.executable, SERVER]) as client:
        check(client.call_tool("echo", {"text": "first"}).text, "first")
        first_result()
        for i in range(calls):
            text = "m%d" % i
            check(client.call_tool("echo", {"text": text}).text, text)


def first_result():
    sys.stdout.write("ok\n")
    sys.stdout.flush()


def main():
    client, task = sys.argv[1], sys.argv[2]
    calls = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    if task not in ("startup", "memory"):
        raise SystemExit("unknown task %r" % task)
    if task == "startup":
        calls = 0
    if client == "bare":
        first_result()
    else:
        {"raw": run_raw, "official": run_official, "mcpsync": run_mcpsync}[client](task, calls)
    if task == "memory":
        sys.stdout.write("maxrss %d\n" % peak_rss_kb())
        sys.stdout.flush()


def peak_rss_kb():
    """This process's peak resident set size in kB.

    Linux: ``VmHWM``, the high-water mark of this program's own memory.
    ``ru_maxrss`` would not do there: it keeps the parent's size at the fork
    that started us (across the exec), so every child would look as big as
    the benchmark that spawned it.
    """
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // 1024 if sys.platform == "darwin" else peak


if __name__ == "__main__":
    main()
