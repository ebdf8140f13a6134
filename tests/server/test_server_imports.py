"""The language server never imports deepeval (the judges' library, seconds to import):
not at start-up, not for checking, not for what a run or a re-grade imports first — only a
live judgement does (runner/judges/deepeval_judge.py)."""

from __future__ import annotations

import subprocess
import sys


def test_the_server_and_its_run_modules_never_import_deepeval() -> None:
    script = (
        "import sys\n"
        "from holodeck_lsp.server.app import create_server\n"
        "from holodeck_lsp.server.core import RUN_MODULES, _import_checker\n"
        "import importlib, threading\n"
        "create_server()\n"
        "_import_checker(threading.Event())\n"
        "for name in RUN_MODULES:\n"
        "    importlib.import_module(name)\n"
        "import holodeck_lsp.runner.run_session, holodeck_lsp.runner.judges.pool\n"
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] == 'deepeval')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "", f"the server imported {out}"
