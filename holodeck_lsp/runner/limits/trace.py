"""Counters for the benchmarks, off unless `$HOLODECK_LIMITS_TRACE` names a file: what the
limiter waited for and why (backoffs by cause, pace and window waits, budget drawn), written
there as JSON when the process exits. The runner prints nothing; bench/long_run_faults.py
reads the file beside the fake server's own view.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
from collections import defaultdict
from pathlib import Path

TRACE_ENV = "HOLODECK_LIMITS_TRACE"

_path = os.environ.get(TRACE_ENV, "").strip()
#: name -> [count, sum, max, min]
_stats: defaultdict[str, list[float]] = defaultdict(lambda: [0, 0.0, float("-inf"), float("inf")])


def enabled() -> bool:
    return bool(_path)


def note(name: str, value: float = 0.0) -> None:
    """Count one `name` event of `value` (seconds waited, a size…) when tracing is on."""
    if not _path:
        return
    entry = _stats[name]
    entry[0] += 1
    entry[1] += value
    entry[2] = max(entry[2], value)
    entry[3] = min(entry[3], value)


def _write() -> None:
    stats = {
        name: {"count": c, "sum": round(s, 4), "max": round(hi, 4), "min": round(lo, 4)}
        for name, (c, s, hi, lo) in sorted(_stats.items())
    }
    document = {"module": str(Path(__file__).resolve()), "stats": stats}
    with contextlib.suppress(OSError):  # a benchmark's aid: never the run's failure
        Path(_path).write_text(json.dumps(document, indent=1), encoding="utf-8")


if _path:
    atexit.register(_write)
