"""One report of a folder run: every agent file's results in one `TestReport`, so a folder of
agent files is one run for CI (`run FOLDER --report-json/--junit/--report-html/--report-md`,
docs/running.md, "A folder of agent files").

Each result's case name is prefixed with its agent file, relative to the folder run
(`simple_0/agent.yaml::case 3`), and its position runs on from the previous agent file's, so
two agents' cases stay apart in every format; the summary counts them all, as one agent's
summary counts its cases.
"""

from __future__ import annotations

from collections.abc import Sequence

from holodeck_lsp.engine.rollup import summarize
from holodeck_lsp.schema.results import TestReport, TestResult

#: Between an agent file and a case name in a combined report.
SEPARATOR = "::"


def combined_report(parts: Sequence[tuple[str, TestReport]], where: str) -> TestReport:
    """The reports `parts` (agent file as shown, its report), as one report of the run of
    `where` (the folder). Raises ValueError when `parts` is empty."""
    if not parts:
        raise ValueError("no report to combine")
    results: list[TestResult] = []
    for name, report in parts:
        # Positions run on across the agent files: the renderers tell cases apart by them.
        offset = 1 + max((r.test_index or 0 for r in results), default=-1)
        results += [_prefixed(name, result, offset) for result in report.results]
    costs = [report.summary.cost_usd for _, report in parts]
    summary = summarize(results).model_copy(
        update={"cost_usd": None if None in costs else sum(c for c in costs if c is not None)}
    )
    models = list(dict.fromkeys(model for _, report in parts for model in report.models))
    first = parts[0][1]
    environment = dict(first.environment)
    environment["agent_files"] = str(len(parts))
    if any(report.environment.get("cancelled") for _, report in parts):
        environment["cancelled"] = "true"
    return TestReport(
        agent_name=f"{len(parts)} agent files under {where}",
        agent_config_path=where,
        results=results,
        summary=summary,
        timestamp=first.timestamp,
        holodeck_version=first.holodeck_version,
        environment=environment,
        models=models,
        repeats=max(report.repeats for _, report in parts),
        model_summaries={
            model: summarize([result for result in results if result.model == model])
            for model in models
        },
        interrupted=any(report.interrupted for _, report in parts),
        stop_reason=next((r.stop_reason for _, r in parts if r.stop_reason is not None), None),
    )


def _prefixed(agent: str, result: TestResult, offset: int) -> TestResult:
    name = result.test_name if result.test_name is not None else f"#{result.test_index}"
    index = offset + (result.test_index or 0)
    return result.model_copy(update={"test_name": f"{agent}{SEPARATOR}{name}", "test_index": index})
