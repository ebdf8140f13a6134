"""The Markdown report, for people (GitHub-flavoured Markdown).

Layout: a title with the agent's name and a summary line; a table of the turns that did not
pass, each with its first reason; a table of cases with the failing ones first; then one
section per case in file order, with one block per turn (a single-turn case is one block):
input, response, tool calls with their arguments, the outcome of each `expected_tools`
assertion, metric scores, pass/fail, duration, tokens and errors.

Agent text is never interpreted as Markdown: inputs and responses go in fenced blocks, other
free text is backslash-escaped, and table cells also escape `|` and line breaks.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from holodeck_lsp.engine.repeat_rates import model_rates
from holodeck_lsp.engine.statistics.wilson import wilson_interval
from holodeck_lsp.engine.time_text import shown_time
from holodeck_lsp.engine.token_totals import agent_usage, judge_usage
from holodeck_lsp.engine.tool_loop import limit_summary, refused_call
from holodeck_lsp.reports.run.statistics_tables import statistics_markdown
from holodeck_lsp.reports.run.view import (
    Block,
    Case,
    case_status,
    cases,
    duration,
    error_reason,
    failing_views,
    metric_status,
    number,
    run_cost,
    skip_reason,
    tokens,
    tool_reason,
    usd,
)
from holodeck_lsp.schema.results import MetricResult, TestReport, TokenUsage

_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~&])")
_BLOCK_START = re.compile(r"^(\d{1,9})([.)])(?=\s|$)|^([-+])(?=\s|$)")
_BACKTICKS = re.compile(r"`+")
_PASSED = "✅ passed"
_FAILED = "❌ failed"
_SKIPPED = "⏭ skipped"
_ERRORED = "⚠ errored"
_NOT_RUN = "⏸ not run"
_SIMULATOR_FAILED = "🤖 simulator failed"
_STATUS = {
    "passed": _PASSED,
    "failed": _FAILED,
    "skipped": _SKIPPED,
    "errored": _ERRORED,
    "not run": _NOT_RUN,
    "simulator failed": _SIMULATOR_FAILED,
}
_METRIC_MARK = {
    "passed": "✓ passed",
    "failed": "✗ failed",
    "error": "⚠ error",
    "skipped": "⏭ skipped",
    "not graded": "—",
}


def render(report: TestReport) -> str:
    ordered = cases(report)
    lines = [f"# Test report: {_text(report.agent_name)}", "", _summary_line(ordered), ""]
    lines += [_meta_line(report), ""]
    lines += statistics_markdown(report)
    if len(report.models) > 1 or report.repeats > 1:
        lines += ["## Models", ""]
        lines += _model_table(report)
        lines.append("")
    failing = _failing_turns(ordered)
    if failing:
        lines += ["## Failing turns", ""]
        lines += failing
        lines.append("")
    if ordered:
        lines += ["## Summary", ""]
        lines += _case_table(ordered)
        lines.append("")
    for case in ordered:
        lines += _case_section(case)
    return "\n".join(lines).rstrip("\n") + "\n"


# --------------------------------------------------------------------------------------------
# Header and summary table
# --------------------------------------------------------------------------------------------


def _model_table(report: TestReport) -> list[str]:
    """One row per model: cases and turns passed; with repeats pass@1, passed in all N and
    flaky turns (engine/repeat_rates)."""
    rates = {rate.model: rate for rate in model_rates(report.results)}
    header = ["Model", "Cases passed", "Turns passed"]
    if report.repeats > 1:
        header += ["pass@1", f"Passed in all {report.repeats}", "Flaky turns"]
    rows = []
    for model in report.models:
        summary = report.model_summaries.get(model)
        rate = rates.get(model)
        if summary is None or rate is None:
            continue
        row = [
            model,
            f"{summary.passed}/{summary.total_tests}",
            f"{summary.passed_turns}/{summary.total_turns}",
        ]
        if report.repeats > 1:
            row += [f"{rate.pass_at_1 * 100:.0f}%", f"{rate.passed_all}/{rate.cases}"]
            row.append(str(rate.flaky_turns))
        rows.append(row)
    return _table(header, rows)


def _summary_line(ordered: Sequence[Case]) -> str:
    total = len(ordered)
    passed = sum(1 for case in ordered if case.result.passed)
    errored = sum(1 for case in ordered if case_status(case.result) == "errored")
    never = sum(
        1 for case in ordered if case_status(case.result) in ("not run", "simulator failed")
    )
    measured = total - errored - never
    verdict = "Passed" if passed == measured else "Failed"
    # Errored cases are not measured: the rate is over the cases that were.
    rate = 100.0 * passed / measured if measured else 100.0
    turns = sum(len(case.blocks) for case in ordered)
    turns_passed = sum(case.turns_passed for case in ordered)
    elapsed = sum(case.result.execution_time_ms for case in ordered)
    interval = wilson_interval(passed, measured).percent() if measured else "[-]"
    headline = f"**{verdict}**: {passed} of {measured} test cases passed ({rate:.1f}%)"
    headline += f", 95% interval {interval}"
    if errored:
        headline += f", {errored} errored (not measured)"
    if never:
        headline += f", {never} not run (the run stopped first)"
    parts = [headline, f"{turns_passed} of {turns} turns passed", f"agent time {duration(elapsed)}"]
    usage = agent_usage(case.result for case in ordered)
    if usage is not None:
        parts.append(f"{usage.total_tokens:,} tokens")
    judge = judge_usage([case.result for case in ordered])
    if judge is not None:
        parts.append(f"{judge.total_tokens:,} judge tokens")
    cost = run_cost(case.result.cost_usd for case in ordered)
    if ordered and cost is not None:  # every case priced (a partial sum would mislead)
        parts.append(f"cost {usd(cost)}")
    limited = limit_summary(t for case in ordered for t in case.result.turn_results())
    if limited is not None:
        parts.append(limited)
    return " · ".join(parts)


def _meta_line(report: TestReport) -> str:
    parts = [f"Config {_code(report.agent_config_path)}"]
    if report.timestamp:
        parts.append(f"run {_text(shown_time(report.timestamp))}")
    if report.holodeck_version:
        parts.append(_text(report.holodeck_version))
    if len(report.models) > 1:
        parts.append("models " + ", ".join(_code(model) for model in report.models))
    if report.repeats > 1:
        parts.append(f"{report.repeats} repeats")
    return " · ".join(parts)


def _failing_turns(ordered: Sequence[Case]) -> list[str]:
    """Every turn that did not pass, in file order, with the first reason of each view that
    failed it (expected_tools, each metric) — what to look at first in a long run."""
    rows = []
    for case in ordered:
        for block in case.blocks:
            if block.passed:
                continue
            if block.skipped:
                reasons = [skip_reason(block)]
            elif block.errored:
                reasons = [error_reason(block)]
            else:
                reasons = ["; ".join(failing_views(block))]
            turn = "—" if block.turn_index is None else str(block.turn_index)
            status = _STATUS[block.status]
            rows.append([case.label, turn, status, reasons[0] if reasons else ""])
    if not rows:
        return []
    return _table(["Test case", "Turn", "Result", "Why (each failing view)"], rows)


def _case_table(ordered: Sequence[Case]) -> list[str]:
    # Failing cases first; file order within each group.
    rows = [
        [
            case.label,
            _STATUS[case_status(case.result)],
            f"{case.turns_passed}/{len(case.blocks)}",
            duration(case.result.execution_time_ms),
            tokens(case.result.token_usage),
        ]
        for case in sorted(ordered, key=lambda case: case.result.passed)
    ]
    return _table(["Test case", "Result", "Turns passed", "Agent time", "Tokens"], rows)


# --------------------------------------------------------------------------------------------
# Case sections and blocks
# --------------------------------------------------------------------------------------------


def _case_section(case: Case) -> list[str]:
    result = case.result
    title = _text(case.label)
    if result.test_name:
        title += f" (#{case.position})"
    lines = [f"## {title}: {_STATUS[case_status(result)]}", ""]
    if not case.multi_turn:
        lines += _block_body(case.blocks[0])
        return lines
    lines += [
        _facts(
            f"{case.turns_passed} of {len(case.blocks)} turns passed",
            result.execution_time_ms,
            result.token_usage,
        ),
        "",
    ]
    if case.case_errors:
        lines += ["**Test case errors**", "", *_bullets(case.case_errors), ""]
    if result.metric_results:
        lines += ["**Metrics (mean over turns)**", "", *_metric_table(result.metric_results), ""]
    for block in case.blocks:
        lines += [f"### Turn {block.turn_index}: {_verdict(block)}", ""]
        lines += _block_body(block)
    return lines


def _verdict(block: Block) -> str:
    return _STATUS[block.status]


def _facts(first: str | None, ms: int, usage: TokenUsage | None) -> str:
    parts = [first] if first else []
    parts.append(f"agent time {duration(ms)}")
    parts.append(f"tokens {tokens(usage)}")
    return " · ".join(parts)


def _block_body(block: Block) -> list[str]:
    result = "Result: " + _verdict(block) if block.turn_index is None else None
    lines = (
        [] if block.skipped else [_facts(result, block.execution_time_ms, block.token_usage), ""]
    )
    lines += ["**Input**", "", *_fenced(block.input), ""]
    if block.ground_truth is not None:
        lines += [f"**Ground truth:** {_code(block.ground_truth)}", ""]
    if block.skipped:
        lines += ["**Errors**", "", *_bullets(block.errors or ["not run"]), ""]
        return lines
    lines += ["**Response**", ""]
    lines += [*(_fenced(block.response) if block.response is not None else ["_no response_"]), ""]
    calls = _tool_calls(block)
    if calls:
        lines += ["**Tool calls**", "", *calls, ""]
    expected = _expected_tools(block)
    if expected:
        lines += ["**Expected tools**", "", *expected, ""]
    if block.metric_results:
        lines += ["**Metrics**", "", *_metric_table(block.metric_results), ""]
    if block.errors:
        lines += ["**Errors**", "", *_bullets(block.errors), ""]
    return lines


def _tool_calls(block: Block) -> list[str]:
    if not block.tool_invocations:
        return [f"- call {i}: {_code(name)}" for i, name in enumerate(block.tool_calls)]
    lines = []
    for index, call in enumerate(block.tool_invocations):
        line = f"- call {index}: {_code(call.name)} {_code(_json(call.args))}"
        refused = refused_call(call)
        if refused:
            line += f" — {_text(refused)}"
        if call.error is not None:
            line += f" — error: {_text(call.error)}"
        lines.append(line)
    return lines


def _expected_tools(block: Block) -> list[str]:
    if block.arg_match_details is None:
        if not block.expected_tools:
            return []
        mark = {True: "✓", False: "✗", None: "·"}[block.tools_matched]
        return [f"- {mark} {_code(_json(entry))}" for entry in block.expected_tools]
    lines = []
    for detail in block.arg_match_details:
        line = f"- {'✓' if detail.passed else '✗'} {_code(detail.tool)}"
        if detail.args_asserted is not None:
            line += f" {_code(_json(detail.args_asserted))}"
        if detail.count > 1:
            line += f" ×{detail.count}"
        reason = tool_reason(detail)
        if reason is not None:
            line += f" — {_text(reason)}"
        elif detail.matched_call_index is not None:
            line += f" — matched call {detail.matched_call_index}"
            if detail.matched_calls > 1:
                line += f" ({detail.matched_calls} matching calls)"
        lines.append(line)
    return lines


def _metric_table(metrics: Iterable[MetricResult]) -> list[str]:
    rows = []
    for metric in metrics:
        status = metric_status(metric)
        note = metric.error if metric.error is not None else metric.reasoning
        rows.append(
            [
                metric.metric_name,
                "—" if metric.skipped or metric.error is not None else number(metric.score),
                "—" if metric.threshold is None else number(metric.threshold),
                _METRIC_MARK[status],
                note or "",
            ]
        )
    return _table(["Metric", "Score", "Threshold", "Result", "Notes"], rows)


# --------------------------------------------------------------------------------------------
# Markdown primitives
# --------------------------------------------------------------------------------------------


def _text(value: str) -> str:
    """Inline text shown literally: Markdown punctuation escaped, line breaks as <br>."""
    escaped = _SPECIAL.sub(r"\\\1", value)
    # Text that would open a list item or underline a heading at the start of a line.
    escaped = _BLOCK_START.sub(lambda m: f"{m[1]}\\{m[2]}" if m[1] else f"\\{m[3]}", escaped)
    return "<br>".join(escaped.replace("\r\n", "\n").replace("\r", "\n").split("\n"))


def _cell(value: str) -> str:
    """A table cell: `_text` escapes `|` and turns line breaks into <br>, as GFM needs."""
    return _text(value)


def _code(value: str) -> str:
    """An inline code span, however many backticks the value holds (on one line)."""
    flat = " ".join(value.splitlines()) if value else ""
    longest = max((len(run) for run in _BACKTICKS.findall(flat)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") or not flat.strip() else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def _fenced(value: str) -> list[str]:
    longest = max((len(run) for run in _BACKTICKS.findall(value)), default=0)
    fence = "`" * max(3, longest + 1)
    body = value.replace("\r\n", "\n").replace("\r", "\n")
    return [f"{fence}text", *body.split("\n"), fence]


def _bullets(items: Iterable[str]) -> list[str]:
    return [f"- {_text(item)}" for item in items]


def _table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(value) for value in row) + " |" for row in rows]
    return lines


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
