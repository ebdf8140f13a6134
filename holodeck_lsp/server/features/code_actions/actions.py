"""`textDocument/codeAction`: quick fixes for our diagnostics, "Fix all HDxxx in this file"
for a code with more than one fixable diagnostic, and the single-turn -> `turns:` refactor.

The client sends back the diagnostics it shows for the range; each of ours carries `code` and
`data` (`suggestion`, `expected`, …), which say which fix applies. A client that drops `data`
(it need not keep it without `publishDiagnostics.dataSupport`: Kate 22.12) gets it back from
the same diagnostic (code, range, message) of the document's last check. The fixes themselves are
text edits computed from the document's current text (`quick_fixes`), off the event loop, and
are converted here to the client's position encoding and workspace-edit flavour:
`documentChanges` (with `CreateFile` for a new grader module) when the client supports them,
otherwise plain `changes` (and no action that would need to create a file). A failure of any
kind means no actions, never an error response (`guard.answer_or`).

`extra` sources add actions of other features after the fixes (the run feature's "Run
turn" / "Run case" for clients without code lenses, `server/runs/run_actions.py`); each is
guarded on its own, so a failing one never hides the fixes.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from holodeck_lsp.checker.diagnostics import Position
from holodeck_lsp.checker.file_reading import read_file_text
from holodeck_lsp.checker.text_positions import EditorLines
from holodeck_lsp.server.core import HolodeckServer
from holodeck_lsp.server.documents.index import uri_to_path
from holodeck_lsp.server.documents.positions import PositionConverter
from holodeck_lsp.server.documents.size_limit import too_large
from holodeck_lsp.server.guard import answer_or

if TYPE_CHECKING:
    from holodeck_lsp.checker.fixes import Edit, Fix
    from holodeck_lsp.server.features.diagnostics.engine import DiagnosticsEngine

KINDS = [types.CodeActionKind.QuickFix, types.CodeActionKind.RefactorRewrite]
#: Another feature's actions at the request's range (read at each request: may be filled
#: after registering).
ActionSource = Callable[
    [types.CodeActionParams], Awaitable[Sequence[types.CodeAction | types.Command]]
]


@dataclass(frozen=True, slots=True)
class _Request:
    """What a worker thread needs, read on the event loop."""

    uri: str
    text: str
    version: int | None
    encoding: str
    agent_dir: Path | None
    diagnostics: list[types.Diagnostic]
    #: All of ours in the document, from its last check of this version (for fix-all).
    file_diagnostics: list[types.Diagnostic]
    cursor: types.Position
    want_fixes: bool
    want_refactor: bool


@dataclass(frozen=True, slots=True)
class _Found:
    fix: Fix
    kind: types.CodeActionKind
    diagnostics: list[types.Diagnostic]


def _wanted(only: Sequence[str] | None, kind: types.CodeActionKind) -> bool:
    """Whether the client's `only` filter admits `kind` (a prefix match, as the spec says)."""
    if not only:
        return True
    return any(kind.value == want or kind.value.startswith(want + ".") for want in only)


def _offset(lines: EditorLines, converter: PositionConverter, where: types.Position) -> int:
    line, character = converter.from_client(where.line, where.character)
    return lines.index(Position(line, character))


def _compute(request: _Request) -> list[_Found]:
    # Imported in the worker: it pulls in the YAML parser and schema (see `core.warm_up`).
    from holodeck_lsp.checker.fixes import fixes_for, to_turns

    converter = PositionConverter(request.text, request.encoding)
    lines = EditorLines(request.text)
    found: list[_Found] = []
    if request.want_fixes:
        codes: list[str] = []
        for diagnostic in request.diagnostics:
            if not _ours(diagnostic):
                continue
            assert isinstance(diagnostic.code, str)
            data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
            offset = _offset(lines, converter, diagnostic.range.start)
            fixes = fixes_for(
                request.text, diagnostic.code, offset, data, request.agent_dir, diagnostic.message
            )
            found.extend(_Found(fix, types.CodeActionKind.QuickFix, [diagnostic]) for fix in fixes)
            if fixes and diagnostic.code not in codes:
                codes.append(diagnostic.code)
        found.extend(_fix_all(request, lines, converter, codes))
    if request.want_refactor:
        refactor = to_turns(request.text, _offset(lines, converter, request.cursor))
        if refactor is not None:
            found.append(_Found(refactor, types.CodeActionKind.RefactorRewrite, []))
    return found


