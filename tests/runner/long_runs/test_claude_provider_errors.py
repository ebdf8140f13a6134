"""The Claude Agent SDK backend's requests are made by the bundled Claude Code CLI, outside
our limiter (docs/running.md, "Long runs"); what reaches us is the CLI's error text once it
gave up. Its 429 / 5xx / overloaded / connection errors must be errored (not measured), and
an agent's own failure must stay a failure."""

from __future__ import annotations

import pytest

from holodeck_lsp.runner.backends.base import BackendProviderError
from holodeck_lsp.runner.backends.claude.provider_errors import turn_error


@pytest.mark.parametrize(
    "reason",
    [
        'API Error: 429 {"type":"error","error":{"type":"rate_limit_error"}}',
        'API Error: 529 {"type":"overloaded_error","message":"Overloaded"}',
        "API Error: 503 Service Unavailable",
        "API Error: Connection error.",
        "Request timed out.",
        "fetch failed: ECONNRESET",
    ],
)
def test_the_providers_refusals_are_errored(reason: str) -> None:
    error = turn_error("error_during_execution", reason)
    assert isinstance(error, BackendProviderError), reason
    assert reason in str(error)


@pytest.mark.parametrize(
    "reason",
    [
        "Reached maximum number of turns (3)",
        'API Error: 400 {"type":"invalid_request_error","message":"prompt is too long"}',
        "Tool lookup raised KeyError: 2009",
    ],
)
def test_the_agents_failures_stay_failures(reason: str) -> None:
    assert not isinstance(turn_error("error_max_turns", reason), BackendProviderError), reason
