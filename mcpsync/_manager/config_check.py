"""The configuration schema's exact fast path: ``plainly_valid``.

``config_files`` checks each file, entry and server against ``mcp-config.schema.json`` with
jsonschema, whose import costs 0.1 s, and 1.05 s where ``rfc3987-syntax`` is installed (Jupyter's
``jupyter-events`` brings it: jsonschema's format module builds its grammar at import): a cost every
``mcpsync`` command and every ``Manager`` paid on the files it read, measured with
``python -X importtime -c "import jsonschema"``. ``plainly_valid`` says yes only to what the schema
plainly accepts, in the schema's own terms (the members it describes, their JSON types, the
requirements of each ``type``); anything else, a refusal included, goes to jsonschema, which finds
the error and words it. It never accepts what the schema refuses (tests/manager/test_config_check.py
checks that on generated configurations), so the checks' outcome is the same without it.
"""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["plainly_valid"]

#: ``type`` values of a server entry.
_TYPES = frozenset({"stdio", "http", "sse", "streamableHttp", "streamable-http"})
_STDERR_MODES = frozenset({"inherit", "log", "quiet"})
_PATTERN_LISTS = ("includeTools", "excludeTools", "disabledTools", "enabled_tools", "disabled_tools")
#: The members that name where a server is: one of them at most.
_TARGETS = ("command", "url", "httpUrl", "serverUrl")


def plainly_valid(part: str, instance: Any) -> bool:
    """Whether the schema's ``part`` (``"file"``, ``"entry"``, ``"server"``) plainly accepts
    ``instance``; ``False`` means "ask jsonschema", not "invalid"."""
    if type(instance) is not dict:
        return False
    if part == "file":
        return _file(instance)
    if part == "entry":
        return _entry(instance)
    return part == "server" and _server(instance)


def _file(data: dict[str, Any]) -> bool:
    if ("mcpServers" in data) == ("servers" in data):
        return False
    servers = data.get("mcpServers", data.get("servers"))
    disabled = data.get("disabledServers", [])
    return type(servers) is dict and _strings(disabled) and type(data.get("inputs", [])) is list


def _entry(entry: dict[str, Any]) -> bool:
    for key in ("enabled", "disabled"):
        if key in entry and type(entry[key]) is not bool:
            return False
    return all(key not in entry or _patterns(entry[key]) for key in _PATTERN_LISTS)


def _server(entry: dict[str, Any]) -> bool:
    given = [key for key in _TARGETS if key in entry]
    if len(given) > 1:
        return False
    kind = entry.get("type")
    if "type" in entry:
        if type(kind) is not str or kind not in _TYPES:
            return False
        needs = ("command",) if kind == "stdio" else ("url", "serverUrl") if kind == "sse" else _TARGETS[1:]
        if not any(key in entry for key in needs):
            return False
    elif not given:
        return False
    return all(key not in entry or check(entry[key]) for key, check in _MEMBERS.items())


def _strings(value: Any) -> bool:
    return type(value) is list and all(type(item) is str for item in value)


def _patterns(value: Any) -> bool:
    return type(value) is list and all(type(item) is str and len(item) >= 1 for item in value)


def _string_map(value: Any) -> bool:
    return type(value) is dict and all(type(item) is str for item in value.values())


def _positive_number(value: Any) -> bool:
    return type(value) in (int, float) and value > 0


def _string(value: Any) -> bool:
    return type(value) is str


def _command(value: Any) -> bool:
    return type(value) is str and len(value) >= 1


def _stderr(value: Any) -> bool:
    return type(value) is str and value in _STDERR_MODES


def _boolean(value: Any) -> bool:
    return type(value) is bool


def _positive_integer(value: Any) -> bool:
    return type(value) is int and value > 0


def _object(value: Any) -> bool:
    return type(value) is dict


#: What each member of a switched-on server must plainly be (the schema's ``server`` properties).
_MEMBERS: dict[str, Callable[[Any], bool]] = {
    "command": _command,
    "args": _strings,
    "env": _string_map,
    "headers": _string_map,
    "cwd": _string,
    "url": _string,
    "httpUrl": _string,
    "serverUrl": _string,
    "timeout": _positive_number,
    "connectTimeout": _positive_number,
    "stderr": _stderr,
    "inheritEnv": _boolean,
    "maxMessageSize": _positive_integer,
    "oauth": _object,
}
