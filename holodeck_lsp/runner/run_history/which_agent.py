"""Whose run history a command means when it names no agent file: `--agent PATH`, else the
one agent file in the current folder (its history sits beside it). `compare` asks this, and
so does the completion scripts' `__run-refs` — a Tab offers the runs the command would read.

Light on purpose (config.discovery only): `__run-refs` imports it on every Tab.
"""

from __future__ import annotations

from pathlib import Path

from holodeck_lsp.config.discovery import AGENT_SUFFIX, is_agent_file


class AgentNotChosen(Exception):
    """No single agent file is meant; the message says why and how to name one."""


def history_agent(given: Path | None) -> Path:
    """`given` (it must be a file), else the one agent file in the current folder."""
    if given is not None:
        if not given.is_file():
            raise AgentNotChosen(f"--agent {given}: no such agent file")
        return given
    here = sorted(Path(p.name) for p in Path.cwd().iterdir() if is_agent_file(p.name))
    if len(here) == 1:
        return here[0]
    if not here:
        raise AgentNotChosen(
            "no agent file in this folder to take stored runs from: pass --agent PATH, "
            f"or two report files (agent.yaml or *{AGENT_SUFFIX} are looked for)"
        )
    names = ", ".join(path.name for path in here)
    raise AgentNotChosen(f"several agent files here ({names}): choose one with --agent PATH")
