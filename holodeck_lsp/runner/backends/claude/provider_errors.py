"""A failed Claude turn as a backend error: the provider's (errored) or the agent's (failed).

The Claude Code CLI makes the Messages API calls itself, through the limiting relay
(relay.py), which retries them within the turn's budget (the CLI's own retries are off); when
the relay gives up it hands the CLI the provider's last refusal, and the CLI ends the turn
with an error `ResultMessage` whose text carries the API's answer (`API Error: 429 …`,
`API Error: 529 {"type":"overloaded_error"…}`, `Connection error`, `Request timed out`).
Those are the provider's weather: the turn is errored, not failed.
"""

from __future__ import annotations

import re

from holodeck_lsp.runner.backends.base import (
    BackendConnectionError,
    BackendProviderError,
    BackendSessionError,
)

#: What the relay answers (502) when the Anthropic API cannot be connected to at all.
UNREACHABLE = "holodeck relay: cannot reach the Anthropic API"

#: What the CLI writes when the API refused or never answered (case-insensitive).
_PROVIDER_SIGNS = re.compile(
    r"\b(?:API Error:?\s*(?:408|409|429|5\d\d)\b|HTTP (?:408|409|429|5\d\d)\b|"
    r"rate[ _]limit|overloaded|connection (?:error|refused|reset|closed)|"
    r"request timed out|ECONNRESET|ECONNREFUSED|socket hang up|fetch failed)",
    re.IGNORECASE,
)
_STATUS = re.compile(r"\b(408|409|429|5\d\d)\b")


def turn_error(subtype: str, reason: str) -> BackendSessionError:
    """The error of a Claude turn that ended with `is_error` (the session goes on)."""
    message = f"Claude turn failed ({subtype}): {reason}"
    if UNREACHABLE in reason:
        # The relay could not connect at all: the run can say "the backend is down"
        # (connection_watch.py) rather than count wrong answers.
        return BackendConnectionError(message)
    if _PROVIDER_SIGNS.search(reason) or (_STATUS.search(reason) and "error" in reason.lower()):
        return BackendProviderError(message)
    return BackendSessionError(message)
