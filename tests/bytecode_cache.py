"""One bytecode cache for the whole test session, outside the checkout.

The suite starts well over a thousand Python processes (`holodeck-lsp run` and `check` as
subprocesses, a language server per test, the editors' servers). Where the environment sets
`PYTHONDONTWRITEBYTECODE=1` — as CI machines and containers often do, to keep `__pycache__`
out of source trees — and the install compiled nothing ahead (the README's `uv pip install`
does not), every one of those processes compiled every module it imported from source:
about 0.7 CPU-s of a replayed `run`'s 2.3 on the 2-core machine (docs/benchmarks.md, "The
whole test suite").

Python's own answer is `PYTHONPYCACHEPREFIX` (the `sys.pycache_prefix` of the
documentation of `sys`): bytecode goes to a separate tree instead of `__pycache__` beside
the source. The controller makes one temporary tree, points itself, its pytest-xdist workers
and every child process at it (through the environment, which they inherit), and removes it
at the end: each module is compiled once per session, and nothing is written into the
checkout or kept after the session. pytest's rewritten test modules use the same tree
(pytest reads `sys.pycache_prefix`). A prefix the user set already is kept.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile

#: Set by the process that made the tree (the controller), so workers and children know it
#: is the session's own and leave its removal to the controller.
OWNED_BY = "HOLODECK_TEST_PYCACHE_OWNER"


def share_compiled_modules() -> None:
    """Point this process and everything it starts at one session-wide bytecode tree."""
    prefix = os.environ.get("PYTHONPYCACHEPREFIX")
    if not prefix:
        prefix = tempfile.mkdtemp(prefix="holodeck-lsp-test-pycache-")
        os.environ["PYTHONPYCACHEPREFIX"] = prefix
        os.environ[OWNED_BY] = str(os.getpid())
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.pycache_prefix = prefix
    sys.dont_write_bytecode = False


def remove_if_owned() -> None:
    """Remove the tree when this process made it (the controller, at the session's end)."""
    if os.environ.get(OWNED_BY) == str(os.getpid()):
        shutil.rmtree(os.environ.get("PYTHONPYCACHEPREFIX", ""), ignore_errors=True)
