"""Which test case a function tool is running for, so a stateful tool keeps one state per case.

The case runner enters a fresh `CaseScope` around each case's conversation (one per case, per
model of a matrix, per repeat). It lives in a ContextVar: asyncio copies the context into every
task and worker thread started from the case's task (the backend's session, Semantic Kernel's
per-call tasks, the Claude SDK's reader task, `asyncio.to_thread`), so a tool call reads the
scope of the case that made it, and cases running side by side (`--parallel`) never see each
other's. A tool that finds no scope (called outside a run, or by upstream HoloDeck) gets None.

Tool files reach it with `importlib.import_module("holodeck_lsp.runner.agent_code.case_scope")`
and must work without it (docs/importing-bfcl.md, "How a tool finds its case's state").
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

__all__ = ["CaseScope", "current_case", "entered_case"]


@dataclass(eq=False)
class CaseScope:
    """One run of one case. `state` is the tools' own: empty when the case starts, dropped
    when it ends; `lock` serialises tools that change it (a backend may run two calls of one
    model response at once)."""

    name: str | None
    index: int
    model: str | None = None
    repeat: int | None = None
    state: dict[str, Any] = field(default_factory=dict)
    lock: threading.RLock = field(default_factory=threading.RLock)


_current: ContextVar[CaseScope | None] = ContextVar("holodeck_case_scope", default=None)


def current_case() -> CaseScope | None:
    """The scope of the case whose conversation is running in this context, if any."""
    return _current.get()


@contextmanager
def entered_case(scope: CaseScope) -> Iterator[CaseScope]:
    """Make `scope` current for the code run inside (and every task it starts)."""
    token = _current.set(scope)
    try:
        yield scope
    finally:
        _current.reset(token)
