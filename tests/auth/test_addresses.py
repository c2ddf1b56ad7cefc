"""mcpsync._auth.addresses: which URLs authorization may fetch, checked one rule at a time.

Found by mutation testing (docs/testing.md): the flows' tests reach ``check_url`` with well-formed
URLs, so a host's spellings (trailing dot, brackets, zone, case), the default ports of the
same-origin rule, a user name without a password, a non-http scheme next to a private server, and
the server named on each refusal went untested.
"""

from __future__ import annotations

import pytest

from mcpsync import AuthorizationError
from mcpsync._auth.addresses import check_url, is_local, is_loopback

PUBLIC = "https://mcp.test/mcp"
PRIVATE = "http://127.0.0.1:8000/mcp"


@pytest.mark.parametrize(
    "host", ["localhost.", "127.0.0.1.", "[::1]", "app.localhost", "APP.LOCALHOST", "[::ffff:127.0.0.1]"]
)
def test_loopback_hosts_in_their_other_spellings(host):
    """A trailing dot, IPv6 brackets, a ``*.localhost`` name in any case: each still names this machine."""
    assert is_loopback(host)
    assert is_local(host)


@pytest.mark.parametrize("host", ["printer.local.", "[fe80::1%eth0]", "fe80::1%25eth0", "10.0.0.1."])
def test_local_hosts_in_their_other_spellings(host):
    """A trailing dot, brackets and an IPv6 zone (``%eth0``) do not hide a private or link-local host."""
    assert is_local(host)
    assert not is_loopback(host)


@pytest.mark.parametrize("host", [".example.com", "example.com.", "x.localhost.example.com"])
def test_public_names_stay_public(host):
    """Only a name that ends in ``.localhost`` or ``.local`` is local; a dot at either end changes nothing."""
    assert not is_local(host)


@pytest.mark.parametrize("url", ["http://MCP.TEST:80/token", "HTTP://mcp.test/token", "https://mcp.test:443/token"])
def test_the_servers_own_origin_in_another_spelling_is_its_origin(url):
    """A URL on the server's own origin is trusted however its default port or its case is written: here
    the server is public and on plain http (or https), where another origin's plain http is refused."""
    server = "https://mcp.test/mcp" if url.startswith("https") else "http://mcp.test/mcp"
    assert check_url(url, "token endpoint", "srv", server) == url


def test_another_port_on_a_public_servers_host_is_another_origin():
    """``http://mcp.test:8080`` is not the origin of ``http://mcp.test``: plain http there is refused."""
    with pytest.raises(AuthorizationError, match="must be HTTPS") as caught:
        check_url("http://mcp.test:8080/token", "token endpoint", "srv", "http://mcp.test/mcp")
    assert caught.value.server == "srv"


@pytest.mark.parametrize(
    "url, says",
    [
        ("http://[x/token", "cannot be read"),
        ("ftp://127.0.0.1/token", r"not an http\(s\) URL"),
        ("http:///token", r"not an http\(s\) URL"),
        ("https://ada@127.0.0.1/token", "carries a user name"),
        ("https://ada:pw@127.0.0.1/token", "carries a user name"),
    ],
)
def test_refusals_say_why_and_name_the_server(url, says):
    """Each refusal names the URL's fault and the server it was for; a private server does not relax them."""
    with pytest.raises(AuthorizationError, match=says) as caught:
        check_url(url, "token endpoint", "srv", PRIVATE)
    assert caught.value.server == "srv"
    assert str(caught.value).startswith("srv: the token endpoint ")


@pytest.mark.parametrize(
    "url, server, says",
    [
        # a private server's authorization may use plain http only on loopback or private hosts
        (
            "http://auth.example.com/token",
            PRIVATE,
            r"is not HTTPS \(plain http is allowed only on a loopback or private host\); not used$",
        ),
        # a public server's authorization URLs must be https on public hosts
        (
            "https://127.0.0.1/token",
            PUBLIC,
            r"must be HTTPS on a public host \(or on the server's own origin\); not fetched$",
        ),
    ],
)
def test_the_scheme_and_host_rule_says_why(url, server, says):
    """A URL refused by the scheme-and-host rule gets an error that states the rule and names the server."""
    with pytest.raises(AuthorizationError, match=says) as caught:
        check_url(url, "token endpoint", "srv", server)
    assert caught.value.server == "srv"
