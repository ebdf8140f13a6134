"""Tracing off costs nothing: a cold `check` and a cold `run` that is not traced import no
OpenTelemetry module (docs/observability.md, "Turning tracing on"); the same run traced does,
which shows the check can fail. (A live Semantic Kernel run is the exception: the SK package
imports opentelemetry's API itself, traced or not.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.sample.sample_support import copy_sample

pytestmark = pytest.mark.slow

_PROBE = """\
import sys
from holodeck_lsp.cli import main
try:
    status = main(sys.argv[1:])
except SystemExit as stop:
    status = stop.code
loaded = sorted(name for name in sys.modules if name.split(".")[0] == "opentelemetry")
print("OTEL:", ",".join(loaded) or "none", file=sys.stderr)
"""


def _loaded_after(args: list[str], cwd: Path, **env: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *args],
        cwd=cwd,
        env={**os.environ, "HOME": str(cwd), **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    [line] = [line for line in done.stderr.splitlines() if line.startswith("OTEL: ")]
    return line.removeprefix("OTEL: ")


def _with_block(agent: Path) -> None:
    text = agent.read_text(encoding="utf-8")
    block = "observability:\n  enabled: true\n  exporters: {console: {enabled: true}}\n"
    agent.write_text(text + "\n" + block, encoding="utf-8")


def test_check_and_an_untraced_run_import_no_opentelemetry(tmp_path: Path) -> None:
    folder = copy_sample(tmp_path)
    _with_block(folder / "agent.yaml")
    assert _loaded_after(["check", str(folder)], tmp_path) == "none"
    replay = ["run", str(folder), "--replay", str(folder / "cassettes" / "oracle.json")]
    assert _loaded_after([*replay, "--no-trace", "--no-save"], tmp_path) == "none"
    traced = _loaded_after([*replay, "--no-save"], tmp_path)  # the block turns it on
    assert "opentelemetry.sdk.trace" in traced.split(",")
