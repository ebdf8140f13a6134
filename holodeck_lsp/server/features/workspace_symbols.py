"""workspace/symbol: the test cases and tools of every agent file in the workspace (and of
their `test_cases_file` includes), so "go to symbol in workspace" finds a case by name.

Agent files are found as `--check` finds them in a folder (`config.discovery`); open ones are
read from the editor. The walk runs in a worker thread, off the event loop.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from lsprotocol import types

from holodeck_lsp.server.core import HolodeckServer
from holodeck_lsp.server.documents.index import path_key, uri_to_path
from holodeck_lsp.server.documents.name_kinds import NameKind
from holodeck_lsp.server.guard import answer_or

#: Cap on agent files read for one request (a huge monorepo must stay responsive).
MAX_AGENTS = 500
#: Editors ask again on every keystroke of the symbol picker: the folder walk is re-used this
#: long (the files themselves are re-read when they change, see `suite_files`).
WALK_REUSE_S = 5.0


def matches(query: str, name: str) -> bool:
    """The usual fuzzy rule: the query's characters appear in the name in order, any case."""
    remaining = iter(name.casefold())
    return all(char in remaining for char in query.casefold() if not char.isspace())


_walks: dict[tuple[Path, ...], tuple[float, list[Path]]] = {}


def _walk(roots: list[Path]) -> list[Path]:
    """The agent files under `roots`, as `--check DIR` finds them (re-used briefly)."""
    from holodeck_lsp.checker.discovery import find_agent_files

    key = tuple(roots)
    cached = _walks.get(key)
    now = time.monotonic()
    if cached is not None and now - cached[0] < WALK_REUSE_S:
        return cached[1]
    found: list[Path] = []
    for root in roots:
        try:
            found.extend(find_agent_files([root])[:MAX_AGENTS])
        except Exception:  # a folder removed since the client named it
            continue
    _walks[key] = (now, found)
    return found


def _agents(server: HolodeckServer) -> list[Path]:
    from holodeck_lsp.checker.discovery import is_agent_file

    roots: list[Path] = []
    for folder in list(server.workspace.folders.values()):
        path = uri_to_path(folder.uri)
        if path is not None:
            roots.append(path)
    if not roots and server.workspace.root_path:
        roots.append(Path(server.workspace.root_path))
    found: dict[str, Path] = {}
    for uri in list(server.workspace.text_documents):
        path = uri_to_path(uri)
        if path is not None and is_agent_file(path.name):
            found[path_key(path)] = path
    for path in _walk(roots):
        found.setdefault(path_key(path), path)
    return list(found.values())[:MAX_AGENTS]


def workspace_symbols(server: HolodeckServer, query: str) -> list[types.WorkspaceSymbol]:
    from holodeck_lsp.server.documents.suite_files import suite_files

    cache = suite_files(server)
    symbols: list[types.WorkspaceSymbol] = []
    seen: set[tuple[str, int, int]] = set()
    for agent in _agents(server):
        for file in cache.suite(agent):
            for span in file.names:
                if span.kind is NameKind.EXPECTED_TOOL or not matches(query, span.text):
                    continue
                if (file.uri, span.line, span.start) in seen:
                    continue
                seen.add((file.uri, span.line, span.start))
                start = file.converter.to_client(span.line, span.start)
                end = file.converter.to_client(span.line, span.end)
                is_case = span.kind is NameKind.CASE
                symbols.append(
                    types.WorkspaceSymbol(
                        name=span.text,
                        kind=types.SymbolKind.Class if is_case else types.SymbolKind.Function,
                        location=types.Location(
                            uri=file.uri,
                            range=types.Range(types.Position(*start), types.Position(*end)),
                        ),
                        container_name=f"{agent.parent.name}/{agent.name}"
                        + (" test case" if is_case else " tool"),
                    )
                )
    return symbols


def register(server: HolodeckServer) -> None:
    @server.feature(types.WORKSPACE_SYMBOL)
    @answer_or(list, "workspaceSymbol")
    async def on_workspace_symbol(
        params: types.WorkspaceSymbolParams,
    ) -> list[types.WorkspaceSymbol]:
        return await asyncio.to_thread(workspace_symbols, server, params.query)
