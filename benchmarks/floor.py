"""The design floor: the smallest client of mcpsync's own shape, to measure mcpsync against (issue 24).

raw (in ``peers.py``) is the floor of any client: no threads, requests
pipelined in one write. mcpsync is built otherwise, to be shared by threads
and to keep many requests in flight, and this client is built the same way
with nothing else in it, so that the distance from it to mcpsync is what
mcpsync's own code costs:

stdio  blocking pipes to the server; one reader thread that reads lines,
       decodes them and resolves the ``concurrent.futures.Future`` its answer's
       id is keyed by (answers may come in any order); a caller registers its
       future before it writes, and writes one request under one lock, from any
       thread.
HTTP   one ``requests.Session``; each request POSTed on the caller's thread
       (as mcpsync does when the caller waits), or on a pool's thread when it is
       one of many in flight (mcpsync's workers); the answer, a JSON body or one
       SSE event, decoded and its id resolving the future it is keyed by. As
       mcpsync does, it sends a ``PreparedRequest`` of its own through the
       session's adapter (``Session.post`` merges settings, hooks and cookies
       again on every call: a third of a call's client CPU).

Honest, not fast at any price: every answer is decoded and must be a
JSON-RPC response to a request still waiting (else the client fails: it
cannot look fast by dropping answers); an error answer fails its call; every
wait is bounded; the reader's end fails every call still waiting. No envelope
schema, no limits on message size, no cancellation, no logging, no stats, no
Ctrl-C care, no reconnection: what mcpsync does beyond this is what the ratio
to this client prices.

Both protocol eras, as the raw client: a handshake server gets ``initialize``;
a 2026-07-28 one ``server/discover`` and the revision's ``_meta`` (and over
HTTP its headers) on every request. Same interface as the other sync peers:
``call(text)``, ``threaded_call(text)``, ``batch(texts)``, ``close()``.
"""

import itertools
import json
import subprocess
import threading
from concurrent.futures import Future, ThreadPoolExecutor

from peers import (
    INITIALIZE,
    MODERN_META,
    MODERN_VERSION,
    PROTOCOL_VERSION,
    SERVERS,
    TIMEOUT,
    BenchError,
    bearer,
    check,
    check_result,
    echo_params,
    modern,
    stop,
)

dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


class _Futures:
    """Futures keyed by request id: registered before the request is written, popped by its answer."""

    def __init__(self):
        self.waiting = {}  # dict operations are atomic under the GIL: no lock of our own
        self.ids = itertools.count(1)
        self.broken = None  # why the client can take no more requests

    def register(self):
        request_id, future = next(self.ids), Future()
        self.waiting[request_id] = future
        if self.broken is not None:  # the reader ended between: nobody would answer this one
            self.waiting.pop(request_id, None)
            raise self.broken
        return request_id, future

    def settle(self, message):
        """Resolve the future an answer (a decoded JSON-RPC response) is for; any other message is an error."""
        future = self.waiting.pop(message.get("id"), None) if type(message) is dict else None
        if future is None:
            raise BenchError("an answer to no request waiting: %r" % (message,))
        if "result" in message:
            future.set_result(message["result"])
        else:
            future.set_exception(BenchError("server error: %r" % (message.get("error"),)))

    def fail_all(self, error):
        self.broken = error
        while self.waiting:
            _, future = self.waiting.popitem()
            future.set_exception(error)


