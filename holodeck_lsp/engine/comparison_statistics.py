"""The statistics of a comparison (docs/reports.md, "Paired comparison"): per model, head
against base on the turns both measured — the difference in pass rate with its 95 % interval,
McNemar's exact test over the cases, and about how many cases would tell — worded for people;
and each side's cost and speed.

Paired on turns with the same key and input (an edited turn is not the same question). A case
is the unit of the test: its two scores are the fractions of its paired turn runs that passed.
When every case is one turn run once on each side, the interval is Newcombe's paired interval
over cases; otherwise it is over the turn pass rate, clustered by case.
"""

from __future__ import annotations

from collections.abc import Iterable

from holodeck_lsp.engine.comparison_rows import Turn, TurnKey, turns_of_report
from holodeck_lsp.engine.statistics.paired import (
    cases_needed,
    clustered_difference,
    newcombe_paired,
    sign_test_p,
)
from holodeck_lsp.engine.statistics.quantiles import percentile
from holodeck_lsp.schema.comparison import PairedStatistics, SideFigures
from holodeck_lsp.schema.results import TestReport

NEWCOMBE = "Newcombe's paired score interval over cases"
CLUSTERED = "normal interval of the turn pass rate, clustered by case"


def paired_statistics(
    base: dict[TurnKey, Turn],
    head: dict[TurnKey, Turn],
    *,
    names: tuple[str, str] = ("base", "head"),
    alpha: float = 0.05,
) -> list[PairedStatistics]:
    """One entry per model with paired turns, in head's order."""
    # (model, case) -> [(head fraction, base fraction, both ran once)]
    cases: dict[str | None, dict[str, list[tuple[float, float, bool]]]] = {}
    for key, after in head.items():
        before = base.get(key)
        if before is None or before.input != after.input:
            continue
        head_passes, head_runs = after.counts()
        base_passes, base_runs = before.counts()
        if not head_runs or not base_runs:
            continue
        model, case, _ = key
        cases.setdefault(model, {}).setdefault(case, []).append(
            (head_passes / head_runs, base_passes / base_runs, head_runs == base_runs == 1)
        )
    return [
        _model_statistics(model, list(by_case.values()), names, alpha)
        for model, by_case in cases.items()
    ]


def _model_statistics(
    model: str | None,
    cases: list[list[tuple[float, float, bool]]],
    names: tuple[str, str],
    alpha: float,
) -> PairedStatistics:
    turns = sum(len(turns) for turns in cases)
    head_rate = sum(h for turns in cases for h, _, _ in turns) / turns
    base_rate = sum(b for turns in cases for _, b, _ in turns) / turns
    only_head = sum(h > b for turns in cases for h, b, _ in turns)
    only_base = sum(b > h for turns in cases for h, b, _ in turns)
    head_better = base_better = 0
    for case_turns in cases:
        difference = sum(h - b for h, b, _ in case_turns)
        head_better += difference > 1e-12
        base_better += difference < -1e-12
    binary = all(len(t) == 1 and t[0][2] for t in cases)
    if binary:
        both = sum(1 for [(h, b, _)] in cases if h and b)
        neither = sum(1 for [(h, b, _)] in cases if not h and not b)
        interval = newcombe_paired(both, only_base, only_head, neither)
        difference = head_rate - base_rate
    else:
        difference, interval = clustered_difference(
            [(sum(h - b for h, b, _ in t), len(t)) for t in cases]
        )
    p_value = sign_test_p(head_better, base_better)
    n = len(cases)
    needed = cases_needed((head_better + base_better) / n, (head_better - base_better) / n)
    unit = "case" if binary else "turn"
    figures = PairedStatistics(
        model=model,
        unit=unit,
        cases=n,
        turns=turns,
        base_rate=100 * base_rate,
        head_rate=100 * head_rate,
        difference=100 * difference,
        low=100 * interval.low,
        high=100 * interval.high,
        only_head=only_head,
        only_base=only_base,
        cases_head_better=head_better,
        cases_base_better=base_better,
        p_value=p_value,
        alpha=alpha,
        cases_needed=needed if p_value >= alpha else None,
        interval_method=NEWCOMBE if binary else CLUSTERED,
        summary="",
    )
    return figures.model_copy(update={"summary": worded(figures, names)})


def worded(figures: PairedStatistics, names: tuple[str, str]) -> str:
    """ "head passes 6.2 points more turns than base [2.1, 10.3]; 37 turns only head passed,
    14 only base; p = 0.004" — or, when the test finds nothing, that and how many cases
    would tell."""
    base, head = names
    units = "cases" if figures.unit == "case" else "turns"
    points = abs(figures.difference)
    way = "more" if figures.difference >= 0 else "fewer"
    interval = f"[{figures.low:.1f}, {figures.high:.1f}]"
    if figures.unit == "case":
        split = f"{figures.only_head} cases only {head} passed, {figures.only_base} only {base}"
    else:
        split = (
            f"{figures.only_head} turns better in {head}, {figures.only_base} in {base} "
            f"({figures.cases_head_better} cases better in {head}, "
            f"{figures.cases_base_better} in {base})"
        )
    measured = f"{head} passes {points:.1f} points {way} {units} than {base} {interval}"
    p_text = _p(figures.p_value)
    if figures.significant:
        return f"{measured}; {split}; {p_text}"
    found = f"no difference this suite can detect ({measured}; {split}; {p_text})"
    if figures.cases_needed is not None:
        return f"{found}; it would take about {figures.cases_needed:,} cases"
    if figures.cases_head_better == figures.cases_base_better == 0:
        return f"{found}; the runs agree on every case"
    return found


def _p(value: float) -> str:
    if value < 0.001:
        return "p < 0.001"
    return f"p = {value:.3f}" if value < 0.1 else f"p = {value:.2f}"


def side_figures(turns: Iterable[Turn]) -> SideFigures:
    """Tokens, cost and turn time p50 / p95 over a side's measured turn runs."""
    times: list[float] = []
    tokens: int | None = None
    cost: float | None = 0.0
    count = 0
    for turn in turns:
        for attempt in turn.attempts:
            if attempt.skipped:
                continue
            count += 1
            times.append(float(attempt.ms))
            if attempt.tokens is not None:
                tokens = (tokens or 0) + attempt.tokens
            cost = None if cost is None or attempt.cost is None else cost + attempt.cost
    return SideFigures(
        turns=count,
        tokens=tokens,
        cost_usd=cost if count else None,
        latency_p50_ms=percentile(times, 50),
        latency_p95_ms=percentile(times, 95),
    )


def matrix_comparisons(report: TestReport) -> list[PairedStatistics]:
    """A model matrix's paired comparisons: each model against the first (`--model` order),
    on the cases both ran."""
    turns = turns_of_report(report, ignore_model=False)
    models = list(report.models) or list(dict.fromkeys(model for model, _, _ in turns if model))
    if len(models) < 2:
        return []
    by_model: dict[str | None, dict[TurnKey, Turn]] = {}
    for (model, case, index), turn in turns.items():
        by_model.setdefault(model, {})[(None, case, index)] = turn
    first = models[0]
    found = []
    for other in models[1:]:
        for figures in paired_statistics(
            by_model.get(first, {}), by_model.get(other, {}), names=(first, other)
        ):
            found.append(figures.model_copy(update={"model": other}))
    return found
