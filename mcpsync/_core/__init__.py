"""Layer 1, the protocol core: JSON-RPC envelopes, their validation, SSE framing, and the endpoint.

Nothing here does I/O or starts a thread, so every rule can be tested with
plain function calls. The layers above (``_wire``, ``_session``,
``_manager``, ``_edges``) may import this package; it imports none of them.
"""
