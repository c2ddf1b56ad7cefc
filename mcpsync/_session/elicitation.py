"""Helpers for answering ``elicitation/create`` (a server asking the user for input)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["elicitation_defaults"]


def elicitation_defaults(requested_schema: Mapping[str, Any]) -> dict[str, Any]:
    """The ``default`` of each property of a form-mode ``requestedSchema`` that declares one.

    A handler can start from these and fill in the rest::

        def elicit(params):
            answers = mcpsync.elicitation_defaults(params["requestedSchema"])
            answers["name"] = input("name? ")
            return {"action": "accept", "content": answers}
    """
    properties = requested_schema.get("properties") if isinstance(requested_schema, Mapping) else None
    if not isinstance(properties, Mapping):
        return {}
    return {
        name: spec["default"] for name, spec in properties.items() if isinstance(spec, Mapping) and "default" in spec
    }
