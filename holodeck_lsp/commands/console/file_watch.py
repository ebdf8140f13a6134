"""`--watch`: do the work once, then again each time a watched file is saved.

Polling file times (every 0.3 s) rather than an OS notification API: no dependency, works on
every file system (network mounts, containers), and a suite has few files. Ctrl-C stops it.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

POLL_SECONDS = 0.3
#: Files that can change what a check or run says: the agent files, their includes, the
#: project's Python (tools, graders) and data files.
WATCHED_SUFFIXES = (".yaml", ".yml", ".py", ".json", ".md", ".txt", ".csv")


def watch(
    paths: Iterable[Path],
    once: Callable[[], int],
    *,
    poll: float = POLL_SECONDS,
    stop: Callable[[], bool] = lambda: False,
) -> int:
    """Run `once`, then again after each change under `paths`; returns on Ctrl-C (or when
    `stop()` says so: `run` handles Ctrl-C itself) with the status of the last round."""
    roots = list(paths)
    status = once()
    seen = _snapshot(roots)
    print("holodeck-lsp: watching for changes (Ctrl-C stops)", file=sys.stderr, flush=True)
    try:
        while not stop():
            time.sleep(poll)
            now = _snapshot(roots)
            if now != seen:
                # Everything is done again: includes make "only what changed" unreliable.
                seen = now
                print(f"\n--- {time.strftime('%H:%M:%S')} change seen, again ---", flush=True)
                status = once()
    except KeyboardInterrupt:
        pass
    return status


def _snapshot(roots: list[Path]) -> dict[str, int]:
    times: dict[str, int] = {}
    for root in roots:
        if root.is_file():
            _add(times, str(root))
            # An agent file's includes and tools live beside it.
            root = root.parent
        for directory, dirnames, filenames in os.walk(root):
            dirnames[:] = [name for name in dirnames if not _skipped(name)]
            for name in filenames:
                if name.endswith(WATCHED_SUFFIXES):
                    _add(times, os.path.join(directory, name))
    return times


def _skipped(name: str) -> bool:
    return name.startswith(".") or name in ("node_modules", "__pycache__", ".venv", "venv")


def _add(times: dict[str, int], path: str) -> None:
    # Deleted between listing and stat: it shows as a change next round.
    with contextlib.suppress(OSError):
        times[path] = os.stat(path).st_mtime_ns
