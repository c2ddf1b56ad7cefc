"""Clients sharing a token store refresh one rotating refresh token: nobody is logged out.

The bundled authorization server rotates refresh tokens (a used one is refused
with ``invalid_grant``) and holds refresh requests at a gate until two have
come in, so that the clients' refreshes certainly overlap. Before the store
took turns, the loser's clean-up deleted the winner's fresh token.
"""

from __future__ import annotations

import json
import select
import subprocess
import sys
import threading
import time
from typing import Any

import pytest

import mcpsync
from mcpsync import FileTokenStore, MemoryTokenStore, OAuth, TokenStoreError
from mcpsync._auth.store import StoreLockTimeout
from tests.oauth_server import OAuthTestServer

T = 20
THREADS = 16
#: Why the tests of a race to refresh are slow.
HELD_AT_THE_REFRESH_GATE = (
    "the one refresh is held at the token endpoint's gate for its 3 s (the second refresh it waits for never comes)"
)

CHILD = """
import json, sys, threading
import mcpsync
url, directory, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
auth = mcpsync.OAuth(interactive=False, store=mcpsync.FileTokenStore(directory))
print("ready", flush=True)
sys.stdin.readline()
results = []
try:
    with mcpsync.connect(url, auth=auth, timeout=20) as client:
        def work():
            try:
                results.append(client.call_tool("echo", {"text": "ok"}, timeout=20).text)
            except Exception as exc:
                results.append(type(exc).__name__)
        running = [threading.Thread(target=work) for _ in range(threads)]
        for thread in running:
            thread.start()
        for thread in running:
            thread.join(30)
except Exception as exc:
    results.append("connect: " + type(exc).__name__)
print(json.dumps(results), flush=True)
"""


def logged_in_with_an_expired_token(server: OAuthTestServer, store: Any) -> str:
    """Log in once (keeping the token in ``store``), then make the kept token expired; its key."""
    with mcpsync.connect(server.url, auth=OAuth(on_authorize=server.approve, store=store), timeout=T) as client:
        client.list_tools(timeout=T)
    (key,) = [k for k in store.keys() if k.startswith("token ")]
    record = store.load(key)
    assert record is not None and record.get("refresh_token")
    record["expires_at"] = record["obtained_at"] = time.time() - 10
    store.save(key, record)
    return key


def refreshes(server: OAuthTestServer) -> int:
    return sum(1 for r in server.requests_to("/token") if r["form"].get("grant_type") == "refresh_token")


