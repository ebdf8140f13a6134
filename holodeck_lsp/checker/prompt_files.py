"""`claude.agents.<name>.prompt_file`: the file must exist and hold a prompt.

HoloDeck reads the subagent's prompt file when it loads agent.yaml (relative to the agent's
folder) and refuses the file when it is missing or when its text is blank, so both are
errors here, at the `prompt_file` value. The schema has no I/O, so this lives in the checker.
Only the file's existence and whether it is blank are looked at; nothing is executed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from holodeck_lsp.checker.checked_source import CheckedSource
from holodeck_lsp.checker.diagnostics import Diagnostic, Severity
from holodeck_lsp.checker.file_reading import read_file_text
from holodeck_lsp.checker.yaml_document import node_range
from holodeck_lsp.schema.codes import Code


def check_prompt_files(agent: CheckedSource, agent_dir: Path) -> Iterator[Diagnostic]:
    claude = agent.data.get("claude") if isinstance(agent.data, dict) else None
    agents = claude.get("agents") if isinstance(claude, dict) else None
    if not isinstance(agents, dict):
        return
    for name, spec in agents.items():
        if not isinstance(spec, dict) or "prompt" in spec:
            continue  # the schema reports a wrong shape, or both prompt sources
        reference: Any = spec.get("prompt_file")
        if not isinstance(reference, str) or not reference.strip():
            continue  # missing or blank: the schema's error
        path = ("claude", "agents", name, "prompt_file")
        problem = _problem(agent_dir, reference)
        if problem is not None:
            code, message = problem
            where = node_range(agent.locate(path).node)
            yield agent.diagnostic(path, where, code, message, Severity.ERROR)


def _problem(agent_dir: Path, reference: str) -> tuple[Code, str] | None:
    file = Path(reference)
    file = file if file.is_absolute() else agent_dir / file
    try:
        text = read_file_text(file, "utf-8")
    except FileNotFoundError:
        return Code.FILE_UNREADABLE, (
            f"prompt_file {reference!r} not found (looked for {file}); HoloDeck reads it when "
            "the agent loads: fix the path, relative to agent.yaml, or use `prompt:`"
        )
    except (OSError, UnicodeDecodeError) as error:
        return Code.FILE_UNREADABLE, (
            f"prompt_file {reference!r} cannot be read ({type(error).__name__}: {error})"
        )
    if not text.strip():
        return Code.BLANK_STRING, (
            f"prompt_file {reference!r} is blank; HoloDeck needs a non-empty subagent "
            "prompt: write the prompt into the file"
        )
    return None
