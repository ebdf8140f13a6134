"""The lines `holodeck-lsp run` ends with: the totals, tokens, and why a run proved nothing.

Built in one place so that every run flavour (live, replay, and later ones) ends the same
way; each line is its own function so a new total (the judges' tokens, say) is one more line.
"""

from __future__ import annotations

from holodeck_lsp.engine.run_statistics import pass_k_text, rate_text, run_statistics
from holodeck_lsp.engine.token_totals import agent_usage
from holodeck_lsp.engine.tool_loop import limit_summary, stopped_turns
from holodeck_lsp.reports.run.view import usd
from holodeck_lsp.schema.results import TestReport, TokenUsage
from holodeck_lsp.terminal import PLAIN, Palette


def closing_lines(
    report: TestReport,
    elapsed: float,
    *,
    unreachable: str | None = None,
    stopped_early: str | None = None,
    palette: Palette = PLAIN,
) -> list[str]:
    # The totals line stays last but for a backend that is down: CI logs are read from the end.
    lines = []
    tokens = agent_tokens_line(report)
    if tokens is not None:
        lines.append(tokens)
    judged = judge_tokens_line(report)
    if judged is not None:
        lines.append(judged)
    limited = limit_summary(stopped_turns(report))
    if limited is not None:
        lines.append(palette.paint(limited, "yellow"))
    lines += rate_lines(report)
    lines.append(totals_line(report, elapsed, stopped_early, palette))
    if unreachable is not None:
        lines.append(palette.paint(f"the backend is down: {unreachable}", "red", "bold"))
    return lines


def totals_line(
    report: TestReport, elapsed: float, stopped_early: str | None, palette: Palette = PLAIN
) -> str:
    summary = report.summary
    if stopped_early is not None:
        note = f" ({stopped_early})"
    elif report.environment.get("cancelled"):
        note = " (cancelled)"
    else:
        note = ""
    passed = palette.paint(f"{summary.passed} passed", "green") if summary.passed else "0 passed"
    failed = (
        palette.paint(f"{summary.failed} failed", "red", "bold") if summary.failed else "0 failed"
    )
    errored = (
        palette.paint(f", {summary.errored} errored", "yellow", "bold") if summary.errored else ""
    )
    errored += palette.paint(f", {summary.not_run} not run", "yellow") if summary.not_run else ""
    if summary.simulator_failed:  # no verdict on the agent (docs/simulated-users.md)
        errored += palette.paint(f", {summary.simulator_failed} simulator failed", "blue", "bold")
    return (
        f"{passed}, {failed}{errored} of {summary.total_tests} test cases"
        # Wall time: the command's, from the process's start — start-up (imports, the backend)
        # included (commands/run/command_clock.py). The reports' "agent time" is another
        # measure (the agent's answers, summed over turns): each is named.
        f" ({summary.passed_turns}/{summary.total_turns} turns) in {elapsed:.1f}s wall time{note}"
    )


def rate_lines(report: TestReport) -> list[str]:
    """`pass rate 60.0% [35.7, 80.2] (95% interval, 15 cases)`, and with `--repeat N` the
    suite's pass^k and pass@k (docs/reports.md, "Statistics")."""
    figures = run_statistics(report)
    if not figures.suite.measured:
        return []
    lines = [
        f"pass rate {rate_text(figures.suite)} (95% interval, "
        f"{figures.suite.measured:,} measured case sessions)"
    ]
    for model in figures.models:
        if model.pass_hat_k:
            whose = f"{model.model}: " if model.model and len(figures.models) > 1 else ""
            lines.append(
                f"{whose}pass^k {pass_k_text(model.pass_hat_k)}, "
                f"pass@k {pass_k_text(model.pass_at_k)} (k = 1…{len(model.pass_hat_k)})"
            )
    return lines


def agent_tokens(report: TestReport) -> TokenUsage | None:
    return agent_usage(report.results)


def agent_tokens_line(report: TestReport) -> str | None:
    usage = agent_tokens(report)
    if usage is None or usage.total_tokens == 0:
        return None
    cached = f", {usage.cache_read_tokens:,} read from cache" if usage.cache_read_tokens else ""
    return (
        f"agent tokens: {usage.total_tokens:,} ({usage.prompt_tokens:,} prompt, "
        f"{usage.completion_tokens:,} completion{cached}); {cost_text(report)}"
    )


def cost_text(report: TestReport) -> str:
    """`cost 0.0421 USD (prices as of 2026-12-01)`, or why there is none: a model the price
    list has no price for (a guessed price would be worse than none)."""
    unpriced = report.environment.get("cost_not_computed")
    cost = report.summary.cost_usd
    if unpriced or cost is None:
        whose = f" (no price for {unpriced})" if unpriced else ""
        return f"cost not computed{whose}"
    as_of = report.environment.get("prices_as_of")
    return f"cost {usd(cost)}" + (f" (prices as of {as_of})" if as_of else "")


def judge_tokens_line(report: TestReport) -> str | None:
    """`judge tokens: N (agent: M)` — what grading cost, apart from the agent's answers; a
    replay says the verdicts (and their tokens) were recorded."""
    judge = report.summary.judge_token_usage
    if judge is None:
        return None
    agent = agent_tokens(report)
    source = "recorded; " if report.environment.get("judges") == "replay" else ""
    return (
        f"judge tokens: {judge.total_tokens:,} "
        f"({source}agent: {agent.total_tokens if agent is not None else 0:,})"
    )
