"""What every command does the same way: say an error or a warning on stderr, write an
output file (or say why it cannot), and find the agent files a PATH names.

One wording for all of them, so `holodeck-lsp: error:` lines read alike whichever command
printed them and a CI log can be grepped for them.
"""

from __future__ import annotations

import sys
from pathlib import Path

from holodeck_lsp.exit_codes import EXIT_BAD_INPUT, EXIT_OK

PROGRAM = "holodeck-lsp"


def fail(status: int, message: str) -> int:
    """Print `holodeck-lsp: error: MESSAGE` on stderr; returns `status` for `return fail(…)`."""
    print(f"{PROGRAM}: error: {message}", file=sys.stderr)
    return status


def warn(message: str) -> None:
    print(f"{PROGRAM}: warning: {message}", file=sys.stderr)


def write_output(path: Path, text: str, *, status_if_not: int, make_folder: bool = False) -> int:
    """Write `text` to `path`; EXIT_OK, or `status_if_not` after saying why it cannot be
    written. `make_folder` for the reports of a run (`--report-html out/r.html`); check and
    schema write where they are told, so a mistyped folder is an error."""
    try:
        if make_folder:
            path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        return fail(status_if_not, f"cannot write {path}: {error.strerror or error}")
    return EXIT_OK


def agent_files(paths: list[Path]) -> list[Path] | None:
    """The agent files `paths` name (a file as it is, a folder's agent files below it: the
    one resolver, runner/run_history/which_agent.py), or None after saying what is missing —
    nothing found is an error, not an empty pass."""
    # Imported here: every command imports this module, few of them name agents.
    from holodeck_lsp.runner.run_history.which_agent import AgentNotChosen
    from holodeck_lsp.runner.run_history.which_agent import agent_files as agent_files_under

    try:
        return agent_files_under(paths)
    except AgentNotChosen as error:
        for line in str(error).splitlines():
            fail(EXIT_BAD_INPUT, line)
        return None
