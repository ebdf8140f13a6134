"""The terminal summary of a model matrix or a `--repeat N` run: one row per case (and per
turn with `-v`), one column per model, then per-model totals — cases passed, turns, pass@1 and
"passed in all N" with repeats, the pass rate with its 95 % interval and pass^k
(docs/reports.md, "Statistics"), tokens, cost, wall time, turn time p50 / p95.

    Matrix (2 models):   openai:gpt-4o-mini   anthropic:claude-sonnet-4-5
      difference         ✓                    ✗
      mismatch           ✗                    ✗
      cases passed       1/2                  0/2
      ...

With repeats a cell is the pass rate over the N sessions (`3/5`), marked `~ flaky` when it
both passed and failed. Plain text, columns padded by display width; colour only on ✓/✗.
"""

from __future__ import annotations

import unicodedata

from holodeck_lsp.engine.repeat_rates import Rate, case_rates, model_rates, turn_rates
from holodeck_lsp.engine.run_statistics import latency_text, pass_k_text, rate_text, run_statistics
from holodeck_lsp.engine.token_totals import agent_usage
from holodeck_lsp.reports.run.view import usd
from holodeck_lsp.runner.execution.executor import WALL_TIME_KEY
from holodeck_lsp.schema.results import TestReport, TestResult
from holodeck_lsp.terminal import PLAIN, Palette

FLAKY = "~ flaky"


def wants_matrix(report: TestReport) -> bool:
    """Several models or repeats: the table replaces the per-case list."""
    return len(report.models) > 1 or report.repeats > 1


def matrix_lines(
    report: TestReport,
    *,
    verbose: bool = False,
    palette: Palette = PLAIN,
    marks: tuple[str, str] = ("✓", "✗"),
) -> list[str]:
    models = list(report.models) or list(dict.fromkeys(r.model for r in report.results if r.model))
    if not models:
        models = [""]
    repeats = report.repeats
    cases = case_rates(report.results)
    turns = turn_rates(report.results)
    order = _case_order(report.results)
    rows: list[list[str]] = []
    for index, label in order:
        rows.append([label] + [_cell(cases.get((m, index)), repeats, marks) for m in models])
        if verbose:
            for turn in sorted({t for (_, i, t) in turns if i == index}):
                rows.append(
                    [f"  turn {turn}"]
                    + [_cell(turns.get((m, index, turn)), repeats, marks) for m in models]
                )
    rates = {rate.model: rate for rate in model_rates(report.results)}
    totals: list[list[str]] = []
    summaries = report.model_summaries
    totals.append(
        ["cases passed"]
        + [
            f"{summaries[m].passed}/{summaries[m].total_tests}" if m in summaries else "-"
            for m in models
        ]
    )
    totals.append(
        ["turns passed"]
        + [
            f"{summaries[m].passed_turns}/{summaries[m].total_turns}" if m in summaries else "-"
            for m in models
        ]
    )
    if repeats > 1:
        totals.append(
            ["pass@1"] + [f"{rates[m].pass_at_1 * 100:.0f}%" if m in rates else "-" for m in models]
        )
        totals.append(
            [f"passed in all {repeats}"]
            + [f"{rates[m].passed_all}/{rates[m].cases}" if m in rates else "-" for m in models]
        )
        totals.append(
            ["flaky turns"] + [str(rates[m].flaky_turns) if m in rates else "-" for m in models]
        )
    figures = {figure.model or "": figure for figure in run_statistics(report).models}
    totals.append(
        ["pass rate [95%]"] + [rate_text(figures[m].cases) if m in figures else "-" for m in models]
    )
    if repeats > 1:
        totals.append(
            [f"pass^k (k=1…{repeats})"]
            + [pass_k_text(figures[m].pass_hat_k) if m in figures else "-" for m in models]
        )
    totals.append(["agent tokens"] + [_tokens(report.results, m) for m in models])
    totals.append(["cost"] + [_cost(report, m) for m in models])
    totals.append(["wall time"] + [_wall(report, m) for m in models])
    totals.append(
        ["turn time"] + [latency_text(figures[m]) if m in figures else "-" for m in models]
    )
    title = _title(len(models), repeats)
    table = _render([[title, *models], *rows, *totals], header_rows=1, rule_before=len(rows) + 1)
    # Imported here: only a run of several models compares them, and the paired statistics
    # bring the comparison's models (docs/benchmarks.md, "Start-up cost, issue 37 item 7").
    from holodeck_lsp.engine.comparison_statistics import matrix_comparisons

    paired = [f"  {figures.summary}" for figures in matrix_comparisons(report)]
    if paired:
        paired.insert(0, f"Paired against {models[0]} (docs/reports.md, Paired comparison):")
    return ["", *(_paint(line, palette, marks) for line in table), *paired]


def _title(models: int, repeats: int) -> str:
    parts = []
    if models > 1:
        parts.append(f"{models} models")
    if repeats > 1:
        parts.append(f"{repeats} repeats")
    return "Matrix (" + ", ".join(parts) + "):" if parts else "Results:"


def _case_order(results: list[TestResult]) -> list[tuple[int, str]]:
    seen: dict[int, str] = {}
    for result in results:
        index = result.test_index if result.test_index is not None else -1
        seen.setdefault(index, result.test_name or f"test_cases[{index}]")
    return sorted(seen.items())


def _cell(rate: Rate | None, repeats: int, marks: tuple[str, str]) -> str:
    if rate is None:
        return "-"
    if repeats == 1 and rate.runs == 1:
        return marks[0] if rate.passed else marks[1]
    mark = marks[0] if rate.always else marks[1]
    return f"{mark} {rate}" + (f" {FLAKY}" if rate.flaky else "")


def _tokens(results: list[TestResult], model: str) -> str:
    usage = agent_usage(result for result in results if (result.model or "") == model)
    return f"{usage.total_tokens:,}" if usage is not None else "-"


def _cost(report: TestReport, model: str) -> str:
    """The model's cost at the price list; `-` for a model with no price (not computed)."""
    summary = report.model_summaries.get(model, report.summary)
    return usd(summary.cost_usd) if summary.cost_usd is not None else "-"


def _wall(report: TestReport, model: str) -> str:
    raw = report.environment.get(f"{WALL_TIME_KEY}{model}")
    if raw is None:
        summary = report.model_summaries.get(model, report.summary)
        # A single model: its sessions' summed time is all there is (no per-model span).
        return f"{summary.total_duration_ms / 1000:.1f}s"
    return f"{int(raw) / 1000:.1f}s"


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def _render(rows: list[list[str]], *, header_rows: int, rule_before: int) -> list[str]:
    widths = [max(_width(row[col]) for row in rows) for col in range(len(rows[0]))]
    lines = []
    for number, row in enumerate(rows):
        if number == rule_before and rule_before < len(rows):
            lines.append("  " + "  ".join("-" * width for width in widths))
        cells = [cell + " " * (widths[col] - _width(cell)) for col, cell in enumerate(row)]
        indent = "" if number < header_rows else "  "
        lines.append((indent + "  ".join(cells)).rstrip())
    return lines


def _paint(line: str, palette: Palette, marks: tuple[str, str]) -> str:
    if not palette.enabled:
        return line
    return line.replace(f"{marks[0]}", palette.paint(marks[0], "green")).replace(
        f"{marks[1]}", palette.paint(marks[1], "red")
    )
