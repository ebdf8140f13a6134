"""The `client` fixture: a pytest-lsp client connected to a freshly started real server."""

from __future__ import annotations

from tests.server.shared_server import own_client

client = own_client()
