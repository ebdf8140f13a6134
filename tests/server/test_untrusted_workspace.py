"""An untrusted workspace runs none of its code, whatever the editor asks (docs/checks.md,
"What can run your code"): the real server over stdio, started untrusted on a hostile
workspace (tests/hostile/untrusted_code.py: grader modules, a package `__init__`, a module
only PYTHONPATH reaches, a tools module and an MCP server's command, each leaving a marker
when run) with stored runs that regressed, is driven through **every** method it registers
and every command it has — read from its initialize answer and from its own tables
(`create_server`'s features and commands), so a method or command added later is driven the
day it is added, or this test fails until it is. Then the hover on the regressed turn and
the comparison. No marker may appear."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import attrs
import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.hostile.untrusted_code import HostileWorkspace, make_workspace, write_agent
from tests.server.lsp_client import (
    SERVER_COMMAND,
    SERVER_ENV,
    TIMEOUT,
    change_file,
    initialize,
    make_client,
    open_file,
    published,
    uri,
    wait_for,
)
from tests.server.runs.stored_history import make_history

pytestmark = pytest.mark.slow  # the CLI stores three runs, then a server answers ~2,000 requests

#: Each capability the initialize answer may carry -> the methods it advertises. A capability
#: missing here fails the test: map it (and add a driver below) when the server grows one.
CAPABILITY_METHODS: dict[str, tuple[str, ...]] = {
    "position_encoding": (),  # not a method
    "text_document_sync": (
        types.TEXT_DOCUMENT_DID_OPEN,
        types.TEXT_DOCUMENT_DID_CHANGE,
        types.TEXT_DOCUMENT_DID_SAVE,
        types.TEXT_DOCUMENT_DID_CLOSE,
    ),
    "hover_provider": (types.TEXT_DOCUMENT_HOVER,),
    "completion_provider": (types.TEXT_DOCUMENT_COMPLETION,),
    "definition_provider": (types.TEXT_DOCUMENT_DEFINITION,),
    "references_provider": (types.TEXT_DOCUMENT_REFERENCES,),
    "document_symbol_provider": (types.TEXT_DOCUMENT_DOCUMENT_SYMBOL,),
    "code_action_provider": (types.TEXT_DOCUMENT_CODE_ACTION,),
    "code_lens_provider": (types.TEXT_DOCUMENT_CODE_LENS,),
    "document_link_provider": (types.TEXT_DOCUMENT_DOCUMENT_LINK,),
    "rename_provider": (types.TEXT_DOCUMENT_RENAME, types.TEXT_DOCUMENT_PREPARE_RENAME),
    "folding_range_provider": (types.TEXT_DOCUMENT_FOLDING_RANGE,),
    "execute_command_provider": (types.WORKSPACE_EXECUTE_COMMAND,),
    "workspace_symbol_provider": (types.WORKSPACE_SYMBOL,),
    "semantic_tokens_provider": (
        types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL,
        types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA,
    ),
    "inlay_hint_provider": (types.TEXT_DOCUMENT_INLAY_HINT,),
    "diagnostic_provider": (types.TEXT_DOCUMENT_DIAGNOSTIC, types.WORKSPACE_DIAGNOSTIC),
}
#: Argument lists every command is sent with, for each file (a command with other arguments
#: answers "bad arguments", which is driven too).
COMMAND_ARGUMENTS: tuple[Callable[[str], list[Any]], ...] = (
    lambda document: [document],
    lambda document: [document, 0],
    lambda document: [document, 1],
    lambda document: [document, 0, 0],
    lambda document: [document, 0, 1],
    lambda document: [document, {"format": "markdown"}],
    lambda document: [document, {"format": "html"}],
    lambda document: [],
)


def registered() -> tuple[set[str], set[str]]:
    """The methods and commands the server registers (its own tables), in the `both`
    diagnostics mode, where it registers the most."""
    from holodeck_lsp.server.app import create_server

    server = create_server()
    server.settings.diagnostics = "both"
    for hook in server.initialize_hooks:
        hook(types.InitializeParams(capabilities=types.ClientCapabilities()))
    return set(server.protocol.fm.features), set(server.protocol.fm.commands)


def advertised(result: types.InitializeResult) -> tuple[set[str], set[str]]:
    """The methods and commands the initialize answer advertises; fails on a capability
    `CAPABILITY_METHODS` does not know."""
    capabilities = result.capabilities
    methods: set[str] = set()
    for attribute in attrs.fields(types.ServerCapabilities):
        value = getattr(capabilities, attribute.name)
        if value is None or value is False:
            continue
        if attribute.name == "workspace":
            methods.update(_workspace_methods(value))
            continue
        if attribute.name not in CAPABILITY_METHODS:
            pytest.fail(f"the server advertises {attribute.name!r}: add it to CAPABILITY_METHODS")
        methods.update(CAPABILITY_METHODS[attribute.name])
    provider = capabilities.execute_command_provider
    return methods, set(provider.commands) if provider is not None else set()


def _workspace_methods(options: types.WorkspaceOptions) -> set[str]:
    """`workspace.workspaceFolders` -> its notification; anything else there fails."""
    folders = options.workspace_folders
    found = {types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS} if folders is not None else set()
    operations = options.file_operations
    for name in attrs.fields_dict(types.FileOperationOptions) if operations else ():
        if getattr(operations, name) is not None:
            pytest.fail(f"the server advertises workspace.fileOperations.{name}: map it here")
    if options.text_document_content is not None:
        pytest.fail("the server advertises workspace.textDocumentContent: map it here")
    return found


@dataclass
class Session:
    client: LanguageClient
    workspace: HostileWorkspace
    texts: dict[str, str] = field(default_factory=dict)
    answered: int = 0

    async def ask(self, method: str, params: Any) -> Any:
        self.answered += 1
        return await asyncio.wait_for(
            self.client.protocol.send_request_async(method, params), TIMEOUT
        )

    def documents(self) -> list[types.TextDocumentIdentifier]:
        return [types.TextDocumentIdentifier(uri=document) for document in self.texts]

    def positions(self, document: str) -> list[types.Position]:
        """Where a user may put the cursor: each line's start, key, value and end."""
        found: list[types.Position] = []
        for line, text in enumerate(self.texts[document].splitlines()):
            columns = {0, len(text) - len(text.lstrip()), len(text)}
            if ": " in text:
                columns.add(text.index(": ") + 3)
            found += [types.Position(line, column) for column in sorted(columns)]
        return found

    def everywhere(self) -> list[tuple[types.TextDocumentIdentifier, types.Position]]:
        return [(d, p) for d in self.documents() for p in self.positions(d.uri)]

    def whole(self, document: str) -> types.Range:
        return types.Range(types.Position(0, 0), types.Position(len(self.texts[document]), 0))


