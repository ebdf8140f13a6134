"""One judge model's HTTP client: send a prompt, get the reply text and its token usage.

Every provider the runner supports is spoken directly over HTTP (httpx) so judging needs no
SDK beyond deepeval. What differs per provider — URL, key header, body, reply — is the
provider row's judge dialect (backends/providers.py, backends/judge_dialects.py); this client
only sends. Endpoints, keys and their environment variables are the runner's
(docs/running.md).

The API key travels in a header only, never in a prompt. Requests go through the endpoint's
limiter (runner/limits/), the same one as the agent's requests to that endpoint and model:
retried within the retry budget, and counted against the same rate.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from holodeck_lsp.runner.backends.providers import PROVIDERS
from holodeck_lsp.runner.limits.registry import limiter_for
from holodeck_lsp.runner.limits.transport import limited_transport, provider_status
from holodeck_lsp.schema.judge_model import judge_label
from holodeck_lsp.schema.llm import LLMProvider
from holodeck_lsp.schema.results import TokenUsage


class JudgeCallError(Exception):
    """A judge call failed; the message says how (leads with the cause, names the judge)."""


class JudgeProviderError(JudgeCallError):
    """The judge's provider could not answer (429 after the retry budget, 408/409/5xx, a
    connection lost, an HTTP timeout): the metric is errored (not measured), not failed."""


class JudgeConfigError(JudgeCallError):
    """The judge cannot be called at all (no API key): every metric it judges fails."""


@dataclass(frozen=True, slots=True)
class Reply:
    text: str
    usage: TokenUsage


def _key(model: LLMProvider, env: Mapping[str, str], variable: str) -> str | None:
    secret = model.api_key.get_secret_value().strip() if model.api_key is not None else ""
    return secret or env.get(variable, "").strip() or None


class JudgeTransport:
    """The client of one judge model (one per judge model per run)."""

    def __init__(self, model: LLMProvider, env: Mapping[str, str]) -> None:
        self.model = model
        self.label = judge_label(model)
        self._env = env
        self._dialect = PROVIDERS[model.provider].judge
        self._client: httpx.AsyncClient | None = None
        self._base = ""
        self._url, self._headers = self._route()

    def _route(self) -> tuple[str, dict[str, str]]:
        model, env = self.model, self._env
        row = PROVIDERS[model.provider]
        key: str | None = None
        if row.key_variable is not None:
            key = _key(model, env, row.key_variable)
            if key is None:
                raise JudgeConfigError(
                    f"the judge {self.label} needs an API key: set {row.key_variable} or the "
                    f"judge's `model.api_key`{self._dialect.key_hint}"
                )
        self._base = self._dialect.base(row.endpoint(model.endpoint, env))
        return self._dialect.url(model, self._base, env), self._dialect.headers(key)

    async def complete(
        self, prompt: str, schema: Mapping[str, Any] | None, name: str, timeout: float
    ) -> Reply:
        """The judge's reply to `prompt`. Raises JudgeCallError saying what went wrong."""
        if self._client is None:
            limiter = limiter_for(self._base, self.label)
            transport = limited_transport(httpx, limiter)
            self._client = httpx.AsyncClient(trust_env=False, transport=transport)
        try:
            response = await self._client.post(
                self._url,
                json=self._dialect.body(self.model, prompt, schema, name),
                headers=self._headers,
                timeout=timeout,
            )
        except httpx.TimeoutException:
            raise JudgeProviderError(
                f"the judge {self.label} did not answer within {timeout:g} s"
            ) from None
        except httpx.HTTPError as error:
            raise JudgeProviderError(
                f"the judge {self.label} cannot be reached ({type(error).__name__}: {error})"
            ) from None
        if response.status_code >= 400:
            # A 400 or 401 is the request's fault (a verdict of sorts); a 429 the limiter
            # could not wait out, or a 5xx, is the provider's.
            status = response.status_code
            failure = JudgeProviderError if provider_status(status) else JudgeCallError
            raise failure(
                f"the judge {self.label} answered HTTP {response.status_code}: "
                f"{response.text[:200]}"
            )
        try:
            data = response.json()
        except ValueError:
            raise JudgeCallError(
                f"the judge {self.label} answered something that is not JSON: "
                f"{response.text[:120]!r}"
            ) from None
        return self._reply(data)

    def _reply(self, data: Any) -> Reply:
        try:
            parts = self._dialect.reply(data)
        except (KeyError, IndexError, TypeError, AttributeError, ValueError):
            raise JudgeCallError(
                f"the judge {self.label} answered in an unexpected shape: {json.dumps(data)[:160]}"
            ) from None
        if parts.refusal is not None:
            reason = f": {parts.refusal}" if parts.refusal else ""
            raise JudgeCallError(f"the judge {self.label} refused to judge{reason}")
        usage_total = TokenUsage(
            prompt_tokens=parts.prompt_tokens,
            completion_tokens=parts.completion_tokens,
            total_tokens=parts.prompt_tokens + parts.completion_tokens,
        )
        return Reply(text=parts.text, usage=usage_total)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None
