"""mcpsync._wire.http.urls: the origin of a URL as the redirect and authorization checks compare it.

Found by mutation testing (docs/testing.md): the transport tests reach ``origin`` only through URLs
that it accepts, so its refusals (a backslash, white space, a control character) and where each
character's bound lies went untested.
"""

from __future__ import annotations

import pytest
import urllib3

from mcpsync._wire.http.urls import origin, public_url, same_origin


@pytest.mark.parametrize(
    "url",
    [
        "http://a.test/p\\q",  # a backslash that both parsers read the same way: refused all the same
        "http://a.test/p q",  # a space (0x20, the bound)
        "http://a.test/p\tq",
        "http://a.test/p\x01q",  # a control character
        "http://a.test/p\x7fq",  # DEL
    ],
)
def test_origin_refuses_a_backslash_white_space_or_a_control_character(url):
    """Each such URL is refused with a ValueError that says why, and shares no origin with itself."""
    with pytest.raises(ValueError, match="backslash, white space or a control character"):
        origin(url)
    assert not same_origin(url, url)


@pytest.mark.parametrize("url", ["http://a.test/p!q", "http://a.test/~x", "http://a.test/p%20q"])
def test_origin_accepts_the_printable_characters_next_to_the_bounds(url):
    """``!`` (0x21, just past the space) and ``~`` (0x7E, just before DEL) are ordinary URL characters."""
    assert origin(url) == ("http", "a.test", 80)


@pytest.mark.parametrize(
    "url, connected_to",
    [
        ("http://ex%61mple.test/mcp", "example.test"),  # urllib3 decodes the host; urlsplit keeps "ex%61mple.test"
        ("http://\u4f8b\u3048.test/mcp", "xn--r8jz45g.test"),  # urllib3 connects to the IDNA form
        ("//example.test/mcp", "example.test"),  # no scheme: urlsplit has "", urllib3 None
    ],
)
def test_origin_refuses_a_url_the_http_library_reads_otherwise(url, connected_to):
    """A URL with no backslash, white space or control character that ``urlsplit`` and urllib3 (which
    connects) still read differently: a percent-encoded host, a host outside ASCII, no scheme. Refused
    with the reason, so a redirect to it is never compared by the name urllib3 does not connect to."""
    assert urllib3.util.parse_url(url).host == connected_to  # what the connection would use
    with pytest.raises(ValueError) as refused:
        origin(url)
    assert str(refused.value) == "the HTTP library reads its host differently"
    assert not same_origin(url, url)


def test_an_ipv6_host_is_compared_without_its_brackets():
    """``http://[::1]:8080/`` has the origin ("http", "::1", 8080): the two parsers' readings agree once
    urllib3's brackets are taken off, so a server on IPv6 loopback is not refused."""
    assert origin("http://[::1]:8080/mcp") == ("http", "::1", 8080)
    assert origin("https://[2001:DB8::1]/mcp") == ("https", "2001:db8::1", 443)
    assert same_origin("http://[::1]:8080/mcp", "http://[::1]:8080/other")


@pytest.mark.parametrize(
    "url, shown",
    [
        (
            "https://ada:secret@mcp.test:8443/mcp?token=abc#frag",
            "https://mcp.test:8443/mcp?...",
        ),  # no user, password, query
        ("https://mcp.test/mcp", "https://mcp.test/mcp"),  # no port, no query: nothing added
        ("http://[::1]:8080/mcp?key=1", "http://[::1]:8080/mcp?..."),  # an IPv6 host keeps its brackets
        ("http://[::1/mcp", "(unreadable URL)"),
    ],
)
def test_public_url_shows_no_secret(url, shown):
    """What a log or an error shows of a URL: scheme, host, port and path; a query only as ``?...``."""
    assert public_url(url) == shown
