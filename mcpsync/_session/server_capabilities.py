"""What each request needs the server to have declared, and what to say when a server lacks it.

The spec: a client must not use a feature the server did not declare (``initialize``'s or
``server/discover``'s ``capabilities``). Yet many servers under-declare: they serve tools while
declaring ``capabilities: {}``. So by default a typed method sends its request whatever was
declared, and a server that answers -32601 to a method it did not declare gets
``CapabilityNotServed`` naming the capability (``not_served``). A client made with
``strict_capabilities=True`` checks before sending (``require``): ``CapabilityNotDeclared``,
and nothing goes out. ``Client.request`` never checks before sending.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable, Optional, TypeVar

from .._core.errors import ServerError
from .._core.feature_errors import CapabilityNotDeclared, CapabilityNotServed

__all__ = ["METHOD_NOT_FOUND", "REQUIRED", "declared", "items_served", "not_served", "require"]

_Item = TypeVar("_Item")

#: JSON-RPC's "method not found".
METHOD_NOT_FOUND = -32601

#: The server capability each method needs: a name, or ``name.sub`` for one that must be ``true``.
REQUIRED: Mapping[str, str] = {
    "tools/list": "tools",
    "tools/call": "tools",
    "resources/list": "resources",
    "resources/templates/list": "resources",
    "resources/read": "resources",
    "resources/subscribe": "resources.subscribe",
    "resources/unsubscribe": "resources.subscribe",
    "prompts/list": "prompts",
    "prompts/get": "prompts",
    "completion/complete": "completions",
    "logging/setLevel": "logging",
}


def declared(capabilities: Mapping[str, Any], method: str) -> bool:
    """Whether the server declared what ``method`` needs (methods not in ``REQUIRED`` need nothing)."""
    needed = REQUIRED.get(method)
    if needed is None:
        return True
    name, _, sub = needed.partition(".")
    entry = capabilities.get(name)
    return isinstance(entry, Mapping) and (not sub or entry.get(sub) is True)


def require(server: str, capabilities: Mapping[str, Any], method: str) -> None:
    """Check the server declared what ``method`` needs (the strict mode, before sending).

    Raises:
        CapabilityNotDeclared: it did not.
    """
    if not declared(capabilities, method):
        raise CapabilityNotDeclared(server, method, REQUIRED[method])


def not_served(server: str, capabilities: Mapping[str, Any], method: str, error: ServerError) -> Optional[ServerError]:
    """The error to raise for the server's answer ``error`` to ``method``: a ``CapabilityNotServed``
    when it is -32601 to a method whose capability the server did not declare; else ``None`` (raise
    ``error`` as it is)."""
    if error.code != METHOD_NOT_FOUND or declared(capabilities, method):
        return None
    return CapabilityNotServed(server, method, REQUIRED[method], error)


def items_served(
    fetch: Callable[[], list[_Item]], capabilities: Mapping[str, Any], method: str, *, strict: bool
) -> list[_Item]:
    """``fetch()``'s listing (``method``), or none for a server that does not serve it: one that did
    not declare its capability is asked anyway unless ``strict``, and a -32601 answer means none."""
    if declared(capabilities, method):
        return fetch()
    if strict:
        return []
    try:
        return fetch()
    except CapabilityNotServed:
        return []
