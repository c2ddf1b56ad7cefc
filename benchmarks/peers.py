"""The shared setup of the benchmarks: the minimal servers started, and each client built and driven as its
users would drive it.

The clients, all calling the one tool, ``echo``, and checking every answer's
text (each call echoes a text of its own), so that a broken client cannot
look fast:

raw       the floor. stdio: ``subprocess`` + ``json`` + ``select``/``os.read``, no
          threads (16 threads share it under one lock); HTTP: one ``requests.Session``
          posting by hand, a thread pool for requests in flight. On a 2026-07-28
          server: no handshake, the revision's ``_meta`` (and headers) on every request.
floor     the design floor (``floor.py``): the smallest client of mcpsync's own shape,
          threads, futures keyed by id, one writer lock, and nothing else; the
          ratio to it is what mcpsync's own code costs.
official  the official SDK, ``mcp``: ``mcp.client.Client`` under asyncio, with
          ``StdioServerParameters``, a URL, or ``streamable_http_client`` given an
          ``httpx2.AsyncClient`` that carries the token.
mcpsync   ``mcpsync.connect``, ``call_tool``; ``send_request`` futures for requests
          in flight. Public API only, so that this file also measures an older
          checkout put first on ``PYTHONPATH``.

Each client connects with its defaults and picks the era itself; a 2026-07-28
server refuses ``initialize``, so a client that would not speak the revision
fails its row rather than being measured in the other era.

Sync peers (raw, floor, mcpsync) have ``call(text)``, ``batch(texts)`` (all in flight
at once), ``threaded_call(text)`` and ``close()``; ``official()`` is an async
context manager giving ``call`` and ``batch`` coroutines.

    python benchmarks/peers.py CLIENT CALLS

is the fresh process of the start-up and memory rows: it connects over stdio,
prints ``ok`` at the first result, makes CALLS more calls and writes its peak
RSS on stderr.
Heavy imports are made inside the functions that need them, so that this
process imports no more than its client does.
"""

import collections
import contextlib
import itertools
import json
import os
import select
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
STDIO = "stdio"  # the target of a stdio peer; an HTTP peer's target is its URL
STDIO_MODERN = "stdio-modern"  # the stdio server in the 2026-07-28 revision only
STDIO_SERVER = [sys.executable, os.path.join(HERE, "minimal_server.py")]
SERVERS = {STDIO: STDIO_SERVER, STDIO_MODERN: [*STDIO_SERVER, "--modern"]}
TOKEN = "bench-token-4e1f"
TIMEOUT = 30.0  # seconds: every call and every wait is bounded by it
PROTOCOL_VERSION = "2025-11-25"
INITIALIZE = {"protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}
MODERN_VERSION = "2026-07-28"
#: What every 2026-07-28 request carries in its ``_meta``: no handshake, each request says it all.
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
}


#: Extra connect() arguments for mcpsync (``MCPSYNC_BENCH_PROTOCOL=modern``, say); by default none: its defaults.
PROTOCOL = {"protocol": os.environ["MCPSYNC_BENCH_PROTOCOL"]} if os.environ.get("MCPSYNC_BENCH_PROTOCOL") else {}


def modern(target):
    """Whether `target` is a server of the 2026-07-28 revision (stdio, or the /modern endpoint)."""
    return target == STDIO_MODERN or target.endswith("/modern")


class BenchError(Exception):
    """A client gave a wrong answer, or the setup failed."""


def check(got, expected):
    if got != expected:
        raise BenchError("wrong answer: expected %r, got %r" % (expected, got))


def echo_params(text):
    return {"name": "echo", "arguments": {"text": text}}


def check_result(result, text):
    """A ``tools/call`` result as a dict (raw, and mcpsync's send_request) must echo `text`."""
    if result.get("isError"):
        raise BenchError("tool error: %r" % (result,))
    check(result["content"][0]["text"], text)


def bearer(target):
    """The Authorization header for an endpoint that wants one (/bearer), else none."""
    return {"Authorization": "Bearer " + TOKEN} if target.endswith("/bearer") else {}


