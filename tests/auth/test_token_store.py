"""The token store tried as another local user would: a directory pre-created with loose modes, a
planted entry naming its own token endpoint, symbolic links at the store path and at an entry,
another owner, and what a crash leaves behind."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import stat
import time
from pathlib import Path
from typing import Any

import pytest

import mcpsync
from mcpsync import ClientCredentials, FileTokenStore, TokenStoreError
from mcpsync._auth.discovery import canonical_resource
from mcpsync._auth.store import server_key, token_key
from tests.edges.test_cli import run
from tests.helpers import LocalService, served
from tests.oauth_server import OAuthTestServer

T = 20
#: Another local user (``nobody``): the tests run as root, and give files to it with chown.
OTHER_UID = 65534


class PlantedEndpoint(LocalService):
    """A token endpoint of the attacker's, on 127.0.0.1: it keeps every request that reaches it in
    ``seen`` (served with ``tests.helpers.served``)."""

    def __init__(self) -> None:
        super().__init__()
        self.url = f"http://127.0.0.1:{self.port}/token"


def plant(directory: Path, key: str, value: dict[str, Any], *, uid: int | None = None) -> Path:
    """Write an entry as the file ``FileTokenStore`` would read for ``key``, owned by ``uid``."""
    path = directory / (hashlib.sha256(key.encode()).hexdigest()[:32] + ".json")
    path.write_text(json.dumps({"key": key, "value": value}))
    path.chmod(0o600)
    if uid is not None:
        os.chown(path, uid, -1)
    return path


def plant_expired_token(directory: Path, server: OAuthTestServer, token_endpoint: str, *, uid: int | None) -> None:
    """The measured attack's entries: the server's login, an expired token with a refresh token,
    and a token endpoint of the attacker's."""
    resource = server.url
    plant(
        directory, server_key(canonical_resource(server.url)), {"resource": resource, "issuer": server.issuer}, uid=uid
    )
    record = {
        "access_token": "planted",
        "token_type": "Bearer",
        "refresh_token": "planted-refresh",
        "expires_at": time.time() - 3600,
        "obtained_at": time.time() - 7200,
        "scope": "",
        "issuer": server.issuer,
        "resource": resource,
        "token_endpoint": token_endpoint,
        "client_id": "svc",
        "client_auth_method": "client_secret_basic",
    }
    plant(directory, token_key(resource, server.issuer), record, uid=uid)


def test_a_loose_directory_with_a_planted_token_endpoint_gets_no_secret(tmp_path: Path) -> None:
    """The measured attack: the store directory pre-created 0777, another user plants an expired
    token whose record names their own token endpoint; a ``ClientCredentials`` connect used to POST
    ``svc:s`` there (HTTP Basic). Now the store is refused, and the planted endpoint hears nothing."""
    directory = tmp_path / "auth"
    directory.mkdir()
    directory.chmod(0o777)
    with OAuthTestServer(clients={"svc": {"secret": "s"}}) as server, served(PlantedEndpoint()) as planted:
        plant_expired_token(directory, server, planted.url, uid=OTHER_UID)
        auth = ClientCredentials("svc", "s", store=FileTokenStore(directory))
        with pytest.raises(TokenStoreError, match="others can write in it") as caught:
            mcpsync.connect(server.url, auth=auth, timeout=T)
        assert caught.value.path == str(directory)
        assert planted.seen == []
        assert server.requests_to("/token") == []


def test_a_stored_token_endpoint_is_never_trusted_over_the_authorization_servers_metadata(tmp_path, caplog) -> None:
    """Even in a store that passes every check (a record written by an older version, or by anyone
    who could write there once), a record's ``token_endpoint`` is a cache, not an authority: the
    refresh goes to the token endpoint the authorization server's own metadata names."""
    directory = tmp_path / "auth"
    directory.mkdir(mode=0o700)
    caplog.set_level(logging.WARNING, "mcpsync")
    with OAuthTestServer(clients={"svc": {"secret": "s"}}) as server, served(PlantedEndpoint()) as planted:
        plant_expired_token(directory, server, planted.url, uid=None)
        auth = ClientCredentials("svc", "s", store=FileTokenStore(directory))
        with mcpsync.connect(server.url, auth=auth, timeout=T) as client:
            assert client.call_tool("echo", {"text": "x"}, timeout=T).text == "x"
        assert planted.seen == []
        forms = [r["form"] for r in server.requests_to("/token")]
        assert forms[0]["grant_type"] == "refresh_token" and forms[0]["refresh_token"] == "planted-refresh"
        assert forms[-1]["grant_type"] == "client_credentials"
    assert any(planted.url in r.getMessage() and "metadata" in r.getMessage() for r in caplog.records)


