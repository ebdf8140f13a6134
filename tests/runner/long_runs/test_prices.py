"""The price list (runner/pricing/): shipped as package data with its date, looked up by
`provider:model` (dated snapshots and Azure's names too), overridden by holodeck-lsp.yaml
`prices:`, and the costs a report gets from its token usage."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest

from holodeck_lsp.reports.run.view import usd
from holodeck_lsp.runner.pricing.costs import priced_report, usage_cost
from holodeck_lsp.runner.pricing.price_list import Price, price_list, shipped_prices
from holodeck_lsp.schema.results import (
    ReportSummary,
    TestReport,
    TestResult,
    TokenUsage,
    TurnResult,
)
from holodeck_lsp.settings.limits_config import configured_limits


def test_the_shipped_list_is_package_data_with_its_date() -> None:
    text = resources.files("holodeck_lsp.runner.pricing").joinpath("prices.json").read_text()
    data = json.loads(text)
    assert data["as_of"] == "2026-12-01"
    prices = shipped_prices()
    assert prices.as_of == "2026-12-01"
    for model in ("openai:gpt-4o", "openai:gpt-4o-mini", "openai:gpt-4.1-mini", "openai:o3",
                  "anthropic:claude-sonnet-4-5", "anthropic:claude-haiku-4-5",
                  "anthropic:claude-opus-4-1"):  # fmt: skip
        price = prices.lookup(model)
        assert price is not None and 0 < price.input < price.output, model


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("openai:gpt-4o-2024-08-06", Price(2.5, 10.0)),  # a dated snapshot: its family's price
        ("anthropic:claude-sonnet-4-5-20250929", Price(3.0, 15.0)),
        ("anthropic:claude-3-5-haiku-latest", Price(0.8, 4.0)),
        ("azure_openai:gpt-4o-mini", Price(0.15, 0.6)),  # Azure sells OpenAI's models
        ("ollama:qwen2.5:7b", None),  # no price: cost not computed, never guessed
        ("openai:gpt-4o-mini-tts", None),  # a longer name is another model
    ],
)
def test_lookup(model: str, expected: Price | None) -> None:
    assert shipped_prices().lookup(model) == expected


def test_holodeck_lsp_yaml_prices_override_and_add(tmp_path: Path) -> None:
    (tmp_path / "holodeck-lsp.yaml").write_text(
        "prices:\n  openai:gpt-4o: {input: 1.25}\n  ollama:qwen2.5:7b: {input: 0.1, output: 0.2}\n",
        encoding="utf-8",
    )
    found = configured_limits(tmp_path, home=tmp_path / "home")
    prices = price_list(found.prices)
    assert prices.lookup("openai:gpt-4o") == Price(1.25, 10.0)  # output kept from the list
    assert prices.lookup("ollama:qwen2.5:7b") == Price(0.1, 0.2)
    assert "holodeck-lsp.yaml" in prices.as_of


def test_usage_cost_is_prompt_at_input_and_completion_at_output() -> None:
    usage = TokenUsage(prompt_tokens=1_000_000, completion_tokens=500_000, total_tokens=1_500_000)
    assert usage_cost(usage, Price(2.0, 8.0)) == pytest.approx(6.0)
    assert usage_cost(None, Price(2.0, 8.0)) is None and usage_cost(usage, None) is None
    assert usd(12.345) == "12.35 USD" and usd(0.0421) == "0.0421 USD"
    assert usd(0.0000027) == "0.000003 USD"


def _usage(prompt: int, completion: int) -> TokenUsage:
    return TokenUsage(
        prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion
    )


def _report(models: list[str]) -> TestReport:
    results = []
    for model in models:
        turns = [
            TurnResult(turn_index=i, input="q", passed=True, token_usage=_usage(1000, 100))
            for i in range(2)
        ]
        results.append(
            TestResult(
                test_name="c", passed=True, turns=turns, token_usage=_usage(2000, 200), model=model
            )
        )
    summary = ReportSummary(total_tests=len(results), passed=len(results), failed=0, pass_rate=100)
    return TestReport(
        agent_name="a",
        agent_config_path="agent.yaml",
        results=results,
        summary=summary,
        timestamp="2026-12-03T00:00:00+00:00",
        holodeck_version="test",
        models=models,
        model_summaries={model: summary for model in models},
    )


def test_a_report_gets_costs_per_turn_case_model_and_run() -> None:
    priced = priced_report(_report(["openai:gpt-4o"]), shipped_prices(), "openai:gpt-4o")
    case = priced.results[0]
    assert case.turns is not None
    # 1,000 prompt at 2.50 + 100 completion at 10.00 per million
    assert [turn.cost_usd for turn in case.turns] == [pytest.approx(0.0035)] * 2
    assert case.cost_usd == pytest.approx(0.007)
    assert priced.summary.cost_usd == pytest.approx(0.007)
    assert priced.model_summaries["openai:gpt-4o"].cost_usd == pytest.approx(0.007)
    assert priced.environment["prices_as_of"] == "2026-12-01"
    assert json.loads(priced.model_dump_json())["summary"]["cost_usd"] == pytest.approx(0.007)


def test_an_unpriced_model_has_no_cost_and_no_partial_total() -> None:
    models = ["openai:gpt-4o", "ollama:llama3"]
    priced = priced_report(_report(models), shipped_prices(), "openai:gpt-4o")
    assert priced.model_summaries["openai:gpt-4o"].cost_usd == pytest.approx(0.007)
    assert priced.model_summaries["ollama:llama3"].cost_usd is None
    assert priced.results[1].cost_usd is None
    assert priced.summary.cost_usd is None  # a partial sum would read as the run's cost
    assert priced.environment["cost_not_computed"] == "ollama:llama3"


def test_the_matrix_table_has_a_cost_row() -> None:
    from holodeck_lsp.commands.console.matrix_table import matrix_lines

    models = ["openai:gpt-4o", "ollama:llama3"]
    priced = priced_report(_report(models), shipped_prices(), "openai:gpt-4o")
    [row] = [line for line in matrix_lines(priced) if line.strip().startswith("cost")]
    assert row.split() == ["cost", "0.007000", "USD", "-"]  # `-`: no price, not computed
