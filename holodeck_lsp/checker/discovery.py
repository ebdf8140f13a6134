"""Which files `holodeck-lsp --check PATH…` checks.

A file is checked as given, whatever its name. A directory stands for every `agent.yaml` and
`*.agent.yaml` below it, found recursively in sorted order so runs are reproducible.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

AGENT_FILE = "agent.yaml"
AGENT_SUFFIX = ".agent.yaml"

#: Directories never searched: dependency and tool trees hold no suites of the project and can
#: be huge. Hidden directories (`.git`, `.tox`, …) are skipped as well.
SKIPPED_DIRS = frozenset({"node_modules", ".venv", "venv", "__pycache__"})


class PathsNotFoundError(Exception):
    """Some of the paths to check do not exist (all of them are named, not just the first)."""

    def __init__(self, paths: Iterable[Path]) -> None:
        self.paths = tuple(paths)
        super().__init__(", ".join(str(path) for path in self.paths))


def is_agent_file(name: str) -> bool:
    return name == AGENT_FILE or (name.endswith(AGENT_SUFFIX) and name != AGENT_SUFFIX)


def find_agent_files(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """The files to check, in argument order, each once; raises `PathsNotFoundError`."""
    given = [Path(path) for path in paths]
    # `exists()` follows symlinks, so a dangling link counts as missing too.
    missing = [path for path in given if not path.exists()]
    if missing:
        raise PathsNotFoundError(missing)
    files: list[Path] = []
    seen: set[str] = set()
    for path in given:
        for file in _agent_files_under(path) if path.is_dir() else [path]:
            # A file named twice (directly and through its directory) is checked once.
            key = os.path.realpath(file)
            if key not in seen:
                seen.add(key)
                files.append(file)
    return files


def _agent_files_under(root: Path) -> list[Path]:
    found: list[Path] = []
    # os.walk rather than rglob: pruning `dirnames` in place keeps it out of skipped trees
    # entirely, and it does not follow directory symlinks (no cycles).
    for directory, dirnames, filenames in os.walk(root):
        dirnames[:] = [name for name in dirnames if not _skipped(name)]
        found.extend(Path(directory, name) for name in filenames if is_agent_file(name))
    return sorted(found)


def _skipped(directory_name: str) -> bool:
    return directory_name.startswith(".") or directory_name in SKIPPED_DIRS
