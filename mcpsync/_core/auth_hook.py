"""The seam through which the HTTP wire gets its default auth without importing the layer above it.

``mcpsync`` sets ``default_auth`` to make MCP's ``OAuth`` (``mcpsync._auth``,
imported only when an HTTP transport opens); an HTTP transport given no auth
and no ``Authorization`` header uses what it makes. ``None``: no default.
"""

from __future__ import annotations

from typing import Callable, Optional

from .authorizer import Authorizer

__all__ = ["default_auth"]

default_auth: Optional[Callable[[], Authorizer]] = None
