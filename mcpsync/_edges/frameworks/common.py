"""What every agent framework's integration takes from a ``ToolBox``: the framework imported lazily
(``need``), a tool result read in the pieces frameworks take (text, structured content, images, links),
which failures a model can act on, and the async call that cancels on the server (``acall``).

The tools a framework gets are ``ToolBox.offered()`` and each call goes through ``ToolBox.call``:
one list and one call for every framework, so what a box offers (filters, a tool search, servers
started on first use) is decided in one place.

``acall`` runs the blocking call on a thread of its own, inside a ``CancelScope``; when the awaiting
asyncio task is cancelled, the scope cancels the request: the server is told
(``notifications/cancelled``), the thread ends at once, and ``CancelledError`` goes on up. No thread
outlives its call (no executor is kept), so nothing is left running when the loop closes.
"""

from __future__ import annotations

import asyncio
import base64
import contextvars
import importlib
import json
import logging
import threading
from collections.abc import Iterable, Mapping
from typing import Any, Callable, NamedTuple, Optional, Protocol, TypeVar, Union

from ..._core.errors import AuthorizationError, MCPError, RequestCancelled, TransportError
from ..._core.timeouts import USE_DEFAULT, Timeout
from ..._session.cancel_scope import CancelScope
from ..._session.content import EmbeddedResource, ImageContent, ResourceLink, TextContent
from ..._session.models import CallToolResult, Tool

__all__ = [
    "CANCELLED_REASON",
    "Box",
    "Image",
    "Link",
    "OfferedTool",
    "acall",
    "adapted",
    "arun",
    "content_parts",
    "error_text",
    "image_line",
    "model_can_fix",
    "need",
    "result_images",
    "result_links",
    "result_structured",
    "result_text",
]

logger = logging.getLogger("mcpsync.frameworks")

#: The reason the server is given when the asyncio task awaiting a call is cancelled.
CANCELLED_REASON = "the asyncio task awaiting the call was cancelled"
#: How long a cancelled ``acall`` waits for its thread to see the cancellation (it is told at once).
CANCEL_GRACE = 5.0

T = TypeVar("T")


class OfferedTool(NamedTuple):
    """One tool as a box offers it to a model or an agent framework (``ToolBox.offered``).

    Attributes:
        name: the function name the model sees and ``ToolBox.call`` takes (safe for every API).
        description: the tool's description (``""`` if it has none).
        input_schema: its input JSON Schema, as the server sent it (a dict of its own, a framework may change it).
        tool: the ``Tool`` as listed (its server's own name for it in ``tool.name``).
    """

    name: str
    description: str
    input_schema: dict[str, Any]
    tool: Tool


def content_parts(result: CallToolResult) -> list[Union[str, ImageContent]]:
    """A result's content as text and images: a resource link or a block of another kind as a line that
    says what it was; the structured content as JSON when there is no content block."""
    parts: list[Union[str, ImageContent]] = []
    for block in result.content:
        if isinstance(block, TextContent):
            parts.append(block.text)
        elif isinstance(block, ImageContent):
            parts.append(block)
        elif isinstance(block, ResourceLink):
            parts.append(f"[resource {block.uri}" + (f": {block.name}]" if block.name else "]"))
        elif isinstance(block, EmbeddedResource):
            text = block.resource.text
            parts.append(text if text is not None else f"[resource {block.resource.uri}: binary, left out]")
        else:
            parts.append(f"[{getattr(block, 'type', 'content')} content left out]")
    if not parts and result.has_structured_content:
        parts.append(json.dumps(result.structured_content, ensure_ascii=False))
    return parts


class Box(Protocol):
    """What an integration uses of a ``ToolBox`` (typed here: ``toolbox.box`` cannot be imported, it imports us)."""

    def offered(self) -> list[OfferedTool]: ...

    def call(
        self,
        name: str,
        arguments: Optional[Mapping[str, Any]] = None,
        *,
        timeout: Timeout = USE_DEFAULT,
        meta: Optional[Mapping[str, Any]] = None,
    ) -> CallToolResult: ...

    def refresh(self) -> None: ...


def adapted(framework: str, offered: Iterable[OfferedTool], adapt: Callable[[OfferedTool], T]) -> list[T]:
    """``adapt(tool)`` for each of ``offered``. A tool the framework cannot take (``adapt`` raises: a
    schema the framework's own code refuses, say) is left out with a warning naming it and why, never
    raised: one server's odd tool does not cost an agent every other tool."""
    made: list[T] = []
    for tool in offered:
        try:
            made.append(adapt(tool))
        except Exception as exc:  # the framework's own checks: any of its exceptions
            logger.warning(
                "%s: tool %r left out, the framework refused it: %s: %s", framework, tool.name, type(exc).__name__, exc
            )
    return made


