"""What each request needs the server to have declared, checked before the request is sent.

The spec: a client must not use a feature the server did not declare (``initialize``'s or
``server/discover``'s ``capabilities``). A typed method that would break that rule raises
``CapabilityNotDeclared`` naming the server, the method and the capability, and nothing goes out;
``Client.request`` stays unchecked, the escape hatch for a server that serves more than it says.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._core.errors import CapabilityNotDeclared

__all__ = ["REQUIRED", "require"]

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


def require(server: str, capabilities: Mapping[str, Any], method: str) -> None:
    """Check the server declared what ``method`` needs (methods not in ``REQUIRED`` need nothing).

    Raises:
        CapabilityNotDeclared: it did not.
    """
    needed = REQUIRED.get(method)
    if needed is None:
        return
    name, _, sub = needed.partition(".")
    declared = capabilities.get(name)
    if not isinstance(declared, Mapping) or (sub and declared.get(sub) is not True):
        raise CapabilityNotDeclared(server, method, needed)
