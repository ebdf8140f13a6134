"""Which agent files, and whose stored runs, a PATH on the command line means — one answer
for every command that takes an agent (`run`, `check`, `runs`, `report`, `compare`, and the
completion scripts' `__run-refs`, so a Tab offers the runs the command would read).

A file is taken as it is, whatever its name. A folder means the agent files below it, found
as `check` finds them (checker/discovery.py: `agent.yaml`, `*.agent.yaml`, recursively), so
`runs`, `report latest` and `compare --agent sample` from the repository root find the runs
stored beside `sample/financial-assistant/agent.yaml`. An agent's runs sit beside it
(`<its folder>/.holodeck/runs`, layout.py); agent files sharing a folder share that history.

Light on purpose (config.discovery, the layout, the listing): `__run-refs` imports it on
every Tab.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from holodeck_lsp.checker.discovery import PathsNotFoundError, find_agent_files
from holodeck_lsp.runner.run_history.layout import pasteable, runs_folder
from holodeck_lsp.runner.run_history.listing import scan

NO_AGENT_FILES_HINT = (
    "agent files are named agent.yaml or *.agent.yaml; name a file to use it whatever its name"
)
#: Agent files named in a "nothing stored" message before "and N more".
_SHOWN = 5


class AgentNotChosen(Exception):
    """No agent (or no single one) is meant; the message says why and what to do."""


class NothingStored(AgentNotChosen):
    """No run is stored for the agents a PATH names; the message says where it looked."""


def agent_files(paths: Sequence[Path]) -> list[Path]:
    """The agent files `paths` name (a file as it is, a folder's agent files below it).
    Raises AgentNotChosen — one line per missing path, or why nothing was found."""
    try:
        found = find_agent_files(paths)
    except PathsNotFoundError as missing:
        raise AgentNotChosen(
            "\n".join(f"no such file or directory: {path}" for path in missing.paths)
        ) from None
    if not found:
        where = ", ".join(map(str, paths))
        raise AgentNotChosen(f"no agent files found under {where} ({NO_AGENT_FILES_HINT})")
    return found


@dataclass(frozen=True, slots=True)
class History:
    """One `.holodeck/runs/` a PATH reaches, and whose runs in it are meant."""

    folder: Path
    #: Only this agent file's runs (PATH named the file); None: every run stored there.
    agent_file: str | None
    #: The agent files found whose runs are stored here.
    agents: tuple[Path, ...]

    @property
    def agent_dir(self) -> Path:
        return self.folder.parent.parent

    def has_runs(self) -> bool:
        listing = scan(self.folder, self.agent_file)
        return bool(listing.runs or listing.unreadable)


def histories(path: Path) -> list[History]:
    """The histories `path` (an agent file, or a folder of them) reaches, in the order of
    its agent files; a folder's own `.holodeck/runs` too (its agent files may be gone).
    Raises AgentNotChosen when `path` does not exist."""
    if not path.exists():
        raise AgentNotChosen(f"no such file or directory: {path}")
    if not path.is_dir():
        return [History(runs_folder(path), path.name, (path,))]
    grouped: dict[Path, list[Path]] = {}
    for file in find_agent_files([path]):
        grouped.setdefault(runs_folder(file), []).append(file)
    own = runs_folder(path)
    if own not in grouped and own.is_dir():
        grouped[own] = []
    return [History(folder, None, tuple(files)) for folder, files in grouped.items()]


def one_history(path: Path) -> History:
    """The one history under `path` that holds runs. Raises NothingStored (none does: the
    message names where it looked and the agent files found) or AgentNotChosen (several do)."""
    reached = histories(path)
    stored = [history for history in reached if history.has_runs()]
    if len(stored) == 1:
        return stored[0]
    if not stored:
        raise NothingStored(nothing_stored(path, reached))
    names = ", ".join(str(history.agent_dir) for history in stored)
    raise AgentNotChosen(
        f"several agents under {path} have stored runs ({names}): choose one with --agent PATH"
    )


def one_agent(path: Path) -> Path:
    """The one agent file under `path` with stored runs, for a command that compares one
    agent's runs. Raises NothingStored or AgentNotChosen as `one_history` does."""
    history = one_history(path)
    if history.agent_file is not None:
        return history.agents[0]
    with_runs = [file for file in history.agents if scan(history.folder, file.name).runs]
    if len(with_runs) == 1:
        return with_runs[0]
    if not with_runs:
        raise NothingStored(nothing_stored(path, [history]))
    names = ", ".join(str(file) for file in with_runs)
    raise AgentNotChosen(
        f"several agent files in {history.agent_dir} have stored runs ({names}): "
        "choose one with --agent FILE"
    )


def nothing_stored(path: Path, reached: Sequence[History]) -> str:
    """ "no stored runs …": where it looked, which agent files it found, what to do."""
    files = [file for history in reached for file in history.agents]
    under = "the current folder" if path == Path(".") else str(path)
    if not files:
        looked = ", ".join(str(h.folder) for h in reached) or str(runs_folder(path))
        return (
            f"no stored runs under {under}: no agent files found there ({NO_AGENT_FILES_HINT}), "
            f"and nothing in {looked}; pass the agent file or its folder"
        )
    folders = [str(history.folder) for history in reached]
    shown = ", ".join(map(str, files[:_SHOWN]))
    more = f" and {len(files) - _SHOWN} more" if len(files) > _SHOWN else ""
    looked = ", ".join(folders[:_SHOWN]) + (
        f" and {len(folders) - _SHOWN} more" if len(folders) > _SHOWN else ""
    )
    target = files[0] if len(files) == 1 else path
    return (
        f"no stored runs under {under}: looked in {looked} (agent files found: {shown}{more}); "
        f"each `holodeck-lsp run {pasteable(target)}` stores one, unless --no-save"
    )
