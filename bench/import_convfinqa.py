#!/usr/bin/env python3
"""How long does `holodeck-lsp import convfinqa` take on the whole dev split? (see
docs/benchmarks.md, "Importing ConvFinQA")

Measures, after one warm-up and over `--repeat` runs (min and median):

1. the conversion in process: `convert(FILE, "dev", None)` — read and check the 421 records,
   select (371 qualify), build the subset, the pages and agent.yaml (no writing);
2. the whole command as a fresh process, writing into a scratch folder under bench/out/:
   `holodeck-lsp import convfinqa FILE --n all --out DIR`;
3. `holodeck-lsp check DIR` of what it wrote (must be clean).

The ConvFinQA file is the shared folder's dev split (bench/shared_folder.py), or `--source`.

    .venv/bin/python bench/import_convfinqa.py [--repeat 5] [--source FILE] [--json]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

try:  # run as a script (bench/ on sys.path) or imported as bench.<module>
    from shared_folder import default_shared
except ImportError:
    from bench.shared_folder import default_shared

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "bench" / "out" / "import_convfinqa"
SCRIPT = Path(sys.executable).with_name("holodeck-lsp")


def timed(action: Callable[[], object], repeat: int) -> list[float]:
    action()  # warm-up: imports, the page cache
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return times


def _process(*args: str) -> Callable[[], object]:
    def run() -> object:
        done = subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            sys.exit(f"import_convfinqa.py: `holodeck-lsp {' '.join(args)}` failed:\n{done.stderr}")
        return done

    return run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed runs of each (5)")
    parser.add_argument("--source", type=Path, help="the ConvFinQA JSON (default: shared dev)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    options = parser.parse_args()
    source = options.source or (
        default_shared() / "data" / "convfinqa" / "convfinqa_dataset_dev.json"
    )
    if not source.is_file():
        sys.exit(f"import_convfinqa.py: {source} not found (use --source FILE)")

    from holodeck_lsp.importers.convfinqa.suite import convert

    conversion = convert(source, "dev", None)
    suite = OUT / "dev-all"
    shutil.rmtree(suite, ignore_errors=True)
    measures = {
        "convert in process": timed(lambda: convert(source, "dev", None), options.repeat),
        "import, whole process": timed(
            _process("import", "convfinqa", str(source), "--n", "all", "--out", str(suite)),
            options.repeat,
        ),
        "check of the imported suite": timed(_process("check", str(suite)), options.repeat),
    }
    figures = {
        "dialogues": len(conversion.selection.chosen),
        "passed_over": len(conversion.selection.passed_over),
        "turns": conversion.turns,
        **{
            name: {"min_s": min(times), "median_s": statistics.median(times)}
            for name, times in measures.items()
        },
    }
    if options.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(
        f"{figures['dialogues']} dialogues ({figures['turns']} turns), "
        f"{figures['passed_over']} passed over, from {source}"
    )
    for name, times in measures.items():
        print(f"  {name:<30} {min(times) * 1000:8.1f} / {statistics.median(times) * 1000:8.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
