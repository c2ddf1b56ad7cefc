"""The server's requests to the client: who answers them, and what the client declares it answers.

MCP lets a server ask its client things: ``ping``, ``roots/list``,
``sampling/createMessage``, ``elicitation/create``, or any method the user
gives a handler for. ``ServerRequests`` holds those handlers, derives the
client capabilities they stand for (the spec: no capability, no requests),
remembers which of its requests the server cancelled, and sends the answers.

Thread rules (DESIGN.md): the transport's reader thread only answers ``ping``
and queues the rest; user handlers run on the client's dispatch thread.
Answers go out through the client's ``Channel``.
"""

from __future__ import annotations

import collections
import logging
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, Callable, Optional, Union

from .._core import jsonrpc
from .._core.errors import ConfigurationError, MCPError, NotSupportedError, ProtocolError, ServerError
from .._core.feature_errors import HandlerResultError
from .._core.jsonrpc import Message
from .channel import Channel
from .dispatch import Dispatcher
from .handler_results import checked_answer, handler_name

__all__ = ["ELICITATION_MODES", "RequestHandler", "Roots", "ServerRequests", "declared_capabilities"]

logger = logging.getLogger("mcpsync.client")

RequestHandler = Callable[[Optional[dict[str, Any]]], dict[str, Any]]
#: Roots offered to the server: URIs or ``{"uri", "name"}`` dicts, or a callable returning them.
Roots = Union[Sequence[Union[str, Mapping[str, Any]]], Callable[[], Sequence[Any]]]

#: The elicitation modes a client may declare (2025-11-25): a form to fill in, a URL to open.
ELICITATION_MODES = ("form", "url")

#: How many request ids cancelled by the server we remember (the oldest are forgotten first).
_CANCELLED_KEPT = 1024


#: The ``Client`` argument that handles each kind of input a server may ask for.
_HANDLER_ARGUMENTS = {
    "elicitation/create": "elicitation=",
    "sampling/createMessage": "sampling=",
    "roots/list": "roots=",
}


def declared_capabilities(
    capabilities: Optional[Mapping[str, Any]],
    *,
    roots: bool,
    sampling: bool,
    elicitation: bool,
    roots_list_changed: bool = True,
    sampling_tools: bool = False,
    sampling_context: bool = False,
    elicitation_modes: Sequence[str] = ELICITATION_MODES,
) -> dict[str, Any]:
    """The client capabilities to declare: ``capabilities`` as given, and for each handler supplied
    (``roots``, ``sampling``, ``elicitation``) its capability with the sub-capabilities asked for,
    unless ``capabilities`` has that one already (a hand-made entry wins, whole).

    Raises:
        ConfigurationError: a sub-capability for a handler not supplied, or an unknown or empty
            set of elicitation modes.
    """
    modes = (elicitation_modes,) if isinstance(elicitation_modes, str) else tuple(elicitation_modes)
    unknown = [mode for mode in modes if mode not in ELICITATION_MODES]
    if unknown or not modes:
        raise ConfigurationError(
            f"elicitation_modes must name one or both of {', '.join(ELICITATION_MODES)}; got {elicitation_modes!r}"
        )
    orphans = [
        option
        for option, given, handler in (
            ("sampling_tools=True", sampling_tools, sampling),
            ("sampling_context=True", sampling_context, sampling),
            ("roots_list_changed=False", not roots_list_changed, roots),
            ("elicitation_modes=", tuple(modes) != ELICITATION_MODES, elicitation),
        )
        if given and not handler
    ]
    if orphans:
        raise ConfigurationError(f"{', '.join(orphans)} needs its handler (sampling=, roots=, elicitation=)")
    declared = dict(capabilities or {})
    if roots:
        declared.setdefault("roots", {"listChanged": True} if roots_list_changed else {})
    if sampling:
        wanted: dict[str, Any] = {
            name: {} for name, on in (("context", sampling_context), ("tools", sampling_tools)) if on
        }
        declared.setdefault("sampling", wanted)
    if elicitation:
        declared.setdefault("elicitation", {mode: {} for mode in ELICITATION_MODES if mode in modes})
    return declared