async def _at_positions(session: Session, method: str, build: Callable[..., Any]) -> None:
    for document, position in session.everywhere():
        await session.ask(method, build(document, position))


async def _hover(session: Session) -> None:
    await _at_positions(session, types.TEXT_DOCUMENT_HOVER, types.HoverParams)


async def _completion(session: Session) -> None:
    await _at_positions(session, types.TEXT_DOCUMENT_COMPLETION, types.CompletionParams)


async def _definition(session: Session) -> None:
    await _at_positions(session, types.TEXT_DOCUMENT_DEFINITION, types.DefinitionParams)


async def _references(session: Session) -> None:
    context = types.ReferenceContext(include_declaration=True)
    await _at_positions(
        session,
        types.TEXT_DOCUMENT_REFERENCES,
        lambda d, p: types.ReferenceParams(text_document=d, position=p, context=context),
    )


async def _prepare_rename(session: Session) -> None:
    await _at_positions(session, types.TEXT_DOCUMENT_PREPARE_RENAME, types.PrepareRenameParams)


async def _rename(session: Session) -> None:
    await _at_positions(
        session,
        types.TEXT_DOCUMENT_RENAME,
        lambda d, p: types.RenameParams(text_document=d, position=p, new_name="renamed"),
    )


async def _per_document(session: Session, method: str, build: Callable[..., Any]) -> Any:
    return [await session.ask(method, build(document)) for document in session.documents()]


async def _symbols(session: Session) -> None:
    await _per_document(session, types.TEXT_DOCUMENT_DOCUMENT_SYMBOL, types.DocumentSymbolParams)


async def _folding(session: Session) -> None:
    await _per_document(session, types.TEXT_DOCUMENT_FOLDING_RANGE, types.FoldingRangeParams)


async def _links(session: Session) -> None:
    await _per_document(session, types.TEXT_DOCUMENT_DOCUMENT_LINK, types.DocumentLinkParams)


async def _code_lens(session: Session) -> None:
    await _per_document(session, types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensParams)


async def _inlay_hint(session: Session) -> None:
    await _per_document(
        session,
        types.TEXT_DOCUMENT_INLAY_HINT,
        lambda d: types.InlayHintParams(text_document=d, range=session.whole(d.uri)),
    )


