#!/usr/bin/env python3
"""The README's whole test command, timed as a newcomer (and CI) runs it: in a fresh clone of
this checkout's HEAD, with the package caches as they are (warm, after a first install), each
`&&`-joined step timed on its own — install, `ruff`, `mypy`, pytest (issue 28: ≤ 10 minutes
in all on the 2-core machine).

The command is read from README.md between the `<!-- test-command -->` markers, as `.ci/run`
reads it; the clone goes to a temporary folder, removed afterwards unless --keep. Prints one
line per step and the total, with the load average before and after (other users of the
machine change the figure, so it is recorded with it); exits 1 when a step fails.

    .venv/bin/python bench/readme_command_time.py [--keep] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TARGET_S = 600.0
MARKED = re.compile(r"<!-- test-command -->\s*```bash\n(.*?)\n```\s*<!-- /test-command -->", re.S)


def readme_command() -> str:
    found = MARKED.search((REPO / "README.md").read_text(encoding="utf-8"))
    if found is None:
        sys.exit("README.md has no ```bash block between <!-- test-command --> markers")
    return found.group(1).strip()


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", action="store_true", help="keep the clone (its path is printed)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    options = parser.parse_args()
    steps = [step.strip() for step in readme_command().split(" && ")]
    folder = Path(tempfile.mkdtemp(prefix="holodeck-readme-command-"))
    clone = folder / "holodeck-lsp"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=clone, capture_output=True, text=True
    ).stdout.strip()
    done: list[dict[str, object]] = []
    figures: dict[str, object] = {"commit": commit, "load_before": load(), "steps": done}
    total, status = 0.0, 0
    try:
        for step in steps:
            started = time.monotonic()
            # Output goes through: a failing step shows why, as in CI.
            status = subprocess.run(["bash", "-c", step], cwd=clone, check=False).returncode
            took = time.monotonic() - started
            total += took
            done.append({"step": step, "seconds": round(took, 1), "status": status})
            if not options.json:
                print(f"{took:8.1f} s  exit {status}  {step}", flush=True)
            if status != 0:
                break
    finally:
        if options.keep:
            print(f"clone kept in {clone}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    figures.update(total_s=round(total, 1), load_after=load(), target_s=TARGET_S)
    if options.json:
        print(json.dumps(figures, indent=2))
    else:
        verdict = "met" if status == 0 and total <= TARGET_S else "NOT met"
        print(f"{total:8.1f} s  total at {commit} (target ≤ {TARGET_S:.0f} s: {verdict}); "
              f"load {figures['load_before']} → {figures['load_after']}")  # fmt: skip
    return 0 if status == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
