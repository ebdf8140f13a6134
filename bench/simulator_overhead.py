"""What a simulated user costs per turn apart from the models' time (issue 39, item 5): the
same conversations run through the real console script twice, alternating, against loopback
fakes that answer every model call after `--delay` seconds:

- simulated: `--cases` cases, each a `simulated_user` (on the fake Anthropic server,
  tests/fakes/anthropic_server.py, scripted as in tests/fakes/simulated_user.py) that writes
  `--turns` messages and then its stop marker; the agent on the fake OpenAI server
  (tests/fakes/openai_server.py). Each case makes `turns` agent calls and `turns + 1`
  simulator calls (the last one is the stop message, never sent to the agent).
- scripted: the same cases with the same `--turns` user messages written as scripted `turns`.

After one warm-up run of each, both run with `--parallel 1`, so the time spent waiting for the
models is known: the delay times the calls each fake answered. Per turn: wall time, model
wait (agent's and simulator's) and holodeck-lsp's own overhead (wall minus model wait, the
process start included, spread over the turns). The simulator's own cost per generated turn
is the simulated run's overhead per turn minus the scripted run's (the process start cancels
out).

    .venv/bin/python bench/simulator_overhead.py [--cases 10] [--turns 10] [--delay 0.2]
        [--repeat 3] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fakes import anthropic_server, openai_server  # noqa: E402
from tests.fakes.loopback_http import LoopbackHTTPServer  # noqa: E402

CLI = Path(sys.executable).parent / "holodeck-lsp"
STOP = "Thanks, that is all. ###STOP###"


def user_message(case: int, turn: int) -> str:
    return f"Case {case}, question {turn}: what is the status of order W{1000 + turn}?"


def write_suite(
    path: Path, urls: tuple[str, str], cases: int, turns: int, *, simulated: bool
) -> Path:
    """`cases` cases of `turns` user messages: written by a simulated user, or scripted."""
    agent_url, user_url = urls
    lines = [
        "name: simulator-bench",
        f'model: {{provider: openai, name: gpt-4o-mini, endpoint: "{agent_url}"}}',
        'instructions: {inline: "Help the customer."}',
        "test_cases:",
    ]
    for case in range(cases):
        lines.append(f"  - name: case-{case}")
        if not simulated:
            lines.append("    turns:")
            lines += [f'      - input: "{user_message(case, t)}"' for t in range(turns)]
            continue
        lines += [
            "    simulated_user:",
            f'      instructions: "You are customer {case}. Ask {turns} questions, then stop."',
            f'      model: {{provider: anthropic, name: claude-haiku-4-5, endpoint: "{user_url}",'
            " temperature: 0.0}",
            f"      max_turns: {turns}",
        ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def agent_responder(delay: float) -> Any:
    def answer(body: dict[str, Any]) -> openai_server.Reply:
        asked = sum(1 for m in body.get("messages") or [] if m.get("role") == "user")
        return openai_server.Reply(text=f"Order status, answer {asked}: shipped.", delay=delay)

    return answer


def simulator_responder(delay: float) -> Any:
    """The simulated user: its own earlier messages come back as `assistant` messages (the
    roles flipped, docs/simulated-users.md "How the simulator is asked")."""

    def answer(body: dict[str, Any]) -> anthropic_server.Reply:
        messages = body.get("messages") or []
        written = sum(1 for m in messages if m.get("role") == "assistant")
        system = body.get("system")
        text = system if isinstance(system, str) else json.dumps(system)
        found = re.search(r"customer (\d+)\. Ask (\d+) questions", text)
        assert found is not None, text
        case, turns = int(found[1]), int(found[2])
        message = STOP if written >= turns else user_message(case, written)
        return anthropic_server.Reply(text=message, delay=delay)

    return answer


class FakesThread:
    """Both fakes on one event loop in a thread, so the console script can call them."""

    def __init__(self, delay: float) -> None:
        self.agent = openai_server.FakeOpenAIServer()
        self.agent.responder = agent_responder(delay)
        self.user = anthropic_server.FakeAnthropicServer()
        self.user.responder = simulator_responder(delay)
        self._loop = asyncio.new_event_loop()
        ready = threading.Event()

        def serve() -> None:
            asyncio.set_event_loop(self._loop)
            servers: list[LoopbackHTTPServer] = [self.agent, self.user]
            for server in servers:
                self._loop.run_until_complete(server.start())
            ready.set()
            self._loop.run_forever()

        threading.Thread(target=serve, daemon=True).start()
        if not ready.wait(10):
            raise SystemExit("the fake servers did not start")

    def calls(self) -> tuple[int, int]:
        return len(self.agent.chat_requests), len(self.user.conversation_requests)


def timed_run(agent: Path, fakes: FakesThread) -> tuple[float, int, int, Any]:
    """(wall seconds, agent calls, simulator calls, report) of one run."""
    home = agent.parent
    agent_before, user_before = fakes.calls()
    report_path = home / "report.json"
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "OPENAI_API_KEY": "sk-bench-0000",
        "ANTHROPIC_API_KEY": "sk-ant-bench-0000",
        "HOLODECK_PREFLIGHT": "0",
    }
    args = [str(CLI), "run", str(agent), "--no-save", "--quiet", "--parallel", "1"]
    started = time.perf_counter()
    done = subprocess.run(
        [*args, "--report-json", str(report_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"run failed ({done.returncode}): {done.stdout[-2000:]}{done.stderr}")
    agent_after, user_after = fakes.calls()
    report = json.loads(report_path.read_text(encoding="utf-8"))
    return elapsed, agent_after - agent_before, user_after - user_before, report


def check_turns(report: Any, cases: int, turns: int, simulated: bool) -> None:
    """Every case passed with the conversation it was meant to have: the bench measures
    nothing else."""
    results = report["results"]
    assert len(results) == cases and all(r["passed"] for r in results), "a case did not pass"
    for result in results:
        assert len(result["turns"]) == turns, "a conversation of the wrong length"
        if simulated:
            simulation = result["simulation"]
            assert simulation["simulated_turns"] == turns and simulation["stop_marker"]


def per_turn(runs: list[dict[str, float]], key: str) -> dict[str, float]:
    values = [run[key] for run in runs]
    return {"median_ms": round(statistics.median(values), 2), "max_ms": round(max(values), 2)}


def measure(
    suites: dict[str, Path], kind: str, fakes: FakesThread, args: argparse.Namespace
) -> dict[str, float]:
    """One run of the `kind` suite and one of its one-turn twin: per turn, the wall time, the
    models' wait, the overhead with the process start spread over the turns, and without it
    (the one-turn run's overhead is the start plus one turn's)."""
    waits: list[tuple[float, float, float]] = []
    for suite, cases, turns in ((f"{kind}-start", 1, 1), (kind, args.cases, args.turns)):
        elapsed, agent_calls, user_calls, report = timed_run(suites[suite], fakes)
        check_turns(report, cases, turns, kind == "simulated")
        waits.append((elapsed, agent_calls * args.delay, user_calls * args.delay))
    (start_wall, start_agent, start_user), (elapsed, agent_wait, user_wait) = waits
    turns = args.cases * args.turns
    rest = elapsed - agent_wait - user_wait
    start_rest = start_wall - start_agent - start_user
    return {
        "wall_ms": elapsed / turns * 1000,
        "agent_model_ms": agent_wait / turns * 1000,
        "simulator_model_ms": user_wait / turns * 1000,
        "overhead_ms": rest / turns * 1000,
        "overhead_after_start_ms": (rest - start_rest) / (turns - 1) * 1000,
        "process_start_ms": (start_rest - (rest - start_rest) / (turns - 1)) * 1000,
        "agent_calls": agent_calls_of(agent_wait, args.delay),
        "simulator_calls": agent_calls_of(user_wait, args.delay),
    }


def agent_calls_of(wait: float, delay: float) -> int:
    return round(wait / delay)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=10)
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--delay", type=float, default=0.2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    fakes = FakesThread(args.delay)
    load_before = os.getloadavg()[0]
    runs: dict[str, list[dict[str, float]]] = {"simulated": [], "scripted": []}
    urls = (f"{fakes.agent.base_url}/v1", fakes.user.base_url)
    with tempfile.TemporaryDirectory() as scratch:
        suites: dict[str, Path] = {}
        for kind in runs:
            simulated = kind == "simulated"
            suites[kind] = write_suite(
                Path(scratch) / f"{kind}.yaml", urls, args.cases, args.turns, simulated=simulated
            )
            start = Path(scratch) / f"{kind}-start.yaml"
            suites[f"{kind}-start"] = write_suite(start, urls, 1, 1, simulated=simulated)
            # Warm-up: the first run of a process fills the bytecode caches.
            timed_run(suites[kind], fakes)
        for _ in range(args.repeat):
            for kind in runs:
                runs[kind].append(measure(suites, kind, fakes, args))
    keys = (
        "wall_ms",
        "agent_model_ms",
        "simulator_model_ms",
        "overhead_ms",
        "overhead_after_start_ms",
        "process_start_ms",
    )
    result: dict[str, Any] = {
        "cases": args.cases,
        "turns_per_case": args.turns,
        "delay_s": args.delay,
        "repeats": args.repeat,
        "calls_per_run": {
            k: (v[0]["agent_calls"], v[0]["simulator_calls"]) for k, v in runs.items()
        },
    }
    for kind, measured in runs.items():
        result[kind] = {key: per_turn(measured, key) for key in keys}
    own = [
        sim["overhead_after_start_ms"] - scr["overhead_after_start_ms"]
        for sim, scr in zip(runs["simulated"], runs["scripted"], strict=True)
    ]
    result["simulator_own_ms_per_turn"] = {
        "median_ms": round(statistics.median(own), 2),
        "max_ms": round(max(own), 2),
    }
    result["machine"] = (
        f"{os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}"
    )
    result["load_1min"] = (round(load_before, 2), round(os.getloadavg()[0], 2))
    if args.json:
        print(json.dumps(result, indent=1))
        return
    for key, value in result.items():
        print(f"{key:>26}: {value}")


if __name__ == "__main__":
    main()
