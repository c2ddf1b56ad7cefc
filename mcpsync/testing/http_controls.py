"""The HTTP test server's fault switches: the state behind its control URLs, each fault striking once.

Faults are switched on with POSTs to control URLs (not MCP). "The next MCP
POST" is the next one to ``/mcp`` or ``/messages``:

    /control/expire-sessions      forget every session: the next request gets 404
    /control/cut-next-stream      the next SSE answer sends its first event, then the
                                  connection is cut; the rest waits for a resumption
    /control/cut-next-event       the next answer is cut in the middle of its message:
                                  half an SSE event (the rest waits for a resumption),
                                  half a JSON body, or, on an HTTP+SSE stream, half of
                                  the next event and the stream ends
    /control/fail-next?status=N   the next MCP POST is answered with status N
                                  (401 comes with WWW-Authenticate and Mcp-Auth-Server)
    /control/reset-next           the next MCP POST is read, then its connection reset (RST)
    /control/delay-next?seconds=S the next MCP POST waits S seconds before anything happens
    /control/cookie-next?value=V  the answer to the next MCP POST sets the cookie V
    /control/redirect-next        the next MCP POST is answered 307, to the same URL
    /control/last-cookie          answers with the Cookie header of the last MCP POST
    /control/gzip-next            the answer to the next MCP POST is gzip-compressed
                                  (a JSON body whole, an event stream flushed per event)
    /control/keepalive-next?interval=S  the next SSE answer sends a ": ping" comment
                                  every S seconds while its answer is not ready
    /control/trickle-next?interval=S  the next answer with a whole body (JSON) sends it
                                  one byte every S seconds
    /control/trickle-headers-next?interval=S  the next MCP POST gets a status line, then one
                                  header line every S seconds, and never the end of its headers
    /control/trickle-delete-next?interval=S  the same for the next DELETE (a session's end)
    /control/linger-next          the next SSE answer keeps its stream open after the answer
                                  (a server that does not end it, as it SHOULD)
    /control/retry-next?ms=N      the next SSE answer announces ``retry: N`` (ms) to resume after
    /control/end-trickles         every trickle running now ends (closes its connection)
    /control/seen                 answers with the JSON list of the methods (or "answer") of every
                                  MCP message posted so far, in order
"""

from __future__ import annotations

import json
import threading
from typing import Any, Callable, ClassVar, Optional

__all__ = ["RETRY_MS", "SWITCHES", "Controls"]

#: The ``retry`` (ms) announced on every stream, unless ``retry-next`` says otherwise.
RETRY_MS = 50

#: The switches of the control URLs: the attribute of ``Controls`` each sets, and the query
#: parameter its value comes from (its type and default), or ``None`` for a switch that is just on.
SWITCHES: dict[str, tuple[str, Optional[str], Callable[[str], Any], str]] = {
    "cut-next-stream": ("cut_next", None, str, ""),
    "cut-next-event": ("cut_mid_event", None, str, ""),
    "fail-next": ("fail_next", "status", int, "500"),
    "reset-next": ("reset_next", None, str, ""),
    "delay-next": ("delay_next", "seconds", float, "1"),
    "cookie-next": ("cookie_next", "value", str, "test=1"),
    "redirect-next": ("redirect_next", None, str, ""),
    "gzip-next": ("gzip_next", None, str, ""),
    "keepalive-next": ("keepalive_next", "interval", float, "0.1"),
    "trickle-next": ("trickle_next", "interval", float, "0.05"),
    "trickle-headers-next": ("trickle_headers_next", "interval", float, "0.5"),
    "trickle-delete-next": ("trickle_delete_next", "interval", float, "0.5"),
    "linger-next": ("linger_next", None, str, ""),
    "retry-next": ("retry_next", "ms", int, str(RETRY_MS)),
}


class Controls:
    """The faults switched on; each strikes once, then is off again."""

    OFF: ClassVar[dict[str, Any]] = {
        "cut_next": False,
        "cut_mid_event": False,
        "fail_next": None,
        "reset_next": False,
        "delay_next": 0.0,
        "cookie_next": None,
        "redirect_next": False,
        "gzip_next": False,
        "keepalive_next": 0.0,
        "trickle_next": 0.0,
        "trickle_headers_next": 0.0,
        "trickle_delete_next": 0.0,
        "linger_next": False,
        "retry_next": None,
    }

    def __init__(self) -> None:
        self.lock = threading.Lock()
        for name, value in self.OFF.items():
            setattr(self, name, value)
        #: The Cookie header of the last MCP POST.
        self.last_cookie = ""
        #: The method (or "answer") of every MCP message posted, in order (``/control/seen``).
        self.seen: list[str] = []
        #: Counts ``/control/end-trickles``: a trickle ends when it changes.
        self.trickles_ended = 0

    def take(self, name: str) -> Any:
        """A switch's value, switching it off."""
        with self.lock:
            value = getattr(self, name)
            setattr(self, name, self.OFF[name])
            return value

    def record(self, cookie: str, body: bytes) -> None:
        """Note an MCP POST: its Cookie header, and what its message is (``/control/seen``)."""
        with self.lock:
            self.last_cookie = cookie
            self.seen.append(_method_of(body))

    def switch(self, name: str, query: dict[str, list[str]]) -> bool:
        """Switch on the fault ``name`` (its value from the query), or end the trickles; ``False``: no such control."""
        with self.lock:
            if name == "end-trickles":
                self.trickles_ended += 1
            elif name in SWITCHES:
                attribute, parameter, kind, default = SWITCHES[name]
                setattr(self, attribute, True if parameter is None else kind(query.get(parameter, [default])[0]))
            else:
                return False
        return True


def _method_of(body: bytes) -> str:
    """What an MCP message posted is, for ``/control/seen``: its method, "answer", or "not JSON"."""
    try:
        message = json.loads(body)
    except ValueError:
        return "not JSON"
    if not isinstance(message, dict):
        return "not an object"
    return str(message.get("method", "answer"))
