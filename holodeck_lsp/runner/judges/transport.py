"""One judge model's HTTP client: send a prompt, get the reply text and its token usage.

The four providers the runner supports, spoken directly over HTTP (httpx) so judging
needs no SDK beyond deepeval: OpenAI chat completions (structured output through
`response_format: json_schema` when the judge asks for a schema), Azure OpenAI (the same,
per deployment), Ollama's `/api/chat` (`format`: the schema) and Anthropic messages (the
schema is asked for in the prompt: the Messages API has no response format). Endpoints,
keys and their environment variables are the runner's (docs/running.md).

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
from holodeck_lsp.schema.llm import LLMProvider, Provider
from holodeck_lsp.schema.results import TokenUsage

AZURE_API_VERSION = "2024-10-21"
ANTHROPIC_VERSION = "2023-06-01"
#: Judges answer in JSON of a few hundred tokens; bounded so a runaway reply stops.
MAX_REPLY_TOKENS = 2048


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


def _key_variable(provider: Provider) -> str:
    variable = PROVIDERS[provider].key_variable
    assert variable is not None, provider  # only Ollama needs no key
    return variable


class JudgeTransport:
    """The client of one judge model (one per judge model per run)."""

    def __init__(self, model: LLMProvider, env: Mapping[str, str]) -> None:
        self.model = model
        self.label = judge_label(model)
        self._env = env
        self._client: httpx.AsyncClient | None = None
        self._base = ""
        self._url, self._headers = self._route()

    def _route(self) -> tuple[str, dict[str, str]]:
        model, env = self.model, self._env
        provider = model.provider
        if provider is Provider.OPENAI:
            key = _key(model, env, _key_variable(provider))
            if key is None:
                raise JudgeConfigError(
                    f"the judge {self.label} needs an API key: set OPENAI_API_KEY or the "
                    "judge's `model.api_key` (e.g. `api_key: ${OPENAI_API_KEY}`)"
                )
            base = PROVIDERS[provider].endpoint(model.endpoint, env)
            self._base = base
            return base.rstrip("/") + "/chat/completions", {"Authorization": f"Bearer {key}"}
        if provider is Provider.AZURE_OPENAI:
            key = _key(model, env, _key_variable(provider))
            if key is None:
                raise JudgeConfigError(
                    f"the judge {self.label} needs an API key: set AZURE_OPENAI_API_KEY or "
                    "the judge's `model.api_key`"
                )
            version = model.api_version or env.get("AZURE_OPENAI_API_VERSION") or AZURE_API_VERSION
            base = (model.endpoint or "").rstrip("/")
            self._base = base
            url = f"{base}/openai/deployments/{model.name}/chat/completions?api-version={version}"
            return url, {"api-key": key}
        if provider is Provider.OLLAMA:
            base = PROVIDERS[provider].endpoint(model.endpoint, env).rstrip("/")
            base = base.removesuffix("/v1")
            self._base = base
            return base + "/api/chat", {}
        key = _key(model, env, _key_variable(provider))
        if key is None:
            raise JudgeConfigError(
                f"the judge {self.label} needs an API key: set ANTHROPIC_API_KEY or the "
                "judge's `model.api_key`"
            )
        base = PROVIDERS[provider].endpoint(model.endpoint, env).rstrip("/")
        self._base = base
        return base + "/v1/messages", {"x-api-key": key, "anthropic-version": ANTHROPIC_VERSION}

    def _body(self, prompt: str, schema: Mapping[str, Any] | None, name: str) -> dict[str, Any]:
        provider = self.model.provider
        messages = [{"role": "user", "content": prompt}]
        if provider is Provider.OLLAMA:
            body: dict[str, Any] = {
                "model": self.model.name,
                "messages": messages,
                "stream": False,
                "options": {"temperature": 0},
            }
            if schema is not None:
                body["format"] = dict(schema)
            return body
        if provider is Provider.ANTHROPIC:
            if schema is not None:
                prompt += (
                    f"\n\nAnswer with one JSON object ({name}) matching this JSON Schema, "
                    f"and nothing else:\n{json.dumps(schema)}"
                )
            return {
                "model": self.model.name,
                "max_tokens": MAX_REPLY_TOKENS,
                "temperature": 0,
                "messages": [{"role": "user", "content": prompt}],
            }
        body = {"messages": messages, "temperature": 0, "max_tokens": MAX_REPLY_TOKENS}
        if provider is Provider.OPENAI:
            body["model"] = self.model.name
        if schema is not None:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": name, "schema": dict(schema), "strict": False},
            }
        return body

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
                json=self._body(prompt, schema, name),
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
        provider = self.model.provider
        try:
            if provider is Provider.OLLAMA:
                text = data["message"]["content"]
                prompt_tokens = int(data.get("prompt_eval_count") or 0)
                completion_tokens = int(data.get("eval_count") or 0)
            elif provider is Provider.ANTHROPIC:
                if data.get("stop_reason") == "refusal":
                    raise JudgeCallError(f"the judge {self.label} refused to judge")
                text = "".join(
                    block.get("text", "") for block in data["content"] if block["type"] == "text"
                )
                usage = data.get("usage") or {}
                prompt_tokens = int(usage.get("input_tokens") or 0)
                completion_tokens = int(usage.get("output_tokens") or 0)
            else:
                message = data["choices"][0]["message"]
                if message.get("refusal"):
                    raise JudgeCallError(
                        f"the judge {self.label} refused to judge: {message['refusal'][:200]}"
                    )
                text = message.get("content") or ""
                usage = data.get("usage") or {}
                prompt_tokens = int(usage.get("prompt_tokens") or 0)
                completion_tokens = int(usage.get("completion_tokens") or 0)
        except (KeyError, IndexError, TypeError, AttributeError, ValueError):
            raise JudgeCallError(
                f"the judge {self.label} answered in an unexpected shape: {json.dumps(data)[:160]}"
            ) from None
        usage_total = TokenUsage(
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            total_tokens=prompt_tokens + completion_tokens,
        )
        return Reply(text=text, usage=usage_total)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None
