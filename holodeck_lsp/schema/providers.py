"""The providers a `model:` can name — the one list (schema/llm.py re-exports it; `--model`
checks against it; the completion scripts' `__models` offers it). A plain enum in a module of
its own, so that reading it does not import pydantic.

What the run does with each provider is its row in runner/backends/providers.py (a test
checks that every value here has one); only what the schema itself checks is kept here."""

from __future__ import annotations

from enum import StrEnum


class Provider(StrEnum):
    OPENAI = "openai"
    AZURE_OPENAI = "azure_openai"
    ANTHROPIC = "anthropic"
    OLLAMA = "ollama"


#: Providers with no default endpoint: `model.endpoint` is required (the schema's check and
#: the loader's diagnostic read this; their rows' `default_endpoint` is empty).
ENDPOINT_REQUIRED: frozenset[Provider] = frozenset({Provider.AZURE_OPENAI})

#: Each provider as the OpenTelemetry GenAI conventions name it (`gen_ai.provider.name`):
#: what a traced run writes (runner/tracing/genai.py) and `import otel` reads back
#: (importers/otel/suite.py) — docs/observability.md. Every provider has one (a test checks).
GENAI_PROVIDER_NAMES: dict[Provider, str] = {
    Provider.OPENAI: "openai",
    Provider.AZURE_OPENAI: "azure.ai.openai",
    Provider.ANTHROPIC: "anthropic",
    Provider.OLLAMA: "ollama",
}
