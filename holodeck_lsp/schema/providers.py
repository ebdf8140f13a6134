"""The providers a `model:` can name — the one list (schema/llm.py re-exports it; `--model`
checks against it; the completion scripts' `__models` offers it). A plain enum in a module of
its own, so that reading it does not import pydantic."""

from __future__ import annotations

from enum import StrEnum


class Provider(StrEnum):
    OPENAI = "openai"
    AZURE_OPENAI = "azure_openai"
    ANTHROPIC = "anthropic"
    OLLAMA = "ollama"
