"""Testing a wire alone: a transport with the smallest requester on top, and a receiver that records."""

from __future__ import annotations

from typing import Any, Callable, Optional

from mcpsync._core.jsonrpc import Kind, Message
from mcpsync._core.timeouts import USE_DEFAULT, Timeout, resolve_timeout
from mcpsync._session.channel import Channel
from mcpsync._wire.base import Transport


class Recorder:
    """A ``Receiver`` that keeps what the transport hands it (and passes problems to ``on_error``)."""

    def __init__(self, on_error: Optional[Callable[[BaseException], None]] = None) -> None:
        self.incoming: list[tuple[Message, Kind]] = []
        self.problems: list[BaseException] = []
        self.closed_with: list[Optional[BaseException]] = []
        self._on_error = on_error

    def incoming_messages(self) -> list[Message]:
        return [message for message, _ in self.incoming]

    def incoming_fn(self, message: Message, kind: Kind) -> None:
        self.incoming.append((message, kind))

    def problem(self, error: Any) -> None:
        self.problems.append(error)
        if self._on_error is not None:
            self._on_error(error)

    def closed(self, error: Optional[BaseException]) -> None:
        self.closed_with.append(error)


class _Receiver:
    def __init__(self, recorder: Recorder) -> None:
        self._recorder = recorder

    def incoming(self, message: Message, kind: Kind) -> None:
        self._recorder.incoming_fn(message, kind)

    def problem(self, error: Any) -> None:
        self._recorder.problem(error)

    def closed(self, error: Optional[BaseException]) -> None:
        self._recorder.closed(error)


class Wired:
    """``transport`` with ``start``, ``request`` and ``send_request`` as the client would do them.

    Everything else is the transport's own (``wired.pid``, ``wired.stats``, ``wired.close()``...).
    """

    def __init__(self, transport: Transport, on_error: Optional[Callable[[BaseException], None]] = None) -> None:
        self.transport = transport
        self.channel = Channel(transport)
        self.recorder = Recorder(on_error)

    def start(self) -> Wired:
        self.transport.open(_Receiver(self.recorder))
        return self

    def request(self, method: str, params: Optional[dict[str, Any]] = None, *, timeout: Timeout = USE_DEFAULT) -> Any:
        return self.channel.request(method, params, timeout=resolve_timeout(timeout, self.transport.default_timeout))

    def send_request(self, method: str, params: Optional[dict[str, Any]] = None) -> Any:
        return self.channel.send_request(method, params)

    def notify(self, method: str, params: Optional[dict[str, Any]] = None) -> None:
        self.channel.notify(method, params)

    @property
    def pending(self) -> Any:
        return self.transport.endpoint.pending

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)

    def __enter__(self) -> Wired:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.transport.close()
