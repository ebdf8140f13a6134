#!/usr/bin/env python3
"""What one process of the tool costs from spawn to exit, in CPU seconds and wall seconds
(issue 37, item 7: the test suite starts hundreds of these, users one per command):

- `holodeck-lsp run` of a tiny one-case agent replaying its cassette (history in a temp HOME);
- `holodeck-lsp run` of the sample agent replaying its oracle cassette;
- `holodeck-lsp check` of the sample agent, `holodeck-lsp runs`, `holodeck-lsp --version`;
- a language server start: spawn, initialize, didOpen of the sample agent, wait for its
  diagnostics, shutdown, exit.

CPU is the child's user + system time (os.wait4), so other load on the machine moves the wall
figure much more than the CPU one. Child processes run with cached bytecode (a warm-up run
writes it, PYTHONDONTWRITEBYTECODE removed from their environment). Median of --repeat runs.

    .venv/bin/python bench/startup_cost.py [--repeat 7] [--json] [--before DIR]

`--before DIR` measures a second copy of the package beside this one, the two interleaved
(same load for both): DIR holds an older `holodeck_lsp/` (`git archive REV holodeck_lsp |
tar -x -C DIR`), put first on the children's PYTHONPATH.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "sample" / "financial-assistant"

TINY_AGENT = """\
name: tiny
model:
  provider: openai
  name: gpt-4o-mini
instructions:
  inline: Answer briefly.
evaluations:
  metrics:
    - type: standard
      metric: equality
test_cases:
  - name: one
    input: "q"
    ground_truth: "yes"
"""
TINY_CASSETTE = {
    "format": "holodeck-cassette",
    "version": 2,
    "agent": "tiny",
    "cases": [
        {
            "name": "one",
            "index": 0,
            "turns": [
                {
                    "input": "q",
                    "response": "yes",
                    "tool_calls": [],
                    "token_usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
                    "error": None,
                    "duration_ms": 12,
                }
            ],
        }
    ],
}

Cost = tuple[float, float]  # (cpu seconds, wall seconds)


def cli() -> list[str]:
    script = Path(sys.executable).with_name("holodeck-lsp")
    return [str(script)] if script.exists() else [sys.executable, "-m", "holodeck_lsp"]


def spawn_cost(argv: list[str], env: dict[str, str], cwd: Path) -> Cost:
    started = time.perf_counter()
    process = subprocess.Popen(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd, env=env
    )
    _, _, usage = os.wait4(process.pid, 0)
    process.returncode = 0  # reaped by wait4
    return usage.ru_utime + usage.ru_stime, time.perf_counter() - started


def _message(payload: dict[str, object]) -> bytes:
    body = json.dumps(payload).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _read(stream: object) -> dict[str, object]:
    read = stream.readline  # type: ignore[attr-defined]
    length = 0
    while (line := read()) not in (b"\r\n", b""):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(stream.read(length))  # type: ignore[attr-defined,no-any-return]


def server_cost(argv: list[str], env: dict[str, str], cwd: Path) -> Cost:
    """Spawn the server, initialize, open the sample agent, wait for its diagnostics, stop."""
    agent = SAMPLE / "agent.yaml"
    started = time.perf_counter()
    process = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        cwd=cwd, env=env,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    send = process.stdin

    def write(payload: dict[str, object]) -> None:
        send.write(_message({"jsonrpc": "2.0", **payload}))
        send.flush()

    initialize = {"processId": None, "rootUri": SAMPLE.as_uri(), "capabilities": {}}
    write({"id": 1, "method": "initialize", "params": initialize})
    while _read(process.stdout).get("id") != 1:
        pass
    write({"method": "initialized", "params": {}})
    write({"method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": agent.as_uri(), "languageId": "yaml", "version": 1,
        "text": agent.read_text(encoding="utf-8")}}})  # fmt: skip
    while _read(process.stdout).get("method") != "textDocument/publishDiagnostics":
        pass
    write({"id": 2, "method": "shutdown", "params": None})
    while _read(process.stdout).get("id") != 2:
        pass
    write({"method": "exit", "params": None})
    send.close()
    _, _, usage = os.wait4(process.pid, 0)
    process.returncode = 0
    process.stdout.close()
    return usage.ru_utime + usage.ru_stime, time.perf_counter() - started


def measures(home: Path, before: Path | None = None) -> dict[str, Callable[[], Cost]]:
    tiny = home / "tiny"
    tiny.mkdir(exist_ok=True)
    (tiny / "agent.yaml").write_text(TINY_AGENT, encoding="utf-8")
    (tiny / "cassette.json").write_text(json.dumps(TINY_CASSETTE), encoding="utf-8")
    env = {**os.environ, "HOME": str(home)}
    if before is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(before), env.get("PYTHONPATH")]))
    env.pop("HOLODECK_PREFLIGHT", None)
    # The warm-up run writes the bytecode cache, as on a user's machine (some sandboxes set
    # this, and then every process compiles the whole package again: DEVELOPERS.md).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    command = cli()
    oracle = SAMPLE / "cassettes" / "oracle.json"
    run_tiny = [*command, "run", str(tiny), "--replay", str(tiny / "cassette.json"), "--quiet"]
    run_sample = [*command, "run", str(SAMPLE), "--replay", str(oracle), "--quiet"]
    return {
        "run tiny agent (replay)": lambda: spawn_cost(run_tiny, env, home),
        "run sample (replay)": lambda: spawn_cost(run_sample, env, home),
        "check sample": lambda: spawn_cost([*command, "check", str(SAMPLE)], env, home),
        "runs": lambda: spawn_cost([*command, "runs"], env, tiny),
        "--version": lambda: spawn_cost([*command, "--version"], env, home),
        "server start + didOpen": lambda: server_cost(command, env, home),
    }


def _row(name: str, costs: list[Cost]) -> dict[str, object]:
    cpu = [c for c, _ in costs]
    wall = [w for _, w in costs]
    return {"name": name, "cpu_s": round(statistics.median(cpu), 3),
            "cpu_min_s": round(min(cpu), 3), "wall_s": round(statistics.median(wall), 3),
            "wall_min_s": round(min(wall), 3)}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--only", help="measure only the rows whose name contains this")
    parser.add_argument("--before", type=Path, help="a folder holding an older holodeck_lsp/")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="startup-cost-") as temp:
        now = measures(Path(temp))
        then = measures(Path(temp), args.before) if args.before else {}
        for name, measure in now.items():
            if args.only and args.only not in name:
                continue
            pairs = [(name, measure)] + ([(f"{name} [before]", then[name])] if then else [])
            for _, each in pairs:
                each()  # warm-up: writes .pyc
            costs: dict[str, list[Cost]] = {label: [] for label, _ in pairs}
            for _ in range(args.repeat):
                for label, each in pairs:
                    costs[label].append(each())
            rows += [_row(label, found) for label, found in costs.items()]
    if args.json:
        print(json.dumps({"python": platform.python_version(),
                          "load": os.getloadavg(), "rows": rows}, indent=2))  # fmt: skip
    else:
        print(f"load average {os.getloadavg()[0]:.2f}; median (min) of {args.repeat}")
        for row in rows:
            print(f"{row['name']:<35} cpu {row['cpu_s']:6.3f} s ({row['cpu_min_s']:.3f})"
                  f"   wall {row['wall_s']:6.3f} s ({row['wall_min_s']:.3f})")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
