"""`model:` — which LLM answers the agent (also used for evaluation models and embeddings)."""

from __future__ import annotations

from enum import StrEnum
from typing import Self

from pydantic import Field, SecretStr, model_validator

from holodeck_lsp.schema.base import NonBlankStr, StrictModel, fault
from holodeck_lsp.schema.codes import Code
from holodeck_lsp.schema.messages import endpoint_required
from holodeck_lsp.schema.providers import ENDPOINT_REQUIRED
from holodeck_lsp.schema.providers import Provider as Provider


class AuthProvider(StrEnum):
    """How the Claude backend authenticates (only meaningful for provider anthropic)."""

    API_KEY = "api_key"
    OAUTH_TOKEN = "oauth_token"
    BEDROCK = "bedrock"
    VERTEX = "vertex"
    FOUNDRY = "foundry"
    CUSTOM = "custom"


class LLMProvider(StrictModel):
    """An LLM endpoint and its sampling parameters."""

    provider: Provider = Field(
        description="Backend family: `openai`, `azure_openai` and `ollama` run on Semantic "
        "Kernel; `anthropic` runs on the Claude Agent SDK."
    )
    name: NonBlankStr = Field(description="Model name or deployment, e.g. `gpt-4o-mini`.")
    temperature: float | None = Field(
        default=0.3, ge=0.0, le=2.0, description="Sampling temperature, 0.0–2.0. Default 0.3."
    )
    max_tokens: int | None = Field(
        default=1000, gt=0, description="Upper bound on generated tokens (> 0). Default 1000."
    )
    top_p: float | None = Field(
        default=None, ge=0.0, le=1.0, description="Nucleus sampling probability mass, 0.0–1.0."
    )
    endpoint: str | None = Field(
        default=None,
        description="API base URL. Required for `azure_openai`; for `ollama` defaults to "
        "`http://localhost:11434`.",
    )
    api_key: SecretStr | None = Field(
        default=None,
        description="API key. Prefer `${ENV_VAR}` references or the provider's usual "
        "environment variable over a literal key.",
    )
    api_version: str | None = Field(
        default=None, description="Azure OpenAI API version, e.g. `2024-10-21`."
    )
    auth_provider: AuthProvider | None = Field(
        default=None,
        description="Authentication method for `anthropic` (default `api_key`); ignored "
        "by other providers.",
    )

    @model_validator(mode="after")
    def _endpoint_when_required(self) -> Self:
        if self.provider in ENDPOINT_REQUIRED and not (self.endpoint or "").strip():
            raise fault(
                Code.ENDPOINT_REQUIRED,
                endpoint_required(),
                at="provider",
            )
        return self


def model_label(provider: Provider, name: str) -> str:
    """How results, reports, recordings and the history name a model: `provider:name` (the
    form `--model` takes). Written once: a matrix column, a judge and a stored run agree."""
    return f"{provider.value}:{name}"
