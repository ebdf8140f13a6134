"""gc.freeze after a CLI run's start-up: once per process. In a child process, so the test
session's own heap is not frozen."""

from __future__ import annotations

import subprocess
import sys

CHILD = """
import gc
from holodeck_lsp.commands.run.startup_heap import freeze_startup_heap
assert gc.get_freeze_count() == 0
kept = [object() for _ in range(1000)]
assert freeze_startup_heap() is True
frozen = gc.get_freeze_count()
assert frozen >= 1000, frozen
more = [[] for _ in range(1000)]
assert freeze_startup_heap() is False  # once: what the run allocates stays collectable
assert gc.get_freeze_count() == frozen
print("ok")
"""


def test_the_start_up_heap_is_frozen_once() -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
