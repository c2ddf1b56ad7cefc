"""Layer 1 of 7 (docs/architecture.md draws them), the protocol core: JSON-RPC envelopes, their
validation, SSE framing, and the endpoint.

Nothing here does I/O or starts a thread, so every rule can be tested with
plain function calls. The six layers above (``_threads``, ``_wire``, ``_auth``, ``_session``,
``_manager``, ``_edges``) may import this package; it imports none of them.
"""
