"""Speed-up of `holodeck-lsp run --parallel 64` over `--parallel 1` on the financial-assistant
sample's whole ConvFinQA dev split, against the offline oracle holding every answer 500 ms.

Everything is real: the oracle is its own process (scripts/oracle_server.py, `--latency-ms`),
each run is the `holodeck-lsp run` console command in a child process (Semantic Kernel's
Ollama connector over loopback HTTP, the sample's tools.py, graders.py and the G-Eval judge).

1. A scratch copy of the sample gets the whole split (`convert_convfinqa.py --n all`) and a
   second copy its first `--cases` (128) dialogues; one oracle serves the whole split.
2. `--parallel 64` on the 128 cases: measured, T64.
3. `--parallel 1` on the 128 cases would take many minutes (every answer waits 500 ms, one
   after another), so it runs on `--sample` (8) of them, taken at an even stride over the 128
   so that short and long dialogues come in the same mix, and is extrapolated:
   T1(128) = (T1(sample) / turns(sample)) × turns(128) — time per turn × turns. The oracle's
   answers per turn (tool calls + the answer) are printed for the sample and for the 128, so
   the reader can see whether the sample's turns are representative.
4. The whole split at `--parallel 64`, and two runs of it at once (one per oracle instance):
   what `--model A --model B` will put on one machine; each run's wall time and peak RSS.

Speed-up = T1(128) / T64(128); target >= 0.9 x 64. Also printed: the schedule bound (each
case's waits alone, answers x latency, started in file order on 64 slots: what an executor
costing nothing would reach with these cases), CPU per turn ((CPU of the 64 run - CPU of the
1 run) / (difference in turns): start-up cancels out) and the oracle's own CPU. Peak RSS is
each child's own (os.wait4).
Judge calls have their own limit ($HOLODECK_JUDGE_CONCURRENCY, default 8); the bench sets it to
the `--parallel` of the run, as a user tuning for a provider without a tight rate limit would.
Each run's time is the one the command prints ("in 41.2s": the run, without start-up).

    .venv/bin/python bench/parallel_speedup.py [--cases 128] [--sample 8] [--latency-ms 500]
        [--skip-full] [--json]
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "sample" / "financial-assistant"
PARALLEL = 64
SPEEDUP_FACTOR = 0.9
_LISTENING = re.compile(r"oracle listening on http://(127\.0\.0\.1:\d+)")
_RUN_TIME = re.compile(r"of (\d+) test cases \((\d+)/(\d+) turns\) in ([0-9.]+)s")


@dataclass
class Run:
    label: str
    parallel: int
    cases: int
    turns: int
    passed_turns: int
    seconds: float  # the run as the command reports it (no start-up)
    wall: float  # the whole child process, start-up included
    cpu: float  # the child's user + system seconds
    peak_rss_mib: float


def sample_copy(folder: Path, n: str) -> Path:
    """The sample's code (tools, graders, the ConvFinQA helpers) with `n` dialogues."""
    shutil.copytree(
        SAMPLE, folder, ignore=shutil.ignore_patterns("__pycache__", "cassettes", "documents")
    )
    subprocess.run(
        [sys.executable, "scripts/convert_convfinqa.py", "--n", n,
         "--out", "data/convfinqa_subset.json", "--agent-yaml", "agent.yaml"],
        cwd=folder, check=True, capture_output=True, text=True,
    )  # fmt: skip
    return folder


def start_oracle(subset: Path, latency_ms: float) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, str(SAMPLE / "scripts" / "oracle_server.py"), "--port", "0",
         "--quiet", "--subset", str(subset), "--latency-ms", str(latency_ms)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    assert proc.stdout is not None
    line = proc.stdout.readline()
    match = _LISTENING.search(line)
    if match is None:
        proc.terminate()
        sys.exit(f"parallel_speedup: the oracle did not start: {line!r}")
    return proc, match.group(1)


def holodeck(
    label: str, agent_dir: Path, host: str, parallel: int, extra: list[str], log: Path
) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "OLLAMA_HOST": host,
        "HOLODECK_JUDGE_CONCURRENCY": str(parallel),
        "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""),
    }
    cli = "import sys; from holodeck_lsp.cli import main; sys.exit(main())"
    command = [sys.executable, "-c", cli, "run", str(agent_dir), "--parallel", str(parallel)]
    command += extra
    out = log.open("wb")
    return subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)


def finish(label: str, proc: subprocess.Popen[bytes], parallel: int, log: Path, t0: float) -> Run:
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t0
    text = log.read_text(encoding="utf-8", errors="replace")
    match = _RUN_TIME.search(text)
    if match is None:
        sys.exit(f"parallel_speedup: {label}: no summary line (exit {proc.returncode}):\n{text}")
    return Run(
        label=label,
        parallel=parallel,
        cases=int(match.group(1)),
        turns=int(match.group(3)),
        passed_turns=int(match.group(2)),
        seconds=float(match.group(4)),
        wall=round(wall, 1),
        cpu=round(usage.ru_utime + usage.ru_stime, 1),
        peak_rss_mib=round(usage.ru_maxrss / 1024, 1),  # KiB on Linux
    )


def run(label: str, agent_dir: Path, host: str, parallel: int, extra: list[str], logs: Path) -> Run:
    log = logs / f"{label}.log"
    t0 = time.perf_counter()
    proc = holodeck(label, agent_dir, host, parallel, extra, log)
    result = finish(label, proc, parallel, log, t0)
    print(f"  {label}: {result.cases} cases, {result.turns} turns in {result.seconds}s "
          f"(peak RSS {result.peak_rss_mib} MiB)", file=sys.stderr, flush=True)  # fmt: skip
    return result


