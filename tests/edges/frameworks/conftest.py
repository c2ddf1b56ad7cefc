"""What the agent framework tests share: the bundled test server reached over stdio, over Streamable
HTTP and through a Manager of two servers (``target``), a server whose tool draws an image, and the
bounded waits the matrix needs (a request on the wire, the server's list of cancelled requests)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest

import mcpsync
from mcpsync import ToolBox
from mcpsync.testing import server_command
from tests.helpers import ctrl_c_after, in_flight, scripted_server, wait_for
from tests.http_server import server_target

#: Every call's timeout, and every wait's bound, in seconds.
T = 20
#: How the bundled server is reached: one client over stdio, one over Streamable HTTP, a Manager of two.
KINDS = ("stdio", "http", "manager")
#: The 1x1 PNG the drawing server answers with.
PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


@dataclass
class Target:
    """A box on the bundled test server, and how to name its tools and watch its client."""

    kind: str
    box: ToolBox
    client: mcpsync.Client  # the client of the tools named by ``name`` (a Manager's server "one")
    prefix: str = ""

    def name(self, tool: str) -> str:
        """The name the box offers the server's ``tool`` under (``one__echo`` in a Manager)."""
        return self.prefix + tool

    def cancelled_on_server(self, expected: int = 1) -> list[Any]:
        """The request ids the server saw cancelled, once it has seen ``expected`` (bounded wait)."""
        seen: list[Any] = []

        def enough() -> bool:
            result = self.box.call(self.name("cancelled_requests"), {}, timeout=T)
            seen[:] = result.structured_content["cancelled"]
            return len(seen) >= expected

        wait_for(enough, T)
        return seen

    async def until_in_flight(self) -> None:
        """Wait (bounded, without blocking the loop) until the client has a ``tools/call`` out."""
        deadline = time.monotonic() + T
        out = in_flight(self.client)
        while not out():
            assert time.monotonic() < deadline, "the call never went out"
            await asyncio.sleep(0.01)


@contextmanager
def target_of(kind: str, *options: str, timeout: float = T) -> Iterator[Target]:
    """The bundled server (with ``options``) reached as ``kind`` (one of ``KINDS``), its box's calls
    bounded by ``timeout``."""
    if kind == "manager":
        command, *args = server_command(*options)
        entry = {"command": command, "args": args}
        with mcpsync.Manager({"mcpServers": {"one": entry, "two": entry}}) as manager:
            assert manager.wait_until_ready(timeout=T)
            yield Target(kind, ToolBox(manager, timeout=timeout), manager.client("one"), "one__")
        return
    with server_target(kind, *options) as where, mcpsync.connect(where, timeout=T) as client:
        yield Target(kind, ToolBox(client, timeout=timeout), client)


@pytest.fixture(scope="module", params=KINDS)
def target(request: pytest.FixtureRequest) -> Iterator[Target]:
    """The bundled server over each of ``KINDS``, shared by a module's tests."""
    with target_of(request.param) as made:
        yield made


@contextmanager
def drawing_box(only_image: bool = False) -> Iterator[ToolBox]:
    """A box on a server whose one tool, ``draw``, answers with a text, an image, a resource link and
    structured content (``only_image``: with the image alone)."""
    listing = {"tools": [{"name": "draw", "description": "Draws a pixel.", "inputSchema": {"type": "object"}}]}
    image = {"type": "image", "data": PIXEL, "mimeType": "image/png"}
    answer: dict[str, Any] = {
        "content": [
            {"type": "text", "text": "a pixel"},
            image,
            {"type": "resource_link", "uri": "file:///pixel.png", "name": "pixel.png", "mimeType": "image/png"},
        ],
        "structuredContent": {"width": 1, "height": 1},
    }
    if only_image:
        answer = {"content": [image]}
    with mcpsync.connect(scripted_server({"tools/list": [listing], "tools/call": [answer]}), timeout=T) as client:
        yield ToolBox(client, timeout=T)


def check_a_list_change_is_seen_after_refresh(kind: str, names_of: Callable[[ToolBox], set[str]]) -> None:
    """The server adds ``late`` after its first listing: the framework's tools (``names_of(box)``, their
    box names) made before do not have it; after ``box.refresh()`` (repeated until the box offers it),
    they do."""
    with target_of(kind, "--tools-change-after-list") as target:
        late = target.name("late")
        if kind != "manager":  # a Manager may have read the change already, before the box was made
            assert late not in names_of(target.box)
        box = target.box
        assert wait_for(lambda: box.refresh() or late in {tool.name for tool in box.offered()}, T)
        assert late in names_of(box)


def check_ctrl_c_cancels_on_the_server(kind: str, call: Callable[[Target], Any]) -> None:
    """Ctrl-C while ``call(target)`` waits on the main thread for a tool that sleeps: ``KeyboardInterrupt``
    leaves it, and the server sees the call cancelled."""
    # The box's timeout is far longer than the wait here: only the Ctrl-C can have cancelled the call.
    with target_of(kind, timeout=120) as target:
        with ctrl_c_after(0.1, when=in_flight(target.client)):
            call(target)
        interrupted = time.monotonic()
        assert len(target.cancelled_on_server(1)) == 1
        assert time.monotonic() - interrupted < T, "the cancel came from the call's timeout, not from Ctrl-C"
