"""The GenAI semantic conventions' names this package emits, and what a model call's
request and answer say in those terms (docs/observability.md, "Conventions followed").

Pure: no OpenTelemetry, no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from holodeck_lsp.schema.providers import GENAI_PROVIDER_NAMES

#: The conventions' release whose names are emitted; `gen_ai.evaluation.result` is from 1.38.
SEMCONV_VERSION = "1.38.0"
SCHEMA_URL = f"https://opentelemetry.io/schemas/{SEMCONV_VERSION}"
#: With this value in `OTEL_SEMCONV_STABILITY_OPT_IN` only the newest names are emitted;
#: without it the deprecated `gen_ai.system` is sent too, for backends on older conventions.
LATEST_OPT_IN = "gen_ai_latest_experimental"

OPERATION = "gen_ai.operation.name"
PROVIDER = "gen_ai.provider.name"
SYSTEM_OLD = "gen_ai.system"
REQUEST_MODEL = "gen_ai.request.model"
RESPONSE_MODEL = "gen_ai.response.model"
RESPONSE_ID = "gen_ai.response.id"
FINISH_REASONS = "gen_ai.response.finish_reasons"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
CACHE_READ_TOKENS = "gen_ai.usage.cache_read.input_tokens"
CACHE_CREATION_TOKENS = "gen_ai.usage.cache_creation.input_tokens"
CONVERSATION_ID = "gen_ai.conversation.id"
AGENT_NAME = "gen_ai.agent.name"
INPUT_MESSAGES = "gen_ai.input.messages"
OUTPUT_MESSAGES = "gen_ai.output.messages"
TOOL_NAME = "gen_ai.tool.name"
TOOL_TYPE = "gen_ai.tool.type"
TOOL_CALL_ID = "gen_ai.tool.call.id"
TOOL_CALL_ARGUMENTS = "gen_ai.tool.call.arguments"
TOOL_CALL_RESULT = "gen_ai.tool.call.result"
EVALUATION_EVENT = "gen_ai.evaluation.result"
EVALUATION_NAME = "gen_ai.evaluation.name"
EVALUATION_SCORE = "gen_ai.evaluation.score.value"
EVALUATION_LABEL = "gen_ai.evaluation.score.label"
EVALUATION_EXPLANATION = "gen_ai.evaluation.explanation"
ERROR_TYPE = "error.type"
SERVER_ADDRESS = "server.address"
SERVER_PORT = "server.port"

#: holodeck-lsp's own attributes (not in the conventions): what tells sessions apart.
CASE_NAME = "holodeck.case.name"
CASE_INDEX = "holodeck.case.index"
CASE_MODEL = "holodeck.case.model"
CASE_REPEAT = "holodeck.case.repeat"
TURN_INDEX = "holodeck.turn.index"
CALL_ROLE = "holodeck.call.role"

#: The agent's providers in the conventions' `gen_ai.provider.name` values, by `provider:` value.
PROVIDER_NAMES: dict[str, str] = {
    provider.value: name for provider, name in GENAI_PROVIDER_NAMES.items()
}


def provider_of_url(url: str) -> str:
    """The provider a model call goes to, by the API it speaks."""
    parts = urlsplit(url)
    if parts.path.rstrip("/").endswith("/messages"):
        return "anthropic"
    if "api-version=" in parts.query or (parts.hostname or "").endswith(".azure.com"):
        return "azure.ai.openai"
    return "openai"


@dataclass(frozen=True, slots=True)
class CallRequest:
    provider: str
    model: str | None
    address: str | None
    port: int | None


def read_request(url: str, body: bytes) -> CallRequest:
    parts = urlsplit(url)
    model: str | None = None
    data = _json(body)
    if isinstance(data, Mapping) and isinstance(data.get("model"), str):
        model = str(data["model"])
    elif "/deployments/" in parts.path:
        model = parts.path.split("/deployments/", 1)[1].split("/", 1)[0] or None
    return CallRequest(provider_of_url(url), model, parts.hostname, parts.port)


def answer_attributes(body: bytes | None) -> dict[str, Any]:
    """Model, id, finish reasons and usage of a JSON answer (OpenAI or Anthropic shape)."""
    data = _json(body or b"")
    if not isinstance(data, Mapping):
        return {}
    found: dict[str, Any] = {}
    if isinstance(data.get("model"), str):
        found[RESPONSE_MODEL] = data["model"]
    if isinstance(data.get("id"), str):
        found[RESPONSE_ID] = data["id"]
    reasons = [
        str(choice.get("finish_reason"))
        for choice in data.get("choices") or ()
        if isinstance(choice, Mapping) and choice.get("finish_reason")
    ]
    if isinstance(data.get("stop_reason"), str):
        reasons.append(data["stop_reason"])
    if reasons:
        found[FINISH_REASONS] = reasons
    usage = data.get("usage")
    if isinstance(usage, Mapping):
        found.update(usage_attributes(usage))
    return found


def usage_attributes(usage: Mapping[str, Any]) -> dict[str, int]:
    def number(*names: str) -> int | None:
        for name in names:
            value = usage.get(name)
            if isinstance(value, int) and not isinstance(value, bool):
                return value
        return None

    found: dict[str, int] = {}
    given = number("input_tokens", "prompt_tokens")
    if given is not None:
        found[INPUT_TOKENS] = given
    given = number("output_tokens", "completion_tokens")
    if given is not None:
        found[OUTPUT_TOKENS] = given
    given = number("cache_read_input_tokens")
    if given:
        found[CACHE_READ_TOKENS] = given
    given = number("cache_creation_input_tokens")
    if given:
        found[CACHE_CREATION_TOKENS] = given
    return found


def _json(body: bytes) -> Any:
    if not body or body[:1] not in (b"{", b"["):
        return None
    try:
        return json.loads(body)
    except ValueError:
        return None
