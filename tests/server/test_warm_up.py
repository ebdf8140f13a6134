"""The server's warm-up (server/core.py): imports the checker in steps, and stops between
them once asked (at exit), so a quick start → exit waits for one module, not the checker."""

from __future__ import annotations

import subprocess
import sys


def imported_after(stopped: bool) -> set[str]:
    """Which of the checker's modules are loaded after a warm-up, stopped first or not (in a
    fresh interpreter: this one has imported them already)."""
    script = (
        "import sys, threading\n"
        "from holodeck_lsp.server.core import CHECKER_MODULES, _import_checker\n"
        "stop = threading.Event()\n"
        f"if {stopped}:\n"
        "    stop.set()\n"
        "_import_checker(stop)\n"
        "print(','.join(m for m in CHECKER_MODULES if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    return set(filter(None, done.stdout.strip().split(",")))


def test_the_warm_up_imports_the_checker_and_stops_when_asked() -> None:
    from holodeck_lsp.server.core import CHECKER_MODULES

    assert CHECKER_MODULES[-1] == "holodeck_lsp.checker.loader"  # what a check needs
    assert imported_after(stopped=False) == set(CHECKER_MODULES)
    assert not imported_after(stopped=True) & {"holodeck_lsp.checker.loader", "pydantic"}
