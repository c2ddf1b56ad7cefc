"""The person's side of a login: the loopback receiver against local processes, and the paste box.

The receiver is attacked as a local process would: a connection that
trickles a byte at a time, or an idle one (a browser's preconnect), while
the real redirect arrives. In a notebook whose kernel runs elsewhere, the
redirect never reaches the kernel: the address is pasted in an ipywidgets
text box (the real widget, its value set as the front end would).
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import requests

import mcpsync
from mcpsync._auth import browser
from mcpsync._auth.browser import LoopbackReceiver, present


@contextmanager
def hostile_connection(port: int, trickle: bool) -> Iterator[None]:
    """A local process's connection to the receiver: it sends a byte every 0.3 s (``trickle``), or
    nothing at all (an idle preconnect), until the block ends."""
    stop = threading.Event()
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)

    def send() -> None:
        for byte in b"GET /callback?state=x HTTP/1.1\r\nHost: a\r\n" * 10:
            if stop.wait(0.3):
                return
            try:
                sock.send(bytes([byte]))
            except OSError:
                return

    sender = threading.Thread(target=send)
    if trickle:
        sender.start()
    try:
        yield
    finally:
        stop.set()
        if trickle:
            sender.join(5)
        sock.close()


@pytest.mark.parametrize("trickle", [True, False], ids=["trickle", "idle"])
def test_a_local_connection_that_trickles_or_idles_does_not_hold_the_real_redirect_back(trickle):
    """Attack: a local process connects to the receiver first and trickles a byte every 0.3 s (or a
    browser's preconnect stays idle). Promise: the browser's real redirect is answered and ends the
    wait at once (the receiver used to serve one connection at a time: the trickle blocked it until
    the login's timeout), and ``close`` returns within its bound though the trickle goes on."""
    receiver = LoopbackReceiver("the-state")
    try:
        with hostile_connection(receiver.port, trickle):
            answer = requests.get(receiver.redirect_uri + "?code=c&state=the-state", timeout=3)
            assert answer.status_code == 200
            assert "code=c" in receiver.wait(2, "srv")
            closer = threading.Thread(target=receiver.close)
            closer.start()
            closer.join(browser.CLOSE_TIMEOUT + 2)
            assert not closer.is_alive(), "close() waited for the trickling connection"
    finally:
        receiver.close()


@pytest.mark.slow("waits out the receiver's REQUEST_TIMEOUT, set to 1 s, on a trickled request head")
def test_a_request_head_that_never_ends_is_dropped_at_the_whole_request_deadline(monkeypatch):
    """Attack: a connection that keeps sending header bytes (never a blank line). Promise: it is
    closed once ``REQUEST_TIMEOUT`` has passed since it connected, however often bytes came."""
    monkeypatch.setattr(browser, "REQUEST_TIMEOUT", 1.0)
    with LoopbackReceiver("s") as receiver:
        sock = socket.create_connection(("127.0.0.1", receiver.port), timeout=5)
        try:
            closed = False
            for _ in range(40):  # 8 s of 0.2 s steps at most
                try:
                    sock.send(b"X")
                    sock.settimeout(0.2)
                    if sock.recv(1) == b"":
                        closed = True
                        break
                except socket.timeout:
                    continue
                except OSError:
                    closed = True
                    break
            assert closed, "the receiver kept a trickling connection open"
        finally:
            sock.close()


def _in_notebook(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    import IPython.display

    shown: list[object] = []
    monkeypatch.setattr(browser, "in_notebook", lambda: True)
    monkeypatch.setattr(IPython.display, "display", shown.append)
    return shown


def test_in_a_notebook_the_address_pasted_in_the_input_box_ends_the_wait(monkeypatch, capsys):
    """Scenario: a notebook whose kernel runs elsewhere: the redirect never reaches the kernel's
    loopback port. Promise: next to the link, ``input()`` (the front end's text box) takes the
    address, the message says to paste it there, and what is pasted ends the wait."""
    import builtins

    shown = _in_notebook(monkeypatch)
    with LoopbackReceiver("st") as receiver:
        pasted = receiver.redirect_uri + "?code=c7&state=st"
        monkeypatch.setattr(builtins, "input", lambda prompt="": pasted)
        assert present("https://as/authorize", receiver, "srv", 10) == pasted
    assert len(shown) == 1  # the link
    err = capsys.readouterr().err
    assert "paste its address" in err and "in the box below" in err


def test_in_a_notebook_the_redirect_ends_the_wait_and_the_open_input_box(monkeypatch):
    """Scenario: a local kernel: the redirect comes while the input box waits. Promise: the redirect
    ends the wait, and the prompt's thread is ended too (no thread is left waiting for a paste)."""
    import builtins

    _in_notebook(monkeypatch)
    waiting = threading.Event()
    ended: list[BaseException] = []

    def pending_input(prompt: str = "") -> str:
        waiting.set()
        try:
            while True:  # a kernel's input() polls its stdin socket in Python, as this does
                time.sleep(0.01)
        except BaseException as exc:
            ended.append(exc)
            raise

    monkeypatch.setattr(builtins, "input", pending_input)
    with LoopbackReceiver("st") as receiver:

        def browser_redirect() -> None:
            waiting.wait(5)
            requests.get(receiver.redirect_uri + "?code=c&state=st", timeout=5)

        redirecting = threading.Thread(target=browser_redirect)
        redirecting.start()
        assert "code=c" in present("https://as/authorize", receiver, "srv", 10)
        redirecting.join(5)
    assert len(ended) == 1 and isinstance(ended[0], KeyboardInterrupt)


def test_the_persons_wait_is_bounded_by_login_timeout_and_says_so(monkeypatch):
    """With no browser and nothing on stdin, the wait ends at ``login_timeout``, and the error names it."""
    monkeypatch.setattr(browser, "in_notebook", lambda: False)
    monkeypatch.setattr(browser, "_browser_available", lambda: False)
    with LoopbackReceiver("st") as receiver:
        with pytest.raises(mcpsync.AuthorizationRequired, match=r"within 0\.5s \(login_timeout\)"):
            present("https://as/authorize", receiver, "srv", 0.5)