def _ours(diagnostic: types.Diagnostic) -> bool:
    return diagnostic.source == "holodeck" and isinstance(diagnostic.code, str)


def _fix_all(
    request: _Request, lines: EditorLines, converter: PositionConverter, codes: list[str]
) -> list[_Found]:
    """For each code the cursor's diagnostics have a fix for: one fix for all of them."""
    from holodeck_lsp.checker.fixes import Reported, fix_all

    reported: list[tuple[Reported, types.Diagnostic]] = []
    for diagnostic in request.file_diagnostics:
        if _ours(diagnostic) and diagnostic.code in codes:
            assert isinstance(diagnostic.code, str)
            data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
            offset = _offset(lines, converter, diagnostic.range.start)
            item = Reported(diagnostic.code, offset, data, diagnostic.message)
            reported.append((item, diagnostic))
    found: list[_Found] = []
    for code in codes:
        combined = fix_all(request.text, code, [item for item, _ in reported], request.agent_dir)
        if combined is None:
            continue
        fix, fixed = combined
        tied = [diagnostic for item, diagnostic in reported if item in fixed]
        found.append(_Found(fix, types.CodeActionKind.QuickFix, tied))
    return found


class _EditBuilder:
    """Builds workspace edits in the flavour the client supports."""

    def __init__(
        self, server: HolodeckServer, engine: DiagnosticsEngine, request: _Request
    ) -> None:
        self.server = server
        self.engine = engine
        self.request = request
        workspace = server.client_capabilities.workspace
        edit_caps = workspace.workspace_edit if workspace else None
        self.document_changes = bool(edit_caps and edit_caps.document_changes)
        operations = (edit_caps.resource_operations if edit_caps else None) or []
        self.can_create = self.document_changes and types.ResourceOperationKind.Create in operations

    def text_edits(self, text: str, edits: Sequence[Edit]) -> list[types.TextEdit]:
        converter = PositionConverter(text, self.request.encoding)
        lines = EditorLines(text)

        def position(offset: int) -> types.Position:
            where = lines.position(offset)
            line, character = converter.to_client(where.line, where.character)
            return types.Position(line, character)

        return [
            types.TextEdit(types.Range(position(e.start), position(e.end)), e.new_text)
            for e in edits
        ]

    def build(self, fix: Fix) -> types.WorkspaceEdit | None:
        request = self.request
        per_file: list[tuple[str, int | None, list[types.TextEdit], bool]] = []
        if fix.edits:
            edits = self.text_edits(request.text, fix.edits)
            per_file.append((request.uri, request.version, edits, False))
        for change in fix.files:
            uri = self.engine.uri_for(change.path)
            opened = self.server.workspace.text_documents.get(uri)
            if change.create and not self.can_create:
                return None
            if opened is not None and opened.source != change.text:
                return None  # edited in the editor since it was saved: offsets would be off
            version = opened.version if opened is not None else None
            per_file.append(
                (uri, version, self.text_edits(change.text, change.edits), change.create)
            )
        if not self.document_changes:
            return types.WorkspaceEdit(changes={uri: edits for uri, _, edits, _ in per_file})
        document_changes: list[
            types.TextDocumentEdit | types.CreateFile | types.RenameFile | types.DeleteFile
        ] = []
        for uri, version, edits, create in per_file:
            if create:
                options = types.CreateFileOptions(overwrite=False, ignore_if_exists=True)
                document_changes.append(types.CreateFile(uri=uri, options=options))
            identifier = types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version)
            document_changes.append(types.TextDocumentEdit(identifier, list(edits)))
        return types.WorkspaceEdit(document_changes=document_changes)


def _agent_dir(engine: DiagnosticsEngine, uri: str) -> Path | None:
    """Where grader modules are looked up: the folder of the agent this document belongs to."""
    path = uri_to_path(uri)
    if path is None:
        return None
    if uri not in engine.open_agents:
        agents = sorted(engine.agents_including(uri))
        agent = uri_to_path(agents[0]) if agents else None
        if agent is not None:
            return agent.parent
    return path.parent


