"""Layer 7, the edges: what people see. Nothing below imports them.

The ``mcpsync`` command, the notebook display, the one-shot helpers
(``call_mcp``, ``parse_sse``), showing logs, and the demo.
"""
