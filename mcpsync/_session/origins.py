"""Which live client made a result: a result is data, and names its client by a key.

``key_of(client)`` is the key a client's results carry in ``origin.client`` (``models.CallOrigin``);
``client_of(result)`` finds the client again while it lives. Clients are held weakly: a result kept
after its client is gone names nobody, and a key is random, so a result pickled into another process
names no client there either.
"""

from __future__ import annotations

import os
import threading
import weakref
from typing import Any

from .models import CallToolResult

__all__ = ["client_of", "key_of"]

_LOCK = threading.Lock()
_CLIENTS: weakref.WeakValueDictionary[str, Any] = weakref.WeakValueDictionary()
_KEYS: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()


def key_of(client: Any) -> str:
    """The key that names ``client`` in its results' ``origin`` (made on first use)."""
    with _LOCK:
        key = _KEYS.get(client)
        if key is None:
            key = _KEYS[client] = os.urandom(16).hex()  # (not uuid: it imports platform, 1.3 ms)
            _CLIENTS[key] = client
        return key


def client_of(result: CallToolResult) -> Any:
    """The live client that made ``result`` (``None``: no client made it, or it is gone)."""
    return _CLIENTS.get(result.origin.client) if result.origin is not None else None