async def _code_action(session: Session) -> None:
    for document in session.documents():
        sent = [p for p in published(session.client) if p.uri == document.uri]
        diagnostics = sent[-1].diagnostics if sent else []
        ranges = [session.whole(document.uri)] + [
            types.Range(p, p) for p in session.positions(document.uri)
        ]
        for where in ranges:
            context = types.CodeActionContext(diagnostics=diagnostics)
            await session.ask(
                types.TEXT_DOCUMENT_CODE_ACTION,
                types.CodeActionParams(text_document=document, range=where, context=context),
            )


async def _semantic_full(session: Session) -> None:
    await _per_document(
        session, types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, types.SemanticTokensParams
    )


async def _semantic_delta(session: Session) -> None:
    for document in session.documents():
        full = await session.ask(
            types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, types.SemanticTokensParams(document)
        )
        previous = getattr(full, "result_id", None) or "0"
        await session.ask(
            types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA,
            types.SemanticTokensDeltaParams(text_document=document, previous_result_id=previous),
        )


async def _workspace_symbol(session: Session) -> None:
    for query in ("", "grade", "two", "subtract"):
        await session.ask(types.WORKSPACE_SYMBOL, types.WorkspaceSymbolParams(query=query))


async def _document_diagnostic(session: Session) -> None:
    await _per_document(session, types.TEXT_DOCUMENT_DIAGNOSTIC, types.DocumentDiagnosticParams)


async def _workspace_diagnostic(session: Session) -> None:
    await session.ask(
        types.WORKSPACE_DIAGNOSTIC, types.WorkspaceDiagnosticParams(previous_result_ids=[])
    )


async def _discover_tests(session: Session) -> None:
    for document in session.documents():
        await session.ask("holodeck/discoverTests", {"uri": document.uri})


async def _sync(session: Session) -> None:
    """didChange (an edit, then back), didSave, didClose and didOpen again, per document."""
    client = session.client
    for document, text in session.texts.items():
        change_file(client, document, text + "\n# edited\n", version=2)
        change_file(client, document, text, version=3)
        client.text_document_did_save(
            types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(document))
        )
        client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(document))
        )
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(document, "yaml", 4, text))
        )
        await session.ask(
            types.TEXT_DOCUMENT_DOCUMENT_SYMBOL,
            types.DocumentSymbolParams(types.TextDocumentIdentifier(document)),
        )


async def _configuration(session: Session) -> None:
    session.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"holodeck": {"regradeOnEdit": True}})
    )


async def _folders(session: Session) -> None:
    """A folder added (the one only PYTHONPATH reaches), then removed."""
    site = types.WorkspaceFolder(uri=uri(session.workspace.site), name="site")
    for added, removed in (([site], []), ([], [site])):
        session.client.workspace_did_change_workspace_folders(
            types.DidChangeWorkspaceFoldersParams(types.WorkspaceFoldersChangeEvent(added, removed))
        )
    await session.ask(types.WORKSPACE_SYMBOL, types.WorkspaceSymbolParams(query=""))


async def _lifecycle(session: Session) -> None:
    """initialize, initialized and shutdown: the session itself sends them."""


DRIVERS: dict[str, Callable[[Session], Awaitable[None]]] = {
    types.INITIALIZE: _lifecycle,
    types.INITIALIZED: _lifecycle,
    types.SHUTDOWN: _lifecycle,
    types.TEXT_DOCUMENT_DID_OPEN: _sync,
    types.TEXT_DOCUMENT_DID_CHANGE: _sync,
    types.TEXT_DOCUMENT_DID_SAVE: _sync,
    types.TEXT_DOCUMENT_DID_CLOSE: _sync,
    types.WORKSPACE_DID_CHANGE_CONFIGURATION: _configuration,
    types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS: _folders,
    types.TEXT_DOCUMENT_HOVER: _hover,
    types.TEXT_DOCUMENT_COMPLETION: _completion,
    types.TEXT_DOCUMENT_DEFINITION: _definition,
    types.TEXT_DOCUMENT_REFERENCES: _references,
    types.TEXT_DOCUMENT_PREPARE_RENAME: _prepare_rename,
    types.TEXT_DOCUMENT_RENAME: _rename,
    types.TEXT_DOCUMENT_DOCUMENT_SYMBOL: _symbols,
    types.TEXT_DOCUMENT_FOLDING_RANGE: _folding,
    types.TEXT_DOCUMENT_DOCUMENT_LINK: _links,
    types.TEXT_DOCUMENT_CODE_LENS: _code_lens,
    types.TEXT_DOCUMENT_INLAY_HINT: _inlay_hint,
    types.TEXT_DOCUMENT_CODE_ACTION: _code_action,
    types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL: _semantic_full,
    types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA: _semantic_delta,
    types.WORKSPACE_SYMBOL: _workspace_symbol,
    types.TEXT_DOCUMENT_DIAGNOSTIC: _document_diagnostic,
    types.WORKSPACE_DIAGNOSTIC: _workspace_diagnostic,
    types.WORKSPACE_EXECUTE_COMMAND: _lifecycle,  # every command: `_commands`
    "holodeck/discoverTests": _discover_tests,
}