def test_a_store_path_that_is_a_symbolic_link_is_refused(tmp_path: Path) -> None:
    """A symbolic link planted at the store path (to a directory that passes every check) is never
    followed: loading, saving, listing and deleting are refused, and nothing is written behind it."""
    target = tmp_path / "elsewhere"
    target.mkdir(mode=0o700)
    link = tmp_path / "auth"
    link.symlink_to(target)
    store = FileTokenStore(link)
    for attempt in (
        lambda: store.save("k", {"v": 1}),
        lambda: store.load("k"),
        lambda: store.keys(),
        lambda: store.delete("k"),
    ):
        with pytest.raises(TokenStoreError, match="symbolic link"):
            attempt()
    assert list(target.iterdir()) == []


def test_an_entry_that_is_a_symbolic_link_is_refused_and_a_save_replaces_the_link(tmp_path: Path) -> None:
    """An entry that is a symbolic link (to a file that would pass as an entry) is not read; a save
    puts a file of its own in the link's place and never writes through it."""
    directory = tmp_path / "auth"
    directory.mkdir(mode=0o700)
    outside = plant(tmp_path, "k", {"planted": True})
    entry = directory / outside.name
    entry.symlink_to(outside)
    store = FileTokenStore(directory)
    with pytest.raises(TokenStoreError, match="symbolic link"):
        store.load("k")
    assert store.keys() == []
    store.save("k", {"ours": True})
    assert not entry.is_symlink() and store.load("k") == {"ours": True}
    assert json.loads(outside.read_text())["value"] == {"planted": True}


def test_a_directory_or_an_entry_of_another_owner_is_refused(tmp_path: Path) -> None:
    """A store directory another user owns is refused whatever its mode; in the user's own
    directory, an entry another user owns is refused (it names that owner) and left out of ``keys``."""
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o700)
    os.chown(theirs, OTHER_UID, -1)
    with pytest.raises(TokenStoreError, match=f"belongs to uid {OTHER_UID}"):
        FileTokenStore(theirs).load("k")
    with pytest.raises(TokenStoreError, match=f"belongs to uid {OTHER_UID}"):
        FileTokenStore(theirs).save("k", {})
    ours = tmp_path / "ours"
    ours.mkdir(mode=0o700)
    plant(ours, "k", {"planted": True}, uid=OTHER_UID)
    store = FileTokenStore(ours)
    with pytest.raises(TokenStoreError, match=f"belongs to uid {OTHER_UID}"):
        store.load("k")
    assert store.keys() == []


@pytest.mark.parametrize("mode", [0o750, 0o755, 0o705])
def test_a_directory_of_ours_that_others_can_read_is_tightened(tmp_path: Path, mode: int, caplog) -> None:
    """Group or others may list the entry names of a 0750 / 0755 directory (hashes of the servers
    logged in to) though not read the 0600 entries: a directory of the user's is made 0700, said in
    a warning; its entries, and one of them that others could read, stay usable (made 0600)."""
    directory = tmp_path / "auth"
    directory.mkdir()
    FileTokenStore(directory).save("k", {"v": 1})
    directory.chmod(mode)
    entry = next(directory.iterdir())
    entry.chmod(0o644)
    assert FileTokenStore(directory).load("k") == {"v": 1}
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert stat.S_IMODE(entry.stat().st_mode) == 0o600
    assert any("made 0700" in r.getMessage() for r in caplog.records)


