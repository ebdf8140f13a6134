"""Fixtures shared across test folders: the fake API servers (real HTTP on 127.0.0.1)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.extension.npm_build import package_extension
from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.openai_server import FakeOpenAIServer


@pytest.fixture
async def fake_openai() -> AsyncIterator[FakeOpenAIServer]:
    """A started fake OpenAI chat-completions server, stopped after the test."""
    async with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
async def fake_anthropic() -> AsyncIterator[FakeAnthropicServer]:
    """A started fake Anthropic Messages API server, stopped after the test."""
    async with FakeAnthropicServer() as server:
        yield server


@pytest.fixture(scope="session")
def packaged_extension() -> dict[str, str]:
    """vscode-extension built once per session (npm ci + vsce package): outputs and `vsix`."""
    return package_extension()