class ServerRequests:
    """Answers one server's requests for its ``Client``, with the handlers the user supplied.

    Args:
        channel: the client's channel; answers go out through its ``respond``.
        dispatcher: the client's dispatch thread, where handlers run.
        capabilities: the client capabilities the user passed; a copy gets
            ``roots``, ``sampling`` and ``elicitation`` added for the handlers given
            (``declared_capabilities``).
        request_handlers, roots, sampling, elicitation: as for ``Client``.
        sub_capabilities: ``roots_list_changed``, ``sampling_tools``, ``sampling_context``,
            ``elicitation_modes``, as for ``Client``.
    """

    def __init__(
        self,
        channel: Channel,
        dispatcher: Dispatcher,
        *,
        capabilities: Optional[Mapping[str, Any]] = None,
        request_handlers: Optional[Mapping[str, RequestHandler]] = None,
        roots: Optional[Roots] = None,
        sampling: Optional[RequestHandler] = None,
        elicitation: Optional[RequestHandler] = None,
        **sub_capabilities: Any,
    ) -> None:
        self._channel = channel
        self._dispatcher = dispatcher
        #: The capabilities to send in ``initialize``.
        self.capabilities = declared_capabilities(
            capabilities,
            roots=roots is not None,
            sampling=sampling is not None,
            elicitation=elicitation is not None,
            **sub_capabilities,
        )
        #: ``{method: fn(params) -> result}``; may be changed at any time.
        self.handlers: dict[str, RequestHandler] = {}
        # What the user supplies is declared, and only that (the spec: no capability, no requests).
        self._roots = roots
        if roots is not None:
            self.handlers["roots/list"] = self._list_roots
        if sampling is not None:
            self.handlers["sampling/createMessage"] = sampling
        if elicitation is not None:
            self.handlers["elicitation/create"] = elicitation
        self.handlers.update(request_handlers or {})
        self._cancelled_by_server: collections.OrderedDict[Any, None] = collections.OrderedDict()

    @property
    def name(self) -> str:
        """The server's name as configured (logs)."""
        return self._channel.transport.name

    def set_roots(self, roots: Roots) -> None:
        """Replace the roots offered to the server (telling the server is the client's part).

        Raises:
            ProtocolError: the client was made without ``roots=``, so declared no roots capability.
        """
        if self._roots is None:
            raise ProtocolError(f"{self.name}: the client declared no roots capability; pass roots= to Client")
        self._roots = roots

    def _list_roots(self, params: Optional[dict[str, Any]]) -> dict[str, Any]:
        roots = self._roots() if callable(self._roots) else self._roots
        return {"roots": [{"uri": root} if isinstance(root, str) else dict(root) for root in roots or ()]}

    def answer_input_request(self, method: str, params: Optional[dict[str, Any]]) -> dict[str, Any]:
        """Answer one of a modern server's input requests (an ``input_required`` result's), on the caller's thread.

        Raises:
            NotSupportedError: no handler for ``method`` (the text says which argument gives one).
            HandlerResultError: the handler's answer is not what the schema allows for ``method``
                (also a ``TypeError``); nothing is sent. What the handler raises, as it is.
        """
        handler = self.handlers.get(method)
        if handler is None:
            argument = _HANDLER_ARGUMENTS.get(method, "request_handlers=")
            raise NotSupportedError(
                f"{self.name}: the server wants input by {method}, and this client has no handler for it; "
                f"pass {argument} to Client"
            )
        return checked_answer(method, handler(params), self._handler_name(method, handler))

    def _handler_name(self, method: str, handler: RequestHandler) -> str:
        # The roots= list is answered by a method of ours: name the argument the user gave.
        return "roots=" if handler == self._list_roots else handler_name(handler)

    def cancelled(self, request_id: Any) -> None:
        """Reader thread: the server withdrew its request ``request_id``; its handler's answer is not sent.

        Noted at once, not queued, so that it is known before the handler answers.
        """
        self._cancelled_by_server[request_id] = None
        while len(self._cancelled_by_server) > _CANCELLED_KEPT:
            self._cancelled_by_server.popitem(last=False)

    def on_request(self, message: Message) -> None:
        """Reader thread: take a request from the server (the transport's ``on_request``)."""
        # A ping is answered here, at once: no user code runs and a busy
        # dispatch thread must not make the server think we died.
        if message["method"] == "ping":
            self._reply(message["id"], {})
            return
        self._dispatcher.submit(self._run_handler, message)

    def _run_handler(self, message: Message) -> None:
        method = message["method"]
        handler = self.handlers.get(method)
        if handler is None:
            self._reply(
                message["id"], error=ServerError(jsonrpc.ErrorCode.METHOD_NOT_FOUND, f"Method not found: {method}")
            )
            return
        failed = ServerError(jsonrpc.ErrorCode.INTERNAL_ERROR, f"the client's {method} handler failed")
        result: Optional[dict[str, Any]] = None
        error: Optional[ServerError] = None
        try:
            result = checked_answer(method, handler(message.get("params")), self._handler_name(method, handler))
        except ServerError as exc:
            result, error = None, exc
        except HandlerResultError as exc:
            self._tell_author(exc)
            what = f"the client's {method} handler returned an answer the schema does not allow: {exc.problem}"
            result, error = None, ServerError(jsonrpc.ErrorCode.INTERNAL_ERROR, what)
        except Exception:
            # The details stay in our log: an exception's text may hold what a server should not see.
            logger.exception("server %r: handler for %r failed", self.name, method)
            result, error = None, failed
        if message["id"] in self._cancelled_by_server:
            # The server withdrew the request: the spec says not to answer it.
            logger.debug("server %r: not answering %r %r: cancelled by the server", self.name, method, message["id"])
            return
        self._reply(message["id"], result, error)

    def _tell_author(self, error: HandlerResultError) -> None:
        """Say on the dispatch thread what the handler got wrong: where its author looks, a warning
        (shown once per handler and method, by Python's default filters), and the log."""
        text = f"server {self.name!r}: {error}; the server was answered with error -32603"
        logger.error("%s", text)
        try:
            warnings.warn(text, RuntimeWarning, stacklevel=2)
        except Warning:  # warnings made errors: the log line and the server's error say it all the same
            pass

    def _reply(
        self, request_id: Any, result: Optional[dict[str, Any]] = None, error: Optional[ServerError] = None
    ) -> None:
        """Answer a server's request; a connection already gone is logged, not raised (nobody waits for it)."""
        try:
            self._channel.respond(request_id, result, error=error)
        except MCPError as exc:
            logger.debug("server %r: could not answer request %r: %s", self.name, request_id, exc)
