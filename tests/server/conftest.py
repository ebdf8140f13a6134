"""The `client` fixture: a pytest-lsp client connected to a freshly started real server."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.server.lsp_client import SERVER_COMMAND, SERVER_ENV, make_client


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=SERVER_COMMAND, client_factory=make_client, server_env=SERVER_ENV
    )
)
async def client(lsp_client: LanguageClient) -> AsyncIterator[None]:
    yield
    await lsp_client.shutdown_session()
