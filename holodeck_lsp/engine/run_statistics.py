"""A run's statistics from its results (docs/reports.md, "Statistics"): the suite's and each
model's case pass rate with its 95 % Wilson interval, the rate per turn index, pass@k and
pass^k over `--repeat N`, and each model's tokens, cost and turn latency (p50 / p95).

Why cases and turn indexes get Wilson intervals and pooled turns do not: docs/reports.md,
"Uncertainty". A session that errored (the provider) or never ran is not measured: it is in
no rate, as in the summary's pass rate. Pure: the report in, `RunStatistics` out.
"""

from __future__ import annotations

from collections.abc import Sequence

from holodeck_lsp.engine.rollup import not_run
from holodeck_lsp.engine.statistics.pass_k import pass_at_k, pass_hat_k
from holodeck_lsp.engine.statistics.quantiles import percentile
from holodeck_lsp.engine.statistics.wilson import wilson_interval
from holodeck_lsp.engine.token_totals import agent_usage
from holodeck_lsp.schema.results import TestReport, TestResult
from holodeck_lsp.schema.statistics import (
    CaseRepeats,
    ModelStatistics,
    RateInterval,
    RunStatistics,
    TurnIndexRate,
)


def rate_interval(passed: int, measured: int) -> RateInterval:
    interval = wilson_interval(passed, measured)
    return RateInterval(
        passed=passed,
        measured=measured,
        rate=100.0 * passed / measured if measured else 0.0,
        low=100.0 * interval.low,
        high=100.0 * interval.high,
    )


def measured_case(result: TestResult) -> bool:
    """Passed or failed: not errored on the provider, not cut short by the run."""
    return result.passed or not (result.errored or not_run(result))


def run_statistics(report: TestReport) -> RunStatistics:
    results = report.results
    by_model: dict[str | None, list[TestResult]] = {}
    for result in results:
        by_model.setdefault(result.model, []).append(result)
    return RunStatistics(
        suite=_case_rate(results),
        models=[_model(model, mine, report.repeats) for model, mine in by_model.items()],
    )


def _case_rate(results: Sequence[TestResult]) -> RateInterval:
    measured = [r for r in results if measured_case(r)]
    return rate_interval(sum(r.passed for r in measured), len(measured))


def _model(model: str | None, results: list[TestResult], repeats: int) -> ModelStatistics:
    turn_tally: dict[int, list[int]] = {}
    times: list[float] = []
    turns_passed = turns_measured = 0
    multi_turn = any(r.turns is not None for r in results)
    for result in results:
        for turn in result.turn_results():
            if turn.skipped or turn.errored:
                continue
            turns_measured += 1
            turns_passed += turn.passed
            times.append(float(turn.execution_time_ms))
            tally = turn_tally.setdefault(turn.turn_index, [0, 0])
            tally[0] += turn.passed
            tally[1] += 1
    by_index = [
        TurnIndexRate(turn_index=index, **rate_interval(p, n).model_dump())
        for index, (p, n) in sorted(turn_tally.items())
    ]
    usage = agent_usage(results)
    costs = [r.cost_usd for r in results]
    suite_hat, suite_at, per_case = _repeats(results, repeats)
    return ModelStatistics(
        model=model,
        cases=_case_rate(results),
        turns_passed=turns_passed,
        turns_measured=turns_measured,
        by_turn_index=by_index if multi_turn else [],
        pass_hat_k=suite_hat,
        pass_at_k=suite_at,
        repeat_cases=per_case,
        tokens=usage.total_tokens if usage is not None else None,
        cost_usd=None if not costs or None in costs else sum(c for c in costs if c is not None),
        latency_p50_ms=percentile(times, 50),
        latency_p95_ms=percentile(times, 95),
    )


def _repeats(
    results: list[TestResult], repeats: int
) -> tuple[list[float], list[float], list[CaseRepeats]]:
    """Per case (c passed of n measured sessions) pass^k and pass@k for k = 1 … n, and the
    suite's means for k = 1 … repeats over the cases with at least k sessions."""
    if repeats < 2:
        return [], [], []
    sessions: dict[str, list[int]] = {}
    for result in results:
        label = result.test_name or f"#{result.test_index}"
        tally = sessions.setdefault(label, [0, 0])
        if measured_case(result):
            tally[0] += result.passed
            tally[1] += 1
    per_case = [
        CaseRepeats(
            case=label,
            passed=c,
            runs=n,
            pass_hat_k=[pass_hat_k(c, n, k) for k in range(1, n + 1)],
            pass_at_k=[pass_at_k(c, n, k) for k in range(1, n + 1)],
        )
        for label, (c, n) in sessions.items()
    ]
    suite_hat, suite_at = [], []
    for k in range(1, repeats + 1):
        eligible = [case for case in per_case if case.runs >= k]
        if not eligible:
            break
        suite_hat.append(sum(case.pass_hat_k[k - 1] for case in eligible) / len(eligible))
        suite_at.append(sum(case.pass_at_k[k - 1] for case in eligible) / len(eligible))
    return suite_hat, suite_at, per_case


def rate_text(rate: RateInterval) -> str:
    """`60.0% [35.7, 80.2]`: a rate and its 95 % interval, as every report prints it."""
    if not rate.measured:
        return "-"
    return f"{rate.rate:.1f}% [{rate.low:.1f}, {rate.high:.1f}]"


def pass_k_text(values: Sequence[float]) -> str:
    """`100% · 71% · 55%` for k = 1, 2, 3."""
    return " · ".join(f"{value * 100:.0f}%" for value in values)


def latency_text(model: ModelStatistics) -> str:
    """`p50 1.20 s · p95 3.40 s` of the model's turns, or `-`."""
    if model.latency_p50_ms is None or model.latency_p95_ms is None:
        return "-"
    return f"p50 {_seconds(model.latency_p50_ms)} · p95 {_seconds(model.latency_p95_ms)}"


def _seconds(ms: float) -> str:
    return f"{ms / 1000:.2f} s" if ms < 10_000 else f"{ms / 1000:.1f} s"
