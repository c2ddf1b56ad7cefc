"""Checking a tool's ``structuredContent`` against the ``outputSchema`` it declared.

The schemas come from ``tools/list``; each is compiled once (with the
``jsonschema`` validator its ``$schema`` asks for, Draft 2020-12 by default)
and kept until the tool list changes. References resolve only inside the
schema and to the standard meta-schemas: a server's schema never makes the
client fetch anything.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Mapping
from typing import Any, Optional

from .._core.feature_errors import OutputSchemaError
from .models import CallToolResult, Tool

__all__ = ["OutputSchemas"]

logger = logging.getLogger("mcpsync.client")


#: Not in the table of validators yet (``None`` there means: no schema to check).
_UNKNOWN = object()


class OutputSchemas:
    """The output schemas of one server's tools, and their compiled validators; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._schemas: Optional[dict[str, Optional[Mapping[str, Any]]]] = None  # None: never listed
        self._validators: dict[str, Any] = {}
        #: The names of the tools that declare an ``outputSchema`` (``None``: the tools are not listed
        #: since the last change). Read without the lock: one attribute, replaced whole.
        self.declared: Optional[frozenset[str]] = None

    @property
    def known(self) -> bool:
        """Whether the tools have been listed since the last change."""
        return self._schemas is not None

    def remember(self, tools: Iterable[Tool]) -> None:
        """Take the schemas of a fresh ``tools/list``."""
        with self._lock:
            self._schemas = {tool.name: tool.output_schema for tool in tools}
            self._validators.clear()
            self.declared = frozenset(name for name, schema in self._schemas.items() if schema is not None)

    def forget(self) -> None:
        """The tool list changed: the schemas must be listed again."""
        with self._lock:
            self._schemas = None
            self._validators.clear()
            self.declared = None

    def _validator(self, name: str) -> Any:
        validator = self._validators.get(name, _UNKNOWN)  # one dict read, atomic: the lock only to fill it
        if validator is not _UNKNOWN:
            return validator
        with self._lock:
            if name in self._validators:
                return self._validators[name]
            declared = (self._schemas or {}).get(name)
        schema = dict(declared) if declared is not None else None
        validator = None
        if schema is not None:
            from jsonschema import SchemaError
            from jsonschema.validators import validator_for
            from jsonschema_specifications import REGISTRY as SPECIFICATIONS  # what jsonschema itself knows

            cls = validator_for(schema)  # by its $schema; JSON Schema 2020-12 when it names none
            try:
                cls.check_schema(schema)
                # The registry knows the standard meta-schemas and retrieves nothing: a $ref outside
                # the schema is an error, never a request the server made us send.
                validator = cls(schema, registry=SPECIFICATIONS)
            except SchemaError as exc:
                logger.warning("tool %r declares an invalid outputSchema (not checked): %s", name, exc.message)
            except RecursionError:
                logger.warning("tool %r declares an outputSchema nested too deeply (not checked)", name)
        with self._lock:
            self._validators[name] = validator
        return validator

    def check(self, result: CallToolResult) -> None:
        """Raise ``OutputSchemaError`` if ``result`` breaks its tool's declared ``outputSchema``.

        A tool error (``isError``) is not checked: its content is the error.
        """
        if result.is_error:
            return
        validator = self._validator(result.tool_name)
        if validator is None:
            return
        if not result.has_structured_content:
            raise OutputSchemaError(result.tool_name, "it declares one, but sent no structuredContent", result)
        from referencing.exceptions import Unresolvable

        try:
            error = next(iter(validator.iter_errors(result.structured_content)), None)
        except Unresolvable as exc:
            reason = f"its outputSchema refers to {exc.ref!r}, outside the schema, which is not fetched"
            raise OutputSchemaError(result.tool_name, reason, result) from None
        except RecursionError:
            # jsonschema walks the value recursively: a server's value may nest deeper than the stack.
            raise OutputSchemaError(
                result.tool_name, "structuredContent is nested too deeply to check", result
            ) from None
        if error is not None:
            raise OutputSchemaError(result.tool_name, f"{error.message} (at {error.json_path})", result)