def need(module: str, package: str) -> Any:
    """Import ``module`` of an optional framework, or say which package to install.

    Raises:
        ImportError: the framework is not installed; the message names ``pip install <package>``.
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(
            f"mcpsync's {package} integration needs {package}, which is not installed: pip install {package}"
        ) from exc


class Image(NamedTuple):
    """An image of a tool result: its base64 data and MIME type."""

    base64: str
    mime_type: str

    @property
    def data_url(self) -> str:
        """The image as a ``data:`` URL."""
        return f"data:{self.mime_type};base64,{self.base64}"


class Link(NamedTuple):
    """A resource link of a tool result (``resource_link``)."""

    uri: str
    name: str
    mime_type: Optional[str]
    description: Optional[str]


def result_text(result: CallToolResult) -> str:
    """A result as one text: its text blocks, a line for each image and link, the structured content as
    JSON when there is no content block."""
    return "\n".join(part if isinstance(part, str) else image_line(part) for part in content_parts(result))


def result_structured(result: CallToolResult) -> tuple[bool, Any]:
    """``(whether the result has structured content, the structured content)``: ``null`` is a value."""
    return result.has_structured_content, result.structured_content


def result_images(result: CallToolResult) -> list[Image]:
    """The result's images, in order."""
    return [Image(block.base64_data, block.mime_type) for block in result.content if isinstance(block, ImageContent)]


def result_links(result: CallToolResult) -> list[Link]:
    """The result's resource links, in order."""
    return [
        Link(block.uri, block.name, block.mime_type, block.description)
        for block in result.content
        if isinstance(block, ResourceLink)
    ]


def error_text(result: CallToolResult) -> str:
    """What a failed tool says, for the model (its text, or a line saying it gave none)."""
    return result_text(result) or f"The tool {result.tool_name!r} failed and said nothing about why."


def model_can_fix(exc: BaseException) -> bool:
    """Whether a failed call goes back to the model (a server's refusal of its arguments, a timeout, an
    unknown tool) rather than up to the program (the connection is gone, authorization is needed, the
    program cancelled the call)."""
    return isinstance(exc, MCPError) and not isinstance(exc, (TransportError, AuthorizationError, RequestCancelled))


def image_line(image: ImageContent, note: str = "") -> str:
    """An image as a line of text for a model that gets no image there: its type and size (and ``note``)."""
    size = len(base64.b64decode(image.base64_data, validate=False)) if image.base64_data else 0
    return f"[an image, {image.mime_type}, {size} bytes{': ' + note if note else ''}]"


async def acall(
    box: Box,
    name: str,
    arguments: Optional[Mapping[str, Any]] = None,
    timeout: Timeout = USE_DEFAULT,
    meta: Optional[Mapping[str, Any]] = None,
) -> CallToolResult:
    """``box.call(name, arguments, timeout=timeout, meta=meta)`` awaited: run on a thread of its own, and cancelled
    on the server when the awaiting task is cancelled.

    Raises:
        asyncio.CancelledError: the task was cancelled (the request was cancelled on the server first).
        MCPError: as ``ToolBox.call``.
    """
    given = dict(arguments or {})
    return await arun(lambda: box.call(name, given, timeout=timeout, meta=meta), f"mcpsync-acall {name}")


async def arun(blocking: Callable[[], T], thread_name: str = "mcpsync-arun") -> T:
    """``blocking()`` awaited: run on a thread of its own inside a ``CancelScope``, so that the requests
    it makes are cancelled on the server when the awaiting task is cancelled (``acall`` for one call; a
    box's ``refresh()`` for the frameworks that list the tools on each run).

    Raises:
        asyncio.CancelledError: the task was cancelled (the requests in flight were cancelled first).
        BaseException: what ``blocking`` raised.
    """
    scope = CancelScope()
    loop = asyncio.get_running_loop()
    done: asyncio.Future[T] = loop.create_future()

    def settle(result: Optional[T], error: Optional[BaseException]) -> None:
        if done.done():
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(result)  # type: ignore[arg-type]

    def work() -> None:
        result: Optional[T] = None
        error: Optional[BaseException] = None
        try:
            with scope:
                result = blocking()
        except BaseException as exc:  # handed to the awaiting task, which raises it
            error = exc
        try:
            loop.call_soon_threadsafe(settle, result, error)
        except RuntimeError:  # the loop is closed: nobody awaits the call any more, but a failure is said
            if error is not None:
                logger.warning("%s: its event loop closed before it ended; it failed: %r", thread_name, error)

    # The caller's context goes with the call (its CancelScope, an OpenTelemetry span).
    context = contextvars.copy_context()
    thread = threading.Thread(target=context.run, args=(work,), name=thread_name, daemon=True)
    thread.start()
    try:
        return await asyncio.shield(done)
    except asyncio.CancelledError:
        scope.cancel(CANCELLED_REASON)
        await _settled(done)
        raise
    finally:
        if done.done():  # the thread has handed its outcome over: only its return is left
            thread.join(CANCEL_GRACE)


async def _settled(done: asyncio.Future[Any]) -> None:
    """Wait (bounded) for a cancelled call's thread to end, and take its outcome so none is left unread."""
    try:
        await asyncio.wait([done], timeout=CANCEL_GRACE)
    except asyncio.CancelledError:  # cancelled again: the thread still ends on its own
        pass
    if done.done():
        if not done.cancelled():
            done.exception()
    else:
        done.add_done_callback(lambda future: None if future.cancelled() else future.exception())
