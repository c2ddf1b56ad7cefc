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


#: IANA's IPv4 and IPv6 special-purpose address registries (as of 2025): every block not globally
#: reachable, and the ones the registry marks "N/A" that no public server has (6to4 relay, ORCHID).
SPECIAL_PURPOSE_BLOCKS = [
    "0.0.0.0/8",
    "10.0.0.0/8",
    "100.64.0.0/10",
    "127.0.0.0/8",
    "169.254.0.0/16",
    "172.16.0.0/12",
    "192.0.0.0/24",
    "192.0.0.0/29",
    "192.0.0.8/32",
    "192.0.0.170/31",
    "192.0.2.0/24",
    "192.88.99.0/24",
    "192.168.0.0/16",
    "198.18.0.0/15",
    "198.51.100.0/24",
    "203.0.113.0/24",
    "240.0.0.0/4",
    "255.255.255.255/32",
    "::1/128",
    "::/128",
    "64:ff9b:1::/48",
    "100::/64",
    "2001::/23",
    "2001:2::/48",
    "2001:10::/28",
    "2001:db8::/32",
    "3fff::/20",
    "5f00::/16",
    "fc00::/7",
    "fe80::/10",
]


@pytest.mark.parametrize("block", SPECIAL_PURPOSE_BLOCKS)
def test_every_special_purpose_block_is_local_at_its_first_middle_and_last_address(block):
    """Every IANA special-purpose block no public server lives on is local, across the whole block
    (a mutant reading ``is_private`` for ``not is_global`` made 100.64.0.0/10, carrier-grade NAT and
    Tailscale, public; Python 3.11.7's ``is_global`` alone misses 192.0.0.8, the 6to4 relay block and
    the newer IPv6 blocks): so a public server's answers can name none of them."""
    import ipaddress

    network = ipaddress.ip_network(block)
    for address in (network[0], network[network.num_addresses // 2], network[-1]):
        host = f"[{address}]" if address.version == 6 else str(address)
        assert is_local(host), host
        with pytest.raises(AuthorizationError):
            check_url(f"https://{host}/token", "token endpoint", "srv", PUBLIC)


@pytest.mark.parametrize("host", ["100.63.255.255", "100.128.0.0", "8.8.8.8", "[2606:4700::1111]", "192.0.1.1"])
def test_addresses_beside_the_special_blocks_stay_public(host):
    """Just outside a block (100.64.0.0/10's edges, 192.0.0.0/24's neighbour) and ordinary public
    addresses are public: the table does not swallow its neighbours."""
    assert not is_local(host)
