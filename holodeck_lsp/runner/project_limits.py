"""holodeck-lsp.yaml's long-run settings applied to one agent's run — `limits:` (rpm, tpm,
max_in_flight), `retry_budget:`, `max_tool_rounds:` and `prices:` — by the CLI's `run` and the
editor's runs alike, so a run paces, stops tool loops and prices the same wherever it is
started (docs/running.md, "Long runs" and "Tool loop").

`apply_project_limits` sets this process's limiters (runner/limits/registry.py) and returns
the prices to give the `RunRequest`; a bad holodeck-lsp.yaml is a `ProjectLimitsError` whose
message names the file and the key, meant to be shown as is.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from holodeck_lsp.runner.limits.budget import DEFAULT_RETRY_BUDGET
from holodeck_lsp.runner.limits.endpoint import EndpointLimits
from holodeck_lsp.runner.limits.registry import (
    DEFAULT_MAX_TOOL_ROUNDS,
    RETRY_BUDGET_ENV,
    LimitSettings,
    configure,
)
from holodeck_lsp.settings.limits_config import configured_limits
from holodeck_lsp.settings.models_config import ModelsConfigError


class ProjectLimitsError(Exception):
    """holodeck-lsp.yaml's `limits:` / `prices:` / `retry_budget:` cannot be used."""


Prices = Mapping[str, Mapping[str, float]]


def apply_project_limits(
    agent_path: Path, retry_budget: int | None = None, max_tool_rounds: int | None = None
) -> Prices:
    """Set the limiters for a run of the agent at `agent_path` from the holodeck-lsp.yaml
    that applies to it; `retry_budget` and `max_tool_rounds` (flags) win over the file's.
    Returns its `prices:`.

    The limiters are the process's: the ones made before are dropped, so a language server
    that runs one file, then another, paces each by its own holodeck-lsp.yaml."""
    try:
        found = configured_limits(agent_path.parent)
    except ModelsConfigError as error:
        raise ProjectLimitsError(str(error)) from None
    budget = retry_budget
    if budget is None:
        budget = found.retry_budget if found.retry_budget is not None else _environment_budget()
    limits = {
        key: EndpointLimits(
            rpm=values.get("rpm"),
            tpm=values.get("tpm"),
            max_in_flight=int(values["max_in_flight"]) if "max_in_flight" in values else None,
        )
        for key, values in found.limits.items()
    }
    rounds = max_tool_rounds if max_tool_rounds is not None else found.max_tool_rounds
    configure(
        LimitSettings(
            retry_budget=budget,
            limits=limits,
            max_tool_rounds=rounds if rounds is not None else DEFAULT_MAX_TOOL_ROUNDS,
        )
    )
    return found.prices


def _environment_budget() -> int:
    """$HOLODECK_RETRY_BUDGET, else the default — read again for each run, never the budget
    an earlier run of this process was configured with."""
    raw = os.environ.get(RETRY_BUDGET_ENV, "").strip()
    return int(raw) if raw.isdigit() else DEFAULT_RETRY_BUDGET
