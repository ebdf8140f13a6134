"""Executor overhead and parallel speed-up of `holodeck_lsp.runner.execution.executor.run_suite`.

1. Overhead: 100 cases x 4 turns against an in-process backend that answers at once (no
   sleep, no I/O). Each turn is graded with `equality` against its ground truth, as a real
   suite would be. Executor overhead per turn = (run time - grading time) / turns, where the
   grading time is measured separately by grading the same turn outcomes with `grade_turn`
   directly. A second figure runs with grading stubbed out (a constant TurnResult), which
   measures the executor alone; the two should agree. Target <= 0.2 ms/turn.
2. Speed-up: 32 cases x 2 turns, every send sleeping 50 ms, `parallel` N = 1, 4, 16.
   Speed-up = T(1) / T(N). Target >= 0.9 N.
3. Matrix overhead: the same 100 x 4 suite against a matrix of 3 models (`run_lanes`, three
   zero-latency backends, one pool): 1,200 turns; overhead per turn = (run time - grading
   time of all 1,200 turns) / 1,200. Target <= 0.2 ms/turn, as for one model.

    .venv/bin/python bench/executor_overhead.py [--repeat 7] [--json] [--no-fail]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from holodeck_lsp.checker.loader import LoadOptions, load_agent_text
from holodeck_lsp.engine.case_grading import turn_specs
from holodeck_lsp.engine.metric_selection import metrics_for
from holodeck_lsp.engine.turn_grading import GradingOptions, TurnOutcome, grade_turn
from holodeck_lsp.runner.backends.base import SendResult, TurnFile
from holodeck_lsp.runner.execution import case_runner
from holodeck_lsp.runner.execution.executor import Lane, RunOptions, run_lanes, run_suite
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.results import TokenUsage, TurnResult

OVERHEAD_TARGET_MS = 0.2
SPEEDUP_FACTOR = 0.9
USAGE = TokenUsage(prompt_tokens=100, completion_tokens=5, total_tokens=105)


class Session:
    def __init__(self, latency: float) -> None:
        self.latency = latency

    async def send(self, message: str, files: Sequence[TurnFile] = ()) -> SendResult:
        if self.latency:
            await asyncio.sleep(self.latency)
        # The answer each turn's ground truth expects: every turn passes.
        return SendResult(response=f"answer {message}", token_usage=USAGE)

    async def close(self) -> None:
        return None


class Backend:
    def __init__(self, latency: float = 0.0) -> None:
        self.latency = latency

    async def create_session(self) -> Session:
        return Session(self.latency)

    async def aclose(self) -> None:
        return None


def make_agent(cases: int, turns: int) -> Agent:
    lines = [
        "name: bench",
        "model: {provider: openai, name: gpt-4o-mini}",
        "instructions: {inline: x}",
        "evaluations:",
        "  metrics:",
        "    - {type: standard, metric: equality}",
        "test_cases:",
    ]
    for case in range(cases):
        lines.append(f"  - name: case-{case}")
        lines.append("    turns:")
        for turn in range(turns):
            text = f"c{case} t{turn}"
            lines.append(f'      - {{input: "{text}", ground_truth: "answer {text}"}}')
    loaded = load_agent_text(
        "\n".join(lines) + "\n",
        Path("bench-agent.yaml"),
        LoadOptions(global_config=False, lints=False),
    )
    assert loaded.agent is not None and not loaded.errors
    return loaded.agent


def run(agent: Agent, backend: Backend, parallel: int) -> tuple[float, Any]:
    options = RunOptions(parallel=parallel, grading=GradingOptions(grader_timeout=30))
    started = time.perf_counter()
    report = asyncio.run(run_suite(agent, Path("."), backend, options=options))
    return time.perf_counter() - started, report


MATRIX_MODELS = ("openai:m1", "anthropic:m2", "ollama:m3")


def run_matrix(agent: Agent, parallel: int) -> tuple[float, Any]:
    options = RunOptions(parallel=parallel, grading=GradingOptions(grader_timeout=30))
    lanes = [Lane(agent, Backend(), model=model) for model in MATRIX_MODELS]
    started = time.perf_counter()
    report = asyncio.run(run_lanes(lanes, Path("."), options=options))
    return time.perf_counter() - started, report


def grading_time(agent: Agent, report: Any) -> float:
    """Grade the run's outcomes again with `grade_turn` alone: what grading costs."""
    work = []
    for result in report.results:
        case = (agent.test_cases or [])[result.test_index]
        for spec, turn in zip(turn_specs(case), result.turns, strict=True):
            outcome = TurnOutcome(
                response=turn.response, token_usage=turn.token_usage, duration_ms=0
            )
            metrics = metrics_for(agent, case, (case.turns or [])[spec.index])
            work.append((spec, outcome, metrics, case.name))
    options = GradingOptions(grader_timeout=30)
    started = time.perf_counter()
    for spec, outcome, metrics, name in work:
        grade_turn(spec, outcome, metrics, case_name=name, options=options)
    return time.perf_counter() - started


