"""Checking a tool's ``structuredContent`` against the ``outputSchema`` it declared.

The schemas come from ``tools/list``; each is compiled once (with the
``jsonschema`` validator its ``$schema`` asks for, Draft 2020-12 by default)
and kept until the tool list changes.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Mapping
from typing import Any, Optional

from .._core.errors import OutputSchemaError
from .models import CallToolResult, Tool

__all__ = ["OutputSchemas"]

logger = logging.getLogger("mcpsync.client")


class OutputSchemas:
    """The output schemas of one server's tools, and their compiled validators; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._schemas: Optional[dict[str, Optional[Mapping[str, Any]]]] = None  # None: never listed
        self._validators: dict[str, Any] = {}

    @property
    def known(self) -> bool:
        """Whether the tools have been listed since the last change."""
        return self._schemas is not None

    def remember(self, tools: Iterable[Tool]) -> None:
        """Take the schemas of a fresh ``tools/list``."""
        with self._lock:
            self._schemas = {tool.name: tool.output_schema for tool in tools}
            self._validators.clear()

    def forget(self) -> None:
        """The tool list changed: the schemas must be listed again."""
        with self._lock:
            self._schemas = None
            self._validators.clear()

    def _validator(self, name: str) -> Any:
        with self._lock:
            if name in self._validators:
                return self._validators[name]
            declared = (self._schemas or {}).get(name)
        schema = dict(declared) if declared is not None else None
        validator = None
        if schema is not None:
            from jsonschema import SchemaError
            from jsonschema.validators import validator_for

            cls = validator_for(schema)
            try:
                cls.check_schema(schema)
                validator = cls(schema)
            except SchemaError as exc:
                logger.warning("tool %r declares an invalid outputSchema (not checked): %s", name, exc.message)
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
        if result.structured_content is None:
            raise OutputSchemaError(result.tool_name, "it declares one, but sent no structuredContent", result)
        error = next(iter(validator.iter_errors(result.structured_content)), None)
        if error is not None:
            raise OutputSchemaError(result.tool_name, f"{error.message} (at {error.json_path})", result)
