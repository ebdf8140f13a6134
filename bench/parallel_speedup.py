"""Speed-up of `holodeck-lsp run --parallel 64` over `--parallel 1` on the financial-assistant
sample's ConvFinQA dev split, against the offline oracle holding every answer 500 ms.

Everything is real: the oracle is its own process (scripts/oracle_server.py, `--latency-ms`),
each run is the `holodeck-lsp run` console command in a child process (Semantic Kernel's
Ollama connector over loopback HTTP, the sample's tools.py, graders.py and the G-Eval judge).

1. Scratch copies of the sample: the whole split (`convert_convfinqa.py --n all`) and its
   first `--cases` (128) dialogues, in four mixes: `judge` (the sample as it is), `nojudge`
   (the G-Eval metric removed), `equal` (one 2-turn dialogue of 5 oracle answers, copied
   `--cases` times under other names: every case equally long) and `equal-nojudge` (the same
   without the G-Eval metric: the executor alone, whose ideal is exactly 64x — a judge's own
   answers after a case's last turn are waits the bound does not count). One oracle serves
   them all.
2. Per mix, `--parallel 64` on the 128 cases: measured, T64 (the median of `--repeat` runs:
   on a shared machine one run says little).
3. Per mix, `--parallel 1` on all 128 would take many minutes (every answer waits 500 ms, one
   after another), so it runs on `--sample` (8) of them, taken at an even stride over the 128
   so that short and long dialogues come in the same mix, and is extrapolated:
   T1(128) = (T1(sample) / turns(sample)) x turns(128) — time per turn x turns. The oracle's
   answers per turn (tool calls + the answer) are printed for the sample and for the 128, so
   the reader can see whether the sample's turns are representative.
4. The whole split at `--parallel 64`, and with two models at once (`--model A --model B`,
   both answered by the oracle): wall time and peak RSS.

Speed-up = T1(128) / T64(128); target >= 0.9 x 64. Also printed per mix: the ideal bound
(each case's waits alone, answers x latency, started in the executor's order — the longest
first, runner/execution/start_order.py — whenever one of 64 slots frees: what an executor costing
nothing would reach with these cases; 64 exactly for the equal mix), the speed-up as a share
of that bound, CPU per turn ((CPU of the 64 run - CPU of the 1 run) / (difference in turns):
start-up cancels out) and the oracle's own CPU. Peak RSS is each child's own (os.wait4).
Judge calls have their own limit ($HOLODECK_JUDGE_CONCURRENCY, default 8); the bench sets it to
the `--parallel` of the run, as a user tuning for a provider without a tight rate limit would.
Each run's time is the one the command prints ("in 41.2s": the run, without start-up); runs
are not stored (`--no-save`).

    .venv/bin/python bench/parallel_speedup.py [--cases 128] [--sample 8] [--latency-ms 500]
        [--mixes judge,nojudge,equal,equal-nojudge] [--repeat 3] [--skip-full] [--json]
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

from holodeck_lsp.runner.execution.start_order import start_order

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "sample" / "financial-assistant"
PARALLEL = 64
SPEEDUP_FACTOR = 0.9
_LISTENING = re.compile(r"oracle listening on http://(127\.0\.0\.1:\d+)")
_RUN_TIME = re.compile(r"of (\d+) test cases \((\d+)/(\d+) turns\) in ([0-9.]+)s")
#: The second model of the two-model run (the oracle answers any model name).
SECOND_MODEL = "ollama:llama3.1:8b"
MIXES = ("judge", "nojudge", "equal", "equal-nojudge")


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


def without_judge(agent_yaml: Path) -> None:
    """Drop the G-Eval metric (the sample's only judged metric) from the agent file."""
    lines = agent_yaml.read_text(encoding="utf-8").splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.strip() == "- type: geval")
    end = start + 1
    while end < len(lines) and lines[end].startswith("      "):
        end += 1
    agent_yaml.write_text("".join(lines[:start] + lines[end:]), encoding="utf-8")


def equal_cases(agent_yaml: Path, name: str, copies: int) -> None:
    """The agent file with `copies` copies of case `name` (renamed), and no other case."""
    text = agent_yaml.read_text(encoding="utf-8")
    head, cases = text.split("\ntest_cases:\n", 1)
    blocks = re.split(r"(?m)^(?=  - name: )", cases)
    block = next(b for b in blocks if b.startswith(f'  - name: "{name}"'))
    copied = [
        block.replace(f'  - name: "{name}"', f'  - name: "{name}-copy{n:03d}"', 1)
        for n in range(copies)
    ]
    agent_yaml.write_text(head + "\ntest_cases:\n" + "".join(copied), encoding="utf-8")


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
    command += ["--no-save"]
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


