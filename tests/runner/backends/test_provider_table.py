"""The providers table (runner/backends/providers.py) is the one registration of a provider:
it covers every value of the enum, and what its rows name exists."""

from __future__ import annotations

import importlib

import pytest

from holodeck_lsp.runner.backends.judge_dialects import JudgeDialect
from holodeck_lsp.runner.backends.providers import PROVIDERS, price_provider
from holodeck_lsp.runner.backends.sk.openai_client import SK_CLIENTS
from holodeck_lsp.schema.providers import ENDPOINT_REQUIRED, Provider


def test_every_provider_has_a_row_of_its_own() -> None:
    assert set(PROVIDERS) == set(Provider)
    assert all(row.provider is provider for provider, row in PROVIDERS.items())


@pytest.mark.parametrize("provider", list(Provider), ids=str)
def test_a_row_names_a_backend_and_a_judge_dialect_that_exist(provider: Provider) -> None:
    row = PROVIDERS[provider]
    module = importlib.import_module(f"holodeck_lsp.runner.backends.{row.backend_module}")
    assert hasattr(module, row.backend_class)
    assert isinstance(row.judge, JudgeDialect)
    # A Semantic Kernel provider names the client builder that makes its HTTP client.
    on_sk = row.backend_module == "semantic_kernel_backend"
    assert (row.sk_client in SK_CLIENTS) if on_sk else (row.sk_client is None)


def test_only_the_providers_without_a_default_endpoint_require_one() -> None:
    assert {row.provider for row in PROVIDERS.values() if not row.default_endpoint} == set(
        ENDPOINT_REQUIRED
    )


def test_prices_follow_the_row() -> None:
    assert price_provider("azure_openai") == "openai"
    assert price_provider("anthropic") == "anthropic"
    assert price_provider("not-a-provider") == "not-a-provider"
