"""The HTTP wires: Streamable HTTP (``streamable``) and the HTTP+SSE of 2024-11-05 (``legacy_sse``), on
what they share: the transport base (``base``), every exchange bounded by its deadline (``client``),
our own ``requests`` sessions (``session``), what ``auth=`` takes (``auth``), URLs and their origins
(``urls``), and HTTP errors said plainly (``errors``)."""