class FloorStdio:
    """The floor over stdio: blocking pipes, one reader thread, futures by id, one writer lock."""

    def __init__(self, target):
        self.modern = modern(target)
        self.proc = subprocess.Popen(SERVERS[target], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.futures = _Futures()
        self.write_lock = threading.Lock()
        self.reader = threading.Thread(target=self.read, name="floor-reader", daemon=True)
        self.reader.start()
        try:
            if self.modern:
                check(self.request("server/discover", {})["supportedVersions"], [MODERN_VERSION])
            else:
                check(self.request("initialize", INITIALIZE)["protocolVersion"], PROTOCOL_VERSION)
                self.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        except BaseException:
            self.close()
            raise

    def read(self):
        """The reader thread: each line's answer resolves its future, until the server's stdout ends."""
        error = BenchError("the server closed its stdout")
        try:
            settle = self.futures.settle
            for line in self.proc.stdout:
                settle(json.loads(line))
        except Exception as exc:  # a line that is not JSON, or not an answer we wait for
            error = exc
        finally:
            self.futures.fail_all(error)

    def write(self, data):
        with self.write_lock:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()

    def send(self, method, params):
        """Send a request; its future (registered before its bytes exist)."""
        request_id, future = self.futures.register()
        if self.modern:
            params = {**params, "_meta": MODERN_META}
        self.write(dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}).encode() + b"\n")
        return future

    def request(self, method, params):
        return self.send(method, params).result(TIMEOUT)

    def call(self, text):
        check_result(self.request("tools/call", echo_params(text)), text)

    threaded_call = call  # made to be shared by threads, as mcpsync is

    def batch(self, texts):
        futures = [self.send("tools/call", echo_params(text)) for text in texts]
        for future, text in zip(futures, texts):
            check_result(future.result(TIMEOUT), text)

    def close(self):
        stop(self.proc)  # the server exits at EOF; the reader then ends
        self.reader.join(TIMEOUT)
        if self.reader.is_alive():
            raise BenchError("the floor's reader did not stop")


class FloorHTTP:
    """The floor over Streamable HTTP: one ``requests.Session``, futures by id, a pool for requests in flight."""

    def __init__(self, url):
        import requests

        self.url = url
        self.session = requests.Session()
        self.session.mount("http://", requests.adapters.HTTPAdapter(pool_maxsize=16))
        self.adapter = self.session.get_adapter(url)
        self.prepared_request = requests.PreparedRequest
        self.headers = {**self.session.headers, **bearer(url)}  # the token, as a user gives it: once
        self.headers.update({"Accept": "application/json, text/event-stream", "Content-Type": "application/json"})
        self.futures = _Futures()
        self.pool = None
        self.modern = modern(url)
        try:
            if self.modern:
                self.headers["MCP-Protocol-Version"] = MODERN_VERSION
                check(self.request("server/discover", {})["supportedVersions"], [MODERN_VERSION])
            else:
                answer = []
                check(self.request("initialize", INITIALIZE, answer)["protocolVersion"], PROTOCOL_VERSION)
                self.headers["Mcp-Session-Id"] = answer[0].headers["Mcp-Session-Id"]
                self.headers["MCP-Protocol-Version"] = PROTOCOL_VERSION
                self.post(b'{"jsonrpc":"2.0","method":"notifications/initialized"}', self.headers)
        except BaseException:
            self.close()
            raise

    def post(self, data, headers, method="POST"):
        prepared = self.prepared_request()
        prepared.method, prepared.url, prepared.body = method, self.url, data
        prepared.headers = {**headers, "Content-Length": str(len(data))}
        response = self.adapter.send(prepared, timeout=TIMEOUT)
        if response.status_code not in (200, 202):
            raise BenchError("HTTP %d: %r" % (response.status_code, response.content[:200]))
        return response

    def request(self, method, params, answer=None):
        """POST a request on this thread; the answer's id finds the future it resolves. Its result."""
        request_id, future = self.futures.register()
        headers = self.headers
        if self.modern:
            params = {**params, "_meta": MODERN_META}
            headers = {**headers, "Mcp-Method": method}
            if method == "tools/call":
                headers["Mcp-Name"] = params["name"]
        data = dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}).encode()
        try:
            response = self.post(data, headers)
            if answer is not None:
                answer.append(response)
            body = response.content
            if response.headers["Content-Type"].startswith("text/event-stream"):
                body = next(line[5:] for line in body.split(b"\n") if line.startswith(b"data:"))
            self.futures.settle(json.loads(body))
        except Exception as exc:
            if self.futures.waiting.pop(request_id, None) is not None:
                future.set_exception(exc)
        return future.result(0)  # settled by now, or it got another request's answer: a wrong one

    def call(self, text):
        check_result(self.request("tools/call", echo_params(text)), text)

    threaded_call = call

    def batch(self, texts):
        if self.pool is None:
            self.pool = ThreadPoolExecutor(len(texts))
        futures = [self.pool.submit(self.request, "tools/call", echo_params(text)) for text in texts]
        for future, text in zip(futures, texts):
            check_result(future.result(TIMEOUT), text)

    def close(self):
        try:
            if self.pool is not None:
                self.pool.shutdown()
            if "Mcp-Session-Id" in self.headers:
                self.post(b"", self.headers, "DELETE")
        finally:
            self.session.close()
