"""References and rename for a tool name and a case name, across the agent file and its
`test_cases_file` include (whichever of them is open): `textDocument/references`,
`textDocument/prepareRename`, `textDocument/rename`.

A tool is named by its `name:` under `tools:` and by `expected_tools` entries. HoloDeck matches
an expected name as a substring of the called tool's name, so the references of `subtract`
include an entry `sub`; a rename changes only the entries written exactly `subtract` and says
which others it left (a `window/showMessage`), since `sub` still matches the new name or not
depending on what it is — the user decides.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lsprotocol import types

from holodeck_lsp.server.core import HolodeckServer
from holodeck_lsp.server.documents.index import looks_like_agent, uri_to_path
from holodeck_lsp.server.documents.name_kinds import NameKind
from holodeck_lsp.server.guard import answer_or

if TYPE_CHECKING:
    # The YAML reader is imported with the first request, not at start-up.
    from holodeck_lsp.server.documents.suite_files import SuiteFile
    from holodeck_lsp.server.documents.suite_names import NameSpan

#: A name written plain in YAML without changing its meaning (else it is written quoted).
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*(?: [A-Za-z0-9_.\-]+)*")
_RESERVED = {"true", "false", "yes", "no", "on", "off", "null", "none", "~"}


@dataclass(frozen=True, slots=True)
class Named:
    """What the cursor is on: a tool's or a case's name, and the suite it is read in."""

    kind: NameKind
    name: str
    span: NameSpan
    here: SuiteFile
    files: list[SuiteFile]


@dataclass(frozen=True, slots=True)
class Hit:
    file: SuiteFile
    span: NameSpan
    exact: bool


def _suite(
    server: HolodeckServer, uri: str, agents_including: Callable[[str], set[str]]
) -> tuple[SuiteFile, list[SuiteFile]] | None:
    """The file at `uri` and every file of its suite (itself first)."""
    from holodeck_lsp.server.documents.suite_files import suite_files

    path = uri_to_path(uri)
    if path is None:
        return None
    cache = suite_files(server)
    here = cache.load(path)
    if here is None:
        return None
    files = cache.suite(path)
    if len(files) <= 1 and here.include() is None and not looks_like_agent(here.text):
        # Perhaps an include: the agents naming it bring the rest of the suite.
        for agent_uri in sorted(agents_including(uri)):
            agent = uri_to_path(agent_uri)
            if agent is not None:
                files.extend(f for f in cache.suite(agent) if f.uri != here.uri)
    # One entry per file (two agents including the same file bring it twice).
    unique = list({file.uri: file for file in files}.values())
    return here, unique


def named_at(
    server: HolodeckServer,
    uri: str,
    position: types.Position,
    agents_including: Callable[[str], set[str]],
) -> Named | None:
    found = _suite(server, uri, agents_including)
    if found is None:
        return None
    here, files = found
    line, character = here.converter.from_client(position.line, position.character)
    for span in here.names:
        if span.line == line and span.start <= character <= span.end:
            kind = NameKind.CASE if span.kind is NameKind.CASE else NameKind.TOOL
            return Named(kind, span.text, span, here, files)
    return None


def hits(named: Named) -> list[Hit]:
    """Every place naming the same tool or case; `exact` when it is written the same."""
    from holodeck_lsp.server.documents.suite_names import matches_tool

    found: list[Hit] = []
    for file in named.files:
        for span in file.names:
            if named.kind is NameKind.CASE:
                if span.kind is NameKind.CASE and span.text == named.name:
                    found.append(Hit(file, span, True))
            elif span.kind is NameKind.TOOL and span.text == named.name:
                found.append(Hit(file, span, True))
            elif span.kind is NameKind.EXPECTED_TOOL and matches_tool(span.text, named.name):
                found.append(Hit(file, span, span.text == named.name))
    return found


def _range(file: SuiteFile, span: NameSpan) -> types.Range:
    start = file.converter.to_client(span.line, span.start)
    end = file.converter.to_client(span.line, span.end)
    return types.Range(types.Position(*start), types.Position(*end))


def _written(new_name: str, span: NameSpan, file: SuiteFile) -> tuple[types.Range, str]:
    """The edit writing `new_name` in place of `span`: inside the quotes when it was quoted,
    else plain when YAML reads it back as the same text, else double-quoted."""
    line = file.converter.lines[span.line] if span.line < len(file.converter.lines) else ""
    quoted = span.start > 0 and line[span.start - 1 : span.start] in ('"', "'")
    if quoted:
        quote = line[span.start - 1]
        inner = json.dumps(new_name)[1:-1] if quote == '"' else new_name.replace("'", "''")
        return _range(file, span), inner
    if _PLAIN.fullmatch(new_name) and new_name.lower() not in _RESERVED:
        return _range(file, span), new_name
    return _range(file, span), json.dumps(new_name, ensure_ascii=False)


def _where(hit: Hit) -> str:
    return f"{hit.file.path.name}:{hit.span.line + 1}"


def rename_edit(named: Named, new_name: str) -> tuple[types.WorkspaceEdit, list[Hit]]:
    """The edit renaming every exact name, and the substring entries it left."""
    changes: dict[str, list[types.TextEdit]] = {}
    left: list[Hit] = []
    for hit in hits(named):
        if not hit.exact:
            left.append(hit)
            continue
        where, text = _written(new_name, hit.span, hit.file)
        changes.setdefault(hit.file.uri, []).append(types.TextEdit(where, text))
    return types.WorkspaceEdit(changes=changes), left


def register(server: HolodeckServer, agents_including: Callable[[str], set[str]]) -> None:
    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    @answer_or(list, "references")
    def on_references(params: types.ReferenceParams) -> list[types.Location]:
        named = named_at(server, params.text_document.uri, params.position, agents_including)
        if named is None:
            return []
        include_declaration = params.context.include_declaration
        return [
            types.Location(uri=hit.file.uri, range=_range(hit.file, hit.span))
            for hit in hits(named)
            if include_declaration or hit.span.kind is NameKind.EXPECTED_TOOL
        ]

    @server.feature(
        types.TEXT_DOCUMENT_PREPARE_RENAME,
    )
    @answer_or(None, "prepareRename")
    def on_prepare_rename(
        params: types.PrepareRenameParams,
    ) -> types.PrepareRenamePlaceholder | None:
        named = named_at(server, params.text_document.uri, params.position, agents_including)
        if named is None:
            return None
        return types.PrepareRenamePlaceholder(
            range=_range(named.here, named.span), placeholder=named.name
        )

    @server.feature(types.TEXT_DOCUMENT_RENAME)
    @answer_or(None, "rename")
    def on_rename(params: types.RenameParams) -> types.WorkspaceEdit | None:
        named = named_at(server, params.text_document.uri, params.position, agents_including)
        new_name = params.new_name.strip()
        if named is None or not new_name or new_name == named.name:
            return None
        edit, left = rename_edit(named, new_name)
        if left:
            listed = ", ".join(f"'{hit.span.text}' ({_where(hit)})" for hit in left[:5])
            more = f" and {len(left) - 5} more" if len(left) > 5 else ""
            server.window_show_message(
                types.ShowMessageParams(
                    type=types.MessageType.Info,
                    message=(
                        f"Renamed '{named.name}' to '{new_name}' where it is written exactly; "
                        f"left {len(left)} expected_tools entr{'y' if len(left) == 1 else 'ies'}"
                        f" matching it as a substring: {listed}{more}. Check that they still "
                        f"name the tool you mean."
                    ),
                )
            )
        return edit
