"""What the protocol eras are, as a client names them: ``protocol=``'s values and the era of a version.

- **legacy** (2025-11-25 and earlier): an ``initialize`` handshake agrees the version once;
- **modern** (2026-07-28): no handshake, every request carries its version (``mcpsync._core.eras``);
- **auto**: find out (negotiation.py probes with ``server/discover`` and falls back to the handshake).
"""

from __future__ import annotations

from typing import Optional

from .._core.eras import MODERN_VERSIONS

__all__ = ["AUTO", "LEGACY", "MODERN", "check_protocol", "era_of"]

AUTO = "auto"
MODERN = "modern"
LEGACY = "legacy"


def check_protocol(protocol: str) -> str:
    """``protocol=`` as given: ``"auto"``, ``"modern"`` (or a modern version), ``"legacy"``."""
    if protocol in (AUTO, MODERN, LEGACY) or protocol in MODERN_VERSIONS:
        return protocol
    raise ValueError(f"protocol must be 'auto', 'modern', 'legacy' or one of {MODERN_VERSIONS}, not {protocol!r}")


def era_of(version: Optional[str]) -> Optional[str]:
    """``"modern"`` or ``"legacy"`` for a negotiated version; ``None`` before one is."""
    if version is None:
        return None
    return MODERN if version in MODERN_VERSIONS else LEGACY