async def _commands(session: Session, commands: set[str]) -> None:
    for command in sorted(commands):
        for document in session.texts:
            for arguments in COMMAND_ARGUMENTS:
                await session.ask(
                    types.WORKSPACE_EXECUTE_COMMAND,
                    types.ExecuteCommandParams(command=command, arguments=arguments(document)),
                )


def _regressed_turn(text: str) -> types.Position:
    """The `input:` of turn 0 of `two-turns`, which the latest stored run regressed."""
    line = next(i for i, row in enumerate(text.splitlines()) if 'input: "q0"' in row)
    return types.Position(line, text.splitlines()[line].index('"q0"') + 1)


@pytest.fixture
def workspace(tmp_path: Path) -> HostileWorkspace:
    """The hostile workspace, with runs stored by the real CLI of an agent with the same cases
    (the latest regressed turn 0 of `two-turns`), then the hostile agent.yaml in its place."""
    hostile = make_workspace(tmp_path, agent=False)
    make_history(hostile.root)
    write_agent(hostile)
    hostile.clear()
    return hostile


async def test_no_request_or_command_runs_workspace_code(workspace: HostileWorkspace) -> None:
    config = ClientServerConfig(
        server_command=SERVER_COMMAND,
        client_factory=make_client,
        server_env=workspace.env(SERVER_ENV),
    )
    client = await config.start()
    try:
        result = await initialize(
            client,
            root=workspace.root,
            trusted=False,
            diagnostics="both",
            settings={"cassettePath": "run.cassette.json"},
            progress=True,
        )
        session = Session(client, workspace)
        for path in workspace.files:
            text = path.read_text(encoding="utf-8")
            session.texts[open_file(client, path, text)] = text
        for document in session.texts:
            await wait_for(client, document)

        methods, commands = advertised(result)
        own_methods, own_commands = registered()
        unmapped = sorted((methods | own_methods) - DRIVERS.keys())
        assert not unmapped, f"no driver for {unmapped}: add one to DRIVERS"
        for driver in dict.fromkeys(DRIVERS[m] for m in sorted(methods | own_methods)):
            await driver(session)
        await _commands(session, commands | own_commands)

        agent = uri(workspace.agent)
        hover = await session.ask(
            types.TEXT_DOCUMENT_HOVER,
            types.HoverParams(
                types.TextDocumentIdentifier(agent), _regressed_turn(session.texts[agent])
            ),
        )
        assert hover is not None and "Regressed" in hover.contents.value
        compared = await session.ask(
            types.WORKSPACE_EXECUTE_COMMAND,
            types.ExecuteCommandParams("holodeck.compareWithBaseline", [agent]),
        )
        assert compared["status"] == "done" and compared["regressions"] >= 1
        # What needs the workspace's code is refused, saying why and what to do.
        refused = await session.ask(
            types.WORKSPACE_EXECUTE_COMMAND, types.ExecuteCommandParams("holodeck.runAll", [agent])
        )
        assert refused == {"status": "refused", "reason": "untrusted"}
        assert "Trust this workspace in your editor" in client.messages[-1].message
    finally:
        # Shut down first: stopping a client whose server still runs waits for it forever.
        await asyncio.wait_for(client.shutdown_session(), TIMEOUT)
        await client.stop()
    assert session.answered > 1000
    assert workspace.imported() == []


def test_a_capability_without_a_driver_fails_the_test() -> None:
    """A method the server starts to advertise is driven or named here: never skipped."""
    formatting = types.InitializeResult(types.ServerCapabilities(document_formatting_provider=True))
    with pytest.raises(pytest.fail.Exception, match="document_formatting_provider"):
        advertised(formatting)
    hover = types.InitializeResult(types.ServerCapabilities(hover_provider=True))
    assert advertised(hover) == ({types.TEXT_DOCUMENT_HOVER}, set())
    methods, commands = registered()
    assert methods <= DRIVERS.keys() and "holodeck/discoverTests" in methods
    assert "holodeck.compareWithBaseline" in commands
