"""The limiters of this process, one per endpoint (base URL + model), shared by everything
that calls it — the agent's requests and the judges' — and the settings they follow.

Settings come from `holodeck-lsp.yaml` (`limits:`, keyed `provider:model` or `provider`) and
`run --retry-budget N`; the command sets them with `configure` before the run.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from holodeck_lsp.runner.limits.budget import DEFAULT_RETRY_BUDGET
from holodeck_lsp.runner.limits.endpoint import EndpointCounts, EndpointLimiter, EndpointLimits

RETRY_BUDGET_ENV = "HOLODECK_RETRY_BUDGET"
#: Tool rounds (model responses whose calls are run) one turn may take: BFCL's own inference
#: loop allows 20 steps per turn, and a real agent rarely needs more in one turn
#: (docs/running.md, "Tool loop").
DEFAULT_MAX_TOOL_ROUNDS = 20


@dataclass(frozen=True, slots=True)
class LimitSettings:
    #: Retries one turn (or one judge request) may make.
    retry_budget: int = DEFAULT_RETRY_BUDGET
    #: Explicit limits by `provider:model`, or by `provider` for all its models.
    limits: Mapping[str, EndpointLimits] = field(default_factory=dict)
    #: Tool rounds one turn may take before the backend stops it (`max_tool_rounds:`).
    max_tool_rounds: int = DEFAULT_MAX_TOOL_ROUNDS

    def limits_for(self, model: str) -> EndpointLimits | None:
        provider = model.split(":", 1)[0]
        return self.limits.get(model) or self.limits.get(provider)


def _default_settings() -> LimitSettings:
    raw = os.environ.get(RETRY_BUDGET_ENV, "").strip()
    return LimitSettings(retry_budget=int(raw)) if raw.isdigit() else LimitSettings()


_settings = _default_settings()
_limiters: dict[str, EndpointLimiter] = {}


def configure(settings: LimitSettings) -> None:
    """Settings for the limiters created from now on (a command calls it before a run)."""
    global _settings
    _settings = settings
    _limiters.clear()


def reset() -> None:
    """Back to the settings of the environment, with fresh limiters (between runs of one
    process that must not see each other's settings or backoff: tests)."""
    configure(_default_settings())


def settings() -> LimitSettings:
    return _settings


def limiter_for(base_url: str, model: str) -> EndpointLimiter:
    """The limiter of `model` (`provider:name`) at `base_url`: one per pair in the process."""
    # `…/v1` or not, the same server: Ollama's judge calls `/api/chat` beside the agent's
    # `/v1/chat/completions`, and both count against one limit.
    key = f"{base_url.rstrip('/').removesuffix('/v1')}|{model}"
    limiter = _limiters.get(key)
    if limiter is None:
        limiter = _limiters[key] = EndpointLimiter(key, _settings.limits_for(model))
    return limiter


def totals() -> EndpointCounts:
    """Counts over every endpoint (what progress shows)."""
    total = EndpointCounts()
    for limiter in _limiters.values():
        counts = limiter.counts
        total.requests += counts.requests
        total.limited += counts.limited
        total.retries += counts.retries
        total.waiting += counts.waiting
    return total
