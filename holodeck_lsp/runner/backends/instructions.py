"""The agent's system prompt: `instructions.inline`, or the text of `instructions.file`.

Both backends read it the same way, so a missing file gets the same message whichever provider
the agent uses.
"""

from __future__ import annotations

from pathlib import Path

from holodeck_lsp.checker.file_reading import read_file_text
from holodeck_lsp.runner.backends.base import BackendInitError
from holodeck_lsp.schema.agent import Agent


def read_instructions(agent: Agent, agent_dir: Path | None) -> str:
    """The instructions text; a relative `instructions.file` is read from `agent_dir` (default:
    the current directory), as HoloDeck does. BackendInitError names the field, the file and
    how to fix it when it cannot be read."""
    if agent.instructions.inline is not None:
        return agent.instructions.inline
    assert agent.instructions.file is not None  # the schema requires one of the two
    path = (agent_dir or Path.cwd()) / agent.instructions.file  # an absolute file stays as is
    try:
        return read_file_text(path, "utf-8")
    except OSError as error:
        raise BackendInitError(
            f"instructions.file {agent.instructions.file!r}: cannot read {path} "
            f"({error.strerror or error}); the path is relative to the agent's folder"
        ) from error
