"""Fixtures shared across test folders: the fake API servers (real HTTP on 127.0.0.1); the
check that the session leaves the checkout as it found it; what keeps parallel workers
(pytest-xdist) from sharing state."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from tests import bytecode_cache, checkout_guard
from tests.extension.npm_build import package_extension
from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.claude_cli import bundled_cli_problem
from tests.fakes.openai_server import FakeOpenAIServer

# Before any test module is imported or any process started: from here on every module is
# compiled once per session (tests/bytecode_cache.py says why).
bytecode_cache.share_compiled_modules()


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
def bundled_claude_cli() -> None:
    """Skips the test that uses it, with the reason, where the Claude Code CLI bundled in
    claude-agent-sdk cannot start here (`needs_cli` in
    tests/runner/backends/test_claude_backend.py)."""
    problem = bundled_cli_problem()
    if problem is not None:
        pytest.skip(problem)


@pytest.fixture(autouse=True)
def _no_preflight_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests build backends for agents whose endpoint is the public API (no network here) or
    a port closed on purpose: the endpoint check before a live run
    (runner/backends/preflight.py) would stop them first. Its own tests
    (tests/runner/backends/test_preflight.py) turn it back on."""
    monkeypatch.setenv("HOLODECK_PREFLIGHT", "0")


@pytest.fixture(autouse=True)
def _fresh_rate_limiters() -> Iterator[None]:
    """A test that sets a retry budget or limits (`registry.configure`), or leaves a limiter
    backing off, must not slow down or change the next test in the same worker."""
    yield
    registry = sys.modules.get("holodeck_lsp.runner.limits.registry")
    if registry is not None:
        registry.reset()


@pytest.fixture(scope="session")
def packaged_extension(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """vscode-extension built once per session (npm ci + vsce package) in a temporary copy:
    outputs, the copy (`folder`) and `vsix`."""
    return package_extension(tmp_path_factory.mktemp("build") / "vscode-extension")


#: XDG_CACHE_HOME as the first test process found it ("" when unset), handed on to xdist's
#: workers through the environment: for a test that installs into a fresh clone and should
#: use the user's warm pip cache (tests/docs/test_doc_commands.py).
USER_CACHE_HOME = "HOLODECK_TEST_USER_CACHE_HOME"


def pytest_configure(config: pytest.Config) -> None:
    """Each process (the controller, every xdist worker) gets its own XDG_CACHE_HOME: the
    language server caches its initialize answers there (server/early_handshake.py), and
    servers of two workers writing one cache file would make tests depend on each other."""
    checkout_guard.register(config)
    os.environ.setdefault(USER_CACHE_HOME, os.environ.get("XDG_CACHE_HOME", ""))
    worker = getattr(config, "workerinput", {}).get("workerid", "main")
    cache = tempfile.mkdtemp(prefix=f"holodeck-lsp-test-cache-{worker}-")
    config.stash[_CACHE] = cache
    os.environ["XDG_CACHE_HOME"] = cache


def pytest_unconfigure(config: pytest.Config) -> None:
    cache = config.stash.get(_CACHE, None)
    if cache is not None:
        shutil.rmtree(cache, ignore_errors=True)
    bytecode_cache.remove_if_owned()


_CACHE = pytest.StashKey[str]()

#: Folders whose every test drives a real editor, browser or npm build: always `slow`.
SLOW_FOLDERS = ("e2e", "extension", "editors")

#: Under `pytest -n N --dist loadgroup` the tests of one group run on one worker, in order:
#: the VS Code extension's build (one `npm ci` per session, tests/e2e's `npm ci` that two
#: workers must not run at once) with the code-server and Chromium tests that use it; the
#: Neovim and Emacs tests on another. Two browsers or editors starting at the same time on
#: 2 cores starve each other into timeouts.
XDIST_GROUPS = {"e2e": "vscode", "extension": "vscode", "editors": "editors"}


def pytest_itemcollected(item: pytest.Item) -> None:
    """Mark the tests of `SLOW_FOLDERS` slow, so `pytest -m "not slow"` skips them (the
    developer loop); other slow tests carry `@pytest.mark.slow` themselves. Put the tests
    of `XDIST_GROUPS` in their group. Here, as each item is collected, rather than in
    pytest_collection_modifyitems: pytest-xdist's worker reads the groups in that hook, and
    it may run before ours."""
    parts = Path(item.path).relative_to(item.config.rootpath).parts
    if len(parts) > 1 and parts[0] == "tests" and parts[1] in SLOW_FOLDERS:
        item.add_marker(pytest.mark.slow)
    if len(parts) > 1 and parts[0] == "tests" and parts[1] in XDIST_GROUPS:
        item.add_marker(pytest.mark.xdist_group(XDIST_GROUPS[parts[1]]))


@pytest.hookimpl(trylast=True)  # after pytest-xdist's worker has named the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """pytest-xdist 3.8 puts an item's group into its id by setting `item._nodeid`, which
    pytest 9.2 no longer reads (the id is `item._id`): without this `--dist loadgroup` would
    scatter a group over the workers. Remove once xdist sets the id pytest reads."""
    for item in items:
        renamed = vars(item).get("_nodeid")
        if isinstance(renamed, str) and renamed != item.nodeid and hasattr(item, "_id"):
            from _pytest.nodeid import coerce_node_id

            item._id = coerce_node_id(renamed)
