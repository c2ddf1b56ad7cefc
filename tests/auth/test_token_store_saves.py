"""A token store that cannot keep what it is given: the disk is full (a file size limit, for real),
or a file stands where its directory should be. The save is a ``TokenStoreError`` naming the store
and why, the entry already there is intact, no temporary file is left, and a grant whose token
cannot be kept says so with that typed error (not an ``OSError``)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mcpsync import FileTokenStore, TokenStoreError

T = 20

#: Runs in a child process: writes beyond 200 bytes fail with EFBIG (SIGXFSZ ignored), as a full disk's do.
FULL_DISK = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
from mcpsync import FileTokenStore, TokenStoreError
store = FileTokenStore(sys.argv[1])
store.save("token a", {"access_token": "old"})
resource.setrlimit(resource.RLIMIT_FSIZE, (200, resource.RLIM_INFINITY))
try:
    store.save("token a", {"access_token": "new" * 200})
except TokenStoreError as exc:
    print("TokenStoreError:", exc, "| path:", exc.path)
print("kept:", store.load("token a"))
"""


def test_a_save_on_a_full_disk_is_a_token_store_error_and_keeps_the_old_entry(tmp_path: Path) -> None:
    """The write fails part way (EFBIG): TokenStoreError with the directory and the system's reason;
    the entry is still the old one, and no .tmp- file is left in the directory."""
    directory = tmp_path / "auth"
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(FULL_DISK), str(directory)], capture_output=True, text=True, timeout=T
    )
    assert done.returncode == 0, done.stderr
    assert f"TokenStoreError: the token store {directory} could not keep an entry: File too large" in done.stdout
    assert f"| path: {directory}" in done.stdout
    assert "kept: {'access_token': 'old'}" in done.stdout
    assert [p.name for p in directory.iterdir() if p.name.startswith(".tmp-")] == []


def test_a_save_where_a_file_stands_in_the_directorys_place_is_a_token_store_error(tmp_path: Path) -> None:
    """The store's parent is a file: the directory cannot be made; TokenStoreError, not an OSError."""
    (tmp_path / "data").write_text("a file")
    store = FileTokenStore(tmp_path / "data" / "auth")
    with pytest.raises(TokenStoreError, match="could not keep an entry") as caught:
        store.save("token a", {"access_token": "x"})
    assert caught.value.path == str(tmp_path / "data" / "auth")


#: In a child process, with writes over 200 bytes failing (a full disk): a grant whose token cannot be kept.
GRANT_ON_A_FULL_DISK = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
import mcpsync
from mcpsync import ClientCredentials, FileTokenStore, TokenStoreError
from tests.oauth_server import OAuthTestServer
resource.setrlimit(resource.RLIMIT_FSIZE, (200, resource.RLIM_INFINITY))
with OAuthTestServer(clients={"svc": {"secret": "s"}}) as server:
    auth = ClientCredentials("svc", "s", store=FileTokenStore(sys.argv[1]))
    try:
        mcpsync.connect(server.url, auth=auth, timeout=20)
    except TokenStoreError as exc:
        print("TokenStoreError:", exc)
    print("token requests:", len(server.requests_to("/token")))
"""


def test_a_grant_whose_token_cannot_be_kept_fails_with_the_stores_typed_error(
    tmp_path: Path,
) -> None:
    """A client credentials grant succeeds at the token endpoint but the disk is full: the connect
    raises TokenStoreError (typed, naming the store and why; on main an OSError's traceback)."""
    directory = tmp_path / "auth"
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(GRANT_ON_A_FULL_DISK), str(directory)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert f"TokenStoreError: the token store {directory} could not keep an entry: File too large" in done.stdout
    assert "token requests: 1" in done.stdout
