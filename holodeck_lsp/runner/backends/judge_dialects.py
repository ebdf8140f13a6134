"""How a judge model is asked over plain HTTP, one dialect per API family: where the request
goes, how the key travels, the request body and how the reply is read.

Each provider's row (backends/providers.py) names its dialect, so the judge's client
(runner/judges/transport.py) never asks which provider it talks to. A dialect is pure: it
builds dicts and reads them; sending, the limiter and the errors are the transport's.

The four families: OpenAI chat completions (structured output through `response_format:
json_schema` when the judge asks for a schema), Azure OpenAI (the same, per deployment),
Ollama's `/api/chat` (`format`: the schema) and Anthropic messages (the schema is asked for in
the prompt: the Messages API has no response format). Endpoints and keys are the runner's
(docs/running.md).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from holodeck_lsp.schema.llm import LLMProvider

AZURE_API_VERSION = "2024-10-21"
ANTHROPIC_VERSION = "2023-06-01"
#: Judges answer in JSON of a few hundred tokens; bounded so a runaway reply stops.
MAX_REPLY_TOKENS = 2048

#: The JSON Schema the judge's answer must match, or None for free text.
Schema = Mapping[str, Any] | None


@dataclass(frozen=True, slots=True)
class ReplyParts:
    """What a reply says: its text and token counts, or why the model refused (`refusal` is
    not None: "" when the API gives no reason)."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    refusal: str | None = None


@dataclass(frozen=True, slots=True)
class JudgeDialect:
    #: The base URL (the limiter's key) from the provider's resolved endpoint.
    base: Callable[[str], str]
    #: The request URL: (model, base, env) -> url.
    url: Callable[[LLMProvider, str, Mapping[str, str]], str]
    #: The headers, with the key (None: the provider's row has no key variable, none is sent).
    headers: Callable[[str | None], dict[str, str]]
    #: The request body: (model, prompt, schema, schema name) -> JSON object.
    body: Callable[[LLMProvider, str, Schema, str], dict[str, Any]]
    #: The reply read; raises KeyError/TypeError/... on an unexpected shape.
    reply: Callable[[Any], ReplyParts]
    #: Said after "set VARIABLE or the judge's `model.api_key`" when the key is missing.
    key_hint: str = ""
    #: A system prompt goes in the body's `system` (Messages API), not as a first message
    #: with the role `system` (a simulated user's instructions, runner/execution/simulation/).
    system_at_top: bool = False


def _chat_body(
    model: LLMProvider, prompt: str, schema: Schema, name: str, *, with_model: bool
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "messages": [{"role": "user", "content": prompt}],
        "temperature": 0,
        "max_tokens": MAX_REPLY_TOKENS,
    }
    if with_model:  # an Azure deployment names its model in the URL
        body["model"] = model.name
    if schema is not None:
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": name, "schema": dict(schema), "strict": False},
        }
    return body


def _chat_reply(data: Any) -> ReplyParts:
    message = data["choices"][0]["message"]
    if message.get("refusal"):
        return ReplyParts("", 0, 0, refusal=message["refusal"][:200])
    usage = data.get("usage") or {}
    return ReplyParts(
        message.get("content") or "",
        int(usage.get("prompt_tokens") or 0),
        int(usage.get("completion_tokens") or 0),
    )


def _ollama_body(model: LLMProvider, prompt: str, schema: Schema, name: str) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": model.name,
        "messages": [{"role": "user", "content": prompt}],
        "stream": False,
        "options": {"temperature": 0},
    }
    if schema is not None:
        body["format"] = dict(schema)
    return body


def _ollama_reply(data: Any) -> ReplyParts:
    return ReplyParts(
        data["message"]["content"],
        int(data.get("prompt_eval_count") or 0),
        int(data.get("eval_count") or 0),
    )


def _messages_body(model: LLMProvider, prompt: str, schema: Schema, name: str) -> dict[str, Any]:
    if schema is not None:
        prompt += (
            f"\n\nAnswer with one JSON object ({name}) matching this JSON Schema, "
            f"and nothing else:\n{json.dumps(schema)}"
        )
    return {
        "model": model.name,
        "max_tokens": MAX_REPLY_TOKENS,
        "temperature": 0,
        "messages": [{"role": "user", "content": prompt}],
    }


def _messages_reply(data: Any) -> ReplyParts:
    if data.get("stop_reason") == "refusal":
        return ReplyParts("", 0, 0, refusal="")
    text = "".join(block.get("text", "") for block in data["content"] if block["type"] == "text")
    usage = data.get("usage") or {}
    return ReplyParts(
        text, int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0)
    )


def _azure_url(model: LLMProvider, base: str, env: Mapping[str, str]) -> str:
    version = model.api_version or env.get("AZURE_OPENAI_API_VERSION") or AZURE_API_VERSION
    return f"{base}/openai/deployments/{model.name}/chat/completions?api-version={version}"


OPENAI_CHAT = JudgeDialect(
    base=lambda endpoint: endpoint,
    url=lambda model, base, env: base.rstrip("/") + "/chat/completions",
    headers=lambda key: {"Authorization": f"Bearer {key}"} if key else {},
    body=lambda model, prompt, schema, name: _chat_body(
        model, prompt, schema, name, with_model=True
    ),
    reply=_chat_reply,
    key_hint=" (e.g. `api_key: ${OPENAI_API_KEY}`)",
)
AZURE_CHAT = JudgeDialect(
    base=lambda endpoint: endpoint.rstrip("/"),
    url=_azure_url,
    headers=lambda key: {"api-key": key} if key else {},
    body=lambda model, prompt, schema, name: _chat_body(
        model, prompt, schema, name, with_model=False
    ),
    reply=_chat_reply,
)
OLLAMA_CHAT = JudgeDialect(
    # The judge speaks Ollama's own API, not the OpenAI-compatible one under /v1.
    base=lambda endpoint: endpoint.rstrip("/").removesuffix("/v1"),
    url=lambda model, base, env: base + "/api/chat",
    headers=lambda key: {},
    body=_ollama_body,
    reply=_ollama_reply,
)
ANTHROPIC_MESSAGES = JudgeDialect(
    base=lambda endpoint: endpoint.rstrip("/"),
    url=lambda model, base, env: base + "/v1/messages",
    headers=lambda key: {
        **({"x-api-key": key} if key else {}),
        "anthropic-version": ANTHROPIC_VERSION,
    },
    body=_messages_body,
    reply=_messages_reply,
    system_at_top=True,
)
