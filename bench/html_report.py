#!/usr/bin/env python3
"""How fast and how big is the HTML report for 1,000 cases? (see docs/benchmarks.md)

Replays the sample (`sample/financial-assistant`, cassettes/oracle.json) once for its JSON
report, makes a 1,000-case report of it (its 10 cases, 100 times over, each named apart), then:

1. writing: `html.render(report)` in process, after a warm-up, over `--repeat` runs (min,
   median) — target <= 500 ms;
2. size of the page in bytes — target <= 3 MB (3,000,000 bytes);
3. interactive in headless Debian Chromium (tests/e2e/html_report.mjs, playwright-core): from
   navigation to the page's data-ready mark, plus the first click's detail — target <= 2 s.
   Needs `npm ci` in tests/e2e and /usr/bin/chromium; `--no-browser` skips it.
4. the same three for the 1,000 cases run by two models (the second model's copy of each
   case with its first turn's verdict turned round, so the columns differ): measured and
   printed; the targets are the single-model page's, reported, not failed on (twice the
   results is allowed to be bigger than 3 MB).

Exit status 1 if a target fails (`--no-fail`: 0).

    .venv/bin/python bench/html_report.py [--repeat 7] [--no-browser] [--no-fail]
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

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from holodeck_lsp.cli import main as cli_main  # noqa: E402
from holodeck_lsp.reports.run import html  # noqa: E402
from holodeck_lsp.schema.results import TestReport  # noqa: E402

SAMPLE = REPO / "sample" / "financial-assistant"
WRITE_MS, SIZE_BYTES, INTERACTIVE_MS = 500, 3_000_000, 2000


def thousand_cases(scratch: Path) -> TestReport:
    out = scratch / "sample.json"
    cli_main(["run", str(SAMPLE), "--replay", str(SAMPLE / "cassettes" / "oracle.json"),
              "--quiet", "--report-json", str(out)])  # fmt: skip
    report = TestReport.model_validate_json(out.read_text(encoding="utf-8"))
    results = [
        r.model_copy(update={"test_index": i, "test_name": f"{r.test_name}-{i}"})
        for i, r in enumerate(report.results * (1000 // len(report.results)))
    ]
    return report.model_copy(update={"results": results})


def two_models(report: TestReport) -> TestReport:
    results = [r.model_copy(update={"model": "openai:gpt-4o"}) for r in report.results]
    for r in report.results:
        turns = [t.model_copy() for t in r.turns or []]
        if turns:
            turns[0] = turns[0].model_copy(update={"passed": not turns[0].passed})
        results.append(r.model_copy(update={"model": "anthropic:claude-sonnet-4-5",
                                             "turns": turns or None}))  # fmt: skip
    return report.model_copy(
        update={"results": results, "models": ["openai:gpt-4o", "anthropic:claude-sonnet-4-5"]}
    )


def measure(label: str, report: TestReport, args: argparse.Namespace, scratch: Path) -> bool:
    """Prints write time, size and (unless --no-browser) time to interactive; True if all
    three are within the targets."""
    turns = sum(len(r.turns or [None]) for r in report.results)
    html.render(report)  # warm-up: assets read, code paths warm
    times = []
    for _ in range(args.repeat):
        started = time.perf_counter()
        page = html.render(report)
        times.append((time.perf_counter() - started) * 1000)
    median = statistics.median(times)
    size = len(page.encode("utf-8"))
    print(
        f"{label} ({turns:,} turns): write min {min(times):.0f} ms, median "
        f"{median:.0f} ms (target <= {WRITE_MS}) {'PASS' if median <= WRITE_MS else 'FAIL'}"
    )
    print(
        f"  size {size:,} bytes (target <= {SIZE_BYTES:,}) "
        f"{'PASS' if size <= SIZE_BYTES else 'FAIL'}"
    )
    ok = median <= WRITE_MS and size <= SIZE_BYTES
    if not args.no_browser:
        path = scratch / "thousand.html"
        path.write_text(page, encoding="utf-8")
        out = scratch / "browser.json"
        subprocess.run(["node", str(REPO / "tests" / "e2e" / "html_report.mjs"),
                        "--page", str(path), "--out", str(out)], check=True,
                       capture_output=True)  # fmt: skip
        [seen] = json.loads(out.read_text(encoding="utf-8"))
        total = seen["readyMs"] + seen["firstClickMs"]
        print(
            f"  interactive in Chromium: ready {seen['readyMs']} ms + first click "
            f"{seen['firstClickMs']} ms = {total} ms (target <= {INTERACTIVE_MS}) "
            f"{'PASS' if total <= INTERACTIVE_MS else 'FAIL'}"
        )
        ok = ok and total <= INTERACTIVE_MS
    return ok


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("--no-fail", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch_dir:
        scratch = Path(scratch_dir)
        report = thousand_cases(scratch)
        failed = not measure("1,000 cases", report, args, scratch)
        measure("1,000 cases x 2 models", two_models(report), args, scratch)
    return 1 if failed and not args.no_fail else 0


if __name__ == "__main__":
    sys.exit(main())