def read_line(stream, seconds, what):
    """The first line of a child's output, waiting at most `seconds`."""
    data, deadline = b"", time.monotonic() + seconds
    while b"\n" not in data:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([stream], [], [], remaining)[0]:
            raise BenchError("%s: no output within %ss" % (what, seconds))
        chunk = os.read(stream.fileno(), 4096)
        if not chunk:
            raise BenchError("%s: exited early" % what)
        data += chunk
    return data.decode().split("\n", 1)[0]


def stop(proc):
    """Close a child's pipes (our servers exit at EOF on stdin), wait, kill it if it lingers."""
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


class HTTPServer:
    """``minimal_http_server.py`` as a child process; ``url(mode)`` for mode json, sse or bearer."""

    def __init__(self):
        command = [sys.executable, os.path.join(HERE, "minimal_http_server.py"), "--token", TOKEN]
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        try:
            self.base = read_line(self.proc.stdout, 15, "the HTTP server").split()[-1]
        except BaseException:
            stop(self.proc)
            raise

    def url(self, mode):
        return "%s/%s" % (self.base, mode)

    def close(self):
        stop(self.proc)


# -- raw ----------------------------------------------------------------------


class RawStdio:
    """A minimal MCP client over stdio, no threads: every read and write bounded by a deadline."""

    def __init__(self, target=STDIO):
        self.modern = modern(target)
        self.proc = subprocess.Popen(SERVERS[target], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        self.rfd, self.wfd = self.proc.stdout.fileno(), self.proc.stdin.fileno()
        os.set_blocking(self.wfd, False)
        self.lines, self.partial = collections.deque(), b""
        self.ids = itertools.count(1)
        self.lock = threading.Lock()  # only for threaded_call
        try:
            if self.modern:
                check(self.request("server/discover", {})["supportedVersions"], [MODERN_VERSION])
            else:
                check(self.request("initialize", INITIALIZE)["protocolVersion"], PROTOCOL_VERSION)
                self.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n', time.monotonic() + TIMEOUT)
        except BaseException:
            self.close()
            raise

    def wait(self, deadline, writing=False):
        """Wait until the server's stdout is readable (or, writing, our pipe to it writable); read what came."""
        remaining = deadline - time.monotonic()
        readable, _, _ = select.select([self.rfd], [self.wfd] if writing else [], [], max(0.0, remaining))
        if readable:
            chunk = os.read(self.rfd, 1 << 16)
            if not chunk:
                raise BenchError("the server closed its stdout")
            parts = (self.partial + chunk).split(b"\n")
            self.partial = parts.pop()
            self.lines.extend(parts)
        elif remaining <= 0:
            raise TimeoutError("the server did not answer within %ss" % TIMEOUT)

    def write(self, data, deadline):
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self.wfd, view) :]
            except BlockingIOError:
                # Pipe full: the server may be blocked writing to us, so read while we wait to write.
                self.wait(deadline, writing=True)

    def read(self, deadline):
        while not self.lines:
            self.wait(deadline)
        message = json.loads(self.lines.popleft())
        if "error" in message:
            raise BenchError("server error: %r" % (message["error"],))
        return message

    def send(self, method, params):
        request_id = next(self.ids)
        if self.modern:
            params = {**params, "_meta": MODERN_META}
        message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        return request_id, json.dumps(message).encode() + b"\n"

    def request(self, method, params):
        deadline = time.monotonic() + TIMEOUT
        request_id, data = self.send(method, params)
        self.write(data, deadline)
        message = self.read(deadline)
        check(message["id"], request_id)
        return message["result"]

    def call(self, text):
        check_result(self.request("tools/call", echo_params(text)), text)

    def threaded_call(self, text):
        """The "just put a lock on it" client: one call at a time, whichever thread asks."""
        if not self.lock.acquire(timeout=TIMEOUT):
            raise TimeoutError("no turn at the lock within %ss" % TIMEOUT)
        try:
            self.call(text)
        finally:
            self.lock.release()

    def batch(self, texts):
        """Pipelined: all the requests in one write, then the answers."""
        deadline = time.monotonic() + TIMEOUT
        sent = [self.send("tools/call", echo_params(text)) for text in texts]
        self.write(b"".join(data for _, data in sent), deadline)
        expected = {request_id: text for (request_id, _), text in zip(sent, texts)}
        for _ in texts:
            message = self.read(deadline)
            check_result(message["result"], expected.pop(message["id"]))

    def close(self):
        stop(self.proc)


