"""``mcpsync --elicit``: answer a server's elicitation requests by asking the person at the terminal.

The question goes to stderr, the answers come a line each from stdin, so that
the output of the command stays the tool's. Each field of the requested
schema is asked for in turn, its default (``mcpsync.elicitation_defaults``)
shown and taken for an empty line. The end of stdin declines the request:
a pipe that runs dry, or Ctrl-D, never leaves the server waiting.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Optional, TextIO

from ..._session.elicitation import elicitation_defaults

__all__ = ["TerminalElicitation"]

_TRUE = ("true", "yes", "y", "1")
_FALSE = ("false", "no", "n", "0")


class _Declined(Exception):
    """stdin ended: decline the request."""


class TerminalElicitation:
    """An ``elicitation`` handler (``Client(elicitation=...)``) that asks on ``ask`` and reads ``answers``."""

    def __init__(self, answers: TextIO, ask: TextIO) -> None:
        self.answers = answers
        self.ask = ask

    def __call__(self, params: dict[str, Any]) -> dict[str, Any]:
        message = params.get("message")
        self.ask.write(f"the server asks: {message}\n" if message else "the server asks:\n")
        try:
            if params.get("mode") == "url":
                self.ask.write(f"  open {params.get('url')}\n")
                answer = self._line("accept? [y/N] ").strip().lower()
                return {"action": "accept" if answer in _TRUE else "decline"}
            return {"action": "accept", "content": self._form(params.get("requestedSchema") or {})}
        except _Declined:
            self.ask.write("(end of input: declined)\n")
            return {"action": "decline"}

    def _line(self, question: str) -> str:
        self.ask.write(question)
        self.ask.flush()
        line = self.answers.readline()
        if not line:
            raise _Declined
        return line.rstrip("\r\n")

    def _form(self, schema: Mapping[str, Any]) -> dict[str, Any]:
        content = elicitation_defaults(schema)
        properties = schema.get("properties")
        required = schema.get("required") or ()
        for name, spec in (properties if isinstance(properties, Mapping) else {}).items():
            spec = spec if isinstance(spec, Mapping) else {}
            while True:
                text = self._line(self._question(name, spec, name in required, content.get(name)))
                if not text:
                    if name in content or name not in required:
                        break
                    self.ask.write(f"  {name} is required\n")
                    continue
                value = _typed(text, spec)
                if value is None:
                    self.ask.write(f"  expected {spec.get('type')}, not {text!r}\n")
                    continue
                content[name] = value
                break
        return content

    @staticmethod
    def _question(name: str, spec: Mapping[str, Any], required: bool, default: Any) -> str:
        label = spec.get("title") or name
        about = f" ({spec['description']})" if spec.get("description") else ""
        options = spec.get("enum")
        choices = f" [{'/'.join(map(str, options))}]" if isinstance(options, list) else ""
        shown = f" [default: {json.dumps(default, ensure_ascii=False)}]" if default is not None else ""
        star = "" if required else " (optional)"
        return f"  {label}{about}{choices}{star}{shown}: "


def _typed(text: str, spec: Mapping[str, Any]) -> Optional[Any]:
    """``text`` as the field's type (string, number, integer, boolean); ``None`` when it is not one."""
    kind = spec.get("type")
    if kind == "boolean":
        lowered = text.strip().lower()
        return True if lowered in _TRUE else False if lowered in _FALSE else None
    if kind in ("number", "integer"):
        try:
            number = float(text) if kind == "number" else int(text)
        except ValueError:
            return None
        return number
    return text
