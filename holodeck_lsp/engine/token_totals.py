"""Token sums, written once: the agent's tokens over some results and the judges' tokens over
the same, as the console's closing lines, the model table, and the Markdown, HTML and JUnit
reports all show them — so no two places can disagree on a run's totals."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from holodeck_lsp.schema.results import TestResult, TokenUsage


def sum_usage(usages: Iterable[TokenUsage | None]) -> TokenUsage | None:
    """Element-wise sum; None when no part reported usage."""
    present = [usage for usage in usages if usage is not None]
    if not present:
        return None
    total = TokenUsage.zero()
    for usage in present:
        total = total + usage
    return total


def agent_usage(results: Iterable[TestResult]) -> TokenUsage | None:
    """The agent's tokens over `results` (None when the backend reported none, e.g. a replay
    of a cassette recorded without usage). A case without its own total counts its turns'."""
    total: TokenUsage | None = None
    for result in results:
        usage = result.token_usage
        if usage is None and result.turns:
            usage = sum_usage(turn.token_usage for turn in result.turns)
        if usage is not None:
            total = usage if total is None else total + usage
    return total


def judge_usage(results: Sequence[TestResult]) -> TokenUsage | None:
    """Tokens the LLM judges spent on these results (per turn: a multi-turn case's own
    metric results are roll-ups that carry none)."""
    usages = [
        metric.judge_tokens
        for result in results
        for turn_metrics in (
            [t.metric_results for t in result.turns]
            if result.turns is not None
            else [result.metric_results]
        )
        for metric in turn_metrics
        if metric.judge_tokens is not None
    ]
    return sum_usage(usages)
