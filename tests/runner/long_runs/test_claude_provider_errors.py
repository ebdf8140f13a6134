"""The Claude Agent SDK backend's requests are made by the bundled Claude Code CLI, through
our limiting relay (docs/running.md, "Long runs"); what reaches us is the CLI's error text
once the relay's retries are spent. Its 429 / 5xx / overloaded / connection errors must be
errored (not measured), and an agent's own failure must stay a failure. The CLI against the
relay and a faulty fake: tests/runner/backends/test_claude_limits.py."""

from __future__ import annotations

import pytest

from holodeck_lsp.runner.backends.base import BackendConnectionError, BackendProviderError
from holodeck_lsp.runner.backends.claude.provider_errors import UNREACHABLE, turn_error


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


def test_an_api_the_relay_cannot_connect_to_is_a_connection_error() -> None:
    reason = (
        f'API Error: 502 {{"type":"error","error":{{"message":"{UNREACHABLE} (ConnectError)"}}}}'
    )
    assert isinstance(turn_error("error_during_execution", reason), BackendConnectionError)
    lost = 'API Error: 502 {"message":"holodeck relay: the Anthropic API connection was lost"}'
    error = turn_error("error_during_execution", lost)
    assert isinstance(error, BackendProviderError)
    assert not isinstance(error, BackendConnectionError)
