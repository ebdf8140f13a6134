#!/usr/bin/env python3
"""The command line's speed as a user feels it (issue "The command line and CI"):

- `holodeck-lsp check` of the sample agent file, whole process (target <= 300 ms);
- `holodeck-lsp check` of the 1,000-case ConvFinQA yardstick, whole process (<= 0.6 s);
- the first line of `holodeck-lsp run`, from spawning the process to the line arriving
  (<= 1 s): replaying the sample's cassette, and a live run (Ollama on a closed port, so the
  run stops at the endpoint check: the line must come before any SDK import).

Child processes run with cached bytecode (a warm-up run writes it). Median of --repeat runs.

    .venv/bin/python bench/cli_speed.py [--repeat 11] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from check_speed import generate
from shared_folder import default_shared

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "sample" / "financial-assistant"
OUT = REPO / "bench" / "out" / "cli_speed"
TARGETS = {"check sample": 0.300, "check 1,000 cases": 0.600, "first line of run": 1.0}


def cli() -> list[str]:
    script = Path(sys.executable).with_name("holodeck-lsp")
    return [str(script)] if script.exists() else [sys.executable, "-m", "holodeck_lsp"]


def wall(argv: list[str], repeat: int, cwd: Path = REPO) -> list[float]:
    subprocess.run(argv, capture_output=True, cwd=cwd, check=False)  # warm-up: writes .pyc
    runs = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(argv, capture_output=True, cwd=cwd, check=False)
        runs.append(time.perf_counter() - started)
    return runs


def first_line(argv: list[str], repeat: int, env: dict[str, str]) -> list[float]:
    runs = []
    for number in range(repeat + 1):
        started = time.perf_counter()
        process = subprocess.Popen(
            argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=REPO, env=env
        )
        assert process.stdout is not None
        process.stdout.readline()
        elapsed = time.perf_counter() - started
        process.communicate(timeout=120)
        if number:  # the first is the warm-up
            runs.append(elapsed)
    return runs


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=11)
    parser.add_argument("--shared", type=Path, default=default_shared())
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    command = cli()
    big = generate(args.shared, OUT, 1000)
    env = {**os.environ}
    env.pop("HOLODECK_PREFLIGHT", None)
    results = {
        "check sample": wall([*command, "check", str(SAMPLE / "agent.yaml")], args.repeat),
        "check 1,000 cases": wall([*command, "check", str(big)], args.repeat),
        "first line of run (replay)": first_line(
            [*command, "run", str(SAMPLE), "--replay", str(SAMPLE / "cassettes" / "oracle.json")],
            args.repeat,
            env,
        ),
        "first line of run (live)": first_line(
            [*command, "run", str(SAMPLE), "--case", "0"],
            args.repeat,
            {**env, "OLLAMA_HOST": f"127.0.0.1:{closed_port()}"},
        ),
    }
    rows = []
    failed = False
    for name, runs in results.items():
        target = TARGETS.get(name) or TARGETS["first line of run"]
        median = statistics.median(runs)
        ok = median <= target
        failed |= not ok
        rows.append(
            {
                "name": name,
                "min_ms": round(min(runs) * 1000, 1),
                "median_ms": round(median * 1000, 1),
                "target_ms": target * 1000,
                "pass": ok,
            }
        )
    if args.json:
        print(json.dumps({"python": platform.python_version(), "rows": rows}, indent=2))
    else:
        for row in rows:
            verdict = "PASS" if row["pass"] else "FAIL"
            print(
                f"{row['name']:<28} {row['min_ms']:>8.1f} / {row['median_ms']:>8.1f} ms"
                f"   target <= {row['target_ms']:.0f} ms  {verdict}"
            )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
