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


@pytest.fixture(autouse=True)
def _no_preflight_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests build backends for agents whose endpoint is the public API (no network here) or
    a port closed on purpose: the endpoint check before a live run
    (runner/backends/preflight.py) would stop them first. Its own tests
    (tests/runner/backends/test_preflight.py) turn it back on."""
    monkeypatch.setenv("HOLODECK_PREFLIGHT", "0")


@pytest.fixture(scope="session")
def packaged_extension() -> dict[str, str]:
    """vscode-extension built once per session (npm ci + vsce package): outputs and `vsix`."""
    return package_extension()


#: Folders whose every test drives a real editor, browser or npm build: always `slow`.
SLOW_FOLDERS = ("e2e", "extension", "editors")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tests of `SLOW_FOLDERS` slow, so `pytest -m "not slow"` skips them (the
    developer loop); other slow tests carry `@pytest.mark.slow` themselves."""
    for item in items:
        parts = item.path.relative_to(item.config.rootpath).parts
        if len(parts) > 1 and parts[0] == "tests" and parts[1] in SLOW_FOLDERS:
            item.add_marker(pytest.mark.slow)
