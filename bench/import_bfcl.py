#!/usr/bin/env python3
"""How fast are `import bfcl`, `check` of what it writes, and a replay of it?
(bench/README.md, docs/benchmarks.md "BFCL import")

Needs the bfcl-eval wheel (`pip download --no-deps bfcl-eval -d DIR`; `--wheel PATH`). Into
bench/out/import_bfcl/ it measures, min and median over `--repeat` runs after a warm-up:

1. importing all 800 multi-turn records (the four categories) as a fresh process running
   the command module (what `holodeck-lsp import bfcl WHEEL --categories all` runs), and the
   import alone in-process;
2. `holodeck-lsp check` of the 200-record base suite (a fresh process, all its agent files);
3. replaying that suite: its cassettes are recorded once against the sample's oracle (one per
   agent file: a cassette holds one agent's run), then every agent file is replayed, graded
   by both views, in one process (`cli.main` per file) and timed as a whole. A turn with
   more than 5 calls fails against the oracle (Semantic Kernel stops offering tools after 5
   auto-invocations), so not every case passes; the replay grades them all the same.

Targets (median): import of 800 <= 5 s; check of 200 <= 2 s; replay of 200 <= 10 s.
Exit status 1 if a target fails (`--no-fail`: 0).

    .venv/bin/python bench/import_bfcl.py --wheel bfcl_eval-*.whl [--repeat 5] [--pyc]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import select
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out" / "import_bfcl"
ORACLE = ROOT / "sample" / "bfcl-multi-turn" / "scripts" / "bfcl_oracle_server.py"
BIN = Path(sys.executable).parent
TARGETS = {"import_800": 5.0, "check_200": 2.0, "replay_200": 10.0}
#: The timed processes' environment (--pyc: bytecode cached, as an installed package has it).
CHILD_ENV: dict[str, str] = dict(os.environ)

IMPORT = (
    "import argparse, sys\n"
    "from holodeck_lsp.commands.import_ import bfcl\n"
    "p = argparse.ArgumentParser(); bfcl.add_arguments(p)\n"
    "sys.exit(bfcl.run(p.parse_args(sys.argv[1:])))\n"
)

REPLAY = (
    "import sys, time\n"
    "from holodeck_lsp.cli import main\n"
    "start = time.perf_counter(); bad = 0\n"
    "for agent in sys.argv[1:]:\n"
    "    cassette = agent.replace('.agent.yaml', '.cassette.json')\n"
    "    bad += main(['run', agent, '--no-save', '--quiet', '--replay', cassette]) not in (0, 1)\n"
    "print(time.perf_counter() - start, bad)\n"
)


#: CPU seconds (user + sys) of each timed process, by label: on a shared, loaded machine the
#: wall time says how long others kept the CPUs, the CPU time what the command itself costs.
CPU: dict[str, list[float]] = {}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str], label: str = "", **kwargs: object) -> float:
    start, cpu = time.perf_counter(), _children_cpu()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=CHILD_ENV, **kwargs)  # type: ignore[call-overload]
    CPU.setdefault(label, []).append(_children_cpu() - cpu)
    return time.perf_counter() - start


def measure(label: str, repeat: int, once: Callable[[], float]) -> dict[str, float]:
    once()  # warm-up: file cache, .pyc
    times = [once() for _ in range(repeat)]
    result = {"min": min(times), "median": statistics.median(times)}
    print(f"{label}: min {result['min']:.2f} s, median {result['median']:.2f} s", flush=True)
    return result


def import_suite(wheel: Path, out: Path, *args: str) -> float:
    shutil.rmtree(out, ignore_errors=True)
    return timed([sys.executable, "-c", IMPORT, str(wheel), "-o", str(out), *args], "import")


def record_cassettes(suite: Path) -> list[Path]:
    proc = subprocess.Popen(
        [sys.executable, str(ORACLE), "--port", "0", "--quiet", "--suite", str(suite)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], 60)
        match = re.search(r":(\d+) ", proc.stdout.readline() if ready else "")
        assert match, "the oracle did not start"
        env = {**os.environ, "OLLAMA_HOST": f"127.0.0.1:{match.group(1)}"}
        agents = sorted(suite.glob("*agent.yaml"))
        for agent in agents:
            cassette = str(agent).replace(".agent.yaml", ".cassette.json")
            # exit 1 is fine: a turn with more than 5 calls fails against the oracle (Semantic
            # Kernel stops offering tools after 5 auto-invocations); the replay is timed anyway
            done = subprocess.run(
                [str(BIN / "holodeck-lsp"), "run", str(agent), "--no-save", "--quiet",
                 "--parallel", "16", "--record", cassette],
                env=env, stdout=subprocess.DEVNULL,
            )  # fmt: skip
            assert done.returncode in (0, 1), f"{agent}: exit {done.returncode}"
        return agents
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wheel", type=Path, required=True, help="the bfcl-eval wheel")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-fail", action="store_true")
    parser.add_argument(
        "--pyc", action="store_true", help="let the timed processes cache bytecode (OUT/pycache)"
    )
    args = parser.parse_args()
    if args.pyc:
        CHILD_ENV.pop("PYTHONDONTWRITEBYTECODE", None)
        CHILD_ENV["PYTHONPYCACHEPREFIX"] = str(OUT / "pycache")
    elif os.environ.get("PYTHONDONTWRITEBYTECODE"):
        print("PYTHONDONTWRITEBYTECODE is set: every process compiles its modules (see --pyc)")
    OUT.mkdir(parents=True, exist_ok=True)
    results: dict[str, dict[str, float]] = {}

    all_800 = OUT / "all"
    results["import_800"] = measure(
        "import 800 records (process)",
        args.repeat,
        lambda: import_suite(args.wheel, all_800, "--categories", "all"),
    )
    sys.path.insert(0, str(ROOT))
    from holodeck_lsp.importers.bfcl.importer import Selection, import_bfcl

    def in_process() -> float:
        start = time.perf_counter()
        import_bfcl(args.wheel, Selection(categories=("base", "miss_func", "miss_param",
                                                      "long_context")))  # fmt: skip
        return time.perf_counter() - start

    results["import_800_in_process"] = measure("import 800 records (in-process)", 3, in_process)

    base = OUT / "base200"
    import_suite(args.wheel, base)
    check = [str(BIN / "holodeck-lsp"), "check", str(base)]
    results["check_200"] = measure(
        "check 200 base records", args.repeat, lambda: timed(check, "check")
    )

    agents = record_cassettes(base)

    def replay() -> float:
        cpu = _children_cpu()
        done = subprocess.run(
            [sys.executable, "-c", REPLAY, *map(str, agents)],
            check=True, capture_output=True, text=True, env=CHILD_ENV,
        )  # fmt: skip
        CPU.setdefault("replay (whole process, start-up included)", []).append(
            _children_cpu() - cpu
        )
        seconds, bad = done.stdout.split()[-2:]
        assert bad == "0", f"{bad} agent files could not be replayed"
        return float(seconds)

    results["replay_200"] = measure(
        f"replay 200 base records ({len(agents)} agent files, one process)", args.repeat, replay
    )
    for label, seconds in CPU.items():
        if label:
            print(f"CPU of each {label} process: median {statistics.median(seconds):.2f} s")
    failed = [k for k, limit in TARGETS.items() if results[k]["median"] > limit]
    for key, limit in TARGETS.items():
        verdict = "FAIL" if key in failed else "PASS"
        print(f"{verdict} {key}: median {results[key]['median']:.2f} s <= {limit:g} s")
    (OUT / "results.json").write_text(json.dumps(results, indent=2))
    return 1 if failed and not args.no_fail else 0


if __name__ == "__main__":
    raise SystemExit(main())
