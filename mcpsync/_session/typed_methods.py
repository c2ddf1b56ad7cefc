"""The ``Client``'s typed requests of one answer each: ``server/discover``, resources (read,
subscribe), prompts, completions, the skills extension's entries and files, the log level.

``TypedMethods`` is a part of ``Client`` (its base): each method checks what the request needs
(``_require``), sends it with the client's ``request`` and types the answer; a read resource is
served from the client's ``ListCache`` while its ``ttlMs`` says it is fresh.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable, Optional, Union

from .._core.errors import NotSupportedError
from .._core.jsonrpc import LOG_LEVELS
from .._core.timeouts import USE_DEFAULT, Timeout
from .._wire.base import Transport
from . import negotiation
from .cache import DISCOVER_KEY, ListCache
from .channel import Channel
from .era import MODERN, era_of
from .models import Completion, GetPromptResult, ReadResourceResult, Resource
from .paging import with_meta
from .skills import LoadedSkill, Skill, Skills
from .subscriptions import Subscriptions
from .tracebacks import short_interrupts

__all__ = ["TypedMethods"]


class TypedMethods:
    """The typed one-answer requests of a ``Client`` (see the module docstring)."""

    # What they use of their Client.
    transport: Transport
    protocol_version: Optional[str]
    _lists: ListCache
    _channel: Channel
    _skills: Skills
    _subscriptions: Subscriptions
    _log_level: Optional[str]
    request: Callable[..., dict[str, Any]]
    _require: Callable[[str], None]
    _check_open: Callable[[], None]
    _agree: Callable[[negotiation.Agreement], None]
    _ask_for_logs: Callable[[], None]

    @short_interrupts
    def discover(self, *, timeout: Timeout = USE_DEFAULT, cache: bool = True) -> dict[str, Any]:
        """The server's ``server/discover`` answer (2026-07-28): its versions, capabilities, identity and
        instructions, which ``server_info``, ``server_capabilities`` and ``instructions`` are taken from.

        ``cache``: the answer of the connection (or of the last call) is served again while its
        ``ttlMs`` says it is fresh; after that, or with ``cache=False``, the server is asked, and what
        it says now becomes ``server_capabilities`` (and the rest).

        Raises:
            NotSupportedError: a server of the handshake era (its ``initialize`` answer said it all).
        """
        if era_of(self.protocol_version) != MODERN:
            raise NotSupportedError(
                f"{self.transport.name}: server/discover is of the 2026-07-28 revision, and this server speaks "
                f"{self.protocol_version or 'nothing yet'}; its initialize answer is in server_info, "
                "server_capabilities and instructions"
            )
        held = self._lists.fresh(DISCOVER_KEY) if cache else None
        if held is not None:
            return dict(held)
        context = self._lists.context()
        result = self.request("server/discover", timeout=timeout)
        self._agree(negotiation.from_discover(result, self._channel.version))
        self._lists.store(DISCOVER_KEY, result, [result], context=context)
        return result

    @short_interrupts
    def read_resource(
        self,
        uri: str,
        *,
        timeout: Timeout = USE_DEFAULT,
        cache: bool = True,
        meta: Optional[Mapping[str, Any]] = None,
    ) -> ReadResourceResult:
        """Read a resource: ``result.contents`` (text, or binary as ``.data`` bytes), ``result.text``.

        ``cache``: serve the contents read last while the server's ``ttlMs`` says they are fresh
        (2026-07-28; ``resources/updated`` for it, or a resource list change, ends that). A read
        with ``meta`` (the request's ``_meta``) always asks the server and is not kept.

        Raises:
            ServerError: e.g. -32002, the resource does not exist.
        """
        held = self._lists.fresh(uri) if cache and meta is None else None
        if held is not None:
            return held  # type: ignore[no-any-return]
        self._require("resources/read")
        context = self._lists.context()
        raw = self.request("resources/read", with_meta({"uri": uri}, meta), timeout=timeout)
        result = ReadResourceResult.from_dict(raw, uri)
        if meta is None:
            self._lists.store(uri, result, [raw], context=context)
        return result

    @short_interrupts
    def subscribe_resource(
        self, uri: str, *, timeout: Timeout = USE_DEFAULT, meta: Optional[Mapping[str, Any]] = None
    ) -> None:
        """Ask for ``notifications/resources/updated`` when the resource changes (see ``on_notification``).

        In the modern era the resource joins the client's ``subscriptions/listen``, a request shared
        by every subscription, so ``meta`` (the legacy request's ``_meta``) has nothing to go with.
        """
        if era_of(self.protocol_version) == MODERN:
            self._check_open()
            self._subscriptions.subscribe(uri)
            return
        self._require("resources/subscribe")
        self.request("resources/subscribe", with_meta({"uri": uri}, meta), timeout=timeout)

    @short_interrupts
    def unsubscribe_resource(
        self, uri: str, *, timeout: Timeout = USE_DEFAULT, meta: Optional[Mapping[str, Any]] = None
    ) -> None:
        """Stop the updates ``subscribe_resource`` asked for (``meta`` as there)."""
        if era_of(self.protocol_version) == MODERN:
            self._check_open()
            self._subscriptions.unsubscribe(uri)
            return
        self._require("resources/unsubscribe")
        self.request("resources/unsubscribe", with_meta({"uri": uri}, meta), timeout=timeout)

    @short_interrupts
    def get_prompt(
        self,
        name: str,
        arguments: Optional[Mapping[str, str]] = None,
        *,
        timeout: Timeout = USE_DEFAULT,
        meta: Optional[Mapping[str, Any]] = None,
    ) -> GetPromptResult:
        """Get a prompt filled in with ``arguments`` (strings, as the spec has them); ``meta`` is the
        request's ``_meta``.

        Raises:
            TypeError: an argument value is not a string.
            ServerError: e.g. -32602, an unknown prompt or a missing required argument.
        """
        self._require("prompts/get")
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            bad = {key: value for key, value in arguments.items() if not isinstance(value, str)}
            if bad:
                raise TypeError(f"prompt arguments must be strings; not: {bad!r}")
            params["arguments"] = dict(arguments)
        return GetPromptResult.from_dict(self.request("prompts/get", with_meta(params, meta), timeout=timeout), name)

    @short_interrupts
    def complete(
        self,
        ref: Mapping[str, Any],
        argument: Union[Mapping[str, str], tuple[str, str]],
        context: Optional[Mapping[str, str]] = None,
        *,
        timeout: Timeout = USE_DEFAULT,
        meta: Optional[Mapping[str, Any]] = None,
    ) -> Completion:
        """Ask for completions of an argument of a prompt or a resource template.

        Args:
            ref: ``{"type": "ref/prompt", "name": ...}`` or ``{"type": "ref/resource", "uri": <template>}``.
            argument: ``{"name": ..., "value": <typed so far>}``, or the pair ``(name, value)``.
            context: values of other arguments already chosen (sent as ``context.arguments``).
            meta: the request's ``_meta``.
        """
        self._require("completion/complete")
        if isinstance(argument, tuple):
            argument = {"name": argument[0], "value": argument[1]}
        params: dict[str, Any] = {"ref": dict(ref), "argument": dict(argument)}
        if context is not None:
            params["context"] = {"arguments": dict(context)}
        return Completion.from_dict(self.request("completion/complete", with_meta(params, meta), timeout=timeout))

    @short_interrupts
    def get_skill(self, uri: str, *, timeout: Timeout = USE_DEFAULT) -> Skill:
        """One skill's entry (``skills/get``), by its SKILL.md URI; reads none of its files.

        Raises:
            ExtensionNotDeclared: the server does not declare the skills extension.
            ServerError: -32602, the server has no such skill.
        """
        return self._skills.get(uri, timeout=timeout)

    @short_interrupts
    def load_skill(
        self, skill: Union[Skill, str], *, allow_dynamic: bool = False, timeout: Timeout = USE_DEFAULT
    ) -> LoadedSkill:
        """Read a skill's SKILL.md, verify it, and nothing else: ``.text``, ``.frontmatter``, ``.read(path)``.

        ``skill``: an entry this client listed, or a SKILL.md URI (its entry is asked for with
        ``skills/get``). The entry's rules and limits are checked before anything is read; the
        file's size and SHA-256 must be the listed ones, and its YAML frontmatter equal, field by
        field, to the entry's. ``LoadedSkill.read`` reads the other files one by one, each only if
        the entry lists it, verified the same way. A dynamic skill (``resources: "dynamic"``) has
        nothing to verify its files by, and loads only with ``allow_dynamic=True``.

        Raises:
            SkillVerificationError: the entry or its SKILL.md is not what it must be (what was read is
                not used); the message names the skill, the file, and what was expected and got.
            ExtensionNotDeclared: the server does not declare the skills extension.
            ValueError: a ``Skill`` listed by another client (identity is server and URI).
        """
        return self._skills.load(skill, allow_dynamic=allow_dynamic, timeout=timeout)

    @short_interrupts
    def read_directory(
        self, uri: str, *, timeout: Timeout = USE_DEFAULT, max_pages: Optional[int] = None
    ) -> list[Resource]:
        """The direct children of a directory resource (``resources/directory/read`` of the skills
        extension, every page): files as ``Resource`` (``size``, ``mime_type``), subdirectories with
        ``mime_type`` ``"inode/directory"``. Only where the server declares ``directoryRead: true``.
        Nothing is verified here: ``LoadedSkill.list_directory`` lists a skill's directory against its entry.

        Raises:
            ExtensionNotDeclared: the server does not declare the extension or ``directoryRead``
                (the extension forbids sending it then: nothing is sent).
            ServerError: -32602, ``uri`` is no directory the server serves.
            PageLimitExceeded, ProtocolError: as for ``list_tools``.
        """
        found: list[Resource] = []
        for page in self._skills.read_directory(uri, timeout, max_pages):
            for item in page:
                found.append(Resource.from_dict(item, f"resources/directory/read {uri!r} item #{len(found)}"))
        return found

    @short_interrupts
    def set_logging_level(
        self, level: str, *, timeout: Timeout = USE_DEFAULT, meta: Optional[Mapping[str, Any]] = None
    ) -> None:
        """Ask the server to send log messages at ``level`` and above (debug ... emergency).

        They go to the logger ``mcpsync.server.<name>`` and to ``on_log``. On 2026-07-28 every
        request asks for the level in its ``_meta`` (a server of that revision logs to no request
        that does not; a client given ``on_log`` asks for ``info`` until told otherwise), and no
        request of its own is sent; ``meta`` is the ``logging/setLevel`` request's ``_meta``.
        """
        if level not in LOG_LEVELS:
            raise ValueError(f"unknown logging level {level!r}; one of {', '.join(LOG_LEVELS)}")
        if era_of(self.protocol_version) == MODERN and self._channel.meta is not None:
            # The 2026-07-28 revision has no logging/setLevel: each request carries the level it wants.
            self._log_level = level
            self._ask_for_logs()
            return
        self._require("logging/setLevel")
        self.request("logging/setLevel", with_meta({"level": level}, meta), timeout=timeout)
