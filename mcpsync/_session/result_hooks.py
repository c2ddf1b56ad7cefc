"""The seam through which a tool result's ``ui`` finds its MCP Apps view without the models importing
the client or the Apps host: results are data, and what needs the client that made one is found here.

``mcpsync`` sets ``app_view`` to ``app_resources.view_of_result``: given a ``CallToolResult`` with an
``origin``, the ``AppView`` of its tool (``None``: the tool has none, or its client is gone). ``None``
here: no result has a view.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

__all__ = ["app_view"]

#: ``fn(result: CallToolResult) -> Optional[AppView]`` (typed loosely: the models import this module).
app_view: Optional[Callable[[Any], Any]] = None
