#!/usr/bin/env python3
"""The whole test suite's wall time at several pytest-xdist worker counts (issue 28: the
README's test command within 10 minutes on a 2-core machine).

Runs `pytest -q -p no:cacheprovider -n N --dist loadgroup` (the README's pytest part, with
N from --workers; 0 means no xdist at all) once per N, in order, and prints per run the wall
time, pytest's summary line, the exit status and the load average before and after — other
users of the machine change the figure, so it is recorded with it. The tests' bytecode cache
is warmed first by collecting the suite once (`--collect-only`), as a repeated CI run has it.

    .venv/bin/python bench/suite_time.py [--workers 2 3 4] [--json] [-- extra pytest args]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SUMMARY = re.compile(r"^=*\s*(\d+ (passed|failed).*?) in [\d.]+s", re.M)
#: The README's test command must finish in 10 minutes, install and lint included.
TARGET_S = 600.0


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def run(workers: int, extra: list[str]) -> dict[str, object]:
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    if workers:
        command += ["-n", str(workers), "--dist", "loadgroup"]
    before = load()
    start = time.perf_counter()
    done = subprocess.run([*command, *extra], cwd=REPO, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    found = SUMMARY.search(done.stdout)
    return {
        "workers": workers,
        "wall_s": round(wall, 1),
        "exit": done.returncode,
        "summary": found.group(1) if found else done.stdout.strip().splitlines()[-1:],
        "load_before": before,
        "load_after": load(),
        "tail": done.stdout[-3000:] if done.returncode else "",
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--workers",
        type=int,
        nargs="+",
        default=[2, 3, 4],
        help="xdist worker counts to time, in order (0: no xdist)",
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("pytest_args", nargs="*", help="more pytest arguments (after --)")
    options = parser.parse_args()
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--collect-only"],
        cwd=REPO,
        capture_output=True,
        check=False,
    )
    results = []
    for workers in options.workers:
        result = run(workers, options.pytest_args)
        results.append(result)
        if not options.json:
            print(
                f"-n {workers}: {result['wall_s']:.1f} s, exit {result['exit']}, "
                f"{result['summary']} (load {result['load_before']} -> {result['load_after']})",
                flush=True,
            )
            if result["tail"]:
                print(result["tail"], flush=True)
    if options.json:
        machine = {"cpus": os.cpu_count(), "python": platform.python_version()}
        print(json.dumps({"machine": machine, "runs": results}, indent=2))
    best = min(float(str(result["wall_s"])) for result in results)
    if not options.json:
        verdict = "PASS" if best <= TARGET_S else "FAIL"
        print(
            f"best pytest wall time {best:.1f} s, target <= {TARGET_S:.0f} s with install "
            f"and lint: {verdict} (add them to judge the whole command)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