def _file_diagnostics(
    engine: DiagnosticsEngine, uri: str, text: str, version: int | None
) -> list[types.Diagnostic]:
    """Our diagnostics of the document as it is now: an agent's last check if it was of this
    version; an include's from the agents including it, if the buffer is as saved (includes
    are checked from disk). Otherwise none: fix-all is offered once the check catches up."""
    result = engine.results.get(uri)
    if uri in engine.open_agents:
        if result is None or result.version != version:
            return []
        return list(result.by_uri.get(uri, []))
    path = uri_to_path(uri)
    try:
        if path is None or read_file_text(path, "utf-8", yaml=True) != text:
            return []
    except (OSError, UnicodeDecodeError):
        return []
    items: list[types.Diagnostic] = []
    for agent in sorted(engine.agents_including(uri)):
        checked = engine.results.get(agent)
        if checked is not None:
            items.extend(checked.by_uri.get(uri, []))
    return items


def _with_data(
    sent: Sequence[types.Diagnostic], checked: Sequence[types.Diagnostic]
) -> list[types.Diagnostic]:
    """The client's diagnostics, each of ours that came back without `data` given the data
    of the same diagnostic from the last check."""
    restored = []
    for diagnostic in sent:
        if diagnostic.data is None and _ours(diagnostic):
            same = next(
                (
                    known
                    for known in checked
                    if known.data is not None
                    and known.code == diagnostic.code
                    and known.range == diagnostic.range
                    and known.message == diagnostic.message
                ),
                None,
            )
            if same is not None:
                diagnostic = copy.copy(diagnostic)
                diagnostic.data = same.data
        restored.append(diagnostic)
    return restored


def actions_for(
    server: HolodeckServer, engine: DiagnosticsEngine, params: types.CodeActionParams
) -> tuple[_Request, _EditBuilder] | None:
    uri = params.text_document.uri
    document = server.workspace.text_documents.get(uri)
    if document is None or too_large(document.source):
        return None
    only = params.context.only
    checked = _file_diagnostics(engine, uri, document.source, document.version)
    request = _Request(
        uri=uri,
        text=document.source,
        version=document.version,
        encoding=server.position_encoding,
        agent_dir=_agent_dir(engine, uri),
        diagnostics=_with_data(params.context.diagnostics, checked),
        file_diagnostics=checked,
        cursor=params.range.start,
        want_fixes=_wanted(only, types.CodeActionKind.QuickFix),
        want_refactor=_wanted(only, types.CodeActionKind.RefactorRewrite),
    )
    return request, _EditBuilder(server, engine, request)


def register(
    server: HolodeckServer, engine: DiagnosticsEngine, extra: Sequence[ActionSource] = ()
) -> None:
    async def others(params: types.CodeActionParams) -> list[types.CodeAction | types.Command]:
        found: list[types.CodeAction | types.Command] = []
        for source in extra:
            found.extend(await answer_or(list, "codeAction (extra)")(source)(params))
        return found

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=KINDS)
    )
    @answer_or(None, "codeAction")  # a broken fix must not break the editor's lightbulb
    async def code_action(
        params: types.CodeActionParams,
    ) -> list[types.CodeAction | types.Command] | None:
        # Fix-all reads the check of this very version: let a pending one finish first.
        await engine.settled(params.text_document.uri)
        prepared = actions_for(server, engine, params)
        if prepared is None:
            return None
        request, builder = prepared
        loop = asyncio.get_running_loop()
        found = await loop.run_in_executor(None, _compute, request)
        current = server.workspace.text_documents.get(request.uri)
        if current is None or current.version != request.version:
            return None  # the text changed while we worked: the edits would be stale
        # One action per distinct fix: HD111 is reported on each legacy field, all with
        # the same fix, which then lists all of them.
        merged: dict[tuple[str, types.CodeActionKind, str], list[_Found]] = {}
        for item in found:
            key = (item.fix.title, item.kind, repr((item.fix.edits, item.fix.files)))
            merged.setdefault(key, []).append(item)
        actions: list[types.CodeAction | types.Command] = []
        for items in merged.values():
            fix = items[0].fix
            edit = builder.build(fix)
            if edit is None:
                continue
            tied = [diagnostic for item in items for diagnostic in item.diagnostics]
            actions.append(
                types.CodeAction(
                    title=fix.title,
                    kind=items[0].kind,
                    diagnostics=tied or None,
                    is_preferred=fix.preferred or None,
                    edit=edit,
                )
            )
        return actions + await others(params)
