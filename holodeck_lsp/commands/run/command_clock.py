"""The command's own clock: the wall time `run` prints is the command's, from the moment the
process started — the interpreter, the imports, loading the suite and starting the backend
included — not only the cases' (docs/running.md, "Output").

On Linux the process's start is read from /proc (its start in clock ticks since boot, against
the time since boot); elsewhere the clock starts when this module is first imported, which
`run` does before its first line.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

_IMPORTED = time.perf_counter()


@dataclass(frozen=True, slots=True)
class CommandClock:
    #: time.perf_counter() at the process's start.
    started: float

    def elapsed(self) -> float:
        return time.perf_counter() - self.started


def command_clock() -> CommandClock:
    return CommandClock(time.perf_counter() - _seconds_since_process_start())


def _seconds_since_process_start() -> float:
    try:
        with open("/proc/self/stat", encoding="ascii") as stat:
            # Field 22 (starttime); the command name (field 2) may hold spaces: after its ")".
            fields = stat.read().rpartition(")")[2].split()
        with open("/proc/uptime", encoding="ascii") as uptime:
            since_boot = float(uptime.read().split()[0])
        ticks = int(fields[19])
        since_start = since_boot - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return time.perf_counter() - _IMPORTED
    # /proc's figures are in 10 ms steps: never less than this module has seen itself.
    return max(since_start, time.perf_counter() - _IMPORTED)
