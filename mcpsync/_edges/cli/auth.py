"""``mcpsync login``, ``mcpsync logout`` and ``mcpsync auth``: the logins kept in the token store.

- ``login [SERVER]`` (or ``--url URL``): forget the server's token, then
  connect, which runs the login (the browser opens, or the link is printed
  and the redirected address may be pasted). The token is kept for every
  later run, of the command line and of Python code using ``mcpsync.OAuth()``
  with the default store.
- ``logout [SERVER]``: forget the server's tokens.
- ``auth``: the stored logins: server, issuer, scopes, expiry, whether there
  is a refresh token. Never a token itself. A token store that is refused
  (others can write in its directory, another user owns it, it is a
  symbolic link: docs/authorization.md) is said so, with why and how to put
  it right, and the command fails.
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from typing import Any, Optional, TextIO

from ..._auth import FileTokenStore, OAuth, ServerAuth, TokenStore
from ..._core.errors import AuthorizationRequired, TokenStoreError
from ..._session.connect import connect
from ..._wire.config import HTTPServerConfig
from .args import load_servers, only_server, place_positionals
from .format import table, write_json
from .words import UsageError

__all__ = ["run_auth_command"]


def _server(args: argparse.Namespace) -> HTTPServerConfig:
    config, inline = load_servers(args)
    place_positionals(args, config, inline)
    if args.server is None:
        raise UsageError(f"{args.command} needs SERVER, or --url URL")
    entry = only_server(config, args.server, inline).servers[args.server]
    if not isinstance(entry.config, HTTPServerConfig):
        raise UsageError(f"{args.server!r} is a stdio server: it takes its credentials from its environment")
    if inline is not None and args.name is None:  # "To log in to inline": the URL's host says more
        return dataclasses.replace(entry.config, name=None)
    return entry.config


def _login(args: argparse.Namespace, out: TextIO, store: TokenStore) -> int:
    server = _server(args)
    settings = server.oauth_options
    if settings is None:
        raise UsageError(f"{server.display_name}: its configuration turns OAuth off (oauth.enabled: false)")
    auth = OAuth(store=store, interactive=True, **settings)
    auth.for_server(server.url, server.display_name).logout()
    timeout = args.timeout if args.timeout is not None else server.timeout
    with connect(server, auth=auth, timeout=timeout) as client:
        authorizer = client.transport.authorizer
        login = authorizer.status() if isinstance(authorizer, ServerAuth) else None
    if login is None:
        out.write(f"{server.display_name}: the server asked for no login; nothing kept\n")
        return 0
    out.write(f"{server.display_name}: logged in at {login['issuer']}{_described(login)}\n")
    return 0


def _logout(args: argparse.Namespace, out: TextIO, store: TokenStore) -> int:
    server = _server(args)
    had = OAuth(store=store, interactive=False).for_server(server.url, server.display_name).logout()
    out.write(f"{server.display_name}: {'logged out' if had else 'was not logged in'}\n")
    return 0


def _logins(store: TokenStore) -> list[dict[str, Any]]:
    found = []
    for key in store.keys():
        if not key.startswith("server "):
            continue
        url = key[len("server ") :]
        login = OAuth(store=store, interactive=False).for_server(url, url).status()
        if login is not None:
            found.append({"server": url, **login})
    return found


def _expiry(expires_at: Optional[float]) -> str:
    if not isinstance(expires_at, (int, float)):
        return "no expiry given"
    left = expires_at - time.time()
    if left <= 0:
        return "expired"
    return f"in {left / 60:.0f} min" if left < 7200 else f"in {left / 3600:.0f} h"


def _described(login: dict[str, Any]) -> str:
    scopes = " ".join(login["scopes"])
    return f" (scopes: {scopes or 'none'}; expires {_expiry(login['expires_at'])})"


def _status(args: argparse.Namespace, out: TextIO, store: TokenStore) -> int:
    check = getattr(store, "check", None)
    if check is not None:
        check()  # a refused store is said so, rather than shown as empty
    logins = _logins(store)
    if args.json:
        write_json(logins, out)
        return 0
    if not logins:
        out.write(f"no stored logins (in {getattr(store, 'directory', store)})\n")
        return 0
    rows = [("server", "issuer", "scopes", "expires", "refresh")]
    for item in logins:
        shown = " ".join(item["scopes"]) or "-"
        refresh = "yes" if item["refresh_token"] else "no"
        rows.append((item["server"], str(item["issuer"]), shown, _expiry(item["expires_at"]), refresh))
    table(rows, out, indent="")
    return 0


def run_auth_command(args: argparse.Namespace, out: TextIO, err: TextIO, store: Optional[TokenStore] = None) -> int:
    """Run ``login``, ``logout`` or ``auth`` (see the module docstring); returns the exit status."""
    store = store if store is not None else FileTokenStore()
    try:
        if args.command == "login":
            return _login(args, out, store)
        if args.command == "logout":
            return _logout(args, out, store)
        return _status(args, out, store)
    except (AuthorizationRequired, TokenStoreError) as exc:
        err.write(f"mcpsync: error: {exc}\n")
        return 1
