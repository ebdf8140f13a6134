"""Fixtures for the Semantic Kernel backend tests: a fake OpenAI-compatible server per test.

Not a `conftest.py` (other runner tests bring their own): a test module imports the fixture and
the fake's classes from here (tests/runner is on sys.path under pytest's default import mode;
the repository root is added here so `tests.fakes` imports) and binds the fixture at module
level: `fake_openai = conftest_sk.fake_openai`.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from tests.fakes.openai_server import (  # noqa: E402
    ErrorReply,
    FakeOpenAIServer,
    Reply,
    ToolCall,
    Usage,
)

__all__ = ["ErrorReply", "FakeOpenAIServer", "Reply", "ToolCall", "Usage", "fake_openai"]


@pytest.fixture
async def fake_openai() -> AsyncIterator[FakeOpenAIServer]:
    """A started fake server, stopped after the test."""
    async with FakeOpenAIServer() as server:
        yield server
