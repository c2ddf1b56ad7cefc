"""mcpsync's OAuth against oidc-provider, a certified OpenID provider from the npm registry.

tests/interop/node/oidc_provider_server.mjs runs it on 127.0.0.1 as the
authorization server of an MCP server (``tests.oauth_server``, taking its
JWT access tokens by its JWKS). What it checks is its own code, not ours:
OpenID discovery, dynamic registration of a native client, PKCE, resource
indicators, ``iss`` in the redirect (RFC 9207), DPoP with the nonces it
requires (RFC 9449), client authentication and the client credentials grant.
``make test`` installs it (``npm ci`` in tests/interop/node); without Node the
tests are skipped, saying so.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urljoin

import pytest
import requests

import mcpsync
from tests.interop.official import free_port, stop
from tests.oauth_server import OAuthTestServer

NODE_DIR = Path(__file__).with_name("node")
SCRIPT = NODE_DIR / "oidc_provider_server.mjs"
T = 30

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None or not (NODE_DIR / "node_modules" / "oidc-provider").is_dir(),
    reason="oidc-provider is not installed (make test runs npm ci in tests/interop/node; it needs Node 20+)",
)


class Peers:
    """oidc-provider (the authorization server) and the MCP server that takes its tokens."""

    def __init__(self, issuer: str, mcp: OAuthTestServer) -> None:
        self.issuer = issuer
        self.mcp = mcp

    def browse(self, url: str) -> str:
        """The person's browser: follow the provider's redirects (with its cookies) until they leave it."""
        session = requests.Session()
        for _ in range(10):
            response = session.get(url, allow_redirects=False, timeout=10)
            location = response.headers.get("Location")
            assert location, f"{response.status_code} from {url}: {response.text[:300]}"
            url = urljoin(url, location)
            if not url.startswith(self.issuer):
                session.close()
                return url
        raise AssertionError("the provider kept redirecting")


@pytest.fixture
def peers(tmp_path: Path) -> Iterator[Peers]:
    port = free_port()
    issuer = f"http://127.0.0.1:{port}"
    with OAuthTestServer(external_issuer=issuer, external_jwks=issuer + "/jwks") as mcp:
        log = tmp_path / "oidc-provider.log"
        with open(log, "wb") as stderr:
            process = subprocess.Popen(
                ["node", str(SCRIPT), str(port), mcp.url], cwd=NODE_DIR, stdout=subprocess.DEVNULL, stderr=stderr
            )
        try:
            deadline = time.monotonic() + T
            while True:
                try:
                    requests.get(issuer + "/.well-known/openid-configuration", timeout=2).raise_for_status()
                    break
                except requests.RequestException:
                    if process.poll() is not None or time.monotonic() > deadline:
                        pytest.fail(f"oidc-provider did not start:\n{log.read_text()}")
                    time.sleep(0.1)
            yield Peers(issuer, mcp)
        finally:
            stop(process, 5)


def test_a_login_at_oidc_provider_with_dpop_and_its_nonces(peers: Peers) -> None:
    store = mcpsync.MemoryTokenStore()
    auth = mcpsync.OAuth(on_authorize=peers.browse, store=store)
    with mcpsync.connect(peers.mcp.url, auth=auth, timeout=T) as client:
        assert client.call_tool("echo", {"text": "certified"}, timeout=T).text == "certified"
        login = client.transport.authorizer.status()
    assert login["issuer"] == peers.issuer and "read" in login["scopes"]
    (key,) = [k for k in store.keys() if k.startswith("token ")]
    token = store.load(key)
    assert token is not None and token["token_type"].lower() == "dpop" and token["dpop_key"]
    at_resource = [p for p in peers.mcp.dpop_proofs if p["where"] == "resource"]
    assert at_resource and all(p["claims"]["htu"] == peers.mcp.url and "ath" in p["claims"] for p in at_resource)


def test_the_client_credentials_grant_at_oidc_provider_with_dpop(peers: Peers) -> None:
    auth = mcpsync.ClientCredentials("svc", "svc-secret", scopes="read")
    with mcpsync.connect(peers.mcp.url, auth=auth, timeout=T) as client:
        assert client.call_tool("echo", {"text": "m2m"}, timeout=T).text == "m2m"
        login = client.transport.authorizer.status()
    assert login["issuer"] == peers.issuer and login["scopes"] == ["read"]


def test_a_wrong_client_secret_is_refused_by_oidc_provider_and_said_so(peers: Peers) -> None:
    with pytest.raises(mcpsync.AuthorizationError) as info:
        mcpsync.connect(peers.mcp.url, auth=mcpsync.ClientCredentials("svc", "not-it"), timeout=T)
    assert info.value.error == "invalid_client" and "not-it" not in str(info.value)
