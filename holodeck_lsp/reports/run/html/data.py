"""The HTML page's data: a `TestReport` turned into the compact, JSON-shaped structure the
page's script draws from.

Why not embed the report itself: for a multi-turn case the report repeats every turn in the
case's roll-up fields, and the page's numbers (failure kinds, the call a tool assertion
matched or came closest to) are the engine's to decide, not JavaScript's. Empty fields are
left out, and strings longer than `LONG_STRING` are cut with a note, so 1,000 cases stay
within a few megabytes (bench/html_report.py).

`runs` holds one column per model (matrix.py); a case's repeats after the first are in its
`more` list; `baseline` is what a comparison with another run found (baseline.py), or null.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from holodeck_lsp.engine.time_text import shown_time
from holodeck_lsp.engine.token_totals import agent_usage
from holodeck_lsp.engine.tool_loop import limit_summary, refused_call
from holodeck_lsp.reports.run.html.baseline import baseline_data
from holodeck_lsp.reports.run.html.compact import share_metric_definitions, share_turn_text
from holodeck_lsp.reports.run.html.matrix import Column, columns, flaky_turns
from holodeck_lsp.reports.run.html.page_statistics import add_statistics, paired_lines
from holodeck_lsp.reports.run.view import (
    Block,
    Case,
    case_status,
    failure_reasons,
    run_cost,
    tool_reason,
)
from holodeck_lsp.schema.comparison import Comparison
from holodeck_lsp.schema.results import ArgMatchDetail, MetricResult, TestReport, ToolInvocation

#: Bumped when the page's data changes shape (the script checks it). 2: model columns,
#: repeats (`more`), turn text and metric definitions written once (compact.py), the baseline.
PAGE_FORMAT = 2
#: Characters of one string kept in the page; the JSON report keeps them all.
LONG_STRING = 4000

#: (case position, turn index or None) -> (0-based line, 0-based character) in the agent file.
Locations = Mapping[tuple[int, int | None], tuple[int, int]]

_ARG_KEY = re.compile(r"arg '((?:[^']|'(?!\s(?:mismatch|missing)))*)' (mismatch|missing)")
_CLOSEST = re.compile(r"\(closest of \d+ calls, index (\d+)\)")
_TIMEOUT = re.compile(r"\btimed out\b|\btimeout\b", re.IGNORECASE)
_JUDGE_KINDS = frozenset({"geval", "rag"})


def page_data(
    report: TestReport,
    locations: Locations | None = None,
    comparison: Comparison | None = None,
    base_report: TestReport | None = None,
) -> dict[str, Any]:
    where = locations or {}
    found = columns(report)
    runs = [_run(report, column, where, alone=len(found) == 1) for column in found]
    # The baseline's columns, for the conversation view only (no locations: its turns are
    # not this document's).
    base_runs: list[dict[str, Any]] = []
    if base_report is not None:
        base_columns = columns(base_report)
        alone = len(base_columns) == 1
        base_runs = [_run(base_report, column, {}, alone=alone) for column in base_columns]
    data: dict[str, Any] = {
        "format": PAGE_FORMAT,
        "report": {
            "agent": report.agent_name,
            "path": report.agent_config_path,
            "timestamp": shown_time(report.timestamp),
            "version": report.holodeck_version,
            "environment": dict(report.environment),
            "repeats": report.repeats,
            "duration_ms": report.summary.total_duration_ms,
            "interrupted": report.interrupted,
            "paired": paired_lines(report),
        },
        "runs": runs,
        # Before share_turn_text: it finds cases by position and turn, not by text.
        "baseline": baseline_data(comparison, runs),
        "metrics": share_metric_definitions(runs + base_runs),
    }
    if base_runs:
        data["base_runs"] = base_runs
    share_turn_text(runs + base_runs)
    add_statistics(report, found, runs)
    return data


def _run(report: TestReport, column: Column, where: Locations, alone: bool) -> dict[str, Any]:
    found = list(column.all_cases())
    usage = agent_usage(c.result for c in found)
    tokens = usage.total_tokens if usage is not None else 0
    # The run's wall time when this column is the whole run, else the model's own summary.
    counted = report.summary if alone else report.model_summaries.get(column.model or "")
    duration = (counted.total_duration_ms if counted else 0) or sum(
        c.result.execution_time_ms for c in found
    )
    judges = sorted(
        {m.model_used for c in found for b in c.blocks for m in b.metric_results if m.model_used}
    )
    env = report.environment
    model = column.model or env.get("model")
    return {
        # The model, else the agent: never the backend's class name (ReplayBackend).
        "label": model or report.agent_name,
        "model": model,
        "judge_models": judges,
        "summary": {
            "cases": len(found),
            "passed": sum(1 for c in found if c.result.passed),
            "failed": sum(1 for c in found if case_status(c.result) == "failed"),
            # Not measured: the provider could not answer (neither passed nor failed).
            "errored": sum(1 for c in found if case_status(c.result) == "errored"),
            # Never finished (the run stopped first): neither passed nor failed.
            "not_run": sum(1 for c in found if case_status(c.result) == "not run"),
            # Its simulated user failed: no verdict on the agent (docs/simulated-users.md).
            "simulator_failed": sum(
                1 for c in found if case_status(c.result) == "simulator failed"
            ),
            "turns_errored": sum(1 for c in found for b in c.blocks if b.status == "errored"),
            "turns": sum(len(c.blocks) for c in found),
            "turns_passed": sum(c.turns_passed for c in found),
            "turns_skipped": sum(1 for c in found for b in c.blocks if b.skipped),
            "flaky": sum(flaky_turns(group) for group in column.groups),
            "tokens": tokens,
            # USD at the price list; None when a case's model has no price.
            "cost_usd": run_cost(c.result.cost_usd for c in found) if found else None,
            "duration_ms": duration,
            "cancelled": env.get("cancelled") == "true" or report.interrupted,
            # "2 turns stopped at the tool-round limit (20): raise --max-tool-rounds", or None.
            "tool_limit": limit_summary(turn for c in found for turn in c.result.turn_results()),
        },
        "cases": [_group(group, where) for group in column.groups],
    }


def _group(group: tuple[Case, ...], where: Locations) -> dict[str, Any]:
    first, *rest = group
    out = _case(first, where)
    if first.result.repeat is not None and (rest or first.result.repeat != 1):
        out["r"] = first.result.repeat
    if rest:
        # Each further repeat: its verdict, errors and turns (no name or locations again).
        out["more"] = [
            {k: v for k, v in _case(case, {}).items() if k not in {"i", "name", "multi"}}
            | {"r": case.result.repeat or place + 2}
            for place, case in enumerate(rest)
        ]
    return out


def _case(case: Case, where: Locations) -> dict[str, Any]:
    out: dict[str, Any] = {"i": case.position, "name": case.name, "passed": case.result.passed}
    if case.result.errored:
        out["errored"] = True
    simulation = case.result.simulation
    if simulation is not None:
        # The simulated user: who it was, and its failure or where a live agent diverged.
        out["sim"] = {
            "model": simulation.model,
            "fingerprint": simulation.fingerprint[:12],
            "failure": simulation.failure,
            "detail": simulation.failure_detail,
            "diverged": simulation.diverged_at_turn,
        }
    if case.multi_turn:
        out["multi"] = True
    if case.case_errors:
        out["errors"] = [_cut(e) for e in case.case_errors]
    if (case.position, None) in where:
        out["loc"] = list(where[(case.position, None)])
    out["turns"] = [_block(block, case.position, where) for block in case.blocks]
    return out


def _block(block: Block, position: int, where: Locations) -> dict[str, Any]:
    verdict = block.status
    # Most turns pass: a missing "v" reads "passed" (page.js fills defaults in on load).
    out: dict[str, Any] = {"input": _cut(block.input)}
    if verdict != "passed":
        out["v"] = verdict
    if block.turn_index is not None:
        out["t"] = block.turn_index
    _put(out, "response", _cut(block.response))
    _put(out, "truth", _cut(block.ground_truth))
    calls = [_call(call) for call in block.tool_invocations]
    if not calls and block.tool_calls:  # an older report: names only
        calls = [{"n": name} for name in block.tool_calls]
    _put(out, "calls", calls)
    _put(out, "tools", _expectations(block))
    _put(out, "metrics", [_metric(metric) for metric in block.metric_results])
    _put(out, "errors", [_cut(error) for error in block.errors])
    if verdict == "failed":
        out["kinds"] = failure_kinds(block)
        # view.failure_reasons is errors, then tool reasons, then the rest: the first two
        # are in "errors" and the assertions' "reason" already, so the page joins them back.
        shown = len(block.errors) + sum(1 for d in block.arg_match_details or () if tool_reason(d))
        _put(out, "why", [_why(reason, block) for reason in failure_reasons(block)[shown:]])
    _put(out, "ms", block.execution_time_ms)
    if block.token_usage is not None:
        _put(out, "tokens", block.token_usage.total_tokens)
    if (position, block.turn_index) in where:
        out["loc"] = list(where[(position, block.turn_index)])
    return out


def _why(reason: str, block: Block) -> str | list[Any]:
    """A failure line; one that ends with a metric's reasoning (`metric 'x' failed: score …
    (reasoning)`) as `[the line before " (reasoning)", metric index]`, page.js joining them
    back: the reasoning is in the turn's metrics already, often the longest text of a turn."""
    for index, metric in enumerate(block.metric_results):
        tail = f" ({metric.reasoning})"
        if (
            metric.reasoning
            and reason.endswith(tail)
            and reason.startswith(f"metric '{metric.metric_name}' ")
        ):
            return [reason[: -len(tail)], index]
    return _cut(reason) or ""


def failure_kinds(block: Block) -> list[str]:
    """What went wrong in a failed block, one label per kind, in a fixed order: `timeout`,
    `error`, `missing tool`, `argument mismatch (<matcher>)`, `tool count`, `wrong answer`
    (a standard metric), `judge` (G-Eval / RAG), `grader` (a code grader)."""
    kinds: list[str] = []
    for error in block.errors:
        kinds.append("timeout" if _TIMEOUT.search(error) else "error")
    for detail in block.arg_match_details or ():
        kinds += _tool_kind(detail)
    if block.tools_matched is False and not block.arg_match_details:
        kinds.append("missing tool")
    for metric in block.metric_results:
        if metric.skipped or (metric.passed is not False and metric.error is None):
            continue
        if metric.error is not None:
            kinds.append("timeout" if _TIMEOUT.search(metric.error) else "error")
        elif metric.kind == "code":
            kinds.append("grader")
        elif metric.kind in _JUDGE_KINDS:
            kinds.append("judge")
        else:
            kinds.append("wrong answer")
    unique = list(dict.fromkeys(kinds))
    return unique or ["failed"]


def _tool_kind(detail: ArgMatchDetail) -> list[str]:
    reason = detail.unmatched_reason
    if reason is None:
        return []
    if reason.startswith("tool '") and "was not called" in reason:
        return ["missing tool"]
    arg = _ARG_KEY.search(reason)
    if arg is None:
        return ["tool count"]
    if arg.group(2) == "missing":
        return ["argument missing"]
    return [f"argument mismatch ({_matcher_kind((detail.args_asserted or {}).get(arg.group(1)))})"]


def _matcher_kind(asserted: object) -> str:
    if isinstance(asserted, dict) and len(asserted) == 1:
        key = next(iter(asserted))
        if key in {"fuzzy", "regex"}:
            return str(key)
    return "literal"


def _expectations(block: Block) -> list[dict[str, Any]]:
    if block.arg_match_details is not None:
        return [_detail(detail, block.tool_invocations) for detail in block.arg_match_details]
    # Not checked one by one (an older report, or no per-assertion detail): names only.
    shown: list[dict[str, Any]] = []
    for entry in block.expected_tools or ():
        name = entry if isinstance(entry, str) else str(entry.get("name", "?"))
        item: dict[str, Any] = {"tool": name, "unchecked": True}
        if isinstance(entry, dict) and entry.get("args"):
            item["args"] = _data(entry["args"])
        shown.append(item)
    return shown


def _detail(detail: ArgMatchDetail, calls: Sequence[ToolInvocation]) -> dict[str, Any]:
    out: dict[str, Any] = {"tool": detail.tool}
    if not detail.passed:
        out["ok"] = False  # missing: passed
    if detail.args_asserted is not None:
        out["args"] = _data(detail.args_asserted)
    if detail.count != 1:
        out["count"] = detail.count
    if detail.matched_calls != (detail.count if detail.passed else 0):
        out["matched"] = detail.matched_calls  # missing: count if ok, else 0
    reason = detail.unmatched_reason
    if detail.matched_call_index is not None:
        out["call"] = detail.matched_call_index
    elif reason is not None:
        closest = _CLOSEST.search(reason)
        if closest is not None:
            out["closest"] = int(closest.group(1))
        else:
            named = [i for i, call in enumerate(calls) if detail.tool in call.name]
            if named:
                out["closest"] = named[0]
        arg = _ARG_KEY.search(reason)
        if arg is not None:
            out["arg"] = arg.group(1)
    _put(out, "reason", _cut(reason))
    return out


def _call(call: ToolInvocation) -> dict[str, Any]:
    # Short keys, as for metrics: n name, a args, r result, e error, p why the call could not
    # run (with the argument text the model sent).
    out: dict[str, Any] = {"n": call.name}
    _put(out, "a", _data(call.args))
    if call.result is not None:
        out["r"] = _data(call.result)
    _put(out, "e", _cut(call.error))
    _put(out, "p", refused_call(call) or None)
    return out


def _metric(metric: MetricResult) -> dict[str, Any]:
    # Short keys: a turn carries a few metrics, a page thousands of turns (see the module
    # docstring). n name, k kind (missing: standard), s score, st status, th threshold,
    # e error, r reasoning, m model, d details.
    out: dict[str, Any] = {"n": metric.metric_name, "s": _num(metric.score)}
    if metric.kind != "standard":
        out["k"] = metric.kind
    if metric.skipped:
        out["st"] = "skipped"
    elif metric.error is not None:
        out["st"] = "error"
    elif metric.passed is None:
        out["st"] = "not graded"
    elif not metric.passed:
        out["st"] = "failed"  # missing: passed
    if metric.threshold is not None:
        out["th"] = _num(metric.threshold)
    _put(out, "e", _cut(metric.error))
    _put(out, "r", _cut(metric.reasoning))
    _put(out, "m", metric.model_used)
    if metric.details:
        out["d"] = _data(metric.details)
    return out


def _num(value: float) -> float | int | str:
    # 1.0 as 1: whole scores are most scores, and JSON reads both as the same number.
    if not math.isfinite(value):
        return str(value)  # JSON has no NaN / Infinity
    return int(value) if value.is_integer() and abs(value) < 2**53 else value


def _put(out: dict[str, Any], key: str, value: object) -> None:
    if value not in (None, "", [], {}, 0):
        out[key] = value


def _cut(text: str | None) -> str | None:
    if text is None or len(text) <= LONG_STRING:
        return text
    return (
        text[:LONG_STRING] + f"… [{len(text) - LONG_STRING:,} more characters in the JSON report]"
    )


def _data(value: Any) -> Any:
    """JSON-shaped data with long strings cut; anything else (not JSON-shaped) as its repr."""
    kind = type(value)
    if kind is str:
        return value if len(value) <= LONG_STRING else _cut(value)
    if kind in _SCALARS:
        return value
    if isinstance(value, Mapping):
        return {str(key): _data(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_data(item) for item in value]
    if isinstance(value, str):  # a str subclass
        return _cut(str(value))
    if isinstance(value, bool | int | float):
        return value
    return _cut(repr(value))


_SCALARS = frozenset({bool, int, float, type(None)})
