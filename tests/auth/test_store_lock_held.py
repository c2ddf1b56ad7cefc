"""A refresh that meets a store lock another process holds past the call's deadline (docs/faults.md).

The other process is a small script that holds the lock of the token's entry in a ``FileTokenStore``
until told to let go; this process holds an expired token in that store and makes a call.
"""

from __future__ import annotations

import select
import subprocess
import sys
import time

import pytest

import mcpsync
from mcpsync import FileTokenStore, OAuth, RequestTimeout
from tests.oauth_server import OAuthTestServer

T = 20
#: Far above a 1 s timeout, far below the holder's 30 s.
PROMPTLY = 10

HOLDER = """
import sys
from mcpsync import FileTokenStore
with FileTokenStore(sys.argv[1]).lock(sys.argv[2], 30):
    print("held", flush=True)
    sys.stdin.readline()
"""


@pytest.mark.slow("a Python process holds the token's lock while the call waits out its 1 s timeout")
def test_a_refresh_that_waits_past_the_deadline_for_another_processs_lock_ends_at_the_timeout(tmp_path):
    """Another process holds the token entry's lock and the server refuses the token: the call that must
    refresh ends at its timeout with ``RequestTimeout`` (the refresh waits for the lock no longer, and
    never deletes the token); once the lock is free, calls work again."""
    directory = tmp_path / "auth"
    with OAuthTestServer() as server:
        auth = OAuth(on_authorize=server.approve, store=FileTokenStore(directory))
        with mcpsync.connect(server.url, auth=auth, timeout=T) as client:
            (key,) = [k for k in auth.store.keys() if k.startswith("token ")]
            holder = subprocess.Popen(
                [sys.executable, "-c", HOLDER, str(directory), key],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            try:
                assert holder.stdout is not None and holder.stdin is not None
                readable, _, _ = select.select([holder.stdout], [], [], T)
                assert readable and holder.stdout.readline().strip() == "held"
                server.revoke_access_tokens()  # the next call's 401 asks for a refresh
                started = time.monotonic()
                with pytest.raises(RequestTimeout, match="after 1s") as raised:
                    client.ping(timeout=1)
                # what held the call up is said, not only that it timed out
                assert "token" in raised.value.detail, raised.value.detail
                assert str(raised.value).endswith(raised.value.detail)
                assert time.monotonic() - started < PROMPTLY
                assert key in auth.store.keys(), "the token was not deleted"
                holder.stdin.write("\n")
                holder.stdin.flush()
                assert holder.wait(T) == 0
                assert client.call_tool("echo", {"text": "after"}, timeout=T).text == "after"
            finally:
                if holder.poll() is None:
                    holder.kill()
                holder.communicate(timeout=T)
