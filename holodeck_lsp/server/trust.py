"""The one place the language server decides whether the workspace's own code may run
(docs/checks.md, "What can run your code").

The workspace's code is what an agent file names — grader modules (and the packages holding
them, whose `__init__` runs first), function tools' modules, MCP servers' commands — and
whatever they import, from the agent's folder or PYTHONPATH. The server runs it only in a
workspace the editor declared trusted (`initializationOptions.trusted`, read into
`Settings.trusted` and nowhere else), and only for:

* the slow check (didOpen / didSave): graders imported in a child process with a timeout,
  `load_options(settings, import_graders=True)`;
* a run or re-grade (`holodeck.runAll` … `regradeCase`, re-grade on edit):
  `open_run_session`, or `session_opener` for the run lifecycle to call, which refuse in an
  untrusted workspace with `UNTRUSTED_MESSAGE`.

Every other load — the fast check, pull diagnostics, early diagnostics, the regression marks'
and the comparison's masking — takes `load_options(settings)`: graders resolved statically
(checker/graders/static.py), nothing imported. tests/server/test_trust_one_place.py keeps
every `LoadOptions`, every read of `trusted` and every `RunSession.open` of the server in
this module.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from holodeck_lsp.checker.loader import LoadOptions
    from holodeck_lsp.runner.run_session import RunRequest, RunSession
    from holodeck_lsp.server.settings import Settings

UNTRUSTED_MESSAGE: Final = (
    "HoloDeck: running tests is disabled in an untrusted workspace — a run executes the "
    "agent's function tools and code graders. Trust this workspace in your editor to run it."
)


class Untrusted(Exception):
    """Code of an untrusted workspace was about to run; the message says why and the fix."""


def code_may_run(settings: Settings | None) -> bool:
    """Whether the workspace's code may run: only when the editor said it is trusted (None:
    before the settings exist, as for the checks made while the server starts)."""
    return settings is not None and settings.trusted is True


def load_options(settings: Settings | None, *, import_graders: bool = False) -> LoadOptions:
    """The options of a load the server does: graders imported (in a child process) only
    when the caller needs the import's verdict *and* the workspace is trusted; else
    resolved statically."""
    from holodeck_lsp.checker.loader import LoadOptions

    return LoadOptions(trusted=import_graders and code_may_run(settings))


def refusal(settings: Settings) -> str | None:
    """Why a run would be refused for trust (the message shown), or None."""
    return None if code_may_run(settings) else UNTRUSTED_MESSAGE


async def open_run_session(settings: Settings, request: RunRequest) -> RunSession:
    """`RunSession.open` in a thread (it imports the agent's tools and graders and may start
    its MCP servers). Raises `Untrusted` in an untrusted workspace, `RunCannotStart` as the
    session does."""
    if not code_may_run(settings):
        raise Untrusted(UNTRUSTED_MESSAGE)
    import asyncio  # here: early diagnostics import this module before anything heavy

    from holodeck_lsp.runner.run_session import RunSession

    return await asyncio.to_thread(RunSession.open, request)


def session_opener(settings: Settings) -> Callable[[RunRequest], RunSession]:
    """`RunSession.open` for the run lifecycle to call (in a thread: runner/lifecycle/
    starting.py), refusing with `Untrusted` in an untrusted workspace — asked when it is
    called, not when it is handed over."""

    def open_trusted(request: RunRequest) -> RunSession:
        if not code_may_run(settings):
            raise Untrusted(UNTRUSTED_MESSAGE)
        from holodeck_lsp.runner.run_session import RunSession

        return RunSession.open(request)

    return open_trusted