def stub_grading() -> None:
    def stub(_agent: Any, _case: Any, spec: Any, *_args: Any, **_kwargs: Any) -> TurnResult:
        return TurnResult(turn_index=spec.index, input=spec.input, passed=True)

    case_runner.grade_case_turn = stub  # type: ignore[assignment]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--no-fail", action="store_true")
    args = parser.parse_args(argv)

    agent = make_agent(100, 4)
    turns = 400
    run(agent, Backend(), 1)  # warm-up
    totals, gradings, overheads = [], [], []
    for _ in range(args.repeat):
        total, report = run(agent, Backend(), 1)
        assert report.summary.passed == 100, "every case should pass"
        grading = grading_time(agent, report)
        totals.append(total)
        gradings.append(grading)
        overheads.append((total - grading) / turns * 1000)

    real_grade = case_runner.grade_case_turn
    stub_grading()
    run(agent, Backend(), 1)
    stubbed = [run(agent, Backend(), 1)[0] / turns * 1000 for _ in range(args.repeat)]
    case_runner.grade_case_turn = real_grade

    run_matrix(agent, 1)  # warm-up
    matrix_overheads = []
    for _ in range(args.repeat):
        total, report = run_matrix(agent, 1)
        assert report.summary.passed == 300, "every case should pass on every model"
        matrix_overheads.append((total - grading_time(agent, report)) / (3 * turns) * 1000)
    matrix_overhead = statistics.median(matrix_overheads)

    latency_agent = make_agent(32, 2)
    speed: dict[int, float] = {}
    for parallel in (1, 4, 16):
        times = [run(latency_agent, Backend(0.05), parallel)[0] for _ in range(3)]
        speed[parallel] = statistics.median(times)

    overhead = statistics.median(overheads)
    stub_overhead = statistics.median(stubbed)
    speedups = {n: speed[1] / speed[n] for n in speed}
    results: dict[str, Any] = {
        "machine": f"{platform.machine()} {platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "overhead": {
            "run_s": [min(totals), statistics.median(totals)],
            "grading_s": [min(gradings), statistics.median(gradings)],
            "overhead_ms_per_turn": [min(overheads), overhead],
            "stubbed_ms_per_turn": [min(stubbed), stub_overhead],
            "matrix_3_models_ms_per_turn": [min(matrix_overheads), matrix_overhead],
        },
        "parallel_s": speed,
        "speedup": speedups,
    }
    target = OVERHEAD_TARGET_MS
    checks = {
        f"overhead {overhead:.3f} ms/turn <= {target}": bool(overhead <= target),
        f"stubbed {stub_overhead:.3f} ms/turn <= {target}": bool(stub_overhead <= target),
        f"3-model matrix {matrix_overhead:.3f} ms/turn <= {target}": bool(
            matrix_overhead <= target
        ),
    }
    for n in (4, 16):
        checks[f"speed-up x{speedups[n]:.2f} at N={n} >= {SPEEDUP_FACTOR * n:.1f}"] = (
            speedups[n] >= SPEEDUP_FACTOR * n
        )
    if args.json:
        print(json.dumps({**results, "checks": checks}, indent=2))
    else:
        o = results["overhead"]
        print(f"100 cases x 4 turns, zero latency ({args.repeat} runs, min / median):")
        print(f"  run          {o['run_s'][0] * 1000:8.1f} / {o['run_s'][1] * 1000:8.1f} ms")
        grading_ms = [seconds * 1000 for seconds in o["grading_s"]]
        print(f"  grading      {grading_ms[0]:8.1f} / {grading_ms[1]:8.1f} ms")
        print(f"  overhead     {o['overhead_ms_per_turn'][0]:8.3f} / {overhead:8.3f} ms/turn")
        print(f"  stubbed      {o['stubbed_ms_per_turn'][0]:8.3f} / {stub_overhead:8.3f} ms/turn")
        m = o["matrix_3_models_ms_per_turn"]
        print(f"  3-model matrix {m[0]:6.3f} / {matrix_overhead:8.3f} ms/turn (1,200 turns)")
        print("32 cases x 2 turns, 50 ms per send (median of 3):")
        for n, seconds in speed.items():
            print(f"  N={n:<3} {seconds * 1000:8.1f} ms   speed-up x{speedups[n]:.2f}")
        for label, ok in checks.items():
            print(f"{'PASS' if ok else 'FAIL'}  {label}")
    return 0 if args.no_fail or all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
