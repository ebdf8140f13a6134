"""One real server for a whole test module, for tests that change nothing of the server's
state but their own documents: the module's `workspace` folder is the server's workspace,
each test works in its own `folder` below it, and that folder's agent.yaml is closed after
the test. A server's start costs 0.6-0.9 CPU-s on the 2-core machine; a module of ten tests
pays it once instead of ten times.

Use, in a test module:

    workspace = shared_workspace("hover")
    client = shared_client()           # replaces the per-test `client` of conftest.py
    folder = own_folder()

and take `folder` instead of `tmp_path`."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.server.lsp_client import SERVER_COMMAND, SERVER_ENV, initialize, make_client, uri


def shared_workspace(name: str) -> Any:
    """A module-scoped fixture: the shared server's workspace folder."""

    @pytest.fixture(scope="module")
    def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
        return tmp_path_factory.mktemp(name)

    return workspace


def shared_client(
    start: Callable[[LanguageClient, Path], Awaitable[object]] | None = None,
    **initialize_options: Any,
) -> Any:
    """A module-scoped `client`: a server initialized on the module's `workspace` — by
    `start(client, workspace)` for a module whose client declares other capabilities, else
    `lsp_client.initialize` with `initialize_options` — shut down after the module."""

    @pytest_lsp.fixture(
        config=ClientServerConfig(
            server_command=SERVER_COMMAND, client_factory=make_client, server_env=SERVER_ENV
        ),
        scope="module",
    )
    async def client(lsp_client: LanguageClient, workspace: Path) -> AsyncIterator[None]:
        if start is not None:
            await start(lsp_client, workspace)
        else:
            await initialize(lsp_client, root=workspace, **initialize_options)
        yield
        await lsp_client.shutdown_session()

    return client


def own_client(server_env: Mapping[str, str] = SERVER_ENV) -> Any:
    """A function-scoped client on a freshly started server of its own, whose environment is
    `server_env` (conftest.py's `client`; in a module of a shared server, for the tests that
    initialize differently)."""

    @pytest_lsp.fixture(
        config=ClientServerConfig(
            server_command=SERVER_COMMAND, client_factory=make_client, server_env=server_env
        )
    )
    async def own_client(lsp_client: LanguageClient) -> AsyncIterator[None]:
        yield
        await lsp_client.shutdown_session()

    return own_client


def own_folder() -> Any:
    """A fixture: this test's folder in the shared workspace; its YAML files are closed on
    the shared server after the test (closing one that is not open changes nothing)."""

    @pytest.fixture
    async def folder(
        client: LanguageClient, workspace: Path, request: pytest.FixtureRequest
    ) -> AsyncIterator[Path]:
        own = workspace / request.node.name
        own.mkdir()
        yield own
        for path in sorted([*own.rglob("*.yaml"), *own.rglob("*.yml")]):
            document = types.TextDocumentIdentifier(uri=uri(path))
            client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=document))

    return folder