class RawHTTP:
    """A minimal Streamable HTTP client: one ``requests.Session``, POSTs by hand."""

    def __init__(self, url):
        import requests

        self.url = url
        self.session = requests.Session()
        # Room for the connections of requests in flight; sequential calls reuse one.
        self.session.mount("http://", requests.adapters.HTTPAdapter(pool_maxsize=16))
        self.headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        self.session.headers.update(bearer(url))  # the token, as a user gives it: once, on the session
        self.ids = itertools.count(1)  # next() on a count is atomic under the GIL: safe from the pool's threads
        self.pool = None
        self.modern = modern(url)
        if self.modern:
            self.headers["MCP-Protocol-Version"] = MODERN_VERSION
            check(self.request("server/discover", {})[0]["supportedVersions"], [MODERN_VERSION])
            return
        try:
            result, response = self.request("initialize", INITIALIZE)
            check(result["protocolVersion"], PROTOCOL_VERSION)
            self.headers["Mcp-Session-Id"] = response.headers["Mcp-Session-Id"]
            self.headers["MCP-Protocol-Version"] = PROTOCOL_VERSION
            self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        except BaseException:
            self.close()
            raise

    def post(self, message):
        headers = self.headers
        if self.modern and "id" in message:
            message["params"] = {**message["params"], "_meta": MODERN_META}
            headers = {**headers, "Mcp-Method": message["method"]}
            if message["method"] == "tools/call":
                headers["Mcp-Name"] = message["params"]["name"]
        response = self.session.post(self.url, data=json.dumps(message).encode(), headers=headers, timeout=TIMEOUT)
        if response.status_code not in (200, 202):
            raise BenchError("HTTP %d: %r" % (response.status_code, response.content[:200]))
        return response

    def request(self, method, params):
        request_id = next(self.ids)
        response = self.post({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        body = response.content
        if response.headers["Content-Type"].startswith("text/event-stream"):
            body = next(line[5:] for line in body.split(b"\n") if line.startswith(b"data:"))
        message = json.loads(body)
        check(message["id"], request_id)
        return message["result"], response

    def call(self, text):
        check_result(self.request("tools/call", echo_params(text))[0], text)

    def batch(self, texts):
        from concurrent.futures import ThreadPoolExecutor

        if self.pool is None:
            self.pool = ThreadPoolExecutor(len(texts))
        for future in [self.pool.submit(self.call, text) for text in texts]:
            future.result(timeout=TIMEOUT)

    def close(self):
        try:
            if self.pool is not None:
                self.pool.shutdown()
            if "Mcp-Session-Id" in self.headers:
                self.session.delete(self.url, headers=self.headers, timeout=TIMEOUT)
        finally:
            self.session.close()


# -- mcpsync ------------------------------------------------------------------


class Mcpsync:
    """mcpsync, public API only."""

    def __init__(self, target):
        import mcpsync

        if target in SERVERS:
            self.client = mcpsync.connect(list(SERVERS[target]), timeout=TIMEOUT, **PROTOCOL)
        elif bearer(target):
            self.client = mcpsync.connect({"type": "http", "url": target, "headers": bearer(target)}, timeout=TIMEOUT)
        else:
            self.client = mcpsync.connect(target, timeout=TIMEOUT, **PROTOCOL)

    def call(self, text):
        result = self.client.call_tool("echo", {"text": text}, timeout=TIMEOUT)
        if result.is_error:
            raise BenchError("tool error: %r" % (result,))
        check(result.text, text)

    threaded_call = call  # mcpsync's clients are made to be shared by threads

    def batch(self, texts):
        futures = [self.client.send_request("tools/call", echo_params(text)) for text in texts]
        for future, text in zip(futures, texts):
            check_result(future.result(timeout=TIMEOUT), text)

    def close(self):
        self.client.close()


def sync_peer(client, target):
    """A connected raw, floor or mcpsync peer for `target` (STDIO, or an HTTP URL)."""
    if client == "mcpsync":
        return Mcpsync(target)
    if client == "floor":
        import floor

        return floor.FloorStdio(target) if target in SERVERS else floor.FloorHTTP(target)
    return RawStdio(target) if target in SERVERS else RawHTTP(target)


# -- official SDK -------------------------------------------------------------


class Official:
    """``call`` and ``batch`` coroutines over an entered ``mcp.client.Client``."""

    def __init__(self, client):
        self.client = client

    async def call(self, text):
        self.check(await self.client.call_tool("echo", {"text": text}), text)

    async def batch(self, texts):
        import asyncio

        results = await asyncio.gather(*(self.client.call_tool("echo", {"text": text}) for text in texts))
        for result, text in zip(results, texts):
            self.check(result, text)

    @staticmethod
    def check(result, text):
        if result.is_error:
            raise BenchError("tool error: %r" % (result.content,))
        check(result.content[0].text, text)


@contextlib.asynccontextmanager
async def official(target):
    """The official SDK's ``Client`` for `target` (STDIO, or an HTTP URL), entered, as an ``Official``."""
    from mcp.client import Client

    async with contextlib.AsyncExitStack() as stack:
        if target in SERVERS:
            from mcp.client.stdio import StdioServerParameters

            server = StdioServerParameters(command=SERVERS[target][0], args=SERVERS[target][1:])
        elif bearer(target):
            # Headers go on the httpx2 client that the transport is given, as its docstring says.
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            http = await stack.enter_async_context(httpx2.AsyncClient(headers=bearer(target), timeout=TIMEOUT))
            server = streamable_http_client(target, http_client=http)
        else:
            server = target
        yield Official(await stack.enter_async_context(Client(server, read_timeout_seconds=TIMEOUT)))


# -- processes ----------------------------------------------------------------


def child_processes():
    """{pid: state} of this process's children, zombies included (Linux /proc; elsewhere none)."""
    children = {}
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
        try:
            with open("/proc/%s/stat" % entry) as f:
                fields = f.read().rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
        except (OSError, IndexError):
            continue
        if entry.isdigit() and int(fields[1]) == os.getpid():
            children[int(entry)] = fields[0]
    return children


def kill_leftovers():
    """Kill (by pid) and reap every child process still here; return a line about each."""
    found = child_processes()
    for pid, state in found.items():
        try:
            if state != "Z":
                os.kill(pid, 9)
            deadline = time.monotonic() + 5
            while os.waitpid(pid, os.WNOHANG)[0] != pid and time.monotonic() < deadline:
                time.sleep(0.01)
        except OSError:
            pass
    return ["left-over child process %d (state %s)" % item for item in found.items()]


def memory_kb(field="VmHWM"):
    """This process's peak RSS (Linux ``VmHWM``: ``ru_maxrss`` would carry our parent's size over the fork),
    or its RSS now (``VmRSS``)."""
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field + ":"))


def fresh_process(client, calls):
    """The child of the process rows: first result over stdio, ``ok``; `calls` more calls; peak RSS."""
    if client == "official":
        import asyncio

        async def run():
            async with official(STDIO) as peer:
                await peer.call("first")
                print("ok", flush=True)
                for i in range(calls):
                    await peer.call("m%d" % i)

        asyncio.run(run())
    else:
        peer = sync_peer(client, STDIO)
        try:
            peer.call("first")
            print("ok", flush=True)
            for i in range(calls):
                peer.call("m%d" % i)
        finally:
            peer.close()
    sys.stderr.write("peak_rss_kb %d\n" % memory_kb())  # on stderr: stdout had its one line


if __name__ == "__main__":
    fresh_process(sys.argv[1], int(sys.argv[2]))
