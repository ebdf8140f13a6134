"""Helpers to drive the real server (`python -m holodeck_lsp`, i.e. `holodeck-lsp` without
arguments) over stdio with pytest-lsp. Every publishDiagnostics is recorded with its version,
so tests can wait for a given version and check which versions were (not) published."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls import uris
from pytest_lsp import LanguageClient
from pytest_lsp.client import make_test_lsp_client

SERVER_COMMAND = [sys.executable, "-m", "holodeck_lsp"]
#: No user-level ~/.holodeck/config.yaml may leak into the checks.
HOME = tempfile.mkdtemp(prefix="holodeck-lsp-test-home-")
SERVER_ENV = {
    **os.environ,
    "HOME": HOME,
    "USERPROFILE": HOME,
    # The early initialize answers (server/early_handshake.py) are cached here, not in the
    # real user cache.
    "XDG_CACHE_HOME": os.path.join(HOME, ".cache"),
}
TIMEOUT = 15.0


def installed_server() -> str:
    """The venv's `holodeck-lsp` script, next to the interpreter running the tests (for
    clients that start it themselves: Neovim, VS Code)."""
    beside = Path(sys.executable).parent / "holodeck-lsp"
    if beside.exists():
        return str(beside)
    found = shutil.which("holodeck-lsp")
    if found is None:
        pytest.fail("holodeck-lsp is not installed (pip install -e '.[dev]')")
    return found


PUBLISHED: dict[int, list[types.PublishDiagnosticsParams]] = {}


def published(client: LanguageClient) -> list[types.PublishDiagnosticsParams]:
    return PUBLISHED.setdefault(id(client), [])


def make_client() -> LanguageClient:
    client = make_test_lsp_client()
    features = client.protocol.fm.features
    original: Callable[..., Any] = features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def record(params: types.PublishDiagnosticsParams) -> Any:
        published(client).append(params)
        return original(params)

    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = record
    return client


def uri(path: Path) -> str:
    return str(uris.from_fs_path(str(path)))


async def initialize(
    client: LanguageClient,
    *,
    root: Path | None = None,
    trusted: bool = False,
    diagnostics: str = "push",
    encodings: list[str] | None = None,
    settings: dict[str, Any] | None = None,
    progress: bool = False,
) -> types.InitializeResult:
    """Initialize a session; `progress`: the client takes `window/workDoneProgress` (runs)."""
    if settings is not None:
        client.set_configuration(settings, section="holodeck")
    capabilities = types.ClientCapabilities(
        general=types.GeneralClientCapabilities(position_encodings=encodings)
        if encodings
        else None,
        window=types.WindowClientCapabilities(work_done_progress=True) if progress else None,
        workspace=types.WorkspaceClientCapabilities(configuration=True),
        text_document=types.TextDocumentClientCapabilities(
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True),
            diagnostic=types.DiagnosticClientCapabilities(related_document_support=True),
        ),
    )
    folders = [types.WorkspaceFolder(uri=uri(root), name=root.name)] if root else None
    return await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities,
            root_uri=uri(root) if root else None,
            workspace_folders=folders,
            initialization_options={"trusted": trusted, "diagnostics": diagnostics},
        )
    )


def open_file(client: LanguageClient, path: Path, text: str | None = None, version: int = 1) -> str:
    document_uri = uri(path)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=document_uri,
                language_id="yaml",
                version=version,
                text=path.read_text(encoding="utf-8") if text is None else text,
            )
        )
    )
    return document_uri


def change_file(client: LanguageClient, document_uri: str, text: str, version: int) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=document_uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


async def wait_for(
    client: LanguageClient,
    document_uri: str,
    accept: Callable[[types.PublishDiagnosticsParams], bool] = lambda p: True,
    timeout: float = TIMEOUT,
) -> types.PublishDiagnosticsParams:
    """The first publish (already received or not) for `document_uri` that `accept`s."""
    deadline = asyncio.get_running_loop().time() + timeout
    seen = 0
    while True:
        records = published(client)
        for params in records[seen:]:
            if params.uri == document_uri and accept(params):
                return params
        seen = len(records)
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"no matching publishDiagnostics for {document_uri}")
        await asyncio.sleep(0.01)


def summary(items: list[types.Diagnostic]) -> list[tuple[Any, ...]]:
    return sorted(
        (
            d.code,
            d.range.start.line,
            d.range.start.character,
            d.range.end.line,
            d.range.end.character,
            d.severity,
            d.message,
        )
        for d in items
    )
