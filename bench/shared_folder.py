"""Where the workspace's shared folder is (ConvFinQA data, tools/gen_convfinqa_agent.py), so
the benchmarks run from any clone without `--shared`: $HOLODECK_SHARED, else a `shared`
folder beside the repository or beside any folder above it, else /work/shared."""

from __future__ import annotations

import os
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
    fallback = Path("/work/shared")
    return fallback if (fallback / _MARKER).is_file() else REPO.parent / "shared"
