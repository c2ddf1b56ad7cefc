"""Fixtures of the authorization tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.helpers import LocalService, served


@pytest.fixture
def local_service() -> Iterator[LocalService]:
    """A service of the user's on 127.0.0.1 (or another origin there): it answers anything, and
    records it in ``seen``."""
    with served(LocalService()) as service:
        yield service
