"""Layer 5, the session: one server's MCP client.

``Client`` runs the handshake, builds requests, waits for answers through its
``Channel`` (timeouts, cancellation, progress), answers the server's requests,
keeps the lists the server offers, and returns typed results (``models``).
It knows the layers below it (the wires, ``mcpsync._wire``, among them) and nothing above.
"""
