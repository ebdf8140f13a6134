"""The HTML report's conversation view on a long conversation, in headless Chromium.

Builds a run report whose first case is a conversation of `--turns` turns (default 500), each
with `--calls` tool calls (default 2) whose results are `--result-chars` long (default 5,000:
cut to the page's 4,000 and folded at 600), for two models, and a baseline run of the same
case; renders the page (holodeck_lsp.reports.run.html.render_html, the baseline beside it) and
drives it with tests/e2e/conversation_view.mjs: open the case's conversation, scroll to its
end until every turn is drawn, then show the second model beside it and scroll again.
Prints the page's size, the times and the longest frame gap while scrolling (docs/benchmarks.md,
"Conversation view").

    .venv/bin/python bench/conversation_view.py [--turns 500] [--repeat 3]

Needs Node.js, Debian's chromium and tests/e2e's npm packages (`npm ci` in tests/e2e).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from holodeck_lsp.reports.run import html  # noqa: E402
from holodeck_lsp.schema.results import (  # noqa: E402
    ReportSummary,
    TestReport,
    TestResult,
    ToolInvocation,
    TurnResult,
)

MODELS = ("openai:model-a", "openai:model-b")


def turn(index: int, *, calls: int, result_chars: int, variant: int) -> TurnResult:
    """Turn `index` of the long conversation. `variant` 1 (the second model) answers every
    7th turn differently and fails every 11th turn the first passes; 2 (the baseline run)
    calls one tool fewer on every 13th turn."""
    fails = index % 5 == 0
    if variant == 1 and index % 11 == 0:
        fails = not fails
    response = f"The figure for period {index} is {index * 3}."
    if variant == 1 and index % 7 == 0:
        response = f"I think period {index} is about {index * 3 + 1}."
    names = ["lookup", "compute"][:calls] if calls <= 2 else [f"tool_{k}" for k in range(calls)]
    if variant == 2 and index % 13 == 0:
        names = names[:-1]
    invocations = [
        ToolInvocation(
            name=name,
            args={"period": index, "column": f"c{k}"},
            result=(f"row {index}/{k}: " + "0123456789" * (result_chars // 10 + 1))[:result_chars],
        )
        for k, name in enumerate(names)
    ]
    return TurnResult(
        turn_index=index,
        input=f"What was the figure for period {index}?",
        response=response,
        ground_truth=f"{index * 3}",
        tool_calls=[call.name for call in invocations],
        tool_invocations=invocations,
        passed=not fails,
        errors=[f"expected {index * 3}"] if fails else [],
        execution_time_ms=800 + index % 400,
    )


def long_case(turns: int, *, calls: int, result_chars: int, variant: int, model: str) -> TestResult:
    done = [turn(i, calls=calls, result_chars=result_chars, variant=variant) for i in range(turns)]
    return TestResult(
        test_name="long conversation",
        test_index=0,
        turns=done,
        passed=all(t.passed for t in done),
        model=model,
    )


def report(results: list[TestResult]) -> TestReport:
    passed = sum(1 for r in results if r.passed)
    return TestReport(
        agent_name="long-conversation",
        agent_config_path="agent.yaml",
        results=results,
        models=sorted({r.model for r in results if r.model}),
        summary=ReportSummary(
            total_tests=len(results),
            passed=passed,
            failed=len(results) - passed,
            pass_rate=100.0 * passed / len(results) if results else 0.0,
        ),
        timestamp="2026-12-06T00:00:00+00:00",
        holodeck_version="holodeck-lsp bench",
    )


def pages(turns: int, calls: int, result_chars: int) -> tuple[TestReport, TestReport]:
    """(this run with two models, the baseline run with the first model)."""
    head = report(
        [
            long_case(turns, calls=calls, result_chars=result_chars, variant=v, model=m)
            for v, m in enumerate(MODELS)
        ]
    )
    base = report(
        [long_case(turns, calls=calls, result_chars=result_chars, variant=2, model=MODELS[0])]
    )
    return head, base


def drive(page: Path, out: Path, beside: str) -> dict[str, object]:
    script = REPO / "tests" / "e2e" / "conversation_view.mjs"
    args = ["node", str(script), "--page", str(page), "--out", str(out), "--beside", beside]
    done = subprocess.run(args, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        raise SystemExit(done.stdout + done.stderr)
    result: dict[str, object] = json.loads(out.read_text(encoding="utf-8"))
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=500)
    parser.add_argument("--calls", type=int, default=2)
    parser.add_argument("--result-chars", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    head, base = pages(args.turns, args.calls, args.result_chars)
    with tempfile.TemporaryDirectory() as folder:
        page = Path(folder) / "long.html"
        started = time.perf_counter()
        page.write_text(html.render_html(head, base_report=base), encoding="utf-8")
        render_ms = (time.perf_counter() - started) * 1000
        runs = [drive(page, Path(folder) / f"r{i}.json", "m1") for i in range(args.repeat)]
        size = page.stat().st_size
    print(f"{args.turns} turns × {args.calls} calls of {args.result_chars} characters, two models")
    print(f"page: {size / 1e6:.1f} MB, rendered in {render_ms:.0f} ms (Python)")
    for key, label in (
        ("readyMs", "page ready"),
        ("openMs", "conversation opened"),
        ("besideMs", "second model shown beside"),
    ):
        values = [float(r[key]) for r in runs]  # type: ignore[arg-type]
        print(f"{label}: median {statistics.median(values):.0f} ms (max {max(values):.0f})")
    for key, label in (("scroll", "scroll to the end"), ("besideScroll", "same, two sides")):
        scrolls = [r[key] for r in runs]
        ms = [float(s["ms"]) for s in scrolls]  # type: ignore[index]
        gaps = [float(s["longestFrameMs"]) for s in scrolls]  # type: ignore[index]
        print(
            f"{label}: median {statistics.median(ms):.0f} ms, longest frame gap "
            f"median {statistics.median(gaps):.0f} ms (max {max(gaps):.0f})"
        )
    long_tasks = [len(r["longTasks"] or []) for r in runs]  # type: ignore[arg-type]
    print(f"long tasks (> 50 ms) per run: {long_tasks}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
