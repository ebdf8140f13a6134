"""Joining the reports of one suite's shards (`run --shard K/N` on several machines) into one
report, as if one run had run every case (docs/running.md, "Splitting a suite across
machines"). Pure: reports in, a report out; `MergeError` says why parts do not fit together.

Parts fit when they ran the same agent file (runner/run_history/comparison_sides.py's rule for
paths written from different folders) with the same repeats, and no case session — (model,
case, repeat) — is in two of them. The summary is computed again from the joined results; the
cost is the parts' sum (unknown when a part's is); environment entries the parts disagree on
(a machine's wall time, its host) are dropped, and `merged_from` names the parts.
"""

from __future__ import annotations

from collections.abc import Sequence

from holodeck_lsp.engine.rollup import summarize
from holodeck_lsp.engine.run_comparison import same_agent_path
from holodeck_lsp.schema.results import ReportSummary, TestReport, TestResult

#: The environment entry naming the merged parts.
MERGED_FROM = "merged_from"


class MergeError(ValueError):
    """The parts cannot be one run; the message names the parts and what to do."""


def merge_reports(parts: Sequence[tuple[str, TestReport]]) -> TestReport:
    """`parts`: (label for messages, report). Raises MergeError."""
    if len(parts) < 2:
        raise MergeError("give two or more runs or report files to merge (one per shard)")
    first_label, first = parts[0]
    for label, part in parts[1:]:
        if not same_agent_path(first.agent_config_path, part.agent_config_path):
            raise MergeError(
                f"{label} ran {part.agent_config_path}, {first_label} ran "
                f"{first.agent_config_path}: merge the shards of one agent file"
            )
        if part.repeats != first.repeats:
            raise MergeError(
                f"{label} ran {part.repeats} repeats, {first_label} {first.repeats}: "
                "shards of one run use the same --repeat"
            )
    models = list(dict.fromkeys(m for _, part in parts for m in part.models))
    results = _joined(parts, models)
    summary = _priced(summarize(results), [part.summary.cost_usd for _, part in parts])
    return TestReport(
        agent_name=first.agent_name,
        agent_config_path=first.agent_config_path,
        results=results,
        summary=summary,
        timestamp=min(part.timestamp for _, part in parts),
        holodeck_version=first.holodeck_version,
        environment=_environment(parts),
        models=models,
        repeats=first.repeats,
        model_summaries={
            model: _priced(mine, [r.cost_usd for r in results if r.model == model])
            for model in models
            for mine in [summarize([r for r in results if r.model == model])]
        },
        interrupted=any(part.interrupted for _, part in parts),
        stop_reason=next((p.stop_reason for _, p in parts if p.stop_reason is not None), None),
    )


def _joined(parts: Sequence[tuple[str, TestReport]], models: list[str]) -> list[TestResult]:
    owner: dict[tuple[str | None, str, int | None], str] = {}
    results: list[TestResult] = []
    for label, part in parts:
        for result in part.results:
            case = result.test_name or f"#{result.test_index}"
            key = (result.model, case, result.repeat)
            if key in owner:
                model = f" ({result.model})" if result.model else ""
                raise MergeError(
                    f"case {case!r}{model} is in both {owner[key]} and {label}: the parts "
                    "overlap — merge the runs of `--shard 1/N` … `N/N` with one N"
                )
            owner[key] = label
            results.append(result)
    order = {model: place for place, model in enumerate(models)}
    results.sort(
        key=lambda r: (
            order.get(r.model or "", len(order)),
            r.test_index if r.test_index is not None else -1,
            r.repeat or 0,
        )
    )
    return results


def _priced(summary: ReportSummary, costs: list[float | None]) -> ReportSummary:
    total = None if not costs or None in costs else sum(c for c in costs if c is not None)
    return summary.model_copy(update={"cost_usd": total})


def _environment(parts: Sequence[tuple[str, TestReport]]) -> dict[str, str]:
    first = parts[0][1].environment
    kept = {
        key: value
        for key, value in first.items()
        if all(part.environment.get(key) == value for _, part in parts)
    }
    if any(part.environment.get("cancelled") for _, part in parts):
        kept["cancelled"] = "true"
    kept[MERGED_FROM] = ", ".join(label for label, _ in parts)
    return kept
