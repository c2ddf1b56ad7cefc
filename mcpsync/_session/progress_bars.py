"""Progress bars for long calls, when a person at a notebook or terminal is watching.

Progress bars use ``tqdm.auto`` (a widget in Jupyter, text in a terminal),
installed with mcpsync's ``notebook`` extra. They are on by default only
when someone is watching: in a Jupyter/IPython kernel or with stderr on a
terminal; off in scripts whose output goes to a file or pipe. Switch them for
every call with ``mcpsync.set_progress_bars(True | False | None)`` (``None``:
decide as above), or for one call with ``call_tool(..., progress_bar=...)``.
A bar appears with the server's first progress notification, so a call that
reports none shows nothing. Where a bar would be shown and tqdm is missing,
the first call that reports progress says so once (a ``ConfigurationWarning``
naming the extra), and no call fails for it.

They belong to the session layer (not to the edges) because a call makes
them: ``call_tool(progress_bar=...)``. tqdm is imported only for a bar.
"""

from __future__ import annotations

import functools
import sys
import threading
from typing import Any, Optional, Union

from .._core.errors import ConfigurationWarning, NotSupportedError
from .._core.user_warnings import warn_at_caller
from .progress import ProgressCallback

__all__ = [
    "NO_TQDM",
    "ProgressBar",
    "UnshownProgress",
    "nobody_watches",
    "progress_bar_for",
    "set_progress_bars",
    "watched",
]

_settings: dict[str, Optional[bool]] = {"progress_bars": None}
#: What a watched call that reports progress says once when tqdm is missing.
NO_TQDM = (
    "the server reports progress, but progress bars need tqdm (and ipywidgets in a notebook): "
    "pip install tqdm ipywidgets (mcpsync's notebook extra), or mcpsync.set_progress_bars(False) "
    "to stop this notice"
)
_told: list[bool] = []  # NO_TQDM said already (once a process)


def set_progress_bars(enabled: Optional[bool]) -> None:
    """Progress bars for every call: ``True`` always, ``False`` never, ``None`` when someone watches (the default)."""
    if enabled is not None and not isinstance(enabled, bool):
        raise TypeError(f"set_progress_bars takes True, False or None, not {enabled!r}")
    _settings["progress_bars"] = enabled


def watched() -> bool:
    """Whether a person is likely watching: a Jupyter kernel or IPython shell, or stderr on a terminal."""
    ipython = sys.modules.get("IPython")
    if ipython is not None and getattr(ipython, "get_ipython", lambda: None)() is not None:
        return True
    stream = sys.stderr
    if stream is None:
        return False
    # Asked of each stream once (an ioctl per call otherwise): a stream does not become a terminal
    # or stop being one; one replaced is asked afresh, and one closed since is no terminal now.
    seen, answer = _terminal
    if stream is seen:
        return answer and not getattr(stream, "closed", False)
    try:
        answer = bool(stream.isatty())
    except (AttributeError, ValueError):  # a replaced or closed stderr
        return False
    _terminal[:] = [stream, answer]
    return answer


#: ``[stream, whether it is a terminal]``: the last ``sys.stderr`` ``watched`` asked.
_terminal: list[Any] = [None, False]


def nobody_watches() -> bool:
    """Whether a call that leaves its bar to the global setting gets none, known at a glance: bars are
    off, or left to whether someone watches, and nobody did at the last look (``sys.stderr`` the stream
    asked then, no terminal, IPython not loaded). ``False``: ``progress_bar_for`` decides."""
    setting = _settings["progress_bars"]
    return setting is False or (
        setting is None and sys.stderr is _terminal[0] and not _terminal[1] and "IPython" not in sys.modules
    )


@functools.cache
def _bar_class() -> Any:
    """tqdm.auto's bar without the monitor thread (it would outlive the call); each update refreshes the bar."""
    from tqdm.auto import tqdm  # checked by progress_bar_for

    return type("McpsyncProgress", (tqdm,), {"monitor_interval": 0})


