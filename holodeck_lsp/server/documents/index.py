"""Which documents are ours, and which agent a `test_cases_file` include belongs to.

An agent document is a file whose name matches the `agentGlobs` setting (default `agent.yaml`,
`*.agent.yaml`) or a YAML file whose top level has `test_cases:` next to `model:`,
`instructions:` or `name:` — not `test_cases:` alone, which is the mapping form of an include
file. An include is a file some agent's `test_cases_file` names: learnt from every agent we
load, and, for an include opened on its own, from the agent files in its folder and the two
above it. Include diagnostics come from loading the agent (a file of test cases means nothing
on its own) and are published to the include's URI.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path, PurePath

from pygls import uris

from holodeck_lsp.checker.discovery import is_agent_file
from holodeck_lsp.checker.file_reading import read_file_text

YAML_SUFFIXES = (".yaml", ".yml")
#: How far up from an include opened on its own we look for the agent that names it.
INCLUDE_SEARCH_DEPTH = 2

_TOP_LEVEL_CASES = re.compile(r"^test_cases\s*:", re.MULTILINE)
_TOP_LEVEL_AGENT_KEY = re.compile(r"^(?:model|instructions|name)\s*:", re.MULTILINE)
_TEST_CASES_FILE = re.compile(
    r"""^test_cases_file\s*:\s*["']?([^"'#\r\n]+?)["']?\s*(?:#.*)?$""", re.M
)


def uri_to_path(uri: str) -> Path | None:
    path = uris.to_fs_path(uri)
    return Path(path) if path and uri.startswith("file:") else None


def path_key(path: str | os.PathLike[str]) -> str:
    """One spelling per file: absolute, normalised (`a/../b`), case-folded where the OS is."""
    return os.path.normcase(os.path.normpath(os.path.abspath(path)))


def path_to_uri(path: str | os.PathLike[str]) -> str:
    return str(uris.from_fs_path(os.path.normpath(os.path.abspath(path))))


def matches_globs(path: PurePath, globs: Iterable[str]) -> bool:
    return any(path.match(glob) for glob in globs)


def has_agent_key(text: str) -> bool:
    """A top-level `model:`, `instructions:` or `name:` (an agent's, not an include's)."""
    return bool(_TOP_LEVEL_AGENT_KEY.search(text))


def looks_like_agent(text: str) -> bool:
    return bool(_TOP_LEVEL_CASES.search(text) and _TOP_LEVEL_AGENT_KEY.search(text))


class DocumentIndex:
    """Agent ↔ include relations learnt from loads (keys are `path_key`s)."""

    def __init__(self) -> None:
        self._includes_of: dict[str, set[str]] = {}  # agent uri -> include keys
        self._agents_of: dict[str, set[str]] = {}  # include key -> agent uris

    def is_agent(self, uri: str, text: str, globs: Iterable[str]) -> bool:
        path = uri_to_path(uri)
        if path is None:
            return False
        if matches_globs(path, globs):
            return True
        if path.suffix not in YAML_SUFFIXES or self.agents_including(path_key(path)):
            return False
        return looks_like_agent(text)

    def record(self, agent_uri: str, includes: Iterable[str | os.PathLike[str]]) -> None:
        self.forget(agent_uri)
        keys = {path_key(include) for include in includes}
        self._includes_of[agent_uri] = keys
        for key in keys:
            self._agents_of.setdefault(key, set()).add(agent_uri)

    def forget(self, agent_uri: str) -> None:
        for key in self._includes_of.pop(agent_uri, set()):
            agents = self._agents_of.get(key)
            if agents is not None:
                agents.discard(agent_uri)
                if not agents:
                    del self._agents_of[key]

    def includes_of(self, agent_uri: str) -> set[str]:
        return set(self._includes_of.get(agent_uri, set()))

    def agents_including(self, key: str) -> set[str]:
        return set(self._agents_of.get(key, set()))


def find_including_agents(include: Path, depth: int = INCLUDE_SEARCH_DEPTH) -> list[Path]:
    """Agent files near `include` whose `test_cases_file` names it (read, not loaded)."""
    key = path_key(include)
    found: list[Path] = []
    folder = include.parent
    for _ in range(depth + 1):
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            names = []
        for name in names:
            if not is_agent_file(name):
                continue
            candidate = folder / name
            try:
                text = read_file_text(candidate, "utf-8-sig", yaml=True)
            except (OSError, UnicodeDecodeError):
                continue
            match = _TEST_CASES_FILE.search(text)
            if match and path_key(folder / match.group(1).strip()) == key:
                found.append(candidate)
        if folder.parent == folder:
            break
        folder = folder.parent
    return found
