#!/usr/bin/env python3
"""How fast is `holodeck-lsp compare` on two 1,000-case runs? (see docs/benchmarks.md)

Replays the sample (`sample/financial-assistant`, cassettes/oracle.json) once for its JSON
report and makes it 1,000 cases (its 10 cases 100 times over, named apart: 3,400 turns) — the
base. The head is the same report with changes planted reproducibly (`--seed`): 5% of the
passing turns fail on a tool argument, 5% of the failing ones pass, 2% of the turns get an
edited input, 3% a judged score moved by 0.2. Both are written as JSON files, then:

1. in process, after a warm-up, what the command does: `comparison_sides.compared` (both files read
   and parsed, compared from their JSON — reports/run/comparison_rows.py) and the text rendered
   — min and median over `--repeat` runs — target <= 300 ms;
2. for information, the whole command in a fresh process (`holodeck-lsp compare BASE HEAD
   --format json`), interpreter and imports included.

Exit status 1 if the target fails (`--no-fail`: 0).

    .venv/bin/python bench/compare_speed.py [--repeat 7] [--seed 1] [--no-fail]
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from holodeck_lsp.cli import main as cli_main  # noqa: E402
from holodeck_lsp.reports.run.comparison import counts_line, render_text  # noqa: E402
from holodeck_lsp.runner.run_history.comparison_sides import compared, report_side  # noqa: E402
from holodeck_lsp.schema.results import ArgMatchDetail, TestReport, TurnResult  # noqa: E402

SAMPLE = REPO / "sample" / "financial-assistant"
TARGET_MS = 300
CASES = 1000


def thousand_cases(scratch: Path) -> TestReport:
    out = scratch / "sample.json"
    cli_main(["run", str(SAMPLE), "--replay", str(SAMPLE / "cassettes" / "oracle.json"),
              "--quiet", "--no-save", "--report-json", str(out)])  # fmt: skip
    report = TestReport.model_validate_json(out.read_text(encoding="utf-8"))
    results = [
        r.model_copy(update={"test_index": i, "test_name": f"{r.test_name}-{i}"})
        for i, r in enumerate(report.results * (CASES // len(report.results)))
    ]
    return report.model_copy(update={"results": results})


def planted(base: TestReport, seed: int) -> TestReport:
    rng = random.Random(seed)
    results = []
    for result in base.results:
        turns = []
        for turn in result.turns or []:
            turns.append(_changed(turn, rng))
        results.append(result.model_copy(update={"turns": turns}))
    return base.model_copy(update={"results": results})


def _changed(turn: TurnResult, rng: random.Random) -> TurnResult:
    roll = rng.random()
    if turn.passed and roll < 0.05:
        detail = ArgMatchDetail(tool="lookup", unmatched_reason="arg 'column' mismatch: planted")
        return turn.model_copy(
            update={"passed": False, "tools_matched": False, "arg_match_details": [detail]}
        )
    if not turn.passed and roll < 0.05:
        return turn.model_copy(
            update={"passed": True, "errors": [], "arg_match_details": None, "metric_results": []}
        )
    if roll < 0.07:
        return turn.model_copy(update={"input": turn.input + " (edited)"})
    if roll < 0.10 and turn.metric_results:
        metrics = [
            m.model_copy(update={"score": max(0.0, m.score - 0.2)}) for m in turn.metric_results
        ]
        return turn.model_copy(update={"metric_results": metrics})
    return turn


def compare_files(base: Path, head: Path) -> tuple[str, str]:
    comparison = compared(report_side(str(base)), report_side(str(head)), 0.05)
    return render_text(comparison), counts_line(comparison)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-fail", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch_dir:
        scratch = Path(scratch_dir)
        base = thousand_cases(scratch)
        head = planted(base, args.seed)
        base_path, head_path = scratch / "base.json", scratch / "head.json"
        base_path.write_text(base.model_dump_json(indent=2), encoding="utf-8")
        head_path.write_text(head.model_dump_json(indent=2), encoding="utf-8")
        turns = sum(len(r.turns or [None]) for r in base.results)
        size = base_path.stat().st_size + head_path.stat().st_size
        _, counts = compare_files(base_path, head_path)  # warm-up
        times, cpu = [], []
        for _ in range(args.repeat):
            started, used = time.perf_counter(), time.process_time()
            compare_files(base_path, head_path)
            times.append((time.perf_counter() - started) * 1000)
            cpu.append((time.process_time() - used) * 1000)
        median = statistics.median(times)
        print(f"{CASES:,} cases ({turns:,} turns) each side, {size / 1e6:.1f} MB of JSON: {counts}")
        print(f"read + compare + render: min {min(times):.0f} ms, median {median:.0f} ms "
              f"(target <= {TARGET_MS}) {'PASS' if median <= TARGET_MS else 'FAIL'}; "
              f"CPU min {min(cpu):.0f} ms, median {statistics.median(cpu):.0f} ms")  # fmt: skip
        command = [sys.executable, "-m", "holodeck_lsp", "compare", str(base_path),
                   str(head_path), "--format", "json", "--allow-regressions"]  # fmt: skip
        walls = []
        for _ in range(3):
            started = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True, cwd=REPO)
            walls.append((time.perf_counter() - started) * 1000)
        print(f"whole command in a new process: median of 3 {statistics.median(walls):.0f} ms")
    return 0 if median <= TARGET_MS or args.no_fail else 1


if __name__ == "__main__":
    raise SystemExit(main())
