"""The openai client's HTTP client, with every request through the endpoint's limiter
(runner/limits/): openai's own defaults (timeouts, connection pool) kept, its transport
wrapped."""

from __future__ import annotations

import importlib
from typing import Any

from holodeck_lsp.runner.limits.registry import limiter_for
from holodeck_lsp.runner.limits.transport import limited_transport
from holodeck_lsp.schema.llm import LLMProvider


def limited_http_client(base_url: str, model: LLMProvider, retry_budget: int | None) -> Any:
    from openai import DefaultAsyncHttpxClient

    # The HTTP library the installed openai is built on (httpx, or its fork httpx2).
    module = importlib.import_module(DefaultAsyncHttpxClient.__mro__[1].__module__.split(".")[0])
    limiter = limiter_for(base_url, f"{model.provider.value}:{model.name}")
    transport = limited_transport(module, limiter, retry_budget=retry_budget)
    return DefaultAsyncHttpxClient(transport=transport)
