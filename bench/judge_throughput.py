"""Time LLM judging: 400 turns, each graded by one G-Eval metric (explicit evaluation steps:
one judge call per turn, through deepeval), against the fake judge
(tests/fakes/judge_server.py, its own process) answering after 200 ms, at the default
concurrency of 8 — then the replay of the same 400 judged turns from the recording.

    .venv/bin/python bench/judge_throughput.py [--turns 400] [--latency 0.2] [--json]

The agent answers instantly (an in-process backend), so the wall time is judging plus the
run's own overhead. Ideal: turns × latency / concurrency = 10 s. Targets: judging ≤ 12 s
(≥ 0.85 of ideal), replay ≤ 1 s, and the replay imports no deepeval (it runs in a fresh
process, which reports whether deepeval got imported). Exits 1 if a target fails.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

JUDGE_TARGET_S = 12.0
REPLAY_TARGET_S = 1.0

AGENT = """name: judged-bench
model: {{provider: openai, name: gpt-4o-mini}}
instructions: {{inline: Answer with the number only.}}
evaluations:
  model: {{provider: openai, name: judge-1, endpoint: "{endpoint}", api_key: bench-key}}
  metrics:
    - type: geval
      name: Direct
      criteria: The answer states the number without hedging.
      evaluation_steps: ["Read the answer.", "Check it is a bare number."]
test_cases:
{cases}"""


def write_suite(folder: Path, turns: int, endpoint: str) -> Path:
    cases = "\n".join(f'  - name: c{i}\n    input: "question {i}"' for i in range(turns))
    path = folder / "agent.yaml"
    path.write_text(AGENT.format(endpoint=endpoint, cases=cases) + "\n", encoding="utf-8")
    return path


class _Session:
    async def send(self, message: str, files: Sequence[object] = ()) -> object:
        from holodeck_lsp.runner.backends.base import SendResult

        return SendResult(response=message.split()[-1])

    async def close(self) -> None:
        return None


class _Backend:
    async def create_session(self) -> _Session:
        return _Session()

    async def aclose(self) -> None:
        return None


def start_judge(latency: float) -> tuple[subprocess.Popen[str], int]:
    judge = subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.judge_server", "--latency", str(latency)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert judge.stdout is not None
    line = judge.stdout.readline()
    assert line.startswith("PORT "), line
    return judge, int(line.split()[1])


def judge_live(agent_path: Path, cassette: Path) -> tuple[float, float, int, int]:
    """(seconds to open, seconds to run, judged turns, passed cases) of a recording run.
    Opening imports deepeval (a one-off ~1-2 s, before any case is sent)."""
    from holodeck_lsp.checker.loader import load_agent_file
    from holodeck_lsp.runner.backends import create as backends
    from holodeck_lsp.runner.run_session import Live, RunRequest, RunSession

    backends.create_backend = lambda agent, agent_dir: _Backend()  # type: ignore[assignment,return-value]
    loaded = load_agent_file(agent_path)
    assert loaded.agent is not None, [d.message for d in loaded.errors]
    opening = time.perf_counter()
    session = RunSession.open(RunRequest(loaded.agent, agent_path, answers=Live(record=True)))
    started = time.perf_counter()
    open_s = started - opening
    outcome = asyncio.run(session.run())
    seconds = time.perf_counter() - started
    assert outcome.recording is not None
    outcome.recording.write(cassette)
    judged = sum(
        1
        for result in outcome.report.results
        for metric in result.metric_results
        if metric.judge_input and metric.error is None and not metric.skipped
    )
    return open_s, seconds, judged, outcome.report.summary.passed


REPLAY = """
import asyncio, json, sys, time
from pathlib import Path
from holodeck_lsp.checker.loader import load_agent_file
from holodeck_lsp.runner.run_session import Replay, RunRequest, RunSession
agent_path, cassette = Path(sys.argv[1]), Path(sys.argv[2])
loaded = load_agent_file(agent_path)
session = RunSession.open(RunRequest(loaded.agent, agent_path, answers=Replay(cassette)))
started = time.perf_counter()
report = asyncio.run(session.run()).report
seconds = time.perf_counter() - started
print(json.dumps({"seconds": seconds, "passed": report.summary.passed,
                  "deepeval": any(m.split('.')[0] == 'deepeval' for m in sys.modules)}))
"""


def replay(agent_path: Path, cassette: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", REPLAY, str(agent_path), str(cassette)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=400)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    os.environ.pop("HOLODECK_JUDGE_CONCURRENCY", None)  # the default, 8
    ideal = options.turns * options.latency / 8
    judge, port = start_judge(options.latency)
    try:
        with tempfile.TemporaryDirectory() as scratch:
            folder = Path(scratch)
            agent = write_suite(folder, options.turns, f"http://127.0.0.1:{port}/v1")
            cassette = folder / "judged.json"
            open_s, live_s, judged, passed = judge_live(agent, cassette)
            judge.terminate()  # the replay runs with no judge at all
            judge.wait(timeout=10)
            replayed = replay(agent, cassette)
    finally:
        if judge.poll() is None:
            judge.terminate()
            judge.wait(timeout=10)
    replay_s = float(replayed["seconds"])  # type: ignore[arg-type]
    results = {
        "turns": options.turns,
        "latency_s": options.latency,
        "concurrency": 8,
        "ideal_s": round(ideal, 2),
        "open_s": round(open_s, 2),
        "judge_s": round(live_s, 2),
        "efficiency": round(ideal / live_s, 3),
        "judged_turns": judged,
        "passed_cases": passed,
        "replay_s": round(replay_s, 3),
        "replay_passed_cases": replayed["passed"],
        "replay_imported_deepeval": replayed["deepeval"],
    }
    ok = (
        live_s <= JUDGE_TARGET_S * options.turns / 400
        and judged == options.turns
        and replay_s <= REPLAY_TARGET_S
        and replayed["passed"] == passed
        and not replayed["deepeval"]
    )
    if options.json:
        print(json.dumps({**results, "ok": ok}, indent=2))
    else:
        print(
            f"judging {options.turns} turns at {options.latency * 1000:.0f} ms, concurrency 8: "
            f"{live_s:.2f} s (ideal {ideal:.1f} s, efficiency {ideal / live_s:.2f}; target ≤ "
            f"{JUDGE_TARGET_S:.0f} s) — {judged} judged; opening the run (imports deepeval): "
            f"{open_s:.2f} s\n"
            f"replay of the same {options.turns} judged turns: {replay_s:.3f} s (target ≤ "
            f"{REPLAY_TARGET_S:.0f} s), deepeval imported: {replayed['deepeval']}\n"
            f"{'PASS' if ok else 'FAIL'}"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
