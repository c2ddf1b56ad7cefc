"""Layer 2, thread and signal tools under the wires: Ctrl-C deferred over critical sections (signals),
interrupt-safe waits (latches), a transport's worker threads (workers) and the deadline watchdog (watchdog).

Above ``_core`` (they start threads and touch signals), below ``_wire`` (every wire uses them).
"""
