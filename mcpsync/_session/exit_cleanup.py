"""Closing what a program left open: clients and managers still alive when the interpreter exits.

A client owns a server process and threads. A script that ends without
``close()``, or a notebook kernel shutting down, must not leave servers
running: at exit, every client and manager still open is closed, all at once,
within ``EXIT_CLOSE_WAIT`` seconds in total, so exiting never hangs. Objects
are held by weak reference only: tracking never keeps one alive.
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
import weakref
from typing import Any, Protocol

__all__ = ["EXIT_CLOSE_WAIT", "close_all", "track"]

logger = logging.getLogger("mcpsync.client")

#: Seconds the interpreter's exit waits, at most, for the closing.
EXIT_CLOSE_WAIT = 10.0


class _Closable(Protocol):
    def close(self) -> Any: ...


_open: weakref.WeakSet[Any] = weakref.WeakSet()
_lock = threading.Lock()
_registered = False


def track(obj: _Closable) -> None:
    """Close ``obj`` at interpreter exit if it is still alive then (``close()`` must be idempotent)."""
    global _registered
    with _lock:
        _open.add(obj)
        if not _registered:
            atexit.register(close_all)
            _registered = True


def close_all(timeout: float = EXIT_CLOSE_WAIT) -> None:
    """Close every tracked object, in parallel, waiting at most ``timeout`` seconds."""
    with _lock:
        objects = list(_open)
        _open.clear()
    # Plain threads: concurrent.futures refuses new work once the interpreter is exiting.
    threads = [threading.Thread(target=_close, args=(obj,), name="mcpsync-exit-close", daemon=True) for obj in objects]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + timeout
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
        if thread.is_alive():
            logger.warning("closing at exit took longer than %ss; not waiting any longer", timeout)
            return


def _close(obj: _Closable) -> None:
    try:
        obj.close()
    except Exception:
        logger.exception("closing %r at exit failed", obj)
