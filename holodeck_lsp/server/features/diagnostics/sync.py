"""The document events that drive diagnostics: didOpen / didChange / didSave / didClose go to
the `DiagnosticsEngine` (which checks and publishes), and every one but didClose also counts as
activity (`HolodeckServer.notify_activity`: the idle collector waits for quiet). Settings
changes re-classify the open documents; shutdown stops the checking workers.
"""

from __future__ import annotations

from lsprotocol import types

from holodeck_lsp.server.core import HolodeckServer
from holodeck_lsp.server.documents.parsed import parsed_documents
from holodeck_lsp.server.features.diagnostics.engine import DiagnosticsEngine


def register(server: HolodeckServer, engine: DiagnosticsEngine) -> None:
    server.settings_listeners.append(engine.settings_changed)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        engine.opened(params.text_document.uri)
        server.notify_activity()

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        engine.changed(params.text_document.uri)
        server.notify_activity()

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(params: types.DidSaveTextDocumentParams) -> None:
        engine.saved(params.text_document.uri)
        server.notify_activity()

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        engine.closed(params.text_document.uri)
        parsed_documents(server).forget(params.text_document.uri)

    @server.feature(types.SHUTDOWN)
    def shutdown(params: None) -> None:
        engine.executor.shutdown(wait=False, cancel_futures=True)
