"""Report files built from result models and written by the project's own JSON writer
(reports/run/json_report.py), for the commands that read reports: `compare`, `runs merge`,
and bench/compare_speed.py. Each case is named, single-turn or multi-turn, with repeats."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from holodeck_lsp.engine.rollup import summarize
from holodeck_lsp.reports.run import json_report
from holodeck_lsp.schema.results import TestReport, TestResult, TokenUsage, TurnResult

SCRIPT = Path(sys.executable).with_name("holodeck-lsp")


def case(
    index: int,
    passed: Sequence[bool],
    *,
    model: str | None = "openai:gpt-a",
    repeat: int | None = None,
    ms: int = 1000,
) -> TestResult:
    """Case `index` with one turn per verdict in `passed` (one: a single-turn case)."""
    usage = TokenUsage(prompt_tokens=100, completion_tokens=20, total_tokens=120)
    name = f"case {index}"
    if len(passed) == 1:
        return TestResult(
            test_name=name,
            test_index=index,
            test_input=f"question {index}",
            agent_response="answer",
            passed=passed[0],
            execution_time_ms=ms,
            token_usage=usage,
            cost_usd=0.001,
            model=model,
            repeat=repeat,
        )
    turns = [
        TurnResult(
            turn_index=t,
            input=f"question {index}.{t}",
            response="answer",
            passed=ok,
            execution_time_ms=ms,
            token_usage=usage,
            cost_usd=0.001,
        )
        for t, ok in enumerate(passed)
    ]
    return TestResult(
        test_name=name,
        test_index=index,
        passed=all(passed),
        turns=turns,
        execution_time_ms=ms * len(turns),
        cost_usd=0.001 * len(turns),
        model=model,
        repeat=repeat,
    )


def report(results: list[TestResult], *, repeats: int = 1, run_id: str | None = None) -> TestReport:
    models = list(dict.fromkeys(r.model for r in results if r.model))
    return TestReport(
        agent_name="built",
        agent_config_path="agent.yaml",
        results=results,
        summary=summarize(results),
        timestamp="2026-12-06T09:00:00+00:00",
        holodeck_version="holodeck-lsp tests",
        models=models,
        repeats=repeats,
        model_summaries={m: summarize([r for r in results if r.model == m]) for m in models},
        run_id=run_id,
    )


def write(path: Path, built: TestReport) -> Path:
    path.write_text(json_report.render(built), encoding="utf-8")
    return path


def paired_reports(
    folder: Path, both: int, only_base: int, only_head: int, neither: int, **model: str
) -> tuple[Path, Path]:
    """Two single-turn runs of the same cases with this 2×2 table of verdicts."""
    verdicts = (
        [(True, True)] * both
        + [(True, False)] * only_base
        + [(False, True)] * only_head
        + [(False, False)] * neither
    )
    base_model = model.get("base_model", "openai:gpt-a")
    head_model = model.get("head_model", base_model)
    base = report([case(i, [b], model=base_model) for i, (b, _) in enumerate(verdicts)])
    head = report([case(i, [h], model=head_model, ms=2000) for i, (_, h) in enumerate(verdicts)])
    return write(folder / "base.json", base), write(folder / "head.json", head)


def cli(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The console script in its own process, as CI runs it."""
    return subprocess.run(
        [str(SCRIPT), *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )
