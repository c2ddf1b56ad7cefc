"""The one choice of a protocol version (``negotiation.choose_version``) and what a server's
``server/discover`` or ``initialize`` answer settles: pure functions, checked with plain values."""

from __future__ import annotations

import pytest

import mcpsync
from mcpsync import ProtocolError, ServerError, UnsupportedProtocolVersion
from mcpsync._session.negotiation import (
    choose_version,
    from_discover,
    from_initialize,
    listed_versions,
    version_after_refusal,
)

OURS = ("2099-01-01", "2026-07-28")


def refusal(*supported: str) -> ServerError:
    """A -32022 (``UnsupportedProtocolVersionError``) listing ``supported``."""
    return ServerError(-32022, "unsupported protocol version", {"supported": list(supported)})


def test_the_version_sent_goes_again_when_the_server_lists_it():
    """An old instance behind a load balancer refused a version the server lists: the same once more."""
    assert choose_version(["2026-07-28", "2099-01-01"], "2026-07-28", ours=OURS) == "2026-07-28"


def test_a_version_that_may_not_go_again_gives_way_to_the_newest_we_share():
    """Sent once more already (``repeat=False``): the next shared one, never the one sent."""
    assert choose_version(["2026-07-28", "2099-01-01"], "2026-07-28", ours=OURS, repeat=False) == "2099-01-01"
    assert choose_version(["2026-07-28"], "2026-07-28", ours=OURS, repeat=False) is None


def test_our_order_decides_not_the_servers():
    """The server lists its versions oldest first: we still take the newest of ours that it lists."""
    assert choose_version(["2026-07-28", "2099-01-01"], "1999-01-01", ours=OURS) == "2099-01-01"


def test_versions_tried_already_are_not_chosen_and_none_shared_is_none():
    """The probe tried 2099-01-01 before: the other shared one; nothing shared at all: ``None``."""
    assert choose_version(["2099-01-01", "2026-07-28"], "x", ours=OURS, tried={"2099-01-01"}) == "2026-07-28"
    assert choose_version(["2025-11-25"], "2026-07-28", ours=OURS) is None
    assert choose_version([], None) is None


def test_by_default_the_modern_versions_we_speak_are_ours():
    """Without ``ours``: the modern versions mcpsync speaks; a handshake version is never chosen."""
    assert choose_version(["2025-11-25", "2026-07-28"], None) == "2026-07-28"
    assert choose_version(["2025-11-25"], None) is None


def test_a_refusal_mid_session_picks_a_version_once_and_a_second_refusal_is_final():
    """-32022 to a request: the version to send it again with; refused again with the same version,
    ``UnsupportedProtocolVersion`` saying it was retried; refused after a switch: the server's error."""
    assert version_after_refusal(refusal("2026-07-28"), "2026-07-28", "s") == "2026-07-28"
    with pytest.raises(UnsupportedProtocolVersion) as info:
        version_after_refusal(refusal("2026-07-28"), "2026-07-28", "s", resent="2026-07-28")
    assert info.value.retried == ("2026-07-28",)
    error = refusal("2026-07-28")
    with pytest.raises(ServerError) as again:
        version_after_refusal(error, "2099-01-01", "s", resent="2026-07-28")
    assert again.value is error
    with pytest.raises(UnsupportedProtocolVersion):
        version_after_refusal(refusal("1999-01-01"), "2026-07-28", "s")
    assert listed_versions(ServerError(-32022, "x", {"supported": ["a", 3, None]})) == ("a",)


def test_a_discover_answer_settles_the_version_sent_or_one_we_share():
    """The answer lists the version sent: kept; lists another we speak: that one; none: refused."""
    answer = {
        "supportedVersions": ["2026-07-28"],
        "capabilities": {"tools": {}},
        "instructions": "hi",
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "srv", "version": "1"}},
    }
    agreed = from_discover(answer, "2026-07-28")
    assert agreed.version == "2026-07-28" and agreed.supported_versions == ("2026-07-28",)
    assert agreed.server_info.name == "srv" and agreed.capabilities == {"tools": {}} and agreed.instructions == "hi"
    assert from_discover(answer, "2099-01-01").version == "2026-07-28"
    assert from_discover({"supportedVersions": ["2026-07-28"]}, None).server_info.name == ""
    with pytest.raises(UnsupportedProtocolVersion):
        from_discover({"supportedVersions": ["2025-11-25"]}, "2026-07-28")
    with pytest.raises(ProtocolError, match="capabilities"):
        from_discover({"supportedVersions": ["2026-07-28"], "capabilities": []}, "2026-07-28")


def test_an_initialize_answer_must_choose_a_handshake_version():
    """2025-06-18 is one of the handshake's; 2026-07-28 has no handshake and is refused there."""
    agreed = from_initialize({"protocolVersion": "2025-06-18", "serverInfo": {"name": "s", "version": "1"}})
    assert agreed.version == "2025-06-18" and agreed.supported_versions == ()
    with pytest.raises(UnsupportedProtocolVersion):
        from_initialize({"protocolVersion": "2026-07-28", "serverInfo": {"name": "s", "version": "1"}})


def test_the_public_version_constants_say_which_era_each_version_is_of():
    """The old names keep meaning the handshake's versions; the modern ones and all of them are named apart."""
    assert mcpsync.SUPPORTED_PROTOCOL_VERSIONS == mcpsync.HANDSHAKE_PROTOCOL_VERSIONS
    assert mcpsync.LATEST_PROTOCOL_VERSION == mcpsync.HANDSHAKE_PROTOCOL_VERSIONS[0] == "2025-11-25"
    assert mcpsync.MODERN_PROTOCOL_VERSIONS == ("2026-07-28",)
    assert "2026-07-28" not in mcpsync.SUPPORTED_PROTOCOL_VERSIONS
    assert mcpsync.ALL_PROTOCOL_VERSIONS == mcpsync.MODERN_PROTOCOL_VERSIONS + mcpsync.HANDSHAKE_PROTOCOL_VERSIONS
