#!/usr/bin/env python3
"""How fast is the conversation text of a long case? (see docs/benchmarks.md, "Conversation
as text")

Builds a case of `--turns` turns (500), each with three tool calls whose results are 8,000
characters long and a 1,400-character answer, and a second run of it whose turns differ in
verdict, answer and tool calls; then renders, after a warm-up, the case alone and beside the
other run (reports/run/conversation_text.render, what `holodeck.conversation` answers Neovim
and Emacs) `--repeat` times: min and median of each, and the text's size. Target: ≤ 1 s for
500 turns beside another run.

Exit status 1 if the target fails (`--no-fail`: 0).

    .venv/bin/python bench/conversation_text.py [--turns 500] [--repeat 7] [--no-fail]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from holodeck_lsp.engine.rollup import summarize  # noqa: E402
from holodeck_lsp.reports.run.conversation_text import render  # noqa: E402
from holodeck_lsp.schema.results import (  # noqa: E402
    TestReport,
    TestResult,
    ToolInvocation,
    TurnResult,
)

TARGET_SECONDS = 1.0
RESULT = "row, 2006, 181,001; " * 400  # 8,000 characters


def report(turns: int, variant: int) -> TestReport:
    calls = [
        ToolInvocation(name="lookup", args={"row": f"r{n}", "year": 2006 + variant}, result=RESULT)
        for n in range(3 - variant)
    ]
    results = [
        TestResult(
            test_name="long",
            test_index=0,
            turns=[
                TurnResult(
                    turn_index=index,
                    input=f"question {index}: what was the change?",
                    response=f"answer {variant} " * 140,
                    ground_truth="42",
                    tool_invocations=calls,
                    tool_calls=[call.name for call in calls],
                    passed=(index + variant) % 3 != 0,
                    errors=[] if (index + variant) % 3 else ["numeric mismatch"],
                )
                for index in range(turns)
            ],
        )
    ]
    return TestReport(
        agent_name="bench",
        agent_config_path="agent.yaml",
        results=results,
        summary=summarize(results),
        timestamp="",
        holodeck_version="bench",
    )


def timed(render_once: object, repeat: int) -> tuple[list[float], int]:
    assert callable(render_once)
    size = len(render_once())  # warm-up
    seconds = []
    for _ in range(repeat):
        started = time.perf_counter()
        render_once()
        seconds.append(time.perf_counter() - started)
    return seconds, size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--no-fail", action="store_true")
    options = parser.parse_args()
    head, base = report(options.turns, 0), report(options.turns, 1)
    failed = False
    for name, render_once in (
        ("alone", lambda: render(head, 0)),
        ("beside another run", lambda: render(head, 0, beside=("baseline", base))),
    ):
        seconds, size = timed(render_once, options.repeat)
        median = statistics.median(seconds)
        print(
            f"{options.turns} turns, {name}: min {min(seconds) * 1000:.1f} ms, "
            f"median {median * 1000:.1f} ms, {size:,} characters"
        )
        failed = failed or median > TARGET_SECONDS
    print(f"target: median <= {TARGET_SECONDS:.0f} s: {'FAILED' if failed else 'met'}")
    return 1 if failed and not options.no_fail else 0


if __name__ == "__main__":
    sys.exit(main())
