"""Which processes are ours, from Linux ``/proc``: for leak checks in tests and the soak run.

Elsewhere (no ``/proc``) every function answers "none", so a check built on
them passes rather than fails on a platform it cannot see into.
"""

from __future__ import annotations

import os
from typing import Optional

__all__ = ["child_pids", "process_state"]


def _stat_fields(pid: int) -> Optional[list[bytes]]:
    """The fields of ``/proc/PID/stat`` after the command name; ``None`` if the process is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: split after the last ')'.
    return stat[stat.rfind(b")") + 2 :].split()


def child_pids() -> set[int]:
    """Our child processes, zombies included."""
    me = os.getpid()
    try:
        entries = os.listdir("/proc")
    except OSError:
        return set()
    found = set()
    for entry in entries:
        if entry.isdigit():
            fields = _stat_fields(int(entry))
            if fields is not None and int(fields[1]) == me:
                found.add(int(entry))
    return found


def process_state(pid: int) -> Optional[str]:
    """The state letter of a process (``"R"``, ``"S"``, ``"Z"`` for a zombie...), or ``None`` if it is gone."""
    fields = _stat_fields(pid)
    return None if fields is None else fields[0].decode("ascii", "replace")
