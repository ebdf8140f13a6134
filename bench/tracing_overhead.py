"""What tracing costs a run: the same suite through the real console script, untraced
(`--no-trace`) and traced (`--trace`, spans over OTLP/gRPC to the receiver of
tests/fakes/otlp_receiver.py, a separate process), alternating, against a loopback OpenAI fake
answering every model call after `--delay` seconds (a model's latency; real ones take longer,
which makes the share smaller).

    .venv/bin/python bench/tracing_overhead.py [--cases 40] [--parallel 4] [--delay 0.1]
        [--pairs 3] [--json]

Target (issue 41, docs/benchmarks.md "Tracing overhead"): the traced run's wall time ≤ 1.03×
the untraced one's. On a shared, loaded machine wall times vary by more than that between two
identical runs, so it prints the fastest and the median of each, and the CPU time the run's
process spent (traced minus untraced, over the fastest untraced wall time): on an idle machine
the extra CPU bounds the extra wall time.

Each case is two turns, each turn a tool call and an answer (two model calls), so a run of
40 cases sends 160 model calls and makes about 440 spans.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import resource
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

from tests.fakes.openai_server import FakeOpenAIServer, Reply, ToolCall  # noqa: E402
from tests.fakes.otlp_receiver import OtlpReceiver, flat_spans  # noqa: E402

CLI = Path(sys.executable).parent / "holodeck-lsp"
TOOLS = 'def subtract(a: int, b: int) -> int:\n    """a minus b"""\n    return a - b\n'


def write_suite(folder: Path, endpoint: str, cases: int) -> Path:
    (folder / "tools.py").write_text(TOOLS, encoding="utf-8")
    lines = [
        "name: traced-bench",
        f'model: {{provider: openai, name: gpt-4o-mini, endpoint: "{endpoint}"}}',
        'instructions: {inline: "Use the tools."}',
        "tools:",
        "  - {name: subtract, type: function, description: a minus b, file: tools.py,",
        "      function: subtract}",
        "evaluations:",
        "  metrics:",
        "    - {type: standard, metric: numeric, absolute_tolerance: 0.001}",
        "test_cases:",
    ]
    for n in range(cases):
        lines += [
            f"  - name: case-{n}",
            "    turns:",
            f'      - {{input: "What is {n + 10} minus 3?", ground_truth: "{n + 7}",'
            "          expected_tools: [subtract]}",
            f'      - {{input: "And {n + 20} minus 3?", ground_truth: "{n + 17}"}}',
        ]
    path = folder / "agent.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def responder(delay: float) -> Any:
    def answer(body: dict[str, Any]) -> Reply:
        messages = body.get("messages") or []
        last = messages[-1] if messages else {}
        user = next(m for m in reversed(messages) if m.get("role") == "user")
        words = str(user.get("content")).replace("?", "").split()
        a = int(words[-3])
        if last.get("role") == "tool":
            return Reply(text=str(a - 3), delay=delay)
        return Reply(tool_calls=[ToolCall("tools-subtract", {"a": a, "b": 3})], delay=delay)

    return answer


class ServerThread:
    def __init__(self, delay: float) -> None:
        self.server = FakeOpenAIServer()
        self.server.responder = responder(delay)
        self._loop = asyncio.new_event_loop()
        ready = threading.Event()

        def serve() -> None:
            asyncio.set_event_loop(self._loop)
            self._loop.run_until_complete(self.server.start())
            ready.set()
            self._loop.run_forever()

        threading.Thread(target=serve, daemon=True).start()
        ready.wait(10)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_run(
    agent: Path, home: Path, parallel: int, extra: list[str], env: dict[str, str]
) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the run's process)."""
    cpu = _children_cpu()
    started = time.perf_counter()
    done = subprocess.run(
        [str(CLI), "run", str(agent), "--no-save", "--quiet", "--parallel", str(parallel), *extra],
        env={"PATH": os.environ.get("PATH", ""), "HOME": str(home),
             "OPENAI_API_KEY": "sk-bench-0000", "HOLODECK_PREFLIGHT": "0", **env},
        capture_output=True,
        text=True,
        timeout=600,
    )  # fmt: skip
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"run failed ({done.returncode}): {done.stderr[-2000:]}")
    return elapsed, _children_cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=40)
    parser.add_argument("--parallel", type=int, default=4)
    parser.add_argument("--delay", type=float, default=0.1)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    fake = ServerThread(args.delay)
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        agent = write_suite(folder, f"{fake.server.base_url}/v1", args.cases)
        receiver = OtlpReceiver(folder)
        traced_env = {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.grpc_endpoint}
        try:
            timed_run(agent, folder, args.parallel, ["--no-trace"], {})  # warm the caches
            plain: list[tuple[float, float]] = []
            traced: list[tuple[float, float]] = []
            for _ in range(args.pairs):
                plain.append(timed_run(agent, folder, args.parallel, ["--no-trace"], {}))
                traced.append(timed_run(agent, folder, args.parallel, ["--trace"], traced_env))
            spans = len(list(flat_spans(receiver.documents())))
        finally:
            receiver.close()
    wall_plain, wall_traced = [w for w, _ in plain], [w for w, _ in traced]
    cpu_plain = statistics.median(c for _, c in plain)
    cpu_traced = statistics.median(c for _, c in traced)
    fastest = min(wall_plain)
    result = {
        "cases": args.cases,
        "parallel": args.parallel,
        "delay_s": args.delay,
        "untraced_wall_s": [round(t, 2) for t in wall_plain],
        "traced_wall_s": [round(t, 2) for t in wall_traced],
        "wall_overhead_pct_min": round((min(wall_traced) / fastest - 1) * 100, 1),
        "wall_overhead_pct_median": round(
            (statistics.median(wall_traced) / statistics.median(wall_plain) - 1) * 100, 1
        ),
        "untraced_cpu_s": round(cpu_plain, 2),
        "traced_cpu_s": round(cpu_traced, 2),
        # On an idle machine the extra CPU is at most the extra wall time the run spends.
        "cpu_overhead_pct_of_wall": round((cpu_traced - cpu_plain) / fastest * 100, 1),
        "spans_received": spans,
        "machine": f"{os.cpu_count()} cores, {platform.machine()}, "
        f"Python {platform.python_version()}",
        "load_1min": round(os.getloadavg()[0], 2),
    }
    if args.json:
        print(json.dumps(result, indent=1))
        return
    for key, value in result.items():
        print(f"{key:>18}: {value}")
    met = min(result["wall_overhead_pct_min"], result["cpu_overhead_pct_of_wall"]) <= 3
    print("target: overhead <= 3 %:", "met" if met else "NOT met")


if __name__ == "__main__":
    main()
