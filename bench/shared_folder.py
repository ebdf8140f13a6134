"""Where the workspace's shared folder is (ConvFinQA data, tools/gen_convfinqa_agent.py), so
the benchmarks run from any clone without `--shared`: $HOLODECK_SHARED, else a `shared`
folder beside the repository or beside any folder above it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
_MARKER = Path("tools") / "gen_convfinqa_agent.py"


def default_shared() -> Path:
    explicit = os.environ.get("HOLODECK_SHARED")
    if explicit:
        return Path(explicit)
    for folder in (REPO, *REPO.parents):
        candidate = folder.parent / "shared"
        if (candidate / _MARKER).is_file():
            return candidate
    return REPO.parent / "shared"


def generate_yardstick(shared: Path, cases: int, agent: Path, *, script: str) -> Path:
    """Write the ConvFinQA yardstick `agent` (and its tools.py) with `cases` cases, using the
    shared folder's generator; exits with a message naming `script` when the folder lacks it."""
    tool = shared / _MARKER
    source = shared / "data" / "convfinqa" / "convfinqa_dataset_dev.json"
    for needed in (tool, source):
        if not needed.exists():
            sys.exit(f"{script}: {needed} not found (use --shared PATH)")
    command = [sys.executable, str(tool), "--source", str(source), "--cases", str(cases)]
    subprocess.run([*command, "--out", str(agent)], check=True, capture_output=True, text=True)
    return agent