def test_what_a_crash_leaves_is_never_read_and_a_record_cut_short_breaks_nothing(tmp_path: Path) -> None:
    """A crash mid-save leaves a ``.tmp-`` file; an entry written by something that is not atomic
    may be cut short; a record may lack its fields. None is read as a token: ``keys`` and ``load``
    pass over them, the login's status is none, a logout works, and a new save takes their place."""
    directory = tmp_path / "auth"
    directory.mkdir(mode=0o700)
    (directory / ".tmp-0123456789abcdef.json").write_text('{"key": "token x", "value": {"access_tok')
    url = "https://mcp.example/mcp"
    whole = json.dumps({"key": token_key(url, "https://as.example"), "value": {"access_token": "t"}})
    plant(directory, server_key(url), {"resource": url, "issuer": "https://as.example"})
    cut = directory / (hashlib.sha256(token_key(url, "https://as.example").encode()).hexdigest()[:32] + ".json")
    cut.write_text(whole[: len(whole) // 2])
    store = FileTokenStore(directory)
    assert store.load(token_key(url, "https://as.example")) is None
    assert store.keys() == [server_key(url)]
    cut.write_text(whole)  # a record without its resource, issuer or endpoint
    server = mcpsync.OAuth(store=store, interactive=False).for_server(url, "x")
    assert server.status() is None
    assert server.logout() is False
    store.save("k", {"v": 1})
    assert store.load("k") == {"v": 1}


def test_mcpsync_auth_says_a_store_was_refused_and_why(tmp_path: Path) -> None:
    """``mcpsync auth`` with the default store's directory writable by others: not "no stored
    logins", but the refusal, the directory, the reason, and a failing exit status."""
    directory = tmp_path / "data" / "mcpsync" / "auth"
    directory.mkdir(parents=True)
    directory.chmod(0o777)
    out = run(tmp_path, "auth", trust=False)
    assert out.returncode == 1, out.stdout
    assert f"the token store {directory} is refused: others can write in it (mode 0777)" in out.stderr


def test_two_processes_writing_at_once_lose_no_entry_and_leave_no_temporary_file(tmp_path: Path) -> None:
    """Two processes each save 400 entries into one store at the same time (the store directory
    made by whichever comes first): all 800 are there, whole, and no ``.tmp-`` file is left."""
    import subprocess
    import sys

    directory = tmp_path / "auth"
    code = (
        "import sys\nfrom mcpsync import FileTokenStore\n"
        "store = FileTokenStore(sys.argv[1])\n"
        "for n in range(400):\n    store.save(f'{sys.argv[2]} {n}', {'n': n, 'pad': 'x' * 2000})\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(mcpsync.__file__).parents[1])}
    writers = [
        subprocess.Popen([sys.executable, "-c", code, str(directory), name], env=env, stderr=subprocess.PIPE)
        for name in ("a", "b")
    ]
    for writer in writers:
        _, err = writer.communicate(timeout=60)
        assert writer.returncode == 0, err
    store = FileTokenStore(directory)
    keys = store.keys()
    assert len(keys) == 800
    assert store.load("a 399") == {"n": 399, "pad": "x" * 2000} and store.load("b 0") == {"n": 0, "pad": "x" * 2000}
    assert not [p for p in directory.iterdir() if p.name.startswith(".tmp-")]
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700


def test_an_entry_that_is_not_utf8_or_not_json_is_absent(tmp_path: Path) -> None:
    """An entry of bytes that are not UTF-8, or not JSON, or not the entry of its key, counts as absent."""
    directory = tmp_path / "auth"
    store = FileTokenStore(directory)
    store.save("k", {"v": 1})
    (entry,) = directory.iterdir()
    for garbage in (b"\xff\xfe{", b"not json", json.dumps({"key": "other", "value": {}}).encode()):
        entry.write_bytes(garbage)
        assert store.load("k") is None


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o775, 0o720, 0o702, 0o1777, 0o730, 0o703], ids=lambda m: f"{m:04o}")
def test_a_directory_its_group_or_anyone_can_write_in_is_refused(tmp_path: Path, mode: int) -> None:
    """Attack: the store's directory writable by its group or by everyone (with or without the sticky
    bit, which stops a removal but not a new entry), and an entry planted in it (a mutant that refused
    only 0777 passed every other test). Promise: the store is refused, saying the mode, and the planted
    entry is never read."""
    directory = tmp_path / "auth"
    directory.mkdir()
    plant(directory, "k", {"planted": True})
    directory.chmod(mode)
    store = FileTokenStore(directory)
    with pytest.raises(TokenStoreError, match=f"others can write in it \\(mode {mode:04o}\\)"):
        store.load("k")
    assert stat.S_IMODE(directory.stat().st_mode) == mode, "a refused directory is left as it was"


@pytest.mark.parametrize("mode", [0o755, 0o750, 0o711, 0o704], ids=lambda m: f"{m:04o}")
def test_a_directory_others_can_only_read_is_made_yours_alone_and_used(tmp_path: Path, mode: int) -> None:
    """A directory others can read or enter but not write in: nothing could have been planted, so it
    is used, and made 0700 (entries are 0600 either way)."""
    directory = tmp_path / "auth"
    directory.mkdir()
    plant(directory, "k", {"mine": True})
    directory.chmod(mode)
    assert FileTokenStore(directory).load("k") == {"mine": True}
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