def oracle_answers(subset: Path, names: list[str]) -> list[int]:
    """Per case (in `names` order): the oracle's answers to the agent (tool calls + the
    final answer of each turn), from the plans it serves."""
    sys.path.insert(0, str(SAMPLE / "scripts"))
    from oracle_plan import build_plans  # type: ignore[import-not-found]

    plans = build_plans(json.loads(subset.read_text(encoding="utf-8")), 0.0, 1)
    by_case = {turns[0].case: turns for turns in plans.values()}
    return [sum(len(t.calls) + 1 for t in by_case[name]) for name in names]


def schedule_bound(durations: list[float], slots: int) -> float:
    """The makespan of the cases in file order on `slots` slots, each case starting when a
    slot frees (what the executor's semaphore does), with no CPU cost at all: the best any
    executor running these cases in this order could do."""
    free = [0.0] * slots
    for duration in durations:
        heapq.heappush(free, heapq.heappop(free) + duration)
    return max(free)


def process_cpu(pid: int) -> float:
    """User + system seconds of a running process (/proc/PID/stat, clock ticks)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=128)
    parser.add_argument("--sample", type=int, default=8, help="cases run at --parallel 1")
    parser.add_argument("--latency-ms", type=float, default=500.0)
    parser.add_argument("--skip-full", action="store_true", help="not the whole split")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    scratch = Path(tempfile.mkdtemp(prefix="parallel-speedup-"))
    logs = scratch / "logs"
    logs.mkdir()
    full = sample_copy(scratch / "full", "all")
    part = sample_copy(scratch / f"first{args.cases}", str(args.cases))
    subset = full / "data" / "convfinqa_subset.json"
    part_subset = json.loads((part / "data" / "convfinqa_subset.json").read_text("utf-8"))
    names = [d["test_case"]["name"] for d in part_subset["dialogues"]]
    stride = max(1, len(names) // args.sample)
    chosen = list(range(0, len(names), stride))[: args.sample]
    oracle, host = start_oracle(subset, args.latency_ms)
    oracle2: subprocess.Popen[str] | None = None
    runs: dict[str, Run] = {}
    two_at_once: float | None = None  # wall seconds of the two concurrent whole-split runs
    load_before = load_average()
    try:
        print(f"oracle at {host}, {args.latency_ms:g} ms per answer", file=sys.stderr)
        oracle_cpu = process_cpu(oracle.pid)
        runs["p64"] = run(f"p{PARALLEL}-{args.cases}", part, host, PARALLEL, [], logs)
        oracle_cpu = process_cpu(oracle.pid) - oracle_cpu
        case_flags = [flag for index in chosen for flag in ("--case", str(index))]
        runs["p1"] = run(f"p1-sample{len(chosen)}", part, host, 1, case_flags, logs)
        if not args.skip_full:
            runs["full"] = run("p64-full", full, host, PARALLEL, [], logs)
            oracle2, host2 = start_oracle(subset, args.latency_ms)
            t0 = time.perf_counter()
            procs = [
                (name, holodeck(name, full, h, PARALLEL, [], logs / f"{name}.log"))
                for name, h in (("p64-full-a", host), ("p64-full-b", host2))
            ]
            for name, proc in procs:
                runs[name] = finish(name, proc, PARALLEL, logs / f"{name}.log", t0)
            two_at_once = round(time.perf_counter() - t0, 1)
    finally:
        for server in (oracle, oracle2):
            if server is not None:
                server.terminate()
                server.wait(timeout=10)

    p1, p64 = runs["p1"], runs["p64"]
    per_turn = p1.seconds / p1.turns
    t1_estimate = per_turn * p64.turns
    speedup = t1_estimate / p64.seconds
    answers = oracle_answers(subset, names)
    sample_answers = [answers[i] for i in chosen]
    # The agent's waits alone (answers x latency), scheduled as the executor does.
    waits = [count * args.latency_ms / 1000 for count in answers]
    bound = schedule_bound(waits, PARALLEL)
    # Two runs, one start-up each: the difference in CPU is the difference in turns' CPU.
    cpu_per_turn = (p64.cpu - p1.cpu) / (p64.turns - p1.turns)
    result: dict[str, Any] = {
        "machine": f"{os.cpu_count()} CPUs, {platform.platform()}",
        "python": platform.python_version(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "load_average_before_after": [load_before, load_average()],
        "latency_ms": args.latency_ms,
        "runs": {key: asdict(value) for key, value in runs.items()},
        "two_at_once_wall_seconds": two_at_once,
        "p1_seconds_per_turn": round(per_turn, 3),
        "answers_per_turn_sample": round(sum(sample_answers) / p1.turns, 2),
        "answers_per_turn_cases": round(sum(answers) / p64.turns, 2),
        "t1_estimate_seconds": round(t1_estimate, 1),
        "speedup": round(speedup, 1),
        "target": SPEEDUP_FACTOR * PARALLEL,
        "schedule_bound_seconds": round(bound, 1),
        "schedule_bound_speedup": round(sum(waits) / bound, 1),
        "cpu_ms_per_turn": round(1000 * cpu_per_turn, 1),
        "startup_cpu_seconds": round(p1.cpu - cpu_per_turn * p1.turns, 1),
        "oracle_cpu_seconds_p64": round(oracle_cpu, 1),
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
    shutil.rmtree(scratch, ignore_errors=True)
    ok = speedup >= SPEEDUP_FACTOR * PARALLEL
    print(f"speed-up {speedup:.1f} vs target {SPEEDUP_FACTOR * PARALLEL:.1f}: "
          f"{'PASS' if ok else 'FAIL'}", file=sys.stderr)  # fmt: skip
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
