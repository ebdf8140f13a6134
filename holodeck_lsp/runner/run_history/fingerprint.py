"""What a run's verdicts depend on, as one SHA-256 per file: the agent file, its test cases
file, its instructions file and the Python code in the agent's folder (tools and code
graders are imported from there, and may import their neighbours — so every `.py` in the
folder counts, not only the ones `agent.yaml` names) plus tool files named outside it,
prompt tools' template files, the scripts a stdio MCP server is started with (an argument
naming a file, `node server.js`, inside the folder or not), and the files the cases send
(`files: [{path: …}]`, case or turn). Only files the agent names are read beside the `.py`
scan: a start stays a few milliseconds, whatever else the folder holds.

A resumed run compares the fingerprint its journal recorded with today's: a changed file
means the finished cases and the ones still to run would test different agents.

holodeck-lsp.yaml is deliberately not part of it: what it holds (rate limits, the retry
budget, prices, the default model list) changes how a run is paced and priced, not a verdict,
and lowering a limit after a run of 429s is exactly what a user does before `--resume`; the
models a run covers are recorded in the journal itself.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from holodeck_lsp.checker.file_reading import read_file_bytes
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.test_case import FileInput
from holodeck_lsp.schema.tools.function import FunctionTool
from holodeck_lsp.schema.tools.mcp import MCPTool
from holodeck_lsp.schema.tools.prompt import PromptTool

#: Folders never part of the agent's code: state, environments, caches, VCS.
_SKIPPED_DIRS = frozenset({"__pycache__", "node_modules", "venv", "site-packages"})
#: More Python files than this in the folder: only the named files are hashed (a
#: monorepo's root is not the agent's code, and hashing it would slow every run's start).
_MAX_PY_FILES = 2000

Fingerprint = dict[str, str]


def fingerprint(agent: Agent, agent_path: Path) -> Fingerprint:
    """`{path relative to the agent's folder (posix): sha256}`; a missing file is `missing`."""
    folder = agent_path.parent
    files = [agent_path]
    if agent.test_cases_file:
        files.append(folder / agent.test_cases_file)
    if agent.instructions.file:
        files.append(folder / agent.instructions.file)
    for tool in agent.tools or []:
        if isinstance(tool, FunctionTool | PromptTool) and tool.file:
            files.append(folder / tool.file)
        elif isinstance(tool, MCPTool):
            files += _script_arguments(tool, folder)
    files += _case_files(agent, folder)
    files += _python_files(folder)
    result: Fingerprint = {}
    for path in files:
        name = _name(path, folder)
        if name not in result:  # a file named twice is read once
            result[name] = _sha256(path)
    return dict(sorted(result.items()))


def _script_arguments(tool: MCPTool, folder: Path) -> list[Path]:
    """The arguments of a stdio server that name a file (relative to the agent's folder, as
    the server is started there: runner/agent_code/mcp_servers.py) — its script, a config."""
    found: list[Path] = []
    for argument in tool.args or []:
        if argument.startswith("-"):
            continue
        path = folder / argument
        try:
            if path.is_file():
                found.append(path)
        except (OSError, ValueError):  # a name too long, a NUL: not a file
            continue
    return found


def _case_files(agent: Agent, folder: Path) -> list[Path]:
    """The local files the cases send with their input (case-level and per turn)."""
    inputs: list[FileInput] = []
    for case in agent.test_cases or []:
        inputs += case.files or []
        for turn in case.turns or []:
            inputs += turn.files or []
    return [folder / item.path for item in inputs if item.path]


def changed(recorded: Fingerprint, now: Fingerprint) -> list[str]:
    """The files whose content differs, appeared or disappeared, sorted."""
    return sorted(
        name for name in recorded.keys() | now.keys() if recorded.get(name) != now.get(name)
    )


def _python_files(folder: Path) -> list[Path]:
    found: list[Path] = []
    stack = [folder]
    while stack:
        current = stack.pop()
        try:
            entries = list(current.iterdir())
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith(".") or entry.name in _SKIPPED_DIRS:
                continue  # .holodeck/, .venv/, .git/ and the like
            if entry.is_dir() and not entry.is_symlink():
                stack.append(entry)
            elif entry.suffix == ".py":
                found.append(entry)
                if len(found) > _MAX_PY_FILES:
                    return []
    return found


def _name(path: Path, folder: Path) -> str:
    try:
        return path.resolve().relative_to(folder.resolve()).as_posix()
    except ValueError:
        return str(path.resolve())


def _sha256(path: Path) -> str:
    try:
        return hashlib.sha256(read_file_bytes(path)).hexdigest()
    except OSError:
        return "missing"