class ProgressBar:
    """A tqdm bar for one call, made at the first progress notification and closed with the call.

    ``update`` runs on the client's dispatch thread, ``close`` on the caller's.
    """

    def __init__(self, description: str, chained: Optional[ProgressCallback] = None) -> None:
        self._tqdm = _bar_class()
        self._description = description
        self._chained = chained
        self._bar: Any = None
        self._handle: Any = None  # a notebook's display handle of the bar
        self._closed = False
        self._lock = threading.Lock()

    def update(self, progress: float, total: Optional[float], message: Optional[str]) -> None:
        """The ``on_progress`` callback: move the bar (and call the user's callback, if any)."""
        with self._lock:
            if not self._closed:
                if self._bar is None:
                    self._bar = self._open(total)
                if total is not None and self._bar.total != total:
                    self._bar.total = total
                self._bar.n = progress
                if message:
                    self._bar.set_postfix_str(message, refresh=False)
                self._bar.refresh()
        if self._chained is not None:
            self._chained(progress, total, message)

    def _open(self, total: Optional[float]) -> Any:
        """The bar; in a notebook, shown under a display id, so that ``close`` can leave its final state."""
        if not _is_notebook_bar(self._tqdm):
            return self._tqdm(total=total, desc=self._description, leave=True, dynamic_ncols=True)
        from IPython.display import display  # there: tqdm.auto chose its notebook bar

        bar = self._tqdm(total=total, desc=self._description, leave=True, dynamic_ncols=True, display=False)
        self._handle = display(bar.container, display_id=True)  # type: ignore[no-untyped-call]
        bar.displayed = True
        return bar

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._bar is not None:
                self._bar.close()
                if self._handle is not None:
                    # A saved notebook keeps a widget's first text (0%| | 0/6): put the final state in its place.
                    self._handle.update(_FinalState(self._bar.format_meter(**self._bar.format_dict)))


class _FinalState:
    """A finished bar as text (and HTML): what a notebook shows, and keeps, once the call is over."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text

    def _repr_html_(self) -> str:
        import html  # lazily: only a notebook shows it (`import mcpsync` stays light)

        return f"<pre style='margin:0'>{html.escape(self.text)}</pre>"


class UnshownProgress:
    """Where a bar would be shown but tqdm is missing: the progress goes on to the caller's callback,
    and ``close`` (on the caller's thread, where a warning reaches the cell) says once in a process
    how to get bars, if the call reported progress."""

    def __init__(self, chained: Optional[ProgressCallback] = None) -> None:
        self._chained = chained
        self._reported = False

    def update(self, progress: float, total: Optional[float], message: Optional[str]) -> None:
        self._reported = True
        if self._chained is not None:
            self._chained(progress, total, message)

    def close(self) -> None:
        if self._reported and not _told:
            _told.append(True)
            warn_at_caller(NO_TQDM, ConfigurationWarning)  # the user's line, through a Manager's call too


def _is_notebook_bar(cls: Any) -> bool:
    try:
        from tqdm.notebook import tqdm as notebook_bar
    except ImportError:
        return False
    return isinstance(cls, type) and issubclass(cls, notebook_bar)


def progress_bar_for(
    enabled: Optional[bool], description: str, chained: Optional[ProgressCallback]
) -> Union[ProgressBar, UnshownProgress, None]:
    """The bar for a call (``enabled``: the call's ``progress_bar`` argument), or ``None`` for no bar
    (``UnshownProgress`` where one would be shown but tqdm is missing).

    Raises:
        NotSupportedError: a bar was asked for explicitly and tqdm is not installed.
    """
    if enabled is None and nobody_watches():  # the usual: no bar, known at a glance
        return None
    if enabled is None:
        enabled = _settings["progress_bars"]
    explicit = enabled is True
    if enabled is None:
        enabled = watched()
    if not enabled:
        return None
    try:
        import tqdm.auto  # noqa: F401
    except ImportError:
        if explicit:
            raise NotSupportedError("progress bars need tqdm: pip install tqdm ipywidgets") from None
        return None if _told else UnshownProgress(chained)
    return ProgressBar(description, chained)
