"""`openai:` — settings of the OpenAI Agents SDK backend (used when `model.provider` is
`openai` or `azure_openai`)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, StrictBool

from holodeck_lsp.schema.base import StrictModel


class OpenAIPermissionsConfig(StrictModel):
    """Which tools the OpenAI backend may use."""

    allowed_tools: list[str] | None = Field(
        default=None, description="Only these tools may be used. All configured tools if omitted."
    )
    disallowed_tools: list[str] | None = Field(
        default=None, description="Tools that may never be used; wins over `allowed_tools`."
    )


class OpenAIConfig(StrictModel):
    """OpenAI Agents SDK settings; every key is optional."""

    max_concurrent_sessions: int | None = Field(
        default=None,
        ge=1,
        le=500,
        description="When serving: most turns processed at once, 1–500. When omitted it is "
        "derived from the container's memory and `session_memory_estimate_mib`.",
    )
    session_memory_estimate_mib: int = Field(
        default=100,
        ge=50,
        le=2000,
        description="Memory one in-flight turn is assumed to need, in MiB, 50–2000; used to "
        "size the serve concurrency limit. Default 100 (this backend runs in-process).",
    )
    max_turns: int = Field(
        default=20, ge=1, description="Most agent-loop iterations per request (≥ 1). Default 20."
    )
    i_understand_this_is_unsafe: bool = Field(
        default=False,
        description="Confirms that hosted tools which execute code on the server (code "
        "interpreter) may be loaded. Default false.",
    )
    disable_default_hooks: StrictBool = Field(
        default=False,
        description="Turn off HoloDeck's built-in guardrails (such as credential redaction of "
        "output). Must be a real boolean. Default false.",
    )
    disable_subprocess_env_scrub: StrictBool = Field(
        default=False,
        description="Let stdio MCP servers and function tools that start processes see the "
        "full environment, credentials included. Must be a real boolean. Default false.",
    )
    permissions: OpenAIPermissionsConfig | None = Field(
        default=None, description="Tool allow and deny lists."
    )
    effort: Literal["low", "medium", "high", "max"] | None = Field(
        default=None,
        description="Reasoning effort for reasoning models: `low`, `medium`, `high` or `max` "
        "(sent as the SDK's highest level).",
    )
    max_budget_usd: float | None = Field(
        default=None, gt=0, description="Spending limit per session in US dollars (> 0)."
    )
    fallback_model: str | None = Field(
        default=None, description="Model to switch to when the main model is unavailable."
    )
    disallowed_tools: list[str] | None = Field(
        default=None, description="Tools removed from the agent when it is built."
    )