@pytest.mark.slow("two Python processes refresh one token through the file lock; " + HELD_AT_THE_REFRESH_GATE)
def test_two_processes_refreshing_one_rotating_token_both_succeed_and_keep_a_token(tmp_path):
    """Two processes, 16 threads each, start with the same expired token in the default kind of
    store: every call succeeds, one refresh is made, and the store still holds a working token."""
    directory = tmp_path / "auth"
    with OAuthTestServer(refresh_gate=2, refresh_gate_timeout=3.0) as server:
        key = logged_in_with_an_expired_token(server, FileTokenStore(directory))
        children = [
            subprocess.Popen(
                [sys.executable, "-c", CHILD, server.url, str(directory), str(THREADS)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(2)
        ]
        try:
            for child in children:
                assert child.stdout is not None
                readable, _, _ = select.select([child.stdout], [], [], T)
                assert readable and child.stdout.readline().strip() == "ready"
            for child in children:  # both start at once, each holding the expired token
                assert child.stdin is not None
                child.stdin.write("go\n")
                child.stdin.flush()
            outputs = [child.communicate(timeout=60) for child in children]
        finally:
            for child in children:
                if child.poll() is None:
                    child.kill()
                    child.communicate(timeout=T)
        results = [json.loads(out.strip().splitlines()[-1]) for out, _ in outputs]
        assert results == [["ok"] * THREADS, ["ok"] * THREADS], [err[-2000:] for _, err in outputs]
        assert refreshes(server) == 1
        left = FileTokenStore(directory).load(key)
        assert left is not None and left["access_token"] in server.access_tokens


@pytest.mark.slow(HELD_AT_THE_REFRESH_GATE)
@pytest.mark.parametrize("kind", ["file", "memory"])
def test_two_oauth_objects_in_one_process_refreshing_one_token_both_succeed(tmp_path, kind):
    """Two ``OAuth`` objects of one process (each its own ``FileTokenStore`` on one directory, or one
    ``MemoryTokenStore`` between them), each with a client and 16 threads, start with the same expired
    token: no call fails, one refresh is made, a working token is left."""
    directory = tmp_path / "auth"
    shared = MemoryTokenStore()

    def store() -> Any:
        return FileTokenStore(directory) if kind == "file" else shared

    with OAuthTestServer(refresh_gate=2, refresh_gate_timeout=3.0) as server:
        key = logged_in_with_an_expired_token(server, store())
        auths = [OAuth(interactive=False, store=store()) for _ in range(2)]
        failures: list[str] = []
        lock = threading.Lock()

        def client_at_work(auth: OAuth) -> None:
            try:
                with mcpsync.connect(server.url, auth=auth, timeout=T) as client:

                    def work() -> None:
                        try:
                            client.call_tool("echo", {"text": "ok"}, timeout=T)
                        except Exception as exc:
                            with lock:
                                failures.append(type(exc).__name__)

                    running = [threading.Thread(target=work) for _ in range(THREADS)]
                    for thread in running:
                        thread.start()
                    for thread in running:
                        thread.join(T)
            except Exception as exc:
                with lock:
                    failures.append("connect: " + type(exc).__name__)

        clients = [threading.Thread(target=client_at_work, args=(auth,)) for auth in auths]
        for thread in clients:
            thread.start()
        for thread in clients:
            thread.join(2 * T)
        assert failures == []
        assert refreshes(server) == 1
        left = store().load(key)
        assert left is not None and left["access_token"] in server.access_tokens


# -- the store's lock ------------------------------------------------------------------------------

HOLDER = """
import sys
from mcpsync import FileTokenStore
with FileTokenStore(sys.argv[1]).lock("token r i", 5):
    print("held", flush=True)
    sys.stdin.readline()
"""


def test_a_lock_another_process_holds_is_waited_for_within_the_time_given(tmp_path):
    """While another process holds an entry's lock, taking it gives up when the time given runs out
    (another entry's lock is free); once that process lets go, it is had at once."""
    directory = tmp_path / "auth"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(directory)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdin is not None
        readable, _, _ = select.select([holder.stdout], [], [], T)
        assert readable and holder.stdout.readline().strip() == "held"
        store = FileTokenStore(directory)
        with pytest.raises(StoreLockTimeout):
            with store.lock("token r i", 0.2):
                pass
        with store.lock("token other i", 0.2):
            pass
        holder.stdin.write("\n")
        holder.stdin.flush()
        assert holder.wait(T) == 0
        with store.lock("token r i", T):
            pass
    finally:
        if holder.poll() is None:
            holder.kill()
        holder.communicate(timeout=T)


def test_a_link_planted_at_the_lock_file_is_refused_and_not_followed(tmp_path):
    """Another local process puts a symbolic link where an entry's lock file goes: the store refuses
    it (``TokenStoreError``) and neither creates nor touches the link's target."""
    directory = tmp_path / "auth"
    store = FileTokenStore(directory)
    store.check()
    directory.mkdir(mode=0o700, exist_ok=True)
    target = tmp_path / "elsewhere"
    (directory / (".lock-" + store._name("token r i")[: -len(".json")])).symlink_to(target)
    with pytest.raises(TokenStoreError, match="the lock file cannot be opened: it is a symbolic link"):
        with store.lock("token r i", 1):
            pass
    assert not target.exists()