def schedule_bound(durations: list[float], slots: int, order: list[int] | None = None) -> float:
    """The makespan of the cases in `order` (default: file order) on `slots` slots, each case
    starting when a slot frees (what the executor's semaphore does), with no CPU cost at all:
    the best any executor starting these cases in this order could do."""
    free = [0.0] * slots
    for index in order if order is not None else range(len(durations)):
        duration = durations[index]
        heapq.heappush(free, heapq.heappop(free) + duration)
    return max(free)


def process_cpu(pid: int) -> float:
    """User + system seconds of a running process (/proc/PID/stat, clock ticks)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def measure_mix(
    mix: str, folder: Path, host: str, oracle: subprocess.Popen[str], subset: Path,
    args: argparse.Namespace, logs: Path,
) -> dict[str, Any]:  # fmt: skip
    """T64 and T1 (extrapolated) of one mix of 128 cases, and the bound of that mix."""
    cases = json.loads((folder / "data" / "convfinqa_subset.json").read_text("utf-8"))
    names = [d["test_case"]["name"] for d in cases["dialogues"]]
    turns = [len(d["test_case"]["turns"]) for d in cases["dialogues"]]
    if mix.startswith("equal"):
        base = names[equal_index(subset, names, turns)]
        equal_cases(folder / "agent.yaml", base, args.cases)
        names, turns = [base] * args.cases, [turns[names.index(base)]] * args.cases
    if mix.endswith("nojudge"):
        without_judge(folder / "agent.yaml")
    stride = max(1, len(names) // args.sample)
    chosen = list(range(0, len(names), stride))[: args.sample]
    oracle_cpu = process_cpu(oracle.pid)
    repeats = [
        run(f"{mix}-p{PARALLEL}-{n}", folder, host, PARALLEL, [], logs)
        for n in range(1, args.repeat + 1)
    ]
    oracle_cpu = (process_cpu(oracle.pid) - oracle_cpu) / args.repeat
    p64 = sorted(repeats, key=lambda r: r.seconds)[(len(repeats) - 1) // 2]  # the median
    case_flags = [flag for index in chosen for flag in ("--case", str(index))]
    p1 = run(f"{mix}-p1-sample{len(chosen)}", folder, host, 1, case_flags, logs)
    per_turn = p1.seconds / p1.turns
    t1_estimate = per_turn * p64.turns
    speedup = t1_estimate / p64.seconds
    answers = oracle_answers(subset, names)
    waits = [count * args.latency_ms / 1000 for count in answers]
    order = start_order(turns, PARALLEL)
    bound = schedule_bound(waits, PARALLEL, order)
    bound_speedup = sum(waits) / bound
    # Two runs, one start-up each: the difference in CPU is the difference in turns' CPU.
    cpu_per_turn = (p64.cpu - p1.cpu) / (p64.turns - p1.turns)
    return {
        "runs": {"p64": asdict(p64), "p1": asdict(p1)},
        "p64_seconds_each": [r.seconds for r in repeats],
        "p1_seconds_per_turn": round(per_turn, 3),
        "answers_per_turn_sample": round(sum(answers[i] for i in chosen) / p1.turns, 2),
        "answers_per_turn_cases": round(sum(answers) / p64.turns, 2),
        "t1_estimate_seconds": round(t1_estimate, 1),
        "speedup": round(speedup, 1),
        "ideal_bound_seconds": round(bound, 1),
        "ideal_bound_speedup": round(bound_speedup, 1),
        "file_order_bound_speedup": round(sum(waits) / schedule_bound(waits, PARALLEL), 1),
        "share_of_ideal": round(speedup / bound_speedup, 3),
        "cpu_ms_per_turn": round(1000 * cpu_per_turn, 1),
        "startup_cpu_seconds": round(p1.cpu - cpu_per_turn * p1.turns, 1),
        "oracle_cpu_seconds_p64": round(oracle_cpu, 1),  # per run
    }


def equal_index(subset: Path, names: list[str], turns: list[int]) -> int:
    """The first 2-turn dialogue with 5 oracle answers: the commonest shape of the split."""
    answers = oracle_answers(subset, names)
    return next(i for i, (t, a) in enumerate(zip(turns, answers, strict=True)) if (t, a) == (2, 5))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=128)
    parser.add_argument("--sample", type=int, default=8, help="cases run at --parallel 1")
    parser.add_argument("--latency-ms", type=float, default=500.0)
    parser.add_argument("--mixes", default=",".join(MIXES), help="of " + ", ".join(MIXES))
    parser.add_argument("--repeat", type=int, default=1, help="--parallel 64 runs per mix")
    parser.add_argument("--skip-full", action="store_true", help="not the whole split")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    mixes = [m for m in args.mixes.split(",") if m]
    if unknown := set(mixes) - set(MIXES):
        parser.error(f"unknown mix {sorted(unknown)}: choose from {', '.join(MIXES)}")

    scratch = Path(tempfile.mkdtemp(prefix="parallel-speedup-"))
    logs = scratch / "logs"
    logs.mkdir()
    full = sample_copy(scratch / "full", "all")
    subset = full / "data" / "convfinqa_subset.json"
    folders = {mix: sample_copy(scratch / f"{mix}{args.cases}", str(args.cases)) for mix in mixes}
    oracle, host = start_oracle(subset, args.latency_ms)
    results: dict[str, Any] = {}
    full_runs: dict[str, Run] = {}
    load_before = load_average()
    try:
        print(f"oracle at {host}, {args.latency_ms:g} ms per answer", file=sys.stderr)
        for mix in mixes:
            results[mix] = measure_mix(mix, folders[mix], host, oracle, subset, args, logs)
        if not args.skip_full:
            full_runs["one_model"] = run("full-p64", full, host, PARALLEL, [], logs)
            both = ["--model", "ollama:qwen2.5:7b", "--model", SECOND_MODEL]
            full_runs["two_models"] = run("full-p64-two-models", full, host, PARALLEL, both, logs)
    finally:
        oracle.terminate()
        oracle.wait(timeout=10)

    full_names = [
        d["test_case"]["name"] for d in json.loads(subset.read_text("utf-8"))["dialogues"]
    ]
    full_turns = [
        len(d["test_case"]["turns"]) for d in json.loads(subset.read_text("utf-8"))["dialogues"]
    ]
    full_waits = [a * args.latency_ms / 1000 for a in oracle_answers(subset, full_names)]
    # The whole split, extrapolated like the 128: the judge mix's time per turn at --parallel 1
    # (the split has the same oracle waits per turn as its first 128) x the run's turns.
    full_speedups: dict[str, Any] = {}
    if "judge" in results:
        per_turn = results["judge"]["p1_seconds_per_turn"]
        for key, copies in (("one_model", 1), ("two_models", 2)):
            if key not in full_runs:
                continue
            waits = [w for w in full_waits for _ in range(copies)]
            order = start_order([t for t in full_turns for _ in range(copies)], PARALLEL)
            full_speedups[key] = {
                "speedup": round(per_turn * full_runs[key].turns / full_runs[key].seconds, 1),
                "ideal_bound_speedup": round(
                    sum(waits) / schedule_bound(waits, PARALLEL, order), 1
                ),
            }
    result: dict[str, Any] = {
        "machine": f"{os.cpu_count()} CPUs, {platform.platform()}",
        "python": platform.python_version(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "load_average_before_after": [load_before, load_average()],
        "latency_ms": args.latency_ms,
        "target": SPEEDUP_FACTOR * PARALLEL,
        "mixes": results,
        "full_split": {key: asdict(value) for key, value in full_runs.items()},
        "full_split_ideal_seconds": round(
            schedule_bound(full_waits, PARALLEL, start_order(full_turns, PARALLEL)), 1
        ),
        "full_split_speedups": full_speedups,
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for key, value in result.items():
            if isinstance(value, dict):
                for name, inner in value.items():
                    print(f"{key}.{name}: {inner}")
            else:
                print(f"{key}: {value}")
    shutil.rmtree(scratch, ignore_errors=True)
    ok = all(r["speedup"] >= SPEEDUP_FACTOR * PARALLEL for r in results.values())
    for mix, r in results.items():
        print(f"{mix}: speed-up {r['speedup']:.1f} vs target {SPEEDUP_FACTOR * PARALLEL:.1f} "
              f"(ideal for this mix {r['ideal_bound_speedup']:.1f}, reached "
              f"{100 * r['share_of_ideal']:.0f}%)", file=sys.stderr)  # fmt: skip
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
