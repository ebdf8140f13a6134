"""The CLI's verdicts for every case of sample/financial-assistant replayed from its cassette
(`holodeck-lsp run --replay`, not stored), worked out once per test process: a replay is
deterministic, so the editor tests that compare an editor's runs with the CLI's (Neovim, Kate,
eglot — one xdist group, so one worker) share one run of the CLI instead of one each."""

from __future__ import annotations

import copy
import functools
import shutil
import tempfile
from pathlib import Path
from typing import Any


@functools.cache
def _replayed() -> list[dict[str, Any]]:
    # Imported here: test_neovim imports this module for its fixture.
    from tests.editors.test_neovim import SAMPLE, replay

    with tempfile.TemporaryDirectory(prefix="sample-verdicts-") as folder:
        suite = Path(folder) / "financial-assistant"
        shutil.copytree(SAMPLE, suite, ignore=shutil.ignore_patterns("__pycache__", ".holodeck"))
        return replay(suite / "agent.yaml")


def sample_verdicts() -> list[dict[str, Any]]:
    """Each case's result in the CLI's JSON report (a copy: callers may change it)."""
    return copy.deepcopy(_replayed())
